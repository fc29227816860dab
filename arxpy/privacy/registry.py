"""Privacy models by kind, so project files and the CLI can name them."""

from __future__ import annotations

from typing import Any, TypeVar

from arxpy.errors import ConfigurationError
from arxpy.privacy.base import PrivacyModel

_MODELS: dict[str, type[PrivacyModel]] = {}
M = TypeVar("M", bound=type[PrivacyModel])


def register_privacy_model(cls: M) -> M:
    """Class decorator: make ``cls`` known under ``cls.kind``."""
    _MODELS[cls.kind] = cls
    return cls


def privacy_model_from_dict(d: dict[str, Any]) -> PrivacyModel:
    """Rebuild a model from ``to_dict`` output; the class's constructor takes the other keys."""
    params = dict(d)
    kind = params.pop("kind", None)
    if kind not in _MODELS:
        known = ", ".join(sorted(_MODELS))
        raise ConfigurationError(f"Unknown privacy model '{kind}'. Known models: {known}.")
    return _MODELS[kind](**params)


def privacy_model_kinds() -> list[str]:
    return sorted(_MODELS)
