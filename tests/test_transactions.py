"""CodeSets: set-valued records as CSR integer codes."""

import numpy as np
import pandas as pd
import pytest

from arxpy.data.transactions import CodeSets


def test_sets_round_trip_with_duplicates_dropped_and_codes_sorted():
    records = [["296.01", "834.0", "296.01"], [], ["401.0"]]
    sets = CodeSets.from_sets(records)
    assert sets.vocabulary == ("296.01", "401.0", "834.0")
    assert sets.to_sets() == [frozenset({"296.01", "834.0"}), frozenset(), frozenset({"401.0"})]
    assert sets.lengths.tolist() == [2, 0, 1]
    assert sets.supports.tolist() == [1, 1, 1]
    for i in range(len(sets)):
        row = sets.indices[sets.indptr[i]:sets.indptr[i + 1]]
        assert (np.diff(row) > 0).all()


def test_column_of_delimited_strings_missing_cells_and_sets():
    column = pd.Series(["b; a", None, np.nan, frozenset({"c"}), ""])
    sets = CodeSets.from_column(column)
    assert sets.to_sets() == [frozenset("ab"), frozenset(), frozenset(), frozenset("c"),
                              frozenset()]
    assert sets.to_column().tolist() == ["a;b", "", "", "c", ""]


def test_subset_keeps_records_in_the_order_asked():
    sets = CodeSets.from_sets([["a"], ["b", "c"], ["a", "c"]])
    part = sets.subset(np.array([2, 0]))
    assert part.to_sets() == [frozenset("ac"), frozenset("a")]
    assert part.vocabulary == sets.vocabulary


def test_a_fixed_vocabulary_must_hold_every_code():
    with pytest.raises(ValueError, match="not in the vocabulary"):
        CodeSets.from_sets([["a", "z"]], vocabulary=["a"])
