"""The compiled roll-up kernels give the numpy path's arrays, in its order.

Results must not depend on whether a C compiler was at hand when arxpy was installed:
each kernel is compared with the numpy code it replaces on random inputs, and whole
searches are compared with the kernels on and off.
"""

from __future__ import annotations

import shutil
import sysconfig

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice import grouping, kernels
from arxpy.lattice.classes import EquivalenceClasses, PackedKeys
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.privacy.ldiversity import DistinctLDiversity
from arxpy.privacy.tcloseness import TCloseness
from arxpy.quality.discernibility import Discernibility
from arxpy.quality.entropy import NonUniformEntropy
from arxpy.quality.loss import Loss

needs_kernels = pytest.mark.skipif(not kernels.compiled_available(),
                                   reason="the compiled kernels were not built here")


def _both(run):
    """``run()`` with the kernels, then on the numpy path (as on an installation built
    without a C compiler)."""
    saved = kernels.USE_COMPILED
    try:
        kernels.USE_COMPILED = True
        compiled = run()
        kernels.USE_COMPILED = False
        return compiled, run()
    finally:
        kernels.USE_COMPILED = saved


def test_kernels_are_built_where_a_compiler_is():
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) here: arxpy runs on its numpy path")
    assert kernels.compiled_available(), (
        "a C compiler is here but arxpy.lattice._kernels was not built: reinstall with "
        "'python3 -m pip install -e .' and read its build output")


@needs_kernels
@settings(max_examples=150, deadline=None)
@given(data=st.data(), n=st.integers(1, 400), span=st.integers(1, 300_000),
       weighted=st.booleans())
def test_grouping_keys_matches_numpy(data, n, span, weighted):
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # Few distinct values sometimes, many others: both orders and both modes.
    pool = rng.integers(0, span, size=data.draw(st.integers(1, n)))
    key = rng.choice(pool, size=n)
    weights = rng.integers(0, 7, size=n) if weighted else None
    compiled, plain = _both(lambda: kernels.group_keys(key, span, weights))
    for got, want in zip(compiled, plain, strict=True):
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want)
    # The order the numpy path promises: ascending when dense, else first appearance.
    _, distinct, _ = compiled
    if kernels.dense_keys(span, n):
        assert (np.diff(distinct) > 0).all()
    else:
        np.testing.assert_array_equal(distinct, pd.unique(key))


@needs_kernels
@settings(max_examples=80, deadline=None)
@given(data=st.data(), n=st.integers(0, 60), others=st.integers(0, 200),
       span=st.integers(1, 300_000), split=st.booleans())
def test_grouping_classes_beside_population_matches_numpy(data, n, others, span, split):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    pool = rng.integers(0, span, size=data.draw(st.integers(1, n + others + 1)))
    key = rng.choice(pool, size=n + others)
    if not len(key):
        key = np.zeros(1, dtype=np.int64)  # the kernels take at least one key
        n = min(n, 1)
    sizes = rng.integers(1, 9, size=n)
    people = rng.integers(0, 9, size=len(key))
    place = data.draw(st.integers(1, 40)) if split else 1
    high, low = (key // place, key % place) if split else (key, None)
    dense = data.draw(st.booleans())  # the classes' own order, ascending or as they come
    table = data.draw(st.booleans())  # keys numbered through a table of the span, or hashed
    compiled = kernels._beside_compiled(high, n, span if table else 0, dense, sizes, people,
                                        low, place)
    saved = kernels.dense_keys, kernels.USE_COMPILED
    try:
        kernels.dense_keys, kernels.USE_COMPILED = (lambda span, n: dense), False
        plain = kernels.group_beside(high, n, span, sizes, people, low, place)
    finally:
        kernels.dense_keys, kernels.USE_COMPILED = saved
    for got, want in zip(compiled, plain, strict=True):
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want)
    # From the definition: the class keys' groups first, in their own grouping's order.
    of_classes, distinct, summed, class_sizes = compiled
    m = len(class_sizes)
    own = sorted(set(key[:n].tolist())) if dense else pd.unique(key[:n]).tolist()
    assert distinct[:m].tolist() == own
    assert distinct[of_classes].tolist() == key[:n].tolist()
    assert sorted(distinct.tolist()) == sorted(set(key.tolist()))
    group_of = {value: group for group, value in enumerate(distinct.tolist())}
    groups = np.array([group_of[value] for value in key.tolist()], dtype=np.int64)
    assert summed.tolist() == np.bincount(groups, people, len(distinct)).astype(int).tolist()
    assert class_sizes.tolist() == np.bincount(groups[:n], sizes, m).astype(int).tolist()


