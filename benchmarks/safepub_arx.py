"""SafePub ((ε, δ)-differential privacy) beside ARX 3.9.2: what is comparable.

Run from the repository root (ARX built as ``../shared/tools/arx/README.md`` says)::

    python benchmarks/safepub_arx.py [--arx-build /work/arx-build] [--runs 20]
        [--only s1 s2 ...]

SafePub is randomized (ARX draws from ``SecureRandom``, arxpy from a seeded generator),
so single outputs differ. Compared per configuration (Adult, nine quasi-identifiers):
the derived k and β (must be equal), and over ``--runs`` runs each (ARX: one JVM,
``repeat=N``, a fresh sample per run; arxpy: seeds 0..N-1) the distribution of the
chosen transformation: the mean level per attribute, the mean DP score of the chosen
transformation (ARX's ``ILScore``, arxpy's report ``differential_privacy.score``), the
mean number of records sampled, and the mean search time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from privacy_models_arx import ADULT, QIS, compile_driver  # noqa: E402

#: id -> (ε, δ, steps, metric, degree or None).
CONFIGS = {
    "s1": (2.0, 1e-6, 100, "loss", None),
    "s2": (1.0, 1e-6, 100, "loss", None),
    "s3": (0.5, 1e-5, 50, "loss", None),
    "s4": (3.0, 1e-4, 200, "loss", None),
    "s5": (2.0, 1e-6, 100, "dm", None),
    "s6": (2.0, 1e-6, 100, "aecs", None),
    "s7": (2.0, 1e-6, 100, "precision", None),
    "s8": (2.0, 1e-6, 100, "entropy", None),
    "s9": (1.0, 1e-6, 0, "loss", "MEDIUM"),
}


def arx_runs(classpath: str, runs: int, only: list[str]) -> dict[str, dict]:
    lines = []
    for cid in only:
        eps, delta, steps, metric, degree = CONFIGS[cid]
        model = f"dp:{eps}:{delta}:{max(steps, 1)}" + (f":{degree}" if degree else "")
        lines.append(f"id={cid} models={model} metric={metric} supp=0 repeat={runs} "
                     "allstar=false")
    with tempfile.NamedTemporaryFile("w", suffix=".batch", delete=False) as batch:
        batch.write("\n".join(lines) + "\n")
    out = subprocess.run(
        ["java", "-Xmx4g", "-cp", classpath, "ArxDriver", "batch", batch.name,
         f"data={ADULT / 'adult.csv'}", f"hier={ADULT}/adult_hierarchy_{{}}.csv",
         "qis=" + ",".join(QIS)], check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            found[row["id"]] = row
    return found


def arxpy_runs(cid: str, runs: int) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from conftest import load_adult

    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.privacy import EDDifferentialPrivacy
    from arxpy.quality.registry import quality_model_from_dict

    eps, delta, steps, metric, degree = CONFIGS[cid]
    frame, definition, hierarchies = load_adult(QIS)
    optima, scores, sampled, times = [], [], [], []
    for seed in range(runs):
        model = EDDifferentialPrivacy(eps, delta, steps=max(steps, 1), seed=seed,
                                      generalization=degree.lower() if degree else None)
        config = AnonymizationConfig([model], quality_model_from_dict({"name": metric}))
        started = time.perf_counter()
        result = anonymize(frame, definition, hierarchies, config)
        times.append(time.perf_counter() - started)
        report = result.to_dict()["differential_privacy"]
        optima.append(result.optimum.levels)
        scores.append(report["score"])
        sampled.append(report["sampled_records"])
    return {"dp_k": model.k, "dp_beta": model.beta, "optima": optima, "scores": scores,
            "sampled": sampled, "times": times}


def summary(optima: list[tuple[int, ...]]) -> str:
    means = [statistics.fmean(o[i] for o in optima) for i in range(len(QIS))]
    return ",".join(f"{m:.1f}" for m in means)


def mean(values: list) -> str:
    """The mean to two decimals, or '-' (the data-independent variant has no DP score)."""
    present = [v for v in values if v is not None]
    return f"{statistics.fmean(present):.2f}" if present else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arx-build", type=Path, default=Path("/work/arx-build"))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--only", nargs="*", default=list(CONFIGS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arxpy-safepub-") as scratch:
        classpath = compile_driver(args.arx_build, Path(scratch))
        arx = arx_runs(classpath, args.runs, args.only)
    print("id | config | k ARX/arxpy | beta ARX/arxpy | mean levels ARX | mean levels arxpy"
          " | mean score ARX/arxpy | sampled ARX (last)/arxpy (mean) | s per run ARX/arxpy")
    for cid in args.only:
        ours = arxpy_runs(cid, args.runs)
        theirs = arx[cid]
        runs = [r.split("/") for r in theirs["runs"].split("|") if r]
        arx_optima = [tuple(int(v) for v in levels.split(",")) for levels, _ in runs]
        arx_scores = [float(score) for _, score in runs]
        arx_time = statistics.fmean(float(t) for t in theirs["times_ms"].split(",")) / 1000
        print(f"{cid} | {CONFIGS[cid]} | {theirs['dp_k']}/{ours['dp_k']} | "
              f"{float(theirs['dp_beta']):.6f}/{ours['dp_beta']:.6f} | {summary(arx_optima)} | "
              f"{summary(ours['optima'])} | {mean(arx_scores)}/{mean(ours['scores'])} | "
              f"{theirs['sampled']}/"
              f"{statistics.fmean(ours['sampled']):.0f} | {arx_time:.2f}/"
              f"{statistics.fmean(ours['times']):.2f}", flush=True)


if __name__ == "__main__":
    main()
