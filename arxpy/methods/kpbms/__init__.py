"""kPB-MS (Aristodimou et al. 2016): PB-FSS feature selection and pattern-based
suppression to k-anonymity over the selected features plus the class."""

from arxpy.methods.kpbms.method import REFERENCE, Kpbms, KpbmsRelease
from arxpy.methods.kpbms.selection import REDUNDANCY_RULES, SelectionTrace, pb_fss
from arxpy.methods.kpbms.suppression import (
    Iteration,
    LossLimitError,
    PatternDecisions,
    anonymize_prefix,
    kpbms_loop,
)

__all__ = ["REDUNDANCY_RULES", "REFERENCE", "Iteration", "Kpbms", "KpbmsRelease",
           "LossLimitError", "PatternDecisions", "SelectionTrace", "anonymize_prefix",
           "kpbms_loop", "pb_fss"]
