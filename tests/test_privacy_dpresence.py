"""δ-presence (ARX ``DPresence``) against brute force, its claim, settings and CLI.

The reference is ``presence`` in tests/population_reference.py, written from Nergiz et
al.'s definition without arxpy; the claim checker must refute a release that states
narrower bounds than it holds.
"""

from __future__ import annotations

import dataclasses
import itertools
import json

import numpy as np
import pandas as pd
import pytest
from cli_checks import one_error_line
from population_reference import population_matches, presence
from test_privacy_kmap import HIERARCHIES, classes_at, labels_of, setting, table

from arxpy.cli import main
from arxpy.data.definition import AttributeType
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.engine.prepare import prepare
from arxpy.errors import ConfigurationError
from arxpy.lattice import kernels
from arxpy.lattice.grouping import Grouper
from arxpy.privacy import (
    DeltaPresence,
    DistinctLDiversity,
    KAnonymity,
    privacy_model_from_dict,
)
from arxpy.privacy.dpresence import subset_mask
from arxpy.project import Project
from arxpy.release import check_claim

LEVELS = list(itertools.product(range(4), range(3)))


def _drawn(rng: np.random.Generator, people: int, share: float):
    """A population and a research subset drawn from it (rows of the population)."""
    population = table(rng, people)
    chosen = rng.random(people) < share
    return population, population[chosen].reset_index(drop=True)


@pytest.mark.parametrize("seed", range(4))
def test_delta_presence_is_the_brute_force(tmp_path, seed):
    rng = np.random.default_rng(seed)
    population, subset = _drawn(rng, 90, 0.4)
    path = tmp_path / "population.csv"
    population.to_csv(path, index=False)
    low = float(rng.choice([0.0, 0.1, 0.25]))
    high = float(rng.uniform(max(low, 0.3), 0.9))
    definition, hierarchies = setting(subset)
    data, config = prepare(subset, definition, hierarchies,
                           AnonymizationConfig([DeltaPresence(low, high, str(path))]))
    model = config.privacy_models[0]
    for levels in LEVELS:
        classes = classes_at(data, levels)
        delta = presence(subset, population, HIERARCHIES,
                         dict(zip(HIERARCHIES, levels, strict=True)))
        wanted = [low <= delta[key] <= high for key in labels_of(data, classes)]
        assert model.satisfied(classes).tolist() == wanted, levels
        empty = any(d == 0 for d in delta.values())
        kept = np.ones(classes.n_classes, dtype=bool)
        assert model.dataset_satisfied(classes, kept) == (low == 0 or not empty), levels


@pytest.mark.parametrize(("seed", "compiled"), [(0, True), (1, True), (2, False)])
def test_rolled_up_population_counts_are_a_recount(tmp_path, monkeypatch, seed, compiled):
    """The people the grouper carries per class (ARX's pcount) and the population classes
    without subset records, grouped from the records or rolled up from any class below
    (and from roll-ups of roll-ups), equal a recount of the population table."""
    if compiled and not kernels.compiled_available():
        pytest.skip("the compiled kernel is not built")
    monkeypatch.setattr(kernels, "USE_COMPILED", compiled)
    rng = np.random.default_rng(seed)
    population, subset = _drawn(rng, 120, float(rng.uniform(0.1, 0.6)))
    data, grouper = _grouper_beside(population, subset, tmp_path)
    snapshots = {}
    for levels in LEVELS:  # ascending, so each level's predecessors are at hand
        grouped, _ = grouper.group_records(levels)
        below = [snapshots[b] for b in LEVELS if b != levels and b <= levels
                 and b[1] <= levels[1]]
        for classes in [grouped] + [grouper.roll_up(b, levels) for b in below]:
            _assert_recount(classes, data, subset, population)
        # Keep a roll-up as the next source when there is one: roll-ups of roll-ups.
        snapshots[levels] = classes


def _grouper_beside(population, subset, tmp_path):
    """The subset's encoded data and a grouper carrying the population table's counts."""
    path = tmp_path / "population.csv"
    population.to_csv(path, index=False)
    definition, hierarchies = setting(subset)
    data, config = prepare(subset, definition, hierarchies,
                           AnonymizationConfig([DeltaPresence(0.0, 1.0, str(path))]))
    return data, Grouper(data, populations=config.privacy_models[0].population_rows())


