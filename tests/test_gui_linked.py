"""File › Release linked tables… (issue 32): the project's table as the patient table,
an admissions file linked to it, pseudonyms and date shifts from the project's plan and
the session's key; the exported tables are audited by the independent checker."""

from __future__ import annotations

import json

import audit as anonymity
import pandas as pd
from linked_fixtures import ward_project
from PySide6.QtCore import Qt

from arxpy.gui.linked_dialog import LinkedTablesDialog
from arxpy.identifiers import PSEUDONYM, IdentifierPlan, PseudonymKey, Treatment
from arxpy.linked_example import LINK_COLUMN, QUASI_IDENTIFIERS, write_linked_example
from arxpy.workflows.session import Session

PATIENTS = 200


def _session(folder) -> Session:
    """The linked example's patients as the project, the link column pseudonymized."""
    write_linked_example(folder, patients=PATIENTS)
    data = pd.read_csv(folder / "patients.csv", dtype=str, keep_default_na=False)
    session = Session()
    session.set_project(ward_project(data, PATIENTS, name="Ward"),
                        folder / "patients.arxpy")
    session.set_identifier_plan(IdentifierPlan((Treatment(LINK_COLUMN, PSEUDONYM),)))
    session.use_key(PseudonymKey(b"w" * 32))
    return session


def test_the_dialog_releases_both_tables_5_anonymous_per_patient(qtbot, tmp_path):
    session = _session(tmp_path)
    dialog = LinkedTablesDialog(session)
    qtbot.addWidget(dialog)
    assert dialog.run() is None and "Add an event table" in dialog.status.text()
    dialog.add_table(str(tmp_path / "admissions.csv"))
    dialog.link_column.setCurrentText(LINK_COLUMN)
    offered = [dialog.aggregates.item(i).text() for i in range(dialog.aggregates.count())]
    assert offered == ["admissions:count", "admissions:first-year:Admission date",
                       "admissions:first-year:Discharge date", "admissions:set:Diagnosis"]
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
