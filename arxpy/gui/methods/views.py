"""Method-specific result views, registered by method name.

The runs page in Explore shows every release with the views all methods share (summary,
claims, groups) and, as further tabs, the views registered here for the method that
made it, e.g. the model-preservation report of condensation. A view is a factory
taking the :class:`MethodRun` and returning a widget; heavy work in a view runs in a
background job (see :mod:`arxpy.gui.workers`), never in the factory.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from functools import cache

from PySide6.QtWidgets import QWidget

from arxpy.workflows.runs import MethodRun

ResultViewFactory = Callable[[MethodRun], QWidget]

_VIEWS: dict[str, list[tuple[str, ResultViewFactory]]] = {}


def register_result_view(methods: Iterable[str], title: str,
                         factory: ResultViewFactory) -> None:
    """Show ``factory(run)`` as a tab titled ``title`` for releases of ``methods``."""
    for name in methods:
        views = _VIEWS.setdefault(name, [])
        views[:] = [(t, f) for t, f in views if t != title] + [(title, factory)]


#: Modules whose import registers the views of arxpy's own methods.
BUILTIN_VIEW_MODULES = ("arxpy.gui.methods.condensation_views",
                        "arxpy.gui.methods.interval_views",
                        "arxpy.gui.methods.disassociation_views",
                        "arxpy.gui.methods.kpbms_views",
                        "arxpy.gui.methods.local_recoding_views")


def result_views(method: str) -> list[tuple[str, ResultViewFactory]]:
    """The registered (title, factory) pairs for a method's releases, in order."""
    _register_builtin_views()
    return list(_VIEWS.get(method, []))


@cache
def _register_builtin_views() -> None:
    # Imported on first use, not with the package: the views import the Utility
    # perspective's helpers, which import the state, which imports this module.
    for module in BUILTIN_VIEW_MODULES:
        importlib.import_module(module)
