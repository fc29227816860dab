"""ARX's method: full-domain generalization with record suppression, by lattice search.

The search (:func:`arxpy.engine.anonymize`) finds the transformation with the best
quality that meets the privacy models within the suppression limit; its
:class:`~arxpy.engine.result.Result` holds every candidate, each available as a
release (``result.release(levels)``; the optimum by default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.engine import AnonymizationConfig, Result, anonymize
from arxpy.engine.config import GENETIC_PARAMS, LOCAL_RECODING_PARAMS, SEARCH_PARAMS
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress
from arxpy.methods.base import Method
from arxpy.methods.registry import register_method
from arxpy.params import Param


@register_method
class Generalization(Method):
    """Optimal full-domain generalization (Flash-style lattice search) with suppression."""

    name = "generalization"
    label = "Generalization (lattice search)"
    description = ("Generalizes each quasi-identifier to one level of its hierarchy and suppresses "
                   "the records left in classes that fail the privacy models, choosing the "
                   "transformation with the least information loss.")
    guidance = ("The default, as in ARX: choose it for categorical and numeric quasi- "
                "identifiers with hierarchies when you need a formal privacy model "
                "(k-anonymity, l-diversity, t-closeness, risk thresholds) and want to compare "
                "candidate transformations.")
    params = (
        Param("privacy_models", "objects", [{"kind": "k-anonymity", "k": 5}],
              label="privacy models", help="privacy models as settings objects, e.g. "
              '{"kind": "k-anonymity", "k": 5}'),
        Param("quality_model", "object", {"name": "loss"}, label="quality model",
              help='the quality model to optimize, e.g. {"name": "loss"}'),
        Param("microaggregation", "object", {}, label="microaggregation",
              help='quasi-identifiers released as one aggregate per class, e.g. '
              '{"age": {"function": "mean", "clustering": false}}'),
        *SEARCH_PARAMS,  # declared once, with the engine's configuration
        *LOCAL_RECODING_PARAMS,
        *GENETIC_PARAMS,
    )

    def check_together(self) -> None:
        self.config()  # every model's own checks, with messages naming the setting

    def config(self) -> AnonymizationConfig:
        """The engine configuration these parameters describe."""
        return AnonymizationConfig.from_dict(self.get_params())

    def run(self, data: pd.DataFrame, definition: DataDefinition, *,
            hierarchies: Mapping[str, Hierarchy] | None = None,
            progress: Progress | None = None, cancel: CancelToken | None = None) -> Result:
        if hierarchies is None:
            raise ConfigurationError(
                "Generalization needs a hierarchy for every quasi-identifier; give hierarchies.")
        return anonymize(data, definition, hierarchies, self.config(), progress=progress,
                         cancel=cancel)

    @classmethod
    def from_config(cls, config: AnonymizationConfig) -> Generalization:
        """The method with an engine configuration's settings."""
        params: dict[str, Any] = config.to_dict()
        params.setdefault("remove_suppressed", False)
        params.setdefault("local_recoding", 0)
        return cls(**params)
