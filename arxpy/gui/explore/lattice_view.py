"""The Hasse diagram of the transformations: one row per total generalization level.

One widget paints every node itself (no item per node), so the full Adult lattice
(12,960 nodes) redraws in milliseconds. Within a row nodes are ordered by state, then
score, so the anonymous region and its best corner are visible at a glance. Colors
are color-blind safe (viridis for the score of anonymous nodes, Okabe-Ito vermillion
for not anonymous) and every state also has its own shape: circle = anonymous,
square = not anonymous, small hollow ring = not checked. Zoom with the wheel (or
+/-; 0 fits), pan by dragging, click selects, double-click applies.
"""

from __future__ import annotations

import html

import numpy as np
from pyqtgraph.functions import arrayToQPolygonF
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QLinearGradient,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QWheelEvent,
)
from PySide6.QtWidgets import QMenu, QToolTip, QWidget

from arxpy.gui.explore.filters import NodeFilter
from arxpy.search import ANONYMOUS, NOT_ANONYMOUS
from arxpy.workflows.lattice_nodes import LatticeNodes

#: Most nodes drawn at once; the best-scored matching nodes are kept above it.
MAX_DISPLAYED = 50_000
#: Edges are drawn when at most this many nodes are on screen (else they are a grey blur).
EDGE_LIMIT = 400
#: Nodes are drawn one by one, with outlines, when at most this many are on screen.
DETAIL_LIMIT = 4000
#: Height of the colour legend in the bottom-right corner (px).
LEGEND_HEIGHT = 88.0

_VIRIDIS = ["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779",
            "#6ece58", "#b5de2b", "#fde725"]
BUCKETS = 20
NOT_ANONYMOUS_COLOR = QColor("#D55E00")
NOT_CHECKED_COLOR = QColor("#c4c4c4")
INFERRED_COLOR = QColor("#8a8a8a")  # anonymous by monotonicity, never scored
OPTIMUM_COLOR = QColor("#E69F00")
SELECTED_COLOR = QColor("#0072B2")
PIN_LETTERS = "ABCD"


def viridis(fraction: float) -> QColor:
    """The viridis color at ``fraction`` in [0, 1] (0 = dark purple = best score)."""
    position = min(max(fraction, 0.0), 1.0) * (len(_VIRIDIS) - 1)
    low = int(position)
    high = min(low + 1, len(_VIRIDIS) - 1)
    a, b = QColor(_VIRIDIS[low]), QColor(_VIRIDIS[high])
    t = position - low
    return QColor.fromRgbF(a.redF() + t * (b.redF() - a.redF()),
                           a.greenF() + t * (b.greenF() - a.greenF()),
                           a.blueF() + t * (b.blueF() - a.blueF()))


