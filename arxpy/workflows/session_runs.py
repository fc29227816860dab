"""The runs of a session and the candidates pinned for Compare (no Qt).

:class:`RunsOfSession` is the part of :class:`arxpy.workflows.session.Session` that
keeps finished runs of every method (at most ``max_runs`` unless pinned), the current
run, and the pins; it relies on the session for the project, the result, the
configuration snapshots and ``_emit``.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from arxpy.engine.stored import ResultTooLarge
from arxpy.errors import ConfigurationError
from arxpy.workflows.method_choice import LATTICE
from arxpy.workflows.pins import Pin, of_run, pinned, renamed
from arxpy.workflows.runs import MethodRun, run_to_drop
from arxpy.workflows.saved_result import MAX_PINNED
from arxpy.workflows.saved_runs import input_fingerprint, run_record
from arxpy.workflows.sealed import installation_key

if TYPE_CHECKING:
    from pathlib import Path

    from arxpy.engine.result import Result
    from arxpy.workflows.staleness import ConfigurationSnapshot


class RunsOfSession:
    """Finished runs, the current run and the pins of a session."""

    runs: list[MethodRun]
    current_run: MethodRun | None
    max_runs: int
    showing_runs: bool
    pins: list[Pin]
    result: Result | None
    sealing_key_file: Path | None
    _loose_pins: list[tuple[int, ...]]
    _run_bases: dict[int, ConfigurationSnapshot | None]
    _runs_unsaved: bool

    def run_to_drop(self) -> MethodRun | None:
        """The run the next finished run will push out (see :func:`run_to_drop`)."""
        return run_to_drop(self.runs, self.current_run, self.max_runs)

    def add_run(self, run: MethodRun, select: bool = True) -> None:
        """A finished method run: kept in :attr:`runs` and (with ``select``) made the
        current release; the oldest unpinned runs beyond :attr:`max_runs` (never the
        current) go."""
        while (dropped := self.run_to_drop()) is not None:
            self.runs = [r for r in self.runs if r is not dropped]
            self._run_bases.pop(id(dropped), None)
        self.runs.append(run)
        self._run_bases[id(run)] = self._run_snapshot(run.method.name)
        self._forget_old_searches()
        self._runs_edited()
        if select:
            self.select_run(run)

    #: Lattice runs that keep their whole result (every candidate); older unpinned ones
    #: keep their optimum's release only (a result holds the encoded data and caches).
    KEPT_SEARCHES = 3

    def _forget_old_searches(self) -> None:
        searches = [r for r in self.runs if r.result is not None and not r.pinned]
        for old in searches[:-self.KEPT_SEARCHES]:
            lighter = dataclasses.replace(old, result=None)
            self.runs = [lighter if r is old else r for r in self.runs]
            self._run_bases[id(lighter)] = self._run_bases.pop(id(old), None)
            if self.current_run is old:
                self.current_run = lighter

    def _runs_edited(self) -> None:
        """The runs changed: the project is modified (runs are saved with it)."""
        self._runs_unsaved = True
        self._emit("runs")
        self._emit_modified()

    def restore_runs(self, runs: list[MethodRun], pins: list[Pin] = ()) -> None:
        """Runs and their pins brought back from the project file (not a
        modification); the last one becomes current while other methods' runs are shown."""
        for run in runs:
            self.runs.append(run)
            self._run_bases[id(run)] = self._run_snapshot(run.method.name)
        self.pins += [p for p in pins if p not in self.pins]
        search = self.search_run()
        if search is not None and self._loose_pins:  # the restored result is this run
            self.pins += [p for p in (Pin(search.label, levels) for levels in self._loose_pins)
                          if p not in self.pins]
            self._loose_pins = []
        self.runs = [dataclasses.replace(r, pinned=True) if of_run(self.pins, r.label)
                     and not r.pinned else r for r in self.runs]
        self._emit("runs")
        self._emit("pinned")
        if runs and self.showing_runs:
            self.select_run(runs[-1])

    def saved_runs_records(self) -> list[dict[str, Any]]:
        """What the project file keeps of the runs (see arxpy.workflows.saved_runs); a
        lattice run whose search checked more than a project keeps is left out."""
        records, key = [], self.sealing_key
        for r in self.runs:
            try:
                records.append(run_record(
                    r.method, r.release, r.label, of_run(self.pins, r.label),
                    input_fingerprint(r.data, r.definition, self.hierarchies), r.result,
                    key=key))
            except ResultTooLarge:
                continue
        return records

    def select_run(self, run: MethodRun | None) -> None:
        """Make ``run`` (one of :attr:`runs`) the current release."""
        if run is not None and run not in self.runs:
            raise ConfigurationError(f"The run '{run.label}' was removed.")
        self.current_run = run
        self.showing_runs = True
        self._emit("release")
        self._emit("stale")

    def show_runs(self, showing: bool) -> None:
        """Analyse the selected run (True) or the applied transformation (False)."""
        if showing and self.current_run is None and self.runs:
            self.current_run = self.runs[-1]
        if showing != self.showing_runs:
            self.showing_runs = showing
            self._emit("release")
            self._emit("stale")

    def remove_run(self, run: MethodRun) -> None:
        """Forget ``run`` and its pins; the current release moves to the latest run left."""
        self.runs = [r for r in self.runs if r is not run]
        self._run_bases.pop(id(run), None)
        if of_run(self.pins, run.label):
            self.pins = [p for p in self.pins if p.run != run.label]
            self._emit("pinned")
        self._runs_edited()
        if self.current_run is run:
            self.current_run = self.runs[-1] if self.runs else None
            self._emit("release")
            self._emit("stale")

    def rename_run(self, run: MethodRun, label: str) -> MethodRun:
        """Give ``run`` another label (not empty, unique among the runs); the renamed
        run replaces it everywhere."""
        label = label.strip()
        if not label:
            raise ConfigurationError("A run needs a name; type one.")
        if any(r.label == label for r in self.runs if r is not run):
            raise ConfigurationError(f"Another run is called '{label}'; choose another name.")
        return self._replace_run(run, label=label)

    def pin_run(self, run: MethodRun, pin: bool = True) -> MethodRun:
        """Pin ``run``'s release (a search's: its optimum) for Compare, or unpin every
        candidate of ``run``; a run with pins is kept when the list is full. Raises
        ConfigurationError beyond MAX_PINS."""
        if pin:
            return self.pin_candidate(run, run.release.levels if run.result is not None
                                      or run.method.name == LATTICE else None)
        return self._set_pins([p for p in self.pins if p.run != run.label], run)

    def pin_candidate(self, run: MethodRun, levels: tuple[int, ...] | None) -> MethodRun:
        """Pin one candidate of ``run`` for Compare: a transformation of its search, or
        (None) its release. Raises ConfigurationError beyond MAX_PINS."""
        levels = None if levels is None else tuple(int(v) for v in levels)
        return self._set_pins(pinned(self.pins, Pin(run.label, levels)), run)

    def unpin_candidate(self, pin: Pin) -> None:
        run = next((r for r in self.runs if r.label == pin.run), None)
        if run is not None:
            self._set_pins([p for p in self.pins if p != pin], run)

    def _set_pins(self, pins: list[Pin], run: MethodRun) -> MethodRun:
        """New pins; ``run`` (whose pins changed) is kept while it has any."""
        if pins == self.pins:
            return run
        self.pins = pins
        keep = bool(of_run(pins, run.label))
        if run.pinned != keep:
            run = self._replace_run(run, pinned=keep)
        else:
            self._runs_edited()  # the pins are saved with the runs
        self._emit("pinned")
        return run

    def _replace_run(self, run: MethodRun, **changes: Any) -> MethodRun:
        changed = dataclasses.replace(run, **changes)
        if changed.label != run.label:
            self.pins = renamed(self.pins, run.label, changed.label)
        self.runs = [changed if r is run else r for r in self.runs]
        self._run_bases[id(changed)] = self._run_bases.pop(id(run), self._run_snapshot(
            run.method.name))
        current = self.current_run is run
        if current:  # before the events: listeners never see a current run not listed
            self.current_run = changed
        self._runs_edited()
        if current:
            self._emit("release")
        return changed

    # --- pinned transformations (Compare) ------------------------------------------------

    MAX_PINNED = MAX_PINNED

    @property
    def sealing_key(self) -> bytes | None:
        """The key sealing saved releases, made on first use (None: none can be kept)."""
        if self.sealing_key_file is None:
            return None
        try:
            return installation_key(self.sealing_key_file)
        except OSError:  # an unwritable folder: runs are computed again on open
            return None

    def search_run(self) -> MethodRun | None:
        """The run holding the current search's result: the very result, or a search of
        the same settings and optimum (a saved result and its saved run)."""
        if self.result is None:
            return None
        searches = [r for r in reversed(self.runs) if r.result is not None]
        same = next((r for r in searches if r.result is self.result), None)
        if same is not None or self.result.optimum is None:
            return same
        from arxpy.methods import Generalization

        params = Generalization.from_config(self.result.config).get_params()
        return next((r for r in searches if r.method.name == LATTICE
                     and r.release.levels == self.result.optimum.levels
                     and r.method.get_params() == params), None)

    @property
    def pinned(self) -> list[tuple[int, ...]]:
        """The current search's pinned transformations (the lattice views' marks)."""
        run = self.search_run()
        if run is None:
            return list(self._loose_pins)
        return [levels for levels in of_run(self.pins, run.label) if levels is not None]

    def pin(self, levels: tuple[int, ...]) -> None:
        """Pin ``levels`` of the current search for comparison; raises
        ConfigurationError beyond MAX_PINNED of one search (or MAX_PINS in all)."""
        levels = tuple(int(v) for v in levels)
        current = self.pinned
        if levels in current:
            return
        if len(current) >= self.MAX_PINNED:
            raise ConfigurationError(
                f"At most {self.MAX_PINNED} transformations can be compared; unpin one of "
                f"{', '.join(str(list(p)) for p in current)} first.")
        run = self.search_run()
        if run is not None:
            self.pin_candidate(run, levels)
        else:
            self._loose_pins.append(levels)
            self._emit("pinned")

    def unpin(self, levels: tuple[int, ...] | None = None) -> None:
        """Unpin ``levels`` of the current search (None: all of its pins)."""
        gone = self.pinned if levels is None else [tuple(int(v) for v in levels)]
        run = self.search_run()
        if run is not None:
            self._set_pins([p for p in self.pins
                            if not (p.run == run.label and p.levels in gone)], run)
        elif any(p in gone for p in self._loose_pins):
            self._loose_pins = [p for p in self._loose_pins if p not in gone]
            self._emit("pinned")
