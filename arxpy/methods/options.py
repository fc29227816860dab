"""Command-line options from declared parameters: one ``--name`` option per parameter.

Values arrive as text; :func:`params_from_args` parses numbers, booleans, lists and
JSON objects by the declared kind and leaves range checks to the declaration itself, so
the CLI reports a bad value with the same message as a project file or the GUI.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from arxpy.errors import ConfigurationError
from arxpy.params import Param


def option_name(param: Param) -> str:
    return "--" + param.name.replace("_", "-")


def add_param_options(parser: argparse.ArgumentParser, params: Sequence[Param], *,
                      prefix: str = "") -> None:
    """Add one option per parameter, with its help, range, unit and default. A parameter
    whose option the parser already has (a method's ``delimiter`` beside the data's) gets
    ``--PREFIX-NAME`` instead."""
    taken = {option for action in parser._actions for option in action.option_strings}
    for param in params:
        details = [param.help] if param.help else []
        if param.choices:
            details.append("one of " + ", ".join(map(str, param.choices)))
        elif param.range_text():
            details.append(param.range_text())
        if param.unit:
            details.append(f"in {param.unit}")
        if not param.required and param.default is not None:
            shown = json.dumps(param.default) if param.kind in ("objects", "object") else \
                param.default
            details.append(f"default {shown}")
        option = option_name(param)
        if option in taken and prefix:
            option = f"--{prefix}-{param.name.replace('_', '-')}"
        aliases = [a for a in param.aliases if a not in taken]
        parser.add_argument(option, *aliases, dest=f"param_{param.name}", metavar=_metavar(param),
                            default=None,  # argparse formats help with %: "2 %" is "2 %%"
                            help="; ".join(details).replace("%", "%%") or None)


def _metavar(param: Param) -> str:
    return {"int": "N", "float": "X", "bool": "yes|no", "attributes": "A,B,...",
            "objects": "JSON", "object": "JSON", "mapping": "JSON"}.get(param.kind, "VALUE")


def params_from_args(args: argparse.Namespace, params: Sequence[Param]) -> dict[str, Any]:
    """The parameters given on the command line, parsed by kind (unchecked)."""
    out: dict[str, Any] = {}
    for param in params:
        text = getattr(args, f"param_{param.name}", None)
        if text is not None:
            out[param.name] = parse_value(param, text)
    return out


def parse_value(param: Param, text: str) -> Any:
    """``text`` read as ``param``'s kind; what does not parse is passed on as text so the
    declaration's check names the setting and what is expected."""
    text = text.strip()
    if param.kind == "int":
        try:
            return int(text)
        except ValueError:
            return text
    if param.kind == "float":
        try:
            return float(text)
        except ValueError:
            return text
    if param.kind == "bool":
        lowered = text.lower()
        return {"yes": True, "true": True, "1": True, "no": False, "false": False,
                "0": False}.get(lowered, text)
    if param.kind == "attributes":
        return [name.strip() for name in text.split(",") if name.strip()]
    if param.kind in ("objects", "object", "mapping"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigurationError(
                f"{option_name(param)}: cannot read {text!r} as JSON ({exc.msg}).") from None
    return text


def option_text(param: Param, value: Any) -> str:
    """``value`` written as the text of ``param``'s option: the inverse of
    :func:`parse_value` (``yes``/``no``, ``A,B``, JSON for settings objects)."""
    if param.kind == "bool":
        return "yes" if value else "no"
    if param.kind == "float":
        return repr(float(value))
    if param.kind == "attributes":
        return ",".join(value)
    if param.kind in ("objects", "object", "mapping"):
        return json.dumps(value)
    return str(value)
