"""The anonymization configuration: privacy models, quality model, suppression, search.

``to_dict``/``from_dict`` use the shape stored in project files::

    {"privacy_models": [{"kind": "k-anonymity", "k": 5}, ...],
     "quality_model": {"name": "loss", "gs_factor": 0.5, "aggregate": "geometric_mean"},
     "suppression_limit": 0.02, "strategy": "optimal", "time_limit": null}

``remove_suppressed`` is written only when set (suppressed rows are kept with ``*`` in
every quasi-identifier by default, as in ARX); so are ``local_recoding`` (passes over
the suppressed records after the search, 0 = off), ``local_recoding_gs_factor`` and
the genetic strategy's ``genetic_*`` settings. ``microaggregation`` (issue 34) maps
quasi-identifiers to how they are aggregated, ``{"age": {"function": "mean",
"clustering": false}}``, and is written only when set too, so older files keep meaning.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import arxpy.privacy  # noqa: F401  (registers every privacy model for from_dict)
import arxpy.quality  # noqa: F401  (registers every quality model for from_dict)
from arxpy.engine.microaggregation import MicroAggregation, microaggregation_from_dict
from arxpy.errors import ConfigurationError
from arxpy.params import Param, check_params
from arxpy.privacy.base import PrivacyModel
from arxpy.privacy.registry import privacy_model_from_dict
from arxpy.quality.base import QualityModel
from arxpy.quality.loss import Loss
from arxpy.quality.registry import quality_model_from_dict
from arxpy.search.genetic import GeneticSettings

#: "heuristic" is Lightning's former name, still read from older projects and scripts.
STRATEGY_NAMES = ("optimal", "exhaustive", "lightning", "genetic", "heuristic")
#: How messages about these settings name their owner.
OWNER = "anonymization settings"

#: The search settings, declared once (project files, CLI and GUI read them alike).
SEARCH_PARAMS = (
    Param("suppression_limit", "float", 0.0, low=0, high=1, unit="fraction of records",
          label="suppression limit",
          help="Largest fraction of records that may be suppressed (e.g. 0.02 for 2%)"),
    Param("strategy", "choice", "optimal", choices=STRATEGY_NAMES, label="search strategy",
          help="optimal prunes with monotonicity and bounds, exhaustive checks every "
               "transformation, lightning (ARX's best-effort search) and genetic (ARX's genetic "
               "algorithm) return the best found within the limits, for lattices too large "
               "to search"),
    Param("time_limit", "float", None, low=0, low_open=True, optional=True, unit="seconds",
          label="time limit", help="Time budget of the lightning and genetic strategies"),
    Param("step_limit", "int", None, low=1, optional=True, unit="transformations",
          label="step limit",
          help="Most transformations the lightning and genetic strategies check (ARX's "
               "heuristic search step limit); with a time limit, whichever is reached first"),
    Param("remove_suppressed", "bool", False, label="remove suppressed records",
          help="Leave suppressed records out of the output instead of masking them"),
)

_GA = GeneticSettings()
#: ARX's genetic algorithm (``ARXConfiguration.geneticAlgorithm*``, ARX's defaults),
#: declared once: the configuration, the generalization method, the CLI and the GUI.
GENETIC_PARAMS = (
    Param("genetic_iterations", "int", _GA.iterations, low=1, unit="iterations",
          label="genetic iterations", help="Generations the genetic strategy breeds"),
    Param("genetic_subpopulation_size", "int", _GA.subpopulation_size, low=1,
          unit="transformations", label="genetic subpopulation size",
          help="Individuals per subpopulation beyond one per quasi-identifier"),
    Param("genetic_immigration_interval", "int", _GA.immigration_interval, low=1,
          unit="iterations", label="genetic immigration interval",
          help="Iterations between exchanges of the fittest between the subpopulations"),
    Param("genetic_immigration_fraction", "float", _GA.immigration_fraction, low=0, high=1,
          label="genetic immigration fraction",
          help="Share of a subpopulation exchanged; as in ARX it is cast to a whole number "
               "first, so below 1 none moves"),
    Param("genetic_elite_fraction", "float", _GA.elite_fraction, low=0, high=1,
          label="genetic elite fraction", help="Share of the fittest kept unchanged"),
    Param("genetic_crossover_fraction", "float", _GA.crossover_fraction, low=0, high=1,
          label="genetic crossover fraction", help="Share replaced by children of two parents"),
    Param("genetic_mutation_probability", "float", _GA.mutation_probability, low=0, high=1,
          label="genetic mutation probability",
          help="Largest share of quasi-identifiers a mutation changes"),
    Param("genetic_production_fraction", "float", _GA.production_fraction, low=0,
          low_open=True, high=1, label="genetic production fraction",
          help="Share of the fittest that parents are drawn from"),
    Param("genetic_deterministic", "bool", _GA.deterministic, label="genetic deterministic",
          help="Draw as ARX's deterministic mode does (the same result on every run); "
               "otherwise from the genetic seed"),
    Param("genetic_seed", "int", None, optional=True, label="genetic seed",
          help="Seed when not deterministic; without one, each run draws its own"),
)

#: Local recoding (ARX's ``ARXResult.optimizeIterative``), declared once: the
#: configuration, the generalization method, the CLI and the GUI read these.
LOCAL_RECODING_PARAMS = (
    Param("local_recoding", "int", 0, low=0, high=1000, unit="passes",
          label="local recoding passes",
          help="After the search, search again up to this many times on the records the "
               "previous pass suppressed; each record keeps the levels of the pass that "
               "released it (0: off, one transformation for all records)"),
    Param("local_recoding_gs_factor", "float", 0.05, low=0, high=1,
          label="local recoding gs-factor", aliases=("--gs-factor",),
          help="gs-factor of the quality model in the passes after the first (0 favours "
               "suppression, 1 generalization; ARX's default 0.05)"),
)

_PARAMS = (*SEARCH_PARAMS, *LOCAL_RECODING_PARAMS, *GENETIC_PARAMS)


@dataclass
class AnonymizationConfig:
    """What to achieve and how to search.

    ``suppression_limit`` is the largest fraction of records (in [0, 1]) that may be
    suppressed; ``time_limit`` (seconds, > 0) bounds the lightning strategy. The search
    settings are declared in :data:`SEARCH_PARAMS`.
    """

    privacy_models: Sequence[PrivacyModel]
    quality_model: QualityModel = field(default_factory=Loss)
    suppression_limit: float = 0.0
    strategy: str = "optimal"
    time_limit: float | None = None
    remove_suppressed: bool = False
    step_limit: int | None = None
    local_recoding: int = 0
    local_recoding_gs_factor: float = 0.05
    genetic_iterations: int = _GA.iterations
    genetic_subpopulation_size: int = _GA.subpopulation_size
    genetic_immigration_interval: int = _GA.immigration_interval
    genetic_immigration_fraction: float = _GA.immigration_fraction
    genetic_elite_fraction: float = _GA.elite_fraction
    genetic_crossover_fraction: float = _GA.crossover_fraction
    genetic_mutation_probability: float = _GA.mutation_probability
    genetic_production_fraction: float = _GA.production_fraction
    genetic_deterministic: bool = _GA.deterministic
    genetic_seed: int | None = None
    #: Quasi-identifiers released as one aggregate per class (ARX's microaggregation).
    microaggregation: Mapping[str, MicroAggregation] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Construction normalizes the object being built (lists, declared types);
        # validate() never changes an existing configuration.
        self.privacy_models = list(self.privacy_models)
        self.microaggregation = microaggregation_from_dict(self.microaggregation)
        for name, value in self._checked_settings().items():
            setattr(self, name, value)

    def search_settings(self) -> dict[str, Any]:
        return {p.name: getattr(self, p.name) for p in _PARAMS}

    def genetic_settings(self) -> dict[str, Any]:
        """The genetic strategy's settings, for the search."""
        return {p.name: getattr(self, p.name) for p in GENETIC_PARAMS}

    def validate(self) -> AnonymizationConfig:
        """Raise :class:`ConfigurationError` for settings that can never work, else
        return a normalized copy (models in a list, settings of their declared types).
        The configuration itself is left as it is."""
        return dataclasses.replace(self, privacy_models=list(self.privacy_models),
                                   microaggregation=dict(self.microaggregation),
                                   **self._checked_settings())

    def _checked_settings(self) -> dict[str, Any]:
        """The search settings, checked and of their declared types."""
        if not self.privacy_models:
            raise ConfigurationError("Choose at least one privacy model, e.g. k-anonymity.")
        bad = [m for m in self.privacy_models if not isinstance(m, PrivacyModel)]
        if bad:
            raise ConfigurationError(f"Not a privacy model: {bad[0]!r}.")
        if not isinstance(self.quality_model, QualityModel):
            raise ConfigurationError(f"Not a quality model: {self.quality_model!r}.")
        settings = check_params(_PARAMS, self.search_settings(), OWNER)
        if settings["local_recoding"]:
            _check_local_recoding(self.privacy_models)
            if self.microaggregation:
                raise ConfigurationError(
                    "Local recoding does not combine with microaggregation: the passes would "
                    "aggregate over classes of different levels; set local recoding to 0 or "
                    "remove the microaggregation.")
        return settings

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "privacy_models": [m.to_dict() for m in self.privacy_models],
            "quality_model": self.quality_model.to_dict(),
            "suppression_limit": float(self.suppression_limit),
            "strategy": self.strategy,
            "time_limit": self.time_limit,
        }
        if self.remove_suppressed:
            out["remove_suppressed"] = True
        if self.step_limit is not None:
            out["step_limit"] = self.step_limit
        if self.local_recoding:
            out["local_recoding"] = self.local_recoding
            out["local_recoding_gs_factor"] = float(self.local_recoding_gs_factor)
        out.update({p.name: getattr(self, p.name) for p in GENETIC_PARAMS
                    if getattr(self, p.name) != p.default})  # written when set
        if self.microaggregation:
            out["microaggregation"] = {name: m.to_dict()
                                       for name, m in self.microaggregation.items()}
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> AnonymizationConfig:
        """Inverse of :meth:`to_dict`; missing keys take their defaults.

        Any value that does not fit raises ConfigurationError naming the setting (and the
        model it belongs to).
        """
        return cls(**_settings_parts(d))


