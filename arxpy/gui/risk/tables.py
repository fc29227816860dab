"""The Risk perspective's tables: attacker models, population uniqueness, quasi-identifiers
and HIPAA identifiers, each with input and output side by side.

Every function fills a read-only table from one or two :class:`RiskAnalysis` objects
(output None before a run: its columns are hidden). Numeric cells keep the raw value in
``VALUE_ROLE`` so that tests and sorting read numbers, not formatted text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QTableWidget

from arxpy.gui.plain_text import tooltip
from arxpy.gui.risk.common import (
    fixed_percent,
    number,
    percent,
    read_only_table,
    text_item,
    value_item,
)
from arxpy.risk import RiskAnalysis
from arxpy.risk.uniqueness import ESTIMATORS

SIDES = ("input", "output")
ESTIMATOR_TITLES = {"pitman": "Pitman", "zayatz": "Zayatz", "snb": "SNB", "dankar": "Dankar"}
SECTION_BRUSH = QBrush(QColor("#eef1f5"))

Measure = Callable[[RiskAnalysis], float | None]


def _attacker_rows(threshold: float) -> list[tuple[str, str, Measure]]:
    """(section, measure, getter) for the attacker-model table, in ARX's order."""
    rows: list[tuple[str, str, Measure]] = []
    for model in ("prosecutor", "journalist"):
        def risk(a: RiskAnalysis, model: str = model):
            return getattr(a.risks, model)
        rows += [
            (model, "Highest risk", lambda a, r=risk: r(a).highest),
            (model, "Records affected by highest risk", lambda a, r=risk: r(a).records_at_highest),
            (model, "Average risk", lambda a, r=risk: r(a).average),
            (model, "Estimated risk", lambda a, r=risk: r(a).estimated),
            (model, f"Records with risk above {percent(threshold)}",
             lambda a, r=risk: r(a).records_above_threshold),
        ]
    rows += [
        ("marketer", "Average risk (success rate)", lambda a: a.risks.marketer_average),
        ("marketer", "Estimated risk", lambda a: a.risks.marketer_estimated),
        ("sample", "Lowest prosecutor risk", lambda a: a.risks.lowest),
        ("sample", "Records affected by lowest risk", lambda a: a.risks.records_at_lowest),
        ("sample", "Sample uniqueness", lambda a: a.sample_uniqueness),
    ]
    return rows


SECTION_TITLES = {"prosecutor": "Prosecutor model", "journalist": "Journalist model",
                  "marketer": "Marketer model", "sample": "Sample"}
COUNT_ROWS: list[tuple[str, Callable[[RiskAnalysis], int]]] = [
    ("Records analysed (not suppressed)", lambda a: a.records_analyzed),
    ("Equivalence classes", lambda a: a.histogram.n_classes),
]


VALUE_WIDTH = 150


def _measure_first(table: QTableWidget) -> QTableWidget:
    """The measure column takes the room left by fixed-width value columns."""
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    for column in range(1, table.columnCount()):
        table.setColumnWidth(column, VALUE_WIDTH)
    return table


def attacker_table() -> QTableWidget:
    return _measure_first(read_only_table(["Measure", "Input", "Output"], bars=True))


def _section_row(table: QTableWidget, row: int, title: str) -> None:
    item = text_item(title, bold=True)
    item.setBackground(SECTION_BRUSH)
    table.setItem(row, 0, item)
    table.setSpan(row, 0, 1, table.columnCount())


def fill_attacker_table(table: QTableWidget, analyses: dict[str, RiskAnalysis | None],
                        threshold: float) -> dict[tuple[str, str], int]:
    """Fill the attacker-model table; returns {(section, measure): row} for look-ups."""
    table.clearSpans()
    rows = _attacker_rows(threshold)
    sections = list(dict.fromkeys(section for section, _, _ in rows))
    table.setRowCount(len(rows) + len(sections) + len(COUNT_ROWS))
    where: dict[tuple[str, str], int] = {}
    row, current = 0, None
    for section, measure, getter in rows:
        if section != current:
            _section_row(table, row, SECTION_TITLES[section])
            current, row = section, row + 1
        table.setItem(row, 0, text_item("    " + measure))
        for column, side in enumerate(SIDES, start=1):
            analysis = analyses.get(side)
            table.setItem(row, column, value_item(getter(analysis) if analysis else None, side))
        where[(section, measure)] = row
        row += 1
    for measure, getter in COUNT_ROWS:
        table.setItem(row, 0, text_item("    " + measure))
        for column, side in enumerate(SIDES, start=1):
            analysis = analyses.get(side)
            table.setItem(row, column, value_item(getter(analysis) if analysis else None,
                                                  formatter=number))
        where[("sample", measure)] = row
        row += 1
    table.setColumnHidden(2, analyses.get("output") is None)
    return where


def uniqueness_table() -> QTableWidget:
    return _measure_first(read_only_table(["Estimate", "Input", "Output"], bars=True))


def fill_uniqueness_table(table: QTableWidget,
                          analyses: dict[str, RiskAnalysis | None]) -> dict[str, int]:
    """Sample and population uniqueness per estimator; returns {key: row} (keys: "sample",
    the estimators, "population", "fraction")."""
    keys = ["sample", *ESTIMATORS, "population", "fraction"]
    table.setRowCount(len(keys))
    for row, key in enumerate(keys):
        table.setItem(row, 0, text_item(_uniqueness_title(key, analyses)))
        for column, side in enumerate(SIDES, start=1):
            table.setItem(row, column, _uniqueness_cell(key, analyses.get(side), side))
    table.setColumnHidden(2, analyses.get("output") is None)
    return {key: row for row, key in enumerate(keys)}


