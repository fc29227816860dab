"""``arxpy anonymize``: search the lattice from the command line, write data and a report.

Attributes given with ``--hierarchy`` are quasi-identifiers, unless also named as
sensitive (``--sensitive``, ``--ldiversity``, ``--tcloseness``), in which case the
hierarchy serves hierarchical t-closeness. Every other attribute is insensitive unless
named with ``--identifying`` or ``--sensitive``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from arxpy.errors import ConfigurationError

METRICS = ("loss", "dm", "aecs", "entropy", "precision", "height", "kl", "classification")
STRATEGIES = ("optimal", "exhaustive", "heuristic")
L_KINDS = {"distinct": "distinct-l-diversity", "entropy": "entropy-l-diversity",
           "recursive": "recursive-cl-diversity"}
T_DISTANCES = ("equal", "hierarchical", "ordered")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "anonymize", help="find the best anonymous transformation of a table",
        description="Search the generalization lattice for the transformation with the best "
        "quality that meets the privacy models; write the data and a JSON report.")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--project", type=Path, metavar="FILE", help="an .arxpy project")
    source.add_argument("--data", type=Path, metavar="CSV", help="the data as CSV")
    parser.add_argument("--delimiter", metavar="C",
                        help="field delimiter of the data and hierarchy files (default: "
                        "detected for the data, ';' for hierarchies)")
    parser.add_argument("--hierarchy", action="append", default=[], metavar="ATTR=FILE",
                        help="a generalization hierarchy (ARX CSV); makes ATTR a quasi-identifier")
    parser.add_argument("--sensitive", action="append", default=[], metavar="ATTR")
    parser.add_argument("--identifying", action="append", default=[], metavar="ATTR",
                        help="removed from the output")
    parser.add_argument("--k", type=int, metavar="K", help="k-anonymity")
    parser.add_argument("--ldiversity", action="append", default=[],
                        metavar="ATTR:distinct:L | ATTR:entropy:L | ATTR:recursive:C:L")
    parser.add_argument("--tcloseness", action="append", default=[],
                        metavar="ATTR:equal:T | ATTR:hierarchical:T | ATTR:ordered:T")
    parser.add_argument("--suppression", type=float, metavar="FRACTION",
                        help="largest fraction of records that may be suppressed (default 0)")
    parser.add_argument("--metric", choices=METRICS, help="quality model (default loss)")
    parser.add_argument("--class-attribute", metavar="ATTR",
                        help="target attribute of the classification metric")
    parser.add_argument("--strategy", choices=STRATEGIES, help="search strategy (default optimal)")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS",
                        help="time budget of the heuristic strategy")
    parser.add_argument("--output", type=Path, metavar="OUT.csv", help="write the anonymized data")
    parser.add_argument("--report", type=Path, metavar="REPORT.json", help="write a JSON report")
    parser.set_defaults(func=run)


def _split(spec: str, option: str, parts: int) -> list[str]:
    pieces = spec.rsplit(":", parts - 1)
    if len(pieces) != parts or not all(pieces):
        raise ConfigurationError(f"Cannot read {option} '{spec}'; see arxpy anonymize --help.")
    return pieces


def _number(text: str, option: str, spec: str, kind: type = float) -> Any:
    try:
        return kind(text)
    except ValueError:
        raise ConfigurationError(f"'{text}' in {option} '{spec}' is not a number.") from None


def privacy_specs(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The privacy models named on the command line, as registry dictionaries."""
    specs: list[dict[str, Any]] = []
    if args.k is not None:
        specs.append({"kind": "k-anonymity", "k": args.k})
    for spec in args.ldiversity:
        variant = spec.rsplit(":", 3)
        if len(variant) == 4 and variant[1] == "recursive":
            attribute, _, c, ell = _split(spec, "--ldiversity", 4)
            specs.append({"kind": L_KINDS["recursive"], "attribute": attribute,
                          "c": _number(c, "--ldiversity", spec),
                          "l": _number(ell, "--ldiversity", spec, int)})
            continue
        attribute, name, ell = _split(spec, "--ldiversity", 3)
        if name not in ("distinct", "entropy"):
            raise ConfigurationError(
                f"Unknown l-diversity variant '{name}' in '{spec}'; use distinct, entropy or "
                "recursive.")
        number = _number(ell, "--ldiversity", spec, int if name == "distinct" else float)
        specs.append({"kind": L_KINDS[name], "attribute": attribute, "l": number})
    for spec in args.tcloseness:
        attribute, distance, t = _split(spec, "--tcloseness", 3)
        if distance not in T_DISTANCES:
            raise ConfigurationError(
                f"Unknown t-closeness distance '{distance}' in '{spec}'; use "
                f"{', '.join(T_DISTANCES)}.")
        specs.append({"kind": "t-closeness", "attribute": attribute,
                      "t": _number(t, "--tcloseness", spec), "distance": distance})
    return specs


