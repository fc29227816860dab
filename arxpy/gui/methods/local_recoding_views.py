"""The passes of a locally recoded lattice release (issue 34): one row per pass with its
transformation, the records it searched and released, its score and the granularity of
what it released, then the first pass's global release and the combined release."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QVBoxLayout, QWidget

from arxpy.analysis.local_recoding import COLUMNS, pass_figures
from arxpy.gui.methods.common import number
from arxpy.gui.methods.views import register_result_view
from arxpy.gui.utility.common import fill_table, note, read_only_table
from arxpy.gui.workers import JobWorker, view_job
from arxpy.workflows.runs import MethodRun

TITLE = "Local recoding"
GLOBAL_ONLY = ("Global recoding: every record has the levels of one transformation. Set "
               "<i>Local recoding</i> in Configure › General settings to release the "
               "suppressed records in further passes at their own levels (as ARX's "
               "optimizeIterative).")
EXPLAINED = ("Each pass searched the records the passes before it suppressed and released "
             "those its optimum keeps, at its own levels. Score: the pass's quality model on "
             "its own records. Granularity: ARX's, of the records a row covers (suppressed "
             "ones count as fully lost).")


class PassesView(QWidget):
    """The passes table of one run; computed in the background when first shown."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run = run
        self.job = view_job(self, "passes")
        self.table = read_only_table(["pass", *COLUMNS])
        passes = run.release.passes
        names = html.escape(", ".join(run.release.transformation or {}))
        self.status = note(f"{EXPLAINED} Levels of {names}." if passes is not None
                           else GLOBAL_ONLY)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        self.table.setVisible(passes is not None)
        self.figures = None

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self.run.release.passes is not None and self.figures is None \
                and not self.job.running:
            self.start()

    def start(self) -> JobWorker:
        return self.job.start(_figures_job, run=self.run, on_finished=self._show,
                              on_failed=lambda m: self.status.setText(html.escape(m)))

    @property
    def worker(self) -> JobWorker | None:
        return self.job.worker

    def _show(self, figures) -> None:
        self.figures = figures
        rows = [(str(index), _levels(row["transformation"]), f"{row['records']:,}",
                 f"{row['released']:,}", f"{row['suppressed after']:,}",
                 number(row["score"]), number(row["granularity"]))
                for index, row in zip(figures.index, figures.to_dict("records"), strict=True)]
        fill_table(self.table, rows, bold_first=True)
        for r, text in enumerate(figures["transformation"]):
            if text:  # the names with the levels, which the column has no room for
                self.table.item(r, 1).setToolTip(text)


def _levels(text: str) -> str:
    """``"Age=3, Sex=0"`` as ``"3, 0"`` (the tooltip and the note name the attributes)."""
    return ", ".join(item.rpartition("=")[2] for item in text.split(", ")) if text else "—"


def _figures_job(run: MethodRun, progress=None, cancel=None):
    if progress is not None:
        progress(0.0, "Computing the passes' figures")
    return pass_figures(run.data, run.release)


register_result_view(["generalization"], TITLE, PassesView)
