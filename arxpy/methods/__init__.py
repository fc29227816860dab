"""Anonymization methods: one protocol (:class:`Method`), a registry, and the methods.

Importing this package registers every method: the ones named below, and any other
module or package put into this folder (so adding a method is adding one module).
"""

import importlib
import pkgutil

from arxpy.methods.base import HoldsReleases, Method
from arxpy.methods.condensation import (
    MDAV,
    TFRP,
    Condensation,
    ImprovedCondensation,
)
from arxpy.methods.disassociation import Disassociation
from arxpy.methods.generalization import Generalization
from arxpy.methods.interval_boxes import IntervalGeneralisation
from arxpy.methods.kpbms import Kpbms
from arxpy.methods.registry import (
    method_classes,
    method_from_dict,
    method_names,
    register_method,
    run_method,
)

#: Modules of this package that hold no method.
_NOT_METHODS = {"base", "registry", "options", "conformance", "setvalued_baselines"}
for _module in pkgutil.iter_modules(__path__):
    if _module.name not in _NOT_METHODS:
        importlib.import_module(f"{__name__}.{_module.name}")

__all__ = [
    "MDAV", "TFRP", "Condensation", "Generalization", "HoldsReleases", "ImprovedCondensation",
    "Disassociation", "IntervalGeneralisation", "Kpbms", "Method", "method_classes",
    "method_from_dict", "method_names", "register_method", "run_method",
]
