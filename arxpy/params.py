"""Parameters declared once: validation, CLI options, GUI forms and project schemas.

A class lists its parameters as :class:`Param` declarations (name, kind, default, range
or choices, unit, one-line help, the paper step it belongs to). :class:`Parameterized`
turns that list into a constructor that checks every value with a message naming the
owner, the setting and what to change, into ``get_params``/``clone`` (scikit-learn's
protocol: a run works on clones, so nothing it prepares leaks into the user's object),
and into a JSON-able description that the CLI, the GUI and project-file checks read.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from arxpy.errors import ConfigurationError
from arxpy.formatting import plain

#: The kinds a parameter can have.
KINDS = ("int", "float", "bool", "choice", "attribute", "attributes", "text", "mapping",
         "objects", "object")


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: Default of a parameter that must be given.
REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Param:
    """One declared parameter.

    ``low``/``high`` bound numbers (``low_open``/``high_open`` exclude the bound);
    ``choices`` lists the allowed values of a "choice"; ``optional`` admits None (a
    parameter that may be left out). A required parameter (no default) may carry a
    ``suggested`` value for forms: a privacy model's strength (k, l, t, ...) is never
    filled in silently. ``label`` names the parameter for people and in
    messages about choices ("entropy estimator"); ``step`` cites the paper step.
    """

    name: str
    kind: str
    default: Any = REQUIRED
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[Any, ...] = ()
    optional: bool = False
    unit: str = ""
    help: str = ""
    label: str = ""
    step: str = ""
    #: Where a required parameter starts in a form (a project file must still give it).
    suggested: Any = None
    #: ``reads_files(value)``: the files a value names that a run reads (a policy's
    #: ``file:U.json``), so the command line never writes an output over them.
    reads_files: Callable[[Any], list[Any]] | None = field(default=None, compare=False,
                                                            repr=False)
    #: For attributes: the data types that fit (``DataKind`` values; empty: any). Forms
    #: offer only fitting attributes.
    data_types: tuple[str, ...] = ()
    #: For attributes: column names (lower case) that name the role; a form may suggest
    #: the one column named so, and says it did.
    named_like: tuple[str, ...] = ()
    #: For attribute lists: the order is part of the value (an importance order), so a
    #: form lists the chosen ones first, in order, and lets rows be dragged.
    ordered: bool = False
    #: Further command-line option names, for contracts older than the declaration
    #: (``--gs-factor`` beside ``--local-recoding-gs-factor``).
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Unknown parameter kind {self.kind!r}")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def title(self) -> str:
        return self.label or self.name

    def range_text(self) -> str:
        """The allowed range in words, e.g. "between 0 and 1" or "positive"."""
        low, high = self.low, self.high
        if low is None and high is None:
            return ""
        if high is None:
            if low == 0 and self.low_open:
                return "positive"
            return f"{'above' if self.low_open else 'at least'} {plain(low)}"
        if low is None:
            return f"{'below' if self.high_open else 'at most'} {plain(high)}"
        if not self.low_open and not self.high_open:
            return f"between {plain(low)} and {plain(high)}"
        return (f"{'above' if self.low_open else 'at least'} {plain(low)} and "
                f"{'below' if self.high_open else 'at most'} {plain(high)}")

    def check(self, value: Any, owner: str) -> Any:
        """``value`` converted to this parameter's kind; ConfigurationError if it cannot be."""
        if value is None and self.optional:
            return None
        checker = _CHECKS[self.kind]
        return checker(self, value, owner)

    def _in_range(self, value: float, owner: str, what: str) -> None:
        low, high = self.low, self.high
        below = low is not None and (value <= low if self.low_open else value < low)
        above = high is not None and (value >= high if self.high_open else value > high)
        if below or above or (isinstance(value, float) and math.isnan(value)):
            raise ConfigurationError(
                f"{owner}: {self.name} must be {what}{self.range_text()}, got {value!r}.")

    def describe(self) -> dict[str, Any]:
        """A JSON-able description (for ``arxpy methods`` and project-file checks)."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if not self.required:
            out["default"] = self.default
        for key in ("low", "high", "unit", "help", "label", "step", "suggested"):
            value = getattr(self, key)
            if value not in (None, ""):
                out[key] = value
        if self.low_open or self.high_open:
            out["open"] = [self.low_open, self.high_open]
        if self.choices:
            out["choices"] = list(self.choices)
        if self.data_types:
            out["data_types"] = list(self.data_types)
        if self.optional:
            out["optional"] = True
        return out


def _check_int(param: Param, value: Any, owner: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer | float | np.floating):
        raise ConfigurationError(
            f"{owner}: {param.name} must be a whole number, got {value!r}.")
    if isinstance(value, float | np.floating):
        if not float(value).is_integer():
            raise ConfigurationError(
                f"{owner}: {param.name} must be a whole number, got {value!r}.")
    value = int(value)
    param._in_range(value, owner, "a whole number " if param.range_text() else "")
    return value


def _check_float(param: Param, value: Any, owner: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ConfigurationError(f"{owner}: {param.name} must be a number, got {value!r}.")
    value = float(value)
    if not math.isfinite(value):  # no setting means "infinite"; JSON cannot hold it either
        range_text = param.range_text()
        raise ConfigurationError(
            f"{owner}: {param.name} must be a finite number"
            f"{' ' + range_text if range_text else ''}, got {value!r}.")
    param._in_range(value, owner, "")
    return value


def _check_bool(param: Param, value: Any, owner: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise ConfigurationError(
            f"{owner}: {param.name} must be true or false, got {value!r}.")
    return bool(value)


def _check_choice(param: Param, value: Any, owner: str) -> Any:
    if value not in param.choices:
        shown = ", ".join(str(c) for c in param.choices)
        raise ConfigurationError(
            f"{owner}: Unknown {param.title} {value!r}; use one of {shown}.")
    return value


def _check_attribute(param: Param, value: Any, owner: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigurationError(
            f"{owner} needs the name of {param.help or 'an attribute'} for {param.name}, "
            f"got {value!r}.")
    return value


def _check_attributes(param: Param, value: Any, owner: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence) or \
            not all(isinstance(v, str) and v for v in value):
        raise ConfigurationError(
            f"{owner}: {param.name} must be a list of attribute names, got {value!r}.")
    twice = sorted({name for name in value if list(value).count(name) > 1})
    if twice:  # a name given twice would count or publish the attribute twice
        raise ConfigurationError(
            f"{owner}: {param.name} names '{twice[0]}' more than once; list each "
            "attribute once.")
    return tuple(value)


def _check_text(param: Param, value: Any, owner: str) -> str:
    if not isinstance(value, str):
        raise ConfigurationError(f"{owner}: {param.name} must be text, got {value!r}.")
    return value


def _check_mapping(param: Param, value: Any, owner: str) -> dict[str, Any]:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise ConfigurationError(
            f"{owner}: {param.name} must map attribute names to values, got {value!r}.")
    return dict(value)


def _check_objects(param: Param, value: Any, owner: str) -> list[dict[str, Any]]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence) or \
            not all(isinstance(v, Mapping) for v in value):
        raise ConfigurationError(
            f"{owner}: {param.name} must be a list of settings objects, got {value!r}.")
    return [dict(v) for v in value]


def _check_object(param: Param, value: Any, owner: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigurationError(
            f"{owner}: {param.name} must be a settings object, got {value!r}.")
    return dict(value)


_CHECKS = {"int": _check_int, "float": _check_float, "bool": _check_bool,
           "choice": _check_choice, "attribute": _check_attribute,
           "attributes": _check_attributes, "text": _check_text, "mapping": _check_mapping,
           "objects": _check_objects, "object": _check_object}


def check_params(params: Sequence[Param], values: Mapping[str, Any], owner: str
                 ) -> dict[str, Any]:
    """Every declared parameter's checked value (defaults filled in).

    Raises ConfigurationError naming an unknown setting, a missing one, or a bad value.
    """
    declared = {p.name: p for p in params}
    unknown = [name for name in values if name not in declared]
    if unknown:
        known = ", ".join(declared) or "none"
        raise ConfigurationError(
            f"{owner}: unknown setting {unknown[0]!r}; its settings are {known}.")
    out: dict[str, Any] = {}
    for param in params:
        if param.name in values:
            out[param.name] = param.check(values[param.name], owner)
        elif param.required:
            raise ConfigurationError(f"{owner}: give {param.name} ({param.help or param.kind}).")
        else:  # a copy, so no instance shares a mutable default
            out[param.name] = copy.deepcopy(param.default)
    return out


class Parameterized:
    """A class whose constructor takes exactly its declared :attr:`params`.

    Positional arguments follow the declaration order. Subclasses check combinations
    of parameters in :meth:`check_together`; the constructor stores values and nothing
    else (per-run state belongs to clones, see :meth:`clone`).
    """

    params: ClassVar[tuple[Param, ...]] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        owner = self.owner_name()
        if len(args) > len(self.params):
            raise ConfigurationError(
                f"{owner} takes {len(self.params)} settings, got {len(args)}.")
        for param, value in zip(self.params, args, strict=False):
            if param.name in kwargs:
                raise ConfigurationError(f"{owner}: {param.name} is given twice.")
            kwargs[param.name] = value
        for name, value in check_params(self.params, kwargs, owner).items():
            setattr(self, name, value)
        self.check_together()

    @classmethod
    def owner_name(cls) -> str:
        """How messages name this class (e.g. "t-closeness")."""
        return cls.__name__

    def check_together(self) -> None:
        """Raise ConfigurationError for parameter combinations that cannot work."""

    def get_params(self) -> dict[str, Any]:
        """The declared parameters and their values."""
        return {p.name: getattr(self, p.name) for p in self.params}

    def clone(self) -> Parameterized:
        """A fresh, unprepared instance with the same parameters."""
        return type(self)(**self.get_params())

    @classmethod
    def describe_params(cls) -> list[dict[str, Any]]:
        return [p.describe() for p in cls.params]


def drawn_seed() -> int:
    """A fresh seed for a run given none (methods, the command line and the GUI's export
    draw it the same way), so its report can say how to repeat the run."""
    return int(np.random.SeedSequence().generate_state(1)[0])


def value_in_words(value: Any) -> str:
    """A parameter's value as a reader wants it: yes/no, "none", lists joined, numbers
    plain (never Python's ``True``, ``None`` or ``{}``)."""
    if value is None:
        return "none"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {value_in_words(v)}" for k, v in value.items()) or "none"
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(value_in_words(v) for v in value) or "none"
    if isinstance(value, float | np.floating):
        return plain(float(value))
    return str(value)


def parameters_in_words(params: Sequence[Param], values: Mapping[str, Any]) -> str:
    """``"k: 10 · seed: 791276373 · shuffle output: yes"``: each value under its declared
    label (or its name in words), with its unit."""
    declared = {param.name: param for param in params}
    parts = []
    for name, value in values.items():
        param = declared.get(name)
        title = param.label if param is not None and param.label else name.replace("_", " ")
        unit = param.unit if param is not None and isinstance(value, int | float) \
            and not isinstance(value, bool) else ""
        parts.append(f"{title}: {value_in_words(value)}{' ' + unit if unit else ''}")
    return " · ".join(parts)
