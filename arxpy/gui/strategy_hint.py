"""Proposing Lightning or the genetic strategy for a lattice too large for the optimal
search (issue 34): an inline hint under Configure's strategy, and a question at Run.
The proposal itself is Qt-free (:mod:`arxpy.workflows.strategy_proposal`)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from arxpy.gui.state import AppState
from arxpy.workflows.strategy_proposal import PROPOSED, StrategyProposal, strategy_proposal


def current_proposal(state: AppState) -> StrategyProposal | None:
    if not state.has_project:
        return None
    return strategy_proposal(state.definition, state.hierarchies, state.settings)


def switch_strategy(state: AppState, proposal: StrategyProposal, strategy: str) -> None:
    """Write the proposed strategy and time limit (one undoable settings edit)."""
    state.set_settings(proposal.settings(state.settings, strategy),
                       f"Use {PROPOSED[strategy]} for a large lattice")


class StrategyHint(QWidget):
    """Shown under the time limit while the lattice is too large for the strategy: what
    is wrong and a button per proposed strategy. It spans the form's two columns (narrow
    at 720 pixels) and, hidden, keeps its room, so nothing below moves."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.proposal: StrategyProposal | None = None
        self.message = QLabel(wordWrap=True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setStyleSheet("color: #8a5300")
        self.buttons = {name: QPushButton() for name in PROPOSED}
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        for name, button in self.buttons.items():
            button.clicked.connect(lambda _checked=False, s=name: self.use(s))
            row.addWidget(button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.message)
        layout.addLayout(row)
        policy = self.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.setSizePolicy(policy)
        for signal in (state.settings_changed, state.definition_changed,
                       state.hierarchy_changed, state.project_changed):
            signal.connect(self.refresh)
        self.refresh()

    def refresh(self, *_args) -> None:
        self.proposal = current_proposal(self.state)
        if self.proposal is not None:
            self.message.setText(f"⚠ {self.proposal.hint}")
            for name, button in self.buttons.items():
                button.setText(self.proposal.button_text(name, short=True))
                button.setToolTip(f"Search with {self.proposal.button_text(name)}")
        self.setVisible(self.proposal is not None)

    def use(self, strategy: str) -> None:
        if self.proposal is not None:
            switch_strategy(self.state, self.proposal, strategy)


def strategy_question(parent: QWidget, proposal: StrategyProposal) -> QMessageBox:
    """The question Run asks (not shown): a button per proposed strategy and Cancel; each
    strategy's button carries its name in the ``strategy`` property."""
    box = QMessageBox(QMessageBox.Icon.Question, "Lattice too large", proposal.text,
                      QMessageBox.StandardButton.Cancel, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    buttons = []
    for name in PROPOSED:
        buttons.append(box.addButton(proposal.button_text(name),
                                     QMessageBox.ButtonRole.AcceptRole))
        buttons[-1].setProperty("strategy", name)
    box.setDefaultButton(buttons[0])  # Lightning: ARX's default best-effort search
    return box


def ask_strategy(parent: QWidget, proposal: StrategyProposal) -> str | None:
    """The strategy the user chose in :func:`strategy_question`, or None (Cancel)."""
    box = strategy_question(parent, proposal)
    box.exec()
    clicked = box.clickedButton()
    return clicked.property("strategy") if clicked is not None else None
