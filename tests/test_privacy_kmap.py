"""k-map and sample uniqueness (ARX ``KMap``, ``SampleUniqueness``) against brute force.

The reference is tests/population_reference.py, written from the definitions without
arxpy; the claim checkers must refute a release that states more than it holds.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from population_reference import (
    arx_k_prime,
    population_matches,
    sample_uniqueness,
)

from arxpy.cli import main
from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.engine.prepare import prepare
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.privacy import KMap, SampleUniqueness, privacy_model_from_dict
from arxpy.privacy.kmap import derived_k
from arxpy.release import check_claim
from arxpy.release.population_claims import poisson_k

AGES = [str(a) for a in range(20, 32)]
HIERARCHIES = {
    "age": [[a, f"{int(a) // 4 * 4}-{int(a) // 4 * 4 + 3}", f"{int(a) // 8 * 8}+", "*"]
            for a in AGES],
    "zip": [[z, z[:2] + "*", "*"] for z in ("101", "102", "111", "112", "201")],
}


def table(rng: np.random.Generator, n: int) -> pd.DataFrame:
    return pd.DataFrame({"age": rng.choice(AGES, n), "zip": rng.choice(
        [r[0] for r in HIERARCHIES["zip"]], n), "disease": rng.choice(["a", "b"], n)})


def setting(frame: pd.DataFrame):
    definition = DataDefinition.for_columns(frame.columns)
    for name in HIERARCHIES:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    return definition, {n: Hierarchy(rows) for n, rows in HIERARCHIES.items()}


def classes_at(data, levels: tuple[int, ...]) -> EquivalenceClasses:
    """The classes of a transformation, grouped here (not by the search's grouper)."""
    codes = np.column_stack([q.level_maps[lv][q.codes]
                             for q, lv in zip(data.quasi_identifiers, levels, strict=True)])
    keys, sizes = np.unique(codes, axis=0, return_counts=True)
    return EquivalenceClasses(levels, keys, sizes.astype(np.int64))


def labels_of(data, classes: EquivalenceClasses) -> list[tuple[str, ...]]:
    return [tuple(q.labels[lv][code] for q, lv, code in
                  zip(data.quasi_identifiers, classes.levels, key, strict=True))
            for key in classes.keys]


@pytest.mark.parametrize("seed", range(4))
def test_k_map_against_a_population_table_is_the_brute_force(tmp_path, seed):
    rng = np.random.default_rng(seed)
    sample = table(rng, 40)
    population = pd.concat([sample, table(rng, 120)], ignore_index=True)
    path = tmp_path / "population.csv"
    population.to_csv(path, index=False)
    definition, hierarchies = setting(sample)
    k = int(rng.integers(2, 9))
    data, config = prepare(sample, definition, hierarchies,
                           AnonymizationConfig([KMap(k, population=str(path))]))
    model = config.privacy_models[0]
    for levels in itertools.product(range(4), range(3)):
        classes = classes_at(data, levels)
        expected = population_matches(sample, population, HIERARCHIES,
                                      dict(zip(HIERARCHIES, levels, strict=True)))
        wanted = [expected[key] >= k for key in labels_of(data, classes)]
        assert model.satisfied(classes).tolist() == wanted, levels


def test_estimated_k_map_uses_arx_k_prime():
    for k, n, people, alpha, estimator in itertools.product(
            (1, 2, 5, 11, 30), (10, 300, 30162), (400, 100_000, 317_238_626),
            (0.001, 0.01, 0.2, 1.0), ("poisson", "zero-truncated-poisson")):
        if people < n:
            continue
        expected = arx_k_prime(k, n, people, alpha, estimator)
        assert derived_k(k, n, people, alpha, estimator) == expected
        assert poisson_k(k, n, people, alpha, estimator) == expected
    # Adult (30,162 records) in 100,000 people: k = 20 -> 14 and 13 (the k' behind the
    # optima that equal ARX 3.9.2's in docs/engine.md).
    assert derived_k(20, 30162, 100_000, 0.01, "poisson") == 14
    assert derived_k(20, 30162, 100_000, 0.01, "zero-truncated-poisson") == 13


@pytest.mark.parametrize("seed", range(4))
def test_sample_uniqueness_is_the_brute_force(seed):
    rng = np.random.default_rng(10 + seed)
    sample = table(rng, 60)
    definition, hierarchies = setting(sample)
    threshold = float(rng.uniform(0.0, 0.3))
    data, config = prepare(sample, definition, hierarchies,
                           AnonymizationConfig([SampleUniqueness(threshold)]))
    model = config.privacy_models[0]
    for levels in itertools.product(range(4), range(3)):
        classes = classes_at(data, levels)
        share = sample_uniqueness(_generalized(sample, levels), list(HIERARCHIES))
        kept = np.ones(classes.n_classes, dtype=bool)
        assert model.dataset_satisfied(classes, kept) == (share <= threshold), levels


def _generalized(sample: pd.DataFrame, levels) -> pd.DataFrame:
    from population_reference import generalize

    return generalize(sample, HIERARCHIES, dict(zip(HIERARCHIES, levels, strict=True)))


def test_sample_uniqueness_release_holds_and_a_lie_is_caught():
    rng = np.random.default_rng(5)
    sample = table(rng, 80)
    definition, hierarchies = setting(sample)
    result = anonymize(sample, definition, hierarchies,
                       AnonymizationConfig([SampleUniqueness(0.05)], suppression_limit=0.1))
    release = result.release()
    released = release.released()
    assert sample_uniqueness(released, list(HIERARCHIES)) <= 0.05
    assert release.verdict.anonymous
    claim = next(c for c in release.claims if c.kind == "sample-uniqueness")
    finer = classes_at(prepare(sample, definition, hierarchies,
                               AnonymizationConfig([SampleUniqueness(1.0)]))[0], (0, 0))
    assert (finer.sizes == 1).any()  # the untransformed table has uniques
    lie = type(claim)(claim.kind, {"threshold": 0.0}, claim.attributes)
    forged = _with_table(release, sample)  # the input, claimed as the release
    assert check_claim(forged, lie).holds is False


def _with_table(release, frame):
    import dataclasses

    return dataclasses.replace(release, table=frame.copy(),
                               suppressed=np.zeros(len(frame), dtype=bool))


def test_k_map_release_is_checked_against_the_population(tmp_path):
    rng = np.random.default_rng(7)
    sample = table(rng, 50)
    population = pd.concat([sample, table(rng, 150)], ignore_index=True)
    path = tmp_path / "population.csv"
    population.to_csv(path, index=False)
    definition, hierarchies = setting(sample)
    result = anonymize(sample, definition, hierarchies,
                       AnonymizationConfig([KMap(6, population=str(path))]))
    release = result.release()
    assert release.verdict.anonymous
    levels = {n: release.transformation[n] for n in HIERARCHIES}
    matches = population_matches(sample[~release.suppressed], population, HIERARCHIES,
                                 levels)
    assert min(matches.values()) >= 6
    claim = next(c for c in release.claims if c.kind == "k-map")
    assert check_claim(release, claim).holds
    # The same release claimed against a population of its sample alone: refuted.
    sample.to_csv(tmp_path / "sample.csv", index=False)
    lie = type(claim)(claim.kind, {**claim.parameters, "population": str(
        tmp_path / "sample.csv")}, claim.attributes)
    assert check_claim(release, lie).holds is False
    # Estimated k-map: a class smaller than k' is refuted.
    estimated = type(claim)("k-map", {"k": 50, "population_size": 60}, claim.attributes)
    assert check_claim(_with_table(release, sample), estimated).holds is False
    # A region preset (the GUI's and a project's form): its claim declares ARX's figure
    # for the region, so the checker recomputes k' rather than giving up.
    by_region = anonymize(sample, definition, hierarchies,
                          AnonymizationConfig([KMap(6, region="usa")])).release()
    claim = next(c for c in by_region.claims if c.kind == "k-map")
    assert claim.parameters["population_size"] == 317_238_626  # ARXPopulationModel.USA
    check = check_claim(by_region, claim)
    assert check.holds is True and "k' = 2 " in check.finding and "usa" in check.finding
    small = type(claim)("k-map", {**claim.parameters, "population_size": 60},
                        claim.attributes)
    assert check_claim(by_region, small).holds is False


def test_k_map_settings_say_what_to_change(tmp_path):
    with pytest.raises(ConfigurationError, match="exactly one"):
        KMap(5)
    with pytest.raises(ConfigurationError, match="exactly one"):
        KMap(5, population="p.csv", population_size=10)
    model = KMap(5, population_size=1000, estimator="zero-truncated-poisson")
    assert privacy_model_from_dict(model.to_dict()) == model
    assert model.monotonic_with_suppression and model.monotonic_without_suppression
    rng = np.random.default_rng(1)
    sample = table(rng, 30)
    definition, hierarchies = setting(sample)
    foreign = table(rng, 30)
    foreign.loc[0, "age"] = "99"
    foreign.to_csv(tmp_path / "foreign.csv", index=False)
    with pytest.raises(ConfigurationError, match="not in its hierarchy"):
        prepare(sample, definition, hierarchies,
                AnonymizationConfig([KMap(2, population=str(tmp_path / "foreign.csv"))]))
    sample.iloc[:10].to_csv(tmp_path / "part.csv", index=False)
    with pytest.raises(ConfigurationError, match="lacks records of the data"):
        prepare(sample, definition, hierarchies,
                AnonymizationConfig([KMap(2, population=str(tmp_path / "part.csv"))]))
    with pytest.raises(ConfigurationError, match="smaller than the data"):
        prepare(sample, definition, hierarchies,
                AnonymizationConfig([KMap(2, population_size=10)]))


def _files(tmp_path, rng):
    sample = table(rng, 60)
    sample.to_csv(tmp_path / "data.csv", index=False)
    pd.concat([sample, table(rng, 200)]).to_csv(tmp_path / "population.csv", index=False)
    args = ["anonymize", "--data", str(tmp_path / "data.csv")]
    for name, rows in HIERARCHIES.items():
        pd.DataFrame(rows).to_csv(tmp_path / f"{name}.csv", sep=";", header=False,
                                  index=False)
        args += ["--hierarchy", f"{name}={tmp_path / f'{name}.csv'}"]
    return args


def test_cli_k_map_and_sample_uniqueness_round_trip(tmp_path, capsys):
    args = _files(tmp_path, np.random.default_rng(3))
    report = tmp_path / "report.json"
    assert main(args + ["--kmap", "4", "--population", str(tmp_path / "population.csv"),
                        "--sample-uniqueness", "0.1", "--suppression", "0.05",
                        "--report", str(report)]) == 0
    written = json.loads(report.read_text())
    kinds = {m["kind"]: m for m in written["privacy_models"]}
    assert kinds["k-map"] == {"kind": "k-map", "k": 4, "estimator": "poisson",
                              "significance": 0.01,
                              "population": str(tmp_path / "population.csv")}
    assert kinds["sample-uniqueness"]["threshold"] == 0.1
    checks = {c["kind"]: c["holds"] for c in written["release"]["verification"]["claims"]}
    assert checks["k-map"] is True and checks["sample-uniqueness"] is True
    assert main(args + ["--kmap", "4", "--population-size", "usa",
                        "--kmap-estimator", "zero-truncated-poisson",
                        "--report", str(report)]) == 0
    estimated = json.loads(report.read_text())["privacy_models"][0]
    assert estimated["population_size"] == 317_238_626
    assert estimated["estimator"] == "zero-truncated-poisson"
    capsys.readouterr()
    assert main(args + ["--kmap", "4"]) != 0
    assert "--population FILE or --population-size N" in capsys.readouterr().err
    assert main(args + ["--population-size", "1000"]) != 0
    assert "add --kmap K" in capsys.readouterr().err
