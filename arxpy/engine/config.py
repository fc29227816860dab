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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

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
        _validate_search(self.suppression_limit, self.strategy, self.time_limit)

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
    def from_dict(cls, d: Mapping[str, Any]) -> AnonymizationConfig:
        """Inverse of :meth:`to_dict`; missing keys take their defaults.

        Any bad value (wrong type, unknown model, impossible parameter) raises a
        :class:`ConfigurationError` naming the setting, never another exception.
        """
        return cls(**_settings_parts(d))


def check_settings(d: Mapping[str, Any]) -> None:
    """Raise :class:`ConfigurationError` naming the setting if ``d`` holds a bad value.

    Unlike :meth:`AnonymizationConfig.from_dict`, settings without privacy models are
    accepted: a project may be saved before any model is chosen.
    """
    parts = _settings_parts(d)
    _validate_search(parts["suppression_limit"], parts["strategy"], parts["time_limit"])


def _validate_search(limit: Any, strategy: Any, time_limit: Any) -> None:
    if (isinstance(limit, bool) or not isinstance(limit, int | float) or math.isnan(limit)
            or not 0.0 <= limit <= 1.0):
        raise ConfigurationError(
            f"The suppression limit is a fraction of records in [0, 1], got {limit!r}."
        )
    if strategy not in STRATEGY_NAMES:
        raise ConfigurationError(
            f"Unknown search strategy '{strategy}'; use one of {', '.join(STRATEGY_NAMES)}."
        )
    if time_limit is not None and (isinstance(time_limit, bool)
                                   or not isinstance(time_limit, int | float)
                                   or not time_limit > 0 or math.isinf(time_limit)):
        raise ConfigurationError(
            f"The time limit must be a positive number of seconds, got {time_limit!r}."
        )


def _settings_parts(d: Mapping[str, Any]) -> dict[str, Any]:
    """The constructor's arguments from a settings dict, each value checked for its type."""
    if not isinstance(d, Mapping):
        raise ConfigurationError(
            f"Settings must be a mapping of setting names to values, got {type(d).__name__}.")
    models = d.get("privacy_models") or []
    if not isinstance(models, list):
        raise ConfigurationError(
            f"Setting privacy_models must be a list of models, got {type(models).__name__}.")
    quality_spec = d.get("quality_model")
    time_limit = d.get("time_limit")
    return {
        "privacy_models": [_setting(f"privacy_models[{i}]", privacy_model_from_dict, spec)
                           for i, spec in enumerate(models)],
        "quality_model": (_setting("quality_model", quality_model_from_dict, quality_spec)
                          if quality_spec else Loss()),
        "suppression_limit": _setting("suppression_limit", _number,
                                      d.get("suppression_limit", 0.0)),
        "strategy": _setting("strategy", _text, d.get("strategy", "optimal")),
        "time_limit": None if time_limit is None else _setting("time_limit", _number,
                                                                 time_limit),
        "remove_suppressed": _setting("remove_suppressed", _flag,
                                      d.get("remove_suppressed", False)),
    }


def _setting(key: str, build: Callable[[Any], Any], value: Any) -> Any:
    """``build(value)``; any failure becomes a ConfigurationError naming ``key``."""
    if build in (privacy_model_from_dict, quality_model_from_dict) and not (
            isinstance(value, Mapping) and all(isinstance(k, str) for k in value)):
        raise ConfigurationError(
            f"Setting {key} must be a mapping of parameter names to values, got {value!r:.80}.")
    try:
        return build(value)
    except ConfigurationError as exc:
        raise ConfigurationError(f"Setting {key}: {exc}") from None
    except (TypeError, ValueError, KeyError, AttributeError, OverflowError,
            ArithmeticError) as exc:  # a constructor given a value of the wrong kind
        raise ConfigurationError(f"Setting {key} has an invalid value ({exc}).") from None


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigurationError(f"expected a number, got {value!r:.80}")
    return float(value)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ConfigurationError(f"expected a name, got {value!r:.80}")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigurationError(f"expected true or false, got {value!r:.80}")
    return value
