"""Every registered method in the desktop application: choose and configure it in
Configure, run it in the background, look at its runs in Explore, and analyse the
selected run in Utility, Risk and Export."""

from __future__ import annotations

import copy
import dataclasses
import html
import time

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTabWidget

from arxpy.example import example_project
from arxpy.gui.main_window import PERSPECTIVES
from arxpy.gui.methods.views import register_result_view
from arxpy.jobs import CancelToken
from arxpy.methods import method_classes
from arxpy.methods.base import Method
from arxpy.params import Param
from arxpy.project import Project
from arxpy.release import Claim, Release, table_sha256
from arxpy.workflows.method_choice import LATTICE, LATTICE_LABEL
from arxpy.workflows.pins import Pin, of_run

RECORDS = 400


@pytest.fixture(scope="module")
def example():
    return example_project(records=RECORDS)


def fresh(project: Project) -> Project:
    """A copy of ``project`` whose settings and hierarchies a test may change (the data
    are never edited here, so they are shared)."""
    return dataclasses.replace(project, settings=copy.deepcopy(project.settings),
                               hierarchies=dict(project.hierarchies))


@pytest.fixture
def window(window, example):
    window.show()
    window.set_project(fresh(example))
    return window


def choose(window, name: str) -> None:
    panel = window.configure.method_panel
    panel.combo.setCurrentIndex(panel.combo.findData(name))


def set_k(window, k: int) -> None:
    panel = window.configure.method_panel
    panel.form.widgets["k"].setValue(k)
    panel.commit()


def run_and_wait(window, qtbot) -> None:
    worker = window.anonymize()
    assert worker is not None
    qtbot.waitUntil(lambda: window.worker is None, timeout=30_000)


def interval_run_over_age(window, qtbot):
    """Interval generalisation over Age alone (the example declares eight quasi-identifiers)."""
    choose(window, "intervals")
    panel = window.configure.method_panel
    panel.form.widgets["attributes"].findItems("Age", Qt.MatchFlag.MatchExactly)[0] \
        .setCheckState(Qt.CheckState.Checked)
    panel.commit()
    run_and_wait(window, qtbot)
    (run,) = window.state.runs
    return run


def condensation_run(window, qtbot, k: int = 5):
    choose(window, "condensation")
    set_k(window, k)
    before = len(window.state.runs)
    run_and_wait(window, qtbot)
    assert len(window.state.runs) == before + 1
    return window.state.runs[-1]


# --- Configure: selector and form --------------------------------------------------------


def test_selector_lists_the_lattice_first_then_every_registered_method(window):
    combo = window.configure.method_panel.combo
    names = [combo.itemData(i) for i in range(combo.count())]
    assert names[0] == LATTICE and combo.itemText(0) == LATTICE_LABEL
    assert sorted(names) == sorted(method_classes())
    baselines = [method_classes()[name].comparison_baseline for name in names[1:]]
    assert baselines == sorted(baselines) and any(baselines), "baselines come last"
    for i, name in enumerate(names[1:], start=1):
        cls = method_classes()[name]
        said = ": comparison baseline" if cls.comparison_baseline else ""
        assert combo.itemText(i) == cls.label + said
        assert combo.itemData(i, Qt.ItemDataRole.ToolTipRole) == cls.description


def test_choosing_a_method_shows_its_form_and_hides_the_lattice_panels(window):
    panel = window.configure.method_panel
    assert panel.pages.currentIndex() == 0  # the privacy and search panels
    choose(window, "intervals")
    assert window.state.settings["method"] == "intervals"
    assert panel.pages.currentIndex() == 1
    cls = method_classes()["intervals"]
    assert list(panel.form.widgets) == [p.name for p in cls.params]
    for param in cls.params:  # the declaration's help is the tooltip
        assert param.help in panel.form.widgets[param.name].toolTip()
    assert "lattice search" in panel.note.text()
    assert window.configure.anonymize_button.text() == f"Run {cls.label}"
    attributes = window.configure.attribute_panel
    attributes.select("Age")  # a quasi-identifier: its level range is lattice-only
    assert not attributes.min_level.isEnabled() and "lattice" in attributes.min_level.toolTip()
    choose(window, LATTICE)
    assert attributes.min_level.isEnabled()