def _assert_recount(classes, data, subset, population):
    """The population counts ``classes`` carry equal a recount of the population table."""
    (carried,) = classes.populations.values()
    at = dict(zip(HIERARCHIES, classes.levels, strict=True))
    wanted = population_matches(subset, population, HIERARCHIES, at)
    assert carried.people.tolist() == [wanted[k] for k in labels_of(data, classes)]
    everyone = presence(subset, population, HIERARCHIES, at)
    assert len(carried.uncovered) == len(everyone) - classes.n_classes, classes.levels
    assert carried.uncovered_people.sum() + carried.people.sum() == len(population)


@pytest.mark.parametrize("compiled", [True, False])
def test_population_counts_rolled_up_from_the_root_follow_a_new_root(tmp_path, monkeypatch,
                                                                      compiled):
    """Roll-ups from the root take the uncovered population keys from kept halves: they
    are a recount at every level, twice (the second from kept arrays), and after another
    transformation was grouped from the records (a new root) none of the old root's kept
    keys serve it."""
    if compiled and not kernels.compiled_available():
        pytest.skip("the compiled kernel is not built")
    monkeypatch.setattr(kernels, "USE_COMPILED", compiled)
    population, subset = _drawn(np.random.default_rng(5), 120, 0.3)
    data, grouper = _grouper_beside(population, subset, tmp_path)
    for root_levels in [(0, 0), (1, 0), (0, 1)]:
        root, _ = grouper.group_records(root_levels)
        for levels in LEVELS:
            if levels != root_levels and all(map(int.__le__, root_levels, levels)):
                for _ in range(2):
                    _assert_recount(grouper.roll_up(root, levels), data, subset, population)


def test_search_release_holds_and_a_lie_is_caught(tmp_path):
    rng = np.random.default_rng(11)
    population, subset = _drawn(rng, 160, 0.35)
    path = tmp_path / "population.csv"
    population.to_csv(path, index=False)
    definition, hierarchies = setting(subset)
    config = AnonymizationConfig([DeltaPresence(0.1, 0.6, str(path)), KAnonymity(2)],
                                 suppression_limit=0.1)
    release = anonymize(subset, definition, hierarchies, config).release()
    assert release.verdict.anonymous
    levels = {n: release.transformation[n] for n in HIERARCHIES}
    kept = subset[~release.suppressed]
    delta = presence(kept, population, HIERARCHIES, levels)
    released = {tuple(r) for r in pd.DataFrame(
        {n: release.released()[n] for n in HIERARCHIES}).itertuples(index=False)}
    assert released and all(0.1 <= delta[key] <= 0.6 for key in released)
    claim = next(c for c in release.claims if c.kind == "delta-presence")
    assert check_claim(release, claim).holds
    top = max(delta[key] for key in released)
    lie = dataclasses.replace(claim, parameters={**claim.parameters, "delta_max": top / 2})
    assert check_claim(release, lie).holds is False
    # The untransformed subset, claimed as the release: some class is fully present.
    forged = dataclasses.replace(release, table=subset.copy(),
                                 suppressed=np.zeros(len(subset), dtype=bool),
                                 transformation=dict.fromkeys(HIERARCHIES, 0))
    assert check_claim(forged, claim).holds is False


def test_monotonicity_is_declared_as_arx():
    # ARX: ImplicitPrivacyCriterion(monotonicWithSuppression=false, withGeneralization=true)
    assert DeltaPresence.monotonic_without_suppression
    assert not DeltaPresence.monotonic_with_suppression


def test_settings_say_what_to_change(tmp_path):
    with pytest.raises(ConfigurationError, match="δmin .* is above δmax"):
        DeltaPresence(0.6, 0.2, "p.csv")
    with pytest.raises(ConfigurationError, match="delta_max must be between 0 and 1"):
        DeltaPresence(0.1, 1.5, "p.csv")
    with pytest.raises(ConfigurationError, match="not both"):
        DeltaPresence(0, 1, "p.csv", subset="s.csv", subset_filter=[
            {"attribute": "zip", "operator": "=", "value": "101"}])
    with pytest.raises(ConfigurationError, match="unknown subset operator"):
        DeltaPresence(0, 1, "p.csv", subset_filter=[{"attribute": "zip", "operator": "~"}])
    rng = np.random.default_rng(2)
    population, subset = _drawn(rng, 60, 0.5)
    population.to_csv(tmp_path / "population.csv", index=False)
    definition, hierarchies = setting(subset)

    def prepared(**settings):
        model = DeltaPresence(0, 1, str(tmp_path / "population.csv"), **settings)
        return prepare(subset, definition, hierarchies, AnonymizationConfig([model]))

    prepared()  # the data drawn from the population
    stranger = pd.concat([subset, table(rng, 40)]).head(len(subset) + 40)
    stranger.to_csv(tmp_path / "stranger.csv", index=False)
    with pytest.raises(ConfigurationError, match="records of the research subset file are "
                                                 "not in the population"):
        prepared(subset=str(tmp_path / "stranger.csv"))
    population.iloc[:5].to_csv(tmp_path / "other.csv", index=False)
    with pytest.raises(ConfigurationError, match="not the research subset the subset file"):
        prepared(subset=str(tmp_path / "other.csv"))
    subset.to_csv(tmp_path / "subset.csv", index=False)
    prepared(subset=str(tmp_path / "subset.csv"))
    with pytest.raises(ConfigurationError, match="not the research subset the subset filter"):
        prepared(subset_filter=[{"attribute": "zip", "operator": "=", "value": "101"}])


