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
    runs = _both(ward, "--pseudonymize", "pid", "--pseudonymize", "mrn=records",
                 "--mask", "phone=regex:(\\d+)-\\d+-(\\d)\\d+", *SHIFT)
    (status, memory, report), (duck_status, duck, duck_report) = runs.values()
    assert status == duck_status == 0
    assert duck == memory and b"P-000" not in duck and b";0171-***-1***;" in duck
    assert duck_report["identifiers"] == report["identifiers"]
    assert duck_report["engine"]["name"] == "duckdb"


def test_untreated_quasi_identifiers_share_a_scan_and_the_release_treats_its_columns(
        ward, monkeypatch):  # noqa: F811
    from arxpy.engine.backends import duckdb_identifiers
    from arxpy.engine.backends.duckdb_engine import DuckDBEngine

    # Missing record numbers and discharge dates are kept, in both engines.
    lines = (ward / "data.csv").read_text().splitlines()
    for i in (3, 8, 40):
        cells = lines[i].split(";")
        cells[3], cells[5] = ("", "NA") if i % 2 else ("  null", "")
        lines[i] = ";".join(cells)
    (ward / "data.csv").write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(DuckDBEngine, "distinct_values", None)  # no scan of its own
    computed = []
    treated = duckdb_identifiers.Deferred.__call__
    monkeypatch.setattr(duckdb_identifiers.Deferred, "__call__",
                        lambda self, batch: computed.append(1) or treated(self, batch))
    runs = _both(ward, "--pseudonymize", "pid", "--pseudonymize", "mrn=records",
                 "--date-shift", "discharged", "--shift-days", "20", "--patient", "pid")
    (status, memory, _), (duck_status, duck, _) = runs.values()
    assert status == duck_status == 0 and computed
    assert duck == memory and b"M-5" not in duck
    assert b';"  null";2021;;' in duck and b";;2021;NA;" in duck  # quoted, as exported


def test_a_treatment_refusing_inside_the_release_is_the_users_error_and_writes_nothing(
        ward, monkeypatch, capsys):  # noqa: F811
    from arxpy.engine.backends import duckdb_identifiers
    from arxpy.errors import ConfigurationError

    def changed(*_):
        raise ConfigurationError("A date of a shifted attribute was not there: run it again.")

    monkeypatch.setattr(duckdb_identifiers._DateTable, "by_hash", changed)
    output = ward / "out.csv"
    assert main(anonymize_args(ward, "--pseudonymize", "pid", "--date-shift", "discharged",
                               "--shift-days", "20", "--patient", "pid", "--engine",
                               "duckdb", "--output", str(output))) == 2
    assert "error: A date of a shifted attribute was not there" in capsys.readouterr().err
    assert not output.exists() and not list(ward.glob("*.tmp*"))


def test_a_placeholder_date_a_shift_would_move_past_9999_is_refused_alike(ward, capsys):  # noqa: F811
    lines = (ward / "data.csv").read_text().splitlines()
    cells = lines[5].split(";")
    cells[5] = "9999-12-31"  # an open end date
    lines[5] = ";".join(cells)
    (ward / "data.csv").write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    runs = _both(ward, "--pseudonymize", "pid", "--date-shift", "discharged",
                 "--shift-days", "20", "--patient", "pid")
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert [status for status, _, _ in runs.values()] == [2, 2]
    assert errors[0] == errors[1] and "1 distinct dates of 'discharged' lie within 20 days " \
        "of the years 1000 or 9999" in errors[0]


def test_a_missing_date_the_hierarchy_lacks_is_not_called_a_shifted_date(ward, capsys):  # noqa: F811
    lines = (ward / "data.csv").read_text().splitlines()
    cells = lines[5].split(";")
    cells[4] = "NA"  # admitted, a quasi-identifier whose hierarchy holds dates only
    lines[5] = ";".join(cells)
    (ward / "data.csv").write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    runs = _both(ward, "--pseudonymize", "pid", *SHIFT)
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert [status for status, _, _ in runs.values()] == [2, 2]
    assert errors[0] == errors[1] and "shifted dates" not in errors[0]
    assert "1 value of the data is not in the hierarchy: 'NA'" in errors[0]


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


