"""Replay: a recipe applied to a new extract, or refused with every reason at once.

The extract is checked against the recipe before anything is released: the columns
(none missing, none new), the hierarchies (each given, with the recipe's SHA-256),
the identifier key (its fingerprint), the values each hierarchy must cover. Then the
recipe's transformation is applied (or the lattice searched again, or the method run
again with its seed) and the release judged by the one verdict
(:meth:`Release.verify`): a claim that no longer holds, the suppression limit
included, refuses the replay too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from arxpy.errors import ArxpyError
from arxpy.formatting import plural
from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers import IdentifierPlan, PseudonymKey
from arxpy.jobs import Progress
from arxpy.recipes.recipe import FIXED, SEARCH, Recipe, hierarchy_sha256
from arxpy.release import Release

#: Values of an uncovered attribute named in a refusal (the count is always given).
NAMED_VALUES = 5


class ReplayRefused(ArxpyError):
    """The extract breaks the recipe; ``problems`` lists every reason, one sentence each."""

    def __init__(self, problems: list[str]) -> None:
        count = len(problems)
        super().__init__(f"The new extract breaks the recipe ({count} problem"
                         f"{'' if count == 1 else 's'}): " + " ".join(problems))
        self.problems = list(problems)


@dataclass(frozen=True)
class Replay:
    """A replayed release and the identifier treatments' record (None without any)."""

    release: Release
    identifiers: dict[str, Any] | None


def replay(recipe: Recipe, frame: pd.DataFrame, hierarchies: Mapping[str, Hierarchy],
           key: PseudonymKey | None = None, progress: Progress | None = None) -> Replay:
    """The release ``recipe`` makes of ``frame``; raises :class:`ReplayRefused` listing
    every way the extract, the hierarchies or the key break it."""
    problems = check_extract(recipe, frame, hierarchies, key)
    if problems:
        raise ReplayRefused(problems)
    hierarchies = {**hierarchies, **rebuilt_hierarchies(recipe, frame)}
    definition = recipe.definition()
    record = None
    if recipe.identifiers is not None:
        try:
            treated = _plan(recipe).apply(frame, definition, key, hierarchies)
        except ArxpyError as exc:
            raise ReplayRefused([str(exc)]) from None
        frame, definition, record = treated.frame, treated.definition, treated.record
    uncovered = _uncovered(recipe, frame, hierarchies)
    if uncovered:
        raise ReplayRefused(uncovered)
    release = _release(recipe, frame, definition, hierarchies, progress)
    problems = verdict_problems(release, recipe.mode == FIXED) + _preset_problems(recipe,
                                                                               release)
    if problems:
        raise ReplayRefused(problems)
    return Replay(release, record)


def check_extract(recipe: Recipe, frame: pd.DataFrame,
                  hierarchies: Mapping[str, Hierarchy],
                  key: PseudonymKey | None = None) -> list[str]:
    """What breaks the recipe before any value is looked at: columns, hierarchies, key."""
    problems = []
    missing = [n for n in recipe.names if n not in frame.columns]
    new = [str(c) for c in frame.columns if c not in recipe.names]
    if missing:
        problems.append(f"Missing column(s) the recipe needs: {_names(missing)}.")
    if new:
        problems.append(f"New column(s) the recipe does not know: {_names(new)}; drop them "
                        "or make a new recipe that gives them a role.")
    for name, expected in recipe.hierarchies.items():
        if expected.get("built_by"):
            continue  # a preset's rule builds it from the values: nothing to give
        given = hierarchies.get(name)
        file = f" ('{expected['file']}')" if expected.get("file") else ""
        if given is None:
            problems.append(f"No hierarchy given for '{name}'; give the recipe's{file}.")
        elif hierarchy_sha256(given) != expected["sha256"]:
            problems.append(f"The hierarchy given for '{name}' is not the recipe's{file}: "
                            f"its SHA-256 is {hierarchy_sha256(given)[:12]}…, the recipe's "
                            f"{expected['sha256'][:12]}….")
    extra = sorted(set(hierarchies) - set(recipe.hierarchies))
    if extra:
        problems.append(f"Hierarchies the recipe does not use: {_names(extra)}; leave "
                        "them out.")
    problems += _key_problems(recipe, key)
    problems += _ordinal_problems(recipe)
    return problems


def rebuilt_hierarchies(recipe: Recipe, frame: pd.DataFrame) -> dict[str, Hierarchy]:
    """The hierarchies a preset's rules build, built again over the new extract's values
    (each with the recipe's height, so the recipe's levels mean what they meant)."""
    from arxpy.presets import build_hierarchy

    definition = recipe.definition()
    out = {}
    for name, entry in recipe.built.items():
        if name not in frame.columns:
            continue  # check_extract named the missing column
        out[name] = build_hierarchy(entry["built_by"], frame[name].astype(str),
                                    dict(entry.get("parameters") or {}),
                                    definition[name].data_type)
    return out


