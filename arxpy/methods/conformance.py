"""The conformance battery: what every registered method must do (scikit-learn's
``check_estimator`` shape).

Each ``check_*`` function takes a method class and a :class:`Fixture` (a tiny table, its
definition, hierarchies where the method needs them, and example parameters that fit the
table) and raises :class:`ConformanceError` naming the method and what is wrong, or
returns quietly. :data:`CHECKS` lists them by property; :func:`check_method` runs them
all. ``tests/test_method_conformance.py`` runs every check on every registered method
(``method_classes()``), so a method that breaks one cannot be registered in a green
suite; ``docs/architecture.md`` ("Adding a method") says what a method provides.

Every check runs the method on deep copies of the fixture, so one method's misbehaviour
cannot leak into the next check. Qt-free: the form round trip takes the form as a
function (:func:`check_form_round_trip`); the GUI's test module supplies
``gui/param_form.py``. The 200 ms cancel bound needs a wall clock and a larger input
(:func:`check_cancel_latency`, run under the ``perf`` marker).
"""

from __future__ import annotations

import argparse
import copy
import math
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.errors import CancelledError, ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, Progress
from arxpy.methods.base import ROW_ORDERS, Method
from arxpy.methods.options import add_param_options, option_text, params_from_args
from arxpy.params import Param
from arxpy.release import Release, table_sha256
from arxpy.release.claims import checkable_kinds

#: The seed the reproducibility check uses when the example gives none.
SEED = 29


