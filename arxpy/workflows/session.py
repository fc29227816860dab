"""The session: one project being worked on, without Qt.

It holds the project (data, attribute definitions, hierarchies, settings), its file
path, the result of the last lattice search with the selected and applied
transformations, the runs of every method with the current one, the pins for Compare,
the identifier plan's key, and what makes a result stale. Every edit of the
definition, a hierarchy or the settings is a command on :attr:`Session.history`, so
undo reverts it; "modified" means the history is not at its clean (saved) index.

Listeners (:meth:`Session.listen`) are told of every change by name, with the
arguments in brackets: ``project``, ``definition``, ``hierarchy`` (attribute name),
``settings``, ``result``, ``stale``, ``transformation`` (selected or applied),
``runs``, ``pinned``, ``release`` (the current release may be another one),
``modified`` (bool), ``key``, ``path`` and ``linked`` (event tables added or removed).
The GUI's ``AppState`` turns each into the Qt signal ``<name>_changed``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.engine.config import AnonymizationConfig
from arxpy.engine.microaggregation import lattice_definition
from arxpy.engine.result import Result
from arxpy.errors import ConfigurationError, DefinitionError, HierarchyError
from arxpy.hierarchy.model import Hierarchy
from arxpy.hierarchy.validation import HierarchyProblem, validate_hierarchy
from arxpy.identifiers import IdentifierPlan, PseudonymKey
from arxpy.presets import SETTINGS_KEY as PRESET_SETTING
from arxpy.presets import PresetOutcome, apply_preset
from arxpy.project import Project
from arxpy.quality.loss import Loss
from arxpy.workflows.commands import Change, CommandStack, Events
from arxpy.workflows.current_release import CurrentRelease
from arxpy.workflows.identifier_settings import (
    IDENTIFIERS,
    check_key,
    plan_of,
    plan_record,
    recorded_fingerprint,
    treated_inputs,
    without_attribute,
)
from arxpy.workflows.linked_project import LINKED, project_view
from arxpy.workflows.linked_release import JudgedView
from arxpy.workflows.method_choice import (
    LATTICE,
    chosen_method,
    lattice_settings,
    method_parameters,
)
from arxpy.workflows.pins import Pin
from arxpy.workflows.runs import DEFAULT_KEPT_RUNS, MethodRun
from arxpy.workflows.saved_result import record
from arxpy.workflows.saved_runs import fingerprint
from arxpy.workflows.session_linked import LinkedOfSession
from arxpy.workflows.session_runs import RunsOfSession
from arxpy.workflows.staleness import ConfigurationSnapshot


def default_settings() -> dict[str, Any]:
    """Settings of a fresh project: no privacy model yet, Loss, no suppression, optimal."""
    return {
        "privacy_models": [],
        "quality_model": Loss().to_dict(),
        "suppression_limit": 0.0,
        "strategy": "optimal",
        "time_limit": None,
    }


def hierarchy_problems(data: pd.DataFrame, hierarchies: dict[str, Hierarchy],
                       name: str) -> list[HierarchyProblem]:
    """Problems of the hierarchy of column ``name`` against its values; [] if usable."""
    hierarchy = hierarchies.get(name)
    if hierarchy is None:
        return [HierarchyProblem("empty", f"'{name}' has no hierarchy; create or import one.")]
    return validate_hierarchy(hierarchy, data[name], name)


def check_hierarchies_of(data: pd.DataFrame, definition: DataDefinition,
                         hierarchies: dict[str, Hierarchy]) -> None:
    """Raise HierarchyError (one sentence per problem) unless every quasi-identifier
    has a hierarchy that is well formed and covers its values (reads every value: the
    window runs it on a worker)."""
    problems = [p.message for q in definition.quasi_identifiers
                for p in hierarchy_problems(data, hierarchies, q)]
    if problems:
        raise HierarchyError(
            f"Fix the hierarchies before anonymizing ({len(problems)} problem(s)): "
            + problems[0], problems=problems)


class Session(RunsOfSession, LinkedOfSession):
    """Current project, result, runs and selection; every change is announced by name."""

    def __init__(self) -> None:
        #: The undoable edits (see :mod:`arxpy.workflows.commands`).
        self.history = CommandStack()
        self.history.listen(self._emit_modified)
        self._events = Events()
        self.project: Project | None = None
        self.path: Path | None = None
        self.result: Result | None = None
        #: The table the result was computed from (treated identifiers, shifted dates).
        self.result_frame: pd.DataFrame | None = None
        self._result_basis: ConfigurationSnapshot | None = None
        #: The delimiter of the CSV file the data came from (exports default to it).
        self.input_delimiter: str | None = None
        self.selected: tuple[int, ...] | None = None
        self.applied: tuple[int, ...] | None = None
        #: Candidates of any runs pinned for Compare (see :mod:`arxpy.workflows.pins`).
        self.pins: list[Pin] = []
        #: Pins of a current search that is no run (yet): a restored saved result.
        self._loose_pins: list[tuple[int, ...]] = []
        #: Where this installation's key sealing saved releases is kept (None: runs are
        #: computed again on open); see :mod:`arxpy.workflows.sealed`.
        self.sealing_key_file: Path | None = None
        #: Finished runs (lattice searches and other methods), oldest first; at most
        #: :attr:`max_runs` unless more are pinned.
        self.runs: list[MethodRun] = []
        self.max_runs = DEFAULT_KEPT_RUNS
        #: The run Utility, Risk and Export analyse while :attr:`showing_runs`.
        self.current_run: MethodRun | None = None
        #: True: the current release is a method run; False: the applied transformation.
        self.showing_runs = False
        self._run_bases: dict[int, ConfigurationSnapshot] = {}
        self._unsaved_new = False  # a new (imported) project is modified before any edit
        self._runs_unsaved = False  # a run was added, removed, renamed or pinned since saving
        self._last_modified = False
        #: Increases with every change of the configuration; a run started at another
        #: revision describes a configuration that no longer exists.
        self.revision = 0
        #: The pseudonym key of this session, read from the key file the user chose;
        #: held in memory only (a project keeps its fingerprint, never the key).
        self.pseudonym_key: PseudonymKey | None = None
        self._treated: tuple[tuple[int, str | None], Any] | None = None
        self._views: dict[int, JudgedView] = {}  # see LinkedOfSession
        #: The identifiers record of each treated table that runs were given, by the
        #: table's id (the table is kept alongside so the id stays its own).
        self._identifier_records: dict[int, tuple[pd.DataFrame, dict[str, Any]]] = {}

    def listen(self, listener: Callable[..., None]) -> None:
        """Tell ``listener(name, *args)`` of every change (names in the module's doc)."""
        self._events.listen(listener)

    def _emit(self, name: str, *args: Any) -> None:
        self._events.emit(name, *args)

    # --- project -------------------------------------------------------------------------

    def set_project(self, project: Project | None, path: Path | None = None,
                    modified: bool = False) -> None:
        """Open ``project`` (None closes it); clears the undo history and the result."""
        if project is not None and not project.settings:
            project.settings = default_settings()
        self.project = project
        self.input_delimiter = None
        self.revision += 1
        self.pseudonym_key = None  # a key belongs to a project's session; asked on open
        self._treated, self._identifier_records, self._views = None, {}, {}
        self.path = Path(path) if path is not None else None
        self.result = self.result_frame = None
        self._result_basis = None
        self.selected = self.applied = None
        self.pins, self._loose_pins = [], []
        self.runs, self.current_run, self._run_bases = [], None, {}
        self.showing_runs = project is not None and chosen_method(project.settings) != LATTICE
        self.history.clear()
        self.history.set_clean()
        self._unsaved_new = modified
        self._runs_unsaved = False
        self._emit("project")
        self._emit("key")
        # Views of the result, the selection and the pins reset with the project.
        self._emit("result")
        self._emit("transformation")
        self._emit("pinned")
        self._emit("runs")
        self._emit("release")
        self._emit("path")
        self._emit_modified()

    @property
    def has_project(self) -> bool:
        return self.project is not None

    @property
    def data(self) -> pd.DataFrame:
        return self._require().data

    @property
    def definition(self) -> DataDefinition:
        return self._require().definition

    @property
    def hierarchies(self) -> dict[str, Hierarchy]:
        return self._require().hierarchies

    @property
    def settings(self) -> dict[str, Any]:
        return self._require().settings

    @property
    def modified(self) -> bool:
        return self.project is not None and (self._unsaved_new or self._runs_unsaved
                                             or not self.history.is_clean)

    def mark_saved(self, path: Path) -> None:
        """The project was written to ``path``: it is no longer modified."""
        self.path = Path(path)
        self._unsaved_new = False
        self._runs_unsaved = False
        self.history.set_clean()
        self._emit("path")
        self._emit_modified()

    def discard_changes(self) -> None:
        """Forget that anything is unsaved (a script closing its window on purpose)."""
        self.history.clear()
        self._unsaved_new = self._runs_unsaved = False
        self._emit_modified()

    def _emit_modified(self) -> None:
        now = self.modified
        if now != self._last_modified:
            self._last_modified = now
            self._emit("modified", now)

    def _require(self) -> Project:
        if self.project is None:
            raise ConfigurationError("No project is open; open or import one first.")
        return self.project

    # --- undoable edits ------------------------------------------------------------------

    def set_attribute(self, name: str, **changes: Any) -> None:
        """Change fields of one attribute definition (undoable).

        Raises :class:`~arxpy.errors.DefinitionError` for an impossible change, before
        anything is changed.
        """
        old = self.definition
        if changes.get("type") is AttributeType.QUASI_IDENTIFYING:
            self._refuse_protected_quasi_identifier(name)
        new = old.with_attribute(name, **changes)
        if new == old:
            return
        what = ", ".join(k.replace("_", " ") for k in changes)
        text = f"Change {what} of '{name}'"
        plan = self.identifier_plan
        # A treatment belongs to an identifying attribute: another role ends it, in the
        # same undoable step (a pseudonym is never a quasi-identifier).
        ends_treatment = new[name].type is not AttributeType.IDENTIFYING and any(
            t.attribute == name for t in plan.treatments)
        with self.history.macro(text):
            self.history.push(Change(text, self._put_definition, old, new))
            if ends_treatment:
                self.set_identifier_plan(without_attribute(plan, name), text)

    def _refuse_protected_quasi_identifier(self, name: str) -> None:
        # A quasi-identifier cannot also be protected as sensitive: one role would be lost.
        protecting = [spec.get("kind", "?") for spec in self.settings.get("privacy_models", [])
                      if isinstance(spec, dict) and spec.get("attribute") == name]
        if protecting:
            raise DefinitionError(
                f"'{name}' is protected as a sensitive attribute by {', '.join(protecting)}; "
                "an attribute cannot be both quasi-identifying and sensitive. Remove that "
                "privacy model first.")

    def set_hierarchy(self, name: str, hierarchy: Hierarchy | None, text: str = "") -> None:
        """Replace (or with None remove) the hierarchy of attribute ``name`` (undoable)."""
        self.definition[name]  # raises for an unknown attribute
        old = self.hierarchies.get(name)
        if old == hierarchy:
            return

        def put(value: Hierarchy | None) -> None:
            if value is None:
                self.hierarchies.pop(name, None)
            else:
                self.hierarchies[name] = value
            self.revision += 1
            self._emit("hierarchy", name)
            self._check_stale()

        self.history.push(Change(text or f"Edit hierarchy of '{name}'", put, old, hierarchy))

    def set_settings(self, settings: dict[str, Any], text: str = "Change settings") -> None:
        """Replace the privacy/quality/search settings dict (undoable)."""
        old = copy.deepcopy(self.settings)
        new = copy.deepcopy(settings)
        if old != new:
            self.history.push(Change(text, self._put_settings, old, new))

    def update_settings(self, text: str = "Change settings", **changes: Any) -> None:
        """Change some keys of the settings (undoable)."""
        self.set_settings({**self.settings, **changes}, text)

    # --- identifiers: treatments, date shifting and the session's key --------------------

    @property
    def identifier_plan(self) -> IdentifierPlan:
        """The project's identifier plan (empty: identifying attributes are removed)."""
        return plan_of(self.settings) if self.project is not None else IdentifierPlan()

    def set_identifier_plan(self, plan: IdentifierPlan,
                            text: str = "Change identifier treatments") -> None:
        """Replace the plan (undoable); the key's fingerprint is recorded once a key is
        needed and chosen. Raises ConfigurationError for a plan the definition cannot take."""
        plan.check(self.definition)
        fingerprint = recorded_fingerprint(self.settings) or (
            self.pseudonym_key.fingerprint if self.pseudonym_key is not None else None)
        record = plan_record(plan, fingerprint)
        settings = {k: v for k, v in self.settings.items() if k != IDENTIFIERS}
        self.set_settings(settings if record is None else {**settings, IDENTIFIERS: record},
                          text)

    def use_key(self, key: PseudonymKey) -> None:
        """Hold ``key`` for this session; a key other than the project's (by its
        fingerprint) is refused. A plan needing a key records its fingerprint (undoable)."""
        check_key(self.settings, key)
        self.pseudonym_key = key
        self._treated = None
        self._emit("key")
        plan = self.identifier_plan
        if plan.needs_key and recorded_fingerprint(self.settings) is None:
            self.set_identifier_plan(plan, "Record the pseudonym key's fingerprint")

    def release_inputs(self) -> tuple[pd.DataFrame, DataDefinition]:
        """The table and definition every run releases: the data with dates shifted and
        identifiers treated by the project's plan (the data themselves without one).
        Raises ConfigurationError when the plan cannot be applied (no key, ...)."""
        treated = self._treated_inputs()
        if treated is None:
            return self.data, self.definition
        return treated.frame, treated.definition

    def release_hierarchies(self) -> dict[str, Hierarchy]:
        """The hierarchies of :meth:`release_inputs`' table: the project's, plus each
        aggregate's of a patient-level view (unless the project names one)."""
        treated = self._treated_inputs()
        if isinstance(treated, JudgedView):
            return dict(treated.hierarchies)
        return dict(self.hierarchies)

    def _treated_inputs(self) -> Any:
        """The treated table (None: no plan), or with linked tables the patient-level
        view, computed once per revision and key."""
        key = self.pseudonym_key
        stamp = (self.revision, key.fingerprint if key is not None else None)
        if self._treated is None or self._treated[0] != stamp:
            if self.linked is not None and self.events:
                treated = project_view(self.data, self.definition, self.hierarchies,
                                       self.events, self.settings, key, self.patient_table)
                self._keep_view(treated)
                record = treated.identifiers
            else:
                treated = treated_inputs(self.data, self.definition, self.hierarchies,
                                         self.settings, key)
                record = treated.record if treated is not None else None
            self._treated = (stamp, treated)
            if treated is not None:
                self._keep_record(treated.frame, record)
        return self._treated[1]

    def _keep_record(self, frame: pd.DataFrame, record: dict[str, Any] | None) -> None:
        in_use = {id(r.data) for r in self.runs}
        self._identifier_records = {k: v for k, v in self._identifier_records.items()
                                    if k in in_use}
        self._identifier_records[id(frame)] = (frame, record)

    def identifier_record(self, frame: pd.DataFrame) -> dict[str, Any] | None:
        """The identifiers record of a treated table that a run was given (None: the
        table was released without treatments)."""
        kept = self._identifier_records.get(id(frame))
        return kept[1] if kept is not None and kept[0] is frame else None

    def _put_definition(self, definition: DataDefinition) -> None:
        self._require().definition = definition
        self.revision += 1
        self._emit("definition")
        self._check_stale()

    def _put_settings(self, settings: dict[str, Any]) -> None:
        before = chosen_method(self.settings)
        self._require().settings = copy.deepcopy(settings)
        self.revision += 1
        self._emit("settings")
        now = chosen_method(settings)
        if (before == LATTICE) != (now == LATTICE):  # the other family's releases now
            self.show_runs(now != LATTICE)
        self._check_stale()

    # --- policy presets -------------------------------------------------------------------

    def preview_preset(self, name: str, parameters: dict[str, Any] | None = None,
                       analysis: Any = None) -> PresetOutcome:
        """What preset ``name`` would set (rules, roles, hierarchies, models); nothing
        changes. ``analysis``: the HIPAA scan of the data if already made."""
        return apply_preset(name, self.data, self.definition, self.hierarchies,
                            self.settings, plan=self.identifier_plan,
                            parameters=parameters, analysis=analysis)

    def apply_preset(self, outcome: PresetOutcome) -> None:
        """Set what ``outcome`` gives as one undoable step; the settings keep the
        preset's record (every rule with its reason) for reports and recipes."""
        text = f"Apply policy preset '{outcome.name}'"
        fingerprint = recorded_fingerprint(self.settings) or (
            self.pseudonym_key.fingerprint if self.pseudonym_key is not None else None)
        settings = {k: v for k, v in outcome.settings.items() if k != IDENTIFIERS}
        record = plan_record(outcome.plan, fingerprint)
        if record is not None:
            settings[IDENTIFIERS] = record
        with self.history.macro(text):
            if outcome.definition != self.definition:
                self.history.push(Change(text, self._put_definition, self.definition,
                                         outcome.definition))
            for name in sorted(set(self.hierarchies) | set(outcome.hierarchies)):
                self.set_hierarchy(name, outcome.hierarchies.get(name), text)
            self.set_settings(settings, text)

    @property
    def preset_record(self) -> dict[str, Any] | None:
        """The record of the policy preset last applied (None: none)."""
        return self.settings.get(PRESET_SETTING) if self.project is not None else None

    # --- checks before a run -------------------------------------------------------------

    def hierarchy_problems(self, name: str) -> list[HierarchyProblem]:
        """Problems of the hierarchy of ``name`` against its data; [] if usable."""
        return hierarchy_problems(self.data, self.hierarchies, name)

    def config(self, check_hierarchies: bool = True) -> AnonymizationConfig:
        """The settings as a validated configuration; raises an ArxpyError if unusable.

        With ``check_hierarchies``, quasi-identifiers without a usable hierarchy block
        the run (see :func:`check_hierarchies`; the window runs that check on the worker
        thread because it reads every value).
        """
        definition = self.definition
        if not definition.quasi_identifiers:
            raise ConfigurationError(
                "No attribute is quasi-identifying; mark at least one and give it a hierarchy."
            )
        try:
            config = AnonymizationConfig.from_dict(self.settings)
        except TypeError as exc:
            raise ConfigurationError(f"Invalid settings: {exc}.") from None
        if check_hierarchies:  # attributes aggregated without clustering need none
            check_hierarchies_of(self.data, lattice_definition(definition,
                                                               config.microaggregation),
                                 self.hierarchies)
        return config

    def of_type(self, attribute_type: AttributeType) -> list[str]:
        return self.definition.of_type(attribute_type) if self.project else []

    # --- results -------------------------------------------------------------------------

    def set_result(self, result: Result | None, frame: pd.DataFrame | None = None) -> None:
        """A finished anonymization of ``frame`` (None: the data as they are, no
        identifier plan); selects and applies its optimum."""
        self.result = result
        self.result_frame = frame if frame is not None or self.project is None else self.data
        self._result_basis = self._snapshot() if result is not None else None
        best = result.optimum if result is not None else None
        self.selected = self.applied = best.levels if best is not None else None
        self._loose_pins = []  # the previous search's; a run's pins stay with its run
        self.showing_runs = False
        self._emit("result")
        self._emit("transformation")
        self._emit("pinned")  # the lattice views mark the new search's pins
        self._emit("release")

    def fingerprint(self) -> str:
        """A hash of the data and the lattice configuration (see
        :mod:`arxpy.workflows.saved_result`); other methods' parameters do not count."""
        return fingerprint(self.data, self.definition, self.hierarchies,
                           lattice_settings(self.settings))

    def saved_result_record(self) -> dict[str, Any] | None:
        """What the project file keeps of the result; None without a current one."""
        if self.result is None or self._lattice_changes():
            return None
        return record(self.result, self.applied, self.pinned, self.fingerprint())

    def select(self, levels: tuple[int, ...] | None, apply: bool = False) -> None:
        self.selected = levels
        if apply:
            self.applied = levels
        self._emit("transformation")
        if apply:
            self._emit("release")

    # --- staleness: a result describes the configuration it was computed for --------------

    def _snapshot(self) -> ConfigurationSnapshot:
        return ConfigurationSnapshot.of(self.definition, self.hierarchies,
                                        {**lattice_settings(self.settings),
                                         **self._tables_stamp()})

    def _run_snapshot(self, name: str) -> ConfigurationSnapshot:
        # Hierarchies count too: a method may use them, and a false "stale" is safe.
        return ConfigurationSnapshot.of(
            self.definition, self.hierarchies,
            {"parameters": method_parameters(self.settings, name),
             IDENTIFIERS: self.settings.get(IDENTIFIERS), LINKED: self.settings.get(LINKED),
             **self._tables_stamp()})

    def _lattice_changes(self) -> list[str]:
        if self.result is None or self._result_basis is None or self.project is None:
            return []
        return self._result_basis.changes_to(self._snapshot())

    def stale_changes(self) -> list[str]:
        """What changed since the current release was computed ("type of 'Age'", ...);
        [] if current.

        The release stays shown while stale; undoing the edits makes it current again.
        For the lattice search the other methods' parameters do not count, for a method
        run only its own method's parameters do.
        """
        if not self.showing_runs:
            return self._lattice_changes()
        run = self.current_run
        basis = self._run_bases.get(id(run)) if run is not None else None
        if basis is None or self.project is None:
            return []
        return basis.changes_to(self._run_snapshot(run.method.name))

    @property
    def stale(self) -> bool:
        return bool(self.stale_changes())

    def _check_stale(self) -> None:
        if self.result is None and not self.runs:
            return
        self._emit("stale")

    # --- the current release -------------------------------------------------------------

    def current_release(self) -> CurrentRelease | None:
        """What Utility, Risk and Export analyse: the selected method run while
        :attr:`showing_runs`, otherwise the applied transformation (None: nothing yet)."""
        if self.project is None:
            return None
        if self.showing_runs:
            run = self.current_run
            if run is None:
                return None
            return CurrentRelease(run.data, run.definition, dict(self.hierarchies), run=run,
                                  identifiers=self.identifier_record(run.data))
        if self.result is None or self.applied is None:
            return None
        # The result's own table, definition and hierarchies: a stale result stays
        # consistent, and treated identifiers show as released.
        result, frame = self.result, self.result_frame
        return CurrentRelease(frame, result.definition,
                              {**self.hierarchies, **result.hierarchies}, result=result,
                              levels=tuple(self.applied),
                              identifiers=self.identifier_record(frame))
