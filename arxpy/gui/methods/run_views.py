"""The views every method run has: Summary (figures, claims, an independently checked
privacy badge) and Groups (group-size histogram against k)."""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from arxpy.formatting import plain
from arxpy.gui.plain_text import tooltip
from arxpy.gui.utility.common import (
    OUTPUT_COLOR,
    VERMILLION,
    fill_table,
    note,
    plot_widget,
    read_only_table,
)
from arxpy.params import parameters_in_words
from arxpy.release import Verdict
from arxpy.workflows.runs import MethodRun

#: More distinct group sizes than this are drawn as a binned histogram.
MAX_SIZE_BARS = 40


def _value_text(value: object) -> str:
    if isinstance(value, float | np.floating):
        return plain(round(float(value), 4))
    return str(value)


#: The badge's colour per verdict status (green, grey, red).
BADGE_COLOURS = {"anonymous": "#1a7f37", "not verified": "#666666", "not anonymous": "#b3261e"}


def badge_text(verdict: Verdict) -> str:
    """The badge: a mark and the verdict's headline (the same sentence as everywhere)."""
    mark = {"anonymous": "✔ ", "not anonymous": "✘ "}.get(verdict.status, "")
    return mark + verdict.headline


def verdict_badge(verdict: Verdict) -> QLabel:
    """The privacy badge of a release: its verdict's headline on the status colour."""
    label = QLabel(f"<b>{html.escape(badge_text(verdict))}</b>")
    label.setWordWrap(True)
    label.setStyleSheet(f"color: white; background: {BADGE_COLOURS[verdict.status]}; "
                        "padding: 4px 8px; border-radius: 4px")
    return label


class RunSummaryView(QWidget):
    """Badge, the release's summary table and its claims with the recount's verdict."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        release = run.release
        verdict = release.verdict
        self.badge = verdict_badge(verdict)
        self.badge.setWordWrap(False)  # one line: the row has room for the headline
        self.claims = note("<br>".join(html.escape(line) for line in verdict.lines()[1:]))
        self.table = read_only_table(("Figure", "Value", "Description"))
        summary = release.summary()
        fill_table(self.table, [
            (name, run.method.label if name == "method" else _value_text(row["value"]),
             row["description"]) for name, row in summary.iterrows()], bold_first=True)
        for row in range(self.table.rowCount()):  # descriptions read as text
            self.table.item(row, 2).setTextAlignment(Qt.AlignmentFlag.AlignLeft
                                                     | Qt.AlignmentFlag.AlignVCenter)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, header.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, header.ResizeMode.Stretch)
        header.setSectionResizeMode(2, header.ResizeMode.Stretch)
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 1)
            item.setToolTip(tooltip(item.text()))  # a long claim is cut in the cell
        reference = getattr(run.method, "reference", "")
        # The release's parameters: they hold what the run used (e.g. the seed it drew).
        parameters = parameters_in_words(run.method.params, release.parameters)
        about = note(f"<b>{html.escape(run.method.label)}</b>: "
                     f"{html.escape(run.method.description)}<br>Parameters: "
                     f"{html.escape(parameters)}"
                     + (f"<br>Reference: {html.escape(reference)}" if reference else ""))
        top = QHBoxLayout()
        top.addWidget(self.badge)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.claims)
        layout.addWidget(self.table, 1)
        layout.addWidget(about)


def size_histogram(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(bar centres, number of groups per bar, bar width): one bar per distinct size, or
    at most MAX_SIZE_BARS equal bins when sizes vary widely."""
    if sizes.size == 0:
        return np.zeros(0), np.zeros(0), 1.0
    values, counts = np.unique(sizes, return_counts=True)
    if len(values) <= MAX_SIZE_BARS:
        return values.astype(float), counts.astype(float), 0.8
    counts, edges = np.histogram(sizes, bins=MAX_SIZE_BARS)
    width = float(edges[1] - edges[0])
    return (edges[:-1] + edges[1:]) / 2, counts.astype(float), 0.9 * width


def claimed_k(run: MethodRun) -> int | None:
    """The largest group size the run's claims promise (the line drawn at k)."""
    sizes = [s for s in (c.promised_class_size for c in run.release.claims) if s]
    return max(sizes) if sizes else None


class GroupSizesView(QWidget):
    """How many groups have each size, with the claimed k as a vertical line."""

    def __init__(self, run: MethodRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        sizes = run.release.class_sizes  # the method's groups, else classes over the QIs
        self.plot = plot_widget("Groups by size", "group size (records)", "groups")
        plot = self.plot.getPlotItem()
        x, heights, width = size_histogram(sizes)
        if len(x):
            plot.addItem(pg.BarGraphItem(x=x, height=heights, width=width,
                                         brush=pg.mkBrush(OUTPUT_COLOR),
                                         pen=pg.mkPen(OUTPUT_COLOR)))
        k = claimed_k(run)
        if k is not None:
            line = pg.InfiniteLine(pos=k, angle=90, label=f"k = {k}",
                                   pen=pg.mkPen(VERMILLION, width=2, style=Qt.PenStyle.DashLine),
                                   labelOpts={"position": 0.92, "color": VERMILLION})
            plot.addItem(line)
        self._frame_sizes(x, width, k)
        layout = QVBoxLayout(self)
        layout.addWidget(self.plot, 1)
        layout.addWidget(note(self._text(sizes, k)))

    def _frame_sizes(self, x: np.ndarray, width: float, k: int | None) -> None:
        """A whole-number axis a few sizes wider than the bars and k (one bar of equal
        groups would otherwise fill the plot, with ticks at 9.2, 9.4, ...)."""
        plot = self.plot.getPlotItem()
        low = min([*x.tolist(), k or 0]) if len(x) else 0
        high = max([*x.tolist(), k or 1]) if len(x) else (k or 1)
        margin = max(5.0, 0.05 * (high - low), width)
        low, high = max(low - margin, 0.0), high + margin
        plot.setXRange(low, high, padding=0)
        if high - low <= 40:
            ticks = [(float(v), str(v)) for v in range(int(np.ceil(low)), int(high) + 1)
                     if (high - low <= 20 or v % 2 == 0)]
            plot.getAxis("bottom").setTicks([ticks])

    @staticmethod
    def _text(sizes: np.ndarray, k: int | None) -> str:
        if sizes.size == 0:
            return "No released groups."
        smallest, largest = int(sizes.min()), int(sizes.max())
        text = (f"All {sizes.size:,} groups hold {smallest:,} records" if smallest == largest
                else f"{sizes.size:,} groups of {smallest:,} to {largest:,} records (mean "
                f"{sizes.mean():,.1f})")
        text += ", counted from the released records' group ids, independently of the method."
        if k is not None and smallest < k:
            text += (f" <span style='color:{VERMILLION}'><b>{int((sizes < k).sum()):,} "
                     f"group(s) below k = {k}.</b></span>")
        return text
