"""Options and helpers the data-processing commands share (anonymize, evaluate, study, risk).

One definition of the data options (``--project`` or ``--data`` with hierarchies), the
privacy options and the search options, of how they become project settings, of the
text progress bar and of JSON reports, so that every command reads them the same way.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from arxpy.commands.files import add_input_option, assignment_paths
from arxpy.errors import ConfigurationError
from arxpy.params import drawn_seed

METRICS = ("loss", "dm", "aecs", "entropy", "precision", "height", "kl", "classification",
           "payout")
L_KINDS = {"distinct": "distinct-l-diversity", "entropy": "entropy-l-diversity",
           "recursive": "recursive-cl-diversity"}
T_DISTANCES = ("equal", "hierarchical", "ordered")
BETA_VARIANTS = {"basic": "basic-beta-likeness", "enhanced": "enhanced-beta-likeness"}
ESTIMATORS = ("pitman", "zayatz", "snb", "dankar")
KMAP_ESTIMATORS = ("poisson", "zero-truncated-poisson")
LOSS_AGGREGATES = ("sum", "max", "arithmetic_mean", "geometric_mean", "rank")
#: Quality models that take a gs-factor as ``NAME:GS``.
GS_METRICS = ("aecs", "entropy", "precision", "payout")
DATA_TYPES = ("integer", "decimal", "date", "string")
METRIC_HELP = ("quality model (default loss): a name (" + ", ".join(METRICS) + ") or "
               "loss:GS:AGGREGATE (aggregate " + ", ".join(LOSS_AGGREGATES) + "), "
               "aecs:GS, entropy:GS, precision:GS, payout:GS (gs-factor in [0, 1]) or "
               "classification:CLASS_ATTR")


def add_data_arguments(parser: argparse.ArgumentParser) -> None:
    """``--project FILE | --data CSV [--delimiter C] --hierarchy ATTR=FILE ...`` and roles."""
    source = parser.add_mutually_exclusive_group(required=True)
    add_input_option(source, "--project", type=Path, metavar="FILE", help="an .arxpy project")
    add_data_option(source)
    parser.add_argument("--delimiter", metavar="C", type=delimiter_option,
                        help="field delimiter of the data and hierarchy files (default: "
                        "detected for the data, ';' for hierarchies); 'tab' for a tab")
    parser.add_argument("--encoding", metavar="NAME", type=encoding_option,
                        help="text encoding of the data file, e.g. utf-8, cp1252, latin-1 "
                        "(default: detected)")
    add_input_option(parser, "--hierarchy", action="append", default=[], metavar="ATTR=FILE",
                     paths=assignment_paths,
                     help="a generalization hierarchy (ARX CSV); makes ATTR a quasi-identifier")
    parser.add_argument("--sensitive", action="append", default=[], metavar="ATTR")
    parser.add_argument("--identifying", action="append", default=[], metavar="ATTR",
                        help="removed from the output")


def add_data_option(parser: Any, **kwargs: Any) -> argparse.Action:
    """``--data``: a CSV file or ``FILE.sqlite:TABLE`` (read by :func:`read_data_option`)."""
    from arxpy.commands.table_source import SOURCE_HELP, source_paths

    return add_input_option(parser, "--data", type=Path, metavar="CSV", paths=source_paths,
                            help=f"the data: {SOURCE_HELP}", **kwargs)


def add_attribute_arguments(parser: argparse.ArgumentParser) -> None:
    """``--weight``, ``--min-level``, ``--max-level`` and ``--type`` per attribute."""
    parser.add_argument("--weight", action="append", default=[], metavar="ATTR=W",
                        help="weight (> 0) of a quasi-identifier in weighted quality models "
                        "(Loss, Precision, Entropy, Height); 0.5 when not given, as in ARX, "
                        "and every weight is divided by the largest")
    parser.add_argument("--min-level", action="append", default=[], metavar="ATTR=L",
                        help="lowest generalization level the search may use for ATTR")
    parser.add_argument("--max-level", action="append", default=[], metavar="ATTR=L",
                        help="highest generalization level the search may use for ATTR")
    parser.add_argument("--type", action="append", default=[], dest="data_type",
                        metavar="ATTR=" + "|".join(DATA_TYPES),
                        help="data type of ATTR (the order of ordered-distance t-closeness); "
                        "a date may give its format: ATTR=date:%%Y-%%m-%%d")


def add_privacy_arguments(parser: argparse.ArgumentParser) -> None:
    """Every privacy model ARX offers for full-domain generalization, and ``--suppression``."""
    parser.add_argument("--k", type=int, metavar="K", help="k-anonymity")
    parser.add_argument("--ldiversity", action="append", default=[],
                        metavar="ATTR:distinct:L | ATTR:entropy:L | ATTR:recursive:C:L",
                        help="l-diversity of a sensitive attribute (entropy: Shannon; "
                        "ATTR:grassberger:L for the Grassberger estimator)")
    parser.add_argument("--tcloseness", action="append", default=[],
                        metavar="ATTR:equal:T | ATTR:hierarchical:T | ATTR:ordered:T",
                        help="t-closeness of a sensitive attribute (ordered distance sorts by "
                        "the data type, see --type)")
    parser.add_argument("--delta-disclosure", action="append", default=[], metavar="ATTR:D",
                        help="delta-disclosure privacy of a sensitive attribute")
    parser.add_argument("--beta-likeness", action="append", default=[],
                        metavar="ATTR:basic:B | ATTR:enhanced:B",
                        help="basic or enhanced beta-likeness of a sensitive attribute")
    parser.add_argument("--average-risk", type=float, metavar="X",
                        help="average re-identification risk at most X (e.g. 0.05)")
    parser.add_argument("--population-uniqueness", metavar="X:ESTIMATOR:POPULATION",
                        help="estimated population uniqueness at most X; estimator pitman, "
                        "zayatz, snb or dankar; POPULATION a number of people or a region "
                        "(e.g. 0.01:dankar:1000000 or 0.01:dankar:usa)")
    parser.add_argument("--sample-uniqueness", type=float, metavar="X",
                        help="at most a share X of the released records unique in the output")
    _add_kmap_arguments(parser)
    _add_delta_presence_arguments(parser)
    _add_differential_privacy_arguments(parser)
    _add_profitability_arguments(parser)
    parser.add_argument("--suppression", type=float, metavar="FRACTION",
                        help="largest fraction of records that may be suppressed (default 0)")


def _add_kmap_arguments(parser: argparse.ArgumentParser) -> None:
    """``--kmap K`` with ``--population FILE`` or ``--population-size N`` (ARX's KMap)."""
    parser.add_argument("--kmap", type=int, metavar="K",
                        help="k-map: every released class matches at least K people of the "
                        "population (give --population or --population-size)")
    add_input_option(parser, "--population", metavar="FILE",
                     help="population table of k-map and delta-presence: a CSV with the "
                     "quasi-identifiers of everyone in the population, the data's records "
                     "included")
    parser.add_argument("--population-size", metavar="N|REGION",
                        help="k-map estimated from the sample: the population's size, or a "
                        "region preset such as usa")
    parser.add_argument("--kmap-estimator", choices=KMAP_ESTIMATORS,
                        help="estimated k-map's model of a class's population size "
                        "(default poisson)")
    parser.add_argument("--kmap-significance", type=float, metavar="ALPHA",
                        help="estimated k-map's significance level (default 0.01, as ARX)")


#: ``--profitability`` values -> privacy model kinds (ARX's four game-theoretic models).
PROFITABILITY_KINDS = {
    "prosecutor": "profitability",
    "journalist": "profitability-journalist",
    "prosecutor:noattack": "no-attack-profitability",
    "journalist:noattack": "no-attack-profitability-journalist",
}
#: The prices of ARX's ``ARXCostBenefitConfiguration``, as options.
PRICE_OPTIONS = ("adversary_cost", "adversary_gain", "publisher_benefit", "publisher_loss")


def _add_profitability_arguments(parser: argparse.ArgumentParser) -> None:
    """``--profitability prosecutor|journalist[:noattack]`` and ARX's four prices (they
    also price ``--metric payout``)."""
    parser.add_argument("--profitability", choices=tuple(PROFITABILITY_KINDS),
                        help="game-theoretic privacy (ARX): keep records whose publication "
                        "pays the publisher (noattack: no record is worth attacking); "
                        "journalist needs --population")
    defaults = {"adversary_cost": 4, "adversary_gain": 300, "publisher_benefit": 1200,
                "publisher_loss": 300}
    for name in PRICE_OPTIONS:
        words = name.replace("_", " ")
        parser.add_argument("--" + name.replace("_", "-"), type=float, metavar="X",
                            help=f"{words} per record for --profitability and --metric "
                            f"payout (default {defaults[name]}, as ARX)")


def _prices(args: argparse.Namespace) -> dict[str, float]:
    return {name: getattr(args, name) for name in PRICE_OPTIONS
            if getattr(args, name, None) is not None}


def _profitability_specs(args: argparse.Namespace) -> list[dict[str, Any]]:
    attacker = getattr(args, "profitability", None)
    if attacker is None:
        if _prices(args) and not str(getattr(args, "metric", None) or "").startswith("payout"):
            raise ConfigurationError("The adversary and publisher prices belong to "
                                     "--profitability or --metric payout; add one.")
        return []
    model: dict[str, Any] = {"kind": PROFITABILITY_KINDS[attacker], **_prices(args)}
    if attacker.startswith("journalist"):
        population = getattr(args, "population", None)
        if population is None:
            raise ConfigurationError(f"--profitability {attacker} needs the population: give "
                                     "--population FILE (a CSV of everyone, the data's "
                                     "records included).")
        model["population"] = str(population)
    return [model]


def _add_differential_privacy_arguments(parser: argparse.ArgumentParser) -> None:
    """``--dp EPSILON:DELTA`` with ``--dp-steps N`` (ARX's EDDifferentialPrivacy, SafePub);
    the sampling and the search are seeded by the command's ``--seed``."""
    parser.add_argument("--dp", metavar="EPSILON:DELTA",
                        help="(epsilon, delta)-differential privacy by SafePub: records "
                        "sampled, a generalization chosen by the exponential mechanism, "
                        "classes smaller than the derived k suppressed (e.g. 2:1e-6)")
    parser.add_argument("--dp-steps", type=int, metavar="N",
                        help="differential privacy's search steps (default 100)")
    parser.add_argument("--dp-search-share", type=float, metavar="FRACTION",
                        help="share of epsilon the search spends (default 0.1, as ARX)")
    parser.add_argument("--dp-generalization", metavar="ATTR=L,...|DEGREE",
                        help="data-independent differential privacy: this generalization "
                        "(levels, or none, low, low-medium, medium, medium-high, high, "
                        "complete) instead of a search")


def _add_delta_presence_arguments(parser: argparse.ArgumentParser) -> None:
    """``--delta-presence DMIN:DMAX --population FILE [--subset FILE | --subset-column
    ATTR]`` (ARX's DPresence). The data are the research subset, released, as the sample
    of k-map; the population table is beside it."""
    parser.add_argument("--delta-presence", metavar="DMIN:DMAX",
                        help="delta-presence: anyone in the population (--population) is "
                        "in the released research subset (the data) with a probability "
                        "between DMIN and DMAX, e.g. 0.05:0.5")
    add_input_option(parser, "--subset", metavar="FILE",
                     help="delta-presence: the research subset's records as a CSV, each a "
                     "record of --population (the data must be these records)")
    parser.add_argument("--subset-column", metavar="ATTR",
                        help="delta-presence: a column of --population flagging (1, true, "
                        "yes) the research subset's records (the data must be these)")


def add_search_arguments(parser: argparse.ArgumentParser) -> None:
    """``--metric``, ``--strategy``, ``--time-limit`` and ``--step-limit``
    (``--class-attribute`` is separate)."""
    parser.add_argument("--metric", metavar="METRIC", help=METRIC_HELP)
    parser.add_argument("--strategy", choices=strategy_names(),
                        help="search strategy (default optimal)")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS",
                        help="time budget of the lightning and genetic strategies")
    parser.add_argument("--step-limit", type=int, metavar="N",
                        help="most transformations the lightning and genetic strategies check "
                        "(ARX's step limit; with --time-limit, whichever comes first)")
    add_genetic_arguments(parser)


