"""File to file at scale against ARX (issue 31, item 5): process start, read, search,
write, on the same machine, interleaved.

Run from the repository root (it writes about 1.2 GB of data and as much output)::

    python benchmarks/file_to_file.py ../shared/data/adult --sizes 1e6 3e6 1e7 \
        --rounds 2 --arx-build /work/arx-build --json file_to_file.json

Data ("A2"): the Adult records drawn with replacement (numpy's generator seeded by the
size), ``;``-separated, nine quasi-identifiers with Adult's hierarchies; k = 5, 2 %
suppression, Loss. Each round runs arxpy as a user does (``python -m arxpy anonymize
--data ... --output ... --report ...``: the default engine, which takes the histogram
route for a file this large) and ARX 3.9.2 through ``benchmarks/arx/ArxDriver.java``
with ``direct=true out=...`` (ARX reads the CSV itself and writes the optimum's output),
alternating which goes first. Reported per run: wall seconds from process start to exit
CPU seconds (user + system) and peak resident memory of the process (``ru_utime``,
``ru_stime`` and ``ru_maxrss`` from ``wait4``), the load average, and whether
both found the same optimum and suppressed count. ARX's heap limit is ``--arx-heap``
(default 8g; its peak grows with the limit it is given). Data and outputs are deleted
at the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
QUASI = ["sex", "age", "race", "marital-status", "education", "native-country",
         "workclass", "occupation", "salary-class"]


def generate(adult: Path, size: int, folder: Path) -> Path:
    """``size`` Adult records drawn with replacement, written in blocks of 10^6."""
    path = folder / f"a2_{size}.csv"
    if path.exists():
        return path
    source = pd.read_csv(adult / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    rng = np.random.default_rng(size)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(";".join(source.columns) + "\n")
        for start in range(0, size, 10**6):
            rows = rng.integers(0, len(source), min(10**6, size - start))
            source.iloc[rows].to_csv(handle, sep=";", header=False, index=False)
    return path


def measured(command: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds, peak resident GB, CPU seconds (user + system) and standard output
    of ``command``."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True)
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise RuntimeError(f"{command[0]} failed ({process.returncode}): {' '.join(command)}")
    return seconds, usage.ru_maxrss / 2**20, usage.ru_utime + usage.ru_stime, output


def run_arxpy(adult: Path, data: Path, out: Path) -> dict:
    report = out.with_suffix(".json")
    hierarchies = [a for q in QUASI
                   for a in ("--hierarchy", f"{q}={adult / f'adult_hierarchy_{q}.csv'}")]
    seconds, peak, cpu, _ = measured([
        sys.executable, "-m", "arxpy", "anonymize", "--data", str(data), *hierarchies,
        "--k", "5", "--suppression", "0.02", "--metric", "loss", "--output", str(out),
        "--report", str(report)])
    result = json.loads(report.read_text())
    return {"seconds": seconds, "cpu_seconds": cpu, "peak_gb": peak,
            "optimum": [result["transformation"][q] for q in QUASI],
            "suppressed": result["suppressed_records"],
            "route": (result.get("engine") or {}).get("name", "table")}


def run_arx(classpath: str, heap: str, adult: Path, data: Path, out: Path) -> dict:
    seconds, peak, cpu, output = measured([
        "java", f"-Xmx{heap}", "-cp", classpath, "ArxDriver", "run", f"data={data}",
        f"hier={adult}/adult_hierarchy_{{}}.csv", f"qis={','.join(QUASI)}", "models=k:5",
        "supp=0.02", "metric=loss", "direct=true", f"out={out}"])
    result = json.loads(output.strip().splitlines()[-1])
    return {"seconds": seconds, "cpu_seconds": cpu, "peak_gb": peak,
            "optimum": [int(v) for v in result["optimum"].split(",")],
            "suppressed": int(result["outliers"])}


def compile_driver(build: Path, scratch: Path) -> str:
    """The classpath of ARX and of the driver compiled into ``scratch``."""
    classpath = (build / "CLASSPATH").read_text().strip()
    out = scratch / "driver"
    out.mkdir(exist_ok=True)
    subprocess.run(["javac", "-nowarn", "-d", str(out), "-cp", classpath,
                    str(REPO / "benchmarks" / "arx" / "ArxDriver.java")], check=True)
    return f"{classpath}:{out}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("adult", type=Path, help="folder with adult.csv and its hierarchies")
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e6, 3e6, 1e7])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--arx-build", type=Path, help="ARX build folder (its CLASSPATH)")
    parser.add_argument("--arx-heap", default="8g")
    parser.add_argument("--folder", type=Path, help="where data and outputs go")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    folder = args.folder or Path(tempfile.mkdtemp(prefix="arxpy-f2f-"))
    folder.mkdir(parents=True, exist_ok=True)
    classpath = compile_driver(args.arx_build, folder) if args.arx_build else None
    rows = []
    try:
        for size in map(int, args.sizes):
            data = generate(args.adult, size, folder)
            for round_ in range(args.rounds):
                tools = ["arxpy", "arx"] if classpath else ["arxpy"]
                for tool in tools if round_ % 2 == 0 else tools[::-1]:
                    out = folder / f"{tool}_{size}.csv"
                    figures = (run_arxpy(args.adult, data, out) if tool == "arxpy" else
                               run_arx(classpath, args.arx_heap, args.adult, data, out))
                    rows.append({"records": size, "round": round_, "tool": tool, **figures,
                                 "load": os.getloadavg()[0]})
                    print(json.dumps(rows[-1]), flush=True)
                    out.unlink(missing_ok=True)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    _print_table(rows)
    return 0


def _print_table(rows: list[dict]) -> None:
    """Per size and round: both tools' figures and arxpy's share of ARX's."""
    print("| records | round | arxpy s | ARX s | time ratio | arxpy CPU s | ARX CPU s | arxpy GB "
          "| ARX GB | memory ratio | same optimum, suppressed | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (size, round_), pair in pd.DataFrame(rows).groupby(["records", "round"]):
        by = {row.tool: row for row in pair.itertuples()}
        mine, arx = by["arxpy"], by.get("arx")
        if arx is None:
            print(f"| {size:,} | {round_} | {mine.seconds:.1f} | | | {mine.cpu_seconds:.1f} | | "
                  f"{mine.peak_gb:.2f} | | | | {mine.load:.1f} |")
            continue
        same = mine.optimum == arx.optimum and mine.suppressed == arx.suppressed
        print(f"| {size:,} | {round_} | {mine.seconds:.1f} | {arx.seconds:.1f} | "
              f"{mine.seconds / arx.seconds:.2f} | {mine.cpu_seconds:.1f} | "
              f"{arx.cpu_seconds:.1f} | {mine.peak_gb:.2f} | {arx.peak_gb:.2f} | "
              f"{mine.peak_gb / arx.peak_gb:.2f} | {'yes' if same else 'NO'} | "
              f"{(mine.load + arx.load) / 2:.1f} |")


if __name__ == "__main__":
    sys.exit(main())
