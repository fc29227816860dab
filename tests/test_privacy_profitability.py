"""ARX's game-theoretic models and the publisher payout against brute force.

The reference is tests/profitability_reference.py, written from Wan et al. (2015) and
ARX's definitions without arxpy; the claim checkers must refute a release whose prices
do not make it pay.
"""

from __future__ import annotations

import dataclasses
import itertools
import json

import numpy as np
import pandas as pd
import pytest
from profitability_reference import forgone_payout, verdicts
from test_privacy_kmap import HIERARCHIES, _files, classes_at, labels_of, setting, table

from arxpy.cli import main
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.engine.prepare import prepare
from arxpy.lattice.grouping import Grouper
from arxpy.privacy import privacy_model_from_dict
from arxpy.quality.registry import quality_model_from_dict
from arxpy.release import check_claim
from arxpy.risk.cost_benefit import CostBenefit

KINDS = ("profitability", "profitability-journalist", "no-attack-profitability",
         "no-attack-profitability-journalist")
LEVELS = list(itertools.product(range(4), range(3)))


def prices(rng: np.random.Generator) -> dict[str, float]:
    # Gains near the class sizes of 40 records, so both outcomes of the game occur.
    return {"adversary_cost": float(rng.uniform(0.5, 5)),
            "adversary_gain": float(rng.uniform(1, 40)),
            "publisher_benefit": float(rng.uniform(1, 50)),
            "publisher_loss": float(rng.uniform(10, 300))}


def _records(frame: pd.DataFrame) -> list[tuple[str, ...]]:
    return list(frame[list(HIERARCHIES)].itertuples(index=False, name=None))


@pytest.mark.parametrize(("kind", "seed"), list(itertools.product(KINDS, range(2))))
def test_each_model_is_the_brute_force(tmp_path, kind, seed):
    rng = np.random.default_rng(seed)
    sample = table(rng, 40)
    population = pd.concat([sample, table(rng, 80)], ignore_index=True)
    path = tmp_path / "population.csv"
    population.to_csv(path, index=False)
    spec = {"kind": kind, **prices(rng)}
    journalist = kind.endswith("journalist")
    if journalist:
        spec["population"] = str(path)
    definition, hierarchies = setting(sample)
    data, config = prepare(sample, definition, hierarchies,
                           AnonymizationConfig([privacy_model_from_dict(spec)]))
    model = config.privacy_models[0]
    rows = list(HIERARCHIES.values())
    outcomes = set()
    for levels in LEVELS:
        classes = classes_at(data, levels)
        expected = verdicts(_records(sample), rows, levels, spec,
                            _records(population) if journalist else None,
                            no_attack=kind.startswith("no-attack"))
        wanted = [expected[label] for label in labels_of(data, classes)]
        assert model.satisfied(classes).tolist() == wanted, levels
        outcomes.update(wanted)
    assert outcomes == {True, False}  # the prices made the game bite both ways


def test_journalist_games_on_the_searchs_rolled_up_classes_are_the_brute_force(tmp_path):
    """The journalist models and payout read the population's people from the classes the
    grouper carries (grouped, rolled up, rolled up from roll-ups), as from a lookup."""
    rng = np.random.default_rng(4)
    sample = table(rng, 40)
    population = pd.concat([sample, table(rng, 80)], ignore_index=True)
    path = tmp_path / "population.csv"
    population.to_csv(path, index=False)
    spec = prices(rng)
    definition, hierarchies = setting(sample)
    config = AnonymizationConfig(
        [privacy_model_from_dict({"kind": kind, "population": str(path), **spec})
         for kind in ("profitability-journalist", "no-attack-profitability-journalist")],
        quality_model=quality_model_from_dict(
            {"name": "payout", "attacker": "journalist", "population": str(path), **spec}))
    data, config = prepare(sample, definition, hierarchies, config)
    metric = config.quality_model
    populations = {name: rows for owner in (*config.privacy_models, metric)
                   for name, rows in owner.population_rows().items()}
    assert list(populations) == [str(path)]  # one table, carried once for all three
    grouper = Grouper(data, populations=populations)
    rows, people = list(HIERARCHIES.values()), _records(population)
    below: dict[tuple[int, ...], object] = {}
    for levels in LEVELS:  # ascending: each level's sources are at hand
        grouped, _ = grouper.group_records(levels)
        sources = [below[b] for b in below if b[0] <= levels[0] and b[1] <= levels[1]]
        for classes in [grouped] + [grouper.roll_up(b, levels) for b in sources]:
            assert classes.populations, levels  # carried, not looked up
            labels = labels_of(data, classes)
            for model in config.privacy_models:
                expected = verdicts(_records(sample), rows, levels, spec, people,
                                    no_attack=model.kind.startswith("no-attack"))
                assert model.satisfied(classes).tolist() == [expected[k] for k in labels]
            suppressed = classes.sizes < 3
            wanted = forgone_payout(
                _records(sample), rows, levels, spec,
                {k for k, s in zip(labels, suppressed, strict=True) if s}, people)
            assert metric.score(classes, suppressed) == pytest.approx(wanted, rel=1e-9)
            # One information loss on the classes, the models' and the payout's.
            assert [n.split(":")[0] for n in classes.derived] == ["entropy-information-loss"]
        below[levels] = classes  # a roll-up when there is one: roll-ups of roll-ups


