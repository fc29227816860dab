"""The cluster browser of a disassociation release, laid out like Fig. 4 of Loukides et
al. (2014): the list of clusters (size, chunks, item chunk), searchable by code, and the
selected cluster's joint cluster as a grid with one column per chunk: each cluster's
block opens with the chunks' domains, then one row per subrecord position; the item
chunk is shown once per cluster, and a shared chunk runs down the rows of all the
clusters it covers (a band across the joint cluster).

Both tables are virtual models over the published document: only visible cells are
formatted, so a publication of 50,000 records scrolls as smoothly as a small one. The
index from code to clusters reads chunk domains only, never the subrecords, and is built
in the background when the browser is first shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
)
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from arxpy.data import icd9
from arxpy.gui.code_sets import codes_tooltip, display_code
from arxpy.gui.plain_text import tooltip
from arxpy.gui.utility.common import note
from arxpy.gui.workers import JobWorker, ViewJob

_Index = QModelIndex | QPersistentModelIndex
#: Backgrounds: a block's domain row, shared-chunk bands, item chunks, a found code.
DOMAIN_FILL, SHARED_FILL, ITEM_FILL, FOUND_FILL = "#e8eef5", "#e3f4ea", "#fff4d6", "#ffd54f"
#: Codes listed in a list cell before "(+n)".
LISTED = 6
EMPTY_SUBRECORD = "{}"


def codes_text(codes: Sequence[str], most: int | None = None) -> str:
    """Codes dotted and comma-separated, ``{}`` for none; at most ``most`` then (+n)."""
    if not codes:
        return EMPTY_SUBRECORD
    shown = [display_code(c) for c in (codes if most is None else codes[:most])]
    more = len(codes) - len(shown)
    return ", ".join(shown) + (f" (+{more})" if more > 0 else "")


@dataclass(frozen=True)
class ClusterEntry:
    """One cluster of the publication as the list shows it."""

    number: int  # 1-based over the whole document
    joint: int  # index of its joint cluster
    member: int  # index within the joint cluster
    size: int
    record_chunks: int
    shared_chunks: int  # shared chunks covering this cluster
    item_chunk: tuple[str, ...]


class PublicationIndex:
    """The clusters in document order and, per normalised code, the clusters whose
    chunks (record, item or a covering shared chunk) hold it."""

    def __init__(self, published: Mapping[str, Any]) -> None:
        self.published = published
        self.joints = published["joint_clusters"]
        self.entries: list[ClusterEntry] = []
        self._clusters_of: dict[str, set[int]] = {}
        # Shared-chunk codes map to (first entry of the joint cluster, members): expanded
        # on search, since a joint cluster may hold a thousand chunks over 400 clusters.
        self._shared_of: dict[str, list[tuple[int, Sequence[int]]]] = {}
        self.first_entry: list[int] = []  # entry index of each joint cluster's first cluster
        for j, joint in enumerate(self.joints):
            first = len(self.entries)
            self.first_entry.append(first)
            covering = [0] * len(joint["clusters"])
            for chunk in joint.get("shared_chunks", []):
                for member in chunk["members"]:
                    covering[member] += 1
                for code in chunk["domain"]:
                    self._shared_of.setdefault(icd9.normalize_code(code), []).append(
                        (first, chunk["members"]))
            for c, cluster in enumerate(joint["clusters"]):
                entry = len(self.entries)
                self.entries.append(ClusterEntry(
                    entry + 1, j, c, cluster["size"], len(cluster.get("record_chunks", [])),
                    covering[c], tuple(cluster.get("item_chunk", []))))
                for chunk in cluster.get("record_chunks", []):
                    self._index(chunk["domain"], entry)
                self._index(cluster.get("item_chunk", []), entry)

    def _index(self, codes: Sequence[str], entry: int) -> None:
        for code in codes:
            self._clusters_of.setdefault(icd9.normalize_code(code), set()).add(entry)

    def clusters_with(self, text: str) -> list[int]:
        """Entries whose chunks hold the code ``text`` (dotted or not); all for ""."""
        key = icd9.normalize_code(text)
        if not key:
            return list(range(len(self.entries)))
        found = set(self._clusters_of.get(key, ()))
        for first, members in self._shared_of.get(key, ()):
            found.update(first + member for member in members)
        return sorted(found)


class ClusterListModel(QAbstractTableModel):
    """The clusters (all, or those holding a searched code)."""

    COLUMNS = ("Cluster", "Joint cluster", "Records", "Record chunks", "Shared chunks",
               "Item chunk")

    def __init__(self, index: PublicationIndex, parent=None) -> None:
        super().__init__(parent)
        self.index_ = index
        self.rows: list[int] = list(range(len(index.entries)))

    def show_rows(self, rows: list[int]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def entry(self, row: int) -> ClusterEntry:
        return self.index_.entries[self.rows[row]]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        e = self.entry(index.row())
        if role == Qt.ItemDataRole.DisplayRole:
            joint = len(self.index_.joints[e.joint]["clusters"])
            return (f"P{e.number}", f"{e.joint + 1}" + (f" ({joint} clusters)" if joint > 1
                                                           else ""),
                    f"{e.size:,}", str(e.record_chunks), str(e.shared_chunks),
                    codes_text(e.item_chunk, LISTED))[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 5:
            return tooltip(codes_tooltip(e.item_chunk)) if e.item_chunk else "empty item chunk"
        if role == Qt.ItemDataRole.TextAlignmentRole and 2 <= index.column() <= 4:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.COLUMNS[section]
        return None


class JointClusterModel(QAbstractTableModel):
    """A joint cluster as Fig. 4: per member cluster a domain row and one row per
    subrecord position; columns: cluster, record chunks 1..v, item chunk, shared chunks."""

    def __init__(self, joint: Mapping[str, Any], first_number: int, parent=None) -> None:
        super().__init__(parent)
        self.joint = joint
        self.clusters = joint["clusters"]
        self.shared = joint.get("shared_chunks", [])
        self.first_number = first_number
        self.chunks = max((len(c.get("record_chunks", [])) for c in self.clusters), default=0)
        self.found: set[str] = set()  # normalised codes to highlight
        sizes = np.array([c["size"] for c in self.clusters], dtype=np.int64)
        # Row r belongs to cluster row_cluster[r] at subrecord row_position[r] (-1: domains).
        self.block_start = np.concatenate([[0], np.cumsum(sizes + 1)])[:-1]
        self.row_cluster = np.repeat(np.arange(len(sizes)), sizes + 1)
        self.row_position = np.concatenate([np.arange(-1, n) for n in sizes]) \
            if len(sizes) else np.zeros(0, dtype=np.int64)
        # Where each member's records start among a shared chunk's subrecords.
        self.shared_offset = [self._offsets(chunk["members"], sizes) for chunk in self.shared]
        # Shared chunks over disjoint clusters share a column (a lane), so a joint cluster
        # of 40 clusters and 100 one-code shared chunks stays a few columns wide.
        self.lanes = shared_lanes([chunk["members"] for chunk in self.shared])
        # The shared chunk (or -1) each cluster shows in each lane: one lookup per cell.
        self.lane_chunk = np.full((len(self.lanes), len(sizes)), -1, dtype=np.int64)
        for lane, chunks in enumerate(self.lanes):
            for s in chunks:
                self.lane_chunk[lane, self.shared[s]["members"]] = s
        self._cells: dict[tuple[int, int], tuple[str, list[str] | None]] = {}
        bold = QFont()
        bold.setBold(True)
        self._bold = bold
        self._fills = {name: QBrush(QColor(c)) for name, c in (
            ("domain", DOMAIN_FILL), ("shared", SHARED_FILL), ("item", ITEM_FILL),
            ("found", FOUND_FILL))}

    @staticmethod
    def _offsets(members: Sequence[int], sizes: np.ndarray) -> dict[int, int]:
        offsets, start = {}, 0
        for member in members:
            offsets[member] = start
            start += int(sizes[member])
        return offsets

    # --- layout ----------------------------------------------------------------------------

    @property
    def item_column(self) -> int:
        return 1 + self.chunks

    def column_kind(self, column: int) -> tuple[str, int]:
        """("cluster", 0), ("record", j), ("item", 0) or ("shared", lane)."""
        if column == 0:
            return "cluster", 0
        if column < self.item_column:
            return "record", column - 1
        if column == self.item_column:
            return "item", 0
        return "shared", column - self.item_column - 1

    def domain_texts(self) -> list[set[str]]:
        """The domain texts shown in each column after the cluster column (for widths)."""
        texts: list[set[str]] = [set() for _ in range(self.chunks)]
        for cluster in self.clusters:
            for j, chunk in enumerate(cluster.get("record_chunks", [])):
                texts[j].add(codes_text(chunk["domain"]))
        texts.append({"(a set, no counts)"})
        for lane in self.lanes:
            texts.append({codes_text(self.shared[s]["domain"]) for s in lane})
        return texts

    def spans(self) -> list[tuple[int, int, int, int]]:
        """(row, column, rows, columns) to merge: the cluster label and the item chunk."""
        out = []
        for c, cluster in enumerate(self.clusters):
            start = int(self.block_start[c])
            out.append((start, 0, cluster["size"] + 1, 1))
            if cluster["size"] > 1:
                out.append((start + 1, self.item_column, cluster["size"], 1))
        return out

    def cell_codes(self, row: int, column: int) -> tuple[str, list[str] | None]:
        """(kind of cell, its codes): kind "domain", "subrecord", "item" or "none"."""
        key = (row, column)
        found = self._cells.get(key)
        if found is None:  # Qt asks each visible cell for a dozen roles per paint
            if len(self._cells) > 20_000:
                self._cells.clear()
            found = self._cells[key] = self._cell_codes(row, column)
        return found

    def _cell_codes(self, row: int, column: int) -> tuple[str, list[str] | None]:
        c, position = int(self.row_cluster[row]), int(self.row_position[row])
        cluster = self.clusters[c]
        kind, j = self.column_kind(column)
        if kind == "record":
            chunks = cluster.get("record_chunks", [])
            if j >= len(chunks):
                return "none", None
            chunk = chunks[j]
            return ("domain", chunk["domain"]) if position < 0 else \
                ("subrecord", chunk["subrecords"][position])
        if kind == "item":
            return ("domain", ["item chunk"]) if position < 0 else \
                ("item", cluster.get("item_chunk", []))
        if kind == "shared":
            s = int(self.lane_chunk[j, c])
            if s < 0:
                return "none", None
            chunk, offset = self.shared[s], self.shared_offset[s][c]
            if position < 0:
                return ("domain", chunk["domain"]) if c == chunk["members"][0] else ("none", None)
            return "subrecord", chunk["subrecords"][offset + position]
        return "none", None

    # --- Qt --------------------------------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.row_cluster)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self.item_column + 1 + len(self.lanes)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if column == 0:
            return self._cluster_cell(row, role)
        kind, codes = self.cell_codes(row, column)
        if role == Qt.ItemDataRole.DisplayRole:
            if kind == "none":
                return ""
            if kind == "domain" and codes == ["item chunk"]:
                return "(a set, no counts)"
            return codes_text(codes)
        if role == Qt.ItemDataRole.ToolTipRole and kind in ("domain", "subrecord", "item") \
                and codes and codes != ["item chunk"]:
            return tooltip(codes_tooltip(codes))
        if role == Qt.ItemDataRole.FontRole and kind == "domain":
            return self._bold
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._background(kind, column, codes)
        return None

    def _cluster_cell(self, row: int, role: int) -> Any:
        c = int(self.row_cluster[row])
        if role == Qt.ItemDataRole.DisplayRole:
            return f"P{self.first_number + c}\n{self.clusters[c]['size']} records"
        if role == Qt.ItemDataRole.FontRole:
            return self._bold
        return None

    def _background(self, kind: str, column: int, codes: list[str] | None) -> Any:
        if codes and self.found and any(icd9.normalize_code(c) in self.found for c in codes):
            return self._fills["found"]
        if kind == "domain":
            return self._fills["domain"]
        if kind == "item":
            return self._fills["item"]
        if kind == "subrecord" and self.column_kind(column)[0] == "shared":
            return self._fills["shared"]
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Vertical:
            position = int(self.row_position[section])
            return "domain" if position < 0 else str(position + 1)
        kind, j = self.column_kind(section)
        return {"cluster": "Cluster", "record": f"Record chunk C{j + 1}",
                "item": "Item chunk", "shared": "Shared chunks" if len(self.lanes) == 1
                else f"Shared chunks ({j + 1})"}[kind]

    def highlight(self, code: str) -> None:
        self.found = {icd9.normalize_code(code)} if code.strip() else set()
        if self.rowCount() and self.columnCount():
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(self.rowCount() - 1, self.columnCount() - 1))


def shared_lanes(members: Sequence[Sequence[int]]) -> list[list[int]]:
    """Shared chunks (by their member clusters) packed into columns: chunks in one
    column span disjoint ranges of clusters (first fit, in order of first member)."""
    lanes: list[list[int]] = []
    ends: list[int] = []
    for s in sorted(range(len(members)), key=lambda s: (min(members[s]), s)):
        low, high = min(members[s]), max(members[s])
        lane = next((i for i, end in enumerate(ends) if end < low), None)
        if lane is None:
            lanes.append([])
            ends.append(-1)
            lane = len(lanes) - 1
        lanes[lane].append(s)
        ends[lane] = high
    return lanes


class ClusterBrowser(QWidget):
    """The cluster list (with a code search) above the selected joint cluster's grid."""

    def __init__(self, published: Mapping[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.published = published
        self.index: PublicationIndex | None = None  # built in the background when shown
        self.job = ViewJob(self)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Find clusters holding a code, e.g. 296.01 or 29601")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.find)
        self.found = QLabel("Reading the clusters…")
        self.list_model: ClusterListModel | None = None
        self.list = QTableView()
        self.list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.verticalHeader().hide()
        self.list.verticalHeader().setDefaultSectionSize(22)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.grid = QTableView()
        self.grid.setWordWrap(True)
        self.grid.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.grid.verticalHeader().setDefaultSectionSize(22)
        self.grid.horizontalHeader().setDefaultSectionSize(170)
        self.grid.horizontalHeader().setStretchLastSection(True)
        self.grid_model: JointClusterModel | None = None
        self.shown_joint: int | None = None
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        bar.addWidget(self.search, 2)
        bar.addWidget(self.found, 3)
        top_layout.addLayout(bar)
        top_layout.addWidget(self.list, 1)
        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addWidget(self.heading)
        bottom_layout.addWidget(self.grid, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(bottom)
        splitter.setSizes([200, 400])
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(note(
            "Each cluster publishes its record chunks (subrecords in random order, empty ones "
            "as {}), its item chunk as a set without counts, and, in a joint cluster, shared "
            "chunks over the records of several clusters (green band). Which subrecords "
            "belong to the same patient is not published."))
        layout.addWidget(splitter, 1)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self.index is None and not self.job.running:
            self.start()

    def start(self) -> JobWorker:
        """Index the publication in the background; the list fills when done."""
        def build(progress=None, cancel=None) -> PublicationIndex:
            return PublicationIndex(self.published)

        return self.job.start(build, on_finished=self._indexed,
                              on_failed=self.found.setText)

    @property
    def worker(self) -> JobWorker | None:
        return self.job.worker

    def _indexed(self, index: PublicationIndex) -> None:
        self.index = index
        self.list_model = ClusterListModel(index, self)
        self.list.setModel(self.list_model)
        header = self.list.horizontalHeader()  # fixed widths: measuring 3,000 rows stalls
        for column, width in enumerate((60, 130, 70, 100, 100)):
            self.list.setColumnWidth(column, width)
        header.setSectionResizeMode(5, QHeaderView.ResizeMode.Stretch)
        self.list.selectionModel().currentRowChanged.connect(self._row_changed)
        # The first joint cluster on the next turn: one long pause made two short ones.
        QTimer.singleShot(1, lambda: self.find(self.search.text()))

    def find(self, text: str) -> None:
        """Show the clusters holding the code ``text`` (all for "") and mark it."""
        if self.index is None:
            return  # searched once the index is built
        rows = self.index.clusters_with(text)
        self.list_model.show_rows(rows)
        total = len(self.index.entries)
        code = display_code(icd9.normalize_code(text))
        self.found.setText(f"{len(rows):,} of {total:,} clusters hold {code}" if code else
                           f"{total:,} clusters in {len(self.index.joints):,} joint clusters")
        if self.grid_model is not None:
            self.grid_model.highlight(text)
        if rows:
            self.list.selectionModel().setCurrentIndex(
                self.list_model.index(0, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows)

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.show_cluster(self.list_model.entry(current.row()))

    def show_cluster(self, entry: ClusterEntry) -> None:
        """Show ``entry``'s joint cluster in the grid, scrolled to ``entry``."""
        if entry.joint != self.shown_joint:
            self._show_joint(entry.joint)
        model = self.grid_model
        joint = self.index.joints[entry.joint]
        members = len(joint["clusters"])
        self.heading.setText(
            f"<b>Joint cluster {entry.joint + 1}</b>: "
            + (f"{members} clusters, {len(model.shared)} shared chunk(s). " if members > 1
               else "a single cluster. ")
            + f"Cluster P{entry.number}: {entry.size:,} records, {entry.record_chunks} record "
            f"chunk(s), {len(entry.item_chunk)} code(s) in its item chunk.")
        row = int(model.block_start[entry.member])
        self.grid.scrollTo(model.index(row, 0), QAbstractItemView.ScrollHint.PositionAtTop)

    def _show_joint(self, joint: int) -> None:
        old = self.grid_model
        model = JointClusterModel(self.index.joints[joint], self.index.first_entry[joint] + 1,
                                  self.grid)
        model.highlight(self.search.text())
        self.grid.setModel(model)
        self.grid.clearSpans()
        for row, column, rows, columns in model.spans():
            self.grid.setSpan(row, column, rows, columns)
        self.grid.setColumnWidth(0, 90)
        metrics = self.grid.fontMetrics()
        for column, texts in enumerate(model.domain_texts(), start=1):  # the widest domain
            widest = max((metrics.horizontalAdvance(t) for t in texts), default=0)
            self.grid.setColumnWidth(column, min(max(widest + 24, 120), 420))
        self.grid_model, self.shown_joint = model, joint
        if old is not None:
            old.deleteLater()
