"""``arxpy study classification``: quality models versus classifier accuracy (paper 004, Fig. 4).

Data and privacy options are those of ``arxpy anonymize``; the study scores every
transformation of the lattice with Loss, non-uniform entropy, KL divergence and the
classification model, evaluates the anonymous ones by interwoven cross-validation (or a
sample of them within ``--time-limit``) and writes the JSON report and, with
``--plots``, the scatter plots.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from arxpy.commands.evaluate import add_classifier_arguments, classification_config, load
from arxpy.commands.files import add_output_option
from arxpy.commands.options import (
    ProgressBar,
    add_data_arguments,
    add_privacy_arguments,
    write_json,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "study", help="study how quality models track classifier accuracy",
        description="Study modes over the generalization lattice of one configuration.")
    studies = parser.add_subparsers(dest="study", metavar="STUDY", required=True)
    study = studies.add_parser(
        "classification", help="relative accuracy of every anonymous transformation versus "
        "each quality model's score (paper 004, Figure 4)",
        description="Score every transformation with loss, entropy, kl and classification, "
        "evaluate the anonymous ones by interwoven cross-validation, and report each model's "
        "choice, its relative accuracy and Spearman's correlation.")
    add_data_arguments(study)
    add_privacy_arguments(study)
    add_classifier_arguments(study)
    study.add_argument("--time-limit", dest="study_time_limit", type=float, metavar="SECONDS",
                       help="stop evaluating after this long (each model's choice is always "
                       "evaluated; the report then says it is a sample)")
    add_output_option(study, "--report", type=Path, required=True, metavar="R.json",
                      help="write the JSON report")
    add_output_option(study, "--plots", type=Path, metavar="DIR",
                      help="write scatter plots as PNGs")
    # The search options of `arxpy anonymize` play no part in a study.
    study.set_defaults(func=run, metric=None, strategy=None, time_limit=None)


def run(args: argparse.Namespace) -> int:
    import arxpy.privacy  # noqa: F401  (registers every privacy model)
    import arxpy.quality  # noqa: F401  (registers every quality model)
    from arxpy.analysis.study import classification_study
    from arxpy.engine import AnonymizationConfig

    started = time.perf_counter()
    if args.plots:  # a bad folder is found before the work, not after it
        from arxpy.analysis.plots import make_plot_folder
        make_plot_folder(args.plots)
    frame, definition, hierarchies, settings = load(args)
    config = AnonymizationConfig.from_dict(settings)
    classification = classification_config(args)
    bar = ProgressBar()
    try:
        result = classification_study(frame, definition, hierarchies, config, classification,
                                      args.study_time_limit, progress=bar)
    finally:
        bar.close()
    report = result.to_dict()
    report["elapsed_seconds"] = time.perf_counter() - started
    write_json(args.report, report)
    if args.plots:
        result.plot(args.plots)
    table = result.summary()[["chosen_relative_accuracy", "spearman"]]
    print(table.to_string(float_format="%.4f"))
    print(f"Best relative accuracy measured: {result.best_relative_accuracy:.4f}; evaluated "
          f"{report['evaluated_transformations']} of {report['anonymous_transformations']} "
          f"anonymous transformations ({'sample' if result.sampled else 'all'}) in "
          f"{report['elapsed_seconds']:.1f} s; report: {args.report}")
    return 0