def test_the_methods_own_checks_show_inline_and_name_the_field(window, qtbot):
    choose(window, "intervals")
    panel = window.configure.method_panel
    # No attribute chosen: the method's constructor refuses, the message shows.
    assert panel.error.isVisibleTo(panel) and "attributes" in panel.error.text()
    assert panel.form.widgets["attributes"].property("invalid")  # the named field is marked
    attributes = panel.form.widgets["attributes"]
    attributes.findItems("Age", Qt.MatchFlag.MatchExactly)[0].setCheckState(
        Qt.CheckState.Checked)
    assert panel.check() == ""
    assert not panel.error.isVisibleTo(panel)
    assert not panel.form.widgets["attributes"].property("invalid")
    panel.form.widgets["statistic"].setText("mean:Charge")  # not among the attributes
    assert "Charge" in panel.check()
    panel.commit()
    assert window.state.settings["method_parameters"]["intervals"]["statistic"] == "mean:Charge"
    # Running with such parameters is refused with the same message, nothing starts.
    errors = []
    window.error = lambda title, message: errors.append(message)
    assert window.anonymize() is None
    assert errors and "Charge" in errors[0]


def test_an_unreadable_mapping_is_explained_and_not_written(window):
    choose(window, "condensation")
    panel = window.configure.method_panel
    panel.form.widgets["types"].setText("Age integer")
    assert "attribute=value" in panel.check()
    panel.commit()
    assert "types" not in window.state.settings.get("method_parameters", {}).get(
        "condensation", {})
    panel.form.widgets["types"].setText("Age=integer, Sex=categorical")
    assert panel.check() == ""
    panel.commit()
    assert window.state.settings["method_parameters"]["condensation"]["types"] == {
        "Age": "integer", "Sex": "categorical"}


def test_undo_and_redo_of_the_method_choice(window):
    state, panel = window.state, window.configure.method_panel
    choose(window, "condensation")
    set_k(window, 7)
    state.undo_stack.undo()  # the parameters
    state.undo_stack.undo()  # the choice
    assert state.settings.get("method", LATTICE) == LATTICE
    assert panel.combo.currentData() == LATTICE and panel.pages.currentIndex() == 0
    state.undo_stack.redo()
    assert panel.combo.currentData() == "condensation" and panel.pages.currentIndex() == 1
    state.undo_stack.redo()
    assert panel.form.widgets["k"].value() == 7


# --- running, the runs list and the current release ----------------------------------


def test_a_condensation_run_reaches_explore_utility_risk_and_export(window, qtbot, tmp_path):
    run = condensation_run(window, qtbot)
    state = window.state
    assert run.release.method == "condensation" and run.release.records == RECORDS
    assert state.showing_runs and state.current_run is run
    assert window.current_perspective() == "Explore"
    page = window.runs_page
    assert page.table.rowCount() == 1
    assert page.table.item(0, 0).text() == run.label and "k=5" in page.table.item(0, 2).text()
    assert [page.tabs.tabText(i) for i in range(2)] == ["Summary", "Groups"]
    # Utility analyses the run's release.
    window.show_perspective(2)
    qtbot.waitUntil(lambda: window.utility.bundle is not None, timeout=20_000)
    assert window.utility.applied.run is run
    assert html.escape(run.label, quote=False) in window.utility.heading.text()
    # Risk: the output side is the run's release.
    window.show_perspective(3)
    qtbot.waitUntil(lambda: window.risk.analysis("output") is not None, timeout=30_000)
    assert window.risk.analysis("output").records == RECORDS
    assert html.escape(run.label, quote=False) in window.risk.heading.text()
    # Export writes the run's table, and the HTML report through the dialog.
    target = tmp_path / "condensed.csv"
    assert window.projects.export_data(target)
    written = pd.read_csv(target, dtype=str, keep_default_na=False)
    released = run.release.export_table().astype(str)
    # The same rows, shuffled (rows in input order could be joined by row number).
    columns = list(released.columns)
    pd.testing.assert_frame_equal(
        written.sort_values(columns).reset_index(drop=True),
        released.sort_values(columns).reset_index(drop=True), check_dtype=False)
    dialog = window.explore.export_dialog()
    qtbot.addWidget(dialog)
    assert "Export the method run" in dialog.windowTitle()
    dialog.path.setText(str(tmp_path / "again.csv"))
    dialog.start_export()
    qtbot.waitUntil(lambda: (tmp_path / "again_report.html").exists(), timeout=20_000)
    assert "condensation" in (tmp_path / "again_report.html").read_text(encoding="utf-8")