@needs_kernels
def test_grouping_hash_mode_takes_any_int64_keys():
    key = np.array([2**62 + 5, -3, 7, 2**62 + 5, -3, 0], dtype=np.int64)
    inverse, distinct, sizes = kernels._grouped_compiled(key, 2**63 - 1, None, None, 1, False)
    np.testing.assert_array_equal(distinct, [2**62 + 5, -3, 7, 0])
    np.testing.assert_array_equal(inverse, [0, 1, 2, 0, 1, 3])
    np.testing.assert_array_equal(sizes, [2, 2, 1, 1])


@needs_kernels
def test_kernels_refuse_bad_input_instead_of_writing_out_of_bounds():
    from arxpy.lattice import _kernels

    out = [np.empty(3, dtype=np.int64) for _ in range(3)]
    with pytest.raises(ValueError, match="outside"):
        _kernels.group(np.array([0, 5, 1]), 5, None, *out)  # 5 is not below span 5
    with pytest.raises(ValueError, match="outside"):
        _kernels.group(np.array([0, -1, 1]), 5, None, *out)
    # The table is left clean: the next call is right.
    assert _kernels.group(np.array([4, 0, 4]), 5, None, *out) == 2
    np.testing.assert_array_equal(out[1][:2], [0, 4])
    with pytest.raises(TypeError, match="int64"):
        _kernels.group(np.array([0, 1, 1], dtype=np.int32), 5, None, *out)
    with pytest.raises(ValueError, match="shorter"):
        _kernels.group(np.array([0, 1, 1, 2]), 5, None, *out)
    pairs = [np.empty(4, dtype=np.int64) for _ in range(3)]
    with pytest.raises(ValueError, match="outside"):
        _kernels.sum_pairs(np.array([0, 1, 2]), None, np.array([0, 3, 1]), None, 3, 3, *pairs)
    with pytest.raises(ValueError, match="outside"):
        _kernels.sum_pairs(np.array([0, 1, 9]), np.array([0, 0, 1]), np.array([0, 1, 1]),
                           None, 3, 2, *pairs)
    with pytest.raises(ValueError, match="negative"):
        _kernels.sum_pairs(np.array([0, 1, 2]), None, np.array([0, 1, 1]), np.array([1, -1, 1]),
                           3, 3, *pairs)
    # A wide domain's accumulator is left clean after a refusal: the next sums are right.
    got = _kernels.sum_pairs(np.array([0, 0, 1]), None, np.array([2, 2, 0]), None, 3, 2, *pairs)
    assert got == 2
    np.testing.assert_array_equal(pairs[2][:2], [2, 1])
    with pytest.raises(ValueError, match="negative"):
        _kernels.rewrite(np.array([3, -1]), 1, (4,), (2,), (None,), np.empty(2, np.int64))
    with pytest.raises(ValueError, match="n must lie"):
        _kernels.group_beside(np.array([1, 2]), 3, 0, False, np.ones(3, np.int64),
                              np.ones(2, np.int64), *(np.empty(3, np.int64) for _ in range(4)))
    out = [np.empty(3, np.int64) for _ in range(4)]
    with pytest.raises(ValueError, match="outside"):  # 5 is not below span 5
        _kernels.group_beside(np.array([4, 5, 4]), 2, 5, False, np.ones(2, np.int64),
                              np.ones(3, np.int64), *out)
    # The table is left clean: the next call is right.
    assert _kernels.group_beside(np.array([4, 0, 4]), 2, 5, False, np.ones(2, np.int64),
                                 np.ones(3, np.int64), *out) == (2, 2)
    np.testing.assert_array_equal(out[1][:2], [4, 0])
    np.testing.assert_array_equal(out[2][:2], [2, 1])


@needs_kernels
@settings(max_examples=150, deadline=None)
@given(data=st.data(), n_source=st.integers(1, 300), n_classes=st.integers(1, 60),
       width=st.sampled_from([1, 2, 5, 14, 64, 65, 300, 5000, 300_000]), counted=st.booleans(),
       rolled=st.booleans())
def test_pair_sums_match_numpy(data, n_source, n_classes, width, counted,
                               rolled):
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    entries = data.draw(st.integers(1, 3 * n_source))
    class_index = np.sort(rng.integers(0, n_source, size=entries))
    # Narrow value pools per draw: classes holding few values (sorted by insertion)
    # and classes holding many (read off by a scan, or sorted by qsort when wide).
    value = rng.choice(rng.integers(0, width, size=data.draw(st.integers(1, 40))),
                       size=entries)
    count = rng.integers(0, 4, size=entries) if counted else None  # zero counts drop out
    inverse = rng.integers(0, n_classes, size=n_source) if rolled else None
    classes = n_classes if rolled else n_source

    def merged():
        d = grouping._merge_distribution(class_index, value, count, width, classes, inverse)
        return d.class_index, d.value, d.count

    compiled, plain = _both(merged)
    for got, want in zip(compiled, plain, strict=True):
        np.testing.assert_array_equal(got, want)
    assert (compiled[2] > 0).all()


