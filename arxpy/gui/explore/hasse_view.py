"""A legible Hasse diagram of the part of the lattice that matters, with a minimap.

The full lattice (up to 12,960 nodes for Adult) merges into coloured bands at any
window size. This view draws a few dozen nodes instead: the focus (the selected
transformation, else the optimum), its direct predecessors and successors, and the
best-scored transformations passing the filter. Each node is a box labelled with its
levels, coloured by relative score (as the overview), with edges between nodes one
generalization step apart. The full overview sits beside it as a minimap; clicking a
node in either selects it, double-clicking applies it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from arxpy.gui.explore.filters import NodeFilter
from arxpy.gui.explore.lattice_view import (
    INFERRED_COLOR,
    NOT_ANONYMOUS_COLOR,
    NOT_CHECKED_COLOR,
    OPTIMUM_COLOR,
    SELECTED_COLOR,
    LatticeView,
    viridis,
)
from arxpy.workflows.lattice_nodes import ANONYMOUS, NOT_ANONYMOUS, LatticeNodes

#: Most nodes drawn besides the focus and its neighbours.
MAX_FILTERED = 24
#: Most neighbours (predecessors or successors) of the focus drawn.
MAX_NEIGHBOURS = 12
#: Room kept at the right of each row for "+N more".
MORE_WIDTH = 70


@dataclass(frozen=True)
class Neighbourhood:
    """The rows drawn, their positions in [0, 1]², and the edges between them."""

    rows: np.ndarray  # lattice rows drawn
    x: np.ndarray
    y: np.ndarray  # 0 = top (most generalized) ... 1 = bottom
    edges: list[tuple[int, int]]  # positions in ``rows``
    focus: int | None  # lattice row of the focus
    left_out: dict[int, int]  # height -> nodes of the neighbourhood that did not fit


def neighbourhood(nodes: LatticeNodes, focus: int | None, mask: np.ndarray,
                  per_row: int = 8) -> Neighbourhood:
    """The focus, the optimum, the focus's neighbours and the best filtered rows (in that
    priority), at most ``per_row`` per height so that every label fits, laid out by height."""
    wanted: list[int] = []
    for row in (focus, nodes.optimum):
        if row is not None:
            wanted.append(row)
    if focus is not None:
        wanted += _neighbours(nodes, focus)
    candidates = np.flatnonzero(mask & (nodes.states == ANONYMOUS))
    if candidates.size:
        scores = np.where(np.isnan(nodes.scores[candidates]), np.inf, nodes.scores[candidates])
        # The best few by score, then fewer generalization steps among ties.
        best = candidates[np.argsort(scores, kind="stable")[:4 * MAX_FILTERED]]
        best_scores = np.where(np.isnan(nodes.scores[best]), np.inf, nodes.scores[best])
        wanted += best[np.lexsort((nodes.levels[best].sum(axis=1),
                                   best_scores))][:MAX_FILTERED].tolist()
    heights = nodes.heights  # computed from every row's levels: once, not per use
    chosen: list[int] = []
    per_height: dict[int, int] = {}
    left_out: dict[int, int] = {}
    for row in dict.fromkeys(int(r) for r in wanted):
        height = int(heights[row])
        if per_height.get(height, 0) >= max(per_row, 1):
            left_out[height] = left_out.get(height, 0) + 1
            continue
        per_height[height] = per_height.get(height, 0) + 1
        chosen.append(row)
    rows = np.array(sorted(chosen, key=lambda r: (heights[r], tuple(nodes.levels[r]))),
                    dtype=np.int64)
    x, y = _layout(heights[rows])
    return Neighbourhood(rows, x, y, _edges(nodes, rows), focus, left_out)


def _neighbours(nodes: LatticeNodes, row: int) -> list[int]:
    """Rows one generalization step below or above ``row`` (those in ``nodes``)."""
    levels = nodes.levels[row]
    found: list[int] = []
    for column in range(len(levels)):
        for step in (-1, 1):
            other = levels.copy()
            other[column] += step
            if not nodes.bottom[column] <= other[column] <= nodes.top[column]:
                continue
            neighbour = nodes.row_of(tuple(int(v) for v in other))
            if neighbour is not None and len(found) < 2 * MAX_NEIGHBOURS:
                found.append(neighbour)
    return found


def _layout(heights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    distinct = sorted(set(heights.tolist()))
    rank = {h: i for i, h in enumerate(distinct)}
    levels_count = max(len(distinct) - 1, 1)
    x, y = np.zeros(len(heights)), np.zeros(len(heights))
    for height in distinct:
        at = np.flatnonzero(heights == height)
        x[at] = (np.arange(len(at)) + 0.5) / len(at)
        y[at] = 1.0 - rank[height] / levels_count if len(distinct) > 1 else 0.5
    return x, y


def _edges(nodes: LatticeNodes, rows: np.ndarray) -> list[tuple[int, int]]:
    levels = nodes.levels[rows]
    difference = np.abs(levels[:, None, :] - levels[None, :, :]).sum(axis=2)
    first, second = np.nonzero(np.triu(difference == 1))
    return list(zip(first.tolist(), second.tolist(), strict=True))


class HasseView(QWidget):
    """Paints a :class:`Neighbourhood`; click selects, double-click applies."""

    selected = Signal(object)
    applied = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.nodes: LatticeNodes | None = None
        self.node_filter = NodeFilter()
        self.shown: Neighbourhood | None = None
        self._marks: tuple = (None, None, [])
        self._dirty = False
        self.setMinimumSize(360, 260)
        self.setMouseTracking(True)

    def set_nodes(self, nodes: LatticeNodes | None) -> None:
        self.nodes = nodes
        self._rebuild()

    def set_filter(self, node_filter: NodeFilter) -> None:
        self.node_filter = node_filter
        self._rebuild()

    def set_marks(self, selected, applied, pinned) -> None:
        changed_focus = selected != self._marks[0]
        self._marks = (selected, applied, list(pinned))
        if changed_focus:
            self._rebuild()
        else:
            self.update()

    def _rebuild(self) -> None:
        # Coalesced: a new result sets nodes, filter and marks in one turn; the diagram is
        # laid out once, when it is next painted or clicked.
        self._dirty = True
        self.update()

    @property
    def shown(self) -> Neighbourhood | None:
        if self._dirty:
            self._dirty = False
            self._layout_now()
        return self._shown

    @shown.setter
    def shown(self, value: Neighbourhood | None) -> None:
        self._shown = value

    def _layout_now(self) -> None:
        nodes = self.nodes
        if nodes is None:
            self.shown = None
        else:
            selected = self._marks[0]
            focus = nodes.row_of(selected) if selected is not None else nodes.optimum
            width, _ = self._box_size()
            per_row = int((self.width() - 16 - MORE_WIDTH) // (width + 8))
            self.shown = neighbourhood(nodes, focus, self.node_filter.mask(nodes), per_row)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._rebuild()  # how many nodes fit a row depends on the width

    # --- geometry ----------------------------------------------------------------------

    def _compact(self) -> bool:
        # Single-digit levels read without separators ("14001521"), as compact as ARX.
        return self.nodes is not None and int(self.nodes.top and max(self.nodes.top)) < 10

    def _box_size(self) -> tuple[float, float]:
        names = len(self.nodes.names) if self.nodes is not None else 1
        sample = "0" * names if self._compact() else "00," * names
        return QFontMetrics(self.font()).horizontalAdvance(sample) + 14.0, 22.0

    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """Pixel centres of the drawn nodes."""
        shown = self.shown
        width, height = self._box_size()
        margin_x, margin_y = width / 2 + 8, height / 2 + 40
        px = margin_x + shown.x * max(self.width() - 2 * margin_x - MORE_WIDTH, 1)
        py = margin_y + shown.y * max(self.height() - 2 * margin_y, 1)
        return px, py

    def node_at(self, point: QPointF) -> int | None:
        """Lattice row of the node box under ``point``."""
        if self.shown is None or not len(self.shown.rows):
            return None
        px, py = self.positions()
        width, height = self._box_size()
        inside = (np.abs(px - point.x()) <= width / 2) & (np.abs(py - point.y()) <= height / 2)
        hits = np.flatnonzero(inside)
        return int(self.shown.rows[hits[0]]) if hits.size else None

    def label(self, row: int) -> str:
        """The node's levels as text, one per quasi-identifier in the heading's order."""
        separator = "" if self._compact() else ","
        return separator.join(str(int(v)) for v in self.nodes.levels[row])

    # --- painting ----------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor("white"))
        shown = self.shown
        if shown is None or not len(shown.rows):
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter,
                             "Run an anonymization to see its lattice.")
            return
        px, py = self.positions()
        painter.setPen(QPen(QColor("#b0b0b0"), 1))
        for a, b in shown.edges:
            painter.drawLine(QPointF(px[a], py[a]), QPointF(px[b], py[b]))
        width, height = self._box_size()
        selected, applied, pinned = self._marks
        for position, row in enumerate(shown.rows.tolist()):
            rect = QRectF(px[position] - width / 2, py[position] - height / 2, width, height)
            fill = self._fill(row)
            painter.setBrush(fill)
            painter.setPen(self._outline(row, selected, applied, pinned))
            painter.drawRoundedRect(rect, 4, 4)
            painter.setPen(QColor("white") if fill.lightnessF() < 0.55 else QColor("black"))
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self.label(row))
        self._paint_left_out(painter, px, py)
        self._paint_heading(painter)

    def _fill(self, row: int) -> QColor:
        state = int(self.nodes.states[row])
        if state == ANONYMOUS:
            relative = self.nodes.relative[row]
            return INFERRED_COLOR if np.isnan(relative) else viridis(float(relative))
        return NOT_ANONYMOUS_COLOR.lighter(150) if state == NOT_ANONYMOUS else NOT_CHECKED_COLOR

    def _outline(self, row: int, selected, applied, pinned) -> QPen:
        levels = self.nodes.levels_of(row)
        if row == self.nodes.optimum:
            return QPen(OPTIMUM_COLOR, 3)
        if levels == selected:
            return QPen(SELECTED_COLOR, 3)
        if levels == applied:
            return QPen(QColor("black"), 2.5)
        if levels in pinned:
            return QPen(QColor("#009E73"), 2.5)
        return QPen(QColor("#555555"), 1)

    def _paint_left_out(self, painter: QPainter, px: np.ndarray, py: np.ndarray) -> None:
        """Say how many nodes of a height did not fit, at the end of its row."""
        painter.setPen(QColor("#777"))
        heights = self.nodes.heights[self.shown.rows]
        for height, count in self.shown.left_out.items():
            at = np.flatnonzero(heights == height)
            if at.size:
                y = float(py[at[0]])
                painter.drawText(QRectF(self.width() - MORE_WIDTH, y - 10, MORE_WIDTH - 4, 20),
                                 Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                                 f"+{count} more")

    def _paint_heading(self, painter: QPainter) -> None:
        painter.setFont(QFont(self.font()))
        painter.setPen(QColor("#333"))
        names = ", ".join(self.nodes.names)
        flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        painter.drawText(QRectF(6, 0, self.width() - 12, 18), flags,
                         f"Node = levels of {names}")
        painter.drawText(QRectF(6, 16, self.width() - 12, 18), flags,
                         # Colours are explained by the legend beside (the whole lattice).
                         "Top: most generalized. Outline: orange optimum, blue selected, "
                         "black applied, green pinned.")

    # --- mouse -------------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        row = self.node_at(event.position())
        if row is not None:
            self.selected.emit(self.nodes.levels_of(row))

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        row = self.node_at(event.position())
        if row is not None:
            self.applied.emit(self.nodes.levels_of(row))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        row = self.node_at(event.position())
        self.setToolTip("" if row is None else self._tooltip(row))

    def _tooltip(self, row: int) -> str:
        nodes = self.nodes
        parts = [f"{n} {int(v)}" for n, v in zip(nodes.names, nodes.levels[row], strict=True)]
        score = nodes.scores[row]
        text = ", ".join(parts)
        if not np.isnan(score):
            text += f"\nscore {score:.6g} ({100 * nodes.relative[row]:.1f} %)"
        return text


class NeighbourhoodPanel(QWidget):
    """The Hasse view with the full lattice overview as a minimap beside it."""

    selected = Signal(object)
    applied = Signal(object)

    def __init__(self, minimap: LatticeView | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hasse = HasseView()
        self.minimap = minimap if minimap is not None else LatticeView()
        self.minimap.setMinimumSize(280, 200)
        caption = QLabel("Whole lattice (click a node to focus on it)")
        caption.setStyleSheet("color: #555")
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(caption)
        side_layout.addWidget(self.minimap, 1)
        splitter = QSplitter()
        splitter.addWidget(self.hasse)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        self.hasse.selected.connect(self.selected)
        self.hasse.applied.connect(self.applied)


