"""What a method's form says beside its fields, computed from the values being typed:
the gradient rule of interval generalisation's target statistic, the privacy caveats
the specifications ask the GUI to show. A hint is a function of the form's values
returning plain text ("" for nothing); a method registers one with
:func:`register_form_hint`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from arxpy.errors import ArxpyError
from arxpy.methods.condensation import CAVEAT
from arxpy.methods.disassociation import CAVEAT as DISASSOCIATION_CAVEAT
from arxpy.methods.disassociation.method import COSTLY_M
from arxpy.methods.interval_boxes import gradient_rule, parse_target

FormHint = Callable[[Mapping[str, Any]], str]

_HINTS: dict[str, FormHint] = {}

#: The interval specification's caveat (spec 001): boxes are not perturbation.
INTERVAL_CAVEAT = ("Privacy caveat: interval endpoints are real values of the records on the "
                   "boxes' boundaries.")


def register_form_hint(methods: Iterable[str], hint: FormHint) -> None:
    """Show ``hint(values)`` in the forms of ``methods``."""
    for name in methods:
        _HINTS[name] = hint


def form_hint(method: str, values: Mapping[str, Any]) -> str:
    """The hint for ``method`` with the form's ``values`` ("" if none or not computable)."""
    hint = _HINTS.get(method)
    if hint is None:
        return ""
    try:
        return hint(values)
    except (ArxpyError, ValueError, KeyError, TypeError):
        return ""  # half-typed values: the form's own check explains what is wrong


def interval_hint(values: Mapping[str, Any]) -> str:
    """The gradient rule of the target statistic, which attributes it ignores (they get
    wide intervals), and the caveat."""
    target = parse_target(str(values.get("statistic") or "uniform"))
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
    lines.append(f"Only the codes column '{values.get('codes_column') or '?'}' is published "
                 "(as a document of chunks); the other columns are not part of the release.")
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


register_form_hint(["intervals"], interval_hint)
register_form_hint(["disassociation"], disassociation_hint)
register_form_hint(["kpbms"], kpbms_hint)
register_form_hint(["improved-condensation"], improved_condensation_hint)
