"""Quality models by name, so project files and the CLI can name them."""

from __future__ import annotations

from typing import Any, TypeVar

from arxpy.errors import ConfigurationError
from arxpy.quality.base import QualityModel

_MODELS: dict[str, type[QualityModel]] = {}
M = TypeVar("M", bound=type[QualityModel])


def register_quality_model(cls: M) -> M:
    """Class decorator: make ``cls`` known under ``cls.name``."""
    _MODELS[cls.name] = cls
    return cls


def quality_model_from_dict(d: dict[str, Any]) -> QualityModel:
    """Rebuild a model from ``to_dict`` output; the class's constructor takes the other keys."""
    params = dict(d)
    name = params.pop("name", None)
    if name not in _MODELS:
        known = ", ".join(sorted(_MODELS))
        raise ConfigurationError(f"Unknown quality model '{name}'. Known models: {known}.")
    return _MODELS[name](**params)


def quality_model_names() -> list[str]:
    return sorted(_MODELS)
