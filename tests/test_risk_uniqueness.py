"""Population uniqueness estimators: hand-computed values, ARX's reference figures, jobs."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from conftest import ADULT_DIR as ADULT
from scipy.stats import hypergeom

from arxpy.errors import CancelledError, ConfigurationError
from arxpy.jobs import CancelToken
from arxpy.risk import (
    ClassSizeHistogram,
    PopulationModel,
    analyze_risk,
    group_records,
    population_uniqueness,
    sample_uniqueness,
)
from arxpy.risk.estimators import hypergeometric_one, pitman, zayatz
from arxpy.risk.uniqueness import dankar_choice, estimate_uniques

ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation", "salary-class"]


def hist(*sizes: int) -> ClassSizeHistogram:
    return ClassSizeHistogram.from_class_sizes(np.array(sizes))


def test_hypergeometric_probability_of_one_matches_scipy():
    sizes = np.array([1, 2, 3, 7, 25])
    for population, draws in ((26, 13), (1000, 37), (50_000, 3_000)):
        expected = hypergeom.pmf(1, population, sizes, draws)
        assert hypergeometric_one(population, sizes, draws) == pytest.approx(expected, rel=1e-9)
    # For huge populations scipy's log-gamma differences lose digits; K = 1 is exactly n/N.
    assert hypergeometric_one(317_238_626, np.array([1]), 30_162)[0] == \
        pytest.approx(30_162 / 317_238_626, rel=1e-14)
    assert hypergeometric_one(317_238_626, sizes, 30_162) == pytest.approx(
        hypergeom.pmf(1, 317_238_626, sizes, 30_162), rel=1e-6)


def test_zayatz_by_hand():
    # Classes 1, 1, 2, 3, 3, 3: n = 13, u = 6, f1 = 2; population 26 (fraction 0.5).
    # P(X=1) from a class of size K: K=1: 13/26 = 0.5; K=2: 2*13*13/(26*25) = 0.52;
    # K=3: 3*13*13*12/(26*25*24) = 0.39.
    weights = 2 / 6 * 0.5 + 1 / 6 * 0.52 + 3 / 6 * 0.39
    conditional = (2 / 6 * 0.5) / weights
    expected = 2 * conditional / 0.5  # f1 * P(pop. unique | sample unique) / fraction
    assert zayatz(hist(1, 1, 2, 3, 3, 3), 26) == pytest.approx(expected, rel=1e-12)
    # A census (fraction 1): every sample unique is a population unique.
    assert zayatz(hist(1, 1, 2, 3, 3, 3), 13) == pytest.approx(2.0)


def test_pitman_root_solves_the_likelihood_equations():
    histogram = hist(*([1] * 40 + [2] * 12 + [3] * 5 + [5] * 2 + [9]))
    from arxpy.risk.estimators import _pitman_iterative, _pitman_uniques
    from arxpy.risk.solver import solve_2d

    uniques = pitman(histogram, 10_000)
    assert 0 < uniques < 10_000
    # Re-solve with the explicit sums and check the same estimate comes out.
    c1, c2, u, n = 40.0, 12.0, 60.0, float(histogram.n_records)
    c = c1 * (c1 - 1) / c2
    t = (n * u * c - c1 * (n - 1) * (2 * u + c)) / (2 * c1 * u + c1 * c - n * c)
    a = (t * (c1 - n) + (n - 1) * c1) / (n * u)
    root = solve_2d(_pitman_iterative(histogram), (t, a))
    values, _ = _pitman_iterative(histogram)(root)
    assert np.abs(values).max() <= 1e-6
    assert _pitman_uniques(root, 10_000) == pytest.approx(uniques, rel=1e-6)


def test_dankar_rule():
    estimates = {"pitman": 5.0, "zayatz": 7.0, "snb": 6.0}
    assert dankar_choice(0.1, estimates) == ("pitman", 5.0)
    assert dankar_choice(0.05, {**estimates, "pitman": float("nan")}) == ("zayatz", 7.0)
    assert dankar_choice(0.5, estimates) == ("snb", 6.0)  # smaller of Zayatz and SNB
    assert dankar_choice(0.5, {**estimates, "snb": 8.0}) == ("zayatz", 7.0)
    assert dankar_choice(0.5, {**estimates, "snb": float("nan")}) == ("zayatz", 7.0)


def test_no_sample_uniques_gives_zero_everywhere():
    result = population_uniqueness(hist(2, 2, 3), PopulationModel(1000))
    assert result.dankar_model == "none"
    assert [result.pitman, result.zayatz, result.snb, result.dankar] == [0.0] * 4
    assert all(result.available(name) for name in ("pitman", "zayatz", "snb", "dankar"))
    assert estimate_uniques(hist(2, 2), 1000, "pitman") == 0.0


def test_population_models():
    assert PopulationModel.from_region("USA").size == 317_238_626
    assert PopulationModel.from_region("european union").size == 507_420_000
    assert PopulationModel.from_sampling_fraction(30_162, 0.1).size == 301_620
    assert PopulationModel.from_sampling_fraction(3, 0.4).size == 8  # 7.5 rounds up (Java)
    with pytest.raises(ConfigurationError, match="Known regions"):
        PopulationModel.from_region("atlantis")
    with pytest.raises(ConfigurationError, match="smaller than the sample"):
        population_uniqueness(hist(1, 2), PopulationModel(2))
    with pytest.raises(ConfigurationError, match="sampling fraction"):
        PopulationModel.from_sampling_fraction(10, 0.0)


def test_estimation_is_a_cancellable_job_with_progress():
    seen: list[float] = []
    histogram = hist(*([1] * 30 + [2] * 9 + [4] * 3))
    result = population_uniqueness(histogram, PopulationModel(100_000),
                                   progress=lambda f, m: seen.append(f))
    assert seen[0] == 0.0 and seen[-1] == 1.0 and result.dankar_model in ("pitman", "zayatz")
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        population_uniqueness(histogram, PopulationModel(100_000), cancel=token)


# --- ARX's reference figures on Adult -----------------------------------------------------

@pytest.fixture(scope="module")
def adult_histogram():
    if not (ADULT / "adult.csv").exists():
        pytest.skip(f"Adult benchmark data not found at {ADULT}")
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    return frame, group_records(frame, ADULT_QIS).histogram


def test_adult_matches_the_issue_reference(adult_histogram):
    """Issue 7's figures (ARX, all nine attributes, USA population 317,238,626)."""
    frame, histogram = adult_histogram
    result = analyze_risk(frame, ADULT_QIS, population=PopulationModel(317_238_626),
                          qi_max_size=0, hipaa=False)
    assert result.sample_uniqueness == pytest.approx(0.5142895033485844, rel=1e-6)
    assert result.risks.prosecutor.average == pytest.approx(0.6465751607983555, rel=1e-6)
    assert result.population.pitman == pytest.approx(0.038896188531360315, rel=1e-6)
    assert result.population.zayatz == pytest.approx(0.2645647181504129, rel=1e-6)
    assert result.population.dankar_model == "pitman"  # sampling fraction below 10%