def test_the_badge_recounts_groups_instead_of_trusting_the_method(window, qtbot):
    run = condensation_run(window, qtbot, k=5)
    checks = run.release.verify().checks
    kept = run.release.groups[~run.release.suppressed]
    smallest = np.bincount(kept).min()
    assert smallest >= 5 and checks[0].holds and f"smallest cluster {smallest}" in checks[0].finding
    # A release whose claim is false is caught, whatever the method says.
    data = pd.DataFrame({"a": ["1", "2", "3", "4", "5"]})
    lying = Release(table=data, suppressed=np.zeros(5, dtype=bool),
                    definition=run.definition.__class__.from_list(
                        [{"name": "a", "type": "quasi-identifying"}]),
                    method="dummy", parameters={},
                    claims=(Claim("k-cluster", {"k": 3}, ("a",), "groups of 3"),),
                    input_sha256=table_sha256(data), groups=np.array([0, 0, 0, 1, 1]))
    (check,) = lying.verify().checks
    assert check.holds is False and "smallest cluster 2 records" in check.finding
    assert not lying.anonymous


def test_cancel_stops_a_run_and_keeps_nothing(window, qtbot, monkeypatch):
    started = []

    class Endless(Method):
        name, label, description = "endless-test", "Endless (test)", "Runs until cancelled."
        params = (Param("k", "int", 2, low=1),)

        def run(self, data, definition, *, hierarchies=None, progress=None,
                cancel: CancelToken | None = None):
            started.append(True)
            while True:
                progress(0.5, "Waiting")
                cancel.raise_if_cancelled()
                time.sleep(0.01)

    monkeypatch.setitem(__import__("arxpy.methods.registry", fromlist=["_METHODS"])
                        ._METHODS._classes, Endless.name, Endless)
    window.state.update_settings("test", method=Endless.name)
    worker = window.anonymize()
    qtbot.waitUntil(lambda: bool(started), timeout=5_000)
    assert window.cancel_button.isVisible()
    with qtbot.waitSignal(worker.cancelled, timeout=5_000):
        window.cancel()
    assert window.worker is None and window.state.runs == []
    assert "cancelled" in window.statusBar().currentMessage()


def test_switching_back_to_generalization_restores_the_lattice_flow(window, qtbot):
    run = condensation_run(window, qtbot)
    state = window.state
    choose(window, LATTICE)
    assert not state.showing_runs and state.current_release() is None
    assert window.configure.anonymize_button.text() == "Anonymize"
    run_and_wait(window, qtbot)
    assert state.result is not None and state.current_release().is_lattice
    # The run is kept, only not current; the search joined the list beside it.
    assert state.runs[0] is run and len(state.runs) == 2
    assert state.runs[1].method.name == "generalization" and state.runs[1].result is state.result
    # Choosing the method again brings its runs back as the current release.
    choose(window, "condensation")
    assert state.current_release().run is run


def test_a_parameter_edit_makes_the_run_stale_and_undo_current_again(window, qtbot):
    condensation_run(window, qtbot, k=5)
    set_k(window, 6)
    assert window.state.stale and "parameters" in window.stale_banner.text()
    assert window.stale_banner.isVisible()
    window.state.undo_stack.undo()
    assert not window.state.stale and not window.stale_banner.isVisible()


def test_runs_page_shows_registered_views_renames_removes_and_compares(window, qtbot):
    seen = []

    def dummy_view(run):
        seen.append(run)
        return QLabel(f"dummy view of {run.label}")

    register_result_view(["condensation"], "Dummy test view", dummy_view)
    try:
        first = condensation_run(window, qtbot, k=5)
        page = window.runs_page
        titles = [page.tabs.tabText(i) for i in range(page.tabs.count())]
        assert titles[:2] == ["Summary", "Groups"] and "Dummy test view" in titles
        assert seen == [first]
        second = condensation_run(window, qtbot, k=10)
        assert page.rename(second, "ten")
        assert window.state.runs[-1].label == "ten"
        assert not page.rename(window.state.runs[-1], first.label)  # names stay unique
        # Click the first run, Ctrl-click the second: both stay selected, the second is
        # the current release.
        page.table.selectRow(0)
        assert window.state.current_run is window.state.runs[0]
        rect = page.table.visualRect(page.table.model().index(1, 3))
        qtbot.mouseClick(page.table.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.ControlModifier, rect.center())
        assert window.state.current_run is window.state.runs[1]
        assert page.selected_runs() == window.state.runs
        page.compare_selected()
        qtbot.waitUntil(lambda: page.compare_table.columnCount() == 3, timeout=10_000)
        headers = [page.compare_table.horizontalHeaderItem(i).toolTip() for i in range(1, 3)]
        assert headers == [first.label, "ten"]  # the full names (headers wrap)
        window.state.remove_run(first)
        assert [r.label for r in window.state.runs] == ["ten"]
        assert page.table.rowCount() == 1
    finally:
        from arxpy.gui.methods import views
        views._VIEWS["condensation"] = [(t, f) for t, f in views._VIEWS["condensation"]
                                        if t != "Dummy test view"]


