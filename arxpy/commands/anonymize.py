"""``arxpy anonymize``: search the lattice from the command line, write data and a report.

Attributes given with ``--hierarchy`` are quasi-identifiers, except the attribute of a
hierarchical t-closeness (``--tcloseness ATTR:hierarchical:T``), whose hierarchy serves
the distance. Naming a quasi-identifier as sensitive (``--sensitive``, ``--ldiversity``,
``--tcloseness``) or identifying is refused: it would be released ungeneralized. Every
other attribute is insensitive unless named with ``--identifying`` or ``--sensitive``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

from arxpy.commands.options import (
    ProgressBar,
    add_attribute_arguments,
    add_data_arguments,
    add_privacy_arguments,
    add_search_arguments,
    load_inputs,
    write_json,
)
from arxpy.errors import ConfigurationError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "anonymize", help="find the best anonymous transformation of a table",
        description="Search the generalization lattice for the transformation with the best "
        "quality that meets the privacy models; write the data and a JSON report.")
    add_data_arguments(parser)
    add_attribute_arguments(parser)
    add_privacy_arguments(parser)
    add_search_arguments(parser)
    parser.add_argument("--class-attribute", metavar="ATTR",
                        help="target attribute of the classification metric (same as "
                        "--metric classification:ATTR)")
    parser.add_argument("--output", type=Path, metavar="OUT.csv", help="write the anonymized data")
    parser.add_argument("--report", type=Path, metavar="REPORT.json", help="write a JSON report")
    parser.add_argument("--neutralize-formulas", action="store_true",
                        help="prefix with ' the output cells a spreadsheet would run as "
                        "formulas (values starting with =, +, -, @, tab or CR)")
    parser.set_defaults(func=run)


def _write_outputs(args: argparse.Namespace, result: Any, report: dict[str, Any]) -> None:
    """The data first, then the report, so an interrupt never leaves a report without data."""
    from arxpy.data.formulas import FormulaWarning
    from arxpy.engine.export import export_release

    if result.optimum is not None and (args.output or args.report):
        release = result.release()
        if args.output:
            # The export code the GUI uses; a script's output file is replaced on each run.
            tsv = args.output.suffix.lower() == ".tsv"
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", FormulaWarning)
                export_release(release, args.output, overwrite=True,
                               delimiter="	" if tsv else args.delimiter or ";",
                               neutralize_formulas=args.neutralize_formulas)
            for warning in caught:
                if issubclass(warning.category, FormulaWarning):
                    print(f"arxpy: warning: {warning.message}", file=sys.stderr)
                else:  # not ours to reword
                    warnings.showwarning(warning.message, warning.category,
                                         warning.filename, warning.lineno)
        report["release"] = release.to_dict()
    if args.report:
        write_json(args.report, report)


def run(args: argparse.Namespace) -> int:
    import arxpy.privacy  # noqa: F401  (registers every privacy model)
    import arxpy.quality  # noqa: F401  (registers every quality model)
    from arxpy.engine import AnonymizationConfig, anonymize

    frame, definition, hierarchies, settings = load_inputs(args)
    config = AnonymizationConfig.from_dict(settings)
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
    if best.completely_generalized_records:
        print(f"Completely generalized records (every quasi-identifier one value; ARX "
              f"counts them as suppressed): {best.completely_generalized_records}")
    if len(report["tied_optima"]) > 1:
        print(f"{len(report['tied_optima'])} checked transformations share this score "
              "(tied_optima in the report); this one is ARX's choice among them")
    print(f"Checked {result.transformations_checked} of {result.lattice_size} transformations "
          f"in {result.elapsed_seconds:.3f} s ({'optimal' if result.optimal else 'heuristic'})")
    return 0
