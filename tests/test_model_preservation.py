"""Model preservation (Gal et al. 2014 requirements, L158-164) and release fidelity."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from arxpy.analysis.model_preservation import (
    Fit,
    ModelSpec,
    compare_models,
    preservation_metrics,
    read_analyses,
)
from arxpy.analysis.release_fidelity import (
    basic_statistics,
    conditional_privacy,
    kaplan_meier,
    kaplan_meier_difference,
)
from arxpy.data.definition import DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.methods import ImprovedCondensation
from arxpy.methods.condensation.devdata import cancer_registry

COVARIATES = ("Stage", "Gender", "TobaccoUse")


@pytest.fixture(scope="module")
def registry() -> pd.DataFrame:
    return cancer_registry(1200, seed=5)


def paper_models() -> list[ModelSpec]:
    deceased = {"column": "VitalStat", "equals": "0"}
    return [
        ModelSpec("linear", "ols", COVARIATES, response="SurvInterval", filter=deceased),
        ModelSpec("logistic", "logit", COVARIATES, response="SurvInterval", filter=deceased),
        ModelSpec("cox", "cox", ("DiagAge", *COVARIATES), time="SurvInterval",
                  event="VitalStat", event_value="0"),
    ]


def _fit(coef, se, p) -> Fit:
    index = [f"x{i}" for i in range(len(coef))]
    return Fit(pd.Series(coef, index, dtype=float), pd.Series(se, index, dtype=float),
               pd.Series(p, index, dtype=float))


def test_metrics_follow_the_definitions_on_a_hand_worked_case():
    original = _fit([1.0, -1.0, 0.1], [0.1, 0.1, 1.0], [0.001, 0.001, 0.9])
    anonymized = _fit([1.1, 0.5, 0.2], [0.1, 0.1, 1.0], [0.01, 0.2, 0.04])
    m = preservation_metrics(original, anonymized)
    # x1 and x2 change significance; x1 (significant) changes sign; x1 leaves its CI.
    assert m["pct_sig_changed"] == pytest.approx(200 / 3)
    assert m["pct_dir_changed"] == pytest.approx(50.0)
    assert m["pct_outside_ci"] == pytest.approx(100 / 3)
    assert m["pct_outside_ci_sig"] == pytest.approx(50.0)


def test_a_coefficient_that_cannot_be_estimated_counts_as_changed_and_outside():
    original = _fit([1.0, 2.0], [0.1, 0.1], [0.001, 0.001])
    anonymized = _fit([1.0, np.nan], [0.1, np.nan], [0.001, np.nan])
    m = preservation_metrics(original, anonymized)
    assert m["pct_sig_changed"] == 50.0 and m["pct_outside_ci"] == 50.0
    assert m["pct_dir_changed"] == 50.0


def test_no_significant_coefficient_gives_no_direction_figure():
    original = _fit([1.0], [1.0], [0.5])
    assert preservation_metrics(original, original)["pct_dir_changed"] is None


def test_the_original_table_preserves_every_model(registry):
    result = compare_models(registry, [registry, registry], paper_models())
    summary = result.summary()
    assert (summary["fit_failures"] == 0).all()
    for metric in ("pct_sig_changed_mean", "pct_outside_ci_mean", "pct_dir_changed_mean"):
        assert (summary[metric] == 0).all()


def test_cox_is_fitted_on_censored_records_too(registry):
    # Spec §2.6: the paper's "only deceased patients are in the risk set" is wrong.
    from lifelines import CoxPHFitter

    result = compare_models(registry, [], [paper_models()[2]])
    data = pd.DataFrame({
        "age": registry["DiagAge"].astype(float),
        "t": registry["SurvInterval"].astype(float),
        "e": (registry["VitalStat"] == "0").astype(float)})
    for name in COVARIATES:
        for level in sorted(set(registry[name]))[1:]:
            data[f"{name}[{level}]"] = (registry[name] == level).astype(float)
    expected = CoxPHFitter().fit(data, "t", "e").params_
    ours = result.models[0].original.coef
    assert ours["DiagAge"] == pytest.approx(expected["age"], rel=1e-6)
    assert ours["Stage[Regional]"] == pytest.approx(expected["Stage[Regional]"], rel=1e-6)


def test_failed_fits_are_counted_not_dropped(registry):
    spec = ModelSpec("logistic", "logit", ("Stage",), response="SurvInterval")
    separated = registry.copy()
    # Every Distant record long-lived, every other short: perfect separation.
    distant = separated["Stage"] == "Distant"
    separated["SurvInterval"] = np.where(distant, "70", "1")
    result = compare_models(registry, [registry, separated], [spec])
    model = result.models[0]
    assert model.fit_failures == 1
    assert len(model.metrics) == 1
    assert result.summary().loc["logistic", "fit_failures"] == 1
    assert result.to_dict()["models"]["logistic"]["failures"][0]


def test_a_model_that_cannot_be_fitted_on_the_original_is_refused(registry):
    constant = registry.assign(SurvInterval="5")
    with pytest.raises(ConfigurationError, match="cannot be fitted on the original"):
        compare_models(constant, [], [ModelSpec("l", "logit", ("Stage",),
                                                response="SurvInterval", threshold=4.0)])


def test_analyses_files_are_checked(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('[{"name": "m", "type": "ols", "response": "y", "covariates": ["x"], '
                    '"colour": 1}]')
    with pytest.raises(ConfigurationError, match="unknown key 'colour'"):
        read_analyses(path)
    path.write_text('[{"name": "m", "type": "cox", "covariates": ["x"]}]')
    with pytest.raises(ConfigurationError, match="needs 'time' and 'event'"):
        read_analyses(path)


def test_the_documented_example_file_reads():
    from pathlib import Path

    specs = read_analyses(Path(__file__).parents[1] / "docs/examples/condensation-analyses.json")
    assert [s.type for s in specs] == ["ols", "logit", "cox"]


def test_coefficient_table_marks_fragile_p_values(registry):
    result = compare_models(registry, [registry], paper_models())
    table = result.models[2].coefficients()
    assert {"coef", "exp_coef", "ci_low", "ci_high", "p", "anonymized_mean", "fragile"} <= \
        set(table.columns)
    assert (table["fragile"] == table["p"].between(0.01, 0.10)).all()


# --- release fidelity --------------------------------------------------------------------

def test_kaplan_meier_matches_lifelines():
    from lifelines import KaplanMeierFitter

    rng = np.random.default_rng(0)
    t, e = rng.integers(1, 40, 300), rng.random(300) < 0.6
    ours = kaplan_meier(t, e)["survival"].to_numpy()
    theirs = KaplanMeierFitter().fit(t, e).survival_function_.iloc[1:, 0].to_numpy()
    np.testing.assert_allclose(ours, theirs, atol=1e-12)


def test_improved_condensation_leaves_the_survival_curve_identical(registry):
    d = DataDefinition.for_columns(registry.columns)
    release = ImprovedCondensation(k=50, time="SurvInterval", status="VitalStat",
                                   seed=1).run(registry, d)
    assert kaplan_meier_difference(registry, release.table, "SurvInterval", "VitalStat",
                                   "0") == 0.0
    shifted = registry.assign(SurvInterval=(registry["SurvInterval"].astype(int) + 1)
                              .astype(str))
    assert kaplan_meier_difference(registry, shifted, "SurvInterval", "VitalStat", "0") > 0


def test_conditional_privacy_gaussian_estimator():
    rng = np.random.default_rng(1)
    a = rng.normal(0, 2, 20000)
    assert conditional_privacy(a, a) == 0.0
    independent = conditional_privacy(a, rng.normal(size=20000))
    assert independent == pytest.approx(np.sqrt(2 * np.pi * np.e) * 2, rel=0.02)
    noisy = conditional_privacy(a, a + rng.normal(size=20000))
    assert 0 < noisy < independent


def test_basic_statistics_report_relative_changes():
    a = pd.DataFrame({"x": ["1", "2", "3"], "c": ["u", "u", "v"]})
    b = pd.DataFrame({"x": ["2", "2", "5"], "c": ["u", "v", "v"]})
    table = basic_statistics(a, b).set_index(["attribute", "statistic"])
    assert table.loc[("x", "mean"), "change_pct"] == pytest.approx(50.0)
    assert table.loc[("x", "median"), "change_pct"] == pytest.approx(0.0)
    assert table.loc[("c", "share u"), "original"] == pytest.approx(200 / 3)
    assert table.loc[("c", "share u"), "anonymized"] == pytest.approx(100 / 3)


def test_an_anonymized_table_without_a_model_column_is_refused(registry):
    with pytest.raises(ConfigurationError, match="has no attribute 'Stage'"):
        compare_models(registry, [registry.drop(columns="Stage")], paper_models())
