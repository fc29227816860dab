"""Equivalence-class sizes (input vs output) and the quality of each quasi-identifier."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QHeaderView, QLabel, QVBoxLayout, QWidget

from arxpy.gui.utility.common import (
    INPUT_COLOR,
    OUTPUT_COLOR,
    fill_table,
    legend,
    note,
    number,
    percent,
    plot_widget,
    read_only_table,
)
from arxpy.workflows.utility_jobs import StatisticsBundle

#: Class-size bins (lower bounds): sizes span 1 to thousands, so bins widen.
SIZE_BINS = (1, 2, 3, 4, 5, 10, 20, 50, 100, 500)


def size_bin_labels() -> list[str]:
    labels = []
    for low, high in zip(SIZE_BINS, SIZE_BINS[1:], strict=False):
        labels.append(str(low) if high == low + 1 else f"{low}–{high - 1}")
    return labels + [f"≥{SIZE_BINS[-1]}"]


def records_by_size(class_sizes: pd.DataFrame) -> np.ndarray:
    """Percentage of records (0 to 100) in classes of each size bin of SIZE_BINS."""
    shares = np.zeros(len(SIZE_BINS))
    if class_sizes.empty:
        return shares
    which = np.searchsorted(SIZE_BINS, class_sizes["size"].to_numpy(), side="right") - 1
    np.add.at(shares, which, class_sizes["records"].to_numpy(dtype=float))
    return 100 * shares / max(float(class_sizes["records"].sum()), 1.0)


def _class_summary(class_sizes: pd.DataFrame) -> str:
    if class_sizes.empty:
        return "no classes"
    classes = int(class_sizes["classes"].sum())
    records = int(class_sizes["records"].sum())
    return (f"{classes:,} classes, sizes {int(class_sizes['size'].min()):,} to "
            f"{int(class_sizes['size'].max()):,}, mean {records / classes:,.1f}")


class ClassesView(QWidget):
    """Grouped bars of records by class size, and the per-attribute quality table."""

    QUALITY_COLUMNS = ("Quasi-identifier", "Level", "Generalization\nintensity",
                       "Missing\n(*)", "Entropy\nloss", "Granularity\nloss")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = plot_widget("Records by size of their equivalence class",
                                "class size (records sharing all quasi-identifier values)",
                                "% of records")
        self.legend = legend(self.plot, (-10, 10))
        self.sizes_note = note()
        self.quality = read_only_table(self.QUALITY_COLUMNS)
        self.quality.setMinimumWidth(560)
        self.quality.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.ResizeToContents)
        quality_note = note(
            "Per quasi-identifier of the output: the level applied and its share of the "
            "hierarchy's height; the share of records published as '*' (suppressed or "
            "generalized to the top); entropy and granularity loss, 0 = unchanged, "
            "1 = nothing left (definitions in docs/utility.md).")
        left = QVBoxLayout()
        left.addWidget(self.plot, 1)
        left.addWidget(self.sizes_note)
        right = QVBoxLayout()
        right.addWidget(QLabel("<b>Quality per attribute</b>"))
        right.addWidget(self.quality, 1)
        right.addWidget(quality_note)
        layout = QHBoxLayout(self)
        layout.addLayout(left, 1)
        layout.addLayout(right, 1)

    def set_bundle(self, bundle: StatisticsBundle | None) -> None:
        plot = self.plot.getPlotItem()
        plot.clear()
        self.legend.clear()
        if bundle is None:
            self.quality.setRowCount(0)
            self.sizes_note.setText("")
            return
        out_sizes = bundle.statistics.class_sizes
        positions = np.arange(len(SIZE_BINS), dtype=float)
        for offset, sizes, color, name in ((-0.2, bundle.input_class_sizes, INPUT_COLOR, "Input"),
                                           (0.2, out_sizes, OUTPUT_COLOR, "Output")):
            bars = pg.BarGraphItem(x=positions + offset, height=records_by_size(sizes),
                                   width=0.38, brush=pg.mkBrush(color), pen=pg.mkPen(color),
                                   name=name)
            plot.addItem(bars)  # named bars join the legend by themselves
        plot.getAxis("bottom").setTicks([list(enumerate(size_bin_labels()))])
        plot.setXRange(-0.6, len(SIZE_BINS) - 0.4, padding=0)
        plot.setYRange(0, 102, padding=0)
        self.sizes_note.setText(
            f"<b>Input</b>: {_class_summary(bundle.input_class_sizes)}. "
            f"<b>Output</b> (published records): {_class_summary(out_sizes)}. The average "
            "equivalence class size quality model (AECS) also counts the suppressed records "
            "as one class, so its figure differs.")
        rows = []
        for name, row in bundle.statistics.quality.iterrows():
            rows.append((name, number(row["level"]), percent(row["generalization_intensity"], 0),
                         percent(row["missing_share"], 1), number(row["entropy_loss"], 3),
                         number(row["granularity_loss"], 3)))
        fill_table(self.quality, rows, bold_first=True)
