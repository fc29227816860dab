"""Microaggregation inside the generalization: arxpy's release beside ARX 3.9.2's (issue 34).

Run from the repository root (ARX built as ``../shared/tools/arx/README.md`` says)::

    python benchmarks/microaggregation_arx.py [--arx-build /work/arx-build] [--only ma1 ...]

Compiles ``benchmarks/arx/ArxDriver.java``, writes a generated table (seeded) and its
hierarchies to a scratch folder, runs every configuration through ARX (one ``batch`` JVM,
``microaggregate=ATTR:FUNCTION[:cluster]``, ``out=`` the output) and through arxpy's
:func:`arxpy.engine.anonymize`, and prints per configuration: both optima and scores, both
suppressed counts, and the output cells that differ (every cell of every row compared;
the aggregated column's cells counted apart).

``--cost`` instead times arxpy alone (no ARX): Adult with eight quasi-identifiers, 2-anonymity,
5 %, without ``age`` and with it aggregated, interleaved, twice each.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
ADULT = REPO.parent / "shared" / "data" / "adult"
ADULT_QIS = ["sex", "race", "marital-status", "education"]
SYNTH_QIS = ["sex", "region"]
#: id -> (table, quasi-identifiers generalized, microaggregation, k, suppression, metric).
CONFIGS = {
    "ma1": ("adult", ADULT_QIS, {"age": "mean"}, 5, 0.02, "loss"),
    "ma2": ("adult", ADULT_QIS, {"age": "median"}, 10, 0.05, "loss"),
    "ma3": ("adult", ADULT_QIS, {"age": "geometric_mean"}, 5, 0.0, "loss"),
    "ma4": ("adult", ADULT_QIS, {"age": "interval"}, 20, 0.02, "loss:0.2:arithmetic_mean"),
    "ma5": ("adult", ADULT_QIS, {"age": "set"}, 5, 0.02, "loss"),
    "ma6": ("adult", ADULT_QIS, {"age": "mode"}, 5, 0.02, "loss"),
    "ma7": ("adult", ["sex", "age", "race", "marital-status"], {"age": "mean:cluster"}, 5,
            0.02, "loss"),
    "ma8": ("adult", ADULT_QIS, {"age": "median"}, 5, 0.02, "dm"),
    "ma9": ("adult", ADULT_QIS, {"age": "mean"}, 5, 0.02, "precision"),
    "ma10": ("adult", ADULT_QIS + ["native-country"], {"age": "median"}, 5, 0.02,
             "precision:0.5:mono"),
    "mg1": ("synthetic", SYNTH_QIS, {"income": "mean", "age": "median"}, 5, 0.02, "loss"),
    "mg2": ("synthetic", SYNTH_QIS + ["age"], {"income": "interval", "age": "mean:cluster"},
            3, 0.05, "loss"),
    "mg3": ("synthetic", SYNTH_QIS, {"income": "geometric_mean"}, 8, 0.0, "loss"),
}
TYPES = {"adult": {"age": "integer"}, "synthetic": {"age": "integer", "income": "decimal"}}


def write_synthetic(folder: Path, rows: int = 2000, seed: int = 7) -> Path:
    """A table with two categorical quasi-identifiers, an integer age and a decimal income."""
    rng = np.random.default_rng(seed)
    regions = [f"R{i}" for i in range(8)]
    path = folder / "synthetic.csv"
    with open(path, "w", newline="") as handle:
        out = csv.writer(handle, delimiter=";")
        out.writerow(["sex", "region", "age", "income"])
        for _ in range(rows):
            out.writerow([rng.choice(["F", "M"]), rng.choice(regions),
                          int(rng.integers(18, 91)), f"{rng.lognormal(10, 0.6):.2f}"])
    hierarchies = {
        "sex": [["F", "*"], ["M", "*"]],
        "region": [[r, f"Z{int(r[1:]) // 2}", "*"] for r in regions],
        "age": [[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(18, 91)],
    }
    for name, rows_ in hierarchies.items():
        with open(folder / f"synthetic_hierarchy_{name}.csv", "w", newline="") as handle:
            csv.writer(handle, delimiter=";").writerows(rows_)
    return path


def tables(scratch: Path) -> dict[str, tuple[Path, str]]:
    """Data file and hierarchy pattern per table."""
    synthetic = write_synthetic(scratch)
    return {"adult": (ADULT / "adult.csv", str(ADULT / "adult_hierarchy_{}.csv")),
            "synthetic": (synthetic, str(scratch / "synthetic_hierarchy_{}.csv"))}


def arx_line(name: str, spec: tuple, paths: dict, scratch: Path) -> str:
    table, qis, micro, k, supp, metric = spec
    data, hier = paths[table]
    types = ",".join(f"{a}:{t}" for a, t in TYPES[table].items())
    micro_arg = ",".join(f"{a}:{f}" for a, f in micro.items())
    return (f"id={name} data={data} hier={hier} qis={','.join(qis)} types={types} "
            f"microaggregate={micro_arg} models=k:{k} supp={supp} metric={metric} "
            f"out={scratch / (name + '_arx.csv')}")


def run_arx(build: Path, scratch: Path, lines: list[str]) -> dict[str, dict]:
    classpath = (build / "CLASSPATH").read_text().strip()
    classes = scratch / "driver"
    subprocess.run(["javac", "-nowarn", "-d", str(classes), "-cp", classpath,
                    str(REPO / "benchmarks" / "arx" / "ArxDriver.java")], check=True)
    batch = scratch / "microaggregation.batch"
    batch.write_text("\n".join(lines) + "\n")
    done = subprocess.run(["java", "-Xmx3g", "-cp", f"{classpath}:{classes}", "ArxDriver",
                           "batch", str(batch)], check=True, capture_output=True, text=True)
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {r["id"]: r for r in results}


def quality_spec(metric: str) -> dict:
    """arxpy's quality model for the driver's ``metric=``."""
    parts = metric.split(":")
    if parts[0] == "dm":
        return {"name": "dm"}
    if parts[0] == "precision":
        return {"name": "precision", "gs_factor": float(parts[1]) if len(parts) > 1 else 0.5,
                "monotonic": parts[2:] == ["mono"]}
    return {"name": "loss", **({"gs_factor": float(parts[1]), "aggregate": parts[2]}
                               if len(parts) > 1 else {})}


def run_arxpy(name: str, spec: tuple, paths: dict, scratch: Path) -> dict:
    from arxpy.data.csv_io import read_csv, sniff_csv
    from arxpy.data.definition import AttributeType, DataDefinition, DataKind, DataType
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.hierarchy.io import read_hierarchy

    table, qis, micro, k, supp, metric = spec
    data, hier = paths[table]
    frame = read_csv(data, sniff_csv(data))
    definition = DataDefinition.for_columns(frame.columns)
    clustered = [a for a, f in micro.items() if f.endswith(":cluster")]
    hierarchies = {q: read_hierarchy(hier.replace("{}", q), delimiter=";")
                   for q in dict.fromkeys(qis + clustered)}
    for name_ in list(hierarchies) + list(micro):
        definition = definition.with_attribute(name_, type=AttributeType.QUASI_IDENTIFYING)
    for attribute, kind in TYPES[table].items():
        definition = definition.with_attribute(attribute, data_type=DataType(DataKind(kind)))
    config = AnonymizationConfig.from_dict({
        "privacy_models": [{"kind": "k-anonymity", "k": k}], "suppression_limit": supp,
        "quality_model": quality_spec(metric), "microaggregation": micro})
    result = anonymize(frame, definition, hierarchies, config)
    release = result.release()
    out = scratch / f"{name}_arxpy.csv"
    release.table.to_csv(out, sep=";", index=False)
    levels = result.optimum.levels
    names = result.context().lattice.names
    by_name = dict(zip(names, levels, strict=True))
    return {"optimum": ",".join(str(by_name[q]) for q in qis),
            "score": result.optimum.score, "suppressed": int(release.suppressed.sum()),
            "out": out}


def differing(arx: Path, ours: Path, aggregated: list[str]) -> tuple[int, int, int]:
    """(rows, cells differing, of them in aggregated columns)."""
    with open(arx) as a, open(ours) as b:
        left, right = list(csv.reader(a, delimiter=";")), list(csv.reader(b, delimiter=";"))
    header = left[0]
    columns = {header.index(n) for n in aggregated}
    cells = in_aggregated = 0
    for x, y in zip(left[1:], right[1:], strict=True):
        for j, (u, v) in enumerate(zip(x, y, strict=True)):
            if u != v:
                cells += 1
                in_aggregated += j in columns
    return len(left) - 1, cells, in_aggregated


def cost() -> None:
    """Search and release times with and without an aggregated attribute."""
    import time

    from arxpy.data.csv_io import read_csv, sniff_csv
    from arxpy.data.definition import AttributeType, DataDefinition, DataKind, DataType
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.hierarchy.io import read_hierarchy

    path = ADULT / "adult.csv"
    frame = read_csv(path, sniff_csv(path))
    qis = ADULT_QIS + ["native-country", "workclass", "occupation", "salary-class"]
    hierarchies = {q: read_hierarchy(ADULT / f"adult_hierarchy_{q}.csv", delimiter=";")
                   for q in qis}
    definition = DataDefinition.for_columns(frame.columns)
    for name in qis:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    definition = definition.with_attribute("age", data_type=DataType(DataKind.INTEGER))
    for function in ("none", "mean", "mode", "set", "none", "mean"):
        micro = {} if function == "none" else {"age": function}
        given = definition if not micro else definition.with_attribute(
            "age", type=AttributeType.QUASI_IDENTIFYING)
        config = AnonymizationConfig.from_dict({
            "privacy_models": [{"kind": "k-anonymity", "k": 2}], "suppression_limit": 0.05,
            "microaggregation": micro})
        started = time.perf_counter()
        result = anonymize(frame, given, hierarchies, config)
        searched = time.perf_counter()
        release = result.release()
        print(f"{function}: search {searched - started:.2f} s, release "
              f"{time.perf_counter() - searched:.2f} s, {release.groups.max() + 1} classes")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arx-build", type=Path, default=Path("/work/arx-build"))
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--cost", action="store_true", help="time arxpy alone")
    args = parser.parse_args(argv)
    if args.cost:
        cost()
        return 0
    ids = args.only or list(CONFIGS)
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        paths = tables(scratch)
        arx = run_arx(args.arx_build, scratch,
                      [arx_line(i, CONFIGS[i], paths, scratch) for i in ids])
        print("| id | table | microaggregation | k, supp, metric | ARX optimum | arxpy "
              "optimum | ARX score | arxpy score | suppressed ARX / arxpy | cells differing "
              "(aggregated) / rows |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for i in ids:
            spec = CONFIGS[i]
            theirs = arx[i]
            if "error" in theirs:
                print(f"| {i} | ARX failed: {theirs['error']} |")
                continue
            ours = run_arxpy(i, spec, paths, scratch)
            rows, cells, agg = differing(scratch / f"{i}_arx.csv", ours["out"],
                                         list(spec[2]))
            micro = ", ".join(f"{a}={f}" for a, f in spec[2].items())
            print(f"| {i} | {spec[0]} | {micro} | {spec[3]}, {spec[4]}, {spec[5]} | "
                  f"{theirs['optimum']} | {ours['optimum']} | {theirs['score']} | "
                  f"{ours['score']!r} | {theirs['outliers']} / {ours['suppressed']} | "
                  f"{cells} ({agg}) / {rows} |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
