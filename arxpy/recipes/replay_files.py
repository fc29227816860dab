"""Replay from files to files: what ``arxpy replay`` and the GUI's "Apply recipe to new
data" share (Qt-free). The recipe's hierarchies are found by the file names it gives
(or ``ATTR.csv``), the extract is read as the CLI reads ``--data``, and a replay that
passes writes the release, its report and, if asked, a signed certificate.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers import PseudonymKey
from arxpy.jobs import CancelToken, Progress
from arxpy.params import drawn_seed
from arxpy.recipes.certificate import file_sha256
from arxpy.recipes.recipe import Recipe
from arxpy.recipes.replay import Replay, ReplayRefused, replay
from arxpy.release import Release


def find_hierarchies(recipe: Recipe, folder: Path | None,
                     delimiter: str | None = None) -> dict[str, Hierarchy]:
    """The recipe's hierarchies found in ``folder`` by the file names the recipe gives
    (``ATTR.csv`` for those that came from a project); missing ones are left out, and
    replay names them."""
    from arxpy.hierarchy.io import read_hierarchy

    found: dict[str, Hierarchy] = {}
    if folder is None:
        return found
    for name, expected in recipe.hierarchies.items():
        if expected.get("built_by"):
            continue  # a preset's rule builds it from the new extract's values
        path = folder / str(expected.get("file") or f"{name}.csv")
        if path.is_file():
            found[name] = read_hierarchy(path, delimiter=delimiter or ";")
    return found


def replay_report(recipe: Recipe, done: Replay, output: Path, order: Mapping[str, Any],
                  original: Any = None) -> dict[str, Any]:
    """The report of a replay that passed (the keys ``docs/recipes.md`` lists); with
    ``original``, the extract it was made of, its utility figures too."""
    from arxpy.recipes.certificate import utility

    release = done.release
    report: dict[str, Any] = {**release.to_dict(), "output": output.name,
                              "output_file_sha256": file_sha256(output),
                              "output_order": dict(order), "recipe_sha256": recipe.sha256,
                              "replay": {"mode": recipe.mode, "refused": False,
                                         "problems": []}}
    if done.identifiers is not None:
        report["identifiers"] = done.identifiers
    if recipe.preset is not None:
        report["preset"] = {**recipe.preset,
                            "remaining_risk": release.verify().attacker.to_dict()}
    if original is not None:
        report["utility"] = utility(original, release)
    return report


def refusal_report(recipe: Recipe, problems: list[str]) -> dict[str, Any]:
    """The report of a refused replay: every reason, nothing released."""
    return {"recipe_sha256": recipe.sha256,
            "replay": {"mode": recipe.mode, "refused": True, "problems": list(problems)}}


@dataclass(frozen=True)
class ReplayRequest:
    """What to replay on what, and where the results go (``report`` and ``certificate``
    optional; a certificate needs ``signing_key``)."""

    recipe: Path
    data: Path
    output: Path
    hierarchies: Path | None = None
    report: Path | None = None
    certificate: Path | None = None
    signing_key: Path | None = None
    key: PseudonymKey | None = field(default=None, repr=False)


@dataclass(frozen=True)
class ReplayOutcome:
    """A replay's end: ``problems`` (refused, nothing released) or the release and the
    files written."""

    problems: list[str]
    release: Release | None = None
    written: list[Path] = field(default_factory=list)

    @property
    def refused(self) -> bool:
        return bool(self.problems)


def replay_files(request: ReplayRequest, progress: Progress | None = None,
                 cancel: CancelToken | None = None) -> ReplayOutcome:
    """Replay ``request.recipe`` on ``request.data`` and write what it asks for; a
    refusal writes only the report (with every reason). Runs as a job."""
    from arxpy.data.csv_io import read_csv, sniff_csv

    cancel = cancel or CancelToken()
    recipe = Recipe.load(request.recipe)
    hierarchies = find_hierarchies(recipe, request.hierarchies)
    frame = read_csv(request.data, sniff_csv(request.data), guess_encoding=True)
    cancel.raise_if_cancelled()
    try:
        done = replay(recipe, frame, hierarchies, request.key, progress=progress)
    except ReplayRefused as refused:
        if request.report is not None:
            _write_json(request.report, refusal_report(recipe, refused.problems))
        return ReplayOutcome(refused.problems)
    cancel.raise_if_cancelled()
    written, order = write_replayed(done.release, request.output)
    files = [written]
    if request.report is not None:
        files.append(_write_json(request.report,
                                 replay_report(recipe, done, written, order, frame)))
    if request.certificate is not None and request.signing_key is not None:
        files += _certify(request, recipe, done, frame)
    return ReplayOutcome([], done.release, files)


def write_replayed(release: Release, output: Path) -> tuple[Path, dict[str, Any]]:
    """The release's table at ``output``, rows in input order shuffled by the run's seed
    (or a drawn one); the path and the report's ``output_order``."""
    from arxpy.engine.export import export_release

    rows = release.input_rows()
    if rows is None or not np.array_equal(rows, np.arange(len(rows))):
        order = {"shuffled": False, "seed": None, "note": "the method orders its own rows"}
    else:
        order = {"shuffled": True, "seed": int(release.seed if release.seed is not None
                                              else drawn_seed())}
    written = export_release(release, output, overwrite=True, shuffle_seed=order["seed"])
    return written[0], order


def _certify(request: ReplayRequest, recipe: Recipe, done: Replay, frame: Any) -> list[Path]:
    from arxpy.recipes.certificate import build_certificate, sign, write_signed
    from arxpy.recipes.signing import read_private_key

    key = read_private_key(request.signing_key)
    certificate = build_certificate(
        done.release, recipe, output_file=request.output, identifiers=done.identifiers,
        input_file_sha256=file_sha256(request.data), original=frame)
    return write_signed(sign(certificate, key), request.certificate)


def _write_json(path: Path, report: Mapping[str, Any]) -> Path:
    from arxpy.data.atomic import atomic_write

    with atomic_write(path) as handle:
        json.dump(report, handle, indent=2, allow_nan=False)
        handle.write("\n")
    return path
