"""The anonymization configuration: privacy models, quality model, suppression, search.

``to_dict``/``from_dict`` use the shape stored in project files::

    {"privacy_models": [{"kind": "k-anonymity", "k": 5}, ...],
     "quality_model": {"name": "loss", "gs_factor": 0.5, "aggregate": "geometric_mean"},
     "suppression_limit": 0.02, "strategy": "optimal", "time_limit": null}

``remove_suppressed`` is written only when set (suppressed rows are kept with ``*`` in
every quasi-identifier by default, as in ARX).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import arxpy.privacy  # noqa: F401  (registers every privacy model for from_dict)
import arxpy.quality  # noqa: F401  (registers every quality model for from_dict)
from arxpy.errors import ConfigurationError
from arxpy.privacy.base import PrivacyModel
from arxpy.privacy.registry import privacy_model_from_dict
from arxpy.quality.base import QualityModel
from arxpy.quality.loss import Loss
from arxpy.quality.registry import quality_model_from_dict

STRATEGY_NAMES = ("optimal", "exhaustive", "heuristic")


@dataclass
class AnonymizationConfig:
    """What to achieve and how to search.

    ``suppression_limit`` is the largest fraction of records (in [0, 1]) that may be
    suppressed; ``time_limit`` (seconds, > 0) bounds the heuristic strategy.
    """

    privacy_models: Sequence[PrivacyModel]
    quality_model: QualityModel = field(default_factory=Loss)
    suppression_limit: float = 0.0
    strategy: str = "optimal"
    time_limit: float | None = None
    remove_suppressed: bool = False

    def __post_init__(self) -> None:
        self.privacy_models = list(self.privacy_models)
        self.validate()

    def validate(self) -> None:
        """Raise :class:`ConfigurationError` for settings that can never work."""
        if not self.privacy_models:
            raise ConfigurationError("Choose at least one privacy model, e.g. k-anonymity.")
        limit = self.suppression_limit
        if not isinstance(limit, int | float) or math.isnan(limit) or not 0.0 <= limit <= 1.0:
            raise ConfigurationError(
                f"The suppression limit is a fraction of records in [0, 1], got {limit!r}."
            )
        if self.strategy not in STRATEGY_NAMES:
            raise ConfigurationError(
                f"Unknown search strategy '{self.strategy}'; use one of "
                f"{', '.join(STRATEGY_NAMES)}."
            )
        if self.time_limit is not None and not self.time_limit > 0:
            raise ConfigurationError(
                f"The time limit must be a positive number of seconds, got {self.time_limit!r}."
            )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "privacy_models": [m.to_dict() for m in self.privacy_models],
            "quality_model": self.quality_model.to_dict(),
            "suppression_limit": float(self.suppression_limit),
            "strategy": self.strategy,
            "time_limit": self.time_limit,
        }
        if self.remove_suppressed:
            out["remove_suppressed"] = True
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AnonymizationConfig:
        """Inverse of :meth:`to_dict`; missing keys take their defaults."""
        try:
            models = [privacy_model_from_dict(m) for m in d.get("privacy_models", [])]
            quality_spec = d.get("quality_model")
            quality = quality_model_from_dict(quality_spec) if quality_spec else Loss()
        except TypeError as exc:  # a model given parameters it does not take
            raise ConfigurationError(f"Invalid model parameters: {exc}.") from None
        time_limit = d.get("time_limit")
        return cls(
            privacy_models=models,
            quality_model=quality,
            suppression_limit=float(d.get("suppression_limit", 0.0)),
            strategy=str(d.get("strategy", "optimal")),
            time_limit=None if time_limit is None else float(time_limit),
            remove_suppressed=bool(d.get("remove_suppressed", False)),
        )
