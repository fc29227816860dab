"""Linked tables with the event tables read and written by DuckDB (issue 32): the files
are the in-memory release's byte for byte, the report the same, and each aggregate the
Series the memory path computes, on the linked example and on hand-made edge cases."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("duckdb")

from arxpy.cli import main  # noqa: E402
from arxpy.engine.backends.base import RecordSource  # noqa: E402
from arxpy.engine.backends.duckdb_engine import DuckDBEngine  # noqa: E402
from arxpy.engine.backends.duckdb_events import _Released  # noqa: E402
from arxpy.errors import ConfigurationError  # noqa: E402
from arxpy.identifiers import (  # noqa: E402
    PSEUDONYM,
    DateShift,
    IdentifierPlan,
    PseudonymKey,
    Treatment,
)
from arxpy.identifiers.dates import patient_offsets  # noqa: E402
from arxpy.workflows.linked_engine import EventFiles, aggregate_values  # noqa: E402
from arxpy.workflows.linked_release import plan_for  # noqa: E402
from arxpy.workflows.linked_tables import EventAggregate, LinkedTables  # noqa: E402

PID = "Patient ID"
AGGREGATES = ("admissions:count", "admissions:first-year:Admission date",
              "admissions:set:Diagnosis")


def _anonymize(folder, out, *extra):
    hierarchies = [a for q in ("Age", "Sex", "ZIP code")
                   for a in ("--hierarchy", f"{q}={folder / 'hierarchies' / q}.csv")]
    aggregates = [a for g in AGGREGATES for a in ("--link-aggregate", g)]
    return main(["anonymize", "--data", str(folder / "patients.csv"), *hierarchies,
                 "--k", "5", "--suppression", "0.1", "--identifying", "County",
                 "--identifying", "Hospital ID", "--link",
                 f"admissions={folder / 'admissions.csv'}", "--link-column", PID, *aggregates,
                 "--pseudonymize", PID, "--key-file", str(folder / "k.key"),
                 "--date-shift", "Admission date,Discharge date", "--shift-days", "30",
                 "--patient", PID, "--output-dir", str(folder / out),
                 "--report", str(folder / f"{out}.json"), *extra])


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """The linked example (300 patients) released in memory and through DuckDB with
    one shuffle seed, a count, a first-year and a set judged."""
    folder = tmp_path_factory.mktemp("linked_duckdb")
    assert main(["example", "--linked", "-o", str(folder), "--records", "300"]) == 0
    assert main(["keygen", "--pseudonym", str(folder / "k.key")]) == 0
    assert _anonymize(folder, "memory", "--shuffle-seed", "11") == 0
    assert _anonymize(folder, "duckdb", "--shuffle-seed", "11", "--engine", "duckdb") == 0
    return folder


@pytest.mark.parametrize("table", ["patients.csv", "admissions.csv"])
def test_every_released_file_is_the_in_memory_release_byte_for_byte(released, table):
    memory = (released / "memory" / table).read_bytes()
    assert memory == (released / "duckdb" / table).read_bytes()
    assert memory.count(b"\n") > 250  # rows were released, not just a header


def test_the_report_is_the_in_memory_report_with_the_engine_named(released):
    memory = json.loads((released / "memory.json").read_text())
    duckdb = json.loads((released / "duckdb.json").read_text())
    assert duckdb.pop("engine")["name"] == "duckdb"
    for report in (memory, duckdb):  # timings differ between any two runs
        report.pop("elapsed_seconds")
        report["release"].pop("elapsed_seconds", None)
    assert duckdb == memory
    tables = {t["name"]: t for t in duckdb["linked"]["tables"]}
    assert tables["admissions"]["left_out"] == ["Admission date", "Diagnosis"]
    assert 0 < tables["admissions"]["released_records"] < tables["admissions"]["records"]


def test_suppressed_patients_rows_are_left_out_and_identifying_columns_removed(released):
    patients = pd.read_csv(released / "duckdb" / "patients.csv", sep=";", dtype=str)
    events = pd.read_csv(released / "duckdb" / "admissions.csv", sep=";", dtype=str)
    assert set(events[PID]) <= set(patients[PID])
    assert "Hospital ID" not in events.columns and "County" not in patients.columns
    original = pd.read_csv(released / "admissions.csv", dtype=str, sep=None, engine="python")
    assert not set(events[PID]) & set(original[PID])  # pseudonyms only


# -- the aggregates on hand-made edge cases ---------------------------------------------

KEY = PseudonymKey(b"e" * 32)
DAYS = 30
PLAN = IdentifierPlan((Treatment(PID, PSEUDONYM),), DateShift(("Day",), PID, DAYS))


def _edge_tables(folder):
    """Patients P0..P4 (P4 without events); missing and multi-code cells; each Day one
    day either side of the year its patient's offset moves it across."""
    ids = [f"P{i}" for i in range(5)]
    offsets = dict(zip(ids, patient_offsets(KEY, ids, DAYS), strict=True))
    new_year = np.datetime64("2016-01-01")

    def crossing(patient, before):  # shifted to 2015-12-31 (before) or 2016-01-01
        day = new_year - np.timedelta64(int(offsets[patient]) + int(before), "D")
        return str(day)

    events = pd.DataFrame({
        PID: ["P0", "P0", "P1", "P1", "P2", "P3", "P3", "P0"],
        "Day": [crossing("P0", False), crossing("P0", True), crossing("P1", False), "",
                "NA", crossing("P3", False), crossing("P3", False), crossing("P0", False)],
        "Codes": ["I10;E11.9", " E11.9 ", "", "NA", "Z00;;Z00", "B20", "A01;B20", "I10"],
    })
    patients = pd.DataFrame({PID: ids, "Age": ["30", "40", "50", "60", "70"]})
    path = folder / "stays.csv"
    events.to_csv(path, sep=";", index=False)
    return patients, events, path


