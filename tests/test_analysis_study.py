"""Study mode on a small lattice: every anonymous transformation evaluated and scored."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from arxpy.analysis.classification import ClassificationConfig
from arxpy.analysis.study import STUDY_MODELS, classification_study, study_quality_models
from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy.kanonymity import KAnonymity

QI = AttributeType.QUASI_IDENTIFYING


def toy(n: int = 400, seed: int = 3):
    """Age, ZIP and sex as quasi-identifiers (lattice 3 x 3 x 2); the class follows age."""
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 60, n)
    zips = rng.integers(1300, 1309, n)
    frame = pd.DataFrame({
        "age": age.astype(str), "zip": zips.astype(str), "sex": rng.choice(["F", "M"], n),
        "risk": np.where((age >= 40) ^ (rng.random(n) < 0.15), "high", "low")})
    definition = DataDefinition([AttributeDefinition("age", QI), AttributeDefinition("zip", QI),
                                 AttributeDefinition("sex", QI), AttributeDefinition("risk")])
    hierarchies = {
        "age": Hierarchy((str(a), f"{a // 10 * 10}s", "*") for a in range(20, 60)),
        "zip": Hierarchy((str(z), f"{z // 10}*", "*") for z in range(1300, 1309)),
        "sex": Hierarchy([("F", "*"), ("M", "*")]),
    }
    return frame, definition, hierarchies


@pytest.fixture(scope="module")
def study():
    frame, definition, hierarchies = toy()
    config = AnonymizationConfig([KAnonymity(5)], suppression_limit=0.05)
    return classification_study(frame, definition, hierarchies, config,
                                ClassificationConfig("risk", seed=1))


def test_report_keys_and_ranges(study):
    report = study.to_dict()
    assert set(report["models"]) == set(STUDY_MODELS)
    for model in report["models"].values():
        assert set(model) >= {"chosen_transformation", "chosen_relative_accuracy", "spearman"}
        assert -1.0 <= model["spearman"] <= 1.0
        assert set(model["chosen_transformation"]) == {"age", "zip", "sex"}
    assert report["lattice_size"] == 18 and report["sampled"] is False
    assert report["evaluated_transformations"] == report["anonymous_transformations"] > 0
    assert report["best_relative_accuracy"] == study.table["relative_accuracy"].max()
    assert report["best_relative_accuracy"] >= max(
        m["chosen_relative_accuracy"] for m in report["models"].values())


def test_chosen_transformations_are_anonymous_and_minimal(study):
    """Each choice is the engine's own optimum for that quality model (exhaustive search)."""
    frame, definition, hierarchies = toy()
    for name, model in study_quality_models("risk").items():
        config = AnonymizationConfig([KAnonymity(5)], quality_model=model,
                                     suppression_limit=0.05, strategy="exhaustive")
        result = anonymize(frame, definition, hierarchies, config)
        assert study.chosen[name] == result.optimum.levels, name
        assert result.transformation(study.chosen[name]).state == "anonymous"
        assert study.table[name].min() == pytest.approx(result.optimum.score)
    # Every row of the table is anonymous: smallest class of the published records >= 5.
    row = study.table.iloc[0]
    levels = tuple(int(row[q]) for q in ("age", "zip", "sex"))
    output = anonymize(frame, definition, hierarchies, AnonymizationConfig(
        [KAnonymity(5)], suppression_limit=0.05, strategy="exhaustive")).release(levels)
    published = output.table[~output.suppressed]
    assert published.groupby(["age", "zip", "sex"]).size().min() >= 5


def test_relative_accuracy_of_the_bottom_is_one_when_anonymous():
    frame, definition, hierarchies = toy(n=200)
    config = AnonymizationConfig([KAnonymity(1)])
    result = classification_study(frame, definition, hierarchies, config,
                                  ClassificationConfig("risk"))
    assert result._row((0, 0, 0))["relative_accuracy"] == 1.0
    assert result._row((2, 2, 1))["relative_accuracy"] == 0.0  # all '*': ZeroR


def test_time_limit_samples_and_says_so(tmp_path):
    frame, definition, hierarchies = toy()
    config = AnonymizationConfig([KAnonymity(5)], suppression_limit=0.05)
    result = classification_study(frame, definition, hierarchies, config,
                                  ClassificationConfig("risk"), time_limit=1e-6)
    report = result.to_dict()
    assert report["sampled"] is True and "Sampled" in report["notes"][0]
    assert report["evaluated_transformations"] == len(set(result.chosen.values()))
    for model in report["models"].values():
        assert not math.isnan(model["chosen_relative_accuracy"])
    paths = result.plot(tmp_path / "plots")
    assert {p.name for p in paths} == {f"study_{m}.png" for m in STUDY_MODELS} | {"study.png"}
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in paths)


