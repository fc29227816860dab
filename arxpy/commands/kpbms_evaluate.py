"""``arxpy kpbms-evaluate``: the paper's evaluation of kPB-MS (Aristodimou et al. 2016,
Sec. 6): per k and classifier the mean and sd accuracy over stratified folds shared
with the full data, the paired t-test p, a better / similar / worse verdict, and the
share of k > 1 cases not significantly worse (infeasible k counts as worse).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from arxpy.commands.files import add_output_option
from arxpy.commands.kpbms import _attributes, add_kpbms_arguments, method_parameters
from arxpy.commands.options import ProgressBar, read_data_option, write_json
from arxpy.errors import ConfigurationError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "kpbms-evaluate", help="classifier accuracy on kPB-MS output versus full data",
        description="Cross-validate SVM, kNN, C4.5-like tree and random forest on the full "
        "and on kPB-MS-anonymized data with the same test folds, for each k.")
    add_kpbms_arguments(parser)
    parser.add_argument("--k", default="1,3,5,10,20", metavar="K[,K...]")
    parser.add_argument("--classifiers", default="svm,knn,c45,rf", metavar="C[,C...]",
                        help="svm, knn (IBk ties), c45, rf, knn-sklearn, svm-linear")
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--protocol", choices=("paper", "nested"), default="paper",
                        help="paper: anonymize once before CV (leaks); nested: inside folds")
    parser.add_argument("--trees", type=int, default=500, help="random forest trees")
    add_output_option(parser, "--report", type=Path, required=True, metavar="E.json")
    parser.set_defaults(func=run)


def _ints(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ConfigurationError(f"--k takes whole numbers separated by commas, got "
                                 f"{text!r}.") from None
    if not values:
        raise ConfigurationError("--k needs at least one value.")
    return values


def run(args: argparse.Namespace) -> int:
    from arxpy.methods.kpbms import Kpbms
    from arxpy.workflows.kpbms_evaluation import kpbms_evaluation

    frame = read_data_option(args.data, args.delimiter)
    if args.class_attribute not in frame.columns:
        raise ConfigurationError(f"There is no class attribute '{args.class_attribute}'.")
    features = _attributes(args.qi) or [c for c in frame.columns if c != args.class_attribute]
    missing = [f for f in features if f not in frame.columns]
    if missing:
        raise ConfigurationError(f"--qi names '{missing[0]}', which is not an attribute.")
    classifiers = [c.strip() for c in args.classifiers.split(",") if c.strip()]
    bar = ProgressBar()
    try:
        # The GUI's evaluation tab runs the same workflow with a run's method.
        method = Kpbms(**method_parameters(args, 1))
        evaluation = kpbms_evaluation(
            method, frame[features + [args.class_attribute]], _ints(args.k), classifiers,
            folds=args.folds, protocol=args.protocol, trees=args.trees, progress=bar)
    finally:
        bar.close()
    # The data by file name only: the custodian's folders are no part of a report.
    report = {"data": args.data.name, "class_attribute": args.class_attribute,
              "max_loss": args.max_loss, **evaluation.to_dict()}
    write_json(args.report, report)
    print(evaluation.table().to_string())
    share = evaluation.share_not_worse
    if share is not None:
        print(f"not significantly worse in {share:.0%} of the k > 1 cases")
    return 0
