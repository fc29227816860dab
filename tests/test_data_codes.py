"""Row grouping: groups equal pandas' own grouping, also when keys would overflow int64."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.data.codes import combine_codes, group_codes, group_sizes


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "", "NA"]), st.integers(0, 3),
                          st.sampled_from(["x", "y"])), min_size=1, max_size=60))
def test_group_sizes_equal_pandas_groupby(rows):
    frame = pd.DataFrame(rows, columns=["s", "n", "t"]).astype(str)
    expected = frame.groupby(["s", "n", "t"], sort=False).size().to_numpy()
    assert sorted(group_sizes(frame, ["s", "n", "t"])) == sorted(expected)
    assert group_sizes(frame, []).tolist() == [len(frame)]


def test_wide_keys_are_renumbered_without_merging_distinct_rows():
    rng = np.random.default_rng(0)
    columns = [rng.integers(0, 1 << 20, 5000) for _ in range(5)]  # 2^100 combinations
    key, exact = combine_codes(columns, [1 << 20] * 5)
    assert not exact
    inverse, n = group_codes(columns)
    expected = pd.DataFrame(np.column_stack(columns)).drop_duplicates().shape[0]
    assert n == expected == len(np.unique(key))
    # Rows in one group agree in every column.
    for column in columns:
        assert (np.bincount(inverse, weights=column, minlength=n) / np.bincount(inverse)
                == column[np.unique(inverse, return_index=True)[1]]).all()