def test_the_study_explains_it_needs_the_lattice(window, qtbot):
    condensation_run(window, qtbot)
    window.show_perspective(2)
    study = window.utility.study
    assert not study.controls.run_button.isEnabled()
    assert "lattice" in study.controls.status.text()


# --- project files and fitting the screen ------------------------------------------------


def test_the_project_file_keeps_the_method_and_parameters_but_not_runs(window, qtbot,
                                                                       tmp_path):
    condensation_run(window, qtbot, k=6)
    path = tmp_path / "methods.arxpy"
    assert window.projects.save_to(path)
    loaded = Project.load(path)
    assert loaded.settings["method"] == "condensation"
    assert loaded.settings["method_parameters"]["condensation"]["k"] == 6
    window.set_project(loaded, path)
    assert window.configure.method_panel.combo.currentData() == "condensation"
    assert window.configure.method_panel.form.widgets["k"].value() == 6
    assert window.state.runs == [] and window.state.current_release() is None
    assert "No method run yet" in window.runs_page.heading.text()


def test_window_fits_1280x720_after_every_view_of_a_method_run(window, qtbot):
    window.resize(1920, 1080)
    condensation_run(window, qtbot)
    for index in range(len(PERSPECTIVES)):
        window.show_perspective(index)
        qtbot.wait(30)
        for tabs in window._tabs.widget(index).findChildren(QTabWidget):
            for tab in range(tabs.count()):
                tabs.setCurrentIndex(tab)
                qtbot.wait(20)
    qtbot.waitUntil(lambda: window.utility.bundle is not None, timeout=20_000)
    for size in ((1366, 768), (1280, 720)):
        window.resize(*size)
        qtbot.wait(20)
        assert window.size().toTuple() == size, window.minimumSizeHint().toTuple()


def test_an_interval_release_survives_every_view_and_is_classified(window, qtbot):
    run = interval_run_over_age(window, qtbot)
    assert run.release.transformation is None and run.release.table["Age"].str.startswith(
        "[").all()
    utility = window.utility
    window.show_perspective(2)
    for tab in range(utility.tabs.count()):
        utility.tabs.setCurrentIndex(tab)
        qtbot.wait(20)
    qtbot.waitUntil(lambda: utility.bundle is not None, timeout=20_000)
    data = utility.data_tables
    qtbot.waitUntil(lambda: data.last_job is not None and not data.last_job.running,
                    timeout=20_000)
    classification = utility.classification
    assert classification.controls.run_button.isEnabled()
    classification.form.set_class_attribute("Charge", "10000, 50000")
    classification.form.set_features(["Age", "Sex", "Length of stay"])
    classification.controls.run_button.click()
    qtbot.waitUntil(lambda: classification.performance is not None, timeout=60_000)
    # The panel's figure is the headless one: every held-out record predicted from its
    # released row (its box), the model trained on the other folds' released rows.
    from arxpy.analysis.classification import (
        ClassificationTask,
        bin_values,
        evaluate_release,
    )
    frame = run.data.copy()
    frame["Charge"] = bin_values(frame["Charge"], [10000, 50000])
    config = classification.form.config()
    task = ClassificationTask(frame, run.definition, window.state.project.hierarchies,
                              config)
    expected = evaluate_release(task, run.release, class_edges=[10000, 50000])
    assert classification.performance.accuracy == expected.accuracy
    assert expected.accuracy > expected.baseline_accuracy
    assert "intervals release" in classification.heading.text()
    window.show_perspective(3)
    qtbot.waitUntil(lambda: window.risk.analysis("output") is not None, timeout=30_000)
    for tab in range(window.risk.tabs.count()):
        window.risk.tabs.setCurrentIndex(tab)
        qtbot.wait(20)


