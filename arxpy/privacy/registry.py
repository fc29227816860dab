"""Privacy models by kind, so project files, the CLI and the GUI can name them."""

from __future__ import annotations

from typing import Any

from arxpy.privacy.base import PrivacyModel
from arxpy.registry import Registry

_MODELS: Registry[PrivacyModel] = Registry("privacy model", "kind")

#: Class decorator: make a model known under its ``kind``.
register_privacy_model = _MODELS.register


def privacy_model_from_dict(d: dict[str, Any]) -> PrivacyModel:
    """Rebuild a model from ``to_dict`` output; ConfigurationError names any bad setting."""
    return _MODELS.from_dict(d)


def privacy_model_kinds() -> list[str]:
    return _MODELS.keys()


def privacy_model_classes() -> dict[str, type[PrivacyModel]]:
    """Kind -> class of every privacy model, in the order the package registers them."""
    return _MODELS.classes()
