"""What a method's form says beside its fields, computed from the values being typed:
the gradient rule of interval generalisation's target statistic, the privacy caveats
the specifications ask the GUI to show. A hint is a function of the form's values
returning plain text ("" for nothing); a method registers one with
:func:`register_form_hint`. A hint that also needs the project's data (kPB-MS's
discretization preview) registers with :func:`register_data_hint`. A form that needs
more than text beside it (disassociation's risk chart) gets a widget from
:mod:`arxpy.gui.methods.method_panel`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.data.mdl import interval_labels
from arxpy.errors import ArxpyError
from arxpy.methods import method_from_dict
from arxpy.methods.condensation import CAVEAT
from arxpy.methods.disassociation import CAVEAT as DISASSOCIATION_CAVEAT
from arxpy.methods.disassociation.method import COSTLY_M
from arxpy.methods.interval_boxes import IntervalGeneralisation, gradient_rule, parse_target

FormHint = Callable[[Mapping[str, Any]], str]
DataHint = Callable[[Mapping[str, Any], pd.DataFrame, DataDefinition], str]

_HINTS: dict[str, FormHint] = {}
_DATA_HINTS: dict[str, DataHint] = {}

#: The interval specification's caveat (spec 001): boxes are not perturbation.
INTERVAL_CAVEAT = ("Privacy caveat: interval endpoints are real values of the records on the "
                   "boxes' boundaries.")


def register_form_hint(methods: Iterable[str], hint: FormHint) -> None:
    """Show ``hint(values)`` in the forms of ``methods``."""
    for name in methods:
        _HINTS[name] = hint


def register_data_hint(methods: Iterable[str], hint: DataHint) -> None:
    """Show ``hint(values, data, definition)`` below the value hint of ``methods``."""
    for name in methods:
        _DATA_HINTS[name] = hint


def form_hint(method: str, values: Mapping[str, Any], data: pd.DataFrame | None = None,
              definition: DataDefinition | None = None) -> str:
    """The hint for ``method`` with the form's ``values`` and, when given, the project's
    ``data`` ("" if none or not computable)."""
    hints = [lambda: _HINTS[method](values)] if method in _HINTS else []
    if method in _DATA_HINTS and data is not None and definition is not None:
        hints.append(lambda: _DATA_HINTS[method](values, data, definition))
    lines = []
    for hint in hints:
        try:
            lines.append(hint())
        except (ArxpyError, ValueError, KeyError, TypeError):
            pass  # half-typed values: the form's own check explains what is wrong
    return "\n".join(line for line in lines if line)


def interval_hint(values: Mapping[str, Any]) -> str:
    """The gradient rule of the target statistic, which attributes it ignores (they get
    wide intervals), and the caveat."""
    declared = next(p.default for p in IntervalGeneralisation.params if p.name == "statistic")
    target = parse_target(str(values.get("statistic") or declared))
    lines = [f"Gradient rule: {gradient_rule(target)}."]
    ignored = [a for a in values.get("attributes") or () if target.attributes
               and target.kind != "weights" and a not in target.attributes]
    if ignored:
        lines.append(f"Warning: the statistic ignores {', '.join(ignored)}; their intervals "
                     "will be wide.")
    lines.append(INTERVAL_CAVEAT)
    return "\n".join(lines)


def improved_condensation_hint(_values: Mapping[str, Any]) -> str:
    return f"Privacy caveat: {CAVEAT}"


#: What each kind of utility policy keeps together (spec 002 §4; the paper's Table 2).
POLICY_MEANINGS = {
    "none": "no utility constraints (the paper's default is hierarchy:1)",
    "hierarchy": "one constraint per ICD-9-CM group at level {} (1 = 3-digit category, "
                 "2 = section, 3 = chapter) holding the data's codes below it",
    "sim": "consecutive blocks of {} codes in ICD order",
    "sup": "the itemsets in at least {} % of records, made disjoint",
    "file": "the disjoint constraints listed in {}",
}


def disassociation_hint(values: Mapping[str, Any]) -> str:
    """The policy's meaning, the cost warning for large m, what is published, and the
    known weakness."""
    from arxpy.data.utility_policy import parse_policy

    lines = []
    try:
        kind, argument = parse_policy(str(values.get("policy") or "none"))
        lines.append(f"Utility policy: {POLICY_MEANINGS[kind].format(argument)}.")
    except ArxpyError:
        pass  # the form's own check names the problem; the caveat stays
    m = int(values.get("m") or 0)
    if m >= COSTLY_M:
        lines.append(f"Warning: m = {m} counts every itemset of up to {m} codes in each chunk; "
                     "large clusters of long records may take minutes.")
    lines.append(f"Only the codes column '{values.get('codes_column') or '?'}' is published, "
                 "as a document of chunks.")
    lines.append(f"Privacy caveat: {DISASSOCIATION_CAVEAT}")
    return "\n".join(lines)


def kpbms_hint(values: Mapping[str, Any]) -> str:
    """What unticked lists mean, and spec 003's caveat: the class is part of the QI."""
    target = values.get("class_attribute") or "the class"
    lines = []
    if not values.get("qis"):
        lines.append(f"No candidate feature ticked: every attribute but {target} (identifying "
                     "ones excepted) is a candidate.")
    lines.append(f"Privacy caveat: {target} is part of the quasi-identifier; a pattern "
                 "released with a single class discloses it (attribute disclosure).")
    return "\n".join(lines)