def test_duckdb_leaves_the_reidentification_table_to_memory_and_spark_refuses(ward, capsys):  # noqa: F811
    (ward / "pass.txt").write_text("a passphrase long enough\n")
    (ward / "trusted").mkdir()
    assert main(anonymize_args(ward, "--pseudonymize", "pid", "--engine", "duckdb",
                               "--reidentification-table", str(ward / "trusted" / "t.bin"),
                               "--passphrase-file", str(ward / "pass.txt"))) == 2
    assert "--reidentification-table runs with --engine memory" in capsys.readouterr().err
    import pandas as pd  # a Parquet file read in memory: the table says what to do instead

    parquet = ward / "data.parquet"
    pd.read_csv(ward / "data.csv", sep=";", dtype=str).to_parquet(parquet)
    args = anonymize_args(ward, "--pseudonymize", "pid", "--reidentification-table",
                          str(ward / "trusted" / "t.bin"), "--passphrase-file",
                          str(ward / "pass.txt"))
    args[args.index("--data") + 1] = str(parquet)
    assert main(args) == 2
    assert "not from Parquet; convert the file to CSV" in capsys.readouterr().err
    assert not (ward / "trusted" / "t.bin").exists()
    assert main(anonymize_args(ward, "--pseudonymize", "pid", "--engine", "spark")) == 2
    assert "leave out --engine spark" in capsys.readouterr().err


# Values a format or a mask could get wrong: missing spellings with Unicode spaces, a
# grapheme of two code points, non-ASCII letters, values longer than 28 and 70 digits' worth.
VALUES = ["P-1", "P-1", "  na ", "NULL", "", "\u3000NA\u2028", "?", "nan x", "123",
          "0171-555-0123", "123-45-6789", "e\u0301tudiant-42", "\u00fc-stra\u00dfe-12",
          "X" * 29, "ab", "A1", "77", "\u0661\u0662\u0663-99", "9" * 28, "P-2"]
FORMATS = {"h5": "hex:5", "h20": "hex:20", "h64": "hex:64", "p": "prefix:ID-:12",
           "p40": "prefix:Q:40", "d": "digits"}
MASKS = {"first": "keep-first:2", "last": "keep-last:4",
         "rx": r"regex:(\d{3})-\d{2}-(\d{4})", "rx2": r"regex:(?i)([a-z])\w*-(\d+)"}


def _plan(patient_namespace):
    from arxpy.identifiers import (
        MASK,
        PSEUDONYM,
        RANDOM,
        DateShift,
        IdentifierPlan,
        MaskRule,
        PseudonymFormat,
        Treatment,
    )

    treatments = [Treatment(n, PSEUDONYM, PseudonymFormat.parse(f), namespace=n)
                  for n, f in FORMATS.items()]
    treatments += [Treatment(n, MASK, rule=MaskRule.parse(r)) for n, r in MASKS.items()]
    treatments += [Treatment("r", RANDOM, PseudonymFormat.parse("hex:6")),
                   Treatment("pid", PSEUDONYM, PseudonymFormat.parse(FORMATS[patient_namespace]),
                             namespace=patient_namespace)]
    return IdentifierPlan(tuple(treatments), DateShift(("day", "at"), "pid", 40), "#")


def _table():
    import pandas as pd

    days = ["2021-03-01", "2020-02-29", "", "NA", "2021-12-31"] * 4
    columns = {name: VALUES for name in [*FORMATS, *MASKS, "r"]}
    return pd.DataFrame({"pid": VALUES[::-1], **columns, "day": days,
                         "at": [f"{d} 23:59:58" if d[:1] == "2" else d for d in days]})


def _through_duckdb(plan, frame, key):
    import duckdb
    import pandas as pd

    from arxpy.data.definition import DataDefinition
    from arxpy.engine.backends.duckdb_identifiers import DuckDBTreatment

    treatment = DuckDBTreatment(plan, key, DataDefinition.for_columns(frame.columns))
    treatment.prepare(lambda names: {n: list(pd.unique(frame[n])) for n in names})
    connection = duckdb.connect()
    connection.register("frame", frame)
    sql = treatment.select(connection, "frame", list(frame.columns))
    with treatment.failures():
        out = connection.execute(f"SELECT * FROM {sql}").df()
    return treatment, sql, out


