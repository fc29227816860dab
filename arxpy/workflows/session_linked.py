"""The linked tables of a session (issue 32; no Qt).

:class:`LinkedOfSession` is the part of :class:`arxpy.workflows.session.Session` that
holds the project's event tables and their choices (``settings["linked"]``, see
:mod:`arxpy.workflows.linked_project`) as undoable edits, and keeps the patient-level
views runs were given so that a release of one is projected back onto every table. It
relies on the session for the project, the history, the settings and ``_emit``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from arxpy.errors import ConfigurationError
from arxpy.workflows.commands import Change
from arxpy.workflows.linked_project import LinkedSettings, linked_of, with_linked
from arxpy.workflows.linked_release import JudgedView, LinkedRelease

if TYPE_CHECKING:
    from arxpy.project import Project
    from arxpy.workflows.commands import CommandStack
    from arxpy.workflows.current_release import CurrentRelease
    from arxpy.workflows.runs import MethodRun

#: Why a release cannot go out as linked tables: it is not a release of the current
#: patient-level view (made before the tables or their settings changed).
STALE_LINKED_RELEASE = ("Anonymize again: the release is not of the project's linked "
                        "tables.")


class LinkedOfSession:
    """Event tables, their choices and the views judged of them."""

    project: Project | None
    history: CommandStack
    runs: list[MethodRun]
    result_frame: pd.DataFrame | None
    revision: int
    #: The patient-level views runs were given, by the view table's id (the table is
    #: kept alongside so the id stays its own): what an export projects back.
    _views: dict[int, JudgedView]

    def _keep_view(self, view: JudgedView) -> None:
        in_use = {id(r.data) for r in self.runs} | {id(self.result_frame)}
        self._views = {k: v for k, v in self._views.items() if k in in_use}
        self._views[id(view.frame)] = view

    @property
    def events(self) -> dict[str, pd.DataFrame]:
        """The project's event tables by name (empty: none)."""
        return self.project.events if self.project is not None else {}

    @property
    def linked(self) -> LinkedSettings | None:
        """How the event tables link and what the view judges (None: no linked tables)."""
        return linked_of(self.settings) if self.project is not None else None

    @property
    def patient_table(self) -> str:
        """The patient table's name in releases and reports: the project's name."""
        return self._require().name

    def set_linked_tables(self, events: dict[str, pd.DataFrame],
                          linked: LinkedSettings | None, text: str) -> None:
        """Replace the event tables and their choices as one undoable step (no tables:
        no choices)."""
        if events and linked is None:
            raise ConfigurationError("Choose the link column of the linked tables.")
        with self.history.macro(text):
            old = dict(self.events)
            if list(old) != list(events) or any(old[n] is not events[n] for n in old):
                self.history.push(Change(text, self._put_events, old, dict(events)))
            self.set_settings(with_linked(self.settings, linked if events else None), text)

    def set_linked(self, linked: LinkedSettings, text: str = "Change linked tables") -> None:
        """Change the link column, the aggregates or the shifted event dates (undoable)."""
        if not self.events:
            raise ConfigurationError("The project holds no linked tables; add one first.")
        self.set_settings(with_linked(self.settings, linked), text)

    def _put_events(self, events: dict[str, pd.DataFrame]) -> None:
        self._require().events = dict(events)
        self.revision += 1
        self._emit("linked")
        self._check_stale()

    def linked_release(self, current: CurrentRelease) -> LinkedRelease | None:
        """Every table as ``current`` (a release of a patient-level view) says: a
        suppressed patient left out of every table (None: not a view's release)."""
        view = self.linked_view(current)
        return view.released(current.release()) if view is not None else None

    def linked_view(self, current: CurrentRelease) -> JudgedView | None:
        """The patient-level view ``current`` is a release of (None: not a view's
        release): what an export projects back onto every table, in its own thread
        (``view.released(current.release())``), with the tables before treatment that
        a re-identification table reverses to (``view.original``)."""
        view = self._views.get(id(current.frame))
        return view if view is not None and view.frame is current.frame else None

    def _tables_stamp(self) -> dict[str, Any]:
        # Event tables are replaced, never changed in place, so their ids tell them apart.
        return {"linked_tables": [(n, id(f)) for n, f in self.events.items()]} \
            if self.events else {}
