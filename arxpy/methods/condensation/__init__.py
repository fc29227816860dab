"""Condensation for regression and survival analyses (Gal et al. 2014) and the
microaggregation baselines it is compared with (spec ``000-condensation.md``)."""

from arxpy.methods.condensation.improved import (
    ImprovedCondensation,
    reassign_by_rank,
    subset_readout,
)
from arxpy.methods.condensation.kanonymity import KAnonymityBaseline
from arxpy.methods.condensation.method import (
    CAVEAT,
    MDAV,
    TFRP,
    Condensation,
    CondensationRelease,
)

__all__ = ["CAVEAT", "MDAV", "TFRP", "Condensation", "CondensationRelease", "KAnonymityBaseline",
           "ImprovedCondensation", "reassign_by_rank", "subset_readout"]
