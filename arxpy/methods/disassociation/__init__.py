"""Disassociation of set-valued diagnosis codes (Loukides et al. 2014; spec
``002-disassociation.md``): HORPART, VERPART, REFINE and the published document."""

from arxpy.methods.disassociation.method import (
    CAVEAT,
    Disassociated,
    Disassociation,
    DisassociationRelease,
)
from arxpy.methods.disassociation.publish import published_figures, published_json

__all__ = ["CAVEAT", "Disassociated", "Disassociation", "DisassociationRelease",
           "published_figures", "published_json"]
