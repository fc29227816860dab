"""Column names and values are never read as HTML (issue 28, defect 9): a table whose
column names are HTML (an image tag pointing at a local file, bold tags) and whose values
hold tags is imported, anonymized and looked at in every perspective and tab; wherever
Qt or pyqtgraph renders rich text (labels in rich or guessed format, tooltips, plot
titles, axis labels, legends), the names appear escaped, never as tags."""

from __future__ import annotations

import numpy as np
import pytest
from gui_texts import rich_texts_by_widget, texts_with_format
from PySide6.QtWidgets import QTabWidget

from arxpy.data.definition import AttributeType
from arxpy.gui.hierarchy_wizard import HierarchyWizard
from arxpy.gui.import_wizard import ImportWizard
from arxpy.gui.main_window import PERSPECTIVES
from arxpy.hierarchy.model import Hierarchy

IMAGE = "<img src='arxpy-probe.png'>"
BOLD = "<b>Ward</b>"
ITALIC_VALUE = "<i>flu</i>"
TAGS = (IMAGE, BOLD, ITALIC_VALUE)
WAIT_MS = 60_000


def _csv(path, records: int = 200) -> None:
    rng = np.random.default_rng(28)
    lines = [f"age;{IMAGE};{BOLD};diagnosis"]
    for _ in range(records):
        lines.append(f"{rng.integers(20, 80)};{rng.choice(['a', 'b', 'c'])};"
                     f"{rng.choice(['North', 'South'])};"
                     f"{rng.choice([ITALIC_VALUE, 'asthma'])}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _imported(qtbot, tmp_path):
    path = tmp_path / "tags.csv"
    _csv(path)
    wizard = ImportWizard()
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.source_page.path.setText(str(path))
    wizard.next()
    wizard.next()
    assert wizard.columns_page.validatePage()
    return wizard.project


def _visit(window, qtbot) -> None:
    for index in range(len(PERSPECTIVES)):
        window.show_perspective(index)
        qtbot.wait(20)
        for tabs in window._tabs.widget(index).findChildren(QTabWidget):
            for tab in range(tabs.count()):
                tabs.setCurrentIndex(tab)
                qtbot.wait(10)


def test_html_in_column_names_and_values_is_shown_as_text(window, qtbot, tmp_path):
    project = _imported(qtbot, tmp_path)
    assert IMAGE in project.data.columns and BOLD in project.data.columns
    state = window.state
    window.show()
    window.set_project(project)
    for name in (IMAGE, BOLD):
        values = sorted(set(project.data[name]))
        state.set_hierarchy(name, Hierarchy([[v, "*"] for v in values]))
        state.set_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    state.set_attribute("diagnosis", type=AttributeType.SENSITIVE)
    state.update_settings(privacy_models=[{"kind": "k-anonymity", "k": 2}],
                          suppression_limit=0.1)
    for name in project.data.columns:
        window.configure.select_attribute(name)
    window.anonymize()
    qtbot.waitUntil(lambda: window.worker is None, timeout=WAIT_MS)
    state.pin(state.result.optimum.levels)
    state.update_settings(suppression_limit=0.2)  # the stale banner names the change
    state.undo_stack.undo()
    window.show_perspective(2)
    qtbot.waitUntil(lambda: window.utility.bundle is not None, timeout=WAIT_MS)
    utility = window.utility
    for name in (IMAGE, BOLD):  # every view of the attribute, chosen where one chooses
        utility.summary.select(name)
        utility.distribution.select(name)
    utility.contingency.select(IMAGE, BOLD)
    utility.classification.form.set_class_attribute(BOLD)
    utility.classification.form.set_classifier("bayes")
    utility.classification.run()
    qtbot.waitUntil(lambda: utility.classification.performance is not None,
                    timeout=WAIT_MS)
    utility.classification.run_overview()
    qtbot.waitUntil(lambda: not utility.classification.overview.controls.running,
                    timeout=WAIT_MS)
    assert utility.classification.overview.rows
    window.show_perspective(3)
    qtbot.waitUntil(lambda: window.risk.analysis("output") is not None
                    and not window.risk.busy, timeout=WAIT_MS)
    _visit(window, qtbot)
    lattice_texts = rich_texts_by_widget(window)
    panel = window.configure.method_panel  # a method run: its views name attributes too
    panel.combo.setCurrentIndex(panel.combo.findData("mdav"))
    window.anonymize()
    qtbot.waitUntil(lambda: window.worker is None, timeout=WAIT_MS)
    assert state.runs
    _visit(window, qtbot)
    dialog = HierarchyWizard(project.data[IMAGE], IMAGE, project.definition[IMAGE].data_type,
                             window)
    qtbot.addWidget(dialog)
    dialogs = rich_texts_by_widget(dialog)
    shown = [text for text, _rich in texts_with_format(window)]
    assert any(IMAGE in text for text in shown)  # the names are shown, as text
    leaked = sorted({(path, text[:70])
                     for path, text in lattice_texts + rich_texts_by_widget(window) + dialogs
                     if any(tag in text for tag in TAGS) and "QHeaderView" not in path})
    assert not leaked, f"rendered as HTML: {leaked}"


@pytest.mark.parametrize("name", [IMAGE, BOLD])
def test_plot_labels_escape_names(qtbot, name):
    """pyqtgraph renders titles and axis labels as HTML: the helper escapes them."""
    from arxpy.gui.plain_text import set_axis_label, set_title
    from arxpy.gui.utility.common import plot_widget

    widget = plot_widget()
    qtbot.addWidget(widget)
    set_title(widget.getPlotItem(), f"Distribution of {name}")
    set_axis_label(widget.getPlotItem(), "bottom", name)
    plot = widget.getPlotItem()
    assert name not in plot.titleLabel.text and "&lt;" in plot.titleLabel.text
    assert name not in plot.getAxis("bottom").labelText