def strategy_names() -> tuple[str, ...]:
    """The search strategies' names (``lightning`` and ``genetic`` among them)."""
    from arxpy.search import STRATEGIES

    return tuple(STRATEGIES)


def add_genetic_arguments(parser: argparse.ArgumentParser) -> None:
    """``--genetic-iterations`` ... ``--genetic-seed``: ARX's genetic algorithm's settings,
    one option per declared parameter."""
    from arxpy.engine.config import GENETIC_PARAMS

    group = parser.add_argument_group("genetic strategy", "ARX's genetic algorithm's settings "
                                      "(--strategy genetic); ARX's defaults")
    for param in GENETIC_PARAMS:
        option = "--" + param.name.replace("_", "-")
        if param.kind == "bool":
            group.add_argument(option, action=argparse.BooleanOptionalAction, default=None,
                               help=f"{param.help} (default on)")
        else:
            group.add_argument(option, type=int if param.kind == "int" else float,
                               metavar="N" if param.kind == "int" else "F",
                               help=param.help if param.optional
                               else f"{param.help} (default {param.default})")


def add_local_recoding_arguments(parser: argparse.ArgumentParser) -> None:
    """``--local-recoding PASSES`` and ``--gs-factor F`` (ARX's ``optimizeIterative``)."""
    group = parser.add_argument_group(
        "local recoding", "after the search, search again on the records a pass suppressed; "
        "each record keeps the levels of the pass that released it (as ARX's "
        "optimizeIterative)")
    group.add_argument("--local-recoding", type=int, metavar="PASSES",
                       help="passes after the first, at most (default 0: off)")
    group.add_argument("--gs-factor", type=float, metavar="F", dest="local_recoding_gs_factor",
                       help="gs-factor of the quality model in those passes, 0 favours "
                       "suppression, 1 generalization (default 0.05, ARX's)")


