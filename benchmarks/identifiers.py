"""Identifier treatments on a million records: keyed pseudonyms, masks, date shifts;
with ``--duckdb``, pseudonyms and date shifts through the DuckDB engine beside its
anonymization pass.

Run from the repository root::

    python benchmarks/identifiers.py [--records 1000000] [--patients 100000]
    python benchmarks/identifiers.py --duckdb --records 10000000 --patients 1000000 \
        [--rounds 3] [--data-dir DIR]

Builds a table of ``--records`` rows with as many distinct record identifiers, a phone
number per record, ``--patients`` patient identifiers and two dates per record, then
times each treatment alone (best of three) and a whole plan. ``--duckdb`` writes such a
table as CSV (with age, sex and zip as quasi-identifiers) and times ``arxpy anonymize
--engine duckdb`` (5-anonymity) without and with ``--pseudonymize`` of both identifiers
and ``--date-shift`` of both dates (wall seconds, and the engine's own steps from its
report), ``--rounds`` times, alternating, with each pair's ratio (``--data-dir`` keeps
the CSV and the key there between invocations). The figures are in docs/identifiers.md.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's arxpy

from arxpy.data.definition import DataDefinition  # noqa: E402
from arxpy.identifiers import (  # noqa: E402
    MASK,
    PSEUDONYM,
    DateShift,
    IdentifierPlan,
    MaskRule,
    PseudonymFormat,
    PseudonymKey,
    Treatment,
)


def table(records: int, patients: int) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    start = np.datetime64("2015-01-01") + rng.integers(0, 3000, records).astype(
        "timedelta64[D]")
    return pd.DataFrame({
        "record": [f"R{i:015d}" for i in range(records)],
        "phone": [f"0171-{n:07d}" for n in rng.integers(0, 10**7, records)],
        "patient": [f"P{p:08d}" for p in rng.integers(0, patients, records)],
        "admitted": pd.Series(start).dt.strftime("%Y-%m-%d").to_numpy(dtype=object),
        "discharged": pd.Series(start + rng.integers(0, 30, records).astype(
            "timedelta64[D]")).dt.strftime("%Y-%m-%d").to_numpy(dtype=object),
    })


def best_of_three(plan: IdentifierPlan, frame: pd.DataFrame, key: PseudonymKey) -> float:
    definition = DataDefinition.for_columns(frame.columns)
    times = []
    for _ in range(3):
        started = time.perf_counter()
        plan.apply(frame, definition, key)
        times.append(time.perf_counter() - started)
    return min(times)


def write_csv(folder: Path, records: int, patients: int) -> Path:
    """The table as CSV, written by DuckDB (10^7 rows in seconds, not minutes)."""
    import duckdb

    path = folder / "records.csv"
    duckdb.sql(f"""
        COPY (SELECT 'R' || lpad(i::VARCHAR, 15, '0') AS record,
                     'P' || lpad((hash(i) % {patients})::VARCHAR, 8, '0') AS patient,
                     strftime(DATE '2015-01-01' + (hash(i + 1) % 3000)::INTEGER,
                              '%Y-%m-%d') AS admitted,
                     strftime(DATE '2015-01-01' + (hash(i + 1) % 3000)::INTEGER
                              + (hash(i + 2) % 30)::INTEGER, '%Y-%m-%d') AS discharged,
                     (20 + hash(i + 3) % 60)::VARCHAR AS age,
                     CASE WHEN hash(i + 4) % 2 = 0 THEN 'f' ELSE 'm' END AS sex,
                     (10000 + hash(i + 5) % 90)::VARCHAR AS zip
              FROM range({records}) r(i))
        TO '{path}' (FORMAT csv, HEADER true, DELIMITER ';')""")
    (folder / "age.csv").write_text("".join(
        f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*\n" for a in range(20, 80)))
    (folder / "zip.csv").write_text("".join(
        f"{z};{str(z)[:4]}*;{str(z)[:3]}**;*\n" for z in range(10000, 10090)))
    (folder / "sex.csv").write_text("f;*\nm;*\n")
    return path


def time_engine(folder: Path, data: Path, name: str, *extra: str) -> float:
    """Seconds of one ``arxpy anonymize --engine duckdb`` (printed with its own report's
    steps and the process's CPU seconds, every thread)."""
    from arxpy.cli import main as arxpy

    report = folder / f"{name}.json"
    argv = ["anonymize", "--data", str(data), "--delimiter", ";", "--engine", "duckdb",
            "--hierarchy", f"age={folder / 'age.csv'}", "--hierarchy",
            f"zip={folder / 'zip.csv'}", "--hierarchy", f"sex={folder / 'sex.csv'}",
            "--identifying", "record", "--identifying", "patient", "--k", "5",
            "--suppression", "0.02", "--shuffle-seed", "1", "--output",
            str(folder / f"{name}.csv"), "--report", str(report), *extra]
    started, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert arxpy(argv) == 0
    wall = time.perf_counter() - started
    steps = json.loads(report.read_text())["engine"]["seconds"]
    # CPU seconds (every thread) say what the work costs when other jobs share the cores
    print(f"  {name}: " + ", ".join(f"{k} {v:.1f} s" for k, v in steps.items())
          + f"; CPU {time.process_time() - cpu:.1f} s")
    return wall


def hmac_in_sql_or_python(values: int = 2_000_000) -> tuple[float, float, float | None]:
    """Seconds for HMAC-SHA-256 of ``values`` identifiers by DuckDB's ``sha256`` (hex
    text in and out; the DuckDB engine's way without the kernel, on every core), by
    :class:`PseudonymKey` (the memory engine's, on one) and by the batch kernel (the
    DuckDB engine's, one call here; None where it was not built)."""
    import duckdb
    import pyarrow as pa

    from arxpy.engine.backends import keyed_digests

    secret = bytes(range(32))
    block = secret.ljust(64, b"\0")
    connection = duckdb.connect()
    connection.execute(f"CREATE TABLE t AS SELECT 'R' || lpad(i::VARCHAR, 15, '0') AS v "
                       f"FROM range({values}) r(i)")
    connection.execute("SET VARIABLE inner_pad = ?", [bytes(b ^ 0x36 for b in block)])
    connection.execute("SET VARIABLE outer_pad = ?", [bytes(b ^ 0x5C for b in block)])
    started = time.perf_counter()
    connection.execute("SELECT count(DISTINCT sha256(getvariable('outer_pad') || "
                       "unhex(sha256(getvariable('inner_pad') || encode(v))))) FROM t").fetchall()
    sql = time.perf_counter() - started
    texts = [f"R{i:015d}" for i in range(values)]
    started = time.perf_counter()
    PseudonymKey(secret).digests("", texts)
    python = time.perf_counter() - started
    if not keyed_digests.COMPILED:
        return sql, python, None
    batch = pa.array(texts)
    started = time.perf_counter()
    keyed_digests.KeyedDigests(PseudonymKey(secret), "")(batch)
    return sql, python, time.perf_counter() - started


def duckdb_main(records: int, patients: int, rounds: int = 1,
                data_dir: Path | None = None) -> None:
    sql, python, kernel = hmac_in_sql_or_python()
    print(f"HMAC of 2,000,000 identifiers: DuckDB sha256 {sql:.1f} s, Python {python:.1f} s"
          + ("" if kernel is None else f", batch kernel {kernel:.2f} s"))
    if data_dir is not None:
        _duckdb_rounds(Path(data_dir), records, patients, rounds)
        return
    with tempfile.TemporaryDirectory(prefix="arxpy-bench-") as name:
        _duckdb_rounds(Path(name), records, patients, rounds)


def _duckdb_rounds(folder: Path, records: int, patients: int, rounds: int) -> None:
    """Plain then treated, ``rounds`` times, on one CSV (written once into ``folder``)."""
    from arxpy.identifiers import create_key_file

    folder.mkdir(parents=True, exist_ok=True)
    data, key = folder / "records.csv", folder / "bench.key"
    if not data.exists():  # a kept folder holds the CSV of its first invocation
        started = time.perf_counter()
        write_csv(folder, records, patients)
        print(f"{records:,} records, {patients:,} patients: CSV written in "
              f"{time.perf_counter() - started:.1f} s")
    if not key.exists():
        create_key_file(key)
    ratios = []
    for _ in range(rounds):
        plain = time_engine(folder, data, "plain")
        treated = time_engine(folder, data, "treated", "--pseudonymize", "record=records",
                              "--pseudonymize", "patient", "--key-file", str(key),
                              "--date-shift", "admitted,discharged", "--shift-days", "30",
                              "--patient", "patient")
        ratios.append(treated / plain)
        print(f"anonymize --engine duckdb, identifiers removed      {plain:7.1f} s")
        print(f"  with 2 pseudonyms and 2 shifted dates per record  {treated:7.1f} s")
        print(f"  treated / removed                                 {ratios[-1]:7.2f}")
    if rounds > 1:
        print(f"treated / removed over {rounds} rounds: median {np.median(ratios):.2f}, "
              f"{min(ratios):.2f} to {max(ratios):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--patients", type=int, default=100_000)
    parser.add_argument("--duckdb", action="store_true",
                        help="time the DuckDB engine's anonymization with and without "
                        "pseudonyms and date shifts")
    parser.add_argument("--rounds", type=int, default=1,
                        help="with --duckdb: plain and treated runs, alternating")
    parser.add_argument("--data-dir", type=Path,
                        help="with --duckdb: keep the CSV and key here between invocations")
    args = parser.parse_args()
    if args.duckdb:
        duckdb_main(args.records, args.patients, args.rounds, args.data_dir)
        return
    frame = table(args.records, args.patients)
    key = PseudonymKey(bytes(range(32)))
    shift = DateShift(("admitted", "discharged"), "patient", 30)
    plans = {
        "pseudonym hex:16 (distinct per record)":
            IdentifierPlan((Treatment("record", PSEUDONYM),)),
        "pseudonym digits (distinct per record)":
            IdentifierPlan((Treatment("record", PSEUDONYM, PseudonymFormat.parse("digits")),)),
        "pseudonym hex:16 (patients)": IdentifierPlan((Treatment("patient", PSEUDONYM),)),
        "mask keep-last:4": IdentifierPlan(
            (Treatment("phone", MASK, rule=MaskRule.parse("keep-last:4")),)),
        "date shift, 2 dates": IdentifierPlan((), shift),
        "all of the above but digits": IdentifierPlan(
            (Treatment("record", PSEUDONYM, namespace="records"),
             Treatment("patient", PSEUDONYM),
             Treatment("phone", MASK, rule=MaskRule.parse("keep-last:4"))), shift),
    }
    print(f"{args.records:,} records, {frame['patient'].nunique():,} patients, "
          f"{frame['phone'].nunique():,} distinct phone numbers")
    for name, plan in plans.items():
        print(f"{name:40s} {best_of_three(plan, frame, key):6.2f} s")


if __name__ == "__main__":
    main()
