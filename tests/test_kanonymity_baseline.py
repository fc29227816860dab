"""The k-anonymity (ARX-style) baseline of the model-preservation comparison (spec 000
§2.5): k-anonymity checked by the independent audit (tests/audit.py) and by a recount,
generalized values that contain the originals, models fitted on midpoints, and
``compare-models --methods k-anonymity``."""

from __future__ import annotations

import json
from pathlib import Path

import audit as anonymity
import numpy as np
import pandas as pd
import pytest

from arxpy import cli
from arxpy.analysis.generalized import read_numeric
from arxpy.analysis.model_preservation import ModelSpec, compare_models
from arxpy.data.definition import DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.methods import run_method
from arxpy.methods.condensation.devdata import cancer_registry
from arxpy.methods.condensation.kanonymity import derived_hierarchy, round_width

QIS = ["DiagAge", "Gender", "Race", "Stage", "TobaccoUse"]
ANALYSES = Path(__file__).parents[1] / "docs/examples/condensation-analyses.json"


@pytest.fixture(scope="module")
def registry() -> pd.DataFrame:
    return cancer_registry(1500, seed=4)


@pytest.fixture(scope="module")
def release(registry):
    return run_method("k-anonymity-baseline", registry,
                      DataDefinition.for_columns(registry.columns),
                      {"k": 25, "quasi_identifiers": QIS, "suppression_limit": 0.05})


def test_release_is_k_anonymous_by_an_independent_count(release, registry):
    kept = release.table.loc[~release.suppressed]
    assert kept.groupby(QIS).size().min() >= 25  # pandas recount
    assert anonymity.k_anonymity(kept, QIS) >= 25  # the independent audit (tests/audit.py)
    assert release.suppressed.mean() <= 0.05
    assert release.method == "k-anonymity-baseline"
    assert (release.table.loc[release.suppressed, QIS] == "*").all().all()
    # the outcomes are not quasi-identifiers: released exactly
    assert release.table["SurvInterval"].tolist() == registry["SurvInterval"].tolist()
    assert release.table["VitalStat"].tolist() == registry["VitalStat"].tolist()


def test_generalized_values_contain_the_originals(release, registry):
    kept = ~release.suppressed
    age = read_numeric(release.table["DiagAge"])
    truth = registry["DiagAge"].astype(float).to_numpy()
    readable = ~np.isnan(age.low)
    assert (readable | (release.table["DiagAge"] == "*")).all()
    inside = (age.low <= truth) & (truth <= age.high)
    assert inside[readable & kept].all()
    for name in ("Gender", "Race", "Stage", "TobaccoUse"):
        released = release.table.loc[kept, name]
        same = released == registry.loc[kept, name]
        assert (same | (released == "*")).all()


def test_round_widths_and_derived_hierarchies():
    assert [round_width(79, 16), round_width(100, 16), round_width(0.9, 4),
            round_width(7, 16)] == [5, 10, 0.25, 0.5]
    ages = pd.Series([str(v) for v in range(20, 100)])
    hierarchy = derived_hierarchy(ages, 16)
    assert hierarchy.height >= 5  # 5-year bins merged in pairs up to *
    flat = derived_hierarchy(pd.Series(["a", "b", "a"]), 16)
    assert flat.height == 2
    coded = derived_hierarchy(pd.Series(["0", "1", "1"]), 16)  # few values: categories
    assert coded.height == 2


def test_clear_errors(registry):
    definition = DataDefinition.for_columns(registry.columns)
    with pytest.raises(ConfigurationError, match="larger than"):
        run_method("k-anonymity-baseline", registry, definition, {"k": 10**6})
    with pytest.raises(ConfigurationError, match="Nope"):
        run_method("k-anonymity-baseline", registry, definition,
                   {"k": 5, "quasi_identifiers": ["Nope"]})


