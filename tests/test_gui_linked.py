"""File › Release linked tables… (issue 32): the project's table as the patient table,
an admissions file linked to it, pseudonyms and date shifts from the project's plan and
the session's key; the exported tables are audited by the independent checker, and the
re-identification table's pairs are recomputed with Python's ``hmac``."""

from __future__ import annotations

import hashlib
import hmac
import json

import audit as anonymity
import pandas as pd
from linked_fixtures import PASSPHRASE, ask_for_table, ward_project
from PySide6.QtCore import Qt

from arxpy.gui.linked_dialog import LinkedTablesDialog
from arxpy.identifiers import PSEUDONYM, IdentifierPlan, PseudonymKey, Treatment
from arxpy.linked_example import LINK_COLUMN, QUASI_IDENTIFIERS, write_linked_example
from arxpy.workflows.session import Session

PATIENTS = 200
SECRET = b"w" * 32


def _session(folder) -> Session:
    """The linked example's patients as the project, the link column pseudonymized."""
    write_linked_example(folder, patients=PATIENTS)
    data = pd.read_csv(folder / "patients.csv", dtype=str, keep_default_na=False)
    session = Session()
    session.set_project(ward_project(data, PATIENTS, name="Ward"),
                        folder / "patients.arxpy")
    session.set_identifier_plan(IdentifierPlan((Treatment(LINK_COLUMN, PSEUDONYM),)))
    session.use_key(PseudonymKey(SECRET))
    return session


def _dialog(qtbot, folder, session=None) -> LinkedTablesDialog:
    """The dialog with the admissions added, the output folder ``folder / "release"``."""
    dialog = LinkedTablesDialog(session or _session(folder))
    qtbot.addWidget(dialog)
    dialog.add_table(str(folder / "admissions.csv"))
    dialog.link_column.setCurrentText(LINK_COLUMN)
    dialog.output_edit.setText(str(folder / "release"))
    return dialog


def test_the_dialog_releases_both_tables_5_anonymous_per_patient(qtbot, tmp_path):
    session = _session(tmp_path)
    dialog = LinkedTablesDialog(session)
    qtbot.addWidget(dialog)
    assert dialog.run() is None and "Add an event table" in dialog.status.text()
    dialog.add_table(str(tmp_path / "admissions.csv"))
    dialog.link_column.setCurrentText(LINK_COLUMN)
    offered = [dialog.aggregates.item(i).text() for i in range(dialog.aggregates.count())]
    assert offered == ["admissions per patient", "first year of Admission date",
                       "first year of Discharge date", "set of Diagnosis"]  # as Configure
    dialog.aggregates.item(0).setCheckState(Qt.CheckState.Checked)
    for i in range(dialog.shifted.count()):  # both date columns
        dialog.shifted.item(i).setCheckState(Qt.CheckState.Checked)
    dialog.output_edit.setText(str(tmp_path))
    assert dialog.run() is None and "already holds" in dialog.status.text()
    dialog.output_edit.setText(str(tmp_path / "release"))
    dialog.run()
    qtbot.waitUntil(lambda: dialog.outcome is not None, timeout=30_000)
    assert "Anonymous" in dialog.status.text()
    patients = pd.read_csv(tmp_path / "release" / "patients.csv", dtype=str)
    events = pd.read_csv(tmp_path / "release" / "admissions.csv", dtype=str)
    source = pd.read_csv(tmp_path / "admissions.csv", dtype=str)
    view = patients.assign(events=patients[LINK_COLUMN].map(events.groupby(LINK_COLUMN).size()))
    assert anonymity.k_anonymity(view, [*QUASI_IDENTIFIERS, "events"]) >= 5
    assert set(events[LINK_COLUMN]) <= set(patients[LINK_COLUMN])
    assert not set(events[LINK_COLUMN]) & set(source[LINK_COLUMN])
    assert not set(events["Admission date"]) <= set(source["Admission date"])  # shifted
    report = json.loads((tmp_path / "release" / "report.json").read_text())
    assert report["linked"]["patients"]["suppressed"] == PATIENTS - len(patients)
    assert report["linked"]["tables"][1]["released_records"] == len(events)
    assert "report.json" in dialog.status.text()


def test_the_dialog_writes_a_reidentification_table_away_from_the_release_only(
        qtbot, tmp_path, monkeypatch):
    from arxpy.identifiers import reidentification

    monkeypatch.setattr(reidentification, "SCRYPT_N", 2**10)  # the same code, cheaper
    dialog, release = _dialog(qtbot, tmp_path), tmp_path / "release"
    assert dialog.height() <= 660  # opens within a 720-pixel screen, the option shown
    assert f"original value of {LINK_COLUMN}" in dialog.reidentification.note.text()
    earlier = tmp_path / "earlier.arxreid"
    earlier.write_text("an earlier table")
    for reason, table, again in [
            ("outside the release's folder", release / "keys" / "t.arxreid", PASSPHRASE),
            ("never overwritten", earlier, PASSPHRASE),
            ("passphrases differ", tmp_path / "t.arxreid", PASSPHRASE + "?")]:
        ask_for_table(dialog.reidentification, table, again)
        assert dialog.run() is None and reason in dialog.status.text(), reason
    dialog.reidentification.passphrase.setText("too short")
    dialog.reidentification.again.setText("too short")
    assert dialog.run() is None and "at least 12 characters" in dialog.status.text()
    assert dialog.reidentification.passphrase.text() == "too short"  # kept until it runs
    assert not release.exists() and earlier.read_text() == "an earlier table"
    # A table that cannot be written (its folder is missing) fails the job last, and
    # the tables and the report written before it are removed with the folder.
    ask_for_table(dialog.reidentification, tmp_path / "gone" / "t.arxreid")
    dialog.run()
    qtbot.waitUntil(lambda: not dialog.job.running, timeout=30_000)
    assert "Cannot write the re-identification table" in dialog.status.text()
    assert not release.exists()
    table = tmp_path / "trusted" / "t.arxreid"
    table.parent.mkdir()
    ask_for_table(dialog.reidentification, table)
    dialog.run()
    assert not dialog.reidentification.passphrase.text()  # emptied as the job starts
    assert not dialog.reidentification.again.text()
    qtbot.waitUntil(lambda: dialog.outcome is not None, timeout=30_000)
    assert f"the re-identification table to {table}" in dialog.status.text()
    assert PASSPHRASE not in dialog.status.text()
    pairs = reidentification.read_table(table, PASSPHRASE)
    source = set(pd.read_csv(tmp_path / "patients.csv", dtype=str)[LINK_COLUMN])
    for name in ("patients.csv", "admissions.csv"):
        for pseudonym in set(pd.read_csv(release / name, dtype=str)[LINK_COLUMN]):
            ((attribute, original),) = pairs.originals_of(pseudonym)
            assert attribute == LINK_COLUMN and original in source
            assert hmac.new(SECRET, b"arxpy pseudonym v1\0default\0" + original.encode(),
                            hashlib.sha256).hexdigest()[:16] == pseudonym
    assert sorted(p.name for p in release.iterdir()) == ["admissions.csv", "patients.csv",
                                                         "report.json"]


def test_no_table_is_offered_without_a_pseudonym_or_random_replacement(qtbot, tmp_path):
    session = _session(tmp_path)
    session.set_identifier_plan(IdentifierPlan())
    assert _dialog(qtbot, tmp_path, session).reidentification is None
