"""Quality models against hand-computed values and ARX's promised properties.

The tiny encoder and grouping below are written independently of the engine so the
models can be checked on their own.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice.classes import Distribution, EquivalenceClasses
from arxpy.lattice.encoding import EncodedData, QuasiIdentifier, TrackedAttribute
from arxpy.quality.aecs import AverageClassSize
from arxpy.quality.classification import Classification
from arxpy.quality.discernibility import Discernibility
from arxpy.quality.entropy import NonUniformEntropy
from arxpy.quality.height import Height
from arxpy.quality.kl import KLDivergence
from arxpy.quality.precision import Precision
from arxpy.quality.registry import quality_model_from_dict

AGE = [["20", "20-29", "*"], ["25", "20-29", "*"], ["30", "30-39", "*"], ["35", "30-39", "*"]]
SEX = [["m", "*"], ["f", "*"]]
ZIP = [["81667", "8166*", "816**", "*"], ["81668", "8166*", "816**", "*"],
       ["81675", "8167*", "816**", "*"], ["81677", "8167*", "816**", "*"],
       ["81925", "8192*", "819**", "*"]]
DISEASE = ["flu", "cold", "rash"]

# The hand-computed example: six records over (age, sex) with a class attribute.
RECORDS = [("20", "m"), ("25", "m"), ("25", "f"), ("30", "f"), ("35", "f"), ("35", "f")]
DISEASES = ["flu", "flu", "cold", "flu", "cold", "cold"]


def encode(records, hierarchies, names, weights=None, tracked=None) -> EncodedData:
    """A minimal EncodedData: codes follow hierarchy row order, labels first appearance."""
    qis = []
    for j, (name, rows) in enumerate(zip(names, hierarchies, strict=True)):
        hierarchy = Hierarchy(rows)
        values = hierarchy.values
        labels = [hierarchy.labels(level) for level in range(hierarchy.height)]
        maps = [np.array([labels[lvl].index(r[lvl]) for r in rows]) for lvl in range(len(labels))]
        qis.append(QuasiIdentifier(
            name=name, codes=np.array([values.index(r[j]) for r in records], dtype=np.int64),
            level_maps=maps, labels=labels, hierarchy=hierarchy, min_level=0,
            max_level=hierarchy.height - 1, weight=1.0 if weights is None else weights[j]))
    attributes = {}
    for name, column in (tracked or {}).items():
        values = sorted(set(column))
        attributes[name] = TrackedAttribute(
            name, np.array([values.index(v) for v in column], dtype=np.int64), values)
    return EncodedData(len(records), qis, attributes)


def group(data: EncodedData, levels) -> EquivalenceClasses:
    """Equivalence classes of ``data`` at ``levels`` straight from the records."""
    generalized = np.column_stack(
        [np.asarray(q.level_maps[lvl])[q.codes]
         for q, lvl in zip(data.quasi_identifiers, levels, strict=True)])
    keys, inverse, sizes = np.unique(generalized, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    distributions = {}
    for name, attribute in data.tracked.items():
        pairs, counts = np.unique(np.column_stack([inverse, attribute.codes]), axis=0,
                                  return_counts=True)
        distributions[name] = Distribution(pairs[:, 0], pairs[:, 1], counts.astype(np.int64),
                                           len(attribute.values))
    return EquivalenceClasses(tuple(levels), keys, sizes.astype(np.int64), distributions)


def prepared(model, data):
    model.prepare(data)
    return model


def mask(classes: EquivalenceClasses, *keys) -> np.ndarray:
    """Suppress the classes with these generalized label tuples (hand tests only)."""
    data_labels = [tuple(k) for k in classes.keys]
    out = np.zeros(classes.n_classes, dtype=bool)
    for key in keys:
        out[data_labels.index(key)] = True
    return out


@pytest.fixture
def example():
    data = encode(RECORDS, [AGE, SEX], ["age", "sex"], tracked={"disease": DISEASES})
    return data, group(data, (1, 0))


# Class keys at (1, 0): age level 1 codes 0 = "20-29", 1 = "30-39"; sex codes 0 = m, 1 = f.
YOUNG_M, YOUNG_F, OLD_F = (0, 0), (0, 1), (1, 1)


def test_example_classes_are_as_drawn(example):
    _, classes = example
    assert [tuple(k) for k in classes.keys] == [YOUNG_M, YOUNG_F, OLD_F]
    assert classes.sizes.tolist() == [2, 1, 3]


def test_discernibility_by_hand(example):
    data, classes = example
    dm = prepared(Discernibility(), data)
    assert dm.score(classes, mask(classes)) == 4 + 1 + 9
    # A suppressed class costs n per record (ARX's MetricSDNMDiscernability).
    assert dm.score(classes, mask(classes, YOUNG_F)) == 4 + 6 * 1 + 9
    assert dm.lower_bound(classes) == 14
    dm_star = prepared(Discernibility(monotonic=True), data)
    assert dm_star.score(classes, mask(classes, YOUNG_F)) == 14


def test_aecs_by_hand(example):
    data, classes = example
    aecs = prepared(AverageClassSize(), data)
    assert aecs.score(classes, mask(classes)) == 2.0
    # Suppressed records form one extra class.
    assert aecs.score(classes, mask(classes, YOUNG_F)) == 6 / 3
    assert aecs.score(classes, mask(classes, YOUNG_M, YOUNG_F)) == 6 / 2
    assert aecs.score(classes, mask(classes, YOUNG_M, YOUNG_F, OLD_F)) == 6.0
    assert aecs.lower_bound(classes) == 2.0


def test_height_by_hand_with_weights():
    data = encode(RECORDS, [AGE, SEX], ["age", "sex"], weights=[2.0, 1.0])
    height = prepared(Height(), data)
    classes = group(data, (1, 1))
    # Weights are divided by the largest one (ARX): 1 and 0.5.
    assert height.score(classes, np.ones(classes.n_classes, bool)) == 1.5
    assert height.lower_bound(classes) == 1.5


def test_precision_by_hand(example):
    data, classes = example
    precision = prepared(Precision(), data)
    # age at 1 of 2, sex at 0 of 1; arithmetic mean over the two attributes.
    assert precision.score(classes, mask(classes)) == pytest.approx((0.5 + 0.0) / 2)
    # One suppressed record counts as fully generalized in every attribute.
    expected = ((5 * 0.5 + 1) / 6 + (0 + 1) / 6) / 2
    assert precision.score(classes, mask(classes, YOUNG_F)) == pytest.approx(expected)
    assert precision.lower_bound(classes) == pytest.approx(0.25)
    monotonic = prepared(Precision(monotonic=True), data)
    assert monotonic.score(classes, mask(classes, YOUNG_F)) == pytest.approx(0.25)


def test_precision_weights():
    data = encode(RECORDS, [AGE, SEX], ["age", "sex"], weights=[4.0, 1.0])
    precision = prepared(Precision(), data)
    classes = group(data, (1, 1))
    assert precision.score(classes, np.zeros(classes.n_classes, bool)) == pytest.approx(
        (0.5 * 1.0 + 1.0 * 0.25) / 2)


def test_entropy_by_hand(example):
    data, classes = example
    entropy = prepared(NonUniformEntropy(), data)
    # age: 20 (1 of 3 in 20-29), 25 (2 of 3), 30 (1 of 3 in 30-39), 35 (2 of 3); sex kept.
    generalization = -(2 * math.log2(1 / 3) + 4 * math.log2(2 / 3))
    assert entropy.score(classes, mask(classes)) == pytest.approx(generalization, abs=1e-9)
    assert entropy.lower_bound(classes) == pytest.approx(generalization, abs=1e-9)
    # Suppressing a class whose records share their values adds nothing (-3 log2 1).
    assert entropy.score(classes, mask(classes, OLD_F)) == pytest.approx(generalization, abs=1e-9)
    # Suppressing 5 records: ages 2 x 20-29, 3 x 30-39; sexes 2 x m, 3 x f.
    spread = -(2 * math.log2(2 / 5) + 3 * math.log2(3 / 5))
    assert entropy.score(classes, mask(classes, YOUNG_M, OLD_F)) == pytest.approx(
        generalization + 2 * spread, abs=1e-9)
    monotonic = prepared(NonUniformEntropy(monotonic=True), data)
    assert monotonic.score(classes, mask(classes, YOUNG_M, OLD_F)) == pytest.approx(
        generalization, abs=1e-9)


def test_entropy_is_zero_untransformed(example):
    data, _ = example
    entropy = prepared(NonUniformEntropy(), data)
    bottom = group(data, (0, 0))
    assert entropy.score(bottom, np.zeros(bottom.n_classes, bool)) == 0.0


def test_kl_by_hand(example):
    data, classes = example
    kl = prepared(KLDivergence(), data)
    # q = class share / leaves covered: 20-29 x m -> 1/6, 20-29 x f -> 1/12, 30-39 x f -> 1/4.
    # ARX sums per record: (25,f) once, (30,f) once, (35,f) twice.
    expected = 1 / 6 * 1 + 1 / 6 * math.log2((1 / 6) / (1 / 4)) + 2 * (1 / 3) * math.log2(4 / 3)
    assert kl.score(classes, mask(classes)) == pytest.approx(expected)
    # Suppressed: 1 record over the whole domain (4 ages x 2 sexes) -> q = 1/48.
    suppressed = expected - 1 / 6 * 1 + 1 / 6 * math.log2((1 / 6) / (1 / 48))
    assert kl.score(classes, mask(classes, YOUNG_F)) == pytest.approx(suppressed)
    assert kl.lower_bound(classes) is None


def test_kl_counts_leaves_of_the_hierarchy_not_of_the_data():
    data = encode([("20", "m"), ("20", "m")], [AGE, SEX], ["age", "sex"])
    kl = prepared(KLDivergence(), data)
    classes = group(data, (1, 0))
    # 20-29 covers two hierarchy rows though only "20" occurs: q = 1/2, per record log2 2.
    assert kl.score(classes, np.zeros(1, bool)) == pytest.approx(2 * 1.0 * 1.0)


def test_kl_spreads_suppressed_records_over_the_whole_hierarchy():
    data = encode([("20", "m"), ("20", "m"), ("25", "f")], [AGE, SEX], ["age", "sex"])
    kl = prepared(KLDivergence(), data)
    classes = group(data, (0, 0))
    # (25, f) suppressed: q = 1/3 over 4 ages x 2 sexes (not the 2 x 2 seen) = 1/24.
    suppressed = mask(classes, (1, 1))
    assert kl.score(classes, suppressed) == pytest.approx(1 / 3 * math.log2((1 / 3) / (1 / 24)))


def test_entropy_weights():
    data = encode(RECORDS, [AGE, SEX], ["age", "sex"], weights=[1.0, 4.0])
    entropy = prepared(NonUniformEntropy(), data)
    classes = group(data, (1, 1))
    age = -(2 * math.log2(1 / 3) + 4 * math.log2(2 / 3))
    sex = -(2 * math.log2(2 / 6) + 4 * math.log2(4 / 6))
    assert entropy.score(classes, np.zeros(1, bool)) == pytest.approx(0.25 * age + sex, abs=1e-9)


def test_kl_is_zero_untransformed(example):
    data, _ = example
    kl = prepared(KLDivergence(), data)
    bottom = group(data, (0, 0))
    assert kl.score(bottom, np.zeros(bottom.n_classes, bool)) == pytest.approx(0.0, abs=1e-12)


def test_classification_by_hand(example):
    data, classes = example
    model = prepared(Classification("disease"), data)
    assert model.tracked_attributes == ("disease",)
    # Only the cold-majority class 30-39 x f holds one flu record.
    assert model.score(classes, mask(classes)) == pytest.approx(1 / 6)
    # A suppressed record costs 1/2.
    assert model.score(classes, mask(classes, YOUNG_F)) == pytest.approx(1.5 / 6)
    top = group(data, (2, 1))
    # 3 flu vs 3 cold: no unique majority, every record costs 1.
    assert model.score(top, np.zeros(1, bool)) == pytest.approx(1.0)
    bottom = group(data, (0, 0))
    assert model.score(bottom, np.zeros(bottom.n_classes, bool)) == 0.0


def test_classification_normalizes_by_largest_penalty(example):
    data, classes = example
    model = prepared(Classification("disease", suppressed_penalty=2.0), data)
    assert model.score(classes, mask(classes, YOUNG_F)) == pytest.approx((1 + 2) / (2 * 6))


def test_classification_with_quasi_identifying_class_attribute(example):
    data, classes = example
    model = prepared(Classification("sex"), data)
    # Grouped by age alone: 20-29 holds m, m, f (one minority), 30-39 holds f, f, f.
    assert model.score(classes, mask(classes)) == pytest.approx(1 / 6)
    # sex generalized to one value: every record gets the largest penalty.
    top_sex = group(data, (1, 1))
    assert model.score(top_sex, np.zeros(top_sex.n_classes, bool)) == pytest.approx(1.0)


def test_classification_rejects_unknown_attribute(example):
    data, _ = example
    with pytest.raises(ConfigurationError, match="'income'"):
        Classification("income").prepare(data)
    with pytest.raises(ConfigurationError, match="suppressed_penalty must be at least 0"):
        Classification("disease", suppressed_penalty=-1)


@pytest.mark.parametrize("gs_factor", [-0.1, 1.5])
def test_gs_factor_out_of_range_is_rejected(gs_factor):
    for model in (Precision, NonUniformEntropy, AverageClassSize):
        with pytest.raises(ConfigurationError, match="between 0 and 1"):
            model(gs_factor=gs_factor)


ALL_MODELS = [Discernibility(), Discernibility(monotonic=True), AverageClassSize(gs_factor=0.3),
              NonUniformEntropy(), NonUniformEntropy(gs_factor=0.8, monotonic=True),
              Precision(), Precision(gs_factor=0.2), Height(), KLDivergence(),
              Classification("disease", 0.25, 1.0, 0.5)]


@pytest.mark.parametrize("model", ALL_MODELS, ids=lambda m: m.name)
def test_to_dict_round_trips_through_registry(model):
    rebuilt = quality_model_from_dict(model.to_dict())
    assert type(rebuilt) is type(model)
    assert rebuilt.to_dict() == model.to_dict()


# --- properties over random data -------------------------------------------------------

HIERARCHIES = [AGE, SEX, ZIP]
NAMES = ["age", "sex", "zip"]


@st.composite
def scenario(draw):
    """Random records, a transformation t, a generalization t' >= t, a suppression at t'."""
    n = draw(st.integers(1, 25))
    records = [tuple(draw(st.sampled_from([r[0] for r in h])) for h in HIERARCHIES)
               for _ in range(n)]
    diseases = [draw(st.sampled_from(DISEASE)) for _ in range(n)]
    weights = [draw(st.sampled_from([0.5, 1.0, 3.0])) for _ in HIERARCHIES]
    heights = [len(h[0]) for h in HIERARCHIES]
    low = tuple(draw(st.integers(0, h - 1)) for h in heights)
    high = tuple(draw(st.integers(lo, h - 1)) for lo, h in zip(low, heights, strict=True))
    gs_factor = draw(st.sampled_from([0.0, 0.2, 0.5, 0.7, 1.0]))
    return records, diseases, weights, low, high, gs_factor, draw(st.randoms())


def bounded_models(gs_factor):
    return [Discernibility(), Discernibility(monotonic=True), AverageClassSize(gs_factor),
            NonUniformEntropy(gs_factor), NonUniformEntropy(gs_factor, monotonic=True),
            Precision(gs_factor), Precision(gs_factor, monotonic=True), Height()]


@settings(max_examples=150, deadline=None)
@given(scenario())
def test_lower_bound_never_exceeds_score_of_any_generalization(case):
    records, diseases, weights, low, high, gs_factor, rnd = case
    data = encode(records, HIERARCHIES, NAMES, weights, {"disease": diseases})
    at_low, at_high = group(data, low), group(data, high)
    suppressed = np.array([rnd.random() < 0.4 for _ in range(at_high.n_classes)])
    for model in bounded_models(gs_factor):
        model.prepare(data)
        bound = model.lower_bound(at_low)
        for supp in (suppressed, np.zeros_like(suppressed), np.ones_like(suppressed)):
            assert bound <= model.score(at_high, supp) * (1 + 1e-12) + 1e-9, model.to_dict()


@pytest.mark.parametrize("model", [Height(), Precision(), Precision(0.2), Precision(0.9, True),
                                   NonUniformEntropy(), NonUniformEntropy(0.3, True)],
                         ids=lambda m: str(m.to_dict()))
def test_level_bounds_equal_class_bounds(example, model):
    data, _ = example
    model.prepare(data)
    nodes = np.array(list(itertools.product(range(3), range(2))))
    from_levels = model.lower_bounds_for_levels(nodes)
    assert from_levels.shape == (len(nodes),)
    expected = [model.lower_bound(group(data, tuple(node))) for node in nodes]
    assert from_levels == pytest.approx(expected, abs=1e-12)
    assert from_levels[0] == 0.0 and from_levels[-1] > 0


@pytest.mark.parametrize("model", [Discernibility(), AverageClassSize(), KLDivergence(),
                                   Classification("disease")], ids=lambda m: m.name)
def test_class_dependent_models_give_no_level_bounds(example, model):
    data, _ = example
    model.prepare(data)
    assert model.lower_bounds_for_levels(np.zeros((1, 2), dtype=np.int64)) is None


@settings(max_examples=150, deadline=None)
@given(scenario())
def test_scores_are_in_their_ranges(case):
    records, diseases, weights, low, _, _, rnd = case
    data = encode(records, HIERARCHIES, NAMES, weights, {"disease": diseases})
    classes = group(data, low)
    n = len(records)
    suppressed = np.array([rnd.random() < 0.4 for _ in range(classes.n_classes)])
    for supp in (suppressed, np.zeros_like(suppressed)):
        dm = prepared(Discernibility(), data).score(classes, supp)
        assert n <= dm <= n * n
        assert 1 <= prepared(AverageClassSize(), data).score(classes, supp) <= n
        assert 0 <= prepared(Classification("disease"), data).score(classes, supp) <= 1
        assert 0 <= prepared(Precision(), data).score(classes, supp) <= 1
        assert prepared(NonUniformEntropy(), data).score(classes, supp) >= 0
        assert prepared(KLDivergence(), data).score(classes, supp) >= -1e-12
        assert prepared(Height(), data).score(classes, supp) >= 0


@settings(max_examples=100, deadline=None)
@given(scenario())
def test_generalization_without_suppression_never_improves_monotone_models(case):
    records, diseases, weights, low, high, gs_factor, _ = case
    data = encode(records, HIERARCHIES, NAMES, weights, {"disease": diseases})
    at_low, at_high = group(data, low), group(data, high)
    for model in [Discernibility(), AverageClassSize(gs_factor), NonUniformEntropy(gs_factor),
                  Precision(gs_factor), Height()]:
        model.prepare(data)
        before = model.score(at_low, np.zeros(at_low.n_classes, bool))
        after = model.score(at_high, np.zeros(at_high.n_classes, bool))
        assert before <= after * (1 + 1e-12) + 1e-9, model.to_dict()


def test_kl_handles_many_quasi_identifiers_without_overflow():
    # 24 copies of the 5-value zip hierarchy: 5^24 > 2^62 forces re-densified ids.
    rng = np.random.default_rng(1)
    values = [r[0] for r in ZIP]
    records = [tuple(rng.choice(values, 24)) for _ in range(40)]
    data = encode(records, [ZIP] * 24, [f"z{i}" for i in range(24)])
    kl = prepared(KLDivergence(), data)
    bottom = group(data, (0,) * 24)
    assert kl.score(bottom, np.zeros(bottom.n_classes, bool)) == pytest.approx(0.0, abs=1e-12)
    some = group(data, (1,) * 12 + (0,) * 12)
    assert kl.score(some, np.zeros(some.n_classes, bool)) > 0


@pytest.mark.perf
def test_models_score_100000_classes_quickly():
    import time

    rng = np.random.default_rng(0)
    n = 200_000
    ages = [[str(a), f"{a // 10 * 10}s", "*"] for a in range(100)]
    zips = [[f"{z:05d}", f"{z // 100:03d}**", "*"] for z in range(2000)]
    records = list(zip(rng.integers(0, 100, n).astype(str),
                       (f"{z:05d}" for z in rng.integers(0, 2000, n)), strict=True))
    data = encode_fast(records, [ages, zips], rng)
    classes = group(data, (0, 0))
    suppressed = rng.random(classes.n_classes) < 0.1
    assert classes.n_classes > 100_000
    for model in [Discernibility(), AverageClassSize(), NonUniformEntropy(), Precision(),
                  Height(), KLDivergence(), Classification("disease")]:
        model.prepare(data)
        start = time.perf_counter()
        model.score(classes, suppressed)
        model.lower_bound(classes)
        assert time.perf_counter() - start < 0.5, model.name


def encode_fast(records, hierarchies, rng) -> EncodedData:
    """Like ``encode`` with dictionary look-ups, for the large timing test."""
    qis = []
    for j, rows in enumerate(hierarchies):
        hierarchy = Hierarchy(rows)
        index = {r[0]: i for i, r in enumerate(rows)}
        labels = [hierarchy.labels(level) for level in range(hierarchy.height)]
        maps = []
        for level in range(hierarchy.height):
            position = {label: c for c, label in enumerate(labels[level])}
            maps.append(np.array([position[r[level]] for r in rows]))
        codes = np.array([index[r[j]] for r in records], dtype=np.int64)
        qis.append(QuasiIdentifier(f"q{j}", codes, maps, labels, hierarchy, 0,
                                   hierarchy.height - 1))
    disease = rng.integers(0, 3, len(records))
    return EncodedData(len(records), qis, {"disease": TrackedAttribute("disease", disease,
                                                                       DISEASE)})


def test_every_lattice_node_of_the_example_is_scored_consistently(example):
    """Bound at each node <= score of every node above it, on the fixed example."""
    data, _ = example
    nodes = list(itertools.product(range(3), range(2)))
    for model in bounded_models(0.5):
        model.prepare(data)
        for low, high in itertools.product(nodes, nodes):
            if all(a <= b for a, b in zip(low, high, strict=True)):
                at_high = group(data, high)
                worst = model.score(at_high, np.ones(at_high.n_classes, bool))
                assert model.lower_bound(group(data, low)) <= worst + 1e-9
