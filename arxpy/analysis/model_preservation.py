"""Do the recipient's models give the same answers on a release? (Gal et al. 2014, §2.0)

The recipient declares the analyses they plan (linear and logistic regression through
statsmodels, Cox proportional hazards through lifelines). Each is fitted on the original
table and on every anonymized table (R repetitions), and compared with the paper's three
requirements (L158-164, definitions in spec §3 [I]):

- ``pct_sig_changed``: % of coefficients whose significance at α changes;
- ``pct_dir_changed``: % of originally significant coefficients that change sign
  (None when none is significant);
- ``pct_outside_ci``: % of coefficients outside the original 95 % Wald interval (for Cox
  the same on the exp(coef) scale, exp being monotone); ``pct_outside_ci_sig`` restricted
  to the originally significant ones.

A coefficient that cannot be estimated on a release (a level that disappeared, a
covariate generalized to ``*`` everywhere) counts as changed and outside. Generalized
values are read as :mod:`arxpy.analysis.generalized` says: an interval stands for its
midpoint; a record whose covariate carries no number or no original category (``*``,
a suppressed record) is left out of that fit and counted (``records_left_out``). A fit
that fails (separation, non-convergence, singular matrix) is counted in
``fit_failures`` and left out of the means; it is never dropped silently.
Cox models are fitted on every record, censored ones included (spec §2.6).
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arxpy.analysis.generalized import read_numeric
from arxpy.errors import ConfigurationError
from arxpy.jobs import CancelToken, Progress, ThrottledProgress

MODEL_TYPES = ("ols", "logit", "cox")
METRICS = ("pct_sig_changed", "pct_dir_changed", "pct_outside_ci", "pct_outside_ci_sig")
Z_95 = 1.959963984540054
#: Original p-values in this range are marked "fragile" (spec §6).
FRAGILE = (0.01, 0.10)


@dataclass(frozen=True)
class ModelSpec:
    """One planned analysis.

    ``type`` is ols, logit or cox. ols/logit need ``response``; a numeric logit response
    is dichotomised at ``threshold`` (default: its median in the filtered original).
    cox needs ``time`` and ``event`` (``event_value``: the value meaning the event).
    ``categorical`` maps covariates to their reference level (None: the first level in
    sorted order); other covariates are numeric. ``filter`` keeps the rows whose
    ``column`` equals ``equals`` (for example deceased patients only).
    """

    name: str
    type: str
    covariates: tuple[str, ...]
    response: str | None = None
    time: str | None = None
    event: str | None = None
    event_value: str = "1"
    categorical: Mapping[str, str | None] = field(default_factory=dict)
    filter: Mapping[str, str] | None = None
    threshold: float | None = None

    def __post_init__(self) -> None:
        where = f"Analysis '{self.name}'"
        if self.type not in MODEL_TYPES:
            raise ConfigurationError(
                f"{where}: unknown type {self.type!r}; use one of {', '.join(MODEL_TYPES)}.")
        if self.type == "cox" and not (self.time and self.event):
            raise ConfigurationError(f"{where}: a cox analysis needs 'time' and 'event'.")
        if self.type != "cox" and not self.response:
            raise ConfigurationError(f"{where}: an {self.type} analysis needs a 'response'.")
        if not self.covariates:
            raise ConfigurationError(f"{where}: give at least one covariate.")
        if self.filter is not None and not {"column", "equals"} <= set(self.filter):
            raise ConfigurationError(
                f"{where}: a filter reads {{\"column\": ..., \"equals\": ...}}.")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ModelSpec:
        if not isinstance(d, Mapping):
            raise ConfigurationError(
                f"Each analysis is an object such as {{\"type\": \"ols\", \"response\": "
                f"..., \"covariates\": [...]}}, not {d!r}.")
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ConfigurationError(
                f"Analysis '{d.get('name', '?')}': unknown key {unknown[0]!r}; keys are "
                f"{', '.join(sorted(known))}.")
        values = dict(d)
        kind = values.get("type")
        values.setdefault("name", kind if isinstance(kind, str) else "model")
        _check_value_types(values)
        values["covariates"] = tuple(values.get("covariates", ()))
        categorical = values.get("categorical", {})
        if isinstance(categorical, list):  # a list of names: default references
            categorical = {c: None for c in categorical}
        values["categorical"] = dict(categorical)
        if "event_value" in values:
            values["event_value"] = str(values["event_value"])
        try:
            return cls(**values)
        except TypeError as exc:
            raise ConfigurationError(f"Analysis '{values['name']}': {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["covariates"] = list(self.covariates)
        out["categorical"] = dict(self.categorical)
        out["filter"] = None if self.filter is None else dict(self.filter)
        return out

    @property
    def columns(self) -> list[str]:
        used = [self.response, self.time, self.event, *self.covariates]
        if self.filter is not None:
            used.append(self.filter["column"])
        return [c for c in dict.fromkeys(used) if c]


def _check_value_types(values: Mapping[str, Any]) -> None:
    """Refuse a value of the wrong JSON type, naming the analysis, the key and what fits
    (a hand-written analyses file is read by code that trusts the types)."""
    name = values["name"]
    where = f"Analysis {name!r}" if isinstance(name, str) else "An analysis"
    problems = [(key, "text") for key in ("name", "type", "response", "time", "event")
                if values.get(key) is not None and not isinstance(values[key], str)]
    if not _names(values.get("covariates", [])):
        problems.append(("covariates", "a list of attribute names"))
    if not _references(values.get("categorical", {})):
        problems.append(("categorical", 'a list of names or {"name": reference level}'))
    row_filter = values.get("filter")
    if row_filter is not None and not (isinstance(row_filter, Mapping) and isinstance(
            row_filter.get("column"), str) and _scalar(row_filter.get("equals"))):
        problems.append(("filter", '{"column": name, "equals": value}'))
    if "event_value" in values and not _scalar(values["event_value"]):
        problems.append(("event_value", "a value such as 1 or \"dead\""))
    threshold = values.get("threshold")
    if threshold is not None and not _finite_number(threshold):
        problems.append(("threshold", "a finite number"))
    if problems:
        key, expected = problems[0]
        raise ConfigurationError(f"{where}: '{key}' must be {expected}, not {values[key]!r}.")


def _names(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(v, str) and v for v in value)


def _references(value: Any) -> bool:
    """A list of names, or names mapped to a reference level (or null)."""
    if isinstance(value, Mapping):
        return _names(list(value)) and all(v is None or isinstance(v, str)
                                           for v in value.values())
    return _names(value)


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool)


def _finite_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) \
        and math.isfinite(value)


def read_analyses(path: str | Path) -> list[ModelSpec]:
    """The analyses of a JSON file: a list of model objects or {"analyses": [...]}."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"Cannot read the analyses file {path}: {exc}") from None
    items = data.get("analyses") if isinstance(data, dict) else data
    if not isinstance(items, list) or not items:
        raise ConfigurationError(
            f"{path}: expected a list of analyses or {{\"analyses\": [...]}}.")
    return [ModelSpec.from_dict(item) for item in items]