def test_a_filter_selects_the_subset_as_arx_query():
    frame = pd.DataFrame({"age": ["20", "35", "50", "x"], "sex": ["F", "M", "F", "F"],
                          "in": ["1", "0", "Yes", ""]})

    def rows(*conditions):
        return np.flatnonzero(subset_mask(frame, list(conditions))).tolist()

    assert rows({"attribute": "sex", "operator": "=", "value": "F"}) == [0, 2, 3]
    assert rows({"attribute": "age", "operator": ">=", "value": "35"}) == [1, 2]
    assert rows({"attribute": "age", "operator": "<", "value": "40"},
                {"attribute": "sex", "operator": "!=", "value": "M"}) == [0]
    assert rows({"attribute": "in", "operator": "is true"}) == [0, 2]
    assert rows({"attribute": "age", "operator": "not in", "value": ["20", "x"]}) == [1, 2]
    with pytest.raises(ConfigurationError, match="not a column of the population"):
        rows({"attribute": "zip", "operator": "=", "value": "1"})


def test_project_file_round_trip(tmp_path):
    rng = np.random.default_rng(4)
    subset = table(rng, 20)
    definition, hierarchies = setting(subset)
    model = DeltaPresence(0.05, 0.5, str(tmp_path / "population.csv"), subset_filter=[
        {"attribute": "zip", "operator": "in", "value": ["101", "102"]}])
    project = Project(subset, definition, hierarchies,
                      {"privacy_models": [model.to_dict()]})
    again = Project.load(project.save(tmp_path / "p.arxpy"))
    assert privacy_model_from_dict(again.settings["privacy_models"][0]) == model


def _cli_files(tmp_path, rng):
    """A population CSV flagging its research subset in ``study``, the subset as the data,
    and the hierarchy options."""
    population = table(rng, 150)
    chosen = rng.random(len(population)) < 0.4
    population.assign(study=np.where(chosen, "1", "0")).to_csv(
        tmp_path / "population.csv", index=False)
    population[chosen].to_csv(tmp_path / "data.csv", index=False)
    args = ["anonymize", "--data", str(tmp_path / "data.csv")]
    for name, rows in HIERARCHIES.items():
        pd.DataFrame(rows).to_csv(tmp_path / f"{name}.csv", sep=";", header=False,
                                  index=False)
        args += ["--hierarchy", f"{name}={tmp_path / f'{name}.csv'}"]
    return args


def test_cli_delta_presence_round_trip_and_mistakes(tmp_path, capsys):
    args = _cli_files(tmp_path, np.random.default_rng(6))
    pop = str(tmp_path / "population.csv")
    report = tmp_path / "report.json"
    assert main(args + ["--delta-presence", "0:0.7", "--population", pop,
                        "--subset-column", "study", "--suppression", "0.05",
                        "--report", str(report)]) == 0
    written = json.loads(report.read_text())
    assert written["privacy_models"][0] == {
        "kind": "delta-presence", "delta_min": 0.0, "delta_max": 0.7, "population": pop,
        "subset_filter": [{"attribute": "study", "operator": "is true"}]}
    checks = {c["kind"]: c["holds"] for c in written["release"]["verification"]["claims"]}
    assert checks["delta-presence"] is True
    data = str(tmp_path / "data.csv")
    assert main(args + ["--delta-presence", "0:0.7", "--population", pop, "--subset", data,
                        "--report", str(report)]) == 0
    assert json.loads(report.read_text())["privacy_models"][0]["subset"] == data
    stranger = pd.read_csv(data, dtype=str)
    stranger.loc[0, "age"] = "99"  # a record no one of the population has
    stranger.to_csv(tmp_path / "stranger.csv", index=False)
    for extra, option in ((["--delta-presence", "0.1:0.5"], "--population"),
                          (["--delta-presence", "0.6:0.2", "--population", pop],
                           "--delta-presence"),
                          (["--delta-presence", "0.1:1.2", "--population", pop],
                           "--delta-presence"),
                          (["--delta-presence", "0.1", "--population", pop],
                           "--delta-presence"),
                          (["--subset-column", "study"], "--delta-presence"),
                          (["--delta-presence", "0:1", "--population", pop, "--subset",
                            str(tmp_path / "stranger.csv")], "--subset"),
                          (["--delta-presence", "0:1", "--population", pop, "--subset",
                            data, "--subset-column", "study"], "--subset")):
        line = one_error_line(args + extra, capsys)
        assert option in line, (extra, line)


