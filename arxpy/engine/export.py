"""Exporting a transformation's output, its hierarchies and a human-readable report.

The same code serves the GUI's export dialog and the command line. Every file is
written atomically (:func:`arxpy.data.atomic.atomic_write`) and nothing is written
when any target already exists, unless ``overwrite`` is set: the user confirms first.
Identifying attributes never leave the program; suppressed records are kept with ``*``
in every quasi-identifier (ARX's convention) or removed.
"""

from __future__ import annotations

import datetime as _dt
import html
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arxpy.data.atomic import atomic_write
from arxpy.data.codes import group_sizes
from arxpy.data.export import export_table
from arxpy.engine.backends.base import shuffle_order
from arxpy.engine.result import Result
from arxpy.errors import ArxpyError, DataExportError
from arxpy.formatting import figure
from arxpy.hierarchy.io import write_hierarchy
from arxpy.lattice.classes import EquivalenceClasses
from arxpy.quality.registry import quality_model_from_dict, quality_model_names
from arxpy.release import Release

#: Rows of the output shown in a report.
REPORT_EXCERPT_ROWS = 20


def hierarchy_path(data_path: Path, attribute: str) -> Path:
    """Where :func:`export_release` writes ``attribute``'s hierarchy beside ``data_path``."""
    safe = re.sub(r"[^\w.-]+", "_", attribute).strip("_") or "attribute"
    return data_path.with_name(f"{data_path.stem}_hierarchy_{safe}.csv")


def refuse_existing(paths: Sequence[Path]) -> None:
    """Raise DataExportError naming the first existing file among ``paths``."""
    existing = [p for p in paths if Path(p).exists()]
    if existing:
        more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
        raise DataExportError(
            f"'{existing[0]}'{more} already exists; choose another name or confirm "
            "overwriting."
        )


def export_release(
    release: Release,
    path: str | os.PathLike[str],
    *,
    remove_suppressed: bool | None = None,
    with_hierarchies: bool = False,
    overwrite: bool = False,
    delimiter: str | None = None,
    neutralize_formulas: bool = False,
    shuffle_seed: int | None = None,
) -> list[Path]:
    """Write a release's table to CSV or Excel, with its hierarchies if asked.

    With ``shuffle_seed`` the rows are written in the random order that seed gives
    (:func:`shuffled`): the same seed, the same file; None keeps the table's order.

    The format follows the extension (.csv, .tsv, .txt, .xlsx); ``delimiter`` is the CSV
    delimiter (default: the format's, see :func:`export_table`); ``remove_suppressed``
    None follows the release's setting. Returns the files written: the data first, then
    with ``with_hierarchies`` one ARX hierarchy CSV per generalized quasi-identifier (see
    :func:`hierarchy_path`). Without ``overwrite``, raises DataExportError naming an
    existing target before anything is written. ``neutralize_formulas`` protects CSV
    cells and hierarchy labels against formula injection (see :func:`export_table`).
    """
    target = Path(path)
    hierarchies = dict(release.hierarchies) if with_hierarchies else {}
    targets = [target] + [hierarchy_path(target, name) for name in hierarchies]
    if not overwrite:
        refuse_existing(targets)
    frame = released_frame(release, remove_suppressed)
    # the rows are gathered block by block as written, not copied in shuffled order first
    order = None if shuffle_seed is None else shuffle_order(len(frame), shuffle_seed)
    written = [export_table(frame, target, delimiter=delimiter,
                            neutralize_formulas=neutralize_formulas, row_order=order)]
    for name, hierarchy in hierarchies.items():
        destination = hierarchy_path(target, name)
        try:
            write_hierarchy(hierarchy, destination, neutralize_formulas=neutralize_formulas)
        except ArxpyError as exc:
            raise DataExportError(str(exc)) from None
        written.append(destination)
    return written


