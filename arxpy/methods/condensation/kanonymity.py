"""The paper's "commercial" k-anonymity baseline, reproduced with arxpy's lattice engine.

Gal et al. (2014, L3209-3211) compare improved condensation with "a commercially
available de-identification software which achieves k-anonymity through a heuristic
algorithm using generalization and suppression". That tool cannot be rerun; spec 000
§2.5 [I] stands arxpy's own ARX-style engine in for it: full-domain generalization with
record suppression, the least information loss among the k-anonymous transformations.

Hierarchies [I] (the paper gives none) are derived from the data: a numeric attribute
with more than ``CATEGORICAL_LIMIT`` distinct values gets intervals of a round width
(about ``bins`` of them at level 1, merged in pairs above: ``[65, 70[`` → ``[60, 70[`` →
... → ``*``); every other attribute generalizes straight to ``*``. Hierarchies given to
``run`` take precedence. Recipients fit their models on interval midpoints
(:mod:`arxpy.analysis.generalized`); suppressed records carry no values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.builders.flat import FlatBuilder
from arxpy.hierarchy.builders.intervals import IntervalBuilder
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress
from arxpy.methods.base import Method
from arxpy.methods.generalization import Generalization
from arxpy.methods.registry import register_method
from arxpy.params import Param
from arxpy.release import Release

#: Numeric attributes with at most this many distinct values are treated as categories.
CATEGORICAL_LIMIT = 10


def round_width(span: float, bins: int) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^e that cuts ``span`` into at most ``bins``."""
    if span <= 0:
        return 1.0
    raw = span / bins
    exponent = math.floor(math.log10(raw))
    for step in (1, 2, 2.5, 5, 10):
        width = step * 10.0 ** exponent
        if width >= raw * (1 - 1e-12):
            return width
    return 10.0 ** (exponent + 1)


def derived_hierarchy(values: pd.Series, bins: int) -> Hierarchy:
    """Round-width intervals for a many-valued numeric attribute, else value → ``*``."""
    text = values.astype(str)
    numbers = pd.to_numeric(text, errors="coerce")
    distinct = text.unique()
    if numbers.notna().all() and len(distinct) > CATEGORICAL_LIMIT:
        width = round_width(float(numbers.max() - numbers.min()), bins)
        return IntervalBuilder(width=width, fanouts=(2,)).build(distinct)
    return FlatBuilder().build(distinct)


@register_method
class KAnonymityBaseline(Method):
    """k-anonymity by generalization and suppression with hierarchies derived from the
    data: the stand-in for the paper's commercial tool (spec 000 §2.5)."""

    name = "k-anonymity-baseline"
    comparison_baseline = True
    label = "k-anonymity (ARX-style)"
    description = ("Generalizes the quasi-identifiers (numbers to round intervals, categories to "
                   "*) and suppresses records until every class has at least k records, with the "
                   "least information loss: the stand-in for the paper's commercial tool.")
    guidance = ("Not a release method of its own: it is the baseline of the model-preservation "
                "comparison (what a generic k-anonymity tool would give). To publish a "
                "generalized table, use the lattice search.")
    reference = ("Gal et al. (2014) L3209-3211 'Commercial' baseline; arxpy's lattice "
                 "engine stands in for it (spec 000 §2.5)")
    params = (
        Param("k", "int", 100, low=2, label="k", help="smallest class size"),
        Param("quasi_identifiers", "attributes", None, optional=True,
              label="quasi-identifiers", help="attributes to generalize (default: the "
              "definition's quasi-identifiers, else every attribute)",
              step="L3331: k-anonymity only masks quasi-identifiers"),
        Param("suppression_limit", "float", 0.05, low=0.0, high=1.0,
              unit="fraction of records", label="suppression limit",
              help="largest share of records that may be suppressed"),
        Param("bins", "int", 16, low=2, label="intervals at level 1",
              help="about how many round-width intervals a numeric attribute starts with"),
    )

    def quasi_identifiers_of(self, data: pd.DataFrame, definition: DataDefinition
                             ) -> list[str]:
        chosen = list(self.quasi_identifiers or definition.quasi_identifiers)
        if not chosen:
            chosen = [c for c in data.columns if c not in definition.identifying]
        missing = [q for q in chosen if q not in data.columns]
        if missing:
            raise ConfigurationError(
                f"Quasi-identifier '{missing[0]}' is not a column of the data; choose among "
                f"{', '.join(map(str, data.columns))}.")
        return chosen

    def run(self, data: pd.DataFrame, definition: DataDefinition, *,
            hierarchies: Mapping[str, Hierarchy] | None = None,
            progress: Progress | None = None, cancel: CancelToken | None = None) -> Release:
        if self.k > len(data):
            raise ConfigurationError(
                f"k = {self.k} is larger than the {len(data)} records; lower k.")
        chosen = self.quasi_identifiers_of(data, definition)
        given = dict(hierarchies or {})
        trees = {q: given.get(q) or derived_hierarchy(data[q], self.bins) for q in chosen}
        roles = DataDefinition(
            replace(a, type=AttributeType.QUASI_IDENTIFYING) if a.name in chosen else
            a if a.type is AttributeType.IDENTIFYING else
            replace(a, type=AttributeType.INSENSITIVE) for a in definition)
        search = Generalization(privacy_models=[{"kind": "k-anonymity", "k": self.k}],
                                suppression_limit=self.suppression_limit)
        result = search.run(data, roles, hierarchies=trees, progress=progress, cancel=cancel)
        try:
            release = result.release(cancel=cancel)
        except ConfigurationError:
            raise ConfigurationError(
                f"No generalization of {', '.join(chosen)} is {self.k}-anonymous within "
                f"{self.suppression_limit:.0%} suppression; allow more suppression, lower k "
                "or choose fewer quasi-identifiers.") from None
        if cancel is not None:  # cancelled while the release was built: return nothing
            cancel.raise_if_cancelled()
        return replace(release, method=self.name, parameters=self.get_params())

