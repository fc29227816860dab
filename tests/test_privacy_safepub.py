"""(ε, δ)-differential privacy as ARX's SafePub (``EDDifferentialPrivacy``).

The k and β are ARX 3.9.2's (measured with benchmarks/arx/ArxDriver.java, ``dp:`` model)
and are recomputed here from the paper's formulas without arxpy (``reference_k``); the
released table's classes are counted with pandas, apart from the model and the claim
checker, and the ε accounting is recomputed from the declared parameters.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import json
import math

import numpy as np
import pandas as pd
import pytest

from arxpy.cli import main
from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.errors import ConfigurationError, ProjectError
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy import EDDifferentialPrivacy, KAnonymity, privacy_model_from_dict
from arxpy.quality.registry import quality_model_from_dict
from arxpy.release import Claim, check_claim
from arxpy.search.safepub import exponential_choice
from arxpy.workflows import saved_result

AGES = [str(a) for a in range(20, 32)]
HIERARCHIES = {
    "age": [[a, f"{int(a) // 4 * 4}-{int(a) // 4 * 4 + 3}", f"{int(a) // 8 * 8}+", "*"]
            for a in AGES],
    "zip": [[z, z[:2] + "*", "*"] for z in ("101", "102", "111", "112", "201")],
}
QIS = ("age", "zip")


def reference_k(epsilon: float, delta: float) -> int:
    """Li, Qardaji and Su's k as ARX's ParameterCalculation evaluates it, in plain Python
    (binomial terms from math.lgamma): one past the first k whose δ_k is below δ."""
    beta = 1.0 - math.exp(-epsilon)
    gamma = (math.exp(epsilon) - 1.0 + beta) / math.exp(epsilon)
    divergence = gamma * math.log(gamma / beta) - (gamma - beta)

    def tail(n: int) -> float:
        return sum(math.exp(math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1)
                            + j * math.log(beta) + (n - j) * math.log(1.0 - beta))
                   for j in range(math.floor(n * gamma) + 1, n + 1))

    k = 1
    while True:
        n, reached = max(math.ceil(k / gamma - 1.0), 0), -math.inf
        while True:
            reached = max(reached, tail(n))
            if reached > math.exp(-n * divergence):
                break
            n += 1
        if reached < delta:
            return k + 1
        k += 1


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"age": rng.choice(AGES, 600),
                          "zip": rng.choice([r[0] for r in HIERARCHIES["zip"]], 600),
                          "disease": rng.choice(["a", "b"], 600)})
    definition = DataDefinition.for_columns(frame.columns)
    for name in QIS:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    return frame, definition, {n: Hierarchy(rows) for n, rows in HIERARCHIES.items()}


# (ε, δ, data-dependent) -> ARX 3.9.2's k and β (benchmarks/safepub_arx.py, the driver's
# dp:EPS:DELTA:STEPS[:DEGREE]; data-dependent runs keep 0.9 ε after the search's share).
ARX = {(2.0, 1e-6, True): (118, 0.8347011117784132), (1.0, 1e-6, True): (74, 0.593430),
       (0.5, 1e-5, True): (52, 0.362372), (3.0, 1e-4, True): (134, 0.932794),
       (1.0, 1e-6, False): (75, 0.632121)}


@pytest.mark.parametrize(("epsilon", "delta", "dependent"), sorted(ARX))
def test_k_and_beta_are_arxs(epsilon, delta, dependent):
    model = EDDifferentialPrivacy(epsilon, delta, generalization=None if dependent else "medium")
    k, beta = ARX[(epsilon, delta, dependent)]
    assert model.k == k
    assert model.beta == pytest.approx(beta, rel=1e-14 if beta != round(beta, 6) else 1e-6)


@pytest.mark.parametrize(("epsilon", "delta"), [(1.8, 0.1), (2.7, 0.05), (0.9, 1e-3)])
def test_k_recomputed_from_the_paper(epsilon, delta):
    fixed = EDDifferentialPrivacy(epsilon, delta, generalization="none")  # no ε for a search
    assert fixed.epsilon_anonymization == epsilon
    assert fixed.k == reference_k(epsilon, delta)
    assert fixed.beta == pytest.approx(1.0 - math.exp(-epsilon), rel=1e-15)


def run(table, **params):
    frame, definition, hierarchies = table
    params = {"epsilon": 2.0, "delta": 0.1, "steps": 10, "seed": 1, **params}
    quality = quality_model_from_dict({"name": params.pop("metric", "loss")})
    config = AnonymizationConfig([EDDifferentialPrivacy(**params)], quality)
    return anonymize(frame, definition, hierarchies, config)


def test_the_release_keeps_k_and_the_accounting(table):
    result = run(table)
    release = result.release()
    k = reference_k(2.0 * 0.9, 0.1)
    sizes = release.released().groupby(list(QIS)).size()
    assert len(sizes) and sizes.min() >= k
    # Every record the sampling left out is suppressed; the sample was roughly β of them.
    report = result.to_dict()["differential_privacy"]
    assert report["records"] == 600
    assert int(release.suppressed.sum()) >= 600 - report["sampled_records"]
    assert abs(report["sampled_records"] - 600 * (1 - math.exp(-1.8))) < 60
    assert report["epsilon_search"] + report["epsilon_anonymization"] == pytest.approx(2.0)
    assert report["epsilon_per_step"] == pytest.approx(0.2 / 10)
    assert (report["k"], report["seed"], release.seed) == (k, 1, 1)
    assert release.verify().anonymous


def test_the_checker_refutes_claims_beyond_the_release(table):
    release = run(table).release()
    claim = next(c for c in release.claims if c.kind == "differential-privacy")
    assert check_claim(release, claim).holds
    smaller = dataclasses.replace(claim, parameters={**claim.parameters, "k": 3})
    assert check_claim(release, smaller).holds is False
    frame, definition, hierarchies = table
    two = anonymize(frame, definition, hierarchies,
                    AnonymizationConfig([KAnonymity(2)], suppression_limit=1.0)).release()
    assert check_claim(two, Claim(claim.kind, claim.parameters, QIS)).holds is False


def test_the_seed_repeats_the_release(table):
    result = run(table)
    first, again = result.release(), run(table).release()
    other = run(table, seed=2).release()
    assert first.output_sha256 == again.output_sha256
    assert not np.array_equal(first.suppressed, other.suppressed)


def test_a_saved_result_reopens_with_its_sample_and_is_judged_again(table):
    frame, definition, hierarchies = table
    config = AnonymizationConfig([EDDifferentialPrivacy(epsilon=2.0, delta=0.1, steps=10)])
    result = anonymize(frame, definition, hierarchies, config)  # the seed is drawn
    saved = json.loads(json.dumps(saved_result.record(result, None, [], "print")))
    again = saved_result.reopen(frame, definition, hierarchies, config, saved)
    first, reopened = result.release(), again.release()
    assert reopened.output_sha256 == first.output_sha256
    assert np.array_equal(reopened.suppressed, first.suppressed)
    assert reopened.verdict.anonymous and reopened.verdict is not first.verdict
    claim = next(c for c in reopened.claims if c.kind == "differential-privacy")
    assert check_claim(reopened, claim).holds
    forged = copy.deepcopy(saved)
    forged["outcome"]["sample"]["seed"] += 1
    with pytest.raises(ProjectError, match="another random sample"):
        saved_result.reopen(frame, definition, hierarchies, config, forged)
    del forged["outcome"]["sample"]
    with pytest.raises(ProjectError, match="no seed"):
        saved_result.reopen(frame, definition, hierarchies, config, forged)


def test_exponential_mechanism_draws_in_proportion():
    rng = np.random.default_rng(0)
    scores = np.array([0.0, -2.0, -4.0])
    draws = np.bincount([exponential_choice(scores, 1.0, rng) for _ in range(6000)],
                        minlength=3) / 6000
    expected = np.exp(0.5 * scores) / np.exp(0.5 * scores).sum()
    assert np.abs(draws - expected).max() < 0.025


def test_the_walk_goes_down_from_the_top(table):
    result = run(table, steps=4)
    lattice = result.lattice
    checked = set(result.outcome.checks)
    assert lattice.top in checked and result.to_dict()["differential_privacy"]["steps_taken"] == 4
    # Only the top and specializations of pivots are ever scored.
    reachable = {lattice.top}
    for levels in sorted(checked, key=sum, reverse=True):
        assert levels in reachable or any(levels in lattice.predecessors(p) for p in reachable)
        reachable.add(levels)


@pytest.mark.parametrize("metric", ["dm", "aecs", "precision", "entropy"])
def test_every_score_function_releases_k(table, metric):
    release = run(table, metric=metric).release()
    assert release.released().groupby(list(QIS)).size().min() >= reference_k(1.8, 0.1)


def test_a_fixed_generalization_spends_nothing_on_a_search(table):
    result = run(table, generalization="age=2,zip=1")
    assert result.optimum.levels == (2, 1)
    report = result.to_dict()["differential_privacy"]
    assert (report["epsilon_search"], report["k"]) == (0.0, reference_k(2.0, 0.1))
    assert run(table, generalization="complete").optimum.levels == result.lattice.top


def test_refusals_are_one_line(table):
    with pytest.raises(ConfigurationError, match="no score function.*'classification'"):
        frame, definition, hierarchies = table
        anonymize(frame, definition, hierarchies, AnonymizationConfig(
            [EDDifferentialPrivacy(2.0, 0.1)],
            quality_model_from_dict({"name": "classification", "class_attribute": "disease"})))
    with pytest.raises(ConfigurationError, match="ATTR=LEVEL"):
        EDDifferentialPrivacy(2.0, 0.1, generalization="lots")
    model = EDDifferentialPrivacy(2.0, 1e-6, steps=7, seed=3)
    assert privacy_model_from_dict(model.to_dict()) == model


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory, table):
    """The table and hierarchies as files, and one SafePub run through the command line
    (memory engine): (arguments before --engine, folder, its summary)."""
    folder = tmp_path_factory.mktemp("safepub")
    table[0].to_csv(folder / "t.csv", index=False)
    args = ["anonymize", "--data", str(folder / "t.csv")]
    for name, rows in HIERARCHIES.items():
        pd.DataFrame(rows).to_csv(folder / f"{name}.csv", sep=";", header=False, index=False)
        args += ["--hierarchy", f"{name}={folder / name}.csv"]
    dp = [*args, "--dp", "2:0.1", "--dp-steps", "5", "--seed", "9", "--keep-order"]
    capture = io.StringIO()
    with contextlib.redirect_stdout(capture):
        assert main([*dp, "--output", str(folder / "memory.csv"),
                     "--report", str(folder / "memory.json")]) == 0
    return dp, folder, capture.getvalue()


def test_spark_refuses_differential_privacy_in_one_line(table):
    from arxpy.engine.backends import RecordSource
    from arxpy.engine.scaled import anonymize_source

    class Spark:
        name = "spark"

        def columns(self, source):
            return tuple(table[0].columns)

    frame, definition, hierarchies = table
    with pytest.raises(ConfigurationError, match="--engine memory or duckdb"):
        anonymize_source(RecordSource.of_frame(frame), definition, hierarchies,
                         AnonymizationConfig([EDDifferentialPrivacy(2.0, 0.1)]), Spark())


def test_command_line(cli_run, capsys):
    dp, folder, printed = cli_run
    report = json.loads((folder / "memory.json").read_text())
    assert report["differential_privacy"]["seed"] == 9
    assert report["differential_privacy"]["steps"] == 5
    assert "Differential privacy: epsilon 1.8" in printed
    base = dp[:dp.index("--dp")]
    assert main([*base, "--dp", "2"]) == 2
    assert main([*base, "--dp-steps", "5", "--k", "2"]) == 2
    err = capsys.readouterr().err
    assert "write EPSILON:DELTA" in err and "add --dp EPSILON:DELTA" in err


def test_duckdb_draws_the_same_sample_and_writes_the_same_release(cli_run):
    pytest.importorskip("duckdb")
    dp, folder, _ = cli_run
    out = folder / "duckdb.csv"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([*dp, "--engine", "duckdb", "--output", str(out)]) == 0
    assert out.read_bytes() == (folder / "memory.csv").read_bytes()
    released = pd.read_csv(out, sep=";", dtype=str)
    kept = released[released["age"] != "*"]
    assert len(released) == 600
    assert kept.groupby(list(QIS)).size().min() >= reference_k(1.8, 0.1)
