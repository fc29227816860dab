"""Which method a project runs, and with what parameters, as kept in its settings (no Qt).

The lattice search keeps its settings at the top level of ``project.settings`` (privacy
models, quality model, suppression, strategy), as before methods existed. Every other
method keeps its parameters under ``method_parameters[name]``, so switching between
methods never loses what was typed; ``method`` names the chosen one (absent: the
lattice search). Both keys are part of the settings, hence saved and undoable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arxpy.methods import method_classes, method_from_dict
from arxpy.methods.base import Method
from arxpy.params import value_in_words

#: The method the Configure perspective's privacy and search panels configure.
LATTICE = "generalization"
LATTICE_LABEL = "Generalization (ARX lattice)"
METHOD_KEY = "method"
PARAMETERS_KEY = "method_parameters"
#: Settings keys that belong to other methods, not to the lattice search.
METHOD_KEYS = (METHOD_KEY, PARAMETERS_KEY)
#: How the runs are compared (classifier target and bins): saved with the project, part
#: of no run's configuration.
COMPARE_KEY = "compare"


@dataclass(frozen=True)
class MethodChoice:
    """One entry of the method selector."""

    name: str
    label: str
    description: str


def selectable_methods() -> list[MethodChoice]:
    """The lattice search first, then every other registered method by label, the
    comparison baselines last and named as such."""
    classes = method_classes()
    lattice = classes[LATTICE]
    others = sorted((cls for name, cls in classes.items() if name != LATTICE),
                    key=lambda cls: (cls.comparison_baseline, cls.label.lower()))
    return [MethodChoice(LATTICE, LATTICE_LABEL, lattice.description)] + [
        MethodChoice(cls.name, _choice_label(cls), cls.description) for cls in others]


def _choice_label(cls: type[Method]) -> str:
    return f"{cls.label}: comparison baseline" if cls.comparison_baseline else cls.label


def chosen_method(settings: Mapping[str, Any]) -> str:
    """The name of the chosen method (the lattice search if none is named). It may name
    a method this installation does not know (a project from a newer arxpy): running it
    then fails with a message naming the known methods, instead of silently searching."""
    return str(settings.get(METHOD_KEY) or LATTICE)


def is_lattice(settings: Mapping[str, Any]) -> bool:
    return chosen_method(settings) == LATTICE


def method_parameters(settings: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The parameters kept for method ``name`` ({} if none were set)."""
    kept = settings.get(PARAMETERS_KEY) or {}
    return dict(kept.get(name) or {}) if isinstance(kept, Mapping) else {}


def with_parameters(settings: Mapping[str, Any], name: str,
                    parameters: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` with the parameters of ``name`` replaced (other methods' kept)."""
    kept = dict(settings.get(PARAMETERS_KEY) or {})
    kept[name] = dict(parameters)
    return {**settings, PARAMETERS_KEY: kept}


def lattice_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The settings the lattice search depends on (the other methods' keys left out)."""
    return {k: v for k, v in settings.items() if k not in (*METHOD_KEYS, COMPARE_KEY)}


def build_method(settings: Mapping[str, Any], name: str | None = None) -> Method:
    """The chosen (or named) non-lattice method with its kept parameters.

    Raises ConfigurationError with the method's own message naming a bad parameter.
    """
    name = name or chosen_method(settings)
    return method_from_dict({"name": name, **method_parameters(settings, name)})


def key_parameters(method: Method, limit: int = 4) -> str:
    """The parameters that differ from their defaults, e.g. ``"k=10, seed=3"``; a
    lattice search's settings in words (``"5-anonymity; Loss; 2 % suppression"``)."""
    if hasattr(method, "config") and method.name == "generalization":
        config = method.config()
        local = [f"local recoding {config.local_recoding} passes"] \
            if config.local_recoding else []
        return "; ".join([*(m.describe() for m in config.privacy_models),
                          config.quality_model.label,
                          f"{100 * config.suppression_limit:g} % suppression", *local])
    shown = []
    for param in method.params:
        value = getattr(method, param.name)
        if not param.required and value == param.default and param.name != "k":
            continue  # k always shows: it is what a reader compares first
        if isinstance(value, list | tuple):
            value = ",".join(value_in_words(v) for v in value)
        shown.append(f"{param.name}={value_in_words(value)}")
    more = len(shown) - limit
    return ", ".join(shown[:limit]) + (f" (+{more})" if more > 0 else "")
