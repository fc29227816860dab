"""``arxpy evaluate``: classifier performance of one transformation, as a JSON report.

Data options are those of ``arxpy anonymize`` (a project, or a CSV with hierarchies);
privacy options decide which records the transformation suppresses and, with
``--transformation optimum`` (the default), which transformation is evaluated.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from arxpy.commands.files import add_input_option, add_output_option
from arxpy.commands.options import (
    METRICS,
    ProgressBar,
    add_data_arguments,
    add_privacy_arguments,
    load_inputs,
    strategy_names,
    write_json,
)
from arxpy.errors import ConfigurationError

CLASSIFIERS = ("logistic", "tree", "forest", "bayes")


def add_classifier_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--class-attribute", required=True, metavar="ATTR",
                        help="the attribute to predict")
    parser.add_argument("--class-bins", metavar="E1,E2,...",
                        help="bin a numeric class attribute at these edges first "
                        "(e.g. 10000,50000 gives <10000, [10000, 50000[, >=50000)")
    parser.add_argument("--features", metavar="A,B,...",
                        help="feature attributes (default: every attribute except identifying "
                        "ones and the class attribute)")
    parser.add_argument("--classifier", choices=CLASSIFIERS, default="logistic",
                        help="classifier (default logistic regression)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a classifier parameter, e.g. C=0.5, max_depth=8, n_estimators=50")
    parser.add_argument("--folds", type=int, default=3, metavar="K",
                        help="folds of the cross-validation (default 3)")
    parser.add_argument("--seed", type=int, default=0, metavar="N",
                        help="seed of the folds and the classifier (default 0)")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evaluate", help="classifier performance on de-identified data",
        description="Interwoven k-fold cross-validation: a classifier trained on the output of "
        "a transformation, evaluated on the original records with generalized features, "
        "against ZeroR and the classifier trained on the original data.")
    add_data_arguments(parser)
    add_privacy_arguments(parser)
    parser.add_argument("--metric", choices=METRICS,
                        help="quality model of the search for the optimum (default loss)")
    parser.add_argument("--strategy", choices=strategy_names(), help="search strategy")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS",
                        help="time budget of the heuristic search")
    parser.add_argument("--transformation", default="optimum", metavar="optimum|ATTR=LEVEL,...",
                        help="the transformation to evaluate (default: the optimum of the "
                        "search); quasi-identifiers not named are at level 0")
    parser.add_argument("--method", metavar="METHOD",
                        help="evaluate the release of another registered method instead "
                        "(arxpy methods lists them), e.g. mdav, intervals, kpbms, condensation")
    add_input_option(parser, "--method-param", action="append", default=[],
                     metavar="NAME=VALUE", paths=method_param_paths,
                     help="a parameter of --method, read as its declaration says "
                     "(arxpy run METHOD --help lists them), e.g. k=5")
    add_classifier_arguments(parser)
    add_output_option(parser, "--report", type=Path, required=True, metavar="R.json",
                      help="write the JSON report")
    add_output_option(parser, "--plots", type=Path, metavar="DIR",
                      help="write ROC and precision-recall curves as PNGs")
    parser.set_defaults(func=run)


def method_param_paths(value: Any, args: argparse.Namespace) -> list[Path]:
    """Files that ``--method-param`` values name where ``--method`` declares that its
    parameter reads files (a disassociation's ``policy=file:U.json``)."""
    from arxpy.methods import method_classes

    cls = method_classes().get(getattr(args, "method", None) or "")
    if cls is None:
        return []
    declared = {p.name: p for p in cls.params}
    paths = []
    for item in value or []:
        name, _, text = item.partition("=")
        param = declared.get(name.strip().replace("-", "_"))
        if param is not None and param.reads_files is not None:
            paths += [Path(p) for p in param.reads_files(text.strip())]
    return paths


def _value(text: str) -> Any:
    """A parameter value: None, a bool, an int, a float or the text itself."""
    lowered = text.strip().lower()
    if lowered in ("none", "null"):
        return None
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


def classification_config(args: argparse.Namespace) -> Any:
    """The ClassificationConfig the command line describes."""
    from arxpy.analysis.classification import ClassificationConfig
    from arxpy.analysis.classifiers import ClassifierSpec

    params = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ConfigurationError(f"Cannot read --param '{item}'; write NAME=VALUE.")
        params[name.strip()] = _value(value)
    features = None
    if args.features:
        features = tuple(f.strip() for f in args.features.split(",") if f.strip())
    spec = ClassifierSpec(args.classifier, params, seed=args.seed)
    spec.check_parameter_values()
    return ClassificationConfig(args.class_attribute, features, spec,
                                folds=args.folds, seed=args.seed)


def load(args: argparse.Namespace) -> tuple[Any, Any, Any, dict[str, Any]]:
    """Frame, definition, hierarchies and settings, with the class attribute binned."""
    frame, definition, hierarchies, settings = load_inputs(args)
    return binned(args, frame, definition), definition, hierarchies, settings


def class_edges(args: argparse.Namespace) -> list[float] | None:
    if not args.class_bins:
        return None
    try:
        return [float(e) for e in args.class_bins.split(",")]
    except ValueError:
        raise ConfigurationError(
            f"Cannot read --class-bins '{args.class_bins}'; write numbers like "
            "10000,50000.") from None


def binned(args: argparse.Namespace, frame: Any, definition: Any) -> Any:
    """``frame`` with the class attribute binned at --class-bins (if given)."""
    from arxpy.analysis.classification import bin_values

    edges = class_edges(args)
    if edges is None:
        return frame
    definition[args.class_attribute]  # DefinitionError naming an unknown attribute
    frame = frame.copy()
    frame[args.class_attribute] = bin_values(frame[args.class_attribute], edges)
    return frame


def _method_release(args, frame, definition, hierarchies, bar):
    """The release of ``--method`` with its ``--method-param`` values, on the data with
    the class attribute binned (a class-aware method such as kPB-MS needs classes)."""
    from arxpy.methods import method_classes
    from arxpy.methods.options import parse_value

    classes = method_classes()
    if args.method not in classes:
        raise ConfigurationError(
            f"Unknown method '{args.method}'; methods: {', '.join(classes)}.")
    cls = classes[args.method]
    declared = {p.name: p for p in cls.params}
    params = {}
    for item in args.method_param:
        name, sep, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in declared:
            raise ConfigurationError(
                f"Cannot read --method-param '{item}'; write NAME=VALUE with NAME one of "
                f"{', '.join(declared)}.")
        params[name] = parse_value(declared[name], value)
    outcome = cls(**params).run(frame, definition, hierarchies=hierarchies, progress=bar)
    return outcome.release() if hasattr(outcome, "release") else outcome


def _release(args, frame, definition, hierarchies, settings, bar):
    """The release to evaluate: the optimum, or ATTR=LEVEL,... under the configuration
    (1-anonymity, i.e. nothing suppressed, without privacy models)."""
    from arxpy.engine import AnonymizationConfig, anonymize, apply, parse_transformation

    has_privacy = bool(settings.get("privacy_models"))
    if args.transformation.strip() == "optimum":
        if not has_privacy:
            raise ConfigurationError(
                "The optimum needs privacy models (e.g. --k 5) or a project with settings; "
                "or name a transformation with --transformation ATTR=LEVEL,...")
        config = AnonymizationConfig.from_dict(settings)
        result = anonymize(frame, definition, hierarchies, config, progress=bar)
        return result.release(), True  # raises when no transformation is anonymous
    levels = parse_transformation(args.transformation, definition.quasi_identifiers)
    if not has_privacy:
        settings = {**settings, "privacy_models": [{"kind": "k-anonymity", "k": 1}]}
    config = AnonymizationConfig.from_dict(settings)
    return apply(frame, definition, hierarchies, config, levels), has_privacy


def run(args: argparse.Namespace) -> int:
    import arxpy.privacy  # noqa: F401  (registers every privacy model)
    import arxpy.quality  # noqa: F401  (registers every quality model)
    from arxpy.analysis.classification import ClassificationTask, evaluate_release

    started = time.perf_counter()
    if args.plots:  # a bad folder is found before the work, not after it
        from arxpy.analysis.plots import make_plot_folder
        make_plot_folder(args.plots)
    raw, definition, hierarchies, settings = load_inputs(args)
    frame = binned(args, raw, definition)
    config = classification_config(args)
    task = ClassificationTask(frame, definition, hierarchies, config)  # checks before searching
    bar = ProgressBar()
    try:
        if args.method:
            release, judged = _method_release(args, frame, definition, hierarchies, bar), True
        else:
            release, judged = _release(args, frame, definition, hierarchies, settings, bar)
        performance = evaluate_release(task, release, class_edges=class_edges(args),
                                       progress=bar)
    finally:
        bar.close()
    report = performance.to_dict()
    anonymous = release.anonymous if judged else None
    report["anonymous"] = anonymous
    report["method"] = release.method
    report["verification"] = release.verify().to_dict() if judged else None
    report["elapsed_seconds"] = time.perf_counter() - started
    write_json(args.report, report)
    if args.plots:
        from arxpy.analysis.plots import write_curve_plots
        write_curve_plots(performance, args.plots)
    if release.transformation is not None:
        shown = ", ".join(f"{k}={v}" for k, v in release.transformation.items())
        print(f"Transformation: {shown}" + ("" if anonymous is None else
                                            f" ({'anonymous' if anonymous else 'not anonymous'})"))
    else:
        print(f"Release of {release.method}: {release.verify().headline}")
    print(performance.summary().drop(columns=["description"]).to_string(float_format="%.4f"))
    print(f"Evaluated in {report['elapsed_seconds']:.2f} s; report: {args.report}")
    return 0
