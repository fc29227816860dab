"""Condensation benchmark: speed, scaling in n and k, and the fidelity study.

Run from the repository root::

    python benchmarks/condensation.py fidelity --dataset kidney   # lifelines' data

    python benchmarks/condensation.py speed                 # targets + scaling in n and k
    python benchmarks/condensation.py fidelity --repeats 20 # the paper's protocol (§5)

Data: the synthetic cancer registry (``arxpy.methods.condensation.devdata``, the paper's
nine variables with planted effects). Speed runs add four numeric lab values so that
there are 13 attributes, as in the paper's largest m. The fidelity study uses the
paper's model mapping (linear and logistic on deceased records, Cox on all records) with
K chosen so there are about 100 groups, and reports per method and model the mean ± sd
of the three metrics over R repetitions, plus the paired comparisons of spec §5
acceptance criteria 2 and 3. ``k-anonymity`` is the paper's "commercial" baseline
(arxpy's lattice engine on the analyses' covariates, hierarchies derived from the data).
Methods whose seed only shuffles rows (TFRP, MDAV) or that have none (k-anonymity) run
once; their table stands for every repetition. Nothing is tuned to the result.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's arxpy

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from arxpy.analysis.model_preservation import (  # noqa: E402
    analysed_covariates,
    compare_models,
    read_analyses,
)
from arxpy.data.definition import DataDefinition  # noqa: E402
from arxpy.methods import run_method  # noqa: E402
from arxpy.methods.condensation.devdata import SIZES, cancer_registry  # noqa: E402

ANALYSES = REPO / "docs" / "examples" / "condensation-analyses.json"
IMPROVED = {"time": "SurvInterval", "status": "VitalStat", "event_value": "0"}
#: label -> (registered method, parameters). "condensation-aggarwal": raw scale + uniform.
METHODS = {
    "improved": ("improved-condensation", IMPROVED),
    "condensation": ("condensation", {}),
    "condensation-aggarwal": ("condensation", {"standardize": False, "generator": "uniform"}),
    "tfrp": ("tfrp", {}),
    "mdav": ("mdav", {}),
    # the paper's "commercial" tool (spec §2.5); QIs: the analyses' covariates
    "k-anonymity": ("k-anonymity-baseline", {}),
}
#: Methods whose seed only shuffles output rows (TFRP, MDAV) or that have none: one run
#: stands for every repetition (the fits do not depend on row order).
DETERMINISTIC = ("tfrp", "mdav", "k-anonymity")


def thirteen_attributes(n: int, seed: int = 0) -> pd.DataFrame:
    frame = cancer_registry(n, seed=seed)
    rng = np.random.default_rng(seed + 1)
    age = frame["DiagAge"].astype(float).to_numpy()
    for i, name in enumerate(("Albumin", "Creatinine", "Hemoglobin", "BMI")):
        values = 10 + 0.05 * age * (i + 1) + rng.normal(0, 2, n)
        frame[name] = np.char.mod("%.2f", values)
    return frame


def _time(method: str, frame: pd.DataFrame, k: int, seed: int = 1) -> float:
    name, params = METHODS[method]
    started = time.perf_counter()
    run_method(name, frame, DataDefinition.for_columns(frame.columns),
               {"k": k, "seed": seed, **params})
    return time.perf_counter() - started


def speed(args: argparse.Namespace) -> dict:
    out: dict = {}
    frame = thirteen_attributes(20_000)
    _time("improved", frame.iloc[:2000], 100)  # warm-up (imports, BLAS)
    out["improved_20000x13_k100_seconds"] = min(_time("improved", frame, 100) for _ in range(3))
    print(f"improved, 20,000 x 13, k=100: {out['improved_20000x13_k100_seconds']:.2f} s "
          "(target < 5 s)")
    rows = []
    for n in args.sizes:
        data = thirteen_attributes(n)
        for method in args.methods:
            if method == "tfrp" and n > 50_000:
                continue  # quadratic; see docs
            rows.append({"n": n, "method": method, "seconds": _time(method, data, 100)})
            print(f"n={n:>7} {method:<22} {rows[-1]['seconds']:.2f} s")
    out["scaling_n"] = rows
    out["slope_n"] = {m: _slope([(r["n"], r["seconds"]) for r in rows if r["method"] == m])
                      for m in args.methods}
    print("log-log slope in n:", json.dumps(out["slope_n"]))
    rows = []
    for k in (10, 20, 50, 100, 200, 500):
        rows.append({"k": k, "seconds": _time("improved", frame, k)})
        print(f"k={k:>4} improved {rows[-1]['seconds']:.2f} s")
    out["scaling_k"] = rows
    out["compare_models_r10_n10000_seconds"] = _compare_models_time()
    print(f"compare-models, R=10, 3 models, 10,000 records, improved: "
          f"{out['compare_models_r10_n10000_seconds']:.1f} s (target < 60 s)")
    return out


def _slope(points: list[tuple[int, float]]) -> float | None:
    if len(points) < 2:
        return None
    x, y = np.log([p[0] for p in points]), np.log([p[1] for p in points])
    return float(np.polyfit(x, y, 1)[0])


def _compare_models_time() -> float:
    import tempfile

    from arxpy import cli

    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "registry.csv"
        cancer_registry(10_000, seed=2).to_csv(data, index=False)
        started = time.perf_counter()
        cli.main(["compare-models", "--original", str(data), "--methods", "improved",
                  "--k", "100", "--analyses", str(ANALYSES), "--repeats", "10",
                  "--seed", "1", "--report", str(Path(folder) / "r.json")])
        return time.perf_counter() - started


def kidney_transplant() -> tuple[pd.DataFrame, list, dict]:
    """lifelines' kidney transplant data (863 records): the race x sex dummies as one
    categorical RaceSex (full one-hot inside condensation), death 1 = event."""
    from lifelines.datasets import load_kidney_transplant

    from arxpy.analysis.model_preservation import ModelSpec

    data = load_kidney_transplant()
    race_sex = np.select([data.black_male == 1, data.white_male == 1, data.black_female == 1],
                         ["black_male", "white_male", "black_female"], "white_female")
    frame = pd.DataFrame({"time": data.time.astype(str), "death": data.death.astype(str),
                          "age": data.age.astype(str), "RaceSex": race_sex}).astype(object)
    references = {"RaceSex": "white_female"}
    deceased = {"column": "death", "equals": "1"}
    analyses = [
        ModelSpec("linear", "ols", ("RaceSex",), response="time", categorical=references,
                  filter=deceased),
        ModelSpec("logistic", "logit", ("RaceSex",), response="time", categorical=references,
                  filter=deceased),
        ModelSpec("cox", "cox", ("age", "RaceSex"), time="time", event="death",
                  event_value="1", categorical=references),
    ]
    return frame, analyses, {"time": "time", "status": "death", "event_value": "1"}


def fidelity(args: argparse.Namespace) -> dict:
    improved = IMPROVED
    if args.dataset == "kidney":
        frame, analyses, improved = kidney_transplant()
    else:
        frame = cancer_registry(args.dataset, seed=args.data_seed)
        analyses = read_analyses(ANALYSES)
    k = args.k or max(2, round(len(frame) / 100))  # about 100 groups, as in the paper
    definition = DataDefinition.for_columns(frame.columns)
    results: dict = {}
    per_rep: dict = {}
    for method in args.methods:
        name, params = METHODS[method]
        if method == "improved":
            params = improved
        if method == "k-anonymity":
            params = {"quasi_identifiers": analysed_covariates(analyses, list(frame.columns))}
        else:
            params = {"seed": 1000, **params}
        if method in DETERMINISTIC:
            tables = [run_method(name, frame, definition, {"k": k, **params}).table
                      ] * args.repeats  # one object: fitted once
        else:
            tables = [run_method(name, frame, definition,
                                 {"k": k, **params, "seed": 1000 + r}).table
                      for r in range(args.repeats)]
        preservation = compare_models(frame, tables, analyses)
        summary = preservation.summary()
        results[method] = json.loads(summary.to_json(orient="index"))
        per_rep[method] = {m.spec.name: m for m in preservation.models}
        print(f"\n{method} (k={k}, R={args.repeats})")
        print(summary[["pct_sig_changed_mean", "pct_sig_changed_sd", "pct_dir_changed_mean",
                       "pct_outside_ci_mean", "pct_outside_ci_sd", "fit_failures"]]
              .round(2).to_string())
    paired = _paired(per_rep)
    for line in paired["lines"]:
        print(line)
    return {"dataset": args.dataset, "records": len(frame), "k": k, "repeats": args.repeats,
            "results": results, "paired": paired["figures"]}


def _paired(per_rep: dict) -> dict:
    """Spec §5 criteria 2 and 3: paired repetitions (same index = same repetition)."""
    lines, figures = [], {}
    if "improved" not in per_rep:
        return {"lines": lines, "figures": figures}
    cox = _per_repetition(per_rep["improved"]["cox"], "pct_outside_ci")
    for baseline in ("tfrp", "mdav", "condensation", "condensation-aggarwal", "k-anonymity"):
        if baseline not in per_rep:
            continue
        other = _per_repetition(per_rep[baseline]["cox"], "pct_outside_ci")
        both = [(a, b) for a, b in zip(cox, other, strict=True) if
                not (math.isnan(a) or math.isnan(b))]
        share = float(np.mean([a <= b for a, b in both])) if both else float("nan")
        figures[f"cox_outside_ci_improved_le_{baseline}"] = share
        p = _sign_test(both)
        figures[f"cox_outside_ci_sign_test_p_{baseline}"] = p
        lines.append(f"Cox % outside CI: improved <= {baseline} in {100 * share:.0f}% of "
                     f"{len(both)} paired repetitions ({len(cox) - len(both)} with a failed "
                     f"fit); sign test p = {p:.3g}")
    if "condensation" in per_rep:
        a = np.nanmean(_per_repetition(per_rep["improved"]["logistic"], "pct_sig_changed"))
        b = np.nanmean(_per_repetition(per_rep["condensation"]["logistic"], "pct_sig_changed"))
        figures["logistic_sig_changed_improved_mean"] = float(a)
        figures["logistic_sig_changed_condensation_mean"] = float(b)
        lines.append(f"Logistic % significance changed: improved {a:.2f} vs condensation "
                     f"{b:.2f}")
    return {"lines": lines, "figures": figures}


def _sign_test(pairs: list[tuple[float, float]]) -> float:
    """Two-sided sign test of improved vs baseline over paired repetitions (ties dropped)."""
    from scipy.stats import binomtest

    wins = sum(a < b for a, b in pairs)
    losses = sum(a > b for a, b in pairs)
    return float(binomtest(wins, wins + losses).pvalue) if wins + losses else 1.0


def _per_repetition(model, metric: str) -> list[float]:
    """The metric of every repetition, NaN where the fit failed (keeps pairs aligned)."""
    from arxpy.analysis.model_preservation import preservation_metrics

    values = []
    for fit in model.fits:
        if fit.failed:
            values.append(float("nan"))
        else:
            values.append(float(preservation_metrics(model.original, fit)[metric]))
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="study", required=True)
    s = sub.add_parser("speed")
    s.add_argument("--sizes", type=int, nargs="+", default=[10_000, 20_000, 50_000, 100_000])
    s.add_argument("--methods", nargs="+", default=["improved", "condensation", "mdav"])
    f = sub.add_parser("fidelity")
    f.add_argument("--dataset", choices=(*SIZES, "kidney"), default="colon")
    f.add_argument("--data-seed", type=int, default=0)
    f.add_argument("--k", type=int, help="default: about 100 groups")
    f.add_argument("--repeats", type=int, default=20)
    f.add_argument("--methods", nargs="+", default=list(METHODS))
    for p in (s, f):
        p.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    out = speed(args) if args.study == "speed" else fidelity(args)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
