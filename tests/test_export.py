"""Headless export of a transformation's output, hierarchies and HTML report."""

from __future__ import annotations

import audit as anonymity
import numpy as np
import pandas as pd
import pytest

import arxpy.privacy  # noqa: F401  (registers the privacy models)
import arxpy.quality  # noqa: F401  (registers the quality models)
from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.engine.export import (
    export_release,
    hierarchy_path,
    report_html,
    summarize_output,
    write_report,
)
from arxpy.errors import DataExportError
from arxpy.example import example_project
from arxpy.hierarchy.io import read_hierarchy
from arxpy.release import SUPPRESSED_VALUE

K = 5


@pytest.fixture(scope="module")
def result():
    project = example_project(records=3000)
    # An identifying column the export must drop.
    data = project.data.assign(Name=[f"patient {i}" for i in range(len(project.data))])
    definition = DataDefinition([*project.definition,
                                 AttributeDefinition("Name", AttributeType.IDENTIFYING)])
    config = AnonymizationConfig.from_dict(project.settings)
    return anonymize(data, definition, project.hierarchies, config)


def _anonymous_non_optimal(result):
    best = result.optimum
    for state in result.checked_transformations():
        if state.state == "anonymous" and state.levels != best.levels \
                and (state.suppressed_records or 0) > 0:
            return state.levels
    pytest.fail("the example run checked no other anonymous transformation with suppression")


def _read(path):
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_csv_export_keeps_suppressed_rows_as_stars_and_holds_k(result, tmp_path):
    levels = _anonymous_non_optimal(result)
    [path] = export_release(result.release(levels), tmp_path / "out.csv")
    written = _read(path)
    output = result.release(levels)
    assert "Name" not in written.columns
    assert len(written) == result.records
    pd.testing.assert_frame_equal(written, output.table.reset_index(drop=True).astype(str))
    qis = result.quasi_identifiers
    starred = (written[qis] == SUPPRESSED_VALUE).all(axis=1).to_numpy()
    np.testing.assert_array_equal(starred, output.suppressed)
    assert starred.sum() == result.transformation(levels).suppressed_records > 0
    assert anonymity.k_anonymity(written.loc[~starred], qis) >= K


def test_csv_export_can_remove_suppressed_rows(result, tmp_path):
    levels = _anonymous_non_optimal(result)
    [path] = export_release(result.release(levels), tmp_path / "out.csv", remove_suppressed=True)
    written = _read(path)
    suppressed = result.transformation(levels).suppressed_records
    assert len(written) == result.records - suppressed
    assert not (written[result.quasi_identifiers] == SUPPRESSED_VALUE).all(axis=1).any()
    assert anonymity.k_anonymity(written, result.quasi_identifiers) >= K


def test_refuses_to_overwrite_and_writes_nothing(result, tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    with pytest.raises(DataExportError, match="out.csv"):
        export_release(result.release(), target, with_hierarchies=True)
    assert target.read_text() == "old\n"
    assert not hierarchy_path(target, "Age").exists()
    export_release(result.release(), target, overwrite=True)
    assert target.read_text() != "old\n"


def test_hierarchies_written_beside_the_data(result, tmp_path):
    written = export_release(result.release(), tmp_path / "out.csv", with_hierarchies=True)
    assert len(written) == 1 + len(result.quasi_identifiers)
    for name in result.quasi_identifiers:
        path = hierarchy_path(tmp_path / "out.csv", name)
        assert path in written
        assert read_hierarchy(path) == result.hierarchies[name]


def test_excel_export_round_trips(result, tmp_path):
    [path] = export_release(result.release(), tmp_path / "out.xlsx")
    frame = pd.read_excel(path, dtype=str, keep_default_na=False)
    assert list(frame.columns) == list(result.release().table.columns)
    assert len(frame) == result.records


def test_summary_recomputes_k_and_prosecutor_risk(result):
    levels = _anonymous_non_optimal(result)
    summary = summarize_output(result, levels)
    output = result.release(levels)
    kept = output.table.loc[~output.suppressed, result.quasi_identifiers]
    sizes = kept.groupby(result.quasi_identifiers).size()
    assert summary.achieved_k == sizes.min() >= K
    assert summary.highest_risk == pytest.approx(1 / sizes.min())
    assert summary.average_risk == pytest.approx(len(sizes) / len(kept))
    assert all(m.holds for m in summary.models)
    assert summary.models[0].failing_records == output.statistics.suppressed_records


def test_report_names_configuration_verification_and_risk(result, tmp_path):
    levels = _anonymous_non_optimal(result)
    path = write_report(result, levels, tmp_path / "report.html")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "<script" not in text and "http" not in text
    for expected in ("5-anonymity", "holds", "Loss", "Highest prosecutor risk",
                     "Discernibility", str(list(levels))):
        assert expected in text
    assert "patient 1" not in text  # identifying attribute never reported
    with pytest.raises(DataExportError, match="report.html"):
        write_report(result, levels, path)


def test_report_scores_a_transformation_the_search_did_not_score(result):
    # The search scores only anonymous transformations (as ARX); a report of another one
    # gives the configured model's score all the same, not "nan".
    levels = next(t.levels for t in result.checked_transformations()
                  if t.state == "not anonymous")
    assert result.transformation(levels).score is None
    expected = result.score_under(levels, result.config.quality_model)
    text = report_html(result, levels)
    quality = text[text.index("Quality (lower is better)"):]
    row = quality[:quality.index("</tr>", quality.index("(configured)"))]
    assert "nan" not in row.lower() and f"{expected:.6g}"[:6] in row


def test_report_escapes_values(result):
    html_text = report_html(result, None)
    assert "<td><script" not in html_text