def layout(nodes: LatticeNodes, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scene position (x, y) of each row in ``rows``: y = generalization height, x centered
    within the height, ordered anonymous → not anonymous → not checked, then by score."""
    heights = nodes.heights[rows]
    rank = np.choose(nodes.states[rows], [2, 0, 1])  # not checked, anonymous, not anonymous
    score = np.nan_to_num(nodes.relative[rows], nan=2.0)
    order = np.lexsort((nodes.index[rows], score, rank, heights))
    sorted_heights = heights[order]
    starts = np.searchsorted(sorted_heights, sorted_heights, side="left")
    counts = np.bincount(sorted_heights, minlength=nodes.max_height + 1)
    x = np.empty(len(rows), dtype=np.float64)
    x[order] = np.arange(len(rows)) - starts - (counts[sorted_heights] - 1) / 2.0
    return x, heights.astype(np.float64)


def choose_rows(nodes: LatticeNodes, node_filter: NodeFilter,
                cap: int = MAX_DISPLAYED) -> tuple[np.ndarray, str]:
    """Rows passing the filter, at most ``cap`` (best first), and a message for the user."""
    rows = np.flatnonzero(node_filter.mask(nodes))
    notes = []
    if not nodes.complete:
        notes.append(f"The lattice has {nodes.lattice_size:,} transformations, too many to "
                     f"draw; showing the {nodes.n:,} the search checked")
    if len(rows) > cap:
        rank = np.choose(nodes.states[rows], [2, 0, 1])
        order = np.lexsort((nodes.heights[rows], np.nan_to_num(nodes.relative[rows], nan=2.0),
                            rank))
        notes.append(f"Showing the {cap:,} best of {len(rows):,} matching transformations; "
                     "narrow the filter to see the others")
        rows = np.sort(rows[order[:cap]])
    return rows, ". ".join(notes) + ("." if notes else "")


class LatticeView(QWidget):
    """Draws :class:`LatticeNodes` as a Hasse diagram; emits the levels the user picks."""

    selected = Signal(object)  # tuple of levels
    applied = Signal(object)
    pin_requested = Signal(object)
    unpin_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(400, 300)
        self.nodes: LatticeNodes | None = None
        self.rows = np.zeros(0, dtype=np.int64)
        self.message = ""
        self._x = self._y = np.zeros(0)
        self._scale = [1.0, 1.0]
        self._offset = [0.0, 0.0]
        self._press: QPointF | None = None
        self._dragged = False
        self.selected_levels: tuple[int, ...] | None = None
        self.applied_levels: tuple[int, ...] | None = None
        self.pinned: list[tuple[int, ...]] = []
        self._filter = NodeFilter()
        self._row_position = np.zeros(0, dtype=np.int64)  # node row -> position in rows, -1

    # --- content ------------------------------------------------------------------------

    def set_nodes(self, nodes: LatticeNodes | None) -> None:
        self.nodes = nodes
        self.set_filter(NodeFilter())

    def set_filter(self, node_filter: NodeFilter) -> None:
        """Show the rows passing ``node_filter`` (capped, see :func:`choose_rows`); refits."""
        self._filter = node_filter
        if self.nodes is None:
            self.rows, self.message = np.zeros(0, dtype=np.int64), ""
            self._x = self._y = np.zeros(0)
        else:
            self.rows, self.message = choose_rows(self.nodes, node_filter)
            self._x, self._y = layout(self.nodes, self.rows)
            self._row_position = np.full(self.nodes.n, -1, dtype=np.int64)
            self._row_position[self.rows] = np.arange(len(self.rows))
        self.fit()

    def set_marks(self, selected: tuple[int, ...] | None, applied: tuple[int, ...] | None,
                  pinned: list[tuple[int, ...]]) -> None:
        self.selected_levels, self.applied_levels, self.pinned = selected, applied, list(pinned)
        self.update()

    # --- view transform -----------------------------------------------------------------

    def fit(self) -> None:
        """Scale so every shown node is visible."""
        # The bottom margin keeps the lowest levels and their labels above the legend.
        margin_x, margin_top, margin_bottom = 90.0, 40.0, LEGEND_HEIGHT + 16.0
        if len(self._x) == 0:
            self._scale, self._offset = [1.0, 1.0], [0.0, 0.0]
        else:
            x0, x1 = float(self._x.min()), float(self._x.max())
            y1 = float(self._y.max())
            sx = max(self.width() - 2 * margin_x, 10.0) / max(x1 - x0, 1.0)
            sy = max(self.height() - margin_top - margin_bottom, 10.0) / max(y1, 1.0)
            self._scale = [sx, sy]
            self._offset = [margin_x - x0 * sx, margin_top + y1 * sy]
        self.update()

    def to_pixels(self) -> tuple[np.ndarray, np.ndarray]:
        """Widget coordinates of the shown nodes (y grows upwards in the scene)."""
        return (self._x * self._scale[0] + self._offset[0],
                self._offset[1] - self._y * self._scale[1])

    def zoom(self, factor: float, center: QPointF | None = None) -> None:
        """Zoom by ``factor`` about ``center`` (default: the middle of the widget)."""
        center = center or QPointF(self.width() / 2, self.height() / 2)
        # Rows stop spreading at ~70 px apart: more zoom then only separates nodes in a row.
        vertical = min(factor, max(1.0, 70.0 / self._scale[1])) if factor > 1 else factor
        for axis, (c, f) in enumerate(((center.x(), factor), (center.y(), vertical))):
            self._offset[axis] = c - (c - self._offset[axis]) * f
            self._scale[axis] *= f
        self.update()

    def center_on(self, levels: tuple[int, ...], factor: float) -> None:
        """Zoom by ``factor`` and move the node ``levels`` to the middle (if shown)."""
        self.zoom(factor)
        position = self._position_of(levels)
        if position is not None:
            px, py = self.to_pixels()
            self._offset[0] += self.width() / 2 - px[position]
            self._offset[1] += self.height() / 2 - py[position]
            self.update()

    def node_radius(self) -> float:
        return float(np.clip(0.38 * min(self._scale[0], self._scale[1]), 1.6, 11.0))

    def node_at(self, position: QPointF) -> int | None:
        """Row of the node under ``position`` (within a few pixels), or None."""
        if len(self.rows) == 0:
            return None
        px, py = self.to_pixels()
        distance = np.hypot(px - position.x(), py - position.y())
        nearest = int(np.argmin(distance))
        return int(self.rows[nearest]) if distance[nearest] <= self.node_radius() + 4 else None

    # --- painting -----------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor("white"))
        if self.nodes is None or len(self.rows) == 0:
            painter.setPen(QColor("#666"))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter,
                             "No transformation to show" if self.nodes else
                             "Run an anonymization to explore its transformations")
            painter.end()
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        px, py = self.to_pixels()
        visible = (px > -20) & (px < self.width() + 20) & (py > -20) & (py < self.height() + 20)
        on_screen = np.flatnonzero(visible)
        self._paint_row_labels(painter)
        if len(on_screen) <= EDGE_LIMIT:
            self._paint_edges(painter, px, py, on_screen)
        self._paint_nodes(painter, px, py, on_screen)
        self._paint_marks(painter, px, py)
        self._paint_legend(painter)
        if self.message:
            painter.setPen(QColor("#7a4a00"))
            painter.fillRect(QRectF(0, 0, self.width(), 22), QColor("#fff3d6"))
            painter.drawText(QRectF(8, 0, self.width() - 16, 22),
                             Qt.AlignmentFlag.AlignVCenter, self.message)
        painter.end()

    def _paint_row_labels(self, painter: QPainter) -> None:
        if self._scale[1] < 12:
            return
        counts = np.bincount(self._y.astype(np.int64), minlength=self.nodes.max_height + 1)
        painter.setPen(QColor("#777"))
        painter.setFont(QFont(self.font().family(), 8))
        for height, count in enumerate(counts):
            if count:
                y = self._offset[1] - height * self._scale[1]
                painter.drawText(QRectF(2, y - 8, 84, 16), Qt.AlignmentFlag.AlignVCenter,
                                 f"level {height} · {count:,}")

    def _paint_edges(self, painter: QPainter, px: np.ndarray, py: np.ndarray,
                     on_screen: np.ndarray) -> None:
        """Lines from each on-screen node to its direct generalizations that are shown."""
        nodes = self.nodes
        rows = self.rows[on_screen]
        place = nodes.place_values()
        at_top = nodes.levels[rows] >= np.asarray(nodes.top)
        targets = nodes.index[rows][:, None] + place[None, :]
        target_rows = nodes.rows_of_indices(np.where(at_top, -1, targets).ravel())
        target_pos = np.where(target_rows >= 0, self._row_position[np.maximum(target_rows, 0)],
                              -1).reshape(targets.shape)
        painter.setPen(QPen(QColor(0, 0, 0, 22), 1))
        lines = []
        for i, j in zip(*np.nonzero(target_pos >= 0), strict=True):
            a, b = on_screen[i], target_pos[i, j]
            lines.append((QPointF(px[a], py[a]), QPointF(px[b], py[b])))
        for a, b in lines:
            painter.drawLine(a, b)

    def _paint_nodes(self, painter: QPainter, px: np.ndarray, py: np.ndarray,
                     on_screen: np.ndarray) -> None:
        nodes, r = self.nodes, self.node_radius()
        rows = self.rows[on_screen]
        states = nodes.states[rows]
        bucket = np.where(np.isnan(nodes.relative[rows]), -1,
                          np.round(np.nan_to_num(nodes.relative[rows]) * (BUCKETS - 1)))
        detailed = len(on_screen) <= DETAIL_LIMIT
        groups = [(ANONYMOUS, b) for b in range(-1, BUCKETS)] + [(NOT_ANONYMOUS, None), (0, None)]
        for state, b in groups:
            chosen = (states == state) if b is None else (states == state) & (bucket == b)
            if not chosen.any():
                continue
            positions = on_screen[chosen]
            color = self._color(state, b)
            size = r if state != 0 else max(r * 0.55, 1.2)
            if detailed:
                self._draw_shapes(painter, px[positions], py[positions], state, color, size)
            else:
                pen = QPen(color, 2 * size)
                pen.setCapStyle(Qt.PenCapStyle.SquareCap if state == NOT_ANONYMOUS
                                else Qt.PenCapStyle.RoundCap)
                painter.setPen(pen)
                # Built in one copy from the arrays (a QPointF per node costs ~2 µs each).
                painter.drawPoints(arrayToQPolygonF(px[positions], py[positions]))
        if detailed and self._scale[0] > 14 * len(nodes.names) and self._scale[1] > 34:
            self._draw_labels(painter, px, py, on_screen)

    @staticmethod
    def _color(state: int, bucket: float | None) -> QColor:
        if state == ANONYMOUS:
            return INFERRED_COLOR if bucket is None or bucket < 0 else \
                viridis(float(bucket) / (BUCKETS - 1))
        return NOT_ANONYMOUS_COLOR if state == NOT_ANONYMOUS else NOT_CHECKED_COLOR

    @staticmethod
    def _draw_shapes(painter: QPainter, xs: np.ndarray, ys: np.ndarray, state: int,
                     color: QColor, r: float) -> None:
        if state == 0:  # not checked: a hollow ring
            painter.setPen(QPen(color, 1.2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
        else:
            painter.setPen(QPen(QColor(0, 0, 0, 110), 0.8))
            painter.setBrush(QBrush(color))
        for x, y in zip(xs, ys, strict=True):
            if state == NOT_ANONYMOUS:
                painter.drawRect(QRectF(x - r * 0.85, y - r * 0.85, 1.7 * r, 1.7 * r))
            else:
                painter.drawEllipse(QPointF(x, y), r, r)

    def _draw_labels(self, painter: QPainter, px: np.ndarray, py: np.ndarray,
                     on_screen: np.ndarray) -> None:
        painter.setPen(QColor("#222"))
        painter.setFont(QFont(self.font().family(), 8))
        r = self.node_radius()
        for position in on_screen:
            text = ",".join(str(v) for v in self.nodes.levels[self.rows[position]])
            painter.drawText(QRectF(px[position] - 60, py[position] + r + 1, 120, 14),
                             Qt.AlignmentFlag.AlignHCenter, text)

    def _paint_marks(self, painter: QPainter, px: np.ndarray, py: np.ndarray) -> None:
        """Rings for optimum, applied and selected, one label per marked node."""
        nodes, r = self.nodes, self.node_radius()
        marks = [(self.applied_levels, QColor("black"), 3.0, r + 4, "applied"),
                 (self.selected_levels, SELECTED_COLOR, 2.5, r + 8, "selected")]
        if nodes.optimum is not None:
            marks.insert(0, (nodes.levels_of(nodes.optimum), OPTIMUM_COLOR, 3.0, r + 12,
                             "optimum"))
        # Transformations as good as the optimum: a custodian may prefer one of them.
        marks[:0] = [(nodes.levels_of(row), OPTIMUM_COLOR, 1.5, r + 12, "tied")
                     for row in nodes.tied]
        labels: dict[int, list[str]] = {}
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for levels, color, width, radius, text in marks:
            position = self._position_of(levels)
            if position is not None:
                painter.setPen(QPen(color, width))
                painter.drawEllipse(QPointF(px[position], py[position]), radius, radius)
                labels.setdefault(position, []).append(text)
        for letter, levels in zip(PIN_LETTERS, self.pinned, strict=False):
            position = self._position_of(levels)
            if position is not None:
                labels.setdefault(position, []).append(f"pin {letter}")
        font = QFont(self.font().family(), 8, QFont.Weight.Bold)
        painter.setFont(font)
        metrics = QFontMetrics(font)
        placed: list[QRectF] = []
        for position, texts in sorted(labels.items(), key=lambda item: px[item[0]]):
            text = " · ".join(texts)
            rect = QRectF(px[position] + r + 14, py[position] - 22,
                          metrics.horizontalAdvance(text) + 6, 15)
            if rect.right() > self.width() - 2:  # kept inside the view, leftwards
                rect.moveRight(self.width() - 2)
            if rect.left() < 2:
                rect.moveLeft(2)
            while any(rect.intersects(other) for other in placed):
                rect.translate(0, -16)  # stack labels of nearby nodes instead of overlapping
            placed.append(rect)
            painter.setPen(QPen(QColor(0, 0, 0, 90), 1))
            painter.drawLine(QPointF(px[position], py[position]), rect.bottomLeft())
            painter.fillRect(rect, QColor(255, 255, 255, 220))
            painter.setPen(QColor("#111"))
            painter.drawText(rect, Qt.AlignmentFlag.AlignVCenter, text)

    def _position_of(self, levels: tuple[int, ...] | None) -> int | None:
        row = self.nodes.row_of(levels) if self.nodes is not None else None
        if row is None or self._row_position[row] < 0:
            return None
        return int(self._row_position[row])

    def _paint_legend(self, painter: QPainter) -> None:
        box = QRectF(self.width() - 262, self.height() - LEGEND_HEIGHT - 8, 254,
                     LEGEND_HEIGHT)
        painter.setPen(QPen(QColor("#bbb"), 1))
        painter.setBrush(QBrush(QColor(255, 255, 255, 235)))
        painter.drawRoundedRect(box, 4, 4)
        painter.setFont(QFont(self.font().family(), 8))
        gradient = QLinearGradient(box.left() + 10, 0, box.left() + 130, 0)
        for i, color in enumerate(_VIRIDIS):
            gradient.setColorAt(i / (len(_VIRIDIS) - 1), QColor(color))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(gradient))
        painter.drawRect(QRectF(box.left() + 10, box.top() + 8, 120, 10))
        painter.setPen(QColor("#222"))
        painter.drawText(QPointF(box.left() + 136, box.top() + 17), "anonymous: score")
        painter.drawText(QPointF(box.left() + 10, box.top() + 30), "best")
        painter.drawText(QPointF(box.left() + 106, box.top() + 30), "worst")
        items = [(NOT_ANONYMOUS, NOT_ANONYMOUS_COLOR, "not anon."),
                 (ANONYMOUS, INFERRED_COLOR, "anon., inferred"), (0, NOT_CHECKED_COLOR, "unknown")]
        for i, (state, color, text) in enumerate(items):
            x, y = box.left() + 14 + (0, 74, 176)[i], box.top() + 46
            self._draw_shapes(painter, np.array([x]), np.array([y]), state, color, 5)
            painter.setPen(QColor("#222"))
            painter.drawText(QPointF(x + 10, y + 4), text)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for i, (color, text) in enumerate(((OPTIMUM_COLOR, "optimum"), (QColor("black"),
                                           "applied"), (SELECTED_COLOR, "selected"))):
            x, y = box.left() + 16 + 76 * i, box.top() + 70
            painter.setPen(QPen(color, 2.5))
            painter.drawEllipse(QPointF(x, y), 6, 6)
            painter.setPen(QColor("#222"))
            painter.drawText(QPointF(x + 10, y + 4), text)

    # --- interaction --------------------------------------------------------------------

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom(1.25 ** steps, event.position())

    def keyPressEvent(self, event) -> None:  # noqa: N802
        key = event.key()
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(1.25)
        elif key == Qt.Key.Key_Minus:
            self.zoom(0.8)
        elif key == Qt.Key.Key_0:
            self.fit()
        else:
            super().keyPressEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            self._press, self._dragged = event.position(), False

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if self._press is not None:
            delta = event.position() - self._press
            if self._dragged or abs(delta.x()) + abs(delta.y()) > 4:
                self._dragged = True
                self._offset[0] += delta.x()
                self._offset[1] += delta.y()
                self._press = event.position()
                self.update()
            return
        row = self.node_at(event.position())
        if row is None:
            QToolTip.hideText()
        else:
            QToolTip.showText(event.globalPosition().toPoint(), self.describe(row), self)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if self._press is not None and not self._dragged:
            row = self.node_at(event.position())
            if row is not None:
                self.selected.emit(self.nodes.levels_of(row))
        self._press = None

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        row = self.node_at(event.position())
        if row is not None:
            self.applied.emit(self.nodes.levels_of(row))

    def contextMenuEvent(self, event) -> None:  # noqa: N802
        row = self.node_at(QPointF(event.pos()))
        if row is None:
            return
        levels = self.nodes.levels_of(row)
        menu = QMenu(self)
        menu.addAction("Apply", lambda: self.applied.emit(levels))
        if levels in self.pinned:
            menu.addAction("Unpin from comparison", lambda: self.unpin_requested.emit(levels))
        else:
            menu.addAction("Pin for comparison", lambda: self.pin_requested.emit(levels))
        menu.exec(event.globalPos())

    def describe(self, row: int) -> str:
        """Tooltip text: levels per attribute, state, score, suppressed records."""
        nodes = self.nodes
        lines = [f"<b>{list(nodes.levels_of(row))}</b>"]
        lines += [f"{html.escape(name, quote=False)}: level {level}" for name, level in
                  zip(nodes.names, nodes.levels[row], strict=True)]
        lines.append(f"State: {nodes.state_label(row)}")
        if not np.isnan(nodes.scores[row]):
            lines.append(f"Score: {nodes.scores[row]:.5g} "
                         f"({100 * nodes.relative[row]:.1f} % of the range)")
        if nodes.suppressed[row] >= 0:
            lines.append(f"Suppressed records: {int(nodes.suppressed[row]):,}")
        if row == nodes.optimum:
            lines.append("<i>the optimum</i>")
        elif row in nodes.tied:
            lines.append("<i>tied with the optimum (same score)</i>")
        return "<br>".join(lines)
