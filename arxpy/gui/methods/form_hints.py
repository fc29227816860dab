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
register_form_hint(["kpbms"], kpbms_hint)
register_form_hint(["improved-condensation"], improved_condensation_hint)
