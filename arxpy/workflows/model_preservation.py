"""The condensation compare workflow, without Qt (Gal et al. 2014, §2.0; spec §6).

A method, and the sibling methods it is compared with, run R times with seeds
seed..seed+R-1 at each k; the recipient's declared models are then fitted on the
original and on every repetition. ``arxpy compare-models`` and the GUI's Model
preservation view both run their methods through :class:`Repetitions`; the view's
variants come from :func:`method_variants` and are compared by
:func:`model_preservation_job`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from arxpy.analysis.condensation_report import input_order, preservation_by_method, released_mask
from arxpy.analysis.model_preservation import ModelPreservation, ModelSpec, analysed_covariates
from arxpy.data.definition import DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, Progress
from arxpy.methods.base import Method
from arxpy.methods.registry import method_classes

#: The condensation family, in the order the compare mode lists them.
CONDENSATION_METHODS = ("improved-condensation", "condensation", "tfrp", "mdav")
#: What the compare mode offers: the family and the paper's k-anonymity baseline.
COMPARED_METHODS = (*CONDENSATION_METHODS, "k-anonymity-baseline")


@dataclass
class RepeatedTables:
    """The anonymized tables of one method at one k (or given files), in input order,
    with what produced them: the method's parameters as it ran (its seed aside), each
    run's seed and the seconds spent anonymizing (None when not known)."""

    label: str
    k: int | None = None
    tables: list[pd.DataFrame] = field(default_factory=list)
    seconds: float | None = None
    parameters: dict[str, Any] | None = None
    seeds: list[int | None] = field(default_factory=list)


class Repetitions(RepeatedTables):
    """seed -> the table of ``method`` run with that seed, in input order, kept with
    what produced it.

    A method without a seed is deterministic: it runs once and its table stands for
    every repetition (the same object, so the models are fitted once). With
    ``released_only`` the suppressed records are left out of the tables (the GUI's
    view: the recipient's models never see them); otherwise they stay as ``*`` rows.
    """

    def __init__(self, method: Method, data: pd.DataFrame, definition: DataDefinition, *,
                 label: str | None = None, k: int | None = None, released_only: bool = False,
                 cancel: CancelToken | None = None) -> None:
        super().__init__(label or method.label, k)
        self.method = method
        self._data, self._definition = data, definition
        self._released_only, self._cancel = released_only, cancel

    @property
    def seeded(self) -> bool:
        return "seed" in self.method.get_params()

    def __call__(self, seed: int) -> pd.DataFrame:
        if self.tables and not self.seeded:
            self.tables.append(self.tables[0])
            return self.tables[0]
        params = self.method.get_params()
        settings = {**params, "seed": seed} if self.seeded else params
        release = type(self.method)(**settings).run(self._data, self._definition,
                                                    cancel=self._cancel)
        table = input_order(release)  # conditional privacy pairs by position (spec §3)
        if self._released_only:
            table = table.loc[released_mask(release)].reset_index(drop=True)
        self.tables.append(table)
        self.seconds = (self.seconds or 0.0) + release.elapsed_seconds
        self.seeds.append(release.seed)
        if self.parameters is None:  # as JSON holds them (tuples as lists, numbers plain)
            plain = json.loads(json.dumps(dict(release.parameters), default=str))
            self.parameters = {k: v for k, v in plain.items() if k != "seed"}
        return table


def sibling_method(method: Method, name: str, analyses: Sequence[ModelSpec],
                   columns: Sequence[str] = ()) -> Method:
    """Method ``name`` with ``method``'s shared settings (k, generator, kinds ...).

    Improved condensation needs a survival time: it comes from ``method`` when that is
    improved condensation too, else from the first declared Cox analysis (spec §6: the
    declarations set the defaults). The k-anonymity baseline generalizes the declared
    analyses' covariates (the outcomes stay as they are), as ``compare-models`` does.
    """
    cls = method_classes()[name]
    own = method.get_params()
    names = {p.name for p in cls.params}
    params = {key: value for key, value in own.items() if key in names}
    if "time" in names and not params.get("time"):
        cox = next((a for a in analyses if a.type == "cox"), None)
        if cox is None:
            raise ConfigurationError(
                "Improved condensation needs a survival time: declare a Cox analysis, "
                "or leave improved condensation out of the comparison.")
        params.update(time=cox.time, status=cox.event, event_value=cox.event_value)
    if "quasi_identifiers" in names and not params.get("quasi_identifiers"):
        order = list(columns) or list(dict.fromkeys(c for a in analyses for c in a.covariates))
        params["quasi_identifiers"] = analysed_covariates(analyses, order)
    return cls(**params)


def method_variants(method: Method, analyses: Sequence[ModelSpec], columns: Sequence[str],
                    compare_with: Sequence[str] = (), ks: Sequence[int] = (),
                    label: str | None = None) -> dict[str, Method]:
    """``method`` and its siblings named in ``compare_with``, each at ``method``'s k or
    at each of ``ks`` (labelled ``"<label>, k=K"`` then)."""
    methods = {label or method.label: method}
    for name in compare_with:
        if name != method.name:
            sibling = sibling_method(method, name, analyses, columns)
            methods[sibling.label] = sibling
    ks = list(dict.fromkeys(ks)) or [method.k]
    variants = {}
    for name, each in methods.items():
        for k in ks:
            key = name if ks == [method.k] else f"{name}, k={k}"
            variants[key] = type(each)(**{**each.get_params(), "k": k})
    return variants


def model_preservation_job(method: Method, data: pd.DataFrame, definition: DataDefinition,
                           analyses: Sequence[ModelSpec], repeats: int, seed: int,
                           compare_with: Sequence[str] = (), alpha: float = 0.05, *,
                           ks: Sequence[int] = (), label: str | None = None,
                           progress: Progress | None = None,
                           cancel: CancelToken | None = None) -> dict[str, ModelPreservation]:
    """The run's method (and the methods in ``compare_with``) at the run's k or at each
    of ``ks``, repeated ``repeats`` times with seeds seed..seed+R-1, the analyses
    compared on each over the released records (the compare mode of spec §6)."""
    for k in dict.fromkeys(ks or [method.k]):
        if not 1 <= k <= len(data):
            raise ConfigurationError(f"k = {k} is not between 1 and the {len(data)} records.")
    variants = method_variants(method, analyses, list(data.columns), compare_with, ks, label)
    runs = {key: Repetitions(each, data, definition, label=key, released_only=True,
                             cancel=cancel) for key, each in variants.items()}
    return preservation_by_method(data, runs, analyses, repeats, seed, alpha,
                                  progress=progress, cancel=cancel)
