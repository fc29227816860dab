"""One verdict per release: the claim checkers, the attacker's view and the surfaces.

Every surface (Compare, the HTML report, the CLI/JSON report, Risk's limits) must print
the verdict of :func:`arxpy.release.judge` and nothing else; the claim checkers must
agree with the independent audit (tests/audit.py) and catch a release that lies.
"""

from __future__ import annotations

import html

import audit
import numpy as np
import pandas as pd
import pytest

from arxpy.analysis import compare_releases
from arxpy.data.definition import AttributeType, DataDefinition, DataKind, DataType
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.engine.export import release_report_html
from arxpy.example import example_project
from arxpy.hierarchy.model import Hierarchy
from arxpy.methods import run_method
from arxpy.privacy import (
    BasicBetaLikeness,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    TCloseness,
)
from arxpy.quality.loss import Loss
from arxpy.release import Claim, Release, table_sha256
from arxpy.risk.sample import risk_limits
from arxpy.risk.summary import analyze_release


@pytest.fixture(scope="module")
def example():
    project = example_project()
    data = project.data.sample(3_000, random_state=7).reset_index(drop=True)
    return project, data


@pytest.fixture(scope="module")
def releases(example):
    """One release per method that takes the example's table."""
    project, data = example
    config = AnonymizationConfig([KAnonymity(5)], Loss(), 0.05)
    lattice = anonymize(data, project.definition, project.hierarchies, config).release()
    made = {"lattice": lattice}
    for name, params in [("intervals", {"attributes": ["Age"], "k": 5}),
                         ("mdav", {"k": 5, "seed": 1}),
                         ("condensation", {"k": 5, "seed": 1})]:
        made[name] = run_method(name, data, project.definition, params)
    return made


def test_interval_over_age_alone_is_not_anonymous_over_the_declared_qis(releases):
    release = releases["intervals"]
    verdict = release.verify()
    assert all(check.holds for check in verdict.checks)  # its boxes keep k = 5 ...
    assert not release.anonymous  # ... but the other 7 quasi-identifiers single people out
    assert verdict.headline.startswith(
        "Not anonymous over the declared quasi-identifiers (smallest class 1)")
    assert "Age only" in verdict.headline
    assert set(verdict.attacker.uncovered) == set(release.quasi_identifiers) - {"Age"}
    # Risk may not borrow the boxes' k: nothing bounds the estimated risks.
    assert risk_limits(release.verify().verified_claims).prosecutor == 1.0
    prosecutor = analyze_release(release).risks.prosecutor
    assert prosecutor.highest == 1.0 and prosecutor.estimated > 0.2


def test_every_surface_prints_the_same_verdict(releases):
    frame = compare_releases(releases)
    for name, release in releases.items():
        headline = release.verify().headline
        assert frame.loc["verdict", name] == headline
        assert bool(frame.loc["anonymous", name]) is release.anonymous
        assert html.escape(headline) in release_report_html(release)
        report = release.to_dict()
        assert report["verification"]["headline"] == headline
        assert report["anonymous"] is release.anonymous


def test_verdicts_of_the_methods(releases):
    assert releases["lattice"].anonymous and releases["mdav"].anonymous
    assert releases["condensation"].anonymous
    # Synthetic rows: the attacker's classes mean nothing and the report says why.
    view = releases["condensation"].verify().attacker
    assert not view.applies and "synthetic" in view.not_applicable
    assert view.smallest is None
    cells = compare_releases({"c": releases["condensation"]})
    assert str(cells.loc["smallest class", "c"]).startswith("not applicable: ")
    # The lattice's attacker view is recounted from the released table.
    lattice = releases["lattice"]
    released = lattice.released()
    smallest = released.groupby(lattice.quasi_identifiers, dropna=False).size().min()
    assert lattice.verify().attacker.smallest == smallest >= 5


def _table_release(table: pd.DataFrame, claims, qis, groups=None, suppressed=None,
                   definition=None):
    if definition is not None:
        return Release(table=table, suppressed=np.zeros(len(table), bool), definition=definition,
                       method="test", parameters={}, claims=tuple(claims),
                       input_sha256=table_sha256(table))
    definition = DataDefinition.for_columns(list(table.columns))
    for name in qis:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    n = len(table)
    return Release(table=table, suppressed=np.zeros(n, bool) if suppressed is None else suppressed,
                   definition=definition, method="test", parameters={}, claims=tuple(claims),
                   input_sha256=table_sha256(table), groups=groups)


def test_a_release_that_lies_is_caught_and_a_release_without_claims_is_not_anonymous():
    table = pd.DataFrame({"a": ["1", "1", "2", "2", "2"], "b": ["x"] * 5})
    lying = _table_release(table, [Claim("k-anonymity", {"k": 3}, ("a",), "3-anonymity")],
                           ["a", "b"])
    assert not lying.anonymous
    assert lying.verify().headline.startswith("NOT anonymous: 1 of 1 claim does not hold")
    assert "smallest class 2 records, at least 3 claimed" in lying.verify().checks[0].finding
    bare = _table_release(table, [], ["a"])
    assert not bare.anonymous and "claims no privacy property" in bare.verify().headline
    unknown = _table_release(table, [Claim("from-the-future", {}, ("a",))], ["a"])
    assert unknown.verify().status == "not verified" and not unknown.anonymous


