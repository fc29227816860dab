"""The classification model's score against a brute force over the records.

The reference below regroups the generalized records with pandas and applies the rule
of Prasser et al. / ARX's MetricSDClassification record by record (suppressed: the
suppression penalty; kept: nothing when its class value is its group's unique most
frequent one, the minority penalty when another value is, the ambiguity penalty when
no value is; with a quasi-identifying class attribute the groups are over the other
quasi-identifiers and the penalties move towards the largest by the attribute's
level). It shares no code with :mod:`arxpy.quality.classification`.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pandas as pd
import pytest
from test_engine_search import HIERARCHIES, definition, table

from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.quality.classification import Classification, records_outside_top

QIS = ["age", "zip", "sex"]


def reference(frame: pd.DataFrame, levels, suppressed_tuples: set, model) -> float:
    """The normalized penalty of the records of ``frame`` generalized to ``levels``."""
    up = {q: {row[0]: row[lv] for row in HIERARCHIES[q].rows}
          for q, lv in zip(QIS, levels, strict=True)}
    target = model.class_attribute
    worst = max(model.suppressed_penalty, model.minority_penalty, model.ambiguity_penalty)
    scale = 0.0
    if target in QIS:
        distinct = [len({row[lv] for row in HIERARCHIES[target].rows})
                    for lv in range(len(HIERARCHIES[target].rows[0]))]
        here = distinct[levels[QIS.index(target)]]
        scale = 0.0 if distinct[0] <= 1 else 1 - (here - 1) / (distinct[0] - 1)
    minority = model.minority_penalty * (1 - scale) + worst * scale
    ambiguity = model.ambiguity_penalty * (1 - scale) + worst * scale
    penalty = 0.0
    groups: dict[tuple, Counter] = defaultdict(Counter)
    for record in frame.to_dict("records"):
        general = {q: up[q][record[q]] for q in QIS}
        if tuple(general[q] for q in QIS) in suppressed_tuples:
            penalty += model.suppressed_penalty
            continue
        value = general[target] if target in QIS else record[target]
        groups[tuple(general[q] for q in QIS if q != target)][value] += 1
    for counts in groups.values():
        size = sum(counts.values())
        ranked = counts.most_common()
        if scale == 1.0:
            penalty += worst * size
        elif len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            penalty += ambiguity * size
        else:
            penalty += minority * (size - ranked[0][1])
    return penalty / (worst * len(frame))


MODELS = [Classification("disease"), Classification("disease", 0.2, 1.0, 0.6),
          Classification("sex"), Classification("sex", 1.0, 0.3, 2.0),
          Classification("age"), Classification("age", 0.2, 1.0, 0.6),
          Classification("zip", 0.5, 0.7, 1.0)]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: str(m.get_params()))
def test_score_matches_the_records_at_every_transformation(model):
    rng = np.random.default_rng(3)
    frame = table(11, 90)  # small groups: many ties between class values
    config = AnonymizationConfig([KAnonymity(1)], model.clone(), 0.2, "exhaustive")
    result = anonymize(frame, definition(), HIERARCHIES, config)
    prepared = result.config.quality_model
    qis = result.encoded.quasi_identifiers
    for index in range(result.lattice.size):
        levels = result.lattice.levels(index)
        classes, _ = result.classes_of(levels)
        labels = [tuple(str(qis[j].labels[lv][row[j]]) for j, lv in enumerate(levels))
                  for row in classes.keys]
        for chance in (0.0, 0.3):
            suppressed = rng.random(classes.n_classes) < chance
            chosen = {labels[i] for i in np.flatnonzero(suppressed)}
            expected = reference(frame, levels, chosen, model)
            # Same classes scored twice in a row (the model remembers the last classes).
            assert prepared.score(classes, suppressed) == pytest.approx(expected, rel=1e-12)
            assert prepared.score(classes, suppressed) == pytest.approx(expected, rel=1e-12)
        assert prepared.lower_bound(classes) <= reference(frame, levels, set(), model) + 1e-12


@pytest.mark.parametrize("groups, width, entries", [(5, 3, 40), (3000, 400, 50)])
def test_records_outside_top_by_brute_force(groups, width, entries):
    # Dense (small table) and sorted (large table) paths against a plain count.
    rng = np.random.default_rng(groups)
    group = rng.integers(0, groups, entries)
    value = rng.integers(0, min(width, 3), entries)  # repeated pairs are summed
    weight = rng.integers(1, 5, entries)
    totals: dict[int, Counter] = defaultdict(Counter)
    for g, v, w in zip(group, value, weight, strict=True):
        totals[int(g)][int(v)] += int(w)
    expected = sum(sum(c.values()) - max(c.values()) for c in totals.values())
    assert records_outside_top(group, value, weight, groups, width) == expected


@pytest.mark.parametrize("model", [Classification("sex", 0.2, 1.0, 0.6), Classification("age")],
                         ids=lambda m: m.class_attribute)
def test_groups_too_many_for_one_int64_are_renumbered(model, monkeypatch):
    # With the key limit at 2 every transformation takes the renumbering and lexsort
    # paths that very many or very large quasi-identifiers need; same scores and bounds.
    import arxpy.quality.classification as classification

    rng = np.random.default_rng(5)
    frame = table(4, 120)
    config = AnonymizationConfig([KAnonymity(1)], model.clone(), 0.2, "exhaustive")
    result = anonymize(frame, definition(), HIERARCHIES, config)
    wide, narrow = result.config.quality_model, result.config.quality_model.clone()
    narrow.prepare(result.encoded)
    narrow.suppression_budget = wide.suppression_budget
    monkeypatch.setattr(classification, "KEY_LIMIT", 2)
    for index in range(result.lattice.size):
        classes, _ = result.classes_of(result.lattice.levels(index))
        suppressed = rng.random(classes.n_classes) < 0.3
        assert narrow.score(classes, suppressed) == wide.score(classes, suppressed)
        assert narrow.lower_bound(classes) == wide.lower_bound(classes)


@pytest.mark.parametrize("model", [Classification("sex", 0.2, 1.0, 0.6), Classification("age"),
                                   Classification("zip", 0.5, 0.7, 1.0)],
                         ids=lambda m: m.class_attribute)
def test_packed_keys_give_the_scores_of_the_key_matrix(model):
    # A quasi-identifying class attribute groups classes straight from their packed keys
    # when no key matrix was decoded; same scores and bounds as from the matrix.
    from arxpy.lattice.classes import EquivalenceClasses

    rng = np.random.default_rng(8)
    frame = table(6, 150)
    config = AnonymizationConfig([KAnonymity(1)], model.clone(), 0.2, "exhaustive")
    result = anonymize(frame, definition(), HIERARCHIES, config)
    prepared = result.config.quality_model
    packed_seen = 0
    for index in range(result.lattice.size):
        classes, _ = result.classes_of(result.lattice.levels(index))
        if classes.packed is None:
            continue
        packed_seen += 1
        twin = EquivalenceClasses(classes.levels, None, classes.sizes, classes.distributions,
                                  classes.sums, classes.packed)
        matrix = EquivalenceClasses(classes.levels, classes.packed.decode(), classes.sizes,
                                    classes.distributions, classes.sums)
        suppressed = rng.random(classes.n_classes) < 0.3
        assert prepared.score(twin, suppressed) == prepared.score(matrix, suppressed)
        assert prepared.lower_bound(twin) == prepared.lower_bound(matrix)
        assert not twin.keys_decoded  # the packed path was taken
    assert packed_seen == result.lattice.size