def test_interval_over_age_reads_not_anonymous_in_explore_compare_and_risk(window, qtbot):
    """One release, one verdict: the badge, Compare and Risk print the same sentence."""
    from arxpy.gui.methods.run_views import RunSummaryView

    run = interval_run_over_age(window, qtbot)
    headline = run.release.verify().headline
    assert headline.startswith("Not anonymous over the declared quasi-identifiers "
                               "(smallest class 1)")
    window.show_perspective(1)
    qtbot.waitUntil(lambda: bool(window.runs_page.findChildren(RunSummaryView)),
                    timeout=10_000)
    badge = window.runs_page.findChildren(RunSummaryView)[0].badge.text()
    assert html.escape(headline) in badge and "✔" not in badge
    window.show_perspective(3)
    qtbot.waitUntil(lambda: window.risk.analysis("output") is not None
                    and not window.risk.busy, timeout=30_000)
    assert html.escape(headline, quote=False) in window.risk.heading.text()
    window.show_perspective(2)
    qtbot.waitUntil(lambda: window.utility.bundle is not None, timeout=30_000)
    assert html.escape(headline, quote=False) in window.utility.heading.text()


def test_other_methods_parameters_do_not_make_the_lattice_result_stale(window, qtbot):
    run_and_wait(window, qtbot)  # the lattice search with the example's settings
    state = window.state
    assert state.result is not None and not state.stale
    fingerprint = state.fingerprint()
    choose(window, "condensation")
    set_k(window, 9)
    choose(window, LATTICE)
    assert not state.stale and not window.stale_banner.isVisible()
    assert state.saved_result_record() is not None  # still saved with the project
    assert state.fingerprint() == fingerprint  # and restored on open
    state.update_settings("x", suppression_limit=0.1)
    assert state.stale and "suppression limit" in window.stale_banner.text()


def test_parameters_of_each_method_are_kept_when_switching():
    from arxpy.workflows.method_choice import (
        build_method,
        key_parameters,
        lattice_settings,
        method_parameters,
        with_parameters,
    )

    settings = {"privacy_models": [], "method": "mdav"}
    settings = with_parameters(settings, "mdav", {"k": 4})
    settings = with_parameters(settings, "condensation", {"k": 7, "generator": "uniform"})
    assert method_parameters(settings, "mdav") == {"k": 4}
    assert build_method(settings).get_params()["k"] == 4
    condensation = build_method(settings, "condensation")
    assert key_parameters(condensation) == "k=7, generator=uniform"
    assert lattice_settings(settings) == {"privacy_models": []}


def test_form_fields_for_every_kind_a_method_declares(qtbot):
    from arxpy.gui.param_form import NOT_GIVEN, ParamForm

    params = (Param("attributes", "attributes"), Param("statistic", "text", "uniform"),
              Param("label", "text", None, optional=True),
              Param("types", "mapping", {}), Param("limit", "float", None, optional=True,
                                                   low=0.0, low_open=True),
              Param("status", "attribute", None, optional=True))
    form = ParamForm(params, {"attributes": ["B"], "types": {"A": "integer"}},
                     attributes=("A", "B", "C"))
    qtbot.addWidget(form)
    assert form.values() == {"attributes": ["B"], "statistic": "uniform",
                             "types": {"A": "integer"}}  # optional fields left out
    assert form.widgets["limit"].text() == NOT_GIVEN
    form.widgets["attributes"].item(0).setCheckState(Qt.CheckState.Checked)
    form.widgets["label"].setText("x")
    form.widgets["limit"].setValue(2.5)
    form.widgets["status"].setCurrentIndex(3)
    assert form.values() == {"attributes": ["A", "B"], "statistic": "uniform", "label": "x",
                             "types": {"A": "integer"}, "limit": 2.5, "status": "C"}


def test_compare_pinned_takes_a_search_candidate_and_a_method_run(window, qtbot):
    run_and_wait(window, qtbot)  # the lattice search
    state = window.state
    other = next(c.levels for c in state.result.checked_transformations()
                 if c.state == "anonymous" and c.levels != state.applied)
    state.pin(other)  # as the lattice's context menu does
    search = state.search_run()
    assert state.pinned == [other] and search is not None
    run = condensation_run(window, qtbot)
    state.pin_run(run)
    page = window.runs_page
    assert page.buttons["Compare pinned"].text() == "Compare pinned (2)"
    page.compare_pinned()
    qtbot.waitUntil(lambda: page.compare_table.columnCount() == 3, timeout=10_000)
    headers = [page.compare_table.horizontalHeaderItem(i).toolTip() for i in range(1, 3)]
    assert headers == [f"{search.label} {list(other)}", run.label]
    rows = [page.compare_table.item(r, 0).text() for r in range(page.compare_table.rowCount())]
    verdict = page.compare_table.item(rows.index("verdict"), 2).text()
    assert verdict == run.release.verify().headline  # the same sentence as everywhere
    assert "Which to publish?" in page.advice.text()