# --- design matrices ----------------------------------------------------------------------

@dataclass(frozen=True)
class Design:
    """How a model's covariates become columns, fixed from the original table."""

    spec: ModelSpec
    levels: Mapping[str, tuple[str, ...]]  # non-reference levels per categorical covariate
    threshold: float | None
    known: Mapping[str, frozenset[str]] = field(default_factory=dict)  # original categories

    @classmethod
    def from_original(cls, spec: ModelSpec, original: pd.DataFrame) -> Design:
        missing = [c for c in spec.columns if c not in original.columns]
        if missing:
            raise ConfigurationError(
                f"Analysis '{spec.name}': no attribute '{missing[0]}' in the data.")
        rows = _filtered(spec, original)
        levels, known = {}, {}
        for name in spec.covariates:
            if name in spec.categorical or not _numeric(original[name]):
                present = sorted(set(original[name].astype(str)))
                reference = spec.categorical.get(name) or present[0]
                if reference not in present:
                    raise ConfigurationError(
                        f"Analysis '{spec.name}': reference level {reference!r} of "
                        f"'{name}' does not occur; levels: {', '.join(present)}.")
                levels[name] = tuple(v for v in present if v != reference)
                known[name] = frozenset(present)
        threshold = spec.threshold
        if spec.type == "logit" and threshold is None and _numeric(rows[spec.response]):
            threshold = float(np.median(_floats(rows[spec.response])))
        return cls(spec, levels, threshold, known)

    def frame(self, table: pd.DataFrame) -> pd.DataFrame:
        """The model's numeric frame: covariate columns plus the outcome column(s)."""
        spec = self.spec
        rows = _filtered(spec, table)
        out: dict[str, np.ndarray] = {}
        for name in spec.covariates:
            if name in self.levels:
                values = rows[name].astype(str).to_numpy()
                unknown = ~np.isin(values, list(self.known.get(name, self.levels[name])))
                if name not in self.known or unknown.all():
                    unknown[:] = False  # no category left: a constant, not estimable
                for level in self.levels[name]:
                    column = (values == level).astype(np.float64)
                    column[unknown] = np.nan  # a generalized or suppressed category
                    out[f"{name}[{level}]"] = column
            else:
                values = _floats(rows[name])
                # generalized to * everywhere: a constant (not estimable), not missing rows
                out[name] = np.zeros(len(values)) if np.isnan(values).all() else values
        if spec.type == "cox":
            out["__time"] = _floats(rows[spec.time])
            out["__event"] = (rows[spec.event].astype(str).to_numpy() ==
                              spec.event_value).astype(np.float64)
        elif spec.type == "logit" and self.threshold is not None:
            response = _floats(rows[spec.response])
            out["__y"] = np.where(np.isnan(response), np.nan,
                                  (response > self.threshold).astype(np.float64))
        elif spec.type == "logit":
            values = rows[spec.response].astype(str).to_numpy()
            out["__y"] = (values == sorted(set(values))[-1]).astype(np.float64)
        else:
            out["__y"] = _floats(rows[spec.response])
        return pd.DataFrame(out)