def test_no_anonymous_transformation_is_an_error():
    frame, definition, hierarchies = toy(n=50)
    config = AnonymizationConfig([KAnonymity(60)])
    with pytest.raises(ConfigurationError):
        classification_study(frame, definition, hierarchies, config,
                             ClassificationConfig("risk"))


def test_applied_transformation_matches_the_engine_output():
    from arxpy.engine import apply, parse_transformation

    frame, definition, hierarchies = toy()
    config = AnonymizationConfig([KAnonymity(5)], suppression_limit=0.05)
    levels = parse_transformation("age=1, sex=1", definition.quasi_identifiers)
    assert levels == {"age": 1, "zip": 0, "sex": 1}
    applied = apply(frame, definition, hierarchies, config, levels)
    output = anonymize(frame, definition, hierarchies, config).release((1, 0, 1))
    assert np.array_equal(applied.suppressed, output.suppressed)
    assert applied.anonymous == output.anonymous
    assert applied.table.equals(output.table)
    with pytest.raises(ConfigurationError, match="outside the lattice"):
        apply(frame, definition, hierarchies, config, {"age": 5})


def wide(n: int = 1500, seed: int = 5):
    """Five quasi-identifiers, a lattice of 540 transformations; the class follows age."""
    rng = np.random.default_rng(seed)
    age, zips, day = rng.integers(20, 80, n), rng.integers(10000, 10999, n), rng.integers(1, 29, n)
    frame = pd.DataFrame({
        "age": age.astype(str), "zip": zips.astype(str), "sex": rng.choice(["F", "M"], n),
        "day": day.astype(str), "ward": rng.choice(list("ABCDEFGH"), n),
        "risk": np.where((age >= 50) ^ (rng.random(n) < 0.15), "high", "low")})
    qis = ("age", "zip", "sex", "day", "ward")
    definition = DataDefinition([AttributeDefinition(c, QI) for c in qis]
                                + [AttributeDefinition("risk")])
    hierarchies = {
        "age": Hierarchy((str(a), f"{a // 5 * 5}", f"{a // 10 * 10}", f"{a // 20 * 20}", "*")
                         for a in range(20, 80)),
        "zip": Hierarchy(tuple(str(z)[:5 - i] + "*" * i for i in range(5)) + ("*",)
                         for z in range(10000, 10999)),
        "sex": Hierarchy([("F", "*"), ("M", "*")]),
        "day": Hierarchy((str(d), f"w{(d - 1) // 7}", "*") for d in range(1, 29)),
        "ward": Hierarchy((w, "AD" if w in "ABCD" else "EH", "*") for w in "ABCDEFGH"),
    }
    return frame, definition, hierarchies


def test_time_limit_covers_scoring_the_lattice():
    """A budget spent while scoring stops the scoring (issue 11: 60 s ran 423 s)."""
    frame, definition, hierarchies = wide()
    config = AnonymizationConfig([KAnonymity(5)], suppression_limit=0.05)
    result = classification_study(frame, definition, hierarchies, config,
                                  ClassificationConfig("risk", seed=1), time_limit=1e-6)
    report = result.to_dict()
    assert result.lattice_size == 540
    scored_note = next(n for n in report["notes"] if n.startswith("Scored"))
    scored = int(scored_note.split()[1].replace(",", ""))
    assert 0 < scored < 540 and "of 540" in scored_note
    assert report["sampled"] is True
    # Choices come from what was scored, and only they were evaluated.
    assert report["evaluated_transformations"] == len(set(result.chosen.values()))
    assert len(result.table) < 540


def test_full_study_without_limit_scores_the_whole_lattice():
    frame, definition, hierarchies = toy()
    config = AnonymizationConfig([KAnonymity(5)], suppression_limit=0.05)
    result = classification_study(frame, definition, hierarchies, config,
                                  ClassificationConfig("risk", seed=1), time_limit=600)
    assert not any(n.startswith("Scored") for n in result.notes)
    assert result.to_dict()["evaluated_transformations"] == len(result.table)


def test_rho_needs_ten_points_and_says_why():
    frame, definition, hierarchies = toy()
    config = AnonymizationConfig([KAnonymity(5)], suppression_limit=0.05)
    result = classification_study(frame, definition, hierarchies, config,
                                  ClassificationConfig("risk", seed=1), time_limit=1e-6)
    evaluated = int(result.table["evaluated"].sum())
    assert evaluated < 10
    assert all(math.isnan(result.spearman(m)[0]) for m in STUDY_MODELS)
    assert all(v["spearman"] is None for v in result.to_dict()["models"].values())
    assert any(f"at least 10 evaluated transformations; {evaluated} were" in n
               for n in result.notes)