@pytest.mark.parametrize(("namespace", "looked_up"), [("h5", True), ("p", True),
                                                     ("h5", False)])
def test_every_format_mask_and_shift_through_duckdb_is_the_memory_engines(
        namespace, looked_up, monkeypatch):
    from arxpy.data.definition import DataDefinition
    from arxpy.engine.backends import duckdb_identifiers
    from arxpy.identifiers import PseudonymKey

    if not looked_up:  # every record's offset and pseudonym in SQL
        monkeypatch.setattr(duckdb_identifiers, "_MOST_PATIENTS", 0)
    # patients are looked up where the batch HMAC is not built (tests/test_keyed_digests.py)
    monkeypatch.setattr(duckdb_identifiers.keyed_digests, "COMPILED", False)
    secret = bytes(range(100, 132))
    key, frame, plan = PseudonymKey(secret), _table(), _plan(namespace)
    memory = plan.apply(frame, DataDefinition.for_columns(frame.columns), key).frame
    treatment, sql, duck = _through_duckdb(plan, frame, key)
    assert (treatment._patients is not None) == looked_up
    treatment.check()  # the patient's pseudonyms meet their namesakes' in one namespace
    for name in frame.columns.drop("r"):
        assert duck[name].tolist() == memory[name].tolist(), name
    assert duck["p40"][0].startswith("Q") and len(duck["p40"][0]) == 41  # by Python
    assert len(duck["d"][13]) == 29 and duck["d"][10] != "123"
    # Random replacements: missing values kept, one per value, in the format, not the value.
    kept = frame["r"].str.strip().str.lower().isin(["", "na", "null", "nan", "?"])
    assert (duck["r"][kept] == frame["r"][kept]).all()
    replaced = duck["r"][~kept]
    assert replaced.str.fullmatch("[0-9a-f]{6}").all()
    assert replaced.groupby(frame["r"][~kept]).nunique().eq(1).all()
    assert replaced.nunique() == frame["r"][~kept].nunique()
    assert treatment.record["treatments"][8]["unmatched_distinct_values"] == \
        [t for t in memory_record(plan, frame, key) if t["attribute"] == "rx"][0][
            "unmatched_distinct_values"]
    # The key reaches DuckDB as parameters only: never in the SQL it could echo.
    for spelling in (secret.hex(), secret.hex().upper(), secret.decode("latin-1")):
        assert spelling not in sql
    assert _through_duckdb(plan, frame, key)[2]["r"].tolist() != duck["r"].tolist()


def memory_record(plan, frame, key):
    from arxpy.data.definition import DataDefinition

    return plan.apply(frame, DataDefinition.for_columns(frame.columns), key).record[
        "treatments"]


def test_a_too_long_value_for_digits_is_refused_in_the_memory_engines_words():
    import pandas as pd

    from arxpy.errors import ConfigurationError
    from arxpy.identifiers import (
        PSEUDONYM,
        IdentifierPlan,
        PseudonymFormat,
        PseudonymKey,
        Treatment,
    )

    frame = pd.DataFrame({"d": ["1" * 71, "2"]})
    plan = IdentifierPlan((Treatment("d", PSEUDONYM, PseudonymFormat.parse("digits")),))
    treatment, _, _ = _through_duckdb(plan, frame, PseudonymKey(bytes(32)))
    # refused with the namespaces' other checks, after the write, in the plan's order
    with pytest.raises(ConfigurationError, match="values of 'd' are longer than 70 char"):
        treatment.check()