def _filtered(spec: ModelSpec, table: pd.DataFrame) -> pd.DataFrame:
    if spec.filter is None:
        return table
    keep = table[spec.filter["column"]].astype(str) == str(spec.filter["equals"])
    return table.loc[keep.to_numpy()]


def _numeric(column: pd.Series) -> bool:
    return bool(pd.to_numeric(column, errors="coerce").notna().all()) and len(column) > 0


def _floats(column: pd.Series) -> np.ndarray:
    """Numbers, interval midpoints for generalized values, NaN where there is none."""
    return read_numeric(column).midpoint


# --- fitting ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Fit:
    """Non-intercept coefficients of one fit (NaN: not estimable), or the failure."""

    coef: pd.Series
    se: pd.Series
    p: pd.Series
    error: str = ""
    #: Records left out because a covariate or outcome carries no value (``*``).
    left_out: int = 0

    @property
    def failed(self) -> bool:
        return bool(self.error)


def fit_model(design: Design, table: pd.DataFrame) -> Fit:
    """Fit one declared model on a table; constant covariates are left out (NaN), and so
    are records without a value for a covariate or the outcome (counted)."""
    frame = design.frame(table)
    complete = frame.notna().all(axis=1).to_numpy()
    left_out = int((~complete).sum())
    frame = frame.loc[complete]
    covariates = [c for c in frame.columns if not c.startswith("__")]
    usable = [c for c in covariates if frame[c].nunique() > 1]
    try:
        with warnings.catch_warnings():
            _failing_warnings()
            coef, se, p = _FITTERS[design.spec.type](frame, usable)
    except Exception as exc:  # statsmodels/lifelines raise many types; all mean "failed"
        empty = pd.Series(np.nan, index=covariates)
        return Fit(empty, empty, empty, f"{type(exc).__name__}: {exc}"[:200], left_out)
    return Fit(coef.reindex(covariates), se.reindex(covariates), p.reindex(covariates),
               left_out=left_out)


def _failing_warnings() -> None:
    """Separation, non-convergence and singular Hessians make a fit fail; other warnings
    (deprecations and the like) are not the fit's business."""
    from lifelines.exceptions import ConvergenceWarning as CoxConvergence
    from statsmodels.tools import sm_exceptions as sme

    warnings.simplefilter("ignore")
    for category in (sme.ConvergenceWarning, sme.PerfectSeparationWarning,
                     sme.HessianInversionWarning, CoxConvergence):
        warnings.simplefilter("error", category)


def _fit_ols(frame: pd.DataFrame, usable: list[str]):
    import statsmodels.api as sm

    result = sm.OLS(frame["__y"], sm.add_constant(frame[usable], has_constant="add")).fit()
    return _drop_const(result.params, result.bse, result.pvalues)