def test_a_saved_lattice_result_is_not_restored_by_running_another_method(window, qtbot,
                                                                          tmp_path):
    run_and_wait(window, qtbot)  # the lattice search: its result is saved
    choose(window, "condensation")
    path = tmp_path / "saved.arxpy"
    assert window.projects.save_to(path)
    assert Project.load(path).saved_result is not None
    assert window.projects.open_project(path)
    assert window.worker is None and window.state.runs == []
    assert "another method is chosen" in window.statusBar().currentMessage()


@pytest.mark.parametrize("settings, key", [
    ({"method": 3}, "settings.method"),
    ({"method_parameters": ["k", 5]}, "settings.method_parameters"),
    ({"method_parameters": {"condensation": 5}}, "settings.method_parameters.condensation"),
])
def test_project_files_with_a_malformed_method_choice_are_refused(settings, key):
    from arxpy.project_manifest import ManifestError, validate_manifest

    manifest = {"schema_version": 1, "definition": [], "settings": settings}
    with pytest.raises(ManifestError, match=key.replace(".", r"\.")):
        validate_manifest(manifest, 1)


def test_a_method_refusing_the_data_shows_one_clear_message(window, qtbot):
    errors = []
    window.error = lambda title, message: errors.append((title, message))
    choose(window, "condensation")
    set_k(window, RECORDS + 1)  # accepted by the form, refused by the run
    run_and_wait(window, qtbot)
    assert window.state.runs == []
    ((_, message),) = errors
    assert f"k = {RECORDS + 1} exceeds the {RECORDS} records" in message
    assert "Traceback" not in message and "Unexpected" not in message


def test_the_interval_form_names_the_gradient_rule_and_warns_of_ignored_attributes(window):
    choose(window, "intervals")
    panel = window.configure.method_panel
    for name in ("Age", "Charge"):
        panel.form.widgets["attributes"].findItems(name, Qt.MatchFlag.MatchExactly)[0] \
            .setCheckState(Qt.CheckState.Checked)
    panel.form.widgets["statistic"].setText("variance:Age")
    panel.check()
    assert "Gradient rule: variance:Age" in panel.hint.text()
    assert "ignores Charge" in panel.hint.text() and "boundaries" in panel.hint.text()
    choose(window, "improved-condensation")
    assert "survival time" in panel.hint.text() and panel.hint.isVisibleTo(panel)
    choose(window, "mdav")
    assert not panel.hint.isVisibleTo(panel)


def test_a_project_naming_an_unknown_method_says_so_instead_of_searching(window, qtbot,
                                                                        example):
    project = fresh(example)
    project.settings = {**project.settings, "method": "from-the-future"}
    window.set_project(project)
    panel = window.configure.method_panel
    assert panel.combo.currentIndex() == -1 and panel.pages.currentIndex() == 1
    assert "from-the-future" in panel.error.text() and panel.error.isVisibleTo(panel)
    errors = []
    window.error = lambda title, message: errors.append(message)
    assert window.anonymize() is None  # neither the lattice search nor anything else
    assert errors and "Unknown method 'from-the-future'" in errors[0]
    choose(window, "mdav")
    assert not panel.error.isVisibleTo(panel) and panel.form is not None


def test_the_k_anonymity_baseline_runs_from_configure_and_its_claim_is_recounted(window,
                                                                                 qtbot):
    choose(window, "k-anonymity-baseline")
    set_k(window, 5)
    run_and_wait(window, qtbot)
    run = window.state.runs[-1]
    assert run.method.name == "k-anonymity-baseline"
    release = run.release
    kept = release.table.loc[~release.suppressed]
    assert kept.groupby(release.quasi_identifiers).size().min() >= 5
    assert all(check.holds for check in release.verify().checks) and release.anonymous


# --- a bounded list of runs ----------------------------------------------------------------


def test_the_oldest_unpinned_run_goes_never_a_pinned_or_the_current_one():
    from types import SimpleNamespace

    from arxpy.workflows.runs import run_to_drop

    a, b, c = (SimpleNamespace(pinned=p) for p in (True, False, False))
    assert run_to_drop([a, b, c], current=c, limit=4) is None  # room left
    assert run_to_drop([a, b, c], current=c, limit=3) is b  # a pinned
    assert run_to_drop([a, b, c], current=b, limit=3) is c  # b current
    assert run_to_drop([a, b], current=b, limit=2) is None  # nothing droppable: grows


