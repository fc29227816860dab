"""Render linked tables in the project (issue 32) to PNG.

``QT_QPA_PLATFORM=offscreen python -m screenshots.linked [DIR]`` writes ``linked-*.png``
(default DIR /tmp/arxpy-shots) at 1280x720 and 1920x1080 (``-1080p``): the import
wizard's linked-tables page over the window, Configure with the linked tables panel,
Explore and Risk judging the patient-level view of the linked example (800
patients, their admissions, 5-anonymity with the number of admissions and the set of
diagnoses, ticked on the wizard's page), the linked export's dialog with the
re-identification table asked for (``linked-export``, refusing a file inside the
release's folder; ``linked-export-running``, its progress while the job writes), and
File › Release linked tables… on the same patients as a project without linked tables,
the table asked for with passphrases that differ (``linked-release``, refused).
"""

from __future__ import annotations

from pathlib import Path

from arxpy.gui.rendering import save_png, wait_until
from screenshots import dialogs_over_window, example_window, render_main

PATIENTS = 800
PASSPHRASE = "correct horse battery staple"


def render(output: Path, size: tuple[int, int], suffix: str) -> list[Path]:
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication, QWizard

    from arxpy.gui.import_wizard import ImportWizard
    from arxpy.linked_example import LINK_COLUMN, write_linked_example

    app, window, scratch = example_window(size)
    write_linked_example(scratch, patients=PATIENTS)
    wizard = ImportWizard(window)
    wizard.show()
    wizard.source_page.path.setText(str(scratch / "patients.csv"))
    wizard.next()
    wizard.next()
    wizard.next()
    wizard.linked_page.add_files([str(scratch / "admissions.csv")])
    wizard.linked_page.link_column.setCurrentText(LINK_COLUMN)
    _tick(wizard.linked_page.aggregates, "set of Diagnosis")
    app.processEvents()
    written = [dialogs_over_window(window, size, [(wizard, QPoint(0, 0))],
                                   output / f"linked-import{suffix}.png")]
    window.state.discard_changes()
    wizard.button(QWizard.WizardButton.FinishButton).click()
    window.set_project(wizard.project, None)
    _configure(window, scratch)
    app.processEvents()
    written.append(save_png(window, output / f"linked-configure{suffix}.png"))
    window.anonymize()
    wait_until(lambda: window.worker is None, what="the search")
    ready = {1: lambda: window.explore.list.model.nodes is not None,
             3: lambda: window.risk.analysis("output") is not None and not window.risk.busy}
    for index, name in ((1, "explore"), (3, "risk")):
        window.show_perspective(index)
        wait_until(ready[index], what=f"the {name} perspective")
        QApplication.processEvents()
        written.append(save_png(window, output / f"linked-{name}{suffix}.png"))
    written += _export_dialog(window, size, scratch, output, suffix)
    written.append(_release_dialog(window, size, scratch,
                                   output / f"linked-release{suffix}.png"))
    window.state.discard_changes()
    window.close()
    return written


def _configure(window, scratch: Path) -> None:
    """Roles, hierarchies, a key, the count and the diagnoses judged, both dates shifted,
    5-anonymity."""
    from arxpy.data.definition import AttributeType
    from arxpy.hierarchy.io import read_hierarchy
    from arxpy.linked_example import QUASI_IDENTIFIERS
    from arxpy.workflows.linked_tables import EventAggregate

    state = window.state
    window.keys.create(scratch / "ward.key")
    state.set_attribute("County", type=AttributeType.IDENTIFYING)
    for name in QUASI_IDENTIFIERS:
        state.set_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
        state.set_hierarchy(name, read_hierarchy(scratch / "hierarchies" / f"{name}.csv"))
    linked = state.linked
    state.set_linked(type(linked)(linked.link_column,
                                  (EventAggregate("admissions", "count"),
                                   EventAggregate("admissions", "set", "Diagnosis")),
                                  ("Admission date", "Discharge date"), 30))
    state.update_settings(privacy_models=[{"kind": "k-anonymity", "k": 5}],
                          suppression_limit=0.05)
    window.configure.select_attribute("Age")


def _export_dialog(window, size: tuple[int, int], scratch: Path, output: Path,
                   suffix: str) -> list[Path]:
    """File › Export's dialog: the folder, the table asked for inside it (refused); then
    as it shows a running export (the progress bar, the buttons disabled)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication

    window.projects.export_linked()
    dialog = window.projects.linked_export_dialog
    options = dialog.reidentification
    dialog.folder.setText(str(scratch / "release"))
    options.setChecked(True)
    options.path.setText(str(scratch / "release" / "trusted" / "ward.arxreid"))
    options.passphrase.setText(PASSPHRASE)
    options.again.setText(PASSPHRASE)
    dialog.export()  # refused: the table would travel with the release
    QApplication.processEvents()
    shots = [dialogs_over_window(window, size, [(dialog, QPoint(0, 0))],
                                 output / f"linked-export{suffix}.png")]
    options.request()  # the passphrase fields empty as the export starts
    dialog._set_running(True)  # as the job shows it, held still for the picture
    dialog.progress.setValue(60)
    dialog._say("Writing the linked tables…", "#555")
    QApplication.processEvents()
    shots.append(dialogs_over_window(window, size, [(dialog, QPoint(0, 0))],
                                     output / f"linked-export-running{suffix}.png"))
    dialog._set_running(False)
    dialog.close()
    return shots


def _release_dialog(window, size: tuple[int, int], scratch: Path, path: Path) -> Path:
    """File › Release linked tables… with the admissions, the count judged, both dates
    shifted and the re-identification table asked for (passphrases differ: refused).
    Its patient table is a project without linked tables, as the menu offers it for."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication

    from arxpy.gui.linked_dialog import LinkedTablesDialog
    from arxpy.linked_example import LINK_COLUMN
    from arxpy.project import Project
    from arxpy.workflows.linked_project import with_linked
    from arxpy.workflows.session import Session

    state, session = window.state, Session()
    session.set_project(Project(state.data, state.definition, state.hierarchies,
                                with_linked(state.settings, None), name="patients"))
    session.set_identifier_plan(state.identifier_plan)
    session.use_key(state.pseudonym_key)
    dialog = LinkedTablesDialog(session, window)
    dialog.add_table(str(scratch / "admissions.csv"))
    dialog.link_column.setCurrentText(LINK_COLUMN)
    _tick(dialog.aggregates, "admissions per patient")
    for i in range(dialog.shifted.count()):
        _tick(dialog.shifted, dialog.shifted.item(i).text())
    dialog.output_edit.setText(str(scratch / "release"))
    options = dialog.reidentification
    options.setChecked(True)
    options.path.setText(str(scratch / "trusted" / "ward.arxreid"))
    options.passphrase.setText(PASSPHRASE)
    options.again.setText(PASSPHRASE + "!")
    dialog.show()
    dialog.run()  # refused: the two passphrases differ
    QApplication.processEvents()
    shot = dialogs_over_window(window, size, [(dialog, QPoint(0, 0))], path)
    dialog.close()
    return shot


def _tick(items, text: str) -> None:
    from PySide6.QtCore import Qt

    for i in range(items.count()):
        if items.item(i).text() == text:
            items.item(i).setCheckState(Qt.CheckState.Checked)


def main(argv: list[str] | None = None) -> int:
    return render_main(render, argv)


if __name__ == "__main__":
    raise SystemExit(main())
