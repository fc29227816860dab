"""Utility policies for set-valued data: disjoint groups of codes whose counts matter.

Loukides et al. 2014 §3.2 and Table 2 (spec 002 §4 "Utility policies"). A policy string
names one of:

``none``            no constraints;
``hierarchy:L``     one constraint per ICD-9-CM group at level L (1 = 3-digit category,
                    four characters for E-codes; 2 = section; 3 = chapter) holding the
                    dataset's codes below it; an unknown code is its own constraint;
``sim:N``           consecutive blocks of N codes of the dataset in ICD (depth-first)
                    order (decision G5: no ICD parent has 100 children);
``sup:S``           the itemsets in at least S % of records, made disjoint greedily by
                    (size desc, support desc, codes) (decision G6);
``file:PATH``       a JSON list of lists of codes (must be disjoint).

Constraints hold the dataset's codes as the vocabulary spells them (dotted or not):
codes are looked up normalised (:func:`arxpy.data.icd9.normalize_code`), so ``296.00``
and ``29600`` are the same code. Codes of a constraint that do not occur in the data
are dropped, and constraints left empty are dropped. In multiset mode ``CODE#j``
belongs wherever ``CODE`` does (spec §2.6): constraints are computed on the codes
without the suffix, frequent itemsets mined on the records without it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from arxpy.data import icd9
from arxpy.data.itemsets import count_itemsets, min_support_count
from arxpy.data.transactions import CodeSets
from arxpy.errors import ConfigurationError

POLICY_KINDS = ("none", "hierarchy", "sim", "sup", "file")
POLICY_HELP = "none, hierarchy:1|2|3, sim:N, sup:S (percent of records) or file:U.json"

Constraint = tuple[str, ...]


def parse_policy(policy: str) -> tuple[str, str]:
    """``(kind, argument)`` of a policy text, checked without reading any data (a
    method validates its parameter early with it); ConfigurationError saying what to
    write otherwise."""
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
            f"Utility policy {policy!r}: N must be a whole number of codes, at least 1, "
            "e.g. sim:10 (the paper uses 5, 10, 25, 100).")
    if kind == "sup" and not 0 < _number(argument) <= 100:
        raise ConfigurationError(
            f"Utility policy {policy!r}: S must be a percentage above 0 and at most 100, "
            "e.g. sup:0.625 (the paper uses 0.625, 1.25, 2.5, 5).")
    return kind, argument


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def policy_constraints(policy: str | None, code_sets: CodeSets) -> list[Constraint]:
    """The constraints ``policy`` defines over the codes of ``code_sets``: disjoint
    tuples of vocabulary codes, in a deterministic order."""
    kind, argument = parse_policy(policy or "none")
    if kind == "none":
        return []
    if kind == "hierarchy":
        return hierarchy_constraints(code_sets.vocabulary, int(argument))
    if kind == "sim":
        return similarity_constraints(code_sets.vocabulary, int(argument))
    if kind == "sup":
        return frequency_constraints(code_sets, float(argument))
    return file_constraints(Path(argument), code_sets.vocabulary)


def policy_files(policy: object) -> list[Path]:
    """The file a ``file:PATH`` policy reads; none for other policies. Never raises: the
    overwrite guard asks before the policy itself is checked."""
    if not isinstance(policy, str):
        return []
    kind, _, argument = policy.strip().partition(":")
    argument = argument.strip()
    return [Path(argument)] if kind.strip().lower() == "file" and argument else []


def published_policy(policy: str) -> str:
    """The policy as a publication may show it: a file policy by the file's name only
    (the custodian's folders are not part of a release)."""
    kind, argument = parse_policy(policy)
    return f"file:{Path(argument).name}" if kind == "file" else policy


def hierarchy_constraints(vocabulary: Sequence[str], level: int) -> list[Constraint]:
    """One constraint per ICD-9-CM group at ``level`` (1-3), groups in ICD order."""
    variants = _variants(vocabulary)
    keys = list(variants)
    ids, _ = icd9.ancestor_groups(keys, level)
    groups: dict[int, list[str]] = {}
    for key, group in zip(keys, ids.tolist(), strict=True):
        groups.setdefault(group, []).append(key)
    return [_expand(groups[g], variants) for g in sorted(groups)]


def similarity_constraints(vocabulary: Sequence[str], size: int) -> list[Constraint]:
    """Consecutive blocks of ``size`` distinct codes in ICD order (G5)."""
    variants = _variants(vocabulary)
    ordered = _icd_ordered(variants)
    return [_expand(ordered[i:i + size], variants) for i in range(0, len(ordered), size)]


def frequency_constraints(code_sets: CodeSets, percent: float) -> list[Constraint]:
    """The itemsets held by at least ``percent`` % of the records, made disjoint (G6)."""
    sets, variants = _base_records(code_sets)
    return [_expand(codes, variants, sort=False)
            for codes in disjoint_itemsets(frequent_itemsets(sets, percent))]


def frequent_itemsets(code_sets: CodeSets, percent: float) -> list[tuple[Constraint, int]]:
    """Every itemset (of any size) held by at least ``percent`` % of the records, with
    its count: exact level-wise Apriori (:func:`arxpy.data.itemsets.count_itemsets`)."""
    min_count = min_support_count(percent, len(code_sets))
    longest = int(code_sets.lengths.max()) if len(code_sets) else 0
    frequent = []
    for level in count_itemsets(code_sets, max(longest, 1), min_count):
        for row, count in zip(level.itemsets, level.counts, strict=True):
            if count >= min_count:
                frequent.append((tuple(code_sets.vocabulary[c] for c in row), int(count)))
    return frequent


def disjoint_itemsets(itemsets: Sequence[tuple[Constraint, int]]) -> list[Constraint]:
    """Greedy disjoint selection (G6): by size (desc), count (desc), codes; an itemset
    is taken if it shares no code with one taken before."""
    taken: list[Constraint] = []
    used: set[str] = set()
    for codes, _ in sorted(itemsets, key=lambda item: (-len(item[0]), -item[1], item[0])):
        if used.isdisjoint(codes):
            taken.append(codes)
            used.update(codes)
    return taken


def file_constraints(path: Path, vocabulary: Sequence[str]) -> list[Constraint]:
    """The constraints of a JSON file (a list of lists of codes, or ``{"constraints":
    [...]}``), restricted to ``vocabulary``; overlapping constraints are refused naming
    the code, even where the data lacks it (the file is wrong either way)."""
    groups = read_constraints_file(path)
    variants = _variants(vocabulary)
    owner: dict[str, int] = {}
    constraints = []
    for index, group in enumerate(groups):
        keys = []
        for text in group:
            key = _key(text)
            if owner.setdefault(key, index) != index:
                raise ConfigurationError(
                    f"Code {text} is in utility constraints {owner[key] + 1} and {index + 1} "
                    f"of {path.name}; constraints must be disjoint. Remove it from one of "
                    "them.")
            keys.append(key)
        present = [key for key in dict.fromkeys(keys) if key in variants]
        if present:
            constraints.append(_expand(present, variants, sort=False))
    return constraints


def read_constraints_file(path: Path) -> list[list[str]]:
    """The lists of codes of a policy file, as written."""
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
            f"{path.name}: a utility policy file holds a JSON list of constraints, each a "
            'list of codes, e.g. [["296.00", "296.01"], ["401.0"]].')
    return [[c.strip() for c in u] for u in data]