#: Most cells a discretization preview reads while the user types (more: at the run).
PREVIEW_CELLS = 2_000_000
#: The last preview: (data, definition, settings) -> text (typing elsewhere is free).
_PREVIEW: dict[tuple, str] = {}


def kpbms_cuts_hint(values: Mapping[str, Any], data: pd.DataFrame,
                    definition: DataDefinition) -> str:
    """The cut points the run will use and the categories they make (spec 003 §7)."""
    method = method_from_dict({"name": "kpbms", **values})
    if method.discretize == "none":
        return ""
    key = (id(data), id(definition), method.class_attribute, method.discretize,
           method.bins, method.continuous, method.qis)
    if key not in _PREVIEW:
        if data.size > PREVIEW_CELLS:
            return "Cut points: computed when the method runs (large data)."
        cuts = method.cut_points(data, definition)
        _PREVIEW.clear()
        _PREVIEW[key] = cuts_text(cuts, method.discretize, method.bins)
    return _PREVIEW[key]


#: Most records a policy preview counts itemsets of while the user types.
PREVIEW_RECORDS = 20_000


def disassociation_preview_hint(values: Mapping[str, Any], data: pd.DataFrame,
                                definition: DataDefinition) -> str:
    """Before the run (spec 002 §6): the constraints the utility policy makes on these
    codes (the records at risk are in the risk chart beside the form)."""
    from arxpy.data.utility_policy import policy_constraints

    method = method_from_dict({"name": "disassociation", **values})
    if method.policy == "none":
        return ""  # the policy's own line already says: no constraints
    key = ("disassociation", id(data), id(definition), method.codes_column, method.delimiter,
           method.multiset, method.policy)
    if key not in _PREVIEW:
        if len(data) > PREVIEW_RECORDS:
            return ("Policy constraints: shown after the run (large data; see the run's "
                    "MRE table).")
        sets = method.read_codes(data)
        _PREVIEW.clear()
        _PREVIEW[key] = constraints_text(policy_constraints(method.policy, sets),
                                         len(sets.vocabulary))
    return _PREVIEW[key]


def constraints_text(constraints: Sequence[Sequence[str]], codes: int, most: int = 3) -> str:
    """Plain text: how many constraints, the codes they cover, the first ``most``."""
    if not constraints:
        return "Policy preview: no constraints (codes are grouped by support alone)."
    covered = len({c for constraint in constraints for c in constraint})
    largest = max(len(c) for c in constraints)
    shown = "; ".join("{" + ", ".join(list(c)[:5]) + (", …" if len(c) > 5 else "") + "}"
                      for c in constraints[:most])
    more = f" and {len(constraints) - most:,} more" if len(constraints) > most else ""
    return (f"Policy preview: {len(constraints):,} constraints over {covered:,} of {codes:,} "
            f"codes (largest {largest}): {shown}{more}.")


def cuts_text(cuts: Mapping[str, Any], how: str, bins: int, most: int = 6) -> str:
    """Plain text: per discretized attribute (at most ``most``) its cuts and the
    categories they make, then the attributes without a cut on one line."""
    title = "MDL (Fayyad-Irani)" if how == "mdl" else f"equal frequency, {bins} bins"
    if not cuts:
        return f"Cut points ({title}): no attribute is continuous."
    cut = [(name, points) for name, points in cuts.items() if len(points)]
    lines = [f"{name}: cuts {', '.join(f'{c:g}' for c in points)} → "
             f"{', '.join(interval_labels(points))}" for name, points in cut[:most]]
    if len(cut) > most:
        lines.append(f"… and {len(cut) - most} more attributes with cuts")
    uncut = [name for name, points in cuts.items() if not len(points)]
    if uncut:  # PB-FSS never selects a single category
        lines.append(f"No cut (one category, never selected): {', '.join(uncut)}")
    return f"Cut points ({title}):\n" + "\n".join(lines)


register_form_hint(["intervals"], interval_hint)
register_form_hint(["disassociation"], disassociation_hint)
register_form_hint(["kpbms"], kpbms_hint)
register_form_hint(["improved-condensation"], improved_condensation_hint)
register_data_hint(["kpbms"], kpbms_cuts_hint)
register_data_hint(["disassociation"], disassociation_preview_hint)

