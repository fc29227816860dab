"""The release diff (issue 35): two releases of one recipe side by side, such as last
quarter's and this quarter's.

Each side is a JSON report (``anonymize``, ``run`` or ``replay --report``) or a
certificate (JSON, HTML or PDF); both hold the same figures under other keys, which
:func:`figures_of` reads into one shape: records, suppression, classes, the risk over
the declared quasi-identifiers, the one verdict's claims, the transformation and the
utility figures. :func:`release_diff` puts them side by side with the change, and says
whether both name the same recipe (``arxpy diff`` refuses when not, unless told).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arxpy.errors import ConfigurationError

#: What a figure missing from one side shows.
MISSING = "n/a"


@dataclass(frozen=True)
class ReleaseFigures:
    """One release's figures (label -> value, in display order) and its recipe's hash."""

    source: str
    recipe_sha256: str | None
    figures: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReleaseDiff:
    """Two releases side by side: ``rows`` of (figure, first, second, change)."""

    first: ReleaseFigures
    second: ReleaseFigures
    rows: list[tuple[str, Any, Any, str]]

    @property
    def same_recipe(self) -> bool:
        """Do both name one recipe (False when either names none)?"""
        return self.first.recipe_sha256 is not None and \
            self.first.recipe_sha256 == self.second.recipe_sha256

    def recipe_problem(self) -> str | None:
        """Why the two are not releases of one recipe (None: they are)."""
        for side in (self.first, self.second):
            if side.recipe_sha256 is None:
                return (f"{side.source} names no recipe; give a report of a run with "
                        "--recipe-out, a replay's report or a certificate")
        if not self.same_recipe:
            return (f"the recipes differ ({self.first.recipe_sha256[:12]}… in "
                    f"{self.first.source}, {self.second.recipe_sha256[:12]}… in "
                    f"{self.second.source}): the releases were not made the same way")
        return None

    def to_dict(self) -> dict[str, Any]:
        return {"first": self.first.source, "second": self.second.source,
                "recipe_sha256": {"first": self.first.recipe_sha256,
                                  "second": self.second.recipe_sha256},
                "same_recipe": self.same_recipe,
                "rows": [{"figure": f, "first": a, "second": b, "change": c}
                         for f, a, b, c in self.rows]}


def read_figures(path: str | os.PathLike[str]) -> ReleaseFigures:
    """The figures of a report or certificate file (JSON, or a certificate's HTML/PDF)."""
    from arxpy.recipes.certificate import read_signed

    source = Path(path).name
    try:
        head = Path(path).read_bytes()[:64]
    except OSError as exc:
        raise ConfigurationError(f"Cannot read '{path}': {exc.strerror or exc}.") from None
    if head.startswith(b"%PDF") or head.lstrip().lower().startswith(b"<!doctype html"):
        return figures_of(read_signed(path), source)
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigurationError(f"'{path}' is not a JSON report ({exc}).") from None
    return figures_of(document, source)


def figures_of(document: Mapping[str, Any], source: str) -> ReleaseFigures:
    """The figures of a parsed report or (signed) certificate."""
    if not isinstance(document, Mapping):
        raise ConfigurationError(f"'{source}' is not an arxpy report or certificate.")
    body = document.get("certificate", document)
    release = body.get("release", body)  # anonymize nests the release's figures
    if isinstance(body.get("replay"), Mapping) and body["replay"].get("refused"):
        raise ConfigurationError(f"'{source}' is the report of a refused replay: it "
                                 "released nothing to compare.")
    classes = release.get("classes")
    verdict = release.get("verdict") or release.get("verification")
    if not isinstance(classes, Mapping) or not isinstance(verdict, Mapping):
        raise ConfigurationError(
            f"'{source}' holds no release figures; give the --report of anonymize, run "
            "or replay, or a certificate.")
    risk = body.get("risk") or verdict.get("attacker") or {}
    figures: dict[str, Any] = {"verdict": verdict.get("headline", MISSING)}
    figures.update(_class_figures(classes))
    figures.update({
        "classes over the quasi-identifiers": risk.get("classes"),
        "smallest class over the quasi-identifiers": risk.get("smallest_class"),
        "highest prosecutor risk": risk.get("highest_prosecutor_risk"),
        "average prosecutor risk": risk.get("average_prosecutor_risk"),
    })
    for claim in verdict.get("claims") or []:
        figures[f"claim: {claim.get('claim')}"] = "holds" if claim.get("holds") else "FAILS"
    transformation = release.get("transformation")
    figures["transformation"] = ", ".join(f"{k}={v}" for k, v in transformation.items()) \
        if transformation else MISSING
    for name, value in (body.get("utility") or {}).items():
        figures[name] = value
    return ReleaseFigures(source, body.get("recipe_sha256"), figures)


def _class_figures(classes: Mapping[str, Any]) -> dict[str, Any]:
    records, suppressed = classes.get("records"), classes.get("suppressed_records")
    share = suppressed / records if isinstance(records, int) and records and \
        isinstance(suppressed, int) else None
    return {"records": records,
            "released records": None if share is None else records - suppressed,
            "suppressed records": suppressed, "suppressed share": share,
            "classes": classes.get("n_classes"), "smallest class": classes.get("min_size"),
            "mean class size": classes.get("mean_size"),
            "largest class": classes.get("max_size")}


def release_diff(first: ReleaseFigures, second: ReleaseFigures) -> ReleaseDiff:
    """Every figure either side has, with both values and the change."""
    labels = list(dict.fromkeys([*first.figures, *second.figures]))
    rows = []
    for label in labels:
        a, b = first.figures.get(label), second.figures.get(label)
        rows.append((label, MISSING if a is None else a, MISSING if b is None else b,
                     _change(a, b)))
    return ReleaseDiff(first, second, rows)


def _change(a: Any, b: Any) -> str:
    if a is None or b is None:
        return ""
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
    if numbers:
        delta = b - a
        if delta == 0:
            return "same"
        if isinstance(a, int) and isinstance(b, int):
            return f"{delta:+,}" + (f" ({delta / a:+.1%})" if a else "")
        return f"{delta:+.4g}"
    return "same" if a == b else "differs"


def diff_text(diff: ReleaseDiff) -> str:
    """The diff as an aligned plain-text table (figure, first, second, change): each
    side's verdict above it, long texts cut to :data:`CELL_WIDTH` (the JSON has them)."""
    verdicts = [f"{side.source}: {side.figures.get('verdict', MISSING)}"
                for side in (diff.first, diff.second)]
    header = ("figure", diff.first.source, diff.second.source, "change")
    rows = [header] + [(f, _shown(a), _shown(b), c) for f, a, b, c in diff.rows
                       if f != "verdict"]
    widths = [max(len(str(r[i])) for r in rows) for i in range(3)]
    lines = ["  ".join(str(v).ljust(w) for v, w in zip(r[:3], widths, strict=True))
             + f"  {r[3]}" for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join([*verdicts, "", *(line.rstrip() for line in lines)])


#: Widest value the text table shows.
CELL_WIDTH = 36


def _shown(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    text = str(value)
    return text if len(text) <= CELL_WIDTH else text[:CELL_WIDTH - 1] + "…"