#: Privacy models local recoding refuses. ARX's ``isLocalRecodingSupported`` is false for
#: population and sample uniqueness (and the accurate k-map); arxpy refuses every k-map.
NOT_LOCALLY_RECODABLE = ("population-uniqueness", "sample-uniqueness", "k-map",
                         "profitability-journalist", "no-attack-profitability-journalist")


def _check_local_recoding(models: Sequence[PrivacyModel]) -> None:
    for model in models:
        if model.kind in NOT_LOCALLY_RECODABLE:
            raise ConfigurationError(
                f"Local recoding does not support {model.describe()}: its passes would each "
                "be judged on their own records only; set local recoding to 0 or remove the "
                "model.")


def check_settings(d: Mapping[str, Any]) -> None:
    """Raise :class:`ConfigurationError` naming the setting if ``d`` holds a bad value.

    Unlike :meth:`AnonymizationConfig.from_dict`, settings without privacy models are
    accepted: a project may be saved before any model is chosen.
    """
    _settings_parts(d)


def _settings_parts(d: Mapping[str, Any]) -> dict[str, Any]:
    """The constructor's arguments from a settings dict, every value checked."""
    if not isinstance(d, Mapping):
        raise ConfigurationError(f"The {OWNER} must be a mapping, got {type(d).__name__}.")
    specs = d.get("privacy_models") or []
    if not isinstance(specs, list | tuple):
        raise ConfigurationError(
            f"privacy_models must be a list of privacy models, got {specs!r:.80}.")
    models = [_model(f"privacy_models[{i}]", privacy_model_from_dict, spec)
              for i, spec in enumerate(specs)]
    quality_spec = d.get("quality_model")
    quality = _model("quality_model", quality_model_from_dict, quality_spec) \
        if quality_spec else Loss()
    search = {p.name: d[p.name] for p in _PARAMS if d.get(p.name) is not None}
    return {"privacy_models": models, "quality_model": quality,
            "microaggregation": microaggregation_from_dict(d.get("microaggregation") or {}),
            **check_params(_PARAMS, search, OWNER)}


def _model(key: str, build: Any, spec: Any) -> Any:
    """A model from its settings; a bad one raises ConfigurationError naming ``key``."""
    try:
        return build(spec)
    except ConfigurationError as exc:
        raise ConfigurationError(f"Setting {key}: {exc}") from None
