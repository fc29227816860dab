"""``arxpy.arrays.distinct`` gives ``np.unique``'s answer on both of its paths."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from arxpy.arrays import count_distinct, distinct

ARRAYS = st.one_of(
    hnp.arrays(np.int64, st.integers(0, 60), elements=st.integers(-5, 20)),  # counted
    hnp.arrays(np.int64, st.integers(0, 60),  # a range too wide to count: sorted
               elements=st.integers(-2**62, 2**62)),
    hnp.arrays(np.uint8, st.integers(0, 60)),
    hnp.arrays(np.uint64, st.integers(0, 40),  # counted, beyond int64 (hashes)
               elements=st.integers(2**64 - 30, 2**64 - 1)),
    hnp.arrays(np.int32, st.integers(0, 60), elements=st.integers(0, 10**6)),
    hnp.arrays(np.bool_, st.integers(0, 40)),
    hnp.arrays(np.float64, st.integers(0, 60),
               elements=st.sampled_from([0.0, -0.0, 1.5, -3.0, np.nan, np.inf])),
)


@settings(max_examples=60, deadline=None)
@given(ARRAYS, st.booleans(), st.booleans(), st.booleans())
def test_distinct_equals_np_unique(values, index, inverse, counts):
    ours = distinct(values, return_index=index, return_inverse=inverse, return_counts=counts)
    theirs = np.unique(values, return_index=index, return_inverse=inverse,
                       return_counts=counts)
    if not (index or inverse or counts):
        ours, theirs = (ours,), (theirs,)
    assert len(ours) == len(theirs)
    for mine, reference in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(mine, reference)
    assert ours[0].dtype == theirs[0].dtype
    assert count_distinct(values) == len(theirs[0])


def test_strings_and_many_dimensions():
    assert distinct(np.array(["b", "a", "b"], dtype=object)).tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="1-D"):
        distinct(np.zeros((2, 2)))
    assert count_distinct(np.array([[1, 2], [2, 3]])) == 3


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 8), max_size=50))
def test_first_appearances_of_factorized_codes(values):
    import pandas as pd

    from arxpy.arrays import first_appearances

    codes, _ = pd.factorize(pd.Series(values, dtype="int64"), sort=False)
    np.testing.assert_array_equal(first_appearances(codes),
                                  np.unique(codes, return_index=True)[1])


def test_uint64_values_beyond_int64_are_counted():
    # DuckDB's hashes: a dense range of uint64 above 2^63 (the counting path's low bound)
    values = np.array([2**64 - 1, 2**64 - 3, 2**64 - 1], dtype=np.uint64)
    uniques, inverse = distinct(values, return_inverse=True)
    np.testing.assert_array_equal(uniques, [2**64 - 3, 2**64 - 1])
    assert uniques.dtype == np.uint64 and inverse.tolist() == [1, 0, 1]