def _answer(monkeypatch, answer):
    from PySide6.QtWidgets import QMessageBox

    asked = []

    def question(_parent, _title, text, *_args):
        asked.append(text)
        return getattr(QMessageBox.StandardButton, answer)

    monkeypatch.setattr("arxpy.gui.methods.run_actions.QMessageBox.question", question)
    return asked


def test_a_full_list_warns_before_a_run_and_drops_the_oldest_unpinned(window, qtbot,
                                                                     monkeypatch):
    state = window.state
    state.max_runs = 3
    first = condensation_run(window, qtbot, k=5)
    first = state.pin_run(first)
    second = condensation_run(window, qtbot, k=6)
    third = condensation_run(window, qtbot, k=7)
    assert [r.label for r in state.runs] == [first.label, second.label, third.label]
    asked = _answer(monkeypatch, "No")
    assert window.anonymize() is None  # declined: nothing runs, nothing goes
    assert len(asked) == 1 and second.label in html.unescape(asked[0])
    assert [r.label for r in state.runs] == [first.label, second.label, third.label]
    asked = _answer(monkeypatch, "Yes")
    set_k(window, 8)
    run_and_wait(window, qtbot)
    fourth = state.runs[-1]
    # second went: first is pinned, third was current when the run finished.
    assert [r.label for r in state.runs] == [first.label, third.label, fourth.label]
    assert state.current_run is fourth and state.runs[0].pinned
    assert "[pinned]" in window.runs_page.table.item(0, 0).text()


def test_the_number_of_kept_runs_is_a_setting(tmp_path, qtbot):
    from PySide6.QtCore import QSettings

    from arxpy.gui.main_window import MainWindow
    from arxpy.workflows.runs import DEFAULT_KEPT_RUNS

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    assert MainWindow(settings=settings).state.max_runs == DEFAULT_KEPT_RUNS == 20
    for value, kept in ((5, 5), ("nonsense", DEFAULT_KEPT_RUNS), (0, 1)):
        settings.setValue("runs/keep", value)
        window = MainWindow(settings=settings)
        qtbot.addWidget(window)
        assert window.state.max_runs == kept


def test_method_runs_are_saved_with_the_project_and_come_back(window, qtbot, tmp_path):
    """A run makes the project modified; saved, closed and reopened, the runs return
    (computed again, the same releases) with their labels and pins, and the project is
    not modified by that."""
    first = condensation_run(window, qtbot, k=5)
    assert window.state.modified  # the Unsaved changes prompt now covers the run
    second = condensation_run(window, qtbot, k=7)
    window.state.pin_run(second)
    path = tmp_path / "runs.arxpy"
    assert window.projects.save_to(path)
    assert not window.state.modified
    window.set_project(None)
    assert window.projects.open_project(path)
    qtbot.waitUntil(lambda: len(window.state.runs) == 2, timeout=30_000)
    labels = [run.label for run in window.state.runs]
    assert labels == [first.label, second.label]
    assert [run.pinned for run in window.state.runs] == [False, True]
    assert [run.release.output_sha256 for run in window.state.runs] == [
        first.release.output_sha256, second.release.output_sha256]
    assert not window.state.modified
    assert "not restored" not in window.statusBar().currentMessage()


