"""Utility policies for set-valued data: disjoint groups of codes whose counts matter.

Loukides et al. 2014 §3.2 and Table 2 (spec 002 §4 "Utility policies"). A policy string
names one of:

``none``            no constraints;
``hierarchy:L``     one constraint per ICD-9-CM group at level L (1 = 3-digit category,
                    2 = section, 3 = chapter) holding the dataset's codes below it;
``sim:N``           consecutive blocks of N codes of the dataset in ICD (depth-first)
                    order (decision G5: no ICD parent has 100 children);
``sup:S``           the itemsets in at least S % of records, made disjoint greedily by
                    (size desc, support desc, codes) (decision G6);
``file:PATH``       a JSON list of lists of codes (must be disjoint).

Constraints are tuples of the dataset's (undotted) codes; codes of a constraint that
do not occur in the data are dropped, and constraints left empty are dropped. In
multiset mode ``CODE#j`` belongs wherever ``CODE`` does.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from arxpy.data import icd9
from arxpy.data.itemsets import count_itemsets
from arxpy.data.transactions import CodeSets
from arxpy.errors import ConfigurationError

#: Longest frequent itemset mined for ``sup:S`` (itemsets at >= 0.625 % are short).
MAX_FREQUENT_SIZE = 8

Constraint = tuple[str, ...]


def policy_constraints(policy: str, code_sets: CodeSets) -> list[Constraint]:
    """The constraints ``policy`` defines over the codes of ``code_sets``."""
    kind, _, value = (policy or "none").strip().partition(":")
    kind = kind.lower()
    if kind == "none" and not value:
        return []
    if kind == "hierarchy":
        return hierarchy_constraints(code_sets.vocabulary, _level(value, policy))
    if kind == "sim":
        return similarity_constraints(code_sets.vocabulary, _whole(value, policy))
    if kind == "sup":
        return frequency_constraints(code_sets, _percent(value, policy))
    if kind == "file":
        return file_constraints(Path(value), code_sets.vocabulary)
    raise ConfigurationError(
        f"Unknown utility policy '{policy}'; use none, hierarchy:1|2|3, sim:N, sup:S "
        "(percent of records) or file:U.json.")


def hierarchy_constraints(vocabulary: tuple[str, ...], level: int) -> list[Constraint]:
    ids, _ = icd9.ancestor_groups(vocabulary, level)
    groups: dict[int, list[str]] = {}
    for code, group in zip(vocabulary, ids.tolist(), strict=True):
        groups.setdefault(group, []).append(code)
    return [tuple(icd9.dfs_order(groups[g])) for g in sorted(groups)]


def similarity_constraints(vocabulary: tuple[str, ...], size: int) -> list[Constraint]:
    ordered = icd9.dfs_order(vocabulary)
    return [tuple(ordered[i:i + size]) for i in range(0, len(ordered), size)]


def frequency_constraints(code_sets: CodeSets, percent: float) -> list[Constraint]:
    min_count = max(1, math.ceil(percent / 100.0 * len(code_sets)))
    frequent = []
    for level in count_itemsets(code_sets, MAX_FREQUENT_SIZE, min_count):
        for row, count in zip(level.itemsets, level.counts, strict=True):
            if count >= min_count:
                frequent.append((tuple(code_sets.vocabulary[c] for c in row), int(count)))
    frequent.sort(key=lambda item: (-len(item[0]), -item[1], item[0]))
    taken: set[str] = set()
    constraints = []
    for codes, _ in frequent:
        if taken.isdisjoint(codes):
            constraints.append(codes)
            taken.update(codes)
    return constraints


def file_constraints(path: Path, vocabulary: tuple[str, ...]) -> list[Constraint]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"Cannot read the utility policy '{path}': {exc}.") from exc
    if not isinstance(raw, list) or not all(isinstance(u, list) for u in raw):
        raise ConfigurationError(
            f"The utility policy '{path}' must be a JSON list of lists of codes.")
    by_base: dict[str, list[str]] = {}
    for code in vocabulary:
        by_base.setdefault(icd9.base_code(code), []).append(code)
    owner: dict[str, int] = {}
    constraints = []
    for index, group in enumerate(raw):
        codes = []
        for text in group:
            for code in by_base.get(icd9.normalize_code(text), []):
                if code in owner and owner[code] != index:
                    raise ConfigurationError(
                        f"Code {icd9.dotted(code)} is in utility constraints {owner[code] + 1} "
                        f"and {index + 1} of '{path}'; constraints must be disjoint.")
                owner[code] = index
                codes.append(code)
        if codes:
            constraints.append(tuple(dict.fromkeys(codes)))
    return constraints


def _level(value: str, policy: str) -> int:
    if value not in ("1", "2", "3"):
        raise ConfigurationError(f"Policy '{policy}': the hierarchy level must be 1, 2 or 3.")
    return int(value)


def _whole(value: str, policy: str) -> int:
    try:
        size = int(value)
    except ValueError:
        size = 0
    if size < 1:
        raise ConfigurationError(f"Policy '{policy}': write sim:N with a whole N >= 1.")
    return size


def _percent(value: str, policy: str) -> float:
    try:
        percent = float(value)
    except ValueError:
        percent = math.nan
    if not 0 < percent <= 100:
        raise ConfigurationError(
            f"Policy '{policy}': write sup:S with S a percentage in (0, 100], e.g. sup:0.625.")
    return percent
