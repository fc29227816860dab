"""The main window: menus, toolbar, the four perspectives, status bar and log panel.

Without a project it shows the start page. The window owns the application state,
the autosave and the anonymization worker; the perspectives only observe the state.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QStyle,
    QTabWidget,
    QWidget,
)

from arxpy.engine.microaggregation import lattice_definition
from arxpy.errors import ArxpyError, HierarchyError
from arxpy.gui.autosave import Autosave
from arxpy.gui.configure import ConfigurePerspective
from arxpy.gui.explore import ExplorePerspective
from arxpy.gui.folders import pick_path
from arxpy.gui.help import help_button, help_window
from arxpy.gui.key_actions import PseudonymKeyActions
from arxpy.gui.log_panel import LogPanel
from arxpy.gui.message_lines import ElidedLine
from arxpy.gui.methods.explore_switch import ExploreSwitch
from arxpy.gui.methods.run_actions import MethodRunActions, kept_runs
from arxpy.gui.methods.runs_page import RunsPage
from arxpy.gui.plain_text import escaped, plain_label
from arxpy.gui.project_actions import ProjectActions
from arxpy.gui.risk import RiskPerspective
from arxpy.gui.start_page import StartPage
from arxpy.gui.state import AppState
from arxpy.gui.strategy_hint import ask_strategy, current_proposal, switch_strategy
from arxpy.gui.utility import UtilityPerspective
from arxpy.gui.workers import JobProgressBar, JobWorker, ViewJob
from arxpy.help import Topic, perspective_topic
from arxpy.project import Project
from arxpy.workflows.method_choice import is_lattice
from arxpy.workflows.saved_result import mismatch, reopen, transformations
from arxpy.workflows.session import check_hierarchies_of
from arxpy.workflows.staleness import describe

log = logging.getLogger(__name__)

PERSPECTIVES = ("Configure", "Explore", "Utility", "Risk")
#: Room the window manager's title bar and frame take (not part of the window's size).
TITLE_BAR = 32
#: Share of a large screen's available area the window first takes.
SCREEN_SHARE = 0.85
#: The smallest screen arxpy is laid out for; a larger window is not needed to use it.
LAPTOP_SCREEN = (1280, 720)


def initial_size(available: tuple[int, int]) -> tuple[int, int]:
    """The window's first size for a screen whose free area (without panels and docks)
    is ``available`` pixels: most of a large screen, all of a small one, never more
    than the free area (the title bar included)."""
    width, height = available[0], available[1] - TITLE_BAR
    wanted = (max(int(width * SCREEN_SHARE), LAPTOP_SCREEN[0]),
              max(int(height * SCREEN_SHARE), LAPTOP_SCREEN[1]))
    return min(wanted[0], width), min(wanted[1], height)


def checked_anonymize(frame, definition, hierarchies, config, progress, cancel):
    """The run job: :func:`arxpy.engine.anonymize` with complete hierarchy errors (no Qt)."""
    from arxpy.engine.anonymizer import anonymize

    # The engine checks every hierarchy as it encodes; only when one fails is the data
    # read again, to list every problem of every attribute rather than the first.
    try:
        return anonymize(frame, definition, hierarchies, config, progress=progress,
                         cancel=cancel)
    except HierarchyError:
        check_hierarchies_of(frame, lattice_definition(definition, config.microaggregation),
                             hierarchies)
        raise


class MainWindow(QMainWindow):
    """The application window; ``project`` opens it directly."""

    def __init__(self, project: Project | None = None, *, settings: QSettings | None = None,
                 recovery_dir: Path | None = None) -> None:
        super().__init__()
        self._fit_to_screen()
        self.state = AppState(self)
        self.settings = settings if settings is not None else QSettings()
        self.state.max_runs = kept_runs(self.settings)
        self.autosave = Autosave(self.state, recovery_dir, parent=self)
        # Beside the recovery copies: the key sealing saved releases to this installation.
        self.state.sealing_key_file = self.autosave.directory / "sealing.key"
        # The window's run: a lattice search, a saved result being reopened, or a method.
        self.run_job = ViewJob(self)
        self.run_job.progress.connect(self._progress)
        self.run_job.failed.connect(self._failed)
        self.run_job.cancelled.connect(self._cancelled)
        self._run_revision = -1
        self._run_frame = None  # the (treated) table the running search was given
        #: The saved result being restored by the running search (see restore_saved_result).
        self._restoring: dict | None = None
        self._running = False
        self.projects = ProjectActions(self)
        self.method_runs = MethodRunActions(self)
        self.keys = PseudonymKeyActions(self)
        self._build_central()
        self.log_panel = LogPanel(self)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.log_panel)
        self.resizeDocks([self.log_panel], [120], Qt.Orientation.Vertical)
        self.log_panel.hide()
        self._build_status_bar()
        self._build_actions()
        self._build_menus()
        self._build_toolbar()
        self.state.project_changed.connect(self._project_changed)
        self.state.modified_changed.connect(lambda _m: self._update_title())
        self.state.path_changed.connect(self._update_title)
        self.state.result_changed.connect(self._update_actions)
        self.state.linked_changed.connect(self._update_actions)
        self.state.result_changed.connect(self._show_staleness)
        self.state.stale_changed.connect(self._show_staleness)
        self.state.release_changed.connect(self._show_staleness)
        self.configure.method_panel.method_changed.connect(self.method_runs.method_chosen)
        self.projects.refresh_recent()
        self.state.set_project(project)

    @property
    def project(self) -> Project | None:
        return self.state.project

    # --- construction --------------------------------------------------------------------

    def _build_central(self) -> None:
        self.start_page = StartPage()
        self.start_page.open_example.connect(self.projects.open_example)
        self.start_page.import_data.connect(self.projects.import_data)
        self.start_page.open_project.connect(self.projects.open_project)
        self.start_page.open_recent.connect(self.projects.open_project)
        self.configure = ConfigurePerspective(self.state)
        panel = self.configure.identifier_panel
        panel.choose_key_requested.connect(lambda: self.keys.choose())
        panel.create_key_requested.connect(lambda: self.keys.create())
        self.configure.anonymize_requested.connect(self.anonymize)
        self.explore = ExplorePerspective(self.state)
        self.runs_page = RunsPage(self.state)
        self.runs_page.export_requested.connect(lambda: self.projects.export_data())
        self.utility = UtilityPerspective(self.state)
        self.risk = RiskPerspective(self.state)
        self._tabs = QTabWidget(documentMode=True)
        # Explore shows the lattice or, for other methods, the list of runs.
        explore = ExploreSwitch(self.state, self.explore, self.runs_page)
        for name, widget in zip(PERSPECTIVES, (self.configure, explore, self.utility,
                                               self.risk), strict=True):
            self._tabs.addTab(widget, name)
        # Beside the perspectives' tabs: says the result shown no longer matches the
        # configuration. In the tab row it takes no height of its own, so it neither
        # pushes the perspective down nor raises the window's minimum height.
        self.stale_banner = ElidedLine()
        self.stale_banner.setStyleSheet("background: #fff3cd; color: #6b4e00; padding: 2px 8px;"
                                        " border: 1px solid #e0c36a; border-radius: 3px")
        self.stale_banner.hide()
        corner = QWidget()
        corner_layout = QHBoxLayout(corner)
        corner_layout.setContentsMargins(8, 2, 4, 2)
        corner_layout.addWidget(self.stale_banner)
        self.help_button = help_button(self.current_topic, "Help on this perspective (F1)")
        corner_layout.addWidget(self.help_button)
        self._tabs.setCornerWidget(corner, Qt.Corner.TopRightCorner)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.start_page)
        self.stack.addWidget(self._tabs)
        self.setCentralWidget(self.stack)

    def _fit_to_screen(self) -> None:
        """Open at :func:`initial_size` of the screen's available area, centred on it."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return
        available = screen.availableGeometry()
        width, height = initial_size((available.width(), available.height()))
        self.resize(width, height)
        self.move(available.x() + (available.width() - width) // 2,
                  available.y() + max((available.height() - height - TITLE_BAR) // 2, 0))

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.progress = JobProgressBar(maximumWidth=220, textVisible=True)
        self.progress_label = plain_label(QLabel())
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the anonymization; nothing it found is kept")
        self.cancel_button.clicked.connect(self.cancel)
        for widget in (self.progress_label, self.progress, self.cancel_button):
            bar.addPermanentWidget(widget)
            widget.hide()

    def _action(self, text: str, slot, shortcut=None, icon=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
        if icon is not None:
            action.setIcon(self.style().standardIcon(icon))
        action.setStatusTip(tip)
        action.setToolTip(tip or text.replace("&", "").rstrip("…"))
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def _build_actions(self) -> None:
        sp, p = QStyle.StandardPixmap, self.projects
        self.actions_by_name: dict[str, QAction] = {
            "new": self._action("&New", p.new_project, QKeySequence.StandardKey.New,
                                sp.SP_FileIcon, "Close the project and return to the start page"),
            "open": self._action("&Open project…", p.open_project, QKeySequence.StandardKey.Open,
                                 sp.SP_DialogOpenButton, "Open an .arxpy project"),
            "example": self._action("Open &example", p.open_example, None, None,
                                    "Open the bundled patient-discharge example"),
            "import": self._action("&Import data…", p.import_data, "Ctrl+I", sp.SP_ArrowDown,
                                   "Import a CSV file, an Excel sheet or a SQLite table"),
            "save": self._action("&Save", p.save, QKeySequence.StandardKey.Save,
                                 sp.SP_DialogSaveButton, "Save the project"),
            "save_as": self._action("Save &as…", p.save_as, QKeySequence.StandardKey.SaveAs),
            "export": self._action("&Export anonymized data…", p.export_data, "Ctrl+E",
                                   sp.SP_DialogApplyButton, "Write the current release (applied "
                                   "transformation or method run) to CSV or Excel"),
            "large_file": self._action("Anonymize a &large file…", self.anonymize_large_file,
                                       None, None, "Run this configuration on a CSV or "
                                       "Parquet file too large to open, with DuckDB or Spark"),
            "export_recipe": self._action("Export re&cipe…", self.export_recipe, None, None,
                                          "Write the current release's recipe (no data) "
                                          "to apply it to the next extract"),
            "apply_recipe": self._action("A&pply recipe to new data…", self.apply_recipe,
                                         None, None, "Replay a recipe on a new extract, "
                                         "or see why it is refused"),
            "add_linked": self._action("Add linked &tables…",
                                       lambda: self.configure.linked_panel.choose_files(),
                                       None, None, "Add event tables (CSV) linked to this "
                                       "patient table by a patient identifier"),
            "linked_tables": self._action("Release &linked tables…", self.release_linked,
                                          None, None, "Release this patient table with "
                                          "event tables linked by a patient identifier"),
            "choose_key": self._action("Choose pseudonym &key…", lambda: self.keys.choose(),
                                       None, None, "Read the key of keyed pseudonyms and "
                                       "date shifts from its key file, for this session"),
            "create_key": self._action("Create key &file…", lambda: self.keys.create(), None,
                                       None, "Create a new pseudonym key file (a lost key "
                                       "means new, unlinkable pseudonyms)"),
            "apply_preset": self._action("Apply policy &preset…", self.apply_preset, None,
                                         None, "HIPAA Safe Harbor, Expert Determination or "
                                         "a pseudonymised release: see each rule and why, "
                                         "then apply them as one step"),
            "quit": self._action("&Quit", self.close, QKeySequence.StandardKey.Quit),
            "anonymize": self._action("&Anonymize", self.anonymize, "Ctrl+R", sp.SP_MediaPlay,
                                      "Search for the best transformation"),
            "cancel": self._action("&Cancel run", self.cancel, None, sp.SP_MediaStop,
                                   "Stop the running anonymization"),
            "help": self._action("&Help on this perspective", self.show_help,
                                 QKeySequence.StandardKey.HelpContents, None,
                                 "What the current perspective shows and how to use it"),
            "glossary": self._action("&Glossary", lambda: help_window(self).show_glossary(),
                                     None, None, "The terms of de-identification in plain "
                                     "words"),
            "about": self._action("&About arxpy", self.about),
        }
        stack = self.state.undo_stack
        self.undo_action = stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.redo_action = stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcut(QKeySequence.StandardKey.Redo)

    def _build_menus(self) -> None:
        a = self.actions_by_name
        file_menu = self.menuBar().addMenu("&File")
        for key in ("new", "open", "example", "import"):
            file_menu.addAction(a[key])
        self.recent_menu = file_menu.addMenu("Open &recent")
        file_menu.addSeparator()
        for key in ("save", "save_as", "export", "large_file"):
            file_menu.addAction(a[key])
        file_menu.addSeparator()
        for key in ("export_recipe", "apply_recipe", "add_linked", "linked_tables"):
            file_menu.addAction(a[key])
        file_menu.addSeparator()
        for key in ("choose_key", "create_key"):
            file_menu.addAction(a[key])
        file_menu.addSeparator()
        file_menu.addAction(a["quit"])
        edit_menu = self.menuBar().addMenu("&Edit")
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(self.redo_action)
        edit_menu.addSeparator()
        edit_menu.addAction(a["apply_preset"])
        view_menu = self.menuBar().addMenu("&View")
        log_action = self.log_panel.toggleViewAction()
        log_action.setText("&Log panel")
        view_menu.addAction(log_action)
        view_menu.addSeparator()
        for i, name in enumerate(PERSPECTIVES):
            view_menu.addAction(self._action(f"&{name}", lambda i=i: self.show_perspective(i),
                                             f"Ctrl+{i + 1}"))
        run_menu = self.menuBar().addMenu("&Run")
        run_menu.addAction(a["anonymize"])
        run_menu.addAction(a["cancel"])
        help_menu = self.menuBar().addMenu("&Help")
        for key in ("help", "glossary"):
            help_menu.addAction(a[key])
        help_menu.addSeparator()
        help_menu.addAction(a["about"])

    def _build_toolbar(self) -> None:
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("main-toolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toolbar.setMovable(False)
        a = self.actions_by_name
        # Short fixed labels here; the Edit menu names the edit being undone.
        stack = self.state.undo_stack
        undo = self._action("Undo", stack.undo, None, QStyle.StandardPixmap.SP_ArrowBack)
        redo = self._action("Redo", stack.redo, None, QStyle.StandardPixmap.SP_ArrowForward)
        for action, signal, now in ((undo, stack.canUndoChanged, stack.canUndo()),
                                    (redo, stack.canRedoChanged, stack.canRedo())):
            action.setEnabled(now)
            signal.connect(action.setEnabled)
        self._history_actions = ((self.undo_action, undo, stack.canUndo),
                                 (self.redo_action, redo, stack.canRedo))
        for item in ("new", "open", "save", "import", None, undo, redo, None, "anonymize",
                     "cancel", None, "export"):
            if item is None:
                toolbar.addSeparator()
            else:
                toolbar.addAction(a[item] if isinstance(item, str) else item)

    # --- state -----------------------------------------------------------------------------

    def set_project(self, project: Project | None, path: Path | None = None,
                    modified: bool = False) -> None:
        """Show ``project`` (None: the start page) without asking about unsaved changes."""
        self.state.set_project(project, path, modified)

    def _project_changed(self) -> None:
        has = self.state.has_project
        self.stack.setCurrentIndex(1 if has else 0)
        if has:
            self._tabs.setCurrentIndex(0)
            records, columns = self.state.data.shape
            self.statusBar().showMessage(f"{records:,} records, {columns} attributes")
        else:
            self.statusBar().showMessage("Open the example, import data or open a project.")
        self._update_title()
        self._update_actions()

    def _update_title(self) -> None:
        if not self.state.has_project:
            self.setWindowTitle("arxpy")
            return
        where = f" ({self.state.path.name})" if self.state.path else ""
        marker = "*" if self.state.modified else ""
        self.setWindowTitle(f"{marker}{self.state.project.name}{where} — arxpy")

    def _update_actions(self) -> None:
        has, running = self.state.has_project, self._running
        a = self.actions_by_name
        for key in ("save", "save_as", "new", "choose_key", "create_key", "apply_preset",
                    "add_linked"):
            a[key].setEnabled(has and not running)
        a["anonymize"].setEnabled(has and not running)
        # A project with linked tables of its own releases them through Export.
        a["linked_tables"].setEnabled(not (has and self.state.events))
        a["cancel"].setEnabled(running)
        releasable = self.state.current_release() is not None and not self.state.stale
        a["export"].setEnabled(releasable)
        a["export_recipe"].setEnabled(releasable)
        for menu_action, tool_action, possible in getattr(self, "_history_actions", ()):
            for action in (menu_action, tool_action):  # no undo while a run uses the state
                action.setEnabled(possible() and not running)
        self.configure.set_editable(not running)

    def _show_staleness(self) -> None:
        """Mark a result whose configuration was edited since; undo makes it current again."""
        changes = self.state.stale_changes()
        self.stale_banner.setVisible(bool(changes))
        self._update_actions()
        if changes:
            text = (f"The result shown is stale: {describe(changes)} changed since it was "
                    "computed. Anonymize again (Ctrl+R), or undo to return to it.")
            self.stale_banner.setText(f"⚠ The result is stale: {describe(changes)} changed "
                                      "since it was computed. Anonymize again (Ctrl+R) or undo.")
            self.statusBar().showMessage(text)
        elif self.state.showing_runs:
            current = self.state.current_release()
            self.statusBar().showMessage(f"Showing {current.label}" if current else
                                         "No method run yet: press Run (Ctrl+R).")
        elif self.state.result is not None:
            self.statusBar().showMessage(self._result_message(self.state.result))

    @staticmethod
    def _result_message(result) -> str:
        best = result.optimum
        return (f"Optimum {list(best.levels)} found in {result.elapsed_seconds:.2f} s"
                if best else "No transformation meets the privacy models")

    def show_perspective(self, index: int) -> None:
        if self.state.has_project:
            self._tabs.setCurrentIndex(index)

    def current_perspective(self) -> str:
        return PERSPECTIVES[self._tabs.currentIndex()] if self.state.has_project else "Start"

    def current_topic(self) -> Topic:
        return perspective_topic(self.current_perspective())

    def show_help(self) -> None:
        help_window(self).show_topic(self.current_topic())

    # --- running -------------------------------------------------------------------------

    def anonymize(self) -> JobWorker | None:
        """Start the engine on a worker thread; returns the worker (None if not started).

        Settings are checked here; hierarchies (which reads every value) on the worker,
        so that a large table does not stall the window.
        """
        if self.worker is not None or not self.state.has_project:
            return None
        self.configure.method_panel.commit()  # a pending edit belongs to this run
        if not is_lattice(self.state.settings):
            return self.run_method()
        config = self._lattice_config()
        if config is not None and (proposal := current_proposal(self.state)) is not None:
            # The engine would refuse this lattice: offer the timed strategies instead.
            strategy = ask_strategy(self, proposal)
            if strategy is None:
                return None
            switch_strategy(self.state, proposal, strategy)
            config = self._lattice_config()
        if config is None:
            return None
        models = ", ".join(m.describe() for m in config.privacy_models)
        log.info("Anonymization started: %s", models)
        return self._start_job(checked_anonymize, config)

    def _lattice_config(self):
        """The lattice search's configuration with pending settings committed, or None
        after telling the user what is missing."""
        self.configure.settings_panel.commit()
        try:
            self.state.release_inputs()  # treatments that cannot apply stop here
            return self.state.config(check_hierarchies=False)
        except ArxpyError as exc:
            self.error("Cannot anonymize yet", str(exc))
            return None

    def _start_job(self, function, config, **kwargs) -> JobWorker:
        """Run ``function`` (a search, or reopening a saved result) on a worker thread;
        its Result arrives in :meth:`_finished`."""
        state = self.state
        frame, definition = state.release_inputs()  # checked by the callers
        self._run_frame = frame
        return self.start_run(function, self._finished, "Anonymizing…", frame=frame,
                              definition=definition,
                              hierarchies=state.release_hierarchies(), config=config,
                              **kwargs)

    def start_run(self, function, finished, message: str, **kwargs) -> JobWorker:
        """Start the window's run (progress and Cancel in the status bar); ``finished``
        takes its result; a failure or cancel is reported here."""
        self._run_revision = self.state.revision
        worker = self.run_job.start(function, on_finished=finished, **kwargs)
        self._show_running(True)
        self.progress_label.setText(message)
        self.statusBar().clearMessage()  # no word of an earlier run during this one
        return worker

    @property
    def worker(self) -> JobWorker | None:
        """The running run's worker (None when nothing runs)."""
        return self.run_job.worker

    def anonymize_large_file(self):
        """File > Anonymize a large file…: the dialog with this project's configuration
        (returned, shown non-modally; None without a project or a valid configuration)."""
        from arxpy.gui.large_file import LargeFileDialog

        if not self.state.has_project:
            return None
        config = self._lattice_config()
        if config is None:
            return None
        dialog = LargeFileDialog(self.state.definition, dict(self.state.hierarchies), config,
                                 self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def export_recipe(self):
        """File > Export recipe…: the dialog for the current release (returned, shown
        non-modally; None when there is no current release)."""
        from arxpy.gui.recipe_dialogs import ExportRecipeDialog

        current = self.state.current_release()
        if current is None or self.state.stale:
            return None
        dialog = ExportRecipeDialog(current, self.state.definition, self,
                                    preset=self.state.preset_record, data=self.state.data)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.statusBar().showMessage(
            f"Recipe written: {', '.join(p.name for p in dialog.written[:1])}"
            f"{' and its hierarchies' if len(dialog.written) > 1 else ''}.", 8000))
        dialog.show()
        return dialog

    def apply_preset(self):
        """Edit > Apply policy preset…: the dialog (returned, modal when shown by the
        menu; None without a project)."""
        from arxpy.gui.preset_dialog import PresetDialog

        if not self.state.has_project or self._running:
            return None
        dialog = PresetDialog(self.state, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.statusBar().showMessage(
            f"Policy preset applied: {dialog.outcome.record()['label']} "
            f"({len(dialog.outcome.rules)} rules).", 8000))
        dialog.show()
        return dialog

    def apply_recipe(self):
        """File > Apply recipe to new data…: the replay dialog (returned, non-modal),
        with this session's pseudonym key for recipes that need one."""
        from arxpy.gui.recipe_dialogs import ApplyRecipeDialog

        dialog = ApplyRecipeDialog(self.state.pseudonym_key, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def release_linked(self):
        """File > Release linked tables…: the dialog (returned, non-modal) over this
        project's table, plan and pseudonym key."""
        from arxpy.gui.linked_dialog import LinkedTablesDialog

        dialog = LinkedTablesDialog(self.state, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def run_method(self) -> JobWorker | None:
        """Run the chosen method (not the lattice search) on a worker thread; its
        release joins the state's runs. Returns the worker (None if not started)."""
        return self.method_runs.start()

    def restore_saved_result(self) -> JobWorker | None:
        """Bring back the result saved in the project without searching: a worker
        encodes the data, rebuilds the result and checks the saved optimum, applied and
        pinned transformations again; then they are applied and pinned. A record that
        no longer fits is not used. Returns the worker (None if nothing is restored)."""
        saved = self.state.project.saved_result if self.state.has_project else None
        if not saved or self.worker is not None:
            return None
        why = mismatch(saved, self.state.fingerprint())
        if why is None and not is_lattice(self.state.settings):
            # The saved result is the lattice search's; Run now starts the chosen method.
            why = "it belongs to the lattice search, and another method is chosen"
        try:
            if why is None:
                self.state.release_inputs()  # e.g. the pseudonym key was not chosen
            config = None if why else self.state.config(check_hierarchies=False)
        except ArxpyError as exc:
            why = str(exc).rstrip(".")
        if why is not None:
            self._not_restored(f"The saved result was not restored: {why}. Anonymize again.")
            return None
        self._restoring = saved
        worker = self._start_job(reopen, config, saved=saved)
        self.progress_label.setText("Restoring the saved result…")
        return worker

    def _not_restored(self, message: str) -> None:
        log.warning("%s", message)
        self.statusBar().showMessage(message)

    def _restore(self, saved: dict, result) -> str:
        """Apply and pin what was saved; the status message saying what happened."""
        for levels in transformations(saved, "applied"):
            self.state.select(levels, apply=True)
        for levels in transformations(saved, "pinned")[:self.state.MAX_PINNED]:
            self.state.pin(levels)
        return f"Restored the saved result: {self._result_message(result)}"

    def cancel(self) -> None:
        if self.run_job.running:
            self.run_job.cancel()
            self.progress_label.setText("Cancelling…")

    def stop_run(self, timeout: float = 5.0) -> None:
        """End the running anonymization now: its late signals are no longer heard."""
        worker = self.worker
        if worker is None:
            return
        self.run_job.forget()
        worker.wait(timeout)
        self._restoring = None
        log.info("Anonymization cancelled")
        self._end_run()

    def _show_running(self, running: bool) -> None:
        for widget in (self.progress_label, self.progress, self.cancel_button):
            widget.setVisible(running)
        self._running = running
        self.progress.setValue(0)
        self.progress_label.setText("Anonymizing…" if running else "")
        self._update_actions()

    def _progress(self, percent: int, message: str) -> None:
        self.progress.setValue(percent)
        self.progress_label.setText(message)

    def _end_run(self) -> None:
        self._show_running(False)

    def _finished(self, result) -> None:
        restoring, self._restoring = self._restoring, None
        self._end_run()
        if self.state.revision != self._run_revision:  # edited (undo) while running
            self.statusBar().showMessage("The configuration changed during the run; "
                                         "anonymize again.")
            return
        self.state.set_result(result, self._run_frame)
        text = self._result_message(result)
        log.info("Anonymization finished: %s", text)
        if restoring is not None:
            text = self._restore(restoring, result)
        else:
            self._keep_lattice_run(result)
        self.statusBar().showMessage(text)
        self._update_actions()
        self.show_perspective(1)

    def _keep_lattice_run(self, result) -> None:
        """The search's optimum joins the list of runs (with its candidates), so the
        optima of several searches (k = 5, k = 10) stay side by side with other methods'
        runs, and Compare and the project file take them like any run."""
        if result.optimum is None:
            return
        from arxpy.methods import Generalization
        from arxpy.workflows.runs import MethodRun, lattice_run_label

        state = self.state
        label = lattice_run_label(result.config, [r.label for r in state.runs])
        state.add_run(MethodRun(Generalization.from_config(result.config), result.release(),
                                state.result_frame, result.definition, label, result=result),
                      select=False)

    def _failed(self, message: str) -> None:
        restoring, self._restoring = self._restoring, None
        self._end_run()
        if restoring is not None:  # the project opened; only its saved result is refused
            self._not_restored(message)
            return
        log.warning("Anonymization failed: %s", message)
        self.statusBar().showMessage("Anonymization failed")
        self.error("Anonymization failed", message)

    def _cancelled(self) -> None:
        self._restoring = None
        self._end_run()
        log.info("Anonymization cancelled")
        self.statusBar().showMessage("Anonymization cancelled; nothing was kept.")

    # --- dialogs and closing -------------------------------------------------------------

    def error(self, title: str, message: str) -> None:
        """Show a user error (never a traceback)."""
        QMessageBox.critical(self, title, escaped(message))  # data values stay text

    def about(self) -> None:
        from arxpy.gui.app import versions

        rows = "".join(f"<tr><td>{name}</td><td>&nbsp;{version}</td></tr>"
                       for name, version in versions().items())
        QMessageBox.about(self, "About arxpy",
                          "<b>arxpy</b> — de-identification workbench for health data, in the "
                          f"style of ARX.<br><br><table>{rows}</table>")

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        if not self.projects.confirm_discard("quitting"):
            event.ignore()
            return
        if self.run_job.running:
            self.run_job.cancel()
            self.run_job.wait(2.0)
        self.autosave.remove()
        self.log_panel.detach()
        event.accept()

    def pick_file(self, save: bool, title: str, filters: str, start: str = "",
                  kind: str = "projects") -> str:
        """A file chosen in a dialog ("" if cancelled), starting in the last folder of
        ``kind`` (see :mod:`arxpy.gui.folders`); one place for tests to replace."""
        return pick_path(self, kind, save, title, filters, start)