class ConformanceError(AssertionError):
    """A method breaks a property of the methods protocol (the message says which).

    From :func:`check_method`, ``failures`` holds each failed check's message by the
    property's name in :data:`CHECKS` (``"form"`` for the form round trip)."""

    def __init__(self, message: str, failures: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.failures = dict(failures or {})


@dataclass(frozen=True)
class Fixture:
    """A tiny input a method runs on: a table, its definition, hierarchies where the
    method needs them, and example parameters that fit the table (the others keep their
    defaults). ``unchanged_columns`` are columns the method releases as they are: the
    row-order check compares them with the input records the rows stand for.
    """

    data: pd.DataFrame
    definition: DataDefinition
    params: Mapping[str, Any] = field(default_factory=dict)
    hierarchies: Mapping[str, Hierarchy] | None = None
    unchanged_columns: tuple[str, ...] = ()

    def copy(self) -> Fixture:
        """Deep copies of the table, definition, parameters and hierarchies."""
        return Fixture(self.data.copy(deep=True), copy.deepcopy(self.definition),
                       copy.deepcopy(dict(self.params)),
                       None if self.hierarchies is None else copy.deepcopy(
                           dict(self.hierarchies)),
                       self.unchanged_columns)


@dataclass(frozen=True)
class CommandLine:
    """A method's command parser (``arxpy run METHOD``) and the arguments it needs
    besides the parameters (``--data``, ``--output``)."""

    parser: argparse.ArgumentParser
    required: tuple[str, ...] = ()


#: ``fill(params, values, attributes)``: a form built from ``params``, filled with
#: ``values`` and offering ``attributes``, returns the values it holds.
FormFill = Callable[[Sequence[Param], Mapping[str, Any], Sequence[str]], Mapping[str, Any]]


# --- running a method --------------------------------------------------------------------


def _who(method_class: type[Method]) -> str:
    return f"Method '{method_class.name}'"


def _fail(method_class: type[Method], text: str) -> ConformanceError:
    return ConformanceError(f"{_who(method_class)} {text}")


def make_method(method_class: type[Method], params: Mapping[str, Any],
                what: str = "the example parameters") -> Method:
    """The method with ``params``; ConformanceError if its constructor refuses them."""
    try:
        return method_class(**params)
    except ConfigurationError as exc:
        raise _fail(method_class, f"refuses {what}: {exc}") from None


def example_params(method_class: type[Method], fixture: Fixture) -> dict[str, Any]:
    """Every parameter of the method made with the fixture's example parameters."""
    return copy.deepcopy(make_method(method_class, fixture.params).get_params())


def release_of(method_class: type[Method], outcome: Any) -> Release:
    """The release ``run`` returned, or a search result's default candidate."""
    if isinstance(outcome, Release):
        return outcome
    candidate = getattr(outcome, "release", None)
    if not callable(candidate):
        raise _fail(method_class, f"returned a {type(outcome).__name__}, neither a Release "
                                  "nor a result with .release()")
    release = candidate()
    if not isinstance(release, Release):
        raise _fail(method_class, f"returned a result whose .release() is a "
                                  f"{type(release).__name__}, not a Release")
    return release


def run_release(method_class: type[Method], fixture: Fixture, *,
                params: Mapping[str, Any] | None = None, progress: Progress | None = None,
                cancel: CancelToken | None = None) -> Release:
    """Run the method on deep copies of the fixture (``params`` over its example
    parameters) and return the release."""
    given = fixture.copy()
    method = make_method(method_class, {**given.params, **dict(params or {})})
    outcome = method.run(given.data, given.definition, hierarchies=given.hierarchies,
                         progress=progress, cancel=cancel)
    return release_of(method_class, outcome)


# --- the checks ------------------------------------------------------------------------


def check_returns_release(method_class: type[Method], fixture: Fixture) -> None:
    """``run`` returns a Release (or a result with ``.release()``) of this method, with the
    input table's ``input_sha256`` and one suppression flag (and group) per row."""
    release = run_release(method_class, fixture)
    expected = table_sha256(fixture.data)
    if release.input_sha256 != expected:
        raise _fail(method_class, f"reports input_sha256 {release.input_sha256[:12]}..., "
                                  f"but the input table's is {expected[:12]}...")
    if release.method != method_class.name:
        raise _fail(method_class, f"names its release's method '{release.method}'")
    rows = len(release.table)
    if len(release.suppressed) != rows:
        raise _fail(method_class, f"gives {len(release.suppressed)} suppression flags for "
                                  f"{rows} table rows")
    if release.groups is not None and len(release.groups) != rows:
        raise _fail(method_class, f"gives {len(release.groups)} group ids for {rows} "
                                  "table rows")


def check_row_order(method_class: type[Method], fixture: Fixture) -> None:
    """Rows are in the order ``row_order()`` documents: input order, a permutation that
    ``input_rows()`` gives, or linked to no record (``input_rows()`` None); columns the
    fixture names as unchanged show, in row i, the value of record ``input_rows()[i]``."""
    order = make_method(method_class, fixture.params).row_order()
    if order not in ROW_ORDERS:
        raise _fail(method_class, f"documents the row order {order!r}; use one of "
                                  f"{', '.join(ROW_ORDERS)}")
    release = run_release(method_class, fixture)
    rows = release.input_rows()
    if order == "unlinked":
        if rows is not None:
            raise _fail(method_class, "says its rows stand for no record, but "
                                      "input_rows() links them to records")
        return
    if rows is None:
        raise _fail(method_class, f"says its rows are in {order} order, but input_rows() "
                                  "is None")
    n = len(fixture.data)
    rows = np.asarray(rows)
    if len(release.table) != n:
        raise _fail(method_class, f"releases {len(release.table)} rows for {n} records in "
                                  f"{order} order (suppressed records keep their row)")
    if rows.shape != (n,) or not np.array_equal(np.sort(rows), np.arange(n)):
        raise _fail(method_class, "gives input_rows() that are not one row per record")
    if order == "input" and not np.array_equal(rows, np.arange(n)):
        raise _fail(method_class, "says its rows are in input order, but input_rows() "
                                  "is another order")
    released = ~np.asarray(release.suppressed, dtype=bool)
    for column in fixture.unchanged_columns:
        shown = release.table[column].astype(str).to_numpy()[released]
        source = fixture.data[column].astype(str).to_numpy()[rows][released]
        if not np.array_equal(shown, source):
            row = int(np.flatnonzero(shown != source)[0])
            raise _fail(method_class, f"releases '{column}' out of order: a released row "
                                      f"shows {shown[row]!r} where its record "
                                      f"({order} order) holds {source[row]!r}")


def check_claims_verified(method_class: type[Method], fixture: Fixture) -> None:
    """The release claims something, every claim's kind has a checker in the claim
    registry, every check holds, and ``release.anonymous`` (the one verdict) is True
    whenever a claim protects (a method that only transforms values, top coding say,
    claims how it did so and is never called anonymous by itself)."""
    release = run_release(method_class, fixture)
    if not release.claims:
        raise _fail(method_class, "claims no privacy property")
    known = set(checkable_kinds())
    verdict = release.verify()
    for check in verdict.checks:
        if check.claim.kind not in known:
            raise _fail(method_class, f"claims '{check.claim.kind}', a kind without a "
                                      "checker; register one (register_claim_checker)")
        if check.holds is not True:
            raise _fail(method_class, f"makes a claim that is not verified: {check.text}")
    if verdict.protecting and not release.anonymous:
        raise _fail(method_class, f"releases what the verdict calls not anonymous: "
                                  f"{verdict.headline}")


def check_progress(method_class: type[Method], fixture: Fixture) -> None:
    """Progress reports are fractions in [0, 1], never go back, and end at 1.0."""
    reports: list[tuple[Any, Any]] = []
    run_release(method_class, fixture,
                progress=lambda fraction, message: reports.append((fraction, message)))
    if not reports:
        raise _fail(method_class, "reports no progress")
    last = 0.0
    for fraction, message in reports:
        if isinstance(fraction, bool) or not isinstance(fraction, int | float | np.number) \
                or not 0.0 <= float(fraction) <= 1.0:
            raise _fail(method_class, f"reports progress {fraction!r} ({message!r}), "
                                      "outside [0, 1]")
        if not isinstance(message, str):
            raise _fail(method_class, f"reports progress with a message {message!r} that is "
                                      "not text")
        if fraction < last:
            raise _fail(method_class, f"reports progress going back from {last:g} to "
                                      f"{float(fraction):g} ({message!r})")
        last = float(fraction)
    if last != 1.0:
        raise _fail(method_class, f"ends its progress at {last:g}, not 1.0")


def check_cancel(method_class: type[Method], fixture: Fixture) -> None:
    """A token cancelled inside the first progress report makes ``run`` raise
    CancelledError: nothing is returned (no wall clock; see :func:`check_cancel_latency`)."""
    token = CancelToken()
    reports: list[float] = []

    def progress(fraction: float, message: str) -> None:
        reports.append(fraction)
        token.cancel()

    try:
        release = run_release(method_class, fixture, progress=progress, cancel=token)
    except CancelledError:
        return
    if not reports:
        raise _fail(method_class, "reports no progress, so it cannot be cancelled from a "
                                  "progress report")
    raise _fail(method_class, f"returned a {type(release).__name__} although its job was "
                              f"cancelled at its first progress report ({reports[0]:g})")


def check_inputs_unchanged(method_class: type[Method], fixture: Fixture) -> None:
    """The caller's table, definition, hierarchies and parameter objects, and the
    method's own parameters, are the same after a run as before."""
    given = fixture.copy()  # what the caller hands over
    kept = given.copy()     # what it held before
    method = make_method(method_class, given.params)
    stored = copy.deepcopy(method.get_params())
    method.run(given.data, given.definition, hierarchies=given.hierarchies)
    try:
        pd.testing.assert_frame_equal(given.data, kept.data, check_exact=True)
    except AssertionError as exc:
        raise _fail(method_class, f"changes the caller's data frame: {exc}") from None
    if given.definition != kept.definition:
        raise _fail(method_class, "changes the caller's data definition")
    if not same(given.hierarchies, kept.hierarchies):
        raise _fail(method_class, "changes the caller's hierarchies")
    if not same(given.params, kept.params):
        raise _fail(method_class, f"changes the parameter objects it was given: "
                                  f"{differences(given.params, kept.params)}")
    if not same(method.get_params(), stored):
        raise _fail(method_class, f"changes its own parameters while running: "
                                  f"{differences(method.get_params(), stored)}")


def check_reproducible(method_class: type[Method], fixture: Fixture) -> None:
    """The same seed gives the same ``output_sha256`` and the release reports it; a seed
    left out is drawn, reported, and reproduces the output. Without a ``seed``
    parameter, two runs give the same output."""
    declared = {p.name: p for p in method_class.params}
    if "seed" not in declared:
        first, second = run_release(method_class, fixture), run_release(method_class, fixture)
        if first.output_sha256 != second.output_sha256:
            raise _fail(method_class, "has no seed parameter but gives a different output "
                                      "each run")
        return
    given = example_params(method_class, fixture)["seed"]
    seed = SEED if given is None else given
    first = run_release(method_class, fixture, params={"seed": seed})
    second = run_release(method_class, fixture, params={"seed": seed})
    if first.output_sha256 != second.output_sha256:
        raise _fail(method_class, f"gives different outputs for the same seed {seed}")
    if first.seed != seed:
        raise _fail(method_class, f"reports seed {first.seed!r} for a run with seed {seed}")
    if not declared["seed"].optional:
        return
    drawn = run_release(method_class, fixture, params={"seed": None})
    again = run_release(method_class, fixture, params={"seed": drawn.seed})
    if drawn.output_sha256 != again.output_sha256:
        raise _fail(method_class, f"reports seed {drawn.seed!r} for a run without one, but "
                                  "that seed does not reproduce the output")


def check_bounds(method_class: type[Method], fixture: Fixture) -> None:
    """Every declared bound violated (a number just below ``low`` or above ``high``, a
    value outside the choices) raises ConfigurationError naming the parameter."""
    example = example_params(method_class, fixture)
    for param in method_class.params:
        for value in violations(param):
            try:
                method_class(**{**example, param.name: value})
            except ConfigurationError as exc:
                if not names_parameter(str(exc), param):
                    raise _fail(method_class, f"refuses {param.name} = {value!r} with a "
                                              f"message that does not name it: {exc}") from None
            else:
                raise _fail(method_class, f"accepts {param.name} = {value!r}, outside its "
                                          f"declaration ({_declared(param)})")


def check_cli_round_trip(method_class: type[Method], fixture: Fixture,
                         command_line: CommandLine | None = None) -> None:
    """``--help`` lists an option per parameter, and the example parameters written as
    options are read back (``parse_value``) as the same parameters.

    ``command_line`` is the method's ``arxpy run METHOD`` parser (the commands layer
    builds it); without it, a parser with the same generated options is checked."""
    if command_line is None:
        parser = argparse.ArgumentParser(prog=f"arxpy run {method_class.name}")
        add_param_options(parser, method_class.params, prefix=method_class.name)
        command_line = CommandLine(parser)
    parser = command_line.parser
    shown = parser.format_help()
    options: dict[str, str] = {}
    for param in method_class.params:
        action = next((a for a in parser._actions if a.dest == f"param_{param.name}"), None)
        if action is None or not action.option_strings:
            raise _fail(method_class, f"has no command-line option for {param.name}")
        if not any(option in shown for option in action.option_strings):
            raise _fail(method_class, f"does not list {action.option_strings[0]} in --help")
        options[param.name] = action.option_strings[0]
    example = example_params(method_class, fixture)
    argv = list(command_line.required)
    for param in method_class.params:
        if example[param.name] is not None:
            argv += [options[param.name], option_text(param, example[param.name])]
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        raise _fail(method_class, f"cannot read its example options: {argv}") from None
    read = params_from_args(args, method_class.params)
    back = make_method(method_class, read, "the parameters read from its options")
    if not same(back.get_params(), example):
        raise _fail(method_class, f"reads its options back as other parameters: "
                                  f"{differences(back.get_params(), example)}")


def check_form_round_trip(method_class: type[Method], fixture: Fixture, fill: FormFill) -> None:
    """A form generated from the declaration, filled with the example parameters, gives
    them back (``fill`` builds the form; see :data:`FormFill`)."""
    example = example_params(method_class, fixture)
    try:
        values = fill(method_class.params, example, list(map(str, fixture.data.columns)))
    except (ValueError, TypeError, ConfigurationError) as exc:
        raise _fail(method_class, f"cannot show its example parameters in a form: "
                                  f"{exc}") from None
    back = make_method(method_class, values, "the parameters its form gives back")
    if not same(back.get_params(), example):
        raise _fail(method_class, f"gets other parameters back from its form: "
                                  f"{differences(back.get_params(), example)}")


#: Every check that needs neither Qt nor a wall clock, by the property it checks.
CHECKS: dict[str, Callable[[type[Method], Fixture], None]] = {
    "returns a release": check_returns_release,
    "row order": check_row_order,
    "claims verified": check_claims_verified,
    "progress": check_progress,
    "cancel": check_cancel,
    "inputs unchanged": check_inputs_unchanged,
    "reproducible": check_reproducible,
    "bounds": check_bounds,
    "command line": check_cli_round_trip,
}


def check_method(method_class: type[Method], fixture: Fixture, *,
                 command_line: CommandLine | None = None, form: FormFill | None = None) -> None:
    """Run every check of :data:`CHECKS` (and the form round trip if ``form`` is given);
    one ConformanceError lists every property the method breaks."""
    failures: dict[str, str] = {}
    for name, check in CHECKS.items():
        try:
            if check is check_cli_round_trip:
                check_cli_round_trip(method_class, fixture, command_line)
            else:
                check(method_class, fixture)
        except ConformanceError as exc:
            failures[name] = str(exc)
    if form is not None:
        try:
            check_form_round_trip(method_class, fixture, form)
        except ConformanceError as exc:
            failures["form"] = str(exc)
    if failures:
        raise ConformanceError(
            f"{_who(method_class)} fails {len(failures)} check(s):\n"
            + "\n".join(f"{name}: {text}" for name, text in failures.items()), failures)


def check_cancel_latency(method_class: type[Method], fixture: Fixture, *,
                         seconds: float = 0.2, at: Sequence[float] = (0.25, 0.5, 0.75)
                         ) -> list[float]:
    """Cancelled at each share ``at`` of an uncancelled run's duration, the run ends
    within ``seconds`` and returns nothing; the measured latencies in seconds (0 where
    the run had finished before the cancel). Needs an input that takes a while."""
    started = time.perf_counter()
    run_release(method_class, fixture)
    duration = time.perf_counter() - started
    latencies = []
    for share in at:
        given = fixture.copy()
        method = make_method(method_class, given.params)
        token = CancelToken()
        ended: dict[str, Any] = {}

        def work(method: Method = method, given: Fixture = given, token: CancelToken = token,
                 ended: dict[str, Any] = ended) -> None:
            try:
                method.run(given.data, given.definition, hierarchies=given.hierarchies,
                           cancel=token)
                ended["outcome"] = "returned"
            except CancelledError:
                ended["outcome"] = "cancelled"
            except BaseException as exc:  # handed to the caller below
                ended["outcome"] = exc
            ended["at"] = time.perf_counter()

        worker = threading.Thread(target=work, name="conformance-cancel", daemon=True)
        worker.start()
        time.sleep(share * duration)
        cancelled_at = time.perf_counter()
        token.cancel()
        worker.join(duration + 10 * seconds)
        if worker.is_alive():
            raise _fail(method_class, f"still runs {duration + 10 * seconds:.1f} s after its "
                                      "job was cancelled")
        if isinstance(ended["outcome"], BaseException):
            raise ended["outcome"]
        latency = max(0.0, ended["at"] - cancelled_at)
        if ended["outcome"] == "returned" and latency > 0:
            raise _fail(method_class, f"returned a release {latency * 1000:.0f} ms after its "
                                      f"job was cancelled at {share:.0%} of a {duration:.2f} s "
                                      "run")
        if latency > seconds:
            raise _fail(method_class, f"took {latency * 1000:.0f} ms to stop after its job "
                                      f"was cancelled at {share:.0%} of a "
                                      f"{duration:.2f} s run (at most {seconds * 1000:.0f} ms)")
        latencies.append(latency)
    return latencies


# --- helpers -------------------------------------------------------------------------------


def violations(param: Param) -> list[Any]:
    """Values just outside the declaration: below ``low``, above ``high``, not a choice."""
    out: list[Any] = []
    if param.kind == "int":
        if param.low is not None:
            out.append(math.floor(param.low) if param.low_open else math.ceil(param.low) - 1)
        if param.high is not None:
            out.append(math.ceil(param.high) if param.high_open else
                       math.floor(param.high) + 1)
    elif param.kind == "float":
        if param.low is not None:
            out.append(float(param.low) if param.low_open else
                       float(np.nextafter(param.low, -math.inf)))
        if param.high is not None:
            out.append(float(param.high) if param.high_open else
                       float(np.nextafter(param.high, math.inf)))
    elif param.kind == "choice":
        out.append("|".join(map(str, param.choices)) + "|not-a-choice")
    return out


def names_parameter(message: str, param: Param) -> bool:
    """Does ``message`` name ``param`` by its name or its label (as the GUI marks the
    field a message names)?"""
    return any(re.search(rf"\b{re.escape(word)}\b", message)
               for word in {param.name, param.title})


def _declared(param: Param) -> str:
    if param.choices:
        return "one of " + ", ".join(map(str, param.choices))
    return param.range_text()


def same(a: Any, b: Any) -> bool:
    """Deep equality of parameter values (mappings, sequences, arrays, numbers, text)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool | np.bool_) or isinstance(b, bool | np.bool_):
        return isinstance(a, bool | np.bool_) and isinstance(b, bool | np.bool_) and a == b
    numbers = int | float | np.integer | np.floating
    if type(a) is not type(b) and not (isinstance(a, numbers) and isinstance(b, numbers)):
        return False
    return bool(a == b)


def differences(got: Mapping[str, Any] | None, expected: Mapping[str, Any] | None) -> str:
    """The keys whose values differ, as ``name: got != expected``."""
    got, expected = dict(got or {}), dict(expected or {})
    keys = list(dict.fromkeys([*expected, *got]))
    shown = [f"{k}: {got.get(k, '(missing)')!r} != {expected.get(k, '(missing)')!r}"
             for k in keys if not same(got.get(k, "(missing)"), expected.get(k, "(missing)"))]
    return "; ".join(shown) or "no key differs"
