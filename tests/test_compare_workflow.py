"""Compare across methods without Qt: the charts' figures, "Which to publish?", pins
saved with their runs, and releases sealed to this installation."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

from arxpy.analysis.compare import compare_releases
from arxpy.analysis.release_utility import (
    DEVIATION_ERROR,
    DEVIATIONS,
    ENTROPY,
    ENTROPY_LOSS,
    MEAN_ERROR,
    MEANS,
    attribute_losses,
    utility_figures,
)
from arxpy.example import example_project
from arxpy.methods import method_from_dict
from arxpy.release import Claim, Release, table_sha256
from arxpy.workflows.compare import compare_candidates, publication_advice, record_risk_shares
from arxpy.workflows.pins import Pin, pinned, pinned_releases, renamed
from arxpy.workflows.saved_runs import MAX_PINS, input_fingerprint, restore_runs, run_record
from arxpy.workflows.sealed import installation_key, seal, unseal


@pytest.fixture(scope="module")
def project():
    return example_project(records=300)


@pytest.fixture(scope="module")
def releases(project):
    out = {}
    for spec in ({"name": "mdav", "k": 5, "seed": 1}, {"name": "condensation", "k": 5,
                                                       "seed": 1}, {"name": "generalization"}):
        outcome = method_from_dict(spec).run(project.data, project.definition,
                                             hierarchies=project.hierarchies)
        out[spec["name"]] = outcome
    return out


def _release(outcome):
    return outcome.release() if hasattr(outcome, "release") else outcome


def test_the_charts_figures_and_the_reasons_where_they_do_not_apply(project, releases):
    named = {name: _release(o) for name, o in releases.items()}
    named["lattice candidate"] = lambda: releases["generalization"].release(
        releases["generalization"].lattice.top)  # computed on the worker
    comparison = compare_candidates(named, project.data, project.definition,
                                    project.hierarchies, "Charge", [10000, 50000])
    assert list(comparison.table.columns) == ["mdav", "condensation", "generalization",
                                              "lattice candidate"]
    for name in ("mdav", "generalization"):
        sizes = named[name].verdict.attacker.sizes
        shares = comparison.class_sizes[name].shares
        assert shares.sum() == pytest.approx(1.0)
        assert shares[0] == pytest.approx(np.mean(sizes == 1))  # classes of one record
        # Records by risk, counted here from the class sizes: 1/size in (0.1, 0.2].
        banded = sizes[(1 / sizes > 0.1) & (1 / sizes <= 0.2)].sum() / sizes.sum()
        assert comparison.record_risks[name].labels[1] == "10–20 %"
        assert comparison.record_risks[name].shares[1] == pytest.approx(banded)
    assert "synthetic" in comparison.class_sizes["condensation"]
    assert "synthetic" in comparison.record_risks["condensation"]
    top = comparison.class_sizes["lattice candidate"].shares
    assert top[-1] == 1.0  # the top of the lattice: one class of every record
    roc = comparison.roc["mdav"]
    assert set(roc["class"]) <= {"<10000", "[10000, 50000[", ">=50000"}
    assert roc["fpr"].between(0, 1).all() and roc["tpr"].between(0, 1).all()
    assert comparison.roc_original is not None and not comparison.roc_original.empty


def test_loss_per_attribute_averages_to_compares_rows(project, releases):
    for outcome in releases.values():
        release = _release(outcome)
        table = attribute_losses(project.data, release)
        rows = utility_figures(project.data, release)
        for column, row in ((ENTROPY_LOSS, ENTROPY), (MEAN_ERROR, MEANS),
                            (DEVIATION_ERROR, DEVIATIONS)):
            if isinstance(rows[row], str):
                assert table[column].isna().all()
            else:
                assert table[column].mean() == pytest.approx(rows[row])
    synthetic = attribute_losses(project.data, _release(releases["condensation"]))
    assert "synthetic" in synthetic.attrs["why"][ENTROPY_LOSS]


def _table_release(frame, released, claims, name):
    from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition

    definition = DataDefinition([AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING)])
    return Release(table=released, suppressed=np.zeros(len(frame), bool), definition=definition,
                   method=name, parameters={}, claims=claims,
                   input_sha256=table_sha256(frame))


def test_which_to_publish_names_the_best_anonymous_and_why_others_are_not():
    frame = pd.DataFrame({"age": [str(20 + i % 6) for i in range(12)]})
    k2 = (Claim("k-anonymity", {"k": 2}, ("age",)),)
    coarse = _table_release(frame, frame.assign(age="*"), k2, "coarse")
    halves = frame["age"].map(lambda a: "20-22" if int(a) < 23 else "23-25")
    fine = _table_release(frame, frame.assign(age=halves), k2, "fine")
    exact = _table_release(frame, frame.copy(), (Claim("k-anonymity", {"k": 3}, ("age",)),),
                           "exact")
    table = compare_releases({"coarse": coarse, "fine": fine, "exact": exact}, frame)
    advice = publication_advice(table)
    assert advice.anonymous == ("coarse", "fine")
    assert ("largest smallest class", ("coarse",)) in advice.best
    assert [name for name, _ in advice.not_anonymous] == ["exact"]
    text = " ".join(advice.sentences())
    assert f"exact is not anonymous: {exact.verdict.headline}" in text
    assert "coarse is best on largest smallest class, lowest highest" in text
    assert advice.sentences({"coarse": "A"})[0].startswith("A is best on largest")
    alone = publication_advice(compare_releases({"exact": exact, "fine": fine}, frame))
    assert alone.sentences()[0] == "fine is the only anonymous release."


def test_pins_are_keyed_by_run_and_candidate():
    pins = pinned([], Pin("k5", (1, 2)))
    pins = pinned(pins, Pin("mdav"))
    assert pinned(pins, Pin("mdav")) == pins  # pinned once
    assert [p.name for p in renamed(pins, "k5", "five")] == ["five [1, 2]", "mdav"]
    full = [Pin(f"run {i}") for i in range(MAX_PINS)]
    with pytest.raises(Exception, match=f"At most {MAX_PINS} candidates"):
        pinned(full, Pin("one more"))


def test_saved_pins_return_with_their_runs_and_foreign_pins_are_refused(project, releases):
    search = releases["generalization"]
    printed = input_fingerprint(project.data, project.definition, project.hierarchies)
    method = method_from_dict({"name": "generalization"})
    other = next(c.levels for c in search.checked_transformations()
                 if c.levels != search.optimum.levels)
    record = run_record(method, search.release(), "search", [other, None], printed, search)
    record["pins"].append([99] * len(other))  # outside the lattice
    mdav = _release(releases["mdav"])
    plain = run_record(method_from_dict({"name": "mdav", "k": 5, "seed": 1}), mdav, "mdav",
                       [None], printed)
    plain["pins"].append([0])  # a method run has one candidate, its release
    restored, problems = restore_runs([record, plain], project.data, project.definition,
                                      project.hierarchies)
    assert [r.pins for r in restored] == [(tuple(other),), (None,)]
    assert sum("not one of its candidates" in p for p in problems) == 3
    runs = [type("Run", (), {"label": r.label, "release": r.release, "result": r.result})
            for r in restored]
    named = pinned_releases([Pin("search", tuple(other)), Pin("mdav")], runs)
    assert named["search " + str(list(other))]().levels == tuple(other)
    assert named["mdav"]().output_sha256 == mdav.output_sha256


def test_a_sealed_release_reopens_without_running_only_under_its_key(project, releases,
                                                                     tmp_path, monkeypatch):
    key = installation_key(tmp_path / "k" / "sealing.key")
    assert installation_key(tmp_path / "k" / "sealing.key") == key  # kept, not remade
    assert (tmp_path / "k" / "sealing.key").stat().st_mode & 0o077 == 0
    method = method_from_dict({"name": "condensation", "k": 5, "seed": 1})
    release = _release(releases["condensation"])
    printed = input_fingerprint(project.data, project.definition, project.hierarchies)
    record = run_record(method, release, "condensed", [None], printed, key=key)
    ran = []
    monkeypatch.setattr(type(method), "run",
                        lambda self, *a, **k: ran.append(1) or release)
    (same,), _ = restore_runs([record], project.data, project.definition,
                              project.hierarchies, key=key)
    assert not same.recomputed and ran == []
    assert same.release.output_sha256 == release.output_sha256
    assert same.release.verdict is not release.verdict  # judged afresh
    for other_key, forged in ((b"x" * 32, record), (key, _tampered(record))):
        (again,), _ = restore_runs([forged], project.data, project.definition,
                                   project.hierarchies, key=other_key)
        assert again.recomputed  # not unpickled: computed again and compared
    assert len(ran) == 2


def _tampered(record):
    forged = copy.deepcopy(record)
    data = forged["release"]["data"]
    forged["release"]["data"] = ("A" if data[0] != "A" else "B") + data[1:]
    return forged


def test_seals_open_only_for_their_context_and_key():
    key = b"k" * 32
    sealed = seal({"a": np.arange(3)}, key, "run 1")
    assert unseal(sealed, key, "run 1")["a"].tolist() == [0, 1, 2]
    assert unseal(sealed, key, "run 2") is None
    assert unseal(sealed, b"o" * 32, "run 1") is None
    assert unseal({"version": 1, "data": "%%%", "mac": "0"}, key, "run 1") is None
    assert unseal("not a seal", key, "run 1") is None


def test_record_risk_bands_cover_every_record():
    sizes = np.array([1, 2, 3, 5, 10, 20, 50, 100, 200])
    shares = record_risk_shares(sizes).shares
    assert shares.sum() == pytest.approx(1.0)
    assert shares[0] == pytest.approx((1 + 2 + 3) / sizes.sum())  # risks 1, 1/2, 1/3
    assert shares[-1] == pytest.approx((100 + 200) / sizes.sum())  # at most 1 %


def test_an_attribute_left_out_of_the_release_is_lost_not_ignored():
    from arxpy.data.definition import (
        AttributeDefinition,
        AttributeType,
        DataDefinition,
        DataKind,
        DataType,
    )

    frame = pd.DataFrame({"age": [str(20 + i % 6) for i in range(12)],
                          "stay": [str(1 + i % 4) for i in range(12)]})
    number = DataType(DataKind.INTEGER)
    definition = DataDefinition([
        AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING, data_type=number),
        AttributeDefinition("stay", AttributeType.QUASI_IDENTIFYING, data_type=number)])
    # The release's own definition names what it kept (as kPB-MS's does).
    kept = DataDefinition([definition["age"]])
    release = Release(table=frame[["age"]].copy(), suppressed=np.zeros(12, bool),
                      definition=kept, method="selection", parameters={}, claims=(),
                      input_sha256=table_sha256(frame))
    losses = attribute_losses(frame, release, definition)
    assert losses.loc["stay"].tolist() == [1.0, 1.0, 1.0]  # everything of 'stay' is lost
    assert losses.loc["age", ENTROPY_LOSS] == 0.0
    figures = utility_figures(frame, release, definition)
    assert figures[ENTROPY] == 0.5 and figures[MEANS] == 0.5
    table = compare_releases({"x": release}, frame, definition=definition)
    assert table.loc[ENTROPY, "x"] == 0.5