def add_microaggregation_arguments(parser: argparse.ArgumentParser) -> None:
    """``--microaggregate ATTR=FUNCTION[:cluster]`` (ARX's microaggregation, issue 34)."""
    from arxpy.engine.microaggregation import FUNCTIONS

    parser.add_argument(
        "--microaggregate", action="append", default=[], metavar="ATTR=FUNCTION",
        help="release one aggregate of ATTR per equivalence class instead of generalizing "
        f"it ({'|'.join(FUNCTIONS)}); ATTR becomes a quasi-identifier formed into classes by "
        "the others, or with ATTR=FUNCTION:cluster by its own --hierarchy too (repeatable)")


def microaggregation_options(args: argparse.Namespace) -> dict[str, Any]:
    """``--microaggregate`` items as the settings' ``microaggregation`` mapping."""
    from arxpy.engine.microaggregation import parse_microaggregate_option

    pairs = [parse_microaggregate_option(item) for item in getattr(args, "microaggregate", [])]
    return {name: m.to_dict() for name, m in pairs}


def read_hierarchy_options(items: list[str], delimiter: str | None) -> dict[str, Any]:
    """``ATTR=FILE`` items as hierarchies by attribute name."""
    from arxpy.hierarchy.io import read_hierarchy

    hierarchies = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise ConfigurationError(f"Cannot read --hierarchy '{item}'; write ATTR=FILE.")
        hierarchies[name] = read_hierarchy(path, delimiter=delimiter or ";")
    return hierarchies


