"""Render the method views to PNG for review.

``QT_QPA_PLATFORM=offscreen python -m screenshots.methods [DIR]`` writes
``methods-*.png`` (default DIR /tmp/arxpy-shots) at 1280x720 and 1920x1080 (``-1080p``):
the main window with the example loaded (Configure with a method's form, kPB-MS's form
and one refusing its parameters, Explore's runs page with each tab of a condensation run
and a comparison, the pinned lattice optimum, kPB-MS and MDAV releases compared across
methods (figures and charts), Utility and Risk of the run), then with synthetic diagnosis codes (the
import wizard's codes page, Configure with the codes as chips and the disassociation
form, the run's tabs), then every registered result view of an improved condensation
run on a synthetic cancer registry, of interval generalisation on synthetic blood
pressure and glucose values, of disassociation on synthetic diagnosis codes and of
kPB-MS on a synthetic screening table, with their background jobs finished.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from arxpy.gui.rendering import save_png, settle, wait_until
from screenshots import fail_on_message_boxes

SIZES = {"": (1280, 720), "-1080p": (1920, 1080)}
#: Records of the example project in the window renders.
WINDOW_RECORDS = 2000


def condensation_run(n: int = 1500, k: int = 50, method: str = "improved-condensation",
                     seed: int = 7):
    """A MethodRun of a condensation method on the synthetic registry (KCR: 0 = deceased)."""
    from arxpy.methods.condensation.devdata import cancer_registry

    data = cancer_registry(n, seed=1)
    params = {"k": k, "seed": seed}
    if method == "improved-condensation":
        params.update(time="SurvInterval", status="VitalStat", event_value="0")
    return _run(method, data, params, f"{method} k={k}")


def interval_run(n: int = 300, k: int = 5, statistic: str = "mean:bp", seed: int = 3):
    """A MethodRun of interval generalisation on N(139.3, 32.9²) blood pressure values
    rounded to 5 and a correlated glucose column."""
    rng = np.random.default_rng(seed)
    bp = np.rint(rng.normal(139.3, 32.9, n) / 5) * 5
    glucose = np.rint(0.4 * (bp - 139.3) + rng.normal(120, 28, n))
    data = pd.DataFrame({"bp": bp.astype(int).astype(str),
                         "glu": glucose.astype(int).astype(str),
                         "sex": rng.choice(["F", "M"], n)}).astype(object)
    params = {"attributes": ["bp", "glu"], "k": k, "statistic": statistic}
    return _run("intervals", data, params, f"intervals k={k}")


def ehr_table(n: int = 3000, seed: int = 1, codes: int = 300) -> pd.DataFrame:
    """Synthetic patients (``patient_id``, ``codes``: ICD-9 codes joined by ';')."""
    from arxpy.data.synth_ehr import generate_ehr

    return generate_ehr(n, codes, seed=seed).astype(object)


def disassociation_run(n: int = 3000, k: int = 5, codes: int = 300):
    """A MethodRun of disassociation (hierarchy level 1 policy) on synthetic codes."""
    from arxpy.data.definition import AttributeDefinition, DataDefinition, DataKind, DataType
    from arxpy.methods import method_from_dict
    from arxpy.workflows.runs import MethodRun

    data = ehr_table(n, codes=codes)
    definition = DataDefinition([AttributeDefinition("patient_id"), AttributeDefinition(
        "codes", data_type=DataType(DataKind.SET))])
    method = method_from_dict({"name": "disassociation", "k": k, "m": 2, "seed": 3,
                               "codes_column": "codes", "policy": "hierarchy:1"})
    return MethodRun(method, method.run(data, definition), data, definition,
                     f"disassociation k={k}")


def kpbms_run(n: int = 800, k: int = 5, max_loss: float = 0.1, seed: int = 0):
    """A MethodRun of kPB-MS on the synthetic screening table (outcome the class)."""
    from arxpy.methods.kpbms.devdata import screening_data

    params = {"class_attribute": "outcome", "k": k, "max_loss": max_loss}
    return _run("kpbms", screening_data(n, seed), params, f"kpbms k={k}")


def _run(name: str, data: pd.DataFrame, params: dict, label: str):
    from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
    from arxpy.methods import method_from_dict
    from arxpy.workflows.runs import MethodRun

    definition = DataDefinition(AttributeDefinition(c, AttributeType.QUASI_IDENTIFYING)
                                for c in data.columns)
    method = method_from_dict({"name": name, **params})
    return MethodRun(method, method.run(data, definition), data, definition, label)


def render_method_views(output: Path, size: tuple[int, int], suffix: str = "") -> list[Path]:
    """Every registered view of a condensation and an interval run, jobs finished."""
    from PySide6.QtWidgets import QApplication

    from arxpy.gui.methods.views import result_views

    QApplication.instance() or QApplication(sys.argv[:1])
    output.mkdir(parents=True, exist_ok=True)
    written = []
    for run in (condensation_run(), interval_run(), disassociation_run(), kpbms_run()):
        for title, factory in result_views(run.method.name):
            widget = factory(run)
            widget.resize(*size)
            widget.show()
            _finish_jobs(widget)
            name = title.lower().replace(" ", "-")
            written.append(save_png(widget, output / f"methods-{run.method.name}-{name}"
                                    f"{suffix}.png"))
            for index in range(1, widget.tabs.count() if hasattr(widget, "tabs") else 0):
                widget.tabs.setCurrentIndex(index)  # the utility view's further tabs
                tab = widget.tabs.tabText(index).lower().replace(" ", "-")
                written.append(save_png(widget, output / f"methods-{run.method.name}-{name}-"
                                        f"{tab}{suffix}.png"))
            report = getattr(widget, "report", None)
            if report is not None:  # the coefficient tables are a second tab
                report.setCurrentIndex(1)
                written.append(save_png(widget, output / f"methods-{run.method.name}-{name}"
                                        f"-coefficients{suffix}.png"))
            widget.close()
            widget.deleteLater()
    return written


def _finish_jobs(widget) -> None:
    """Start what a user would start (few repetitions) and wait for every job."""
    from PySide6.QtWidgets import QApplication

    from arxpy.gui.utility.runner import JobControls

    if hasattr(widget, "repeats"):  # model preservation: a short comparison
        widget.repeats.setValue(3)
        widget.start()
    if hasattr(widget, "trees"):  # kPB-MS evaluation: a quick sweep (few trees, 5 folds)
        widget.trees.setValue(20)
        widget.folds.setValue(5)
        widget.start()
    if hasattr(widget, "k_max"):  # with a width limit, as a user choosing k would
        widget.limits_text.setText(f"mean:{widget.run.method.attributes[0]}=5")
        widget.start()
    report = getattr(widget, "report", None)
    for _ in range(3):
        QApplication.processEvents()
        for controls in widget.findChildren(JobControls):
            wait_until(lambda c=controls: not c.running, what="a view's job")
    if report is not None:
        wait_until(lambda: not report.drawing, what="the comparison's charts")
    if hasattr(widget, "exports"):  # disassociation: the independent check
        wait_until(lambda: widget.summary is not None, what="the k^m check")
    if hasattr(widget, "grid_model"):  # the cluster browser's index
        wait_until(lambda: widget.grid_model is not None, what="the cluster index")
    if getattr(widget, "worker", None) is not None and hasattr(widget, "statistics"):
        wait_until(lambda: widget.statistics is not None, what="statistics")


def _choose(window, name: str, **parameters) -> None:
    panel = window.configure.method_panel
    panel.combo.setCurrentIndex(panel.combo.findData(name))
    for key, value in parameters.items():
        panel.form.widgets[key].setValue(value)
    panel.commit()


def _interval_form(window) -> None:
    """Interval generalisation of Age and Charge shaped for the variance of Age."""
    from PySide6.QtCore import Qt

    form = window.configure.method_panel.form
    for name in ("Age", "Charge"):
        form.widgets["attributes"].findItems(name, Qt.MatchFlag.MatchExactly)[0] \
            .setCheckState(Qt.CheckState.Checked)
    form.widgets["statistic"].setText("variance:Age")
    window.configure.method_panel.commit()


def _run_in_window(window) -> None:
    window.anonymize()
    wait_until(lambda: window.worker is None, what="the method run")


def render_methods(output_dir: str | Path, size: tuple[int, int],
                   suffix: str = "") -> list[Path]:
    """Render the method views at ``size``; returns the files written."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from arxpy.example import example_project
    from arxpy.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    settings = QSettings(str(output / "methods-settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=output / "recovery")
    window.resize(*size)
    window.show()
    app.processEvents()
    window.set_project(example_project(records=WINDOW_RECORDS))
    written = []
    _choose(window, "intervals")
    written.append(save_png(window, output / f"methods-configure-error{suffix}.png"))
    _interval_form(window)
    written.append(save_png(window, output / f"methods-configure-intervals{suffix}.png"))
    _choose(window, "kpbms", k=5)
    window.configure.method_panel.form.widgets["class_attribute"].setCurrentText("Sex")
    window.configure.method_panel.commit()
    written.append(save_png(window, output / f"methods-configure-kpbms{suffix}.png"))
    _choose(window, "condensation", k=10)
    written.append(save_png(window, output / f"methods-configure{suffix}.png"))
    _run_in_window(window)
    _choose(window, "mdav", k=10)
    _run_in_window(window)
    page = window.runs_page
    window.state.select_run(window.state.runs[0])
    for index in range(page.tabs.count() - 1):
        page.tabs.setCurrentIndex(index)
        title = page.tabs.tabText(index).lower().replace(" ", "-")
        written.append(save_png(window, output / f"methods-run-{title}{suffix}.png"))
    page.table.selectAll()
    page.compare_selected()
    wait_until(lambda: page.compare_table.columnCount() == 3, what="the comparison")
    written.append(save_png(window, output / f"methods-compare{suffix}.png"))
    written += _render_across_methods(window, output, suffix)
    window.state.select_run(window.state.runs[0])
    window.show_perspective(2)
    wait_until(lambda: window.utility.bundle is not None, what="the utility statistics")
    written.append(save_png(window, output / f"methods-utility{suffix}.png"))
    window.show_perspective(3)
    wait_until(lambda: window.risk.analysis("output") is not None and not window.risk.busy,
               what="the risk analyses")
    settle(0.2)
    written.append(save_png(window, output / f"methods-risk{suffix}.png"))
    written += _render_codes(window, output, suffix)
    window.state.discard_changes()
    window.close()
    return written


def _render_across_methods(window, output: Path, suffix: str) -> list[Path]:
    """Compare across methods on one target: the lattice optimum (the example's
    settings), a kPB-MS release and the MDAV release pinned, classifier accuracy on
    Charge in three bins; its figures (best values starred, "Which to publish?") and its
    charts."""
    from arxpy.methods.generalization import Generalization

    mdav = window.state.runs[-1]
    _choose(window, Generalization.name)
    _run_in_window(window)
    _choose(window, "kpbms", k=5)
    window.configure.method_panel.form.widgets["class_attribute"].setCurrentText("Ethnicity")
    window.configure.method_panel.commit()
    _run_in_window(window)
    state = window.state
    lattice = next(r for r in state.runs if r.method.name == Generalization.name)
    for run in (lattice, state.runs[-1], mdav):
        state.pin_run(run)
    page = window.runs_page
    window.show_perspective(1)
    page.target.setCurrentIndex(page.target.findData("Charge"))
    page.target_bins.setText("10000, 50000")
    page.compare_pinned()
    wait_until(lambda: page.compare_table.columnCount() == 4, what="the comparison")
    settle(0.2)
    written = [save_png(window, output / f"methods-compare-across{suffix}.png")]
    page.compare_views.setCurrentIndex(1)
    settle(0.2)
    written.append(save_png(window, output / f"methods-compare-charts{suffix}.png"))
    page.compare_views.setCurrentIndex(0)
    written.append(_render_candidates(window, lattice, output, suffix))
    return written


def _render_candidates(window, search, output: Path, suffix: str) -> Path:
    """The search's Candidates tab with a second candidate pinned."""
    page = window.runs_page
    # Pinning replaced the run object: find it again by its release.
    window.state.select_run(next(r for r in window.state.runs if r.release is search.release))
    titles = [page.tabs.tabText(i) for i in range(page.tabs.count())]
    view = page.tabs.widget(titles.index("Candidates"))
    page.tabs.setCurrentWidget(view)
    view.list.table.selectRow(1)
    view.toggle_pin()
    settle(0.2)
    return save_png(window, output / f"methods-run-candidates{suffix}.png")


def _render_codes(window, output: Path, suffix: str) -> list[Path]:
    """The import wizard's codes page, Configure with codes as chips and the
    disassociation form, and the run's publication tab."""
    from PySide6.QtWidgets import QWizard

    from arxpy.gui.code_picker import CodePickerDialog, code_counts
    from arxpy.gui.import_wizard import ImportWizard

    written = []
    path = output / "methods-ehr.csv"
    ehr_table(3000).to_csv(path, index=False)
    wizard = ImportWizard(window)
    wizard.show()  # a wizard pages on only once shown
    wizard.source_page.path.setText(str(path))
    wizard.next()
    wizard.next()
    wait_until(lambda: not wizard.codes_page.busy, what="reading the codes")
    written.append(save_png(wizard, output / f"methods-import-codes{suffix}.png", show=True))
    wizard.next()
    wizard.button(QWizard.WizardButton.FinishButton).click()
    window.set_project(wizard.project)
    wizard.close()
    path.unlink()
    window.show_perspective(0)
    _choose(window, "disassociation", k=5)
    # A required attribute starts empty (issue 30): choose it as a custodian would.
    window.configure.method_panel.form.widgets["codes_column"].setCurrentText("codes")
    window.configure.method_panel.commit()
    chart = window.configure.method_panel.companion  # the risk chart beside the form
    wait_until(lambda: not chart.busy, what="the risk chart")
    written.append(save_png(window, output / f"methods-configure-disassociation{suffix}.png"))
    picker = CodePickerDialog(code_counts(window.state.data["codes"], ";"), ["296.65"],
                              "Sensitive codes", window)
    picker.filter.setText("29")
    written.append(save_png(picker, output / f"methods-code-picker{suffix}.png", show=True))
    picker.close()
    _run_in_window(window)
    page = window.runs_page
    window.state.select_run(window.state.runs[-1])
    page.tabs.setCurrentIndex(2)  # after Summary and Groups: the publication
    wait_until(lambda: page.tabs.currentWidget().summary is not None, what="the k^m check")
    written.append(save_png(window, output / f"methods-run-disassociation{suffix}.png"))
    return written


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    fail_on_message_boxes()
    args = sys.argv[1:] if argv is None else argv
    output = Path(args[0]) if args else Path("/tmp/arxpy-shots")
    for suffix, size in SIZES.items():
        for path in [*render_methods(output, size, suffix),
                     *render_method_views(output, size, suffix)]:
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
