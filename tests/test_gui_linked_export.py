"""The desktop's linked export (issue 32): a folder for every table and, on request, the
encrypted re-identification table for a trusted party, away from that folder.

The ward project (tests/linked_fixtures.py) with its admissions, the link column
pseudonymised, anonymized as tests/test_linked_project.py does; the table is opened with
``read_table`` and its pairs checked against pseudonyms recomputed with Python's
``hmac`` (docs/identifiers.md), not with the code under test.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import logging

import pandas as pd
import pytest
from linked_fixtures import PASSPHRASE, ask_for_table, ward_project

from arxpy.engine import anonymize
from arxpy.gui.linked_export_dialog import LinkedExportDialog
from arxpy.identifiers import PSEUDONYM, IdentifierPlan, PseudonymKey, Treatment
from arxpy.linked_example import LINK_COLUMN, generate_linked_example
from arxpy.workflows.linked_project import LinkedSettings
from arxpy.workflows.linked_tables import EventAggregate

PATIENTS = 100
SECRET = b"k" * 32


@pytest.fixture(scope="module")
def tables():
    return generate_linked_example(PATIENTS)


@pytest.fixture
def exported(window, tables, monkeypatch):
    """The window with the ward's linked release anonymized, and its export dialog."""
    from arxpy.identifiers import reidentification

    monkeypatch.setattr(reidentification, "SCRYPT_N", 2**10)  # the same code, cheaper
    state = window.state
    state.set_project(ward_project(tables[0], PATIENTS))
    state.set_identifier_plan(IdentifierPlan((Treatment(LINK_COLUMN, PSEUDONYM),)))
    state.use_key(PseudonymKey(SECRET))
    state.set_linked_tables({"admissions": tables[1]}, LinkedSettings(
        LINK_COLUMN, (EventAggregate("admissions", "count"),)), "Add linked table")
    frame, definition = state.release_inputs()
    state.set_result(anonymize(frame, definition, state.release_hierarchies(),
                               state.config()), frame)
    assert window.projects.export_linked()  # File › Export opens the dialog
    return window.projects.linked_export_dialog


def _pseudonym(original: str) -> str:
    return hmac.new(SECRET, b"arxpy pseudonym v1\0default\0" + original.encode(),
                    hashlib.sha256).hexdigest()[:16]


def _fill(dialog, folder, table, again=PASSPHRASE) -> None:
    dialog.folder.setText(str(folder))
    ask_for_table(dialog.reidentification, table, again)


def test_refusals_write_nothing_and_no_table_is_offered_without_pseudonyms(
        exported, window, tmp_path):
    dialog, release = exported, tmp_path / "release"
    earlier = tmp_path / "earlier.arxreid"
    earlier.write_text("an earlier table")
    refused = {"outside the release's folder": (release / "keys" / "ward.arxreid", PASSPHRASE),
               "never overwritten": (earlier, PASSPHRASE),
               "passphrases differ": (tmp_path / "ward.arxreid", PASSPHRASE + "?")}
    for reason, (table, again) in refused.items():
        _fill(dialog, release, table, again)
        dialog.export()
        assert reason in dialog.status.text(), reason
        dialog.status.clear()
    options = dialog.reidentification
    options.passphrase.setText("too short")
    options.again.setText("too short")
    dialog.export()
    assert "at least 12 characters" in dialog.status.text()
    assert not release.exists() and not (tmp_path / "ward.arxreid").exists()
    assert earlier.read_text() == "an earlier table"
    assert options.passphrase.text() == "too short"  # kept until an export starts
    release.mkdir()
    (release / "report.json").write_text("{}")  # an earlier release
    _fill(dialog, release, tmp_path / "ward.arxreid")
    dialog.export()
    assert "already holds report.json" in dialog.status.text()
    assert [p.name for p in release.iterdir()] == ["report.json"]
    assert not (tmp_path / "ward.arxreid").exists()
    dialog.close()
    # Not offered without a pseudonym or a random replacement to reverse (a mask only).
    masked = {"treatments": [{"attribute": LINK_COLUMN, "treatment": "mask"}]}
    plain = LinkedExportDialog(window.projects, dataclasses.replace(
        window.state.current_release(), identifiers=masked))
    assert plain.reidentification is None
    plain.close()


def test_the_table_reverses_every_released_pseudonym(exported, window, tmp_path, caplog,
                                                     qtbot):
    from arxpy.identifiers.reidentification import read_table

    dialog, release, table = exported, tmp_path / "release", tmp_path / "trusted.arxreid"
    note = dialog.reidentification.note.text()
    assert f"Pseudonym → original value of {LINK_COLUMN}" in note
    _fill(dialog, release, table)
    progress = []
    dialog.job.progress.connect(lambda percent, _message: progress.append(percent))
    with caplog.at_level(logging.DEBUG):
        dialog.export()
        # A job writes while the window's thread goes on: the dialog waits, buttons off.
        assert dialog.job.running and not dialog.buttons.isEnabled()
        assert not dialog.reidentification.passphrase.text()  # emptied as it starts
        qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=20_000)
    assert progress[-1] == 100 and progress == sorted(progress)
    assert sorted(p.name for p in release.iterdir()) == ["admissions.csv", "report.json",
                                                         "ward.csv"]
    reversed_ = read_table(table, PASSPHRASE)
    originals = set()
    for name in ("ward.csv", "admissions.csv"):
        for pseudonym in pd.read_csv(release / name, dtype=str)[LINK_COLUMN]:
            (pair,) = reversed_.originals_of(pseudonym)  # one column: the link column's
            assert pair[0] == LINK_COLUMN and _pseudonym(pair[1]) == pseudonym
            originals.add(pair[1])
    assert len(originals) >= PATIENTS * 0.9  # at most the 10 % suppression left out
    said = caplog.text + window.statusBar().currentMessage()
    assert str(table) in window.statusBar().currentMessage()
    for secret in (PASSPHRASE, SECRET.decode(), *originals):  # in no log or message
        assert secret not in said
    for path in tmp_path.rglob("*"):
        assert not path.is_file() or PASSPHRASE.encode() not in path.read_bytes(), path
