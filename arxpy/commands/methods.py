"""``arxpy methods``: the anonymization methods and their declared parameters."""

from __future__ import annotations

import argparse
import json

from arxpy.errors import ConfigurationError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "methods", help="list the anonymization methods and their parameters",
        description="Every anonymization method with its parameters: kind, range or "
        "choices, default, unit and what it does.")
    parser.add_argument("name", nargs="?", help="show only this method")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arxpy.methods import method_classes

    classes = method_classes()
    if args.name is not None and args.name not in classes:
        raise ConfigurationError(
            f"Unknown method '{args.name}'. Known: {', '.join(sorted(classes))}.")
    chosen = [classes[args.name]] if args.name else [classes[n] for n in sorted(classes)]
    if args.json:
        print(json.dumps([c.describe() for c in chosen], indent=2))
        return 0
    for cls in chosen:
        print(f"{cls.name}: {cls.label}")
        print(f"  {cls.description}")
        if cls.guidance:
            print(f"  When: {cls.guidance}")
        if cls.reference:
            print(f"  Reference: {cls.reference}")
        for param in cls.params:
            print("  " + _param_line(param))
        print()
    return 0


def _param_line(param) -> str:
    allowed = ", ".join(map(str, param.choices)) if param.choices else param.range_text()
    parts = [f"{param.name} ({param.kind}{', ' + allowed if allowed else ''}"
             f"{', ' + param.unit if param.unit else ''})"]
    if not param.required:
        shown = json.dumps(param.default) if param.kind in ("objects", "object") else \
            param.default
        parts.append(f"default {shown}")
    if param.help:
        parts.append(param.help)
    if param.step:
        parts.append(f"[{param.step}]")
    return " - ".join(parts)
