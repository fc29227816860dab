"""Pseudonyms and date shifts through the DuckDB engine (issue 32): the same file, byte
for byte, as the memory engine, and the same refusals."""

from __future__ import annotations

import json

import pytest
from test_cli_identifiers import anonymize_args, ward  # noqa: F401 (the fixture)

from arxpy.cli import main

pytest.importorskip("duckdb")

SHIFT = ("--date-shift", "admitted,discharged", "--shift-days", "20", "--patient", "pid")


def _both(folder, *options):
    """Run anonymize with each engine; (exit status, output bytes, report) per engine."""
    out = {}
    for engine in ("memory", "duckdb"):
        output, report = folder / f"{engine}.csv", folder / f"{engine}.json"
        status = main(anonymize_args(folder, *options, "--engine", engine, "--shuffle-seed",
                                     "3", "--output", str(output), "--report", str(report)))
        out[engine] = (status, output.read_bytes() if output.exists() else None,
                       json.loads(report.read_text()) if report.exists() else None)
    return out


def test_duckdb_releases_the_memory_engines_pseudonyms_and_dates_byte_for_byte(ward):  # noqa: F811
    # admitted is a quasi-identifier: its shifted dates are generalized in the histogram.
    runs = _both(ward, "--pseudonymize", "pid", "--pseudonymize", "mrn=records", *SHIFT)
    (status, memory, report), (duck_status, duck, duck_report) = runs.values()
    assert status == duck_status == 0
    assert duck == memory and b"P-000" not in duck
    assert duck_report["identifiers"] == report["identifiers"]
    assert duck_report["engine"]["name"] == "duckdb"


def test_duckdb_refuses_what_memory_refuses_in_the_same_words(ward, capsys):  # noqa: F811
    capsys.readouterr()
    # 40 patients, 10 numbers: pseudonyms meet.
    runs = _both(ward, "--pseudonymize", "pid", "--pseudonym-format", "prefix:P:1")
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert [status for status, _, _ in runs.values()] == [2, 2]
    assert errors[0] == errors[1] and "share their pseudonym" in errors[0]
    assert runs["duckdb"][1] is None  # the written file holding them is removed
    # A date hierarchy over the input's days only misses shifted ones.
    lines = (ward / "date.csv").read_text().splitlines()
    (ward / "date.csv").write_text("\n".join(line for line in lines
                                             if line.startswith("2021-0")) + "\n")
    runs = _both(ward, "--pseudonymize", "pid", *SHIFT)
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert errors[0] == errors[1] and "lacks" in errors[0]


def test_duckdb_leaves_masks_and_the_reidentification_table_to_memory(ward, capsys):  # noqa: F811
    assert main(anonymize_args(ward, "--pseudonymize", "pid", "--mask", "phone=keep-last:4",
                               "--engine", "duckdb")) == 2
    assert "run with --engine memory" in capsys.readouterr().err
    (ward / "pass.txt").write_text("a passphrase long enough\n")
    (ward / "trusted").mkdir()
    assert main(anonymize_args(ward, "--pseudonymize", "pid", "--engine", "duckdb",
                               "--reidentification-table", str(ward / "trusted" / "t.bin"),
                               "--passphrase-file", str(ward / "pass.txt"))) == 2
    assert "--reidentification-table runs with --engine memory" in capsys.readouterr().err
    assert main(anonymize_args(ward, "--pseudonymize", "pid", "--engine", "spark")) == 2
    assert "leave out --engine spark" in capsys.readouterr().err


def test_a_namespace_finds_pseudonyms_that_met_across_batches_and_compactions(monkeypatch):
    import pandas as pd

    from arxpy.engine.backends import duckdb_identifiers
    from arxpy.errors import ConfigurationError
    from arxpy.identifiers import PseudonymFormat, PseudonymKey

    monkeypatch.setattr(duckdb_identifiers, "_COMPACT_ROWS", 4)
    key = PseudonymKey(bytes(range(32)))
    values = [f"v{i}" for i in range(40)]
    macs = key.digests("label", values)
    met = int(pd.Series([m.hex()[:2] for m in macs]).duplicated(keep=False).sum())
    assert met  # 40 values in 256 pseudonyms
    for fmt, refused in (("hex:2", True), ("hex:16", False)):
        identities = duckdb_identifiers._Identities(PseudonymFormat.parse(fmt))
        for start in range(0, 40, 5):  # batches; every value seen twice
            identities.add(macs[start:start + 5])
            identities.add(macs[start:start + 5])
        if refused:
            with pytest.raises(ConfigurationError, match=f"{met} of the 40 distinct values"):
                identities.refuse_collisions("'x'")
        else:
            identities.refuse_collisions("'x'")
