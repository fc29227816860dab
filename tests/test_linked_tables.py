"""Linked tables (issue 32): a patient table and its admissions, pseudonymized, shifted,
generalized and judged on the patient-level view, end to end through the command line.

The checks rebuild the patient view from the exported files with pandas and judge it
with the independent ``tests/audit.py``; pseudonyms and offsets are recomputed here
with Python's ``hmac``, not arxpy's code.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json

import audit as anonymity
import numpy as np
import pandas as pd
import pytest

from arxpy.cli import main
from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers import PSEUDONYM, DateShift, IdentifierPlan, PseudonymKey, Treatment
from arxpy.workflows.linked_release import release_linked
from arxpy.workflows.linked_tables import EventAggregate, LinkedTables

PID = "Patient ID"
QIS = ["Age", "Sex", "ZIP code"]
SHIFT_DAYS = 30
DIAGNOSIS = "Diagnosis"
CODES = f"admissions:set:{DIAGNOSIS}"


def read(path):
    return pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)


def pseudonym(secret: bytes, value: str) -> str:
    return hmac.new(secret, b"arxpy pseudonym v1\0default\0" + value.encode(),
                    hashlib.sha256).hexdigest()[:16]


@pytest.fixture(scope="module")
def linked(tmp_path_factory):
    """The linked example (300 patients) released by ``anonymize`` under 5-anonymity of
    the patient view (patient QIs, the number of admissions and the set of diagnoses)."""
    folder = tmp_path_factory.mktemp("linked")
    assert main(["example", "--linked", "-o", str(folder), "--records", "300"]) == 0
    assert main(["keygen", "--pseudonym", str(folder / "k.key")]) == 0
    hierarchies = [a for q in QIS for a in ("--hierarchy", f"{q}={folder / 'hierarchies' / q}.csv")]
    code = main(["anonymize", "--data", str(folder / "patients.csv"), *hierarchies,
                 "--k", "5", "--suppression", "0.1", "--identifying", "County",
                 "--identifying", "Hospital ID",  # of the admissions only
                 "--link", f"admissions={folder / 'admissions.csv'}", "--link-column", PID,
                 "--link-aggregate", "admissions:count",
                 "--link-aggregate", f"admissions:set:{DIAGNOSIS}", "--pseudonymize", PID,
                 "--key-file", str(folder / "k.key"),
                 "--date-shift", "Admission date,Discharge date",
                 "--shift-days", str(SHIFT_DAYS), "--patient", PID,
                 "--output-dir", str(folder / "out"), "--report", str(folder / "report.json")])
    assert code == 0
    return folder


def test_the_rebuilt_patient_view_is_5_anonymous(linked):
    patients = read(linked / "out" / "patients.csv")
    admissions = read(linked / "out" / "admissions.csv")
    counts = admissions.groupby(PID).size()
    view = patients.assign(events=patients[PID].map(counts).fillna(0).astype(int))
    assert anonymity.k_anonymity(view, [*QIS, "events", CODES]) >= 5
    assert smallest_class(view, [*QIS, "events"], CODES) >= 5
    assert (view["events"].astype(str) == view["admissions:count"]).all()
    assert "County" not in patients.columns and patients[PID].is_unique
    # The diagnoses are released as the judged set only (left out of the admissions).
    assert list(admissions.columns) == [PID, "Admission date", "Discharge date",
                                        "Length of stay"]


def smallest_class(view, columns, codes):
    """The smallest class of ``view`` over ``columns`` and the set in ``codes``, read as
    a set of codes (brute force, apart from arxpy and audit.py)."""
    classes = {}
    for _, row in view.iterrows():
        key = (*row[columns], frozenset(row[codes].split(";")))
        classes[key] = classes.get(key, 0) + 1
    return min(classes.values())


def categories(codes, characters=3):
    return {c[:characters] for c in codes}


def test_the_released_set_of_diagnoses_is_each_patients_generalized_to_one_level(linked):
    secret = (linked / "k.key").read_bytes()
    events = pd.read_csv(linked / "admissions.csv", dtype=str, keep_default_na=False)
    truth = {pseudonym(secret, p): set(group) for p, group in
             events.groupby(PID)[DIAGNOSIS]}
    patients = read(linked / "out" / "patients.csv")
    released = [set(cell.split(";")) for cell in patients[CODES]]
    codes = [truth[p] for p in patients[PID]]
    levels = {"codes": released == codes,
              "categories": released == [categories(c) for c in codes],
              "chapters": released == [categories(c, 1) for c in codes],
              "hidden": all(cell == {"*"} for cell in released)}
    assert sum(levels.values()) == 1  # one level for every patient (global recoding)
    report = json.loads((linked / "report.json").read_text())
    assert report["linked"]["tables"][1]["left_out"] == [DIAGNOSIS]
    assert CODES in report["release"]["verification"]["attacker"]["quasi_identifiers"]


def test_the_link_holds_and_suppressed_patients_leave_every_table(linked):
    secret = (linked / "k.key").read_bytes()
    source = pd.read_csv(linked / "patients.csv", dtype=str, keep_default_na=False)
    events = pd.read_csv(linked / "admissions.csv", dtype=str, keep_default_na=False)
    patients = read(linked / "out" / "patients.csv")
    admissions = read(linked / "out" / "admissions.csv")
    by_pseudonym = {pseudonym(secret, p): p for p in source[PID]}
    assert set(patients[PID]) <= set(by_pseudonym)
    assert set(admissions[PID]) <= set(patients[PID])  # every event names a released patient
    suppressed = set(by_pseudonym) - set(patients[PID])
    report = json.loads((linked / "report.json").read_text())
    assert len(suppressed) == report["linked"]["patients"]["suppressed"] > 0
    released = {by_pseudonym[p] for p in patients[PID]}
    assert len(admissions) == int(events[PID].isin(released).sum())  # no event lost


def test_dates_move_by_one_offset_per_patient(linked):
    secret = (linked / "k.key").read_bytes()
    events = pd.read_csv(linked / "admissions.csv", dtype=str, keep_default_na=False)
    events[PID] = [pseudonym(secret, p) for p in events[PID]]
    order = [PID, "Admission date"]  # ISO dates sort as text; a patient's never tie
    shifted = read(linked / "out" / "admissions.csv").sort_values(order, ignore_index=True)
    source = events[events[PID].isin(shifted[PID])].sort_values(order, ignore_index=True)
    assert shifted[PID].equals(source[PID])
    days = {c: (pd.to_datetime(shifted[c]) - pd.to_datetime(source[c])).dt.days
            for c in ("Admission date", "Discharge date")}
    offsets = days["Admission date"]
    # One offset per patient, within ±N days and never 0, the same for every date column:
    # every interval within a patient is kept.
    assert (offsets.groupby(shifted[PID]).nunique() == 1).all()
    assert offsets.abs().between(1, SHIFT_DAYS).all()
    assert days["Discharge date"].equals(offsets)
    assert offsets.nunique() > 10  # patients move by different offsets


def test_neither_the_key_nor_an_original_identifier_is_in_outputs_or_report(linked, capsys):
    secret = (linked / "k.key").read_bytes()
    source = pd.read_csv(linked / "patients.csv", dtype=str, keep_default_na=False)
    texts = [(linked / "out" / name).read_text() for name in ("patients.csv", "admissions.csv")]
    texts += [(linked / "report.json").read_text(), capsys.readouterr().out]
    keys = [secret.hex(), secret.hex().upper(), base64.b64encode(secret).decode(),
            base64.b64encode(secret).decode().rstrip("="),
            base64.urlsafe_b64encode(secret).decode()]
    for text in texts:
        assert not any(k in text for k in keys)
        assert not any(p in text for p in source[PID])
    report = json.loads(texts[2])
    assert "reidentification_table" not in report["identifiers"]  # never without the flag
    assert sorted(p.name for p in linked.rglob("*") if p.is_file()) == sorted(
        ["patients.csv", "admissions.csv", "k.key", "report.json", "patients.csv",
         "admissions.csv", "Age.csv", "Sex.csv", "ZIP code.csv"])
    assert report["linked"]["link_column"] == PID
    assert [t["name"] for t in report["linked"]["tables"]] == ["patients", "admissions"]
    assert [t["file"] for t in report["linked"]["tables"]] == ["patients.csv", "admissions.csv"]
    assert report["identifiers"]["key_fingerprint"] and report["release"]["anonymous"]


# --- the engine, on hand-made tables ----------------------------------------------------

def _tables(patients=8, events_each=2):
    ids = [f"P{i:03d}" for i in range(patients)]
    first = dt.date(2020, 3, 1)
    people = pd.DataFrame({PID: ids, "sex": ["F", "M"] * (patients // 2),
                           "registered": [str(first + dt.timedelta(days=3 * i))
                                          for i in range(patients)]}, dtype=object)
    rows = [(p, str(first + dt.timedelta(days=40 * j + i + 300 * (i % 2))))
            for i, p in enumerate(ids) for j in range(events_each)]
    events = pd.DataFrame(rows, columns=[PID, "admitted"], dtype=object)
    return LinkedTables(people, {"stays": events}, PID)


def _definition(tables):
    return DataDefinition.for_columns(tables.patients.columns).with_attribute(
        "sex", type=AttributeType.QUASI_IDENTIFYING)


PLAN = IdentifierPlan((Treatment(PID, PSEUDONYM),),
                      DateShift(("registered", "admitted"), PID, 20))


def _unchanged(frame, definition, hierarchies):
    """A stand-in method: releases the view as it is, suppressing the first patient."""
    from arxpy.release import Release

    suppressed = np.zeros(len(frame), bool)
    suppressed[0] = True
    return Release(frame, suppressed, definition, "stand-in", {}, (), "")


def test_one_offset_per_patient_across_tables_and_first_year_released_as_judged():
    tables = _tables()
    key = PseudonymKey(b"k" * 32)
    release = release_linked(tables, _definition(tables), {}, _unchanged,
                             (EventAggregate.parse("stays:first-year:admitted"),), PLAN, key)
    people, stays = release.tables["patients"], release.tables["stays"]
    assert "admitted" not in stays.columns  # summarized: released as the aggregate only
    assert release.left_out == {"stays": ["admitted"]}
    assert len(people) == 7 and len(stays) == 14  # the first patient leaves both tables
    # The registration date moved by the same offset as the (judged) first admission year.
    original = tables.patients.set_index(PID)["registered"].map(dt.date.fromisoformat)
    secret_pseudonyms = {pseudonym(b"k" * 32, p): p for p in tables.patients[PID]}
    for _, row in people.iterrows():
        patient = secret_pseudonyms[row[PID]]
        offset = (dt.date.fromisoformat(row["registered"]) - original[patient]).days
        assert 1 <= abs(offset) <= 20
        admitted = tables.events["stays"].query(f"`{PID}` == @patient")["admitted"]
        first = min(dt.date.fromisoformat(d) for d in admitted) + dt.timedelta(days=offset)
        assert row["stays:first-year:admitted"] == str(first.year)


@pytest.mark.parametrize("change, message", [
    (lambda t: LinkedTables(t.patients.assign(**{PID: ["P000"] * 8}), t.events, PID),
     "more than once"),
    (lambda t: LinkedTables(t.patients.iloc[1:], t.events, PID), "name no patient"),
    (lambda t: LinkedTables(t.patients, {"stays": t.events["stays"].rename(
        columns={PID: "pid"})}, PID), "no link column"),
])
def test_tables_that_do_not_link_are_refused_naming_no_value(change, message):
    tables = change(_tables())
    with pytest.raises(ConfigurationError, match=message) as caught:
        release_linked(tables, _definition(tables), {}, _unchanged, (), PLAN,
                       PseudonymKey(b"k" * 32))
    assert "P00" not in str(caught.value)


def test_a_link_column_that_is_not_pseudonymized_is_refused():
    tables = _tables()
    with pytest.raises(ConfigurationError, match="must be a keyed pseudonym"):
        release_linked(tables, _definition(tables), {}, _unchanged)


def test_the_desktops_writer_leaves_nothing_when_a_later_file_fails_or_it_is_cancelled(
        tmp_path, monkeypatch):
    from arxpy.errors import CancelledError
    from arxpy.identifiers import reidentification
    from arxpy.identifiers.reidentification import ReidentificationRequest, read_table
    from arxpy.jobs import CancelToken
    from arxpy.workflows.linked_release import write_linked_files

    monkeypatch.setattr(reidentification, "SCRYPT_N", 2**10)  # the same code, cheaper
    tables = _tables()
    key = PseudonymKey(b"k" * 32)
    release = release_linked(tables, _definition(tables), {}, _unchanged, (), PLAN, key)
    files = {"patients": "patients.csv", "stays": "stays.csv"}
    passphrase = "a passphrase long enough"
    # The table's folder is missing: it fails last, after the tables and the report.
    missing = ReidentificationRequest(tmp_path / "gone" / "t.arxreid", passphrase)
    with pytest.raises(ConfigurationError, match="Cannot write the re-identification"):
        write_linked_files(release, tables, tmp_path / "new", files, missing)
    assert not (tmp_path / "new").exists()  # the folder it made goes too
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "notes.txt").write_text("not the release's")
    token = CancelToken()
    def cancel_after_a_table(fraction, message):
        if message == "Writing stays.csv":
            token.cancel()
    with pytest.raises(CancelledError):
        write_linked_files(release, tables, kept, files, None, cancel_after_a_table, token)
    assert [p.name for p in kept.iterdir()] == ["notes.txt"]
    said = []
    table = ReidentificationRequest(tmp_path / "t.arxreid", passphrase)
    written = write_linked_files(release, tables, kept, files, table,
                                 lambda fraction, message: said.append(fraction))
    assert sorted(p.name for p in kept.iterdir()) == ["notes.txt", "patients.csv",
                                                      "report.json", "stays.csv"]
    assert written["reidentification"] == tmp_path / "t.arxreid" and said[-1] == 1.0
    assert said == sorted(said)
    (column,) = read_table(tmp_path / "t.arxreid", passphrase).columns
    assert {pseudonym(b"k" * 32, o): o for o in tables.patients[PID]} == \
        dict(zip(column.pseudonyms, column.originals, strict=True))  # suppressed too
    assert passphrase not in repr(table)


@pytest.mark.parametrize("text", ["stays", "stays:sum", "stays:first-year", "stays:count:x",
                                  "stays:set"])
def test_an_unreadable_aggregate_is_refused(text):
    with pytest.raises(ConfigurationError, match="TABLE:count"):
        EventAggregate.parse(text)


@pytest.mark.parametrize("extra, message", [
    (["--link-column", PID], "--link-column goes with --link"),
    (["--link", "a=a.csv", "--output-dir", "o"], "needs --link-column"),
    (["--link", "a=a.csv", "--link-column", PID, "--output-dir", "o", "--output", "x.csv"],
     "leave --output out"),
    (["--link", "a=a.csv", "--link-column", PID, "--output-dir", "o", "--preset",
      "safe-harbor"], "leave --preset out"),
])
def test_linked_options_that_would_be_ignored_are_refused(tmp_path, capsys, extra, message):
    (tmp_path / "p.csv").write_text("Patient ID,age\nP1,30\n")
    code = main(["anonymize", "--data", str(tmp_path / "p.csv"), "--hierarchy",
                 f"age={tmp_path / 'p.csv'}", "--k", "2", *extra])
    assert code == 2 and message in capsys.readouterr().err


def test_the_linked_example_is_deterministic_and_links(tmp_path):
    from arxpy.linked_example import generate_linked_example

    patients, admissions = generate_linked_example(200, seed=5)
    again = generate_linked_example(200, seed=5)
    assert patients.equals(again[0]) and admissions.equals(again[1])
    assert patients[PID].is_unique and admissions[PID].isin(patients[PID]).all()
    dates = admissions[["Admission date", "Discharge date"]].apply(pd.to_datetime)
    stay = dates["Discharge date"] - dates["Admission date"]
    assert (stay.dt.days.astype(str) == admissions["Length of stay"]).all()
    assert not patients.equals(generate_linked_example(200, seed=6)[0])


def test_a_count_is_judged_as_the_released_rows_show_it():
    """Rows show each patient's number of events: generalizing the count would hide
    nothing, so the view keeps it exact and suppresses rare counts instead."""
    import arxpy.privacy  # noqa: F401  (registers k-anonymity)
    from arxpy.engine import AnonymizationConfig
    from arxpy.workflows.linked_release import anonymize_linked

    counts = [1, 1, 1, 1, 2, 2, 3, 4, 5, 6]
    ids = [f"P{i}" for i in range(len(counts))]
    people = pd.DataFrame({PID: ids, "sex": "F"}, dtype=object)
    events = pd.DataFrame({PID: np.repeat(ids, counts), "ward": "A"}, dtype=object)
    tables = LinkedTables(people, {"stays": events}, PID)

    def release(suppression_limit):
        config = AnonymizationConfig.from_dict({
            "privacy_models": [{"kind": "k-anonymity", "k": 2}],
            "suppression_limit": suppression_limit})
        return anonymize_linked(tables, _definition(tables), {"sex": Hierarchy([("F", "*")])},
                                config, (EventAggregate.parse("stays:count"),),
                                IdentifierPlan((Treatment(PID, PSEUDONYM),)),
                                PseudonymKey(b"k" * 32))

    with pytest.raises(ConfigurationError, match="No transformation of the patient-level"):
        release(0.0)  # a count of '*' would pass, but the rows would still show it
    out = release(0.5).tables
    rebuilt = out["patients"].assign(events=out["patients"][PID].map(
        out["stays"].groupby(PID).size()))
    assert anonymity.k_anonymity(rebuilt, ["sex", "events"]) >= 2
    assert len(out["patients"]) == 6 and len(out["stays"]) == 8


@pytest.mark.parametrize("aggregate, message", [
    ("stays:first-year:ward", "names no column of 'stays'"),
    ("stays:first-year:" + PID, "takes dates"),
    ("visits:count", "names no linked table"),
    ("stays:set:" + PID, "would release each patient's identifier"),
    ("stays:set:dx", "names no column of 'stays'"),
])
def test_an_aggregate_the_tables_cannot_give_is_refused(aggregate, message):
    tables = _tables()
    with pytest.raises(ConfigurationError, match=message):
        release_linked(tables, _definition(tables), {}, _unchanged,
                       (EventAggregate.parse(aggregate),), PLAN, PseudonymKey(b"k" * 32))


def test_a_set_of_codes_is_judged_as_one_value_and_released_as_judged():
    """Codes per patient, where only their categories (E11, J44) form classes of 2: the
    view releases the categories, leaves the codes out of the events, and the
    independent brute force finds every patient in a class of 2 on the released set."""
    import arxpy.privacy  # noqa: F401  (registers k-anonymity)
    from arxpy.engine import AnonymizationConfig
    from arxpy.workflows.linked_release import anonymize_linked

    codes = [["I10"], ["I10"], ["I10"], ["E11.9"], ["E11.6"], ["E11.9", "I10"],
             ["E11.6;I10"], ["J44.1"], ["J44.9"], [], []]  # one cell holds two codes
    ids = [f"P{i:02d}" for i in range(len(codes))]
    people = pd.DataFrame({PID: ids, "sex": "F"}, dtype=object)
    rows = [(p, c) for p, cells in zip(ids, codes, strict=True) for c in cells]
    events = pd.DataFrame(rows + [(ids[-1], "NA")], columns=[PID, "dx"], dtype=object)
    tables = LinkedTables(people, {"stays": events}, PID)
    config = AnonymizationConfig.from_dict({"privacy_models": [{"kind": "k-anonymity",
                                                                "k": 2}]})
    release = anonymize_linked(tables, _definition(tables), {"sex": Hierarchy([("F", "*")])},
                               config, (EventAggregate.parse("stays:set:dx"),),
                               IdentifierPlan((Treatment(PID, PSEUDONYM),)),
                               PseudonymKey(b"k" * 32))
    out = release.tables["patients"]
    assert len(out) == len(ids) and list(release.tables["stays"].columns) == [PID]
    original = {pseudonym(b"k" * 32, p): {code for cell in cells for code in cell.split(";")}
                for p, cells in zip(ids, codes, strict=True)}
    released = {p: set(cell.split(";")) for p, cell in zip(out[PID], out["stays:set:dx"],
                                                             strict=True)}
    assert released == {p: categories(c) if c else {"NA"} for p, c in original.items()}
    assert smallest_class(out, ["sex"], "stays:set:dx") >= 2
    verdict = release.view.verify()
    assert verdict.anonymous and "stays:set:dx" in verdict.attacker.quasi_identifiers
    assert release.view.definition["stays:set:dx"].data_type.kind.value == "set"


def _clinic(tmp_path):
    """The patients (CSV and a table of clinic.db), their visits (clinic.db) and a key."""
    import sqlite3

    ids = [f"P{i}" for i in range(6)]
    people = [(p, "FM"[i % 2]) for i, p in enumerate(ids)]
    (tmp_path / "people.csv").write_text(
        "Patient ID;sex\n" + "".join(f"{p};{s}\n" for p, s in people))
    (tmp_path / "sex.csv").write_text("F;*\nM;*\n")
    with sqlite3.connect(tmp_path / "clinic.db") as connection:
        connection.execute("CREATE TABLE people (\"Patient ID\" TEXT, sex TEXT)")
        connection.executemany("INSERT INTO people VALUES (?, ?)", people)
        connection.execute("CREATE TABLE visits (\"Patient ID\" TEXT, ward TEXT)")
        connection.executemany("INSERT INTO visits VALUES (?, ?)",
                               [(p, w) for p in ids for w in ("A", "B")[:1 + ids.index(p) % 2]])
    assert main(["keygen", "--pseudonym", str(tmp_path / "k.key")]) == 0
    return ["--hierarchy", f"sex={tmp_path / 'sex.csv'}", "--pseudonymize", PID,
            "--key-file", str(tmp_path / "k.key")]


def test_an_event_table_is_read_from_a_sqlite_database(tmp_path, capsys, monkeypatch):
    from arxpy.identifiers import reidentification

    monkeypatch.setattr(reidentification, "SCRYPT_N", 2**10)  # the same code, cheaper
    linked = ["--data", str(tmp_path / "people.csv"), *_clinic(tmp_path), "--link-column",
              PID, "--link-aggregate", "visits:set:ward",
              "--link", f"visits={tmp_path / 'clinic.db'}:visits"]
    anonymize = ["anonymize", *linked, "--k", "3", "--output-dir", str(tmp_path / "out")]
    no_table = [a.removesuffix(":visits") for a in anonymize]
    assert main(no_table) == 2
    assert "write NAME=FILE.sqlite:TABLE" in capsys.readouterr().err
    assert main(anonymize) == 0
    people, visits = read(tmp_path / "out" / "people.csv"), read(tmp_path / "out" / "visits.csv")
    assert sorted(people["visits:set:ward"]) == ["A"] * 3 + ["A;B"] * 3  # every set as it is
    assert list(visits.columns) == [PID] and len(visits) == 9  # the ward: the judged set
    assert set(visits[PID]) == set(people[PID])
    # `run` judges the same view with any method and writes the same report (and the
    # same re-identification table, asked for).
    (tmp_path / "pass.txt").write_text("a passphrase long enough\n")
    assert main(["run", "generalization", *linked, "--privacy-models",
                 '[{"kind": "k-anonymity", "k": 3}]', "--output-dir", str(tmp_path / "run"),
                 "--report", str(tmp_path / "run" / "run.json"), "--reidentification-table",
                 str(tmp_path / "t.bin"), "--passphrase-file", str(tmp_path / "pass.txt")]) == 0
    table = reidentification.read_table(tmp_path / "t.bin", "a passphrase long enough")
    assert [(c.attribute, sorted(c.originals)) for c in table.columns] == [
        (PID, [f"P{i}" for i in range(6)])]
    report = json.loads((tmp_path / "run" / "run.json").read_text())
    assert report["verification"]["anonymous"] and report["identifiers"]["key_fingerprint"]
    assert report["linked"]["tables"][1] == {
        "name": "visits", "role": "events", "file": "visits.csv", "records": 9,
        "released_records": 9, "left_out": ["ward"]}


def test_the_patient_table_is_read_from_a_sqlite_database(tmp_path, capsys):
    options = [*_clinic(tmp_path), "--k", "3", "--shuffle-seed", "7"]
    linked = [*options, "--link-column", PID, "--link-aggregate", "visits:count",
              "--link", f"visits={tmp_path / 'clinic.db'}:visits"]
    database = f"{tmp_path / 'clinic.db'}:people"
    assert main(["anonymize", "--data", database, *linked,
                 "--output-dir", str(tmp_path / "db"), "--report", str(tmp_path / "r.json")]) == 0
    assert main(["anonymize", "--data", str(tmp_path / "people.csv"), *linked,
                 "--output-dir", str(tmp_path / "csv")]) == 0
    # The table is named after the SQLite table, and released as its CSV twin is.
    for name in ("people.csv", "visits.csv"):
        assert (tmp_path / "db" / name).read_bytes() == (tmp_path / "csv" / name).read_bytes()
    tables = json.loads((tmp_path / "r.json").read_text())["linked"]["tables"]
    assert [(t["name"], t["file"], t["records"]) for t in tables] == [
        ("people", "people.csv", 6), ("visits", "visits.csv", 9)]
    # One table alone, and `risk` (every command reading --data shares the reader).
    assert main(["anonymize", "--data", database, *options, "--output",
                 str(tmp_path / "one.csv")]) == 0
    assert sorted(read(tmp_path / "one.csv")["sex"]) == ["F"] * 3 + ["M"] * 3
    assert main(["risk", "--data", database, "--qi", "sex",
                 "--report", str(tmp_path / "risk.json")]) == 0
    assert json.loads((tmp_path / "risk.json").read_text())["records"] == 6
    capsys.readouterr()
    assert main(["anonymize", "--data", str(tmp_path / "clinic.db"), *options]) == 2
    assert "--data names the SQLite database 'clinic.db' without a table; write --data " \
        "FILE.sqlite:TABLE" in capsys.readouterr().err


@pytest.mark.parametrize("command", [
    ["anonymize", "--hierarchy", "sex=sex.csv", "--k", "2", "--engine", "duckdb"],
    ["disassociate", "--codes-column", "ward", "--k", "2", "--m", "2", "--output", "o.json"],
])
def test_commands_that_read_csv_only_refuse_a_sqlite_table_in_one_line(tmp_path, capsys,
                                                                       command):
    code = main([*command, "--data", f"{tmp_path / 'clinic.db'}:visits"])
    err = capsys.readouterr().err
    assert code == 2 and "--data cannot name a SQLite table here" in err
    assert len(err.strip().splitlines()) == 1


def test_a_reidentification_table_reverses_every_table_and_stays_away_from_them(
        tmp_path, capsys, monkeypatch):
    from test_cli_identifiers import _leaks

    from arxpy.identifiers import reidentification

    monkeypatch.setattr(reidentification, "SCRYPT_N", 2**10)  # the same code, cheaper
    trusted, out = tmp_path / "trusted", tmp_path / "out"
    trusted.mkdir()
    (trusted / "pass.txt").write_text("a passphrase long enough\n")
    (trusted / "short.txt").write_text("too short\n")
    args = ["anonymize", "--data", f"{tmp_path / 'clinic.db'}:people", *_clinic(tmp_path),
            "--k", "3", "--link", f"visits={tmp_path / 'clinic.db'}:visits", "--link-column",
            PID, "--replace-random", "ward", "--output-dir", str(out),
            "--report", str(tmp_path / "r.json")]
    for table, passphrase, message in [
            (out / "keys" / "t.bin", "pass.txt", "beside the release"),  # inside the release
            (trusted / "t.bin", "short.txt", "at least 12 characters"),
            (trusted / "short.txt", "pass.txt", "never overwritten")]:
        code = main([*args, "--reidentification-table", str(table),
                     "--passphrase-file", str(trusted / passphrase)])
        assert code == 2 and message in capsys.readouterr().err and not out.exists()
    assert main([*args, "--reidentification-table", str(trusted / "t.bin"),
                 "--passphrase-file", str(trusted / "pass.txt")]) == 0
    table = reidentification.read_table(trusted / "t.bin", "a passphrase long enough")
    # One column per attribute: the link column's pseudonyms once, though both tables
    # hold them; every pair the key's HMAC (recomputed here) gives.
    secret = (tmp_path / "k.key").read_bytes()
    ids, wards = table.columns
    assert (ids.attribute, wards.attribute) == (PID, "ward") and len(ids.pseudonyms) == 6
    assert all(pseudonym(secret, o) == p for p, o in zip(ids.pseudonyms, ids.originals,
                                                          strict=True))
    assert sorted(wards.originals) == ["A", "B"]
    # Every released pseudonym maps back to its original, in every table.
    for name in ("people", "visits"):
        assert main(["reidentify", str(trusted / "t.bin"), "--passphrase-file",
                     str(trusted / "pass.txt"), "--release", str(out / f"{name}.csv"),
                     "--output", str(trusted / f"{name}.csv")]) == 0
    back = read(trusted / "visits.csv")
    source = [(f"P{i}", w) for i in range(6) for w in ("A", "B")[:1 + i % 2]]
    assert sorted(zip(back[PID], back["ward"], strict=True)) == sorted(source)
    assert sorted(read(trusted / "people.csv")[PID]) == [f"P{i}" for i in range(6)]
    report = json.loads((tmp_path / "r.json").read_text())["identifiers"]
    assert report["reidentification_table"]["attributes"] == [PID, "ward"]
    assert report["reidentification_table"]["entries"] == 8
    # Neither the key nor an original identifier in the release, its report or output.
    texts = [p.read_text() for p in out.iterdir()] + [(tmp_path / "r.json").read_text(),
                                                      capsys.readouterr().out]
    assert sorted(p.name for p in out.iterdir()) == ["people.csv", "visits.csv"]
    assert not any(_leaks(text, secret, set(ids.originals)) for text in texts)
    with pytest.raises(ConfigurationError, match="passphrase is wrong"):  # sealed
        reidentification.read_table(trusted / "t.bin", "another passphrase, long")