def test_without_declared_quasi_identifiers_the_attacker_view_says_why():
    table = pd.DataFrame({"a": ["1", "1", "2", "2"]})
    release = _table_release(table, [Claim("k-cluster", {"k": 2}, ("a",))], [],
                             groups=np.array([0, 0, 1, 1]))
    view = release.verify().attacker
    assert not view.applies and "no quasi-identifier is declared" in view.not_applicable
    cells = compare_releases({"r": release})
    assert "not applicable" in str(cells.loc["highest prosecutor risk", "r"])


# --- the sensitive-attribute checkers against the independent audit ---------------------------


def _random_table(seed: int, n: int = 400) -> tuple[pd.DataFrame, DataDefinition, dict]:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "age": rng.integers(20, 60, n).astype(str),
        "zip": rng.choice(["1301", "1302", "1401", "1402"], n),
        "disease": rng.choice(["flu", "hiv", "cold", "asthma", "ulcer", "gastritis"], n,
                              p=[0.3, 0.05, 0.25, 0.15, 0.15, 0.1]),
        "score": rng.integers(1, 9, n).astype(str),
    })
    ages = [str(a) for a in range(20, 60)]
    hierarchies = {
        "age": Hierarchy([[a, f"{int(a) // 10 * 10}-{int(a) // 10 * 10 + 9}", "*"] for a in ages]),
        "zip": Hierarchy([[z, z[:2] + "**", "*"] for z in ["1301", "1302", "1401", "1402"]]),
    }
    definition = DataDefinition.for_columns(list(frame.columns))
    for name in ("age", "zip"):
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    for name in ("disease", "score"):
        definition = definition.with_attribute(name, type=AttributeType.SENSITIVE)
    definition = definition.with_attribute("score", data_type=DataType(DataKind.INTEGER))
    return frame, definition, hierarchies


MODELS = [
    (DistinctLDiversity("disease", 3), lambda t: audit.l_diversity(t, QIS, ["disease"]) >= 3),
    (EntropyLDiversity("disease", 2.5),
     lambda t: audit.entropy_l_diversity(t, QIS, ["disease"]) >= 2.5 - 1e-9),
    (TCloseness("disease", 0.2, "equal"),
     lambda t: audit.t_closeness(t, QIS, ["disease"]) <= 0.2 + 1e-9),
    (TCloseness("score", 0.15, "ordered"),
     lambda t: audit.t_closeness(t.astype({"score": int}), QIS, ["score"]) <= 0.15 + 1e-9),
    (BasicBetaLikeness("disease", 1.5),
     lambda t: audit.basic_beta_likeness(t, QIS, ["disease"]) <= 1.5 + 1e-9),
    # audit's delta is in natural logarithms, ARX's in log2.
    (DeltaDisclosure("disease", 1.2),
     lambda t: audit.delta_disclosure(t, QIS, ["disease"]) < 1.2 * np.log(2)),
]
QIS = ["age", "zip"]


@pytest.mark.parametrize("model, audited", MODELS, ids=lambda m: getattr(m, "kind", ""))
@pytest.mark.parametrize("seed", [1, 2])
def test_sensitive_checkers_agree_with_the_audit(model, audited, seed):
    frame, definition, hierarchies = _random_table(seed)
    parameters = model.to_dict()
    claim = Claim(parameters.pop("kind"), parameters, tuple(QIS), model.describe())
    verdicts = []
    for levels in [(a, z) for a in range(3) for z in range(3)]:  # the whole 3 x 3 lattice
        table = frame.copy()
        for name, level in zip(QIS, levels, strict=True):
            table[name] = table[name].map({row[0]: row[level] for row in hierarchies[name].rows})
        release = _table_release(table, [claim], QIS, definition=definition)
        (check,) = release.verify().checks
        assert check.holds == bool(audited(table)), (levels, check.finding)
        verdicts.append(check.holds)
    assert True in verdicts and False in verdicts  # both answers were put to the test


def test_lattice_releases_keep_their_sensitive_claims():
    frame, definition, hierarchies = _random_table(3)
    models = [model for model, _ in MODELS]
    result = anonymize(frame, definition, hierarchies,
                       AnonymizationConfig([KAnonymity(2), *models], Loss(), 0.1))
    release = result.release()
    assert release.anonymous, release.verify().lines()
    assert len(release.verify().checks) == 2 + len(models)  # k, the models, the limit


def test_recursive_cl_checker_matches_its_definition_on_a_hand_table():
    table = pd.DataFrame({"q": ["a"] * 6 + ["b"] * 4,
                          "s": ["x", "x", "x", "y", "y", "z", "x", "y", "z", "w"]})
    claim = Claim("recursive-cl-diversity", {"attribute": "s", "c": 1.0, "l": 2}, ("q",))
    release = _table_release(table, [claim], ["q"])
    # Class a: r = (3, 2, 1): 3 < 1 * (2 + 1) fails (not strictly less); class b holds.
    (check,) = release.verify().checks
    assert check.holds is False and "1 of 2 classes fail" in check.finding
    looser = Claim("recursive-cl-diversity", {"attribute": "s", "c": 1.01, "l": 2}, ("q",))
    assert _table_release(table, [looser], ["q"]).verify().checks[0].holds is True
