"""Cell suppression (sdcMicro's localSuppression): every record compatible with at least
k records, a * matching any value, checked by the brute-force audit; the importance
order decides which attribute loses cells; the claim checker and the verdict's attacker
view count * as matching anything."""

from __future__ import annotations

import dataclasses

import audit
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.cli import main
from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.methods import run_method


def definition_of(frame: pd.DataFrame, qis: tuple[str, ...]) -> DataDefinition:
    definition = DataDefinition.for_columns(frame.columns)
    for name in qis:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    return definition


def random_table(seed: int, records: int, domains: tuple[int, ...]) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"q{j}": rng.integers(0, size, records).astype(str)
                          for j, size in enumerate(domains)})
    frame["stay"] = rng.integers(1, 30, records).astype(str)
    return frame


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), records=st.integers(6, 40), k=st.integers(2, 6),
       domains=st.lists(st.integers(1, 6), min_size=1, max_size=4))
def test_every_record_is_compatible_with_k_records(seed, records, k, domains):
    frame = random_table(seed, records, tuple(domains))
    qis = tuple(c for c in frame.columns if c.startswith("q"))
    release = run_method("cell-suppression", frame, definition_of(frame, qis),
                         {"k": min(k, records)})
    assert audit.wildcard_k_anonymity(release.table, qis) >= min(k, records)
    assert release.anonymous and not release.suppressed.any()
    released = release.table[list(qis)]
    assert ((released == frame[list(qis)]) | (released == "*")).all().all()
    assert (release.table["stay"] == frame["stay"]).all()


def three_neighbours() -> pd.DataFrame:
    """(1, y) differs from (1, x) in b only and from (2, y) in a only: either cell works."""
    rows = [("1", "x")] * 3 + [("2", "y")] * 3 + [("1", "y")]
    return pd.DataFrame(rows, columns=["a", "b"])


@pytest.mark.parametrize("importance, suppressed", [(["a", "b"], "b"), (["b", "a"], "a")])
def test_the_least_important_attribute_loses_the_cell(importance, suppressed):
    frame = three_neighbours()
    release = run_method("cell-suppression", frame, definition_of(frame, ("a", "b")),
                         {"k": 3, "importance": importance})
    assert (release.table == "*").sum().to_dict() == \
        {"a": int(suppressed == "a"), "b": int(suppressed == "b")}
    assert release.table.loc[6, suppressed] == "*"


def test_default_order_suppresses_the_attribute_with_most_values_first():
    frame = three_neighbours()
    frame.loc[len(frame)] = ["3", "x"]  # a now has more distinct values than b
    release = run_method("cell-suppression", frame, definition_of(frame, ("a", "b")),
                         {"k": 2})
    assert release.table.loc[6, "a"] == "*" and release.table.loc[6, "b"] == "y"
    assert audit.wildcard_k_anonymity(release.table, ("a", "b")) >= 2


def test_checker_and_attacker_view_count_a_star_as_any_value():
    frame = three_neighbours()
    release = run_method("cell-suppression", frame, definition_of(frame, ("a", "b")),
                         {"k": 3, "importance": ["a", "b"]})
    verdict = release.verify()
    # (1, x) and (1, *) match four records each, (2, y) its own three
    assert verdict.attacker.sizes.tolist() == [4, 3, 4] and verdict.attacker.smallest == 3
    assert release.statistics.min_size == 3 and verdict.anonymous
    forged = dataclasses.replace(release, table=frame.copy())  # the * put back as y
    (check,) = forged.verify().checks
    assert check.holds is False and audit.wildcard_k_anonymity(forged.table, ("a", "b")) == 1
    assert not forged.anonymous


def test_an_average_risk_raises_k_until_it_holds():
    frame = random_table(11, 40, (3, 4, 5))
    qis = ("q0", "q1", "q2")
    release = run_method("cell-suppression", frame, definition_of(frame, qis),
                         {"k": 2, "average_risk": 0.2})
    assert audit.wildcard_average_risk(release.table, qis) <= 0.2
    assert audit.wildcard_k_anonymity(release.table, qis) >= 2
    assert [c.holds for c in release.verify().checks] == [True, True] and release.anonymous
    only_k = run_method("cell-suppression", frame, definition_of(frame, qis), {"k": 2})
    assert audit.wildcard_average_risk(only_k.table, qis) > 0.2  # the threshold did work
    forged = dataclasses.replace(release, table=only_k.table)
    assert [c.holds for c in forged.verify().checks] == [True, False]


@pytest.mark.parametrize("params, message", [
    ({"k": 3, "importance": ["a", "stay"]}, "not a quasi-identifier"),
    ({"k": 50}, "exceeds the 7 records"),
    ({"k": 2, "average_risk": 0.1}, "below 1/7"),
])
def test_impossible_settings_are_refused(params, message):
    frame = three_neighbours()
    frame["stay"] = "1"
    with pytest.raises(ConfigurationError, match=message):
        run_method("cell-suppression", frame, definition_of(frame, ("a", "b")), params)


def test_command_line(tmp_path):
    frame = random_table(3, 60, (4, 5, 3))
    path = tmp_path / "in.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out.csv"
    assert main(["run", "cell-suppression", "--data", str(path), "--quasi-identifying", "q0",
                 "--quasi-identifying", "q1", "--quasi-identifying", "q2", "--k", "4",
                 "--importance", "q2,q1,q0", "--keep-order", "--output", str(out)]) == 0
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert audit.wildcard_k_anonymity(released, ("q0", "q1", "q2")) >= 4