@pytest.fixture(scope="module")
def edge(tmp_path_factory):
    patients, events, path = _edge_tables(tmp_path_factory.mktemp("edge"))
    files = EventFiles(patients, {"stays": RecordSource(path=path)}, PID, DuckDBEngine())
    return patients, events, files


@pytest.mark.parametrize("text", ["stays:count", "stays:first-year:Day", "stays:set:Codes"])
def test_each_aggregate_is_the_series_the_memory_path_gives(edge, text):
    patients, events, files = edge
    aggregate = EventAggregate.parse(text)
    treated = PLAN.apply(events, _roles(events), KEY).frame  # as the memory path treats it
    pseudonyms = plan_for(PLAN, patients.columns).apply(patients, _roles(patients), KEY).frame[PID]
    expected = aggregate.values(treated, PID, pseudonyms)
    got = aggregate_values(aggregate, files, patients[PID], PLAN.date_shift, KEY)
    assert got.tolist() == expected.tolist()
    assert expected.iloc[4] in ("0", "NA")  # P4 has no events


def test_first_years_cross_the_year_as_their_shifted_dates_do(edge):
    patients, _, files = edge
    years = aggregate_values(EventAggregate.parse("stays:first-year:Day"), files,
                             patients[PID], PLAN.date_shift, KEY).tolist()
    assert years == ["2015", "2016", "NA", "2016", "NA"]


def test_sets_split_strip_and_deduplicate_codes(edge):
    patients, _, files = edge
    sets = aggregate_values(EventAggregate.parse("stays:set:Codes"), files, patients[PID],
                            PLAN.date_shift, KEY).tolist()
    assert sets == ["E11.9;I10", "NA", "Z00", "A01;B20", "NA"]


def test_orphan_events_are_refused_with_the_memory_paths_message(edge):
    patients, events, files = edge
    fewer = patients.iloc[1:]
    orphaned = EventFiles(fewer, files.sources, PID, files.engine)
    with pytest.raises(ConfigurationError) as on_engine:
        orphaned.check()
    with pytest.raises(ConfigurationError) as in_memory:
        LinkedTables(fewer, {"stays": events}, PID).check()
    assert str(on_engine.value) == str(in_memory.value)
    assert "3 rows of 'stays'" in str(on_engine.value) and "P0" not in str(on_engine.value)


def _roles(frame):
    from arxpy.data.definition import AttributeType, DataDefinition

    return DataDefinition.for_columns(frame.columns).with_attribute(
        PID, type=AttributeType.IDENTIFYING)