def _quality_spec(args: argparse.Namespace) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": args.metric}
    if args.metric == "classification":
        if not args.class_attribute:
            raise ConfigurationError("The classification metric needs --class-attribute ATTR.")
        spec["class_attribute"] = args.class_attribute
    return spec


def _settings(args: argparse.Namespace, base: dict[str, Any]) -> dict[str, Any]:
    """Project settings overridden by whatever the command line gives."""
    settings = dict(base)
    privacy = privacy_specs(args)
    if privacy:
        settings["privacy_models"] = privacy
    if args.metric:
        settings["quality_model"] = _quality_spec(args)
    for key, value in (("suppression_limit", args.suppression), ("strategy", args.strategy),
                       ("time_limit", args.time_limit)):
        if value is not None:
            settings[key] = value
    return settings


def _load_files(args: argparse.Namespace):
    from arxpy.data.csv_io import read_csv, sniff_csv
    from arxpy.data.definition import AttributeType, DataDefinition
    from arxpy.hierarchy.io import read_hierarchy

    # A given delimiter is kept; encoding, quoting and header are still detected.
    frame = read_csv(args.data, sniff_csv(args.data, delimiter=args.delimiter))
    hierarchies = {}
    for item in args.hierarchy:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise ConfigurationError(f"Cannot read --hierarchy '{item}'; write ATTR=FILE.")
        hierarchies[name] = read_hierarchy(path, delimiter=args.delimiter or ";")
    sensitive = set(args.sensitive) | {s["attribute"] for s in privacy_specs(args)
                                       if "attribute" in s}
    definition = DataDefinition.for_columns(frame.columns)
    for name in list(hierarchies) + list(sensitive) + list(args.identifying):
        definition[name]  # DefinitionError naming an unknown attribute
    for name in hierarchies:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    for name in sensitive:
        definition = definition.with_attribute(name, type=AttributeType.SENSITIVE)
    for name in args.identifying:
        definition = definition.with_attribute(name, type=AttributeType.IDENTIFYING)
    return frame, definition, hierarchies, {}


def _load_project(args: argparse.Namespace):
    from arxpy.data.definition import AttributeType
    from arxpy.project import Project

    project = Project.load(args.project)
    definition = project.definition
    for name in args.identifying:
        definition = definition.with_attribute(name, type=AttributeType.IDENTIFYING)
    for name in args.sensitive:
        definition = definition.with_attribute(name, type=AttributeType.SENSITIVE)
    return project.data, definition, project.hierarchies, dict(project.settings or {})


class ProgressBar:
    """A one-line text progress bar, redrawn in place."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width, self._drawn = width, False

    def __call__(self, fraction: float, message: str) -> None:
        filled = int(round(fraction * self.width))
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r[{bar}] {fraction * 100:5.1f}% {message[:50]:<50}")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()


def _write_outputs(args: argparse.Namespace, result: Any, report: dict[str, Any]) -> None:
    from arxpy.data.atomic import atomic_write

    if args.report:
        with atomic_write(args.report) as handle:
            json.dump(report, handle, indent=2)
            handle.write("\n")
    if args.output and result.optimum is not None:
        output = result.output()
        with atomic_write(args.output, newline="") as handle:
            output.frame.to_csv(handle, sep=args.delimiter or ";", index=False)


def run(args: argparse.Namespace) -> int:
    import arxpy.privacy  # noqa: F401  (registers every privacy model)
    import arxpy.quality  # noqa: F401  (registers every quality model)
    from arxpy.engine import AnonymizationConfig, anonymize

    if args.data is not None:
        frame, definition, hierarchies, base = _load_files(args)
    else:
        frame, definition, hierarchies, base = _load_project(args)
    config = AnonymizationConfig.from_dict(_settings(args, base))
    bar = ProgressBar()
    try:
        result = anonymize(frame, definition, hierarchies, config, progress=bar)
    finally:
        bar.close()
    report = result.to_dict()
    _write_outputs(args, result, report)
    best = result.optimum
    if best is None:
        raise ConfigurationError(
            "No transformation satisfies the privacy models within the suppression limit; "
            "allow more suppression or relax the privacy models.")
    levels = ", ".join(f"{k}={v}" for k, v in report["transformation"].items())
    print(f"Transformation: {levels}")
    print(f"Score ({config.quality_model.label}): {best.score:.10g} "
          f"(relative {best.relative_score:.4f}); suppressed records: "
          f"{best.suppressed_records} of {result.records}")
    print(f"Checked {result.transformations_checked} of {result.lattice_size} transformations "
          f"in {result.elapsed_seconds:.3f} s ({'optimal' if result.optimal else 'heuristic'})")
    return 0
