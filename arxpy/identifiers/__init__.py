"""Identifiers and patients (issue 32): keyed pseudonyms, masks, random replacement and
per-patient date shifting, applied to a table before a method releases it. Qt-free.

The key stays in its key file (:mod:`arxpy.identifiers.keys`); reports and projects
record only its fingerprint. ``docs/identifiers.md`` describes the treatments.
"""

from arxpy.identifiers.dates import DateShift
from arxpy.identifiers.formats import PseudonymFormat
from arxpy.identifiers.keys import PseudonymKey, create_key_file, read_key_file
from arxpy.identifiers.masking import MaskRule
from arxpy.identifiers.plan import (
    MASK,
    PSEUDONYM,
    RANDOM,
    REMOVE,
    IdentifierPlan,
    TreatedTable,
    Treatment,
)

__all__ = [
    "MASK", "PSEUDONYM", "RANDOM", "REMOVE", "DateShift", "IdentifierPlan", "MaskRule",
    "PseudonymFormat", "PseudonymKey", "TreatedTable", "Treatment", "create_key_file",
    "read_key_file",
]