def _ordinal_problems(recipe: Recipe) -> list[str]:
    """An ordinal order is data, so the recipe keeps only its hash; a model that sorts
    by it (ordered t-closeness) cannot be replayed without it."""
    ordinal = {a["name"] for a in recipe.attributes if "order_sha256" in a["data_type"]}
    models = recipe.parameters.get("privacy_models") or []
    return [f"The recipe's t-closeness of '{m['attribute']}' sorts by its ordinal order, "
            "which a recipe does not store; replay cannot judge it."
            for m in models if isinstance(m, dict) and m.get("distance") == "ordered"
            and m.get("attribute") in ordinal]


def _key_problems(recipe: Recipe, key: PseudonymKey | None) -> list[str]:
    expected = (recipe.identifiers or {}).get("key_fingerprint")
    if expected is None:
        return []
    if key is None:
        return ["The recipe's pseudonyms or date shifts need their key; give the key file "
                f"with fingerprint {expected}."]
    if key.fingerprint != expected:
        return [f"The key given has fingerprint {key.fingerprint}, the recipe's "
                f"{expected}; pseudonyms made with another key do not link."]
    return []


def _plan(recipe: Recipe) -> IdentifierPlan:
    return IdentifierPlan.from_record(recipe.identifiers or {})


def _uncovered(recipe: Recipe, frame: pd.DataFrame,
               hierarchies: Mapping[str, Hierarchy]) -> list[str]:
    """Values a hierarchy does not cover: counted, and named unless the attribute's
    values were treated or shifted (those stay personal data even in a message)."""
    plan = _plan(recipe) if recipe.identifiers else None
    unnamed = set(plan.treated) if plan else set()
    if plan is not None and plan.date_shift is not None:
        unnamed |= set(plan.date_shift.attributes)
    problems = []
    for name, hierarchy in hierarchies.items():
        values = pd.unique(frame[name].astype(str))
        unknown = sorted(set(values) - set(hierarchy.values))
        if not unknown:
            continue
        text = f"'{name}' has {plural(len(unknown), 'value')} its hierarchy does not cover"
        if name not in unnamed:
            shown = ", ".join(repr(v) for v in unknown[:NAMED_VALUES])
            text += f": {shown}{', …' if len(unknown) > NAMED_VALUES else ''}"
        problems.append(text + "; extend the hierarchy and make a new recipe.")
    return problems


def _release(recipe: Recipe, frame: pd.DataFrame, definition: Any,
             hierarchies: Mapping[str, Hierarchy], progress: Progress | None) -> Release:
    from arxpy.engine import AnonymizationConfig, apply
    from arxpy.methods import method_classes

    if recipe.mode == FIXED:
        config = AnonymizationConfig.from_dict(recipe.parameters)
        return apply(frame, definition, hierarchies, config,
                     recipe.decision["transformation"])
    cls = method_classes()[recipe.method]
    parameters = dict(recipe.parameters)
    seed = recipe.decision.get("seed")
    if seed is not None and parameters.get("seed") is None and \
            "seed" in {p.name for p in cls.params}:
        parameters["seed"] = seed  # the seed drawn for the recipe's run, so replay repeats it
    outcome = cls(**parameters).run(frame, definition, hierarchies=dict(hierarchies),
                                    progress=progress)
    if recipe.mode == SEARCH and getattr(outcome, "optimum", True) is None:
        raise ReplayRefused(["No transformation satisfies the recipe's privacy models "
                             "within its suppression limit on the new extract."])
    return outcome.release() if hasattr(outcome, "release") else outcome


def _preset_problems(recipe: Recipe, release: Release) -> list[str]:
    """A Safe Harbor recipe's release must pass the HIPAA scan on the new extract too."""
    from arxpy.presets.policies import SAFE_HARBOR, scan_problems

    if (recipe.preset or {}).get("name") != SAFE_HARBOR:
        return []
    return scan_problems(release)


def verdict_problems(release: Release, fixed: bool = True) -> list[str]:
    """The one verdict's failures, one sentence each (none: every claim holds)."""
    verdict = release.verify()
    where = "At the recipe's transformation" if fixed else "In the replayed release"
    problems = [f"{where} a claim no longer holds: {c.text}." for c in verdict.failed]
    if not verdict.attacker_holds:
        problems.append(f"Over the declared quasi-identifiers: {verdict.headline}")
    return problems


def _names(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)
