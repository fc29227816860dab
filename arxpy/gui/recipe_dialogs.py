"""File › Export recipe… and File › Apply recipe to new data… (issue 35).

Widgets only: the recipe is built and written by :func:`arxpy.recipes.export.export_recipe`
(the CLI's :func:`~arxpy.recipes.build_recipe`), and a replay runs
:func:`arxpy.recipes.replay_files.replay_files` as a background job through a
:class:`ViewJob`. A refused replay lists every reason; one that passes names the files
it wrote.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from arxpy.errors import ArxpyError
from arxpy.gui.folders import path_row, pick_path
from arxpy.gui.plain_text import plain_label
from arxpy.gui.workers import JobDialog, JobProgressBar, JobWorker
from arxpy.recipes.export import export_recipe, hierarchy_folder
from arxpy.recipes.recipe import FIXED, SEARCH
from arxpy.recipes.replay_files import ReplayOutcome, ReplayRequest, replay_files
from arxpy.workflows.current_release import CurrentRelease

RECIPE_FILTER = "arxpy recipes (*.json);;All files (*)"
DATA_FILTER = "CSV files (*.csv *.tsv *.txt);;All files (*)"
CERTIFICATE_FILTER = "PDF certificate (*.pdf);;HTML page (*.html);;JSON (*.json)"


def wrapped(text: str) -> QLabel:
    label = plain_label(QLabel(text))
    label.setWordWrap(True)
    return label


class ExportRecipeDialog(QDialog):
    """Where to write the current release's recipe, what replay does, and whether the
    hierarchies go beside it."""

    def __init__(self, current: CurrentRelease, definition: Any,
                 parent: QWidget | None = None, *, preset: Any = None,
                 data: Any = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export recipe")
        self._current, self._definition = current, definition
        self._preset, self._data = preset, data  # the applied policy preset's rules
        self.written: list[Path] = []
        lattice = current.release().transformation is not None
        intro = wrapped(
            f"A recipe holds everything that decided {current.label} (roles, hierarchies "
            "by hash, identifier treatments, method and models, the transformation) and no "
            "data. 'arxpy replay' or File › Apply recipe to new data applies it to the next "
            "extract, or refuses it with the reasons.")
        self.path_edit, path_widget = path_row("Choose…", self._choose)
        self.fixed = QRadioButton("Apply this transformation")
        self.search = QRadioButton("Search again for the best transformation")
        self.fixed.setChecked(True)
        modes = QWidget()
        box = QVBoxLayout(modes)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.fixed)
        box.addWidget(self.search)
        modes.setVisible(lattice)  # another method runs again with its seed
        self.with_hierarchies = QCheckBox(
            "Write the hierarchies beside it (RECIPE-hierarchies folder)")
        self.with_hierarchies.setChecked(bool(current.hierarchies))
        self.with_hierarchies.setEnabled(bool(current.hierarchies))
        note = wrapped("Hierarchies list values of the data: keep their folder with the "
                       "recipe, protected like the data. The recipe file itself holds none.")
        note.setEnabled(False)
        form = QFormLayout()
        form.addRow("Recipe file:", path_widget)
        if lattice:
            form.addRow("On new data:", modes)
        form.addRow("", self.with_hierarchies)
        form.addRow("", note)
        self.status = wrapped("")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addStretch(1)
        layout.addWidget(buttons)
        self.resize(620, self.heightForWidth(620))

    def _choose(self) -> None:
        path = pick_path(self, "exports", True, "Write the recipe", RECIPE_FILTER,
                         "recipe.json")
        if path:
            self.path_edit.setText(path)

    def save(self) -> bool:
        """Write the recipe (and hierarchies); True and the dialog closes if it worked."""
        text = self.path_edit.text().strip()
        if not text:
            self.status.setText("Choose where to write the recipe first.")
            return False
        path = Path(text) if Path(text).suffix else Path(text + ".json")
        current = self._current
        release = current.release()
        # A lattice release keeps its configuration as parameters; another method's run
        # is run again with its declared parameters (as `arxpy run --recipe-out` does).
        parameters = None if release.transformation is not None or current.run is None \
            else current.run.method.get_params()
        try:
            _, self.written = export_recipe(
                path, self._definition, current.hierarchies, release,
                mode=SEARCH if self.search.isChecked() else FIXED,
                identifiers=current.identifiers, parameters=parameters,
                with_hierarchies=self.with_hierarchies.isChecked(),
                preset=self._preset, data=self._data)
        except (ArxpyError, OSError) as exc:
            self.status.setText(f"Not written: {exc}")
            return False
        self.accept()
        return True


class ApplyRecipeDialog(JobDialog):
    """Choose a recipe, a new extract and the outputs; replay in the background; show
    the refusal's reasons or what was written."""

    def __init__(self, key: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Apply recipe to new data")
        self._key = key
        self.outcome: ReplayOutcome | None = None
        self.job.progress.connect(self._progress)
        self.job.finished.connect(self._finished)
        self.job.failed.connect(lambda message: self.status.setText(f"Failed: {message}"))
        self.job.cancelled.connect(lambda: self.status.setText("Cancelled."))
        intro = wrapped(
            "Applies a recipe to a new extract with the same columns: the same roles, "
            "hierarchies, treatments and models, at the recipe's transformation (or "
            "searching again, as it says). An extract that breaks the recipe is refused "
            "with every reason, and nothing is written but the report.")
        self.recipe_edit, recipe_row = path_row("Choose…", self._choose_recipe)
        self.data_edit, data_row = path_row("Choose…", self._choose_data)
        self.hierarchies_edit = QLineEdit()
        self.output_edit, output_row = path_row("Choose…", self._choose_output)
        self.report_edit = QLineEdit()
        self.certificate_edit = QLineEdit()
        self.signing_key_edit, key_row = path_row("Choose…", self._choose_signing_key)
        form = QFormLayout()
        form.addRow("Recipe:", recipe_row)
        form.addRow("New data:", data_row)
        form.addRow("Hierarchies folder:", self.hierarchies_edit)
        form.addRow("Output file:", output_row)
        form.addRow("Report (JSON):", self.report_edit)
        self.certificate_edit.setPlaceholderText("optional: CERT.pdf, .html or .json, "
                                                 "signed with the key below")
        form.addRow("Certificate:", self.certificate_edit)
        form.addRow("Signing key:", key_row)
        self.progress = JobProgressBar(textVisible=True)
        self.status = wrapped("Choose the recipe, the new data and the output file.")
        self.problems = QListWidget()  # plain text items: values stay text
        self.problems.setWordWrap(True)
        self.problems.hide()
        self.job_buttons("Apply")
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.problems, 1)
        layout.addWidget(self.buttons)
        self.resize(680, self.heightForWidth(680))

    # -- choosing files ----------------------------------------------------------------

    def set_recipe(self, path: str) -> None:
        """The recipe, with the defaults it suggests: its hierarchies folder beside it."""
        self.recipe_edit.setText(path)
        if not self.hierarchies_edit.text():
            folder = hierarchy_folder(path)
            self.hierarchies_edit.setText(str(folder if folder.is_dir() else Path(path).parent))

    def set_data(self, path: str) -> None:
        """The new extract; output and report default to names beside it."""
        self.data_edit.setText(path)
        for edit, suffix in ((self.output_edit, "-released.csv"),
                             (self.report_edit, "-report.json")):
            if not edit.text():
                edit.setText(self._beside_data(suffix))

    def set_signing_key(self, path: str) -> None:
        """The signing key; a PDF certificate beside the data is suggested with it."""
        self.signing_key_edit.setText(path)
        if not self.certificate_edit.text() and self.data_edit.text():
            self.certificate_edit.setText(self._beside_data("-certificate.pdf"))

    def _beside_data(self, suffix: str) -> str:
        source = Path(self.data_edit.text())
        return str(source.with_name(source.stem + suffix))

    def _choose_recipe(self) -> None:
        path = pick_path(self, "exports", False, "Recipe to apply", RECIPE_FILTER)
        if path:
            self.set_recipe(path)

    def _choose_data(self) -> None:
        path = pick_path(self, "data", False, "New extract", DATA_FILTER)
        if path:
            self.set_data(path)

    def _choose_output(self) -> None:
        path = pick_path(self, "exports", True, "Write the released data", DATA_FILTER,
                         Path(self.output_edit.text()).name)
        if path:
            self.output_edit.setText(path)

    def _choose_signing_key(self) -> None:
        path = pick_path(self, "keys", False, "Signing key (arxpy keygen --signing)",
                         "All files (*)")
        if path:
            self.set_signing_key(path)

    # -- the replay ----------------------------------------------------------------------

    def request(self) -> ReplayRequest | str:
        """What the fields ask for, or why they cannot be run yet."""
        text = {name: edit.text().strip() for name, edit in (
            ("recipe", self.recipe_edit), ("data", self.data_edit),
            ("output", self.output_edit), ("hierarchies", self.hierarchies_edit),
            ("report", self.report_edit), ("certificate", self.certificate_edit),
            ("signing_key", self.signing_key_edit))}
        if not (text["recipe"] and text["data"] and text["output"]):
            return "Choose the recipe, the new data and the output file first."
        inputs = {Path(text[n]).resolve() for n in ("recipe", "data")}
        outputs = [text[n] for n in ("output", "report") if text[n]]
        if any(Path(p).resolve() in inputs for p in outputs):
            return "An output would overwrite the recipe or the data; choose another name."
        if bool(text["certificate"]) != bool(text["signing_key"]):
            return "A certificate needs a signing key: choose both, or clear both."

        def path(name: str) -> Path | None:
            return Path(text[name]) if text[name] else None

        return ReplayRequest(Path(text["recipe"]), Path(text["data"]), Path(text["output"]),
                             hierarchies=path("hierarchies"), report=path("report"),
                             certificate=path("certificate"),
                             signing_key=path("signing_key"), key=self._key)

    def run(self) -> JobWorker | None:
        """Start the replay (None if a field is missing or one is running)."""
        if self.job.running:
            return None
        request = self.request()
        if isinstance(request, str):
            self.status.setText(request)
            return None
        self.problems.clear()
        self.problems.hide()
        self.status.setText("Applying the recipe…")
        return self.job.start(replay_files, request=request)

    def _set_running(self, running: bool) -> None:
        super()._set_running(running)
        if running:
            self.progress.setValue(0)

    def _progress(self, percent: int, message: str) -> None:
        self.progress.setValue(percent)
        self.status.setText(message)

    def _finished(self, outcome: ReplayOutcome) -> None:
        self.outcome = outcome
        self.progress.setValue(100)
        if outcome.refused:
            count = len(outcome.problems)
            self.status.setText(f"Refused: the new data break the recipe ({count} problem"
                                f"{'' if count == 1 else 's'}); no release was written.")
            self.problems.addItems(outcome.problems)
            self.problems.show()
            return
        release = outcome.release
        released = release.records - release.suppressed_records
        self.status.setText(
            f"Released {released:,} of {release.records:,} records. "
            f"{release.verify().headline} Written: "
            + ", ".join(p.name for p in outcome.written) + ".")