def delimiter_option(text: str) -> str:
    """argparse type of ``--delimiter``: one character, or ``tab``."""
    if text.lower() in ("tab", "\\t"):
        return "\t"
    if len(text) != 1 or text in "\r\n\"'":
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a delimiter; give one character such as , ; | or 'tab'")
    return text


#: The largest seed the commands take: every random generator they seed accepts it
#: (scikit-learn's and numpy's legacy ones stop at 2**32 - 1).
SEED_HIGH = 2**32 - 1


def seed_option(text: str) -> int:
    """argparse type of ``--seed``: a whole number from 0 to :data:`SEED_HIGH`."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= SEED_HIGH:
        raise argparse.ArgumentTypeError(
            f"a seed is a whole number from 0 to {SEED_HIGH}, got {text!r}")
    return value


def encoding_option(text: str) -> str:
    """argparse type of ``--encoding``: a codec Python knows."""
    import codecs

    from arxpy.data.csv_io import is_text_encoding

    if not is_text_encoding(text):
        raise argparse.ArgumentTypeError(
            f"unknown text encoding {text!r}; use for example utf-8, cp1252 or latin-1")
    return codecs.lookup(text).name


def read_data_option(path: Path, delimiter: str | None, encoding: str | None = None):
    """The ``--data`` table: a CSV file (a given delimiter and encoding are kept, the
    rest is detected; a detected encoding falls back to cp1252/latin-1 if a later byte
    is not UTF-8) or ``FILE.sqlite:TABLE``."""
    from arxpy.commands.table_source import TableSource

    return TableSource.parse(path).read(delimiter, encoding)


def load_inputs(args: argparse.Namespace, check: Callable[..., None] | None = None):
    """(frame, definition, hierarchies, settings) from the data and privacy options.

    ``check(definition, hierarchies, settings)``, if given, judges the configuration
    before ``--data`` is read (the definition has roles, no data types), so a setting
    that can never work is refused without reading a large file.
    """
    from arxpy.data.value_checks import warn_sensitive_variants

    if args.data is not None:
        frame, definition, hierarchies, base = _load_files(args, check)
    else:
        frame, definition, hierarchies, base = _load_project(args)
    warn_sensitive_variants(frame, definition)
    return frame, definition, hierarchies, settings_from_args(args, base)


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes, read in blocks (the output may be larger than memory)."""
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def add_order_arguments(parser: argparse.ArgumentParser) -> None:
    """``--keep-order`` and ``--shuffle-seed``: released rows are written shuffled."""
    parser.add_argument("--keep-order", action="store_true",
                        help="write released rows in the input's order (anyone holding "
                        "another copy of the input in that order can then join by row "
                        "number; the default shuffles them)")
    parser.add_argument("--shuffle-seed", type=seed_option, metavar="N",
                        help="seed of the row order (default: drawn and reported)")


def output_order(args: argparse.Namespace, run_seed: int | None = None) -> dict[str, Any]:
    """The report's ``output_order``: kept, or shuffled with ``--shuffle-seed``, else the
    run's own seed (so the one seed a report gives repeats the file), else a drawn one."""
    if getattr(args, "keep_order", False):
        return {"shuffled": False, "seed": None}
    seed = getattr(args, "shuffle_seed", None)
    if seed is None:
        seed = run_seed if run_seed is not None else drawn_seed()
    return {"shuffled": True, "seed": int(seed)}