def constraint_index(constraints: Sequence[Sequence[str]], vocabulary: Sequence[str]
                     ) -> np.ndarray:
    """The constraint of every vocabulary code (-1: in none)."""
    position = {code: i for i, code in enumerate(vocabulary)}
    out = np.full(len(vocabulary), -1, dtype=np.int64)
    for i, constraint in enumerate(constraints):
        for code in constraint:
            out[position[code]] = i
    return out


# --- codes as looked up versus codes as spelled ------------------------------------------------

def _key(code: str) -> str:
    """The code the hierarchy knows: no multiset suffix, normalised (``296.00#2`` ->
    ``29600``)."""
    return icd9.normalize_code(icd9.base_code(code))


def _variants(vocabulary: Sequence[str]) -> dict[str, list[str]]:
    """Every vocabulary spelling (dotted or not, ``#j`` occurrences) of each code key."""
    variants: dict[str, list[str]] = {}
    for code in vocabulary:
        variants.setdefault(_key(code), []).append(code)
    return variants


def _icd_ordered(keys: Sequence[str]) -> list[str]:
    return sorted(keys, key=lambda key: (icd9.dfs_position(key), key))


def _expand(keys: Sequence[str], variants: dict[str, list[str]], *,
            sort: bool = True) -> Constraint:
    """The vocabulary codes of ``keys`` (sorted by code, else in the keys' order)."""
    ordered = sorted(keys) if sort else keys
    return tuple(code for key in ordered for code in sorted(variants[key]))


def _base_records(code_sets: CodeSets) -> tuple[CodeSets, dict[str, list[str]]]:
    """The records over code keys (suffix dropped, normalised) for mining, and the
    vocabulary spellings of each key."""
    variants = _variants(code_sets.vocabulary)
    if all(spellings == [key] for key, spellings in variants.items()):
        return code_sets, variants
    keys = [_key(code) for code in code_sets.vocabulary]
    return CodeSets.from_sets({keys[c] for c in code_sets.indices[
        code_sets.indptr[i]:code_sets.indptr[i + 1]]} for i in range(len(code_sets))), variants
