"""Anonymization methods: one protocol (:class:`Method`), a registry, and the methods.

Importing this package registers every method.
"""

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

__all__ = [
    "MDAV", "TFRP", "Condensation", "Generalization", "HoldsReleases", "ImprovedCondensation",
    "Disassociation", "IntervalGeneralisation", "Kpbms", "Method", "method_classes",
    "method_from_dict", "method_names", "register_method", "run_method",
]