def write_json(path: Path, report: dict[str, Any]) -> None:
    """Write a JSON report atomically (NaN is refused: reports are strict JSON)."""
    from arxpy.data.atomic import atomic_write

    with atomic_write(path) as handle:
        json.dump(report, handle, indent=2, allow_nan=False)
        handle.write("\n")


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
        if name not in ("distinct", "entropy", "grassberger"):
            raise ConfigurationError(
                f"Unknown l-diversity variant '{name}' in '{spec}'; use distinct, entropy, "
                "grassberger or recursive.")
        number = _number(ell, "--ldiversity", spec, int if name == "distinct" else float)
        model: dict[str, Any] = {"kind": L_KINDS.get(name, L_KINDS["entropy"]),
                                 "attribute": attribute, "l": number}
        if name == "grassberger":
            model["estimator"] = "grassberger"
        specs.append(model)
    for spec in args.tcloseness:
        attribute, distance, t = _split(spec, "--tcloseness", 3)
        if distance not in T_DISTANCES:
            raise ConfigurationError(
                f"Unknown t-closeness distance '{distance}' in '{spec}'; use "
                f"{', '.join(T_DISTANCES)}.")
        specs.append({"kind": "t-closeness", "attribute": attribute,
                      "t": _number(t, "--tcloseness", spec), "distance": distance})
    specs += _disclosure_specs(args)
    specs += _risk_specs(args)
    return specs


def _disclosure_specs(args: argparse.Namespace) -> list[dict[str, Any]]:
    specs: list[dict[str, Any]] = []
    for spec in getattr(args, "delta_disclosure", []):
        attribute, delta = _split(spec, "--delta-disclosure", 2)
        specs.append({"kind": "delta-disclosure", "attribute": attribute,
                      "delta": _number(delta, "--delta-disclosure", spec)})
    for spec in getattr(args, "beta_likeness", []):
        attribute, variant, beta = _split(spec, "--beta-likeness", 3)
        if variant not in BETA_VARIANTS:
            raise ConfigurationError(
                f"Unknown beta-likeness variant '{variant}' in '{spec}'; use basic or enhanced.")
        specs.append({"kind": BETA_VARIANTS[variant], "attribute": attribute,
                      "beta": _number(beta, "--beta-likeness", spec)})
    return specs


def _risk_specs(args: argparse.Namespace) -> list[dict[str, Any]]:
    specs: list[dict[str, Any]] = []
    if getattr(args, "average_risk", None) is not None:
        specs.append({"kind": "average-risk", "threshold": args.average_risk})
    if getattr(args, "sample_uniqueness", None) is not None:
        specs.append({"kind": "sample-uniqueness", "threshold": args.sample_uniqueness})
    specs += _kmap_specs(args)
    specs += _delta_presence_specs(args)
    specs += _differential_privacy_specs(args)
    specs += _profitability_specs(args)
    spec = getattr(args, "population_uniqueness", None)
    if spec is not None:
        option = "--population-uniqueness"
        pieces = spec.split(":")
        if len(pieces) != 3 or not all(pieces):
            raise ConfigurationError(
                f"Cannot read {option} '{spec}'; write X:ESTIMATOR:POPULATION, "
                "e.g. 0.01:dankar:1000000.")
        threshold, estimator, population = pieces
        if estimator not in ESTIMATORS:
            raise ConfigurationError(
                f"Unknown estimator '{estimator}' in {option} '{spec}'; use "
                f"{', '.join(ESTIMATORS)}.")
        model: dict[str, Any] = {"kind": "population-uniqueness", "estimator": estimator,
                                 "threshold": _number(threshold, option, spec)}
        if population.isdigit():
            model["population_size"] = int(population)
        else:
            model["region"] = population
        specs.append(model)
    return specs


def _differential_privacy_specs(args: argparse.Namespace) -> list[dict[str, Any]]:
    text = getattr(args, "dp", None)
    extras = {"steps": getattr(args, "dp_steps", None),
              "search_share": getattr(args, "dp_search_share", None),
              "generalization": getattr(args, "dp_generalization", None)}
    if text is None:
        if any(v is not None for v in extras.values()):
            raise ConfigurationError("--dp-steps, --dp-search-share and --dp-generalization "
                                     "belong to differential privacy; add --dp EPSILON:DELTA.")
        return []
    pieces = text.split(":")
    if len(pieces) != 2 or not all(pieces):
        raise ConfigurationError(f"Cannot read --dp '{text}'; write EPSILON:DELTA, e.g. 2:1e-6.")
    model: dict[str, Any] = {"kind": "differential-privacy",
                             "epsilon": _number(pieces[0], "--dp", text),
                             "delta": _number(pieces[1], "--dp", text)}
    model.update({k: v for k, v in extras.items() if v is not None})
    if getattr(args, "seed", None) is not None:
        model["seed"] = args.seed
    return [model]


