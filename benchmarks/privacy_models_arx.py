"""k-map, sample uniqueness, δ-presence and profitability: arxpy's search beside ARX 3.9.2's.

Run from the repository root (ARX built as ``../shared/tools/arx/README.md`` says)::

    python benchmarks/privacy_models_arx.py [--arx-build /work/arx-build] [--repeat 3]
        [--only km2 dp1 ...] [--interleave]

Compiles ``benchmarks/arx/ArxDriver.java`` against the build, writes the research
subsets of Adult (seeded samples, as ``tests/test_parity_arx.py`` draws them) to a
scratch folder, then runs every configuration through ARX (one ``batch`` JVM,
``repeat=N``: best of N ``anonymize()`` calls, the first ones warm its JIT) and through
arxpy (best of N ``anonymize()`` search times, ``Result.elapsed_seconds``), and prints
both times, their ratio, the machine's load, whether the optima agree, and both scores.
``--interleave`` runs ARX configuration by configuration (a JVM each, its start not
timed) just before arxpy, so that on a shared machine both meet the same load. Adult:
nine quasi-identifiers, Loss unless named; ARX's time is ``anonymize()`` alone, arxpy's
the search after encoding and preparing the models (reading the population table
included in neither).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ADULT = REPO.parent / "shared" / "data" / "adult"
QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
       "workclass", "occupation", "salary-class"]
#: id -> (models as arxpy dictionaries, suppression, subset or None, ARX's models=).
CONFIGS = {
    "km2": ([{"kind": "k-map", "k": 20, "population_size": 100_000}], 0.02, None,
            "kmap:20:0.01:100000:poisson"),
    "km3": ([{"kind": "k-map", "k": 20, "population_size": 100_000,
              "estimator": "zero-truncated-poisson"}], 0.05, None, "kmap:20:0.01:100000:ztp"),
    "su1": ([{"kind": "sample-uniqueness", "threshold": 0.01}], 0.02, None, "sampleuniq:0.01"),
    "su3": ([{"kind": "sample-uniqueness", "threshold": 0.05}], 0.0, None, "sampleuniq:0.05"),
    "dp1": ([{"kind": "delta-presence", "delta_min": 0.0, "delta_max": 0.5}], 0.0,
            "sample10", "dpresence:0:0.5"),
    "dp3": ([{"kind": "delta-presence", "delta_min": 0.2, "delta_max": 0.6}], 0.0,
            "female", "dpresence:0.2:0.6"),
    "dp5": ([{"kind": "delta-presence", "delta_min": 0.1, "delta_max": 0.7}], 0.0,
            "sample50", "dpresence:0.1:0.7"),
    "dp6": ([{"kind": "delta-presence", "delta_min": 0.0, "delta_max": 0.6},
             {"kind": "k-anonymity", "k": 5}], 0.1, "sample50", "dpresence:0:0.6,k:5"),
    "dp4": ([{"kind": "delta-presence", "delta_min": 0.0, "delta_max": 0.4}], 0.05,
            "sample30", "dpresence:0:0.4"),
}
#: ARX's four prices (adversary cost, gain, publisher benefit, loss) for the driver.
PRICES = ("adversary_cost", "adversary_gain", "publisher_benefit", "publisher_loss")
DEAR = dict(zip(PRICES, (4.0, 300.0, 1200.0, 5000.0), strict=True))  # attacks cost dear
CHEAP = dict(zip(PRICES, (4.0, 30.0, 1200.0, 300.0), strict=True))  # k = 8 for no-attack


def _profit(kind: str, prices: dict[str, float] | None = None) -> dict:
    return {"kind": kind, **(prices or {})}


def _arx_profit(attacker: str, prices: dict[str, float] | None = None) -> str:
    return ":".join(["profit", attacker] + [f"{prices[p]:g}" for p in PRICES]
                    if prices else ["profit", attacker])


CONFIGS.update({
    "pf1": ([_profit("profitability")], 0.0, None, _arx_profit("prosecutor")),
    "pf2": ([_profit("profitability", DEAR)], 0.1, None, _arx_profit("prosecutor", DEAR)),
    "pf3": ([_profit("profitability", DEAR)], 1.0, None, _arx_profit("prosecutor", DEAR)),
    "pf4": ([_profit("profitability", DEAR), {"kind": "k-anonymity", "k": 5}], 0.05, None,
            _arx_profit("prosecutor", DEAR) + ",k:5"),
    "pf5": ([_profit("no-attack-profitability")], 0.02, None,
            _arx_profit("prosecutor:noattack")),
    "pf6": ([_profit("no-attack-profitability", CHEAP)], 0.05, None,
            _arx_profit("prosecutor:noattack", CHEAP)),
    "pf7": ([_profit("profitability-journalist", DEAR)], 0.1, "sample10",
            _arx_profit("journalist", DEAR)),
    "pf8": ([_profit("no-attack-profitability-journalist", CHEAP)], 0.05, "sample30",
            _arx_profit("journalist:noattack", CHEAP)),
    "pf9": ([_profit("no-attack-profitability-journalist")], 0.0, "female",
            _arx_profit("journalist:noattack")),
    "pf10": ([_profit("profitability-journalist")], 0.02, "sample50",
             _arx_profit("journalist")),
    "pf11": ([_profit("profitability-journalist", DEAR)], 0.05, "sample30",
             _arx_profit("journalist", DEAR)),
})
#: Quality models other than Loss: id -> (arxpy name, ARX's metric=); the publisher
#: payout takes the profitability model's prices, as ARX's shared configuration does.
METRICS = {"pf1": ("payout", "payout"), "pf2": ("payout", "payout"),
           "pf3": ("payout", "payout"), "pf4": ("payout", "payout"),
           "pf5": ("payout", "payout"), "pf10": ("payout", "payout"),
           "pf11": ("payout", "payout:journalist")}
POPULATION_KINDS = ("delta-presence", "profitability-journalist",
                    "no-attack-profitability-journalist")


def compile_driver(build: Path, scratch: Path) -> str:
    """The classpath of ARX and of the driver compiled into ``scratch``."""
    classpath = (build / "CLASSPATH").read_text().strip()
    out = scratch / "driver"
    out.mkdir()
    subprocess.run(["javac", "-nowarn", "-d", str(out), "-cp", classpath,
                    str(REPO / "benchmarks" / "arx" / "ArxDriver.java")], check=True)
    return f"{classpath}:{out}"


def write_subsets(frame, scratch: Path) -> dict[str, Path]:
    sys.path.insert(0, str(REPO / "tests"))
    from test_parity_arx import adult_subset

    paths = {}
    for name in ("sample10", "sample30", "sample50", "female"):
        paths[name] = scratch / f"{name}.csv"
        adult_subset(frame, name).to_csv(paths[name], sep=";", index=False)
    return paths


def run_arx(classpath: str, ids: list[str], subsets: dict[str, Path], repeat: int,
            scratch: Path) -> dict[str, dict]:
    lines = []
    for name in ids:
        models, suppression, subset, arx_models = CONFIGS[name]
        line = f"id={name} models={arx_models} supp={suppression} repeat={repeat}"
        if name in METRICS:
            line += f" metric={METRICS[name][1]}"
        if subset == "female":
            line += " subsetwhere=sex:Female"
        elif subset:
            line += f" subset={subsets[subset]}"
        lines.append(line)
    batch = scratch / "batch.txt"
    batch.write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        ["java", "-Xmx4g", "-cp", classpath, "ArxDriver", "batch", str(batch),
         f"data={ADULT / 'adult.csv'}", f"hier={ADULT}/adult_hierarchy_{{}}.csv",
         "qis=" + ",".join(QIS)], check=True, capture_output=True, text=True)
    return {row["id"]: row for row in map(json.loads, done.stdout.splitlines())}


def run_arxpy(name: str, frame, definition, hierarchies, subsets, repeat: int) -> dict:
    import pandas as pd

    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.privacy import privacy_model_from_dict
    from arxpy.quality import quality_model_from_dict

    models, suppression, subset, _ = CONFIGS[name]
    population = {"population": str(ADULT / "adult.csv")}
    specs = [{**m, **population} if m["kind"] in POPULATION_KINDS else m for m in models]
    data = frame if subset is None else pd.read_csv(subsets[subset], sep=";", dtype=str,
                                                    keep_default_na=False)
    metric = {"name": METRICS.get(name, ("loss",))[0]}
    if metric["name"] == "payout":
        metric.update({p: models[0][p] for p in PRICES if p in models[0]})
        if METRICS[name][1].endswith("journalist"):
            metric.update(attacker="journalist", **population)
    config = AnonymizationConfig([privacy_model_from_dict(s) for s in specs],
                                 quality_model_from_dict(metric),
                                 suppression_limit=suppression)
    best, optimum = float("inf"), None
    for _ in range(repeat):
        result = anonymize(data, definition, hierarchies, config)
        best = min(best, result.elapsed_seconds)
        optimum = result.optimum
    return {"time_s": best, "optimum": ",".join(map(str, optimum.levels)) if optimum else None,
            "suppressed": optimum.suppressed_records if optimum else None,
            "score": optimum.score if optimum else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arx-build", type=Path, default=Path("/work/arx-build"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=list(CONFIGS))
    parser.add_argument("--interleave", action="store_true",
                        help="run ARX (a JVM per configuration) just before arxpy on each "
                             "configuration, so both meet the same load on a shared machine")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO / "tests"))
    from conftest import load_adult

    frame, definition, hierarchies = load_adult(QIS)
    scratch = Path(tempfile.mkdtemp(prefix="arxpy-models-arx-"))
    classpath = compile_driver(args.arx_build, scratch)
    subsets = write_subsets(frame, scratch)
    print(f"{'id':5} {'ARX s':>8} {'arxpy s':>8} {'ratio':>6} {'load':>5}  optimum "
          "(ARX = arxpy?)")
    arx_rows = {} if args.interleave else \
        run_arx(classpath, args.only, subsets, args.repeat, scratch)  # one JVM
    for name in args.only:
        if args.interleave:
            arx_rows.update(run_arx(classpath, [name], subsets, args.repeat, scratch))
        arx = arx_rows[name]
        ours = run_arxpy(name, frame, definition, hierarchies, subsets, args.repeat)
        load = os.getloadavg()[0]  # 1-minute load average of the machine
        arx_s = float(arx["time_ms"]) / 1000
        same = arx.get("optimum") == ours["optimum"] and \
            int(arx.get("suppressed", -1)) == ours["suppressed"]
        print(f"{name:5} {arx_s:8.3f} {ours['time_s']:8.3f} {ours['time_s'] / arx_s:6.2f} "
              f"{load:5.1f}  "
              f"{ours['optimum']} ({'same' if same else 'ARX ' + str(arx.get('optimum'))}) "
              f"score ARX {arx.get('score')} arxpy {ours['score']!r}, suppressed "
              f"{arx.get('suppressed')} / {ours['suppressed']}",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
