"""Linked tables in the project (issue 32): saved with it, edited with undo, and judged
through the session on the patient-level view; without Qt.

The released tables are audited by the independent ``tests/audit.py`` on the patient
view rebuilt here with pandas (rows of the event table counted per pseudonym).
"""

from __future__ import annotations

import html
import json
import zipfile

import audit as anonymity
import pytest
from linked_fixtures import ward_project

from arxpy.engine import anonymize
from arxpy.errors import ConfigurationError, ProjectError
from arxpy.identifiers import PSEUDONYM, IdentifierPlan, PseudonymKey, Treatment
from arxpy.linked_example import LINK_COLUMN, QUASI_IDENTIFIERS, generate_linked_example
from arxpy.project import Project
from arxpy.workflows.linked_project import LinkedSettings, linked_of, offered_aggregates
from arxpy.workflows.linked_tables import EventAggregate
from arxpy.workflows.session import Session

PATIENTS = 150
COUNT = EventAggregate("admissions", "count")
CODES = EventAggregate("admissions", "set", "Diagnosis")


@pytest.fixture(scope="module")
def tables():
    return generate_linked_example(PATIENTS)


def _project(tables) -> Project:
    return ward_project(tables[0], PATIENTS)


def _session(tables) -> Session:
    session = Session()
    session.set_project(_project(tables))
    session.set_identifier_plan(IdentifierPlan((Treatment(LINK_COLUMN, PSEUDONYM),)))
    session.use_key(PseudonymKey(b"k" * 32))
    return session


def test_event_tables_and_their_choices_round_trip_through_the_project_file(tables, tmp_path):
    project = _project(tables)
    project.events = {"admissions": tables[1]}
    linked = LinkedSettings(LINK_COLUMN, (COUNT, CODES), ("Admission date",), 20)
    project.settings["linked"] = linked.to_dict()
    loaded = Project.load(project.save(tmp_path / "ward.arxpy"))
    assert loaded == project and loaded.events["admissions"].equals(tables[1])
    assert linked_of(loaded.settings) == linked
    older = _project(tables).save(tmp_path / "older.arxpy")  # no events: as before
    with zipfile.ZipFile(older) as archive:
        assert "events" not in json.loads(archive.read("project.json"))
    assert Project.load(older).events == {}


def test_a_manifest_naming_events_outside_their_folder_is_refused(tables, tmp_path):
    project = _project(tables)
    project.events = {"admissions": tables[1]}
    path = project.save(tmp_path / "ward.arxpy")
    with zipfile.ZipFile(path) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    manifest = json.loads(members["project.json"])
    manifest["events"] = {"admissions": "data.csv"}
    members["project.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, payload in members.items():
            archive.writestr(name, payload)
    with pytest.raises(ProjectError, match="events.admissions"):
        Project.load(path)


def test_adding_linked_tables_is_one_undoable_step(tables):
    session = _session(tables)
    seen = []
    session.listen(lambda name, *args: seen.append(name))
    linked = LinkedSettings(LINK_COLUMN, (COUNT,))
    session.set_linked_tables({"admissions": tables[1]}, linked, "Add linked table")
    assert "linked" in seen and session.linked == linked and list(session.events) == ["admissions"]
    session.set_linked(LinkedSettings(LINK_COLUMN, (), ("Admission date",)))
    session.history.undo()
    assert session.linked == linked
    session.history.undo()
    assert session.events == {} and session.linked is None
    session.history.redo()
    assert list(session.events) == ["admissions"] and session.linked == linked


def test_the_session_judges_the_patient_view_and_releases_every_table(tables):
    session = _session(tables)
    linked = LinkedSettings(LINK_COLUMN, (COUNT, CODES), ("Admission date", "Discharge date"))
    session.set_linked_tables({"admissions": tables[1]}, linked, "Add linked table")
    frame, definition = session.release_inputs()
    hierarchies = session.release_hierarchies()
    assert len(frame) == PATIENTS and "admissions:count" in definition.quasi_identifiers
    assert "admissions:count" in hierarchies and CODES.name in hierarchies
    assert definition[CODES.name].data_type.kind.value == "set"
    result = anonymize(frame, definition, hierarchies, session.config())
    session.set_result(result, frame)
    released = session.linked_release(session.current_release())
    patients, events = released.tables["ward"], released.tables["admissions"]
    view = patients.assign(events=patients[LINK_COLUMN].map(
        events.groupby(LINK_COLUMN).size()).fillna(0))
    assert anonymity.k_anonymity(view, [*QUASI_IDENTIFIERS, "events", CODES.name]) >= 5
    assert "Diagnosis" not in events.columns  # released as the judged set only
    assert set(events[LINK_COLUMN]) <= set(patients[LINK_COLUMN])
    assert not set(events[LINK_COLUMN]) & set(tables[1][LINK_COLUMN])  # pseudonyms
    assert not set(events["Admission date"]) <= set(tables[1]["Admission date"])  # shifted


def test_adding_an_event_table_makes_the_result_stale_until_undone(tables):
    session = _session(tables)
    session.set_linked_tables({"admissions": tables[1]}, LinkedSettings(LINK_COLUMN, (COUNT,)),
                              "Add linked table")
    frame, definition = session.release_inputs()
    session.set_result(anonymize(frame, definition, session.release_hierarchies(),
                                 session.config()), frame)
    session.set_linked_tables({"admissions": tables[1], "again": tables[1]}, session.linked,
                              "Add linked table")
    assert session.stale_changes() == ["linked tables"]
    session.history.undo()
    assert not session.stale and session.linked_release(session.current_release())


def test_the_view_needs_the_link_column_pseudonymized(tables):
    session = _session(tables)
    session.set_identifier_plan(IdentifierPlan())
    session.set_linked_tables({"admissions": tables[1]}, LinkedSettings(LINK_COLUMN),
                              "Add linked table")
    with pytest.raises(ConfigurationError, match="must be a keyed pseudonym"):
        session.release_inputs()


def test_offered_aggregates_are_the_count_the_first_years_and_the_sets_of_codes(tables):
    offered = [a.name for a in offered_aggregates("admissions", tables[1], LINK_COLUMN)]
    assert offered == ["admissions:count", "admissions:first-year:Admission date",
                       "admissions:first-year:Discharge date", "admissions:set:Diagnosis"]


def test_the_release_report_names_the_linked_tables_but_no_identifier(tables):
    from arxpy.engine.export import release_report_html

    session = _session(tables)
    linked = LinkedSettings(LINK_COLUMN, (COUNT,), ("Admission date",))
    session.set_linked_tables({"admissions": tables[1]}, linked, "Add linked table")
    frame, definition = session.release_inputs()
    result = anonymize(frame, definition, session.release_hierarchies(), session.config())
    session.set_result(result, frame)
    current = session.current_release()
    text = html.unescape(release_report_html(current.release(),
                                             identifiers=current.identifiers))
    assert "Linked tables" in text and f"linked by '{LINK_COLUMN}'" in text
    assert f"ward ({PATIENTS:,} rows)" in text and "admissions per patient" in text
    assert not any(str(value) in text for value in tables[0][LINK_COLUMN])
