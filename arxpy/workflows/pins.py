"""Candidates pinned for Compare, keyed by run and candidate (no Qt).

A pin names a run by its label (unique among a project's runs) and, for a lattice
search, one of its transformations; a run of another method has one candidate, its
release (levels None). Pins of every run are compared together, and saved with their
runs (:mod:`arxpy.workflows.saved_runs`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arxpy.errors import ConfigurationError
from arxpy.release import Release
from arxpy.workflows.saved_runs import MAX_PINS, Candidate


@dataclass(frozen=True)
class Pin:
    """One pinned candidate: the run's label and the transformation (None: the release)."""

    run: str
    levels: Candidate = None

    @property
    def name(self) -> str:
        """Compare's column name: the run, and the transformation if it is not the only
        candidate of its run."""
        return self.run if self.levels is None else f"{self.run} {list(self.levels)}"


def pinned(pins: Sequence[Pin], pin: Pin) -> list[Pin]:
    """``pins`` with ``pin`` added (last); raises ConfigurationError beyond MAX_PINS."""
    if pin in pins:
        return list(pins)
    if len(pins) >= MAX_PINS:
        raise ConfigurationError(
            f"At most {MAX_PINS} candidates can be compared; unpin one of the pinned "
            "candidates first.")
    return [*pins, pin]


def renamed(pins: Sequence[Pin], old: str, new: str) -> list[Pin]:
    """``pins`` after the run ``old`` was renamed ``new``."""
    return [Pin(new, p.levels) if p.run == old else p for p in pins]


def of_run(pins: Sequence[Pin], label: str) -> list[Candidate]:
    """The candidates pinned of the run called ``label``, in pinning order."""
    return [p.levels for p in pins if p.run == label]


def pinned_releases(pins: Sequence[Pin], runs: Sequence,
                    ) -> dict[str, Callable[[], Release]]:
    """Compare's column name -> how to get its release (a lattice candidate's release
    is computed on first use, so call these on a worker). ``runs`` have ``label``,
    ``release`` and ``result`` (a search's result, or None)."""
    by_label = {run.label: run for run in runs}
    out: dict[str, Callable[[], Release]] = {}
    for pin in pins:
        run = by_label.get(pin.run)
        if run is None:
            continue
        if pin.levels is None or pin.levels == run.release.levels:
            out[pin.name] = lambda run=run: run.release
        elif run.result is not None:
            out[pin.name] = lambda run=run, levels=pin.levels: run.result.release(levels)
    return out
