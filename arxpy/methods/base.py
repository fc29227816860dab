"""The protocol every anonymization method keeps (scikit-learn's estimator shape).

A method is a small class: its parameters are declared once (:attr:`Method.params`,
see :mod:`arxpy.params`), the constructor only checks and stores them, and
:meth:`Method.run` does the work as a job and returns a :class:`~arxpy.release.Release`
or, for search-based methods, a result holding candidate releases (``release(...)``).
The declaration drives validation, ``arxpy methods``, CLI options
(:func:`arxpy.methods.options.add_param_options`), GUI forms and project-file checks.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress
from arxpy.params import Parameterized
from arxpy.release import Release

#: How a release's table rows relate to the input records (see :meth:`Method.row_order`).
ROW_ORDERS = ("input", "shuffled", "unlinked")


class HoldsReleases(Protocol):
    """What a search-based method returns: candidates, each available as a release."""

    def release(self, levels: Any = None) -> Release: ...


class Method(Parameterized, ABC):
    """Base class of anonymization methods."""

    #: Key in the registry, project files and the CLI, e.g. ``"generalization"``.
    name: ClassVar[str]
    #: Display name.
    label: ClassVar[str]
    #: What the method promises, in one sentence.
    description: ClassVar[str]
    #: The paper the method implements ("" for ARX's own).
    reference: ClassVar[str] = ""
    #: When a custodian would choose it, in plain words (help and ``arxpy methods``).
    guidance: ClassVar[str] = ""
    #: A baseline other methods are compared with rather than a way to publish (the
    #: method selector lists it last and says so).
    comparison_baseline: ClassVar[bool] = False

    @classmethod
    def owner_name(cls) -> str:
        return f"Method '{cls.name}'"

    @abstractmethod
    def run(self, data: pd.DataFrame, definition: DataDefinition, *,
            hierarchies: Mapping[str, Hierarchy] | None = None,
            progress: Progress | None = None,
            cancel: CancelToken | None = None) -> Release | HoldsReleases:
        """Anonymize ``data`` (a job: ``progress(fraction, message)``, cancellable)."""

    def row_order(self) -> str:
        """How the release's rows relate to the input records, one of :data:`ROW_ORDERS`:
        ``"input"`` (row i stands for input record i), ``"shuffled"`` (one row per record
        in another order; ``Release.input_rows()`` says which) or ``"unlinked"`` (rows
        stand for no single record; ``input_rows()`` is None). The conformance battery
        (:mod:`arxpy.methods.conformance`) holds a method to what it says here."""
        return "input"

    def to_dict(self) -> dict[str, Any]:
        """``{"name": ..., parameters}`` as stored in project files."""
        return {"name": self.name, **self.get_params()}

    @classmethod
    def describe(cls) -> dict[str, Any]:
        """Name, label, description (as ``summary``) and declared parameters (JSON-able)."""
        return {"name": cls.name, "label": cls.label, "summary": cls.description,
                "guidance": cls.guidance, "reference": cls.reference,
                "params": cls.describe_params()}