def _kmap_specs(args: argparse.Namespace) -> list[dict[str, Any]]:
    k = getattr(args, "kmap", None)
    table, size = getattr(args, "population", None), getattr(args, "population_size", None)
    estimator = getattr(args, "kmap_estimator", None)
    significance = getattr(args, "kmap_significance", None)
    if k is None:
        if size is not None or estimator or significance is not None or (
                table is not None and getattr(args, "delta_presence", None) is None
                and not str(getattr(args, "profitability", None) or "").startswith("journalist")):
            raise ConfigurationError("--population, --population-size, --kmap-estimator and "
                                     "--kmap-significance belong to k-map (--population "
                                     "also to delta-presence and journalist profitability); "
                                     "add --kmap K.")
        return []
    if (table is None) == (size is None):
        raise ConfigurationError("--kmap needs the population: give either --population FILE "
                                 "or --population-size N, not both.")
    model: dict[str, Any] = {"kind": "k-map", "k": k}
    if table is not None:
        if estimator or significance is not None:
            raise ConfigurationError("--kmap-estimator and --kmap-significance apply to "
                                     "--population-size only; a population table is exact.")
        return [{**model, "population": str(table)}]
    if size.isdigit():
        model["population_size"] = int(size)
    else:  # a region preset, as its size, so the claim checker can recompute k'
        from arxpy.risk.population import PopulationModel

        model["population_size"] = PopulationModel.from_region(size).size
    if estimator:
        model["estimator"] = estimator
    if significance is not None:
        model["significance"] = significance
    return [model]


def _delta_presence_specs(args: argparse.Namespace) -> list[dict[str, Any]]:
    text = getattr(args, "delta_presence", None)
    subset, column = getattr(args, "subset", None), getattr(args, "subset_column", None)
    if text is None:
        if subset is not None or column is not None:
            raise ConfigurationError("--subset and --subset-column belong to delta-presence; "
                                     "add --delta-presence DMIN:DMAX.")
        return []
    low, high = _bounds(text)
    population = getattr(args, "population", None)
    if population is None:
        raise ConfigurationError("--delta-presence needs the population: give --population "
                                 "FILE (a CSV of everyone, the data's records included).")
    if subset is not None and column is not None:
        raise ConfigurationError("Give the research subset by --subset FILE or by "
                                 "--subset-column ATTR, not both.")
    model: dict[str, Any] = {"kind": "delta-presence", "delta_min": low, "delta_max": high,
                             "population": str(population)}
    if subset is not None:
        _check_subset_file(Path(subset), Path(population))
        model["subset"] = str(subset)
    if column is not None:
        from arxpy.privacy.dpresence import flag_condition

        model["subset_filter"] = [flag_condition(column)]
    return [model]


def _bounds(text: str) -> tuple[float, float]:
    """``DMIN:DMAX`` of ``--delta-presence``: two numbers in [0, 1], DMIN at most DMAX."""
    low_text, sep, high_text = text.partition(":")
    if not sep:
        raise ConfigurationError(f"Cannot read --delta-presence '{text}'; write DMIN:DMAX, "
                                 "e.g. 0.05:0.5.")
    low = _number(low_text, "--delta-presence", text)
    high = _number(high_text, "--delta-presence", text)
    if not (0 <= low <= 1 and 0 <= high <= 1):
        raise ConfigurationError(f"--delta-presence '{text}': DMIN and DMAX are "
                                 "probabilities; give both between 0 and 1.")
    if low > high:
        raise ConfigurationError(f"--delta-presence '{text}': DMIN is above DMAX; give "
                                 "DMIN at most DMAX.")
    return low, high


def _check_subset_file(subset: Path, population: Path) -> None:
    """ARX's ``DataSubset.create(data, subset)``: every record of the subset file is a
    record of the population (over the columns both have), as often as it occurs."""
    from arxpy.data.csv_io import read_csv, sniff_csv

    records = read_csv(subset, sniff_csv(subset)).astype(str)
    people = read_csv(population, sniff_csv(population)).astype(str)
    shared = [c for c in records.columns if c in people.columns]
    if not shared:
        raise ConfigurationError("--subset: the subset file shares no column with "
                                 "--population; give the subset's records with the "
                                 "population's columns.")
    wanted = records[shared].value_counts()
    held = people[shared].value_counts().reindex(wanted.index, fill_value=0)
    missing = int((wanted - held).clip(lower=0).sum())
    if missing:
        raise ConfigurationError(f"--subset: {missing:,} records of the subset file are not "
                                 "in --population; the research subset must be drawn from "
                                 "the population.")