@needs_kernels
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_digit_rewrite_matches_numpy(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    radices = data.draw(st.lists(st.integers(1, 40), min_size=1, max_size=7))
    first = data.draw(st.integers(0, len(radices) - 1))
    last = data.draw(st.integers(first, len(radices) - 1))
    new = list(radices)
    maps: list[np.ndarray | None] = []
    for q in range(first, last + 1):
        if data.draw(st.booleans()):
            new[q] = data.draw(st.integers(1, radices[q]))
            maps.append(rng.integers(0, new[q], size=radices[q]))
        else:
            maps.append(None)
    span = int(np.prod(radices))
    key = rng.integers(0, span, size=data.draw(st.integers(1, 200)))
    place = int(np.prod(radices[last + 1:]))
    got = kernels.rewrite_keys(key, place, radices[first:last + 1], new[first:last + 1], maps)
    # Straight from the definition: decode every digit, map the run, re-encode.
    digits = np.empty((len(key), len(radices)), dtype=np.int64)
    rest = key.copy()
    for q in range(len(radices) - 1, -1, -1):
        digits[:, q] = rest % radices[q]
        rest //= radices[q]
    for q, up in zip(range(first, last + 1), maps, strict=True):
        if up is not None:
            digits[:, q] = up[digits[:, q]]
    want = np.zeros(len(key), dtype=np.int64)
    for q in range(len(radices)):
        want = want * new[q] + digits[:, q]
    np.testing.assert_array_equal(got, want)


@needs_kernels
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_packing_columns_matches_the_mixed_radix_number(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    radices = data.draw(st.lists(st.integers(1, 300), min_size=1, max_size=7))
    n = data.draw(st.integers(1, 300))
    columns = [rng.integers(0, r, size=n) for r in radices]
    want = np.zeros(n, dtype=np.int64)
    for column, radix in zip(columns, radices, strict=True):
        want = want * radix + column
    np.testing.assert_array_equal(kernels.pack_columns(columns, radices), want)


@needs_kernels
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_table_sums_over_packed_digits_match_numpy_to_the_bit(data):
    """The entropy information loss reads these sums: the kernel must add in numpy's
    order so that scores, and ties between transformations, do not depend on it."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    radices = data.draw(st.lists(st.integers(1, 60), min_size=1, max_size=9))  # < 2**62
    n = data.draw(st.integers(1, 300))
    columns = [rng.integers(0, r, size=n) for r in radices]
    tables = [np.log10(rng.uniform(1e-6, 1, size=r)) for r in radices]
    want = np.zeros(n)
    for column, table in zip(columns, tables, strict=True):
        want += table[column]
    packed = kernels.pack_columns(columns, radices)
    assert packed is not None
    got = kernels.digit_sums(packed, radices, tables)
    assert got is not None and got.tobytes() == want.tobytes()
    classes = EquivalenceClasses((0,) * len(radices), None, np.ones(n, dtype=np.int64),
                                 packed=PackedKeys(packed, tuple(radices)))
    decoded = []
    compiled, plain = _both(lambda: (classes.table_sums(tables), decoded.append(
        classes.keys_decoded))[0])
    assert compiled.tobytes() == plain.tobytes() == want.tobytes()
    assert decoded == [False, True]  # the kernel reads the packed keys, numpy the matrix


@needs_kernels
def test_table_sums_refuse_keys_and_tables_out_of_range():
    from arxpy.lattice import _kernels

    out = np.empty(2)
    with pytest.raises(ValueError, match="span"):
        _kernels.digit_sums(np.array([5, 12]), (3, 4), (np.zeros(3), np.zeros(4)), out)
    with pytest.raises(ValueError, match="negative"):
        _kernels.digit_sums(np.array([5, -1]), (3, 4), (np.zeros(3), np.zeros(4)), out)
    with pytest.raises(ValueError, match="float64"):
        _kernels.digit_sums(np.array([5, 1]), (3, 4), (np.zeros(3), np.zeros(2)), out)


AGE = Hierarchy([[str(a), f"{a // 5 * 5}", f"{a // 20 * 20}", "*"] for a in range(20, 90)])
ZIP = Hierarchy([[f"{z}", f"{z // 10}*", f"{z // 100}**", "*"] for z in range(1000, 1300)])
SEX = Hierarchy([["m", "*"], ["f", "*"]])
STAY = Hierarchy([[str(d), f"w{d // 7}", f"m{d // 28}", "*"] for d in range(1, 91)])
WARD = Hierarchy([[f"ward{w}", f"block{w // 4}", "*"] for w in range(20)])
DISEASES = [f"d{i}" for i in range(12)]


def _table(n: int = 3000) -> tuple[pd.DataFrame, DataDefinition]:
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({
        "age": rng.integers(20, 90, n).astype(str),
        "zip": (1000 + rng.zipf(1.3, n) % 300).astype(str),
        "sex": rng.choice(["m", "f"], n),
        "stay": (1 + rng.geometric(0.08, n) % 90).astype(str),
        "ward": np.char.add("ward", rng.integers(0, 20, n).astype(str)),
        "disease": rng.choice(DISEASES, n, p=np.linspace(1, 3, 12) / np.linspace(1, 3, 12).sum()),
    })
    definition = DataDefinition([
        AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING),
        AttributeDefinition("zip", AttributeType.QUASI_IDENTIFYING),
        AttributeDefinition("sex", AttributeType.QUASI_IDENTIFYING),
        AttributeDefinition("stay", AttributeType.QUASI_IDENTIFYING),
        AttributeDefinition("ward", AttributeType.QUASI_IDENTIFYING),
        AttributeDefinition("disease", AttributeType.SENSITIVE),
    ])
    return frame, definition


@needs_kernels
@pytest.mark.parametrize("name", ["dm", "tcloseness", "entropy"])
def test_searches_are_the_same_with_and_without_kernels(name):
    frame, definition = _table()
    privacy, quality = {
        "dm": ([KAnonymity(5)], Discernibility()),
        "tcloseness": ([KAnonymity(3), TCloseness("disease", 0.15, "equal")], Loss(0.5)),
        "entropy": ([KAnonymity(4), DistinctLDiversity("disease", 3)], NonUniformEntropy()),
    }[name]
    config = AnonymizationConfig(privacy, quality, suppression_limit=0.05)
    hierarchies = {"age": AGE, "zip": ZIP, "sex": SEX, "stay": STAY, "ward": WARD}

    def search():
        result = anonymize(frame, definition, hierarchies, config)
        checks = {levels: (c.anonymous, c.score, c.suppressed_records)
                  for levels, c in result.outcome.checks.items()}
        classes, _ = result.classes_of(result.optimum.levels)
        return (checks, result.optimum.levels, classes.sizes.tolist(), classes.keys.tolist(),
                result.rollups)

    compiled, plain = _both(search)
    assert compiled[0].keys() == plain[0].keys()
    for levels, (anonymous, score, suppressed) in compiled[0].items():
        other = plain[0][levels]
        assert (anonymous, suppressed) == other[:1] + other[2:], levels
        assert score == other[1] or (np.isnan(score) and np.isnan(other[1])), levels
    assert compiled[1:] == plain[1:]
    assert len(compiled[0]) > 40 and compiled[-1] > 40  # a search that rolled up


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.integers(-2**63, 2**63 - 1), max_size=60), repeats=st.integers(0, 20))
def test_first_seen_marks_each_words_first_appearance_as_numpy_does(words, repeats):
    words = np.array(words + words[:repeats], dtype=np.int64)
    compiled, numpy_path = _both(lambda: kernels.first_seen(words.view(np.uint64)))
    expected = ~pd.Series(words).duplicated().to_numpy()
    for found in (compiled, numpy_path):
        assert (found is None) == bool(expected.all())
        if found is not None:
            np.testing.assert_array_equal(found, expected)


@needs_kernels
@settings(max_examples=80, deadline=None)
@given(texts=st.lists(st.text(st.sampled_from(["a", " ", "é", "\x1f", "~", "N", "€"]),
                              max_size=26), max_size=12), start=st.integers(0, 3))
def test_unsure_texts_keep_every_short_or_odd_ended_text(texts, start):
    import pyarrow as pa

    array = pa.array(texts, pa.string()).slice(min(start, len(texts)))
    texts = texts[min(start, len(texts)):]
    _, offsets, data = array.buffers()
    offsets = np.frombuffer(offsets, np.int32, len(array) + 1, array.offset * 4)
    data = np.frombuffer(data, np.uint8) if data is not None else np.zeros(1, np.uint8)
    for unsure in _both(lambda: kernels.unsure_texts(offsets, data, 5)):
        for text, flagged in zip(texts, unsure, strict=True):
            odd = not text or not ("!" <= text[0] <= "~" and "!" <= text[-1] <= "~")
            if odd or len(text) <= 5:  # could strip or lower to a 5-character spelling
                assert flagged, text
            if not odd and len(text.encode()) > 20:
                assert not flagged, text  # longer than any such spelling can be
