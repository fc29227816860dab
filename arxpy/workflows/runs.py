"""Runs of a session: one finished run of any method (:class:`MethodRun`), running a
method as a job, naming runs and choosing which one makes room (no Qt)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress
from arxpy.methods.base import Method
from arxpy.release import Release
from arxpy.workflows.method_choice import key_parameters


@dataclass(frozen=True, eq=False)
class MethodRun:
    """One finished run: the method with its parameters, its release and its input."""

    method: Method
    release: Release
    data: pd.DataFrame
    definition: DataDefinition
    #: Shown in lists and Compare, e.g. "Condensation k=10 (run 2)".
    label: str
    #: Kept when the list of runs is full (see :func:`run_to_drop`).
    pinned: bool = False
    #: A lattice search's result (its candidates); None for other methods.
    result: Any = None


def run_method_job(method: Method, frame: pd.DataFrame, definition: DataDefinition,
                   hierarchies: Mapping[str, Hierarchy], *, progress: Progress,
                   cancel: CancelToken) -> Release:
    """``method`` on a clone (nothing a run prepares stays on the user's object); a
    search-based method's best candidate is its release."""
    outcome = method.clone().run(frame, definition, hierarchies=dict(hierarchies),
                                 progress=progress, cancel=cancel)
    release = outcome if isinstance(outcome, Release) else outcome.release()
    if not isinstance(release, Release):
        raise ConfigurationError(f"Method '{method.name}' returned no release.")
    return release


def run_label(method: Method, taken: Sequence[str]) -> str:
    """``"Condensation (Aggarwal & Yu) k=10 (run 2)"``: label, key parameters, and a
    number that makes it unique among ``taken``."""
    parameters = key_parameters(method, limit=2)
    base = f"{method.label} {parameters}".strip()
    number = 1
    while f"{base} (run {number})" in taken:
        number += 1
    return f"{base} (run {number})"


def lattice_run_label(config, taken: Sequence[str]) -> str:
    """``"Lattice: 5-anonymity, Loss, 2 % suppressed (run 1)"``: a search's settings in
    words, numbered to be unique among ``taken``."""
    models = ", ".join(m.describe() for m in config.privacy_models)
    base = (f"Lattice: {models}, {config.quality_model.label}, "
            f"{100 * config.suppression_limit:g} % suppressed")
    number = 1
    while f"{base} (run {number})" in taken:
        number += 1
    return f"{base} (run {number})"


#: How many method runs the window keeps by default (setting ``runs/keep``).
DEFAULT_KEPT_RUNS = 20


def run_to_drop(runs: Sequence[MethodRun], current: MethodRun | None,
                limit: int) -> MethodRun | None:
    """The run that one more run would push out of a list of at most ``limit``: the
    oldest that is neither pinned nor current. None while there is room, or when every
    other run is pinned (the list then grows: pins are the user's word)."""
    if len(runs) < limit:
        return None
    return next((r for r in runs if not r.pinned and r is not current), None)