def _quality_spec(args: argparse.Namespace) -> dict[str, Any]:
    text = args.metric
    name, _, rest = text.partition(":")
    if name not in METRICS:
        raise ConfigurationError(f"Unknown metric '{name}' in --metric '{text}'; {METRIC_HELP}.")
    spec: dict[str, Any] = {"name": name}
    if name == "classification":
        attribute = rest or getattr(args, "class_attribute", None)
        if not attribute:
            raise ConfigurationError(
                "The classification metric needs its class attribute: "
                "--metric classification:ATTR (or --class-attribute ATTR).")
        spec["class_attribute"] = attribute
    elif name == "loss" and rest:
        gs, aggregate = _split(text, "--metric", 3)[1:]
        if aggregate not in LOSS_AGGREGATES:
            raise ConfigurationError(
                f"Unknown aggregate '{aggregate}' in --metric '{text}'; use "
                f"{', '.join(LOSS_AGGREGATES)}.")
        spec.update(gs_factor=_number(gs, "--metric", text), aggregate=aggregate)
    elif name in GS_METRICS and rest:
        spec["gs_factor"] = _number(rest, "--metric", text)
    elif rest:
        raise ConfigurationError(f"The metric '{name}' takes no parameters; {METRIC_HELP}.")
    if name == "payout":  # priced and attacked as --profitability says, as in ARX
        spec.update(_prices(args))
        if str(getattr(args, "profitability", None) or "").startswith("journalist"):
            spec.update(attacker="journalist", population=str(args.population))
    return spec


def settings_from_args(args: argparse.Namespace, base: dict[str, Any]) -> dict[str, Any]:
    """Project settings overridden by whatever the command line gives."""
    settings = dict(base)
    privacy = privacy_specs(args)
    if privacy:
        settings["privacy_models"] = privacy
    if getattr(args, "metric", None):
        settings["quality_model"] = _quality_spec(args)
    for key, value in (("suppression_limit", args.suppression),
                       ("strategy", getattr(args, "strategy", None)),
                       ("time_limit", getattr(args, "time_limit", None)),
                       ("step_limit", getattr(args, "step_limit", None)),
                       ("local_recoding", getattr(args, "local_recoding", None)),
                       ("local_recoding_gs_factor",
                        getattr(args, "local_recoding_gs_factor", None)),
                       *_genetic_settings(args)):
        if value is not None:
            settings[key] = value
    micro = microaggregation_options(args)
    if micro:
        settings["microaggregation"] = {**settings.get("microaggregation", {}), **micro}
    return settings


def _genetic_settings(args: argparse.Namespace) -> list[tuple[str, Any]]:
    from arxpy.engine.config import GENETIC_PARAMS

    return [(p.name, getattr(args, p.name, None)) for p in GENETIC_PARAMS]


def _load_files(args: argparse.Namespace, check: Callable[..., None] | None):
    """The data, read after the configuration is checked against its header: a missing
    hierarchy file, an unknown attribute or what ``check`` refuses costs no reading."""
    from arxpy.commands.table_source import TableSource

    encoding = getattr(args, "encoding", None)
    source = TableSource.parse(args.data)
    hierarchies = read_hierarchy_options(args.hierarchy, args.delimiter)
    roles = _roles(args, source.columns(args.delimiter, encoding), hierarchies)
    if check is not None:
        check(roles, hierarchies, settings_from_args(args, {}))
    frame = source.read(args.delimiter, encoding)
    definition = _roles(args, frame.columns, hierarchies)
    return frame, apply_attribute_options(args, frame, definition), hierarchies, {}


def load_configuration(args: argparse.Namespace, columns):
    """(definition, hierarchies, settings) of ``--data`` whose ``columns`` a record engine
    read, without loading the records (``--type`` then needs no inference: a date
    needs its format)."""
    definition, hierarchies = definition_from_options(args, columns, None)
    return definition, hierarchies, settings_from_args(args, {})


def definition_from_options(args: argparse.Namespace, columns, frame):
    """The attribute definition and hierarchies the options give for ``columns``;
    ``frame`` (or None) holds the values ``--type`` infers formats from."""
    hierarchies = read_hierarchy_options(args.hierarchy, args.delimiter)
    definition = _roles(args, columns, hierarchies)
    return apply_attribute_options(args, frame, definition), hierarchies


def _roles(args: argparse.Namespace, columns, hierarchies):
    """A definition of ``columns`` with the roles the options give (names checked)."""
    from arxpy.data.definition import AttributeType, DataDefinition

    specs = privacy_specs(args)
    sensitive = set(args.sensitive) | {s["attribute"] for s in specs if "attribute" in s}
    definition = DataDefinition.for_columns(columns)
    aggregated = set(microaggregation_options(args))
    for name in [*hierarchies, *sensitive, *args.identifying, *aggregated]:
        definition[name]  # DefinitionError naming an unknown attribute
    quasi_identifiers = (set(hierarchies) - _hierarchical_t_closeness(specs)) | aggregated
    check_roles(quasi_identifiers, sensitive, set(args.identifying))
    for name in quasi_identifiers:
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    for name in sensitive:
        definition = definition.with_attribute(name, type=AttributeType.SENSITIVE)
    for name in args.identifying:
        definition = definition.with_attribute(name, type=AttributeType.IDENTIFYING)
    return definition


def _hierarchical_t_closeness(specs: list[dict[str, Any]]) -> set[str]:
    """Sensitive attributes whose ``--hierarchy`` serves the t-closeness distance."""
    return {s["attribute"] for s in specs
            if s["kind"] == "t-closeness" and s["distance"] == "hierarchical"}