def _fit_logit(frame: pd.DataFrame, usable: list[str]):
    import statsmodels.api as sm

    model = sm.Logit(frame["__y"], sm.add_constant(frame[usable], has_constant="add"))
    result = model.fit(disp=0, maxiter=100)
    if not result.mle_retvals.get("converged", True):
        raise RuntimeError("the logistic fit did not converge")
    return _drop_const(result.params, result.bse, result.pvalues)


def _fit_cox(frame: pd.DataFrame, usable: list[str]):
    from lifelines import CoxPHFitter

    data = frame[[*usable, "__time", "__event"]]
    fitter = CoxPHFitter().fit(data, duration_col="__time", event_col="__event")
    summary = fitter.summary
    return summary["coef"], summary["se(coef)"], summary["p"]


def _drop_const(*series: pd.Series):
    return tuple(s.drop("const") for s in series)


_FITTERS = {"ols": _fit_ols, "logit": _fit_logit, "cox": _fit_cox}


def preservation_metrics(original: Fit, anonymized: Fit, alpha: float = 0.05
                         ) -> dict[str, float | None]:
    """The three requirements of Gal et al. (L158-164) for one anonymized fit (in %)."""
    b0, se0, p0 = original.coef, original.se, original.p
    b1, p1 = anonymized.coef.reindex(b0.index), anonymized.p.reindex(b0.index)
    known = b0.notna().to_numpy()
    b0, se0, p0, b1, p1 = (s.to_numpy()[known] for s in (b0, se0, p0, b1, p1))
    missing = np.isnan(b1) | np.isnan(p1)
    sig0 = p0 < alpha
    sig_changed = missing | (sig0 != (np.nan_to_num(p1, nan=1.0) < alpha))
    outside = missing | (np.abs(np.nan_to_num(b1) - b0) > Z_95 * se0)
    dir_changed = missing | (np.sign(np.nan_to_num(b1)) != np.sign(b0))
    return {
        "pct_sig_changed": _pct(sig_changed),
        "pct_dir_changed": _pct(dir_changed[sig0]) if sig0.any() else None,
        "pct_outside_ci": _pct(outside),
        "pct_outside_ci_sig": _pct(outside[sig0]) if sig0.any() else None,
    }


def _pct(flags: np.ndarray) -> float:
    return float(100.0 * flags.mean()) if flags.size else 0.0


# --- the comparison over repetitions --------------------------------------------------------

@dataclass(frozen=True)
class ModelComparison:
    """One declared model: the original fit and each repetition's fit and metrics."""

    spec: ModelSpec
    original: Fit
    fits: tuple[Fit, ...]
    metrics: pd.DataFrame  # one row per successful repetition, columns METRICS

    @property
    def fit_failures(self) -> int:
        return sum(f.failed for f in self.fits)

    def coefficients(self, alpha: float = 0.05) -> pd.DataFrame:
        """Per coefficient: original estimate, CI and p; anonymized mean ± sd; flags."""
        o = self.original
        good = [f.coef for f in self.fits if not f.failed]
        anonymized = pd.concat(good, axis=1) if good else pd.DataFrame(index=o.coef.index)
        p_good = [f.p for f in self.fits if not f.failed]
        p_anonymized = pd.concat(p_good, axis=1) if p_good else anonymized
        low, high = o.coef - Z_95 * o.se, o.coef + Z_95 * o.se
        table = pd.DataFrame({
            "coef": o.coef, "ci_low": low, "ci_high": high, "p": o.p,
            "anonymized_mean": anonymized.mean(axis=1),
            "anonymized_sd": anonymized.std(axis=1, ddof=1),
            "share_sig_changed": ((p_anonymized < alpha).ne(o.p < alpha, axis=0)).mean(axis=1),
            "share_dir_changed": (np.sign(anonymized).ne(np.sign(o.coef), axis=0)).mean(axis=1),
            "share_outside_ci": (anonymized.lt(low, axis=0) | anonymized.gt(high, axis=0)
                                 | anonymized.isna()).mean(axis=1),
            "fragile": o.p.between(*FRAGILE),
        })
        if self.spec.type == "cox":
            table.insert(1, "exp_coef", np.exp(o.coef))
        return table

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.spec.type, "spec": self.spec.to_dict(),
                               "repetitions": len(self.fits), "fit_failures": self.fit_failures,
                               "failures": [f.error for f in self.fits if f.failed],
                               "records_left_out": [f.left_out for f in self.fits]}
        for metric in METRICS:
            values = self.metrics[metric].dropna() if len(self.metrics) else pd.Series([])
            out[metric] = {"mean": _num(values.mean()) if len(values) else None,
                           "sd": _num(values.std(ddof=1)) if len(values) > 1 else None,
                           "per_repetition": [_num(v) for v in self.metrics[metric]]
                           if len(self.metrics) else []}
        out["original"] = {name: {"coef": _num(o), "se": _num(s), "p": _num(p)}
                           for name, o, s, p in zip(self.original.coef.index,
                                                    self.original.coef, self.original.se,
                                                    self.original.p, strict=True)}
        out["original_fit_error"] = self.original.error or None
        return out