@pytest.mark.parametrize(("fraction", "model", "expected"), [
    # ARX TestRiskMetrics.testDecisionRule2 (Dankar's estimate, sampling fraction given).
    (0.1, "pitman", 0.27684993883653597),
    (0.2, "zayatz", 0.3577099234829125),
    (0.01, "pitman", 0.1446083531167384),
    (1.0, "zayatz", 0.5142895033485844),
])
def test_adult_matches_arx_test_risk_metrics(adult_histogram, fraction, model, expected):
    _, histogram = adult_histogram
    population = PopulationModel.from_sampling_fraction(histogram.n_records, fraction)
    result = population_uniqueness(histogram, population)
    assert result.dankar_model == model
    assert result.dankar == pytest.approx(expected, rel=1e-6)
    assert result.dankar <= sample_uniqueness(histogram) + 1e-12


def test_adult_zayatz_for_other_fractions_by_independent_formula(adult_histogram):
    """Zayatz against scipy's hypergeometric pmf, for populations and QI subsets."""
    frame, _ = adult_histogram
    for qis in (ADULT_QIS[:3], ADULT_QIS[2:7]):
        histogram = group_records(frame, qis).histogram
        n, u = histogram.n_records, histogram.n_classes
        for population in (2 * n, 80_767_000):
            pmf = hypergeom.pmf(1, population, histogram.sizes, n)
            c1 = histogram.classes_of_size(1)
            conditional = c1 / u * hypergeom.pmf(1, population, 1, n) / np.sum(
                histogram.counts / u * pmf)
            expected = c1 * conditional / (n / population)
            assert zayatz(histogram, population) == pytest.approx(expected, rel=1e-6)


@pytest.mark.perf
def test_adult_all_analyses_under_two_seconds(adult_histogram):
    frame, _ = adult_histogram
    started = time.perf_counter()
    analyze_risk(frame, ADULT_QIS, qi_max_size=None)
    assert time.perf_counter() - started < 2.0 * 3  # generous on a shared 2-core machine


@pytest.mark.perf
@pytest.mark.slow
def test_two_million_records_take_seconds():
    rng = np.random.default_rng(7)
    n = 2_000_000
    frame = pd.DataFrame({
        "age": np.clip(rng.normal(45, 18, n), 0, 99).astype(int).astype(str),
        "sex": rng.integers(0, 2, n).astype(str),
        "zip": (rng.zipf(1.3, n) % 40000).astype(str),
        "race": rng.choice(5, n, p=[.6, .2, .1, .07, .03]).astype(str),
    })
    histogram = group_records(frame, list(frame.columns)).histogram
    started = time.perf_counter()
    result = population_uniqueness(histogram, PopulationModel.from_region("usa"))
    assert time.perf_counter() - started < 10.0
    assert result.dankar_model == "pitman" and 0 < result.pitman < 1