@pytest.mark.parametrize("attacker", ["prosecutor", "journalist"])
def test_payout_score_is_the_brute_force(tmp_path, attacker):
    rng = np.random.default_rng(3)
    sample = table(rng, 40)
    population = pd.concat([sample, table(rng, 80)], ignore_index=True)
    definition, hierarchies = setting(sample)
    spec = prices(rng)
    quality = {"name": "payout", "attacker": attacker, **spec}
    if attacker == "journalist":
        population.to_csv(tmp_path / "population.csv", index=False)
        quality["population"] = str(tmp_path / "population.csv")
    data, config = prepare(sample, definition, hierarchies, AnonymizationConfig(
        [privacy_model_from_dict({"kind": "k-anonymity", "k": 1})],
        quality_model=quality_model_from_dict(quality)))
    metric = config.quality_model
    for levels in LEVELS:
        classes = classes_at(data, levels)
        labels = labels_of(data, classes)
        suppressed = classes.sizes < 3
        expected = forgone_payout(_records(sample), list(HIERARCHIES.values()), levels, spec,
                                  {lab for lab, s in zip(labels, suppressed, strict=True) if s},
                                  _records(population) if attacker == "journalist" else None)
        assert metric.score(classes, suppressed) == pytest.approx(expected, rel=1e-9)
        assert metric.lower_bound(classes) <= metric.score(classes, suppressed) + 1e-9


def test_no_attack_k_is_arx_threshold():
    assert CostBenefit(adversary_cost=4, adversary_gain=300).no_attack_k() == 76  # 75 + 1
    assert CostBenefit(adversary_cost=4, adversary_gain=30).no_attack_k() == 8  # ceil 7.5
    assert CostBenefit(adversary_gain=0).no_attack_k() == 1


@pytest.mark.parametrize("kind", ["profitability", "no-attack-profitability"])
def test_release_holds_and_a_lie_is_caught(kind):
    rng = np.random.default_rng(5)
    sample = table(rng, 60)
    definition, hierarchies = setting(sample)
    model = privacy_model_from_dict({"kind": kind, "adversary_gain": 30})
    release = anonymize(sample, definition, hierarchies,
                        AnonymizationConfig([model], suppression_limit=0.5)).release()
    claim = next(c for c in release.claims if c.kind == kind)
    assert check_claim(release, claim).holds is True
    # Prices under which the released table does not pay (or invites attacks).
    lie = dataclasses.replace(claim, parameters={**claim.parameters, "publisher_benefit": 0.0,
                                                 "adversary_gain": 1e6})
    assert check_claim(release, lie).holds is False


def test_cli_profitability_and_payout(tmp_path, capsys):
    args = _files(tmp_path, np.random.default_rng(3))
    report = tmp_path / "report.json"
    population = str(tmp_path / "population.csv")
    assert main(args + ["--profitability", "journalist", "--population", population,
                        "--adversary-gain", "20", "--publisher-benefit", "100",
                        "--metric", "payout", "--suppression", "0.2",
                        "--report", str(report)]) == 0
    written = json.loads(report.read_text())
    assert written["privacy_models"][0] == {
        "kind": "profitability-journalist", "adversary_cost": 4.0, "adversary_gain": 20.0,
        "publisher_benefit": 100.0, "publisher_loss": 300.0, "population": population}
    assert written["quality_model"]["name"] == "payout"
    assert written["quality_model"]["publisher_benefit"] == 100.0
    assert written["quality_model"]["attacker"] == "journalist"
    checks = {c["kind"]: c["holds"] for c in written["release"]["verification"]["claims"]}
    assert checks["profitability-journalist"] is True
    capsys.readouterr()
    assert main(args + ["--profitability", "journalist:noattack"]) != 0
    assert "needs the population" in capsys.readouterr().err
    assert main(args + ["--k", "2", "--adversary-cost", "3"]) != 0
    assert "add one" in capsys.readouterr().err
