"""Anonymization methods by name, for the CLI (``arxpy methods``), the GUI and projects."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress
from arxpy.methods.base import HoldsReleases, Method
from arxpy.registry import Registry
from arxpy.release import Release

_METHODS: Registry[Method] = Registry("method", "name")

#: Class decorator: make a method known under its ``name``.
register_method = _METHODS.register
#: Forget the method registered under a name.
unregister_method = _METHODS.unregister


def method_from_dict(d: Mapping[str, Any]) -> Method:
    """A method from ``{"name": ..., parameters}``; ConfigurationError naming a bad setting."""
    return _METHODS.from_dict(dict(d))


def method_names() -> list[str]:
    return _METHODS.keys()


def method_classes() -> dict[str, type[Method]]:
    """Every registered method class by name."""
    return _METHODS.classes()


def run_method(name: str, data: pd.DataFrame, definition: DataDefinition,
               params: Mapping[str, Any] | None = None, *,
               hierarchies: Mapping[str, Hierarchy] | None = None,
               progress: Progress | None = None,
               cancel: CancelToken | None = None) -> Release | HoldsReleases:
    """Run the method called ``name`` with ``params`` on ``data`` (a job)."""
    method = method_from_dict({"name": name, **dict(params or {})})
    return method.run(data, definition, hierarchies=hierarchies, progress=progress,
                      cancel=cancel)