def test_membership_compares_identifiers_where_hashes_meet():
    released = pd.Series(["P1", "P2"])
    import pyarrow as pa

    by_hash = _Released(released, np.array([5, 9], dtype=np.uint64))
    texts = pa.array(["P1", "P9", "P2", ""])
    hashes = pa.array([5, 5, 9, 1], type=pa.uint64())  # P9 shares P1's hash
    assert by_hash(hashes, texts).to_pylist() == [True, False, True, False]
    by_text = _Released(released, np.array([5, 5], dtype=np.uint64))  # hashes repeat
    assert by_text(hashes, texts).to_pylist() == [True, False, True, False]


@pytest.mark.parametrize("link, extra, message", [
    ("stays=db.sqlite:stays", ["--engine", "duckdb"], "--link stays names a SQLite table"),
    ("stays=s.csv", ["--engine", "spark"], "leave out --engine spark"),
    ("stays=s.csv", ["--engine", "duckdb", "--neutralize-formulas"],
     "--neutralize-formulas works with the in-memory engine only"),
])
def test_what_the_engines_cannot_do_is_refused_in_one_line(tmp_path, capsys, link, extra,
                                                           message):
    (tmp_path / "p.csv").write_text("Patient ID,age\nP1,30\n")
    assert main(["keygen", "--pseudonym", str(tmp_path / "k.key")]) == 0
    capsys.readouterr()
    code = main(["anonymize", "--data", str(tmp_path / "p.csv"), "--hierarchy",
                 f"age={tmp_path / 'p.csv'}",
                 "--k", "2", "--link", link, "--link-column", PID, "--pseudonymize", PID,
                 "--key-file", str(tmp_path / "k.key"),
                 "--output-dir", str(tmp_path / "o"), *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_value_replaced_at_random_has_one_replacement_in_every_table(tmp_path):
    # Each admission holds its patient's ward: the released tables must agree on it, in
    # memory and through DuckDB (one key of random replacements per release).
    assert main(["example", "--linked", "-o", str(tmp_path), "--records", "120"]) == 0
    assert main(["keygen", "--pseudonym", str(tmp_path / "k.key")]) == 0
    patients = pd.read_csv(tmp_path / "patients.csv", dtype=str, keep_default_na=False)
    admissions = pd.read_csv(tmp_path / "admissions.csv", dtype=str, keep_default_na=False)
    ward = {p: f"Ward {i % 7}" for i, p in enumerate(patients[PID])}
    patients["Ward"], admissions["Ward"] = patients[PID].map(ward), admissions[PID].map(ward)
    patients.to_csv(tmp_path / "patients.csv", index=False)
    admissions.to_csv(tmp_path / "admissions.csv", index=False)
    for out, engine in (("memory", []), ("duckdb", ["--engine", "duckdb"])):
        assert _anonymize(tmp_path, out, "--replace-random", "Ward", *engine) == 0
        shown = {name: pd.read_csv(tmp_path / out / f"{name}.csv", dtype=str,
                                   keep_default_na=False, sep=None, engine="python")
                 for name in ("patients", "admissions")}
        by_patient = dict(zip(shown["patients"][PID], shown["patients"]["Ward"], strict=True))
        events = shown["admissions"]
        assert (events["Ward"] == events[PID].map(by_patient)).all(), out
        assert not set(by_patient.values()) & set(ward.values())  # replaced
        assert len(set(by_patient.values())) == len({ward[p] for p in ward}), out


def test_kept_order_is_the_in_memory_release_byte_for_byte(tmp_path):
    assert main(["example", "--linked", "-o", str(tmp_path), "--records", "120"]) == 0
    assert main(["keygen", "--pseudonym", str(tmp_path / "k.key")]) == 0
    assert _anonymize(tmp_path, "memory", "--keep-order") == 0
    assert _anonymize(tmp_path, "duckdb", "--keep-order", "--engine", "duckdb") == 0
    for table in ("patients.csv", "admissions.csv"):
        memory = (tmp_path / "memory" / table).read_bytes()
        assert memory == (tmp_path / "duckdb" / table).read_bytes(), table
    # kept order: the released events are the input's of released patients, in order
    given = pd.read_csv(tmp_path / "admissions.csv", dtype=str)
    released = pd.read_csv(tmp_path / "duckdb" / "admissions.csv", dtype=str, sep=";")
    stays = released["Length of stay"].tolist()
    assert len(stays) > 100 and stays != sorted(stays)
    it = iter(given["Length of stay"])
    assert all(stay in it for stay in stays)  # a subsequence of the input's