def test_a_namespace_finds_pseudonyms_that_met_across_batches_and_compactions(monkeypatch):
    import numpy as np
    import pandas as pd

    from arxpy.engine.backends import duckdb_identifiers
    from arxpy.errors import ConfigurationError
    from arxpy.identifiers import PseudonymFormat, PseudonymKey

    monkeypatch.setattr(duckdb_identifiers, "_COMPACT_ROWS", 4)
    key = PseudonymKey(bytes(range(32)))
    macs = [m.hex() for m in key.digests("label", [f"v{i}" for i in range(40)])]
    met = int(pd.Series([m[:2] for m in macs]).duplicated(keep=False).sum())
    assert met  # 40 values in 256 pseudonyms
    for length, refused in ((2, True), (16, False)):
        identities = duckdb_identifiers._Identities(PseudonymFormat.parse(f"hex:{length}"))
        # what _identity computes in SQL: (MAC bits 64-127, first 4N bits, 0)
        rows = np.array([[int(m[16:32], 16), int(m[:length], 16), 0] for m in macs],
                        dtype=np.uint64)
        for start in range(0, 40, 5):  # batches; every value seen twice
            identities.add(rows[start:start + 5])
            identities.add(rows[start:start + 5])
        if refused:
            with pytest.raises(ConfigurationError, match=f"{met} of the 40 distinct values"):
                identities.refuse_collisions("'x'")
        else:
            identities.refuse_collisions("'x'")


@pytest.mark.parametrize("compiled", [True, False])
def test_missing_values_read_from_arrow_buffers_are_is_missings(compiled, monkeypatch):
    import pyarrow as pa

    from arxpy.data.types import is_missing
    from arxpy.engine.backends.duckdb_identifiers import _missing_values
    from arxpy.lattice import kernels

    monkeypatch.setattr(kernels, "USE_COMPILED", compiled and kernels.compiled_available())

    # odd ends, control characters that str.strip strips, a sign that lowers to ASCII
    odd = [" nan   x", "   null      ", "\x1cnull\x1f", "\u212aabcde", "n/a\t\t\t\t\t"]
    types = [pa.large_string()] + ([pa.string_view()] if hasattr(pa, "string_view") else [])
    for values in (VALUES + odd, [v for v in VALUES + odd if v.isascii()], []):
        array = pa.array(values, pa.string())
        for part, expected in ((array, values), (array.slice(3), values[3:]),
                               *((array.cast(t), values) for t in types)):
            assert _missing_values(part).tolist() == is_missing(expected).tolist()


def test_whitespace_is_what_str_strip_strips():
    from arxpy.engine.backends.duckdb_identifiers import WHITESPACE

    assert WHITESPACE == "".join(c for c in map(chr, range(0x110000)) if c.isspace())


def test_the_histogram_that_reads_the_dates_too_counts_and_orders_as_the_plain_one(tmp_path):
    import dataclasses

    import numpy as np

    from arxpy.data.definition import DataDefinition
    from arxpy.engine.backends.base import RecordSource
    from arxpy.engine.backends.duckdb_engine import DuckDBEngine
    from arxpy.engine.backends.duckdb_identifiers import DuckDBTreatment
    from arxpy.identifiers import DateShift, IdentifierPlan, PseudonymKey

    # text orders where bytes, code points and case could disagree; repeats to count
    values = ["é", "Z", "a", "", "e", "ä", "\u3000", "Ω", "a", "é", "Z"]
    rows = [f"p{i % 4};2021-0{1 + i % 9}-1{i % 3};{v};{i % 2}" for i, v in enumerate(values)]
    (tmp_path / "d.csv").write_text("pid;day;q;s\n" + "\n".join(rows) + "\n")
    engine, source = DuckDBEngine(), RecordSource.of_file(tmp_path / "d.csv", delimiter=";")
    plan = IdentifierPlan((), DateShift(("day",), "pid", 5))
    treatment = DuckDBTreatment(plan, PseudonymKey(bytes(32)),
                                DataDefinition.for_columns(["pid", "day", "q", "s"]))
    plain = engine.histogram(source, ["q", "s"])
    read = engine.histogram(dataclasses.replace(source, treatment=treatment), ["q", "s"])
    assert not treatment.unread  # the dates and patients came with the counts
    assert read.frame.equals(plain.frame) and np.array_equal(read.counts, plain.counts)
    assert plain.frame["q"].tolist() == sorted(plain.frame["q"])  # by code point