def _uniqueness_title(key: str, analyses: dict[str, RiskAnalysis | None]) -> str:
    if key == "sample":
        return "Sample uniqueness (records alone in their class)"
    if key == "population":
        return "Population size"
    if key == "fraction":
        return "Sampling fraction"
    title = f"Population uniqueness: {ESTIMATOR_TITLES[key]}"
    if key == "dankar":
        chosen = {a.population.dankar_model for a in analyses.values()
                  if a is not None and a.population is not None}
        chosen.discard("none")
        if chosen:
            names = " / ".join(ESTIMATOR_TITLES.get(c, c) for c in sorted(chosen))
            title += f" (chose {names})"
    return title


def _uniqueness_cell(key: str, analysis: RiskAnalysis | None, side: str):
    if analysis is None:
        return value_item(None)
    if key == "sample":
        return value_item(analysis.sample_uniqueness, side)
    population = analysis.population
    if population is None:
        return value_item(None)
    if key == "population":
        return value_item(population.population_size, formatter=number)
    if key == "fraction":
        return value_item(population.sampling_fraction, formatter=percent)
    item = value_item(population.fraction(key), side)
    if key in population.stopped_early:
        item.setText("n/a (stopped)")
        item.setToolTip("The solver spent its time budget before finding an estimate.")
    elif not population.available(key):
        why = "no solution" if math.isnan(population.uniques[key]) else "estimate of 0"
        item.setText(f"n/a ({why})")
        item.setToolTip(f"The estimator gave no usable estimate for this sample ({why}: its "
                        "equations have no solution its solver could find); ARX shows 0.")
    return item


def quasi_identifier_table() -> QTableWidget:
    table = read_only_table(["Attributes", "Size", "Distinction\n(input)",
                             "Distinction\n(output)", "Separation\n(input)",
                             "Separation\n(output)"], bars=True)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    for column in range(1, 6):
        table.setColumnWidth(column, 40 if column == 1 else 112)
    # No sort indicator: rows keep ARX's order (size, distinction, separation) until a
    # header is clicked.
    header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
    table.setSortingEnabled(True)
    return table


def fill_quasi_identifier_table(table: QTableWidget,
                                analyses: dict[str, RiskAnalysis | None]) -> None:
    """One row per combination of the input (ARX's order), output figures beside it."""
    for _ in quasi_identifier_table_steps(table, analyses):
        pass


def quasi_identifier_table_steps(table: QTableWidget,
                                 analyses: dict[str, RiskAnalysis | None],
                                 rows_per_step: int = 25) -> Iterator[None]:
    """:func:`fill_quasi_identifier_table` in steps of ``rows_per_step`` rows (about
    10 ms each), so that a redraw can yield to the event loop between them."""
    table.setSortingEnabled(False)
    scored = {side: {r.attributes: r for r in a.quasi_identifier_analysis.risks}
              for side, a in analyses.items()
              if a is not None and a.quasi_identifier_analysis is not None}
    order = list(scored.get("input", scored.get("output", {})))
    table.setRowCount(len(order))
    for row, attributes in enumerate(order):
        if row and row % rows_per_step == 0:
            yield
        name = text_item(", ".join(attributes))
        name.setToolTip(tooltip(name.text()))
        table.setItem(row, 0, name)
        size = value_item(len(attributes), formatter=number)
        table.setItem(row, 1, size)
        for offset, field in ((2, "distinction"), (4, "separation")):
            for shift, side in enumerate(SIDES):
                risk = scored.get(side, {}).get(attributes)
                value = getattr(risk, field) if risk is not None else None
                table.setItem(row, offset + shift,
                              value_item(value, side, formatter=fixed_percent))
    for column in (3, 5):
        table.setColumnHidden(column, "output" not in scored)
    table.setSortingEnabled(True)


def hipaa_table() -> QTableWidget:
    table = read_only_table(["Attribute", "Identifier", "Matched by", "Reason", "In the output"])
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
    return table


def fill_hipaa_table(table: QTableWidget, analyses: dict[str, RiskAnalysis | None],
                     output_columns: list[str] | None) -> None:
    """The input's HIPAA matches, and whether each is still there in the output
    (``output_columns`` are the output's attributes; None before a run)."""
    input_analysis, output_analysis = analyses.get("input"), analyses.get("output")
    matches = list(input_analysis.hipaa.matches) if input_analysis and input_analysis.hipaa \
        else []
    table.clearSpans()
    still = {(m.attribute, m.identifier) for m in output_analysis.hipaa.matches} \
        if output_analysis is not None and output_analysis.hipaa is not None else set()
    table.setRowCount(len(matches))
    for row, match in enumerate(matches):
        kind = match.identifier.replace("_", " ")
        if match.instance and match.instance.lower() != kind.lower():
            kind += f" ({match.instance})"
        by = "name" if match.match_type == "name" else "values"
        cells = [match.attribute, kind, by, match.reason,
                 _in_output(match.attribute, match.identifier, output_columns, still)]
        for column, text in enumerate(cells):
            item = text_item(text)
            if column == 3:
                item.setToolTip(tooltip(text))
            table.setItem(row, column, item)
    table.setColumnHidden(4, output_columns is None)
    if not matches:
        table.setRowCount(1)
        table.setItem(0, 0, text_item("No attribute looks like a HIPAA identifier."))
        table.setSpan(0, 0, 1, table.columnCount())
    table.resizeRowsToContents()  # long reasons wrap instead of being cut


def _in_output(attribute: str, identifier: str, columns: list[str] | None,
               still: set[tuple[str, str]]) -> str:
    if columns is None:
        return ""
    if attribute not in columns:
        return "removed"
    return "still flagged" if (attribute, identifier) in still else "no longer flagged"