def test_help_topic_says_what_the_model_guarantees():
    from arxpy.help import model_topic

    text = model_topic(DeltaPresence, "privacy").to_text()
    assert "research subset with a probability between δmin and δmax" in text
    assert "Highest presence (δmax)" in text and "between 0 and 1" in text
    assert DeltaPresence(0.05, 0.5, "p.csv").describe() == "(0.05, 0.5)-presence"


@pytest.mark.parametrize(("compiled", "dense"), [(True, True), (True, False), (False, True),
                                                 (False, False)])
def test_classes_rolled_up_with_a_population_are_numbered_as_alone(tmp_path, monkeypatch,
                                                                   compiled, dense):
    """One population table rolls up in one grouping with the classes (its classes without
    records after theirs): the classes come out exactly as a grouper without it numbers
    them (order, sizes, keys, distributions), whether their own grouping lists them
    ascending (dense) or by first appearance, from the root and from roll-ups of roll-ups
    (which read the kept joint arrays), and the population counts stay a recount."""
    if compiled and not kernels.compiled_available():
        pytest.skip("the compiled kernel is not built")
    monkeypatch.setattr(kernels, "USE_COMPILED", compiled)
    # The classes' own order (decided in kernels for both groupings).
    monkeypatch.setattr(kernels, "dense_keys", lambda span, n: dense)
    population, subset = _drawn(np.random.default_rng(7), 100, 0.4)
    path = tmp_path / "population.csv"
    population.to_csv(path, index=False)
    definition, hierarchies = setting(subset)
    definition = definition.with_attribute("disease", type=AttributeType.SENSITIVE)
    data, config = prepare(subset, definition, hierarchies, AnonymizationConfig(
        [DeltaPresence(0.0, 1.0, str(path)), DistinctLDiversity("disease", 1)]))
    alone = Grouper(data, ["disease"])
    joint = Grouper(data, ["disease"], populations=config.privacy_models[0].population_rows())
    snapshots = {LEVELS[0]: (alone.group_records(LEVELS[0])[0],
                             joint.group_records(LEVELS[0])[0])}
    kept_joint = 0
    for levels in LEVELS[1:]:
        for below in [b for b in snapshots if all(map(int.__le__, b, levels))]:
            ours, theirs = (g.roll_up(s, levels) for g, s in
                            zip((joint, alone), snapshots[below][::-1], strict=True))
            assert ours.sizes.tolist() == theirs.sizes.tolist(), (below, levels)
            assert ours.packed.values.tolist() == theirs.packed.values.tolist()
            for a, b in zip(dataclasses.astuple(ours.distributions["disease"]),
                            dataclasses.astuple(theirs.distributions["disease"]), strict=True):
                assert np.array_equal(a, b)
            (carried,) = ours.populations.values()
            if carried.joint is not None:  # rolled up jointly: what the next one reads
                kept_joint += 1
                keys, people = carried.joint
                assert keys.tolist() == ours.packed.values.tolist() + carried.uncovered.tolist()
                assert people.tolist() == \
                    carried.people.tolist() + carried.uncovered_people.tolist()
            _assert_recount(ours, data, subset, population)  # decodes the keys
        # Sources for roll-ups of roll-ups, their keys not decoded (as in a search).
        snapshots[levels] = (alone.roll_up(snapshots[below][0], levels),
                             joint.roll_up(snapshots[below][1], levels))
    assert kept_joint > len(LEVELS)