def shuffled(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """``frame``'s rows in the random order ``seed`` gives (:func:`shuffle_order`, the
    order every record engine writes for that seed).

    A release whose rows keep the input's order can be joined back to another copy of
    the input by row number (ARX shuffles since its issue #218); written files are
    shuffled unless the user asks to keep the order.
    """
    return frame.iloc[shuffle_order(len(frame), seed)].reset_index(drop=True)


def released_frame(release: Release, remove_suppressed: bool | None = None) -> pd.DataFrame:
    """The table as released: identifying attributes removed, suppressed rows ``*`` or gone."""
    frame = release.export_table(remove_suppressed)
    # Methods already drop them; dropping again keeps the promise if one ever does not.
    identifying = [c for c in release.definition.identifying if c in frame.columns]
    return frame.drop(columns=identifying)


# --- verification and summary (shared by the report and the GUI) ---------------------------

@dataclass(frozen=True)
class ModelVerification:
    """One privacy model re-checked on an output's classes."""

    description: str
    failing_classes: int  # classes violating the model (these are suppressed)
    failing_records: int
    holds: bool  # every released class meets it and the dataset-level condition holds


@dataclass(frozen=True)
class OutputSummary:
    """What a user needs to judge one output: verification, classes, risks."""

    levels: tuple[int, ...]
    anonymous: bool
    achieved_k: int  # smallest class among released records, by grouping the table itself
    n_classes: int
    suppressed_records: int
    records: int
    class_sizes: np.ndarray  # sizes of the released classes
    highest_risk: float  # prosecutor risk: 1 / smallest class
    average_risk: float  # classes / released records
    records_at_highest: float  # fraction of released records at the highest risk
    models: tuple[ModelVerification, ...]


def summarize_output(result: Result, levels: Sequence[int] | None, *,
                     regroup: bool = True) -> OutputSummary:
    """Re-check the privacy models on the output of ``levels`` and compute its risks.

    With ``regroup``, ``achieved_k`` comes from grouping the released table's
    quasi-identifier columns (independent of the engine's classes, for reports);
    otherwise from the engine's kept classes, which is much cheaper (for interactive
    views). Risks use :mod:`arxpy.risk`'s prosecutor model over the released records.
    """
    from arxpy.risk import ClassSizeHistogram, sample_risks

    release = result.release(levels)
    classes, kept = result.classes_of(release.levels)
    models = tuple(_verify(model, classes, kept) for model in result.config.privacy_models)
    class_sizes = classes.sizes[kept]
    if regroup:
        table_sizes = group_sizes(release.released(), result.quasi_identifiers)
    else:
        table_sizes = class_sizes
    risks = sample_risks(ClassSizeHistogram.from_class_sizes(class_sizes))
    return OutputSummary(
        levels=release.levels,
        anonymous=release.anonymous,
        achieved_k=int(table_sizes.min()) if len(table_sizes) else 0,
        n_classes=int(kept.sum()),
        suppressed_records=release.suppressed_records,
        records=release.records,
        class_sizes=np.asarray(class_sizes, dtype=np.int64),
        highest_risk=float(risks.prosecutor.highest),
        average_risk=float(risks.prosecutor.average),
        records_at_highest=float(risks.prosecutor.records_at_highest),
        models=models,
    )


def _verify(model, classes: EquivalenceClasses, kept: np.ndarray) -> ModelVerification:
    satisfied = np.asarray(model.satisfied(classes), dtype=bool)
    failing = ~satisfied
    holds = bool(np.all(satisfied[kept])) and bool(model.dataset_satisfied(classes, kept))
    return ModelVerification(model.describe(), int(failing.sum()),
                             int(classes.sizes[failing].sum()), holds)


def quality_scores(result: Result, levels: Sequence[int] | None) -> dict[str, float | str]:
    """Score of ``levels`` under every registered quality model with default parameters
    (the configured model with its own); a model that cannot score says why (a string)."""
    configured = result.config.quality_model
    scores: dict[str, float | str] = {}
    for name in quality_model_names():
        label = name
        try:
            if name == configured.name:  # the search's score, if it has one
                label = configured.label
                scores[label] = result.configured_score(levels)
                continue
            model = quality_model_from_dict({"name": name})
            label = model.label
            scores[label] = result.score_under(levels, model)
        except (ArxpyError, TypeError) as exc:
            reason = str(exc) if isinstance(exc, ArxpyError) else "needs parameters"
            scores[label] = f"not available: {reason}"
    return scores


# --- the HTML report ------------------------------------------------------------------------

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0; }
td, th { border: 1px solid #ccc; padding: .2em .6em; text-align: left; font-size: .92em; }
th { background: #f0f0f0; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.ok { color: #1a7f37; font-weight: bold; } .fail { color: #b3261e; font-weight: bold; }
.note { color: #555; font-size: .9em; }
"""


def write_report(result: Result, levels: Sequence[int] | None,
                 path: str | os.PathLike[str], *, overwrite: bool = False,
                 identifiers: Mapping[str, Any] | None = None) -> Path:
    """Write a self-contained HTML report of transformation ``levels`` (None: optimum).

    The release's report (:func:`release_report_html`) with the lattice search's own
    sections: configuration, transformation (levels with hierarchy labels), privacy
    the classes each privacy model made the search suppress, quality scores. Raises DataExportError
    if ``path`` exists and not ``overwrite``. ``identifiers`` (the report's record of
    issue 32's treatments) adds a section naming them.
    """
    return _write_html(report_html(result, levels, identifiers), path, overwrite)


def write_release_report(release: Release, path: str | os.PathLike[str], *,
                         overwrite: bool = False,
                         identifiers: Mapping[str, Any] | None = None) -> Path:
    """Write a self-contained HTML report of any method's release (see
    :func:`release_report_html`); DataExportError if ``path`` exists and not ``overwrite``."""
    return _write_html(release_report_html(release, identifiers=identifiers), path,
                       overwrite)


def _write_html(text: str, path: str | os.PathLike[str], overwrite: bool) -> Path:
    target = Path(path)
    if not overwrite:
        refuse_existing([target])
    with atomic_write(target, "w", encoding="utf-8") as handle:
        handle.write(text)
    return target


def report_html(result: Result, levels: Sequence[int] | None,
                identifiers: Mapping[str, Any] | None = None) -> str:
    """The lattice search's report of one transformation (see :func:`write_report`)."""
    summary = summarize_output(result, levels)
    release = result.release(summary.levels)
    note = (f"{result.transformations_checked:,} of {result.lattice_size:,} transformations "
            "checked.")
    sections = [_configuration(result), _levels_table(result, summary.levels),
                _verification(summary), _quality(result, summary.levels)]
    return release_report_html(release, f"transformation {list(summary.levels)}", note,
                               sections, identifiers)


def release_report_html(release: Release, subject: str | None = None, note: str = "",
                        sections: Sequence[str] = (),
                        identifiers: Mapping[str, Any] | None = None) -> str:
    """A self-contained HTML report of a release, whatever method made it.

    Sections: the method's ``sections`` (if any), the release's verdict (claims checked
    independently), classes and prosecutor risks over the declared quasi-identifiers
    recounted from the released table, provenance
    (parameters, hashes, versions, seed, time), and the first
    :data:`REPORT_EXCERPT_ROWS` rows. With ``identifiers`` (a treatments record, see
    docs/identifiers.md), the treatments, the key's fingerprint and the date shift's
    range: never a key or an original identifier.
    """
    subject = subject or f"{release.method} release"
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>arxpy report {html.escape(subject)}</title><style>{_STYLE}</style>"
        "</head><body>",
        f"<h1>De-identification report: {html.escape(subject)}</h1>",
        f"<p class='note'>Written {_dt.datetime.now():%Y-%m-%d %H:%M} by arxpy "
        f"({html.escape(release.method)}). {release.records:,} input records. "
        f"{html.escape(note)}</p>",
        *sections,
        _identifiers(identifiers) if identifiers else "",
        _verdict(release),
        _classes_and_risk(release),
        _provenance(release),
        _excerpt(release),
        "</body></html>",
    ]
    return "\n".join(parts)


def _table(rows: Sequence[Sequence[object]], header: Sequence[str] | None = None) -> str:
    def cell(value: object, tag: str = "td") -> str:
        if isinstance(value, _Raw):
            return f"<{tag}>{value}</{tag}>"
        numeric = isinstance(value, int | float | np.integer | np.floating)
        text = _fmt(value) if numeric else html.escape(str(value))
        return f"<{tag} class='num'>{text}</{tag}>" if numeric else f"<{tag}>{text}</{tag}>"

    head = "<tr>" + "".join(cell(h, "th") for h in header) + "</tr>" if header else ""
    body = "".join("<tr>" + "".join(cell(v) for v in row) + "</tr>" for row in rows)
    return f"<table>{head}{body}</table>"


class _Raw(str):
    """Trusted HTML (built here from escaped parts)."""


def _fmt(value: object) -> str:
    return figure(value, digits=6)


def _configuration(result: Result) -> str:
    config = result.config
    rows = [("Privacy model", m.describe()) for m in config.privacy_models]
    quality = config.quality_model
    params = ", ".join(f"{k.replace('_', ' ')} = {v}" for k, v in quality.to_dict().items()
                       if k not in ("name", "kind"))
    strategy = config.strategy if config.strategy == "optimal" or not result.optimal \
        else f"{config.strategy} (the optimum was proven)"
    rows += [
        ("Quality model", quality.label + (f" ({params})" if params else "")),
        ("Suppression limit", f"{100 * config.suppression_limit:g} % of records"),
        ("Search strategy", strategy),
        ("Identifying attributes (removed)", ", ".join(result.definition.identifying) or "none"),
        ("Quasi-identifiers", ", ".join(result.quasi_identifiers)),
    ]
    return "<h2>Configuration</h2>" + _table(rows)


def _levels_table(result: Result, levels: tuple[int, ...]) -> str:
    rows = []
    for name, level in zip(result.quasi_identifiers, levels, strict=True):
        hierarchy = result.hierarchies[name]
        first = hierarchy.rows[0]
        example = f"{first[0]} → {first[level]}" if level < len(first) else ""
        rows.append((name, level, hierarchy.height - 1, example))
    return "<h2>Transformation</h2>" + _table(
        rows, ["Quasi-identifier", "Level", "Highest level", "Example"])


def _verification(summary: OutputSummary) -> str:
    """Which classes each model made the search suppress (the verdict is the release's)."""
    rows = [(m.description, m.failing_classes, m.failing_records) for m in summary.models]
    return ("<h2>Suppression by privacy model</h2>"
            + _table(rows, ["Model", "Classes violating it (suppressed)", "Records in them"]))


def _quality(result: Result, levels: tuple[int, ...]) -> str:
    configured = result.config.quality_model.label
    scores = quality_scores(result, levels)
    score = float(scores[configured])
    rows: list[tuple[object, ...]] = [
        (f"{configured} (configured)", score, result.relative(score)),
    ]
    for label, other in scores.items():
        if label != configured:
            rows.append((label, other, ""))
    return ("<h2>Quality (lower is better)</h2>"
            + _table(rows, ["Model", "Score", "Relative to the anonymous transformations' range"]))


def _verdict(release: Release) -> str:
    """The release's one verdict (:func:`arxpy.release.judge`), as every view shows it."""
    verdict = release.verdict
    css = {"anonymous": "ok", "not anonymous": "fail"}.get(verdict.status, "note")
    rows = []
    for check in verdict.checks:
        state = {True: "holds", False: "FAILS", None: "not independently checkable"}[check.holds]
        tone = {True: "ok", False: "fail", None: "note"}[check.holds]
        rows.append((check.claim.text, ", ".join(check.claim.attributes),
                     _Raw(f"<span class='{tone}'>{state}</span>"), check.finding))
    table = _table(rows, ["Claim", "Over", "Independent check", "Found"]) if rows else ""
    return (f"<h2>Verdict</h2><p class='{css}'>{html.escape(verdict.headline)}</p>" + table)


def _classes_and_risk(release: Release) -> str:
    from arxpy.risk import ClassSizeHistogram, sample_risks

    view = release.verdict.attacker
    share = 100 * release.suppressed_records / max(release.records, 1)
    suppressed = ("Suppressed records",
                  f"{release.suppressed_records:,} of {release.records:,} ({share:.2f} %)")
    title = "<h2>The attacker's view: classes over the declared quasi-identifiers</h2>"
    if not view.applies:
        return (title + _table([suppressed])
                + f"<p>{html.escape(view.text)}</p>")
    sizes = view.sizes
    risks = sample_risks(ClassSizeHistogram.from_class_sizes(sizes)).prosecutor
    rows = [
        ("Quasi-identifiers", ", ".join(view.quasi_identifiers)),
        ("Equivalence classes", int(len(sizes))),
        ("Smallest / largest class", f"{sizes.min():,} / {sizes.max():,}" if len(sizes) else "—"),
        ("Mean size of released classes (AECS also counts the suppressed records as a class)",
         float(sizes.mean()) if len(sizes) else float("nan")),
        suppressed,
        ("Highest prosecutor risk", float(risks.highest)),
        ("Records at highest risk", f"{100 * risks.records_at_highest:.2f} %"),
        ("Average prosecutor risk", float(risks.average)),
    ]
    uncovered = (f"<p class='fail'>No claim covers {html.escape(', '.join(view.uncovered))}."
                 "</p>" if view.uncovered else "")
    return (title + _table(rows) + uncovered
            + "<p class='note'>Prosecutor model over released records, classes counted on "
              "the released table: a record in a class of size s has risk 1/s.</p>")


_TREATMENT_WORDS = {"keyed-pseudonym": "keyed pseudonym", "mask": "masked",
                    "random-replacement": "random replacement", "remove": "removed"}


def _identifiers(record: Mapping[str, Any]) -> str:
    """Issue 32's treatments as released: kind, format or rule, namespace; the key's
    fingerprint and the shift's range (the record holds no key and no value)."""
    rows = []
    for t in record.get("treatments", ()):
        detail = t.get("format") or t.get("rule") or ""
        if t.get("namespace"):
            detail += f", namespace {t['namespace']}, {t.get('algorithm', 'HMAC-SHA-256')}"
        if t.get("reproducible") is False:
            detail += ", not reproducible"
        rows.append((t["attribute"], _TREATMENT_WORDS.get(t["treatment"], t["treatment"]),
                     detail))
    facts = [("Key fingerprint", record.get("key_fingerprint") or "no key used")]
    shift = record.get("date_shift")
    if shift:
        low, high = shift["range_days"]
        facts.append(("Date shift", f"{', '.join(shift['attributes'])} by one offset per "
                      f"'{shift['patient']}' from {low} to {high} days, never 0"))
    linked = record.get("linked")
    if linked:
        tables = ", ".join(f"{t['name']} ({t['records']:,} rows)" for t in linked["tables"])
        judged = ", ".join(linked["aggregates"]) or "no aggregate"
        facts.append(("Linked tables", f"{tables}, linked by '{linked['link_column']}'; "
                      f"judged on one row per patient of '{linked['patient_table']}' with "
                      f"{judged}; a suppressed patient is left out of every table"))
    return ("<h2>Identifiers</h2>" + _table(rows, ["Attribute", "Treatment", "Format"])
            + _table(facts) + f"<p class='note'>{html.escape(record.get('note', ''))}</p>")


def _provenance(release: Release) -> str:
    rows = [("Method", release.method),
            ("Input SHA-256", release.input_sha256),
            ("Output SHA-256", release.output_sha256),
            ("Seed", "none" if release.seed is None else release.seed),
            ("Elapsed", f"{release.elapsed_seconds:.3f} s")]
    rows += [(f"{name} version", version) for name, version in release.versions.items()]
    return "<h2>Provenance</h2>" + _table(rows)


def _excerpt(release: Release) -> str:
    frame = released_frame(release, remove_suppressed=False).head(REPORT_EXCERPT_ROWS)
    rows = frame.astype(str).to_numpy().tolist()
    return (f"<h2>Excerpt (first {len(rows)} rows, suppressed rows show *)</h2>"
            + _table(rows, [str(c) for c in frame.columns]))