def test_models_read_intervals_as_midpoints_and_leave_out_suppressed_records():
    rng = np.random.default_rng(0)
    age = rng.integers(20, 90, 400)
    y = 0.5 * age + rng.normal(0, 3, 400)
    original = pd.DataFrame({"age": age.astype(str), "y": np.round(y, 2).astype(str),
                             "sex": rng.choice(["F", "M"], 400)})
    generalized = original.copy()
    low = age // 10 * 10
    generalized["age"] = [f"[{a}, {a + 10}[" for a in low]
    generalized.loc[:9, ["age", "sex"]] = "*"  # ten suppressed records
    spec = ModelSpec("linear", "ols", ("age", "sex"), response="y")
    result = compare_models(original, [generalized], [spec]).models[0]
    fit = result.fits[0]
    assert not fit.failed and fit.left_out == 10
    assert fit.coef["age"] == pytest.approx(0.5, abs=0.05)  # midpoints keep the slope
    everywhere = original.assign(sex="*")  # a covariate generalized away
    lost = compare_models(original, [everywhere], [spec]).models[0]
    assert np.isnan(lost.fits[0].coef["sex[M]"]) and lost.fits[0].left_out == 0
    assert lost.metrics["pct_outside_ci"].iloc[0] >= 50  # not estimable: counted as changed


def test_compare_models_runs_the_baseline_once(tmp_path):
    data = tmp_path / "registry.csv"
    cancer_registry(900, seed=2).to_csv(data, index=False)
    report_path = tmp_path / "models.json"
    assert cli.main(["compare-models", "--original", str(data), "--methods",
                     "k-anonymity", "--k", "20", "--analyses", str(ANALYSES),
                     "--repeats", "3", "--report", str(report_path)]) == 0
    entry = json.loads(report_path.read_text())["results"][0]
    assert (entry["method"], entry["k"]) == ("k-anonymity", 20)
    for figures in entry["models"].values():
        per_repetition = figures["pct_outside_ci"]["per_repetition"]
        assert len(per_repetition) == 3 and len(set(per_repetition)) == 1  # deterministic
        assert isinstance(figures["fit_failures"], int)
    assert entry["status_changed_pct"] == 0.0  # the outcome is not generalized


def test_compare_models_names_an_unknown_quasi_identifier(tmp_path, capsys):
    data = tmp_path / "registry.csv"
    cancer_registry(200, seed=2).to_csv(data, index=False)
    code = cli.main(["compare-models", "--original", str(data), "--methods", "k-anonymity",
                     "--k", "20", "--analyses", str(ANALYSES), "--quasi-identifiers",
                     "DiagAge,Nope", "--repeats", "1", "--report", str(tmp_path / "r.json")])
    assert code == 2
    assert "Nope" in capsys.readouterr().err


def test_the_gui_compare_mode_runs_the_baseline_once_on_the_analyses_covariates(registry):
    from arxpy.methods import ImprovedCondensation
    from arxpy.workflows.model_preservation import (
        COMPARED_METHODS,
        model_preservation_job,
        sibling_method,
    )

    assert "k-anonymity-baseline" in COMPARED_METHODS
    improved = ImprovedCondensation(k=25, time="SurvInterval", status="VitalStat",
                                    event_value="0", seed=1)
    analyses = [ModelSpec("cox", "cox", ("DiagAge", "Stage"), time="SurvInterval",
                          event="VitalStat", event_value="0")]
    baseline = sibling_method(improved, "k-anonymity-baseline", analyses)
    assert list(baseline.quasi_identifiers) == ["DiagAge", "Stage"] and baseline.k == 25
    results = model_preservation_job(improved, registry,
                                     DataDefinition.for_columns(registry.columns), analyses,
                                     repeats=3, seed=0, compare_with=["k-anonymity-baseline"])
    fits = results["k-anonymity (ARX-style)"].models[0].fits
    assert len(fits) == 3 and fits[0] is fits[1] is fits[2]  # one run, fitted once