def check_roles(quasi_identifiers: set[str], sensitive: set[str],
                identifying: set[str]) -> None:
    """Refuse an attribute given two roles: it would silently lose one of them.

    A quasi-identifier named as sensitive would be released ungeneralized, so this is a
    privacy error, not a preference.
    """
    for first, second, names in (
        ("a quasi-identifier", "sensitive", quasi_identifiers & sensitive),
        ("a quasi-identifier", "identifying", quasi_identifiers & identifying),
        ("sensitive", "identifying", sensitive & identifying),
    ):
        if names:
            listed = ", ".join(f"'{n}'" for n in sorted(names))
            raise ConfigurationError(
                f"{listed} cannot be both {first} and {second}. A quasi-identifier is "
                "generalized (--hierarchy), a sensitive attribute is released as is and "
                "protected by --sensitive/--ldiversity/--tcloseness, an identifying one is "
                "removed; give each attribute one role.")


def _load_project(args: argparse.Namespace):
    from arxpy.data.definition import AttributeType
    from arxpy.project import Project

    project = Project.load(args.project)
    definition = project.definition
    check_roles(set(definition.quasi_identifiers), set(args.sensitive),
                set(args.identifying))
    for name in args.identifying:
        definition = definition.with_attribute(name, type=AttributeType.IDENTIFYING)
    for name in args.sensitive:
        definition = definition.with_attribute(name, type=AttributeType.SENSITIVE)
    for name in microaggregation_options(args):
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    definition = apply_attribute_options(args, project.data, definition)
    return project.data, definition, project.hierarchies, dict(project.settings or {})


def _assignments(items: list[str], option: str) -> list[tuple[str, str]]:
    pairs = []
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise ConfigurationError(f"Cannot read {option} '{item}'; write ATTR=VALUE.")
        pairs.append((name, value))
    return pairs


def apply_attribute_options(args: argparse.Namespace, frame, definition):
    """The definition with ``--weight``, ``--min-level``, ``--max-level`` and ``--type``."""
    for name, value in _assignments(getattr(args, "weight", []), "--weight"):
        definition[name]  # DefinitionError naming an unknown attribute
        weight = _number(value, "--weight", f"{name}={value}")
        if not math.isfinite(weight) or weight <= 0:
            raise ConfigurationError(
                f"The weight in --weight {name}={value} must be a positive number.")
        definition = definition.with_attribute(name, weight=weight)
    for option, field in (("--min-level", "min_level"), ("--max-level", "max_level")):
        for name, value in _assignments(getattr(args, field, []), option):
            definition[name]
            definition = definition.with_attribute(
                name, **{field: _number(value, option, f"{name}={value}", int)})
    for name, value in _assignments(getattr(args, "data_type", []), "--type"):
        definition[name]
        definition = definition.with_attribute(
            name, data_type=_data_type(name, value, None if frame is None else frame[name]))
    return definition


def _data_type(name: str, text: str, values):
    """``integer``, ``decimal``, ``date[:FORMAT]`` or ``string``; formats inferred if absent."""
    from arxpy.data.definition import DataKind, DataType
    from arxpy.data.types import infer_data_type

    kind, _, form = text.partition(":")
    if kind not in DATA_TYPES:
        raise ConfigurationError(
            f"Unknown data type '{kind}' in --type {name}={text}; use {', '.join(DATA_TYPES)}.")
    if kind == "string":
        return DataType()
    if form:
        return DataType(DataKind(kind), form)
    if values is None:  # the records stay with a record engine: nothing to infer from
        if kind == "date":
            raise ConfigurationError(
                f"Give the date format of '{name}' (--type {name}=date:%Y-%m-%d): with a "
                "record engine the values are not read to infer it.")
        return DataType(DataKind(kind))
    inferred = infer_data_type(values)
    if inferred.kind.value == kind or (kind == "decimal" and inferred.kind is DataKind.INTEGER):
        return DataType(DataKind(kind), inferred.format if inferred.kind.value == kind else None)
    if kind == "date":
        raise ConfigurationError(
            f"The values of '{name}' are not dates in a format arxpy recognizes; give the "
            f"format: --type {name}=date:%Y-%m-%d.")
    raise ConfigurationError(
        f"The values of '{name}' are not all {kind} numbers (they look like "
        f"{inferred.describe()}); choose another --type.")


class ProgressBar:
    """A one-line text progress bar, redrawn in place."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width, self._drawn = width, False

    def __call__(self, fraction: float, message: str) -> None:
        filled = int(round(fraction * self.width))
        bar = "#" * filled + "-" * (self.width - filled)
        self._drawn = True  # first: a Ctrl-C during the write still ends the line on close
        self.stream.write(f"\r[{bar}] {fraction * 100:5.1f}% {message[:50]:<50}")
        self.stream.flush()

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
