"""Deep hierarchies (issue 12): a lattice too large for the strategy is refused before
any per-level array is built, and a 2,000-level hierarchy is validated in one pass."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import arxpy.engine.anonymizer
from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.hierarchy.validation import _levels_with_conflicts, validate_hierarchy
from arxpy.search import check_lattice_size
from arxpy.search.optimal import MAX_NODES

LEVELS = 2002


def _deep(values: int = 50, levels: int = LEVELS) -> Hierarchy:
    return Hierarchy([[str(v)] + [f"{v}_{level}" for level in range(1, levels - 1)] + ["*"]
                      for v in range(values)])


def _table(columns: list[str]) -> tuple[pd.DataFrame, DataDefinition]:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({c: rng.integers(0, 50, 200).astype(str) for c in columns})
    definition = DataDefinition.for_columns(columns)
    for c in columns:
        definition = definition.with_attribute(c, type=AttributeType.QUASI_IDENTIFYING)
    return frame, definition


def test_a_lattice_too_large_is_refused_before_encoding(monkeypatch):
    frame, definition = _table(["a", "b", "c"])  # 2,002^3 transformations
    hierarchy = _deep()

    def no_encoding(*_args, **_kwargs):
        raise AssertionError("the data was encoded before the refusal")

    monkeypatch.setattr(arxpy.engine.anonymizer, "prepare", no_encoding)
    config = AnonymizationConfig.from_dict({"privacy_models": [{"kind": "k-anonymity",
                                                                "k": 2}]})
    with pytest.raises(ConfigurationError, match="8,024,024,008 transformations, too many "
                       "for the optimal strategy") as error:
        anonymize(frame, definition, dict.fromkeys("abc", hierarchy), config)
    assert "lightning strategy" in str(error.value)


def test_narrowed_levels_count_in_the_early_refusal():
    levels = 200  # 200^3 = 8,000,000 transformations: refused unless narrowed
    frame, definition = _table(["a", "b", "c"])
    for name in "ab":
        definition = definition.with_attribute(name, min_level=levels - 2, max_level=levels - 1)
    hierarchies = dict.fromkeys("abc", _deep(levels=levels))
    config = AnonymizationConfig.from_dict({"privacy_models": [{"kind": "k-anonymity",
                                                                "k": 2}]})
    result = anonymize(frame, definition, hierarchies, config)
    assert result.lattice_size == 2 * 2 * levels


@pytest.mark.parametrize("strategy", ["optimal", "exhaustive"])
def test_the_bound_is_the_strategies_node_limit(strategy):
    check_lattice_size(MAX_NODES, strategy)
    with pytest.raises(ConfigurationError, match=f"too many for the {strategy} strategy"):
        check_lattice_size(MAX_NODES + 1, strategy)
    check_lattice_size(10 * MAX_NODES, "heuristic")  # works under a time limit instead


def _conflicts_by_hand(matrix: np.ndarray) -> list[int]:
    levels = []
    for level in range(matrix.shape[1] - 1):
        targets: dict[int, set[int]] = {}
        for source, target in matrix[:, level:level + 2].tolist():
            if source >= 0 and target >= 0:
                targets.setdefault(source, set()).add(target)
        if any(len(t) > 1 for t in targets.values()):
            levels.append(level)
    return levels


def test_conflicting_levels_are_found_in_one_pass_as_by_hand():
    rng = np.random.default_rng(7)
    for _ in range(200):
        rows, width = rng.integers(1, 8), rng.integers(1, 6)
        matrix = rng.integers(-1, 3, size=(rows, width))
        assert _levels_with_conflicts(matrix) == _conflicts_by_hand(matrix), matrix


def test_a_deep_hierarchy_names_its_one_conflicting_level():
    rows = [list(r) for r in _deep(values=30).rows]
    rows[7][1501] = rows[8][1501]  # values 7 and 8 meet at level 1501 ...
    rows[7][1502] = "elsewhere"  # ... and part again at 1502: not functional
    problems = validate_hierarchy(Hierarchy(rows), [str(v) for v in range(30)], "deep")
    assert [p.kind for p in problems] == ["non-functional"]
    assert "at level 1501 generalizes to different values at level 1502" in \
        problems[0].message
