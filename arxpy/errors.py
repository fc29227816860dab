"""The one exception family for errors a user can cause.

Every message is written for the person at the keyboard: it names the file, line,
attribute or value at fault and says what to change. The GUI shows the message in a
dialog, the CLI prints it on one line and exits non-zero.
"""

from __future__ import annotations


class ArxpyError(Exception):
    """Base class of every error a user can cause (bad file, bad setting, ...)."""


class DataImportError(ArxpyError):
    """A data file or table could not be read as asked."""


class DataExportError(ArxpyError):
    """A table could not be written."""


class DefinitionError(ArxpyError):
    """Attribute definitions are inconsistent with the data or with each other."""


class HierarchyError(ArxpyError):
    """A generalization hierarchy is malformed or does not fit the data."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        #: Individual problems, one readable sentence each (for lists in the GUI).
        self.problems: list[str] = list(problems or [])


class ProjectError(ArxpyError):
    """A project file could not be read or written."""


class ConfigurationError(ArxpyError):
    """Privacy, quality or search settings are impossible for this data."""


class CancelledError(ArxpyError):
    """A job was cancelled by the user; nothing it produced is kept."""