def _count_runs(monkeypatch) -> dict[str, int]:
    """Count every lattice search and improved-condensation run from now on."""
    from arxpy.gui import main_window
    from arxpy.methods.condensation.improved import ImprovedCondensation
    from arxpy.methods.generalization import Generalization

    calls = {"search": 0, "improved-condensation": 0}

    def counted(key, function):
        def wrapper(*args, **kwargs):
            calls[key] += 1
            return function(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(main_window, "checked_anonymize",
                        counted("search", main_window.checked_anonymize))
    monkeypatch.setattr(Generalization, "run", counted("search", Generalization.run))
    monkeypatch.setattr(ImprovedCondensation, "run",
                        counted("improved-condensation", ImprovedCondensation.run))
    return calls


def test_pins_of_three_runs_compare_save_and_return_without_running_again(
        window, qtbot, tmp_path, monkeypatch):
    """Issue 30's acceptance: two searches (k = 5, k = 10) and improved condensation,
    candidates pinned from all three, compared; saved, closed and reopened, the runs,
    pins and comparison return and nothing is searched or run again."""
    calls = _count_runs(monkeypatch)
    state, page = window.state, window.runs_page
    run_and_wait(window, qtbot)  # the example's settings: k = 5
    models = state.settings["privacy_models"]
    state.update_settings(privacy_models=[{**models[0], "k": 10}, *models[1:]])
    run_and_wait(window, qtbot)
    five, ten = [r for r in state.runs if r.method.name == "generalization"]
    assert "5-anonymity" in five.label and "10-anonymity" in ten.label
    choose(window, "improved-condensation")
    window.configure.method_panel.form.widgets["time"].setCurrentText("Length of stay")
    set_k(window, 5)
    run_and_wait(window, qtbot)
    condensed = state.runs[-1]
    assert calls == {"search": 2, "improved-condensation": 1}

    state.pin_run(five)  # the k = 5 optimum, though k = 10 is the current search
    other = next(c.levels for c in ten.result.checked_transformations()
                 if c.state == "anonymous" and c.levels != ten.release.levels)
    state.pin(ten.release.levels)
    state.pin(other)
    state.pin_run(condensed)
    names = [f"{five.label} {list(five.release.levels)}",
             f"{ten.label} {list(ten.release.levels)}", f"{ten.label} {list(other)}",
             condensed.label]
    page.target.setCurrentIndex(page.target.findData("Charge"))  # as a user chooses
    page.target.activated.emit(page.target.currentIndex())
    page.target_bins.setText("10000, 50000")
    page.target_bins.editingFinished.emit()
    page.compare_pinned()
    qtbot.waitUntil(lambda: page.compare_table.columnCount() == 5, timeout=60_000)
    shown = _compare_cells(page)
    assert list(shown) == names
    rows = [page.compare_table.item(r, 0).text() for r in range(page.compare_table.rowCount())]
    assert any("accuracy" in row for row in rows)
    path = tmp_path / "pins.arxpy"
    assert window.projects.save_to(path)
    window.set_project(None)
    assert page.compare_table.columnCount() == 1  # nothing of the closed project

    assert window.projects.open_project(path)
    qtbot.waitUntil(lambda: len(state.runs) == 3 and window.worker is None, timeout=30_000)
    qtbot.waitUntil(lambda: page.compare_table.columnCount() == 5, timeout=60_000)
    assert calls == {"search": 2, "improved-condensation": 1}  # nothing ran again
    assert page.target.currentData() == "Charge"  # the comparison's target came back
    assert page.target_bins.text() == "10000, 50000"
    assert [r.label for r in state.runs] == [five.label, ten.label, condensed.label]
    assert [p.name for p in state.pins] == names
    assert state.runs[1].result is not None  # the search reopened with its candidates
    assert _compare_cells(page) == shown
    assert "Which to publish?" in page.advice.text()
    assert not state.modified
    assert "not restored" not in window.statusBar().currentMessage()


def _compare_cells(page) -> dict[str, list[str]]:
    table = page.compare_table
    return {table.horizontalHeaderItem(c).toolTip(): [
        table.item(r, c).text() for r in range(table.rowCount())]
        for c in range(1, table.columnCount())}


def test_any_candidate_of_an_older_search_is_pinned_from_its_candidates_tab(window, qtbot):
    state, page = window.state, window.runs_page
    run_and_wait(window, qtbot)  # k = 5
    models = state.settings["privacy_models"]
    state.update_settings(privacy_models=[{**models[0], "k": 10}, *models[1:]])
    run_and_wait(window, qtbot)  # k = 10: now the current search
    five = next(r for r in state.runs if "5-anonymity" in r.label)
    state.select_run(five)
    titles = [page.tabs.tabText(i) for i in range(page.tabs.count())]
    view = page.tabs.widget(titles.index("Candidates"))
    page.tabs.setCurrentWidget(view)
    listed = {view.list.model.levels_at(r) for r in range(view.list.model.rowCount())}
    # Every anonymous candidate (predictively tagged ones too), nothing else.
    assert len(listed) == int((five.result.states_array() == 1).sum())
    assert {five.result.transformation(levels).state for levels in listed} == {"anonymous"}
    assert view.list.model.levels_at(0) == five.release.levels  # the optimum first
    other = view.list.model.levels_at(1)
    assert view.select(other) and view.pin_button.text() == "Pin"
    view.pin_button.click()
    assert Pin(five.label, other) in state.pins
    assert page.tabs.currentWidget() is view  # pinning did not rebuild the tabs
    assert view.pin_button.text() == "Unpin"
    assert "pinned" in view.list.model.marks.get(int(view.list.model.rows[1]), "")
    view.pin_button.click()
    assert not of_run(state.pins, state.runs[0].label)