@dataclass(frozen=True)
class ModelPreservation:
    """Every declared model compared between an original and R anonymized tables."""

    models: tuple[ModelComparison, ...]
    alpha: float

    def summary(self) -> pd.DataFrame:
        """One row per model: mean and sd of each metric, failed fits."""
        rows = []
        for model in self.models:
            row: dict[str, Any] = {"model": model.spec.name, "type": model.spec.type}
            for metric in METRICS:
                values = model.metrics[metric].dropna() if len(model.metrics) else []
                row[f"{metric}_mean"] = float(np.mean(values)) if len(values) else np.nan
                row[f"{metric}_sd"] = float(np.std(values, ddof=1)) if len(values) > 1 \
                    else np.nan
            row["fit_failures"] = model.fit_failures
            row["repetitions"] = len(model.fits)
            rows.append(row)
        return pd.DataFrame(rows).set_index("model")

    def to_dict(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "models": {m.spec.name: m.to_dict() for m in self.models}}


def compare_models(original: pd.DataFrame, anonymized: Iterable[pd.DataFrame],
                   analyses: Sequence[ModelSpec], alpha: float = 0.05, *,
                   progress: Progress | None = None, cancel: CancelToken | None = None
                   ) -> ModelPreservation:
    """Fit every analysis on ``original`` and on each anonymized table (a job).

    Raises ConfigurationError when a model cannot be fitted on the original data, since
    nothing can then be compared.
    """
    report = ThrottledProgress(progress)
    designs = [Design.from_original(spec, original) for spec in analyses]
    originals = [fit_model(d, original) for d in designs]
    for design, fit in zip(designs, originals, strict=True):
        if fit.failed:
            raise ConfigurationError(
                f"Analysis '{design.spec.name}' cannot be fitted on the original data "
                f"({fit.error}); change its covariates or filter.")
    fits: list[list[Fit]] = [[] for _ in designs]
    tables = list(anonymized)
    done: dict[int, list[Fit]] = {}  # a deterministic method repeats one table object
    for r, table in enumerate(tables):
        _check_columns(table, analyses, r)
        if id(table) not in done:
            row = []
            for design in designs:
                if cancel is not None:
                    cancel.raise_if_cancelled()
                row.append(fit_model(design, table))
            done[id(table)] = row
        for i, fit in enumerate(done[id(table)]):
            fits[i].append(fit)
        report((r + 1) / max(1, len(tables)), f"Fitted repetition {r + 1} of {len(tables)}")
    models = []
    for design, original_fit, model_fits in zip(designs, originals, fits, strict=True):
        rows = [preservation_metrics(original_fit, f, alpha) for f in model_fits if not f.failed]
        metrics = pd.DataFrame(rows, columns=list(METRICS), dtype=float)
        models.append(ModelComparison(design.spec, original_fit, tuple(model_fits), metrics))
    return ModelPreservation(tuple(models), alpha)


def analysed_covariates(analyses: Sequence[ModelSpec], columns: Sequence[str]) -> list[str]:
    """The covariates of any declared analysis, in column order: what the k-anonymity
    baseline generalizes (the outcomes stay as they are, spec 000 §2.5)."""
    covariates = {c for spec in analyses for c in spec.covariates}
    return [c for c in columns if c in covariates]


def _check_columns(table: pd.DataFrame, analyses: Sequence[ModelSpec], index: int) -> None:
    for spec in analyses:
        missing = [c for c in spec.columns if c not in table.columns]
        if missing:
            raise ConfigurationError(
                f"Anonymized table {index + 1} has no attribute '{missing[0]}', which "
                f"analysis '{spec.name}' needs; compare tables with the original's columns.")


def _num(value: Any) -> float | None:
    value = float(value)
    return None if math.isnan(value) or math.isinf(value) else value
