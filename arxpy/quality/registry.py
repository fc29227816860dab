"""Quality models by name, so project files, the CLI and the GUI can name them."""

from __future__ import annotations

from typing import Any

from arxpy.quality.base import QualityModel
from arxpy.registry import Registry

_MODELS: Registry[QualityModel] = Registry("quality model", "name")

#: Class decorator: make a model known under its ``name``.
register_quality_model = _MODELS.register


def quality_model_from_dict(d: dict[str, Any]) -> QualityModel:
    """Rebuild a model from ``to_dict`` output; ConfigurationError names any bad setting."""
    return _MODELS.from_dict(d)


def quality_model_names() -> list[str]:
    return _MODELS.keys()


def quality_model_classes() -> dict[str, type[QualityModel]]:
    """Name -> class of every quality model, in the order the package registers them."""
    return _MODELS.classes()
