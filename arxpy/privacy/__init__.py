"""Privacy models. Importing this package registers every model by its kind.

The imports run in the order menus list the models (record-level, then attribute
models, then risk thresholds), since the registry keeps the order of registration.
"""
# ruff: noqa: I001

from arxpy.privacy.base import PrivacyModel
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.privacy.kmap import KMap
from arxpy.privacy.dpresence import DeltaPresence
from arxpy.privacy.ldiversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from arxpy.privacy.tcloseness import TCloseness
from arxpy.privacy.disclosure import DeltaDisclosure
from arxpy.privacy.likeness import BasicBetaLikeness, EnhancedBetaLikeness
from arxpy.privacy.risk_threshold import AverageRisk
from arxpy.privacy.prosecutor_risk import ProsecutorRisk
from arxpy.privacy.population_uniqueness import PopulationUniqueness
from arxpy.privacy.sample_uniqueness import SampleUniqueness
from arxpy.privacy.differential_privacy import EDDifferentialPrivacy
from arxpy.privacy.profitability import (
    ProfitabilityJournalist,
    ProfitabilityJournalistNoAttack,
    ProfitabilityProsecutor,
    ProfitabilityProsecutorNoAttack,
)
from arxpy.privacy.registry import (
    privacy_model_classes,
    privacy_model_from_dict,
    privacy_model_kinds,
)

__all__ = [
    "AverageRisk",
    "BasicBetaLikeness",
    "DeltaDisclosure",
    "DeltaPresence",
    "DistinctLDiversity",
    "EDDifferentialPrivacy",
    "EnhancedBetaLikeness",
    "EntropyLDiversity",
    "KAnonymity",
    "KMap",
    "PopulationUniqueness",
    "PrivacyModel",
    "ProfitabilityJournalist",
    "ProfitabilityJournalistNoAttack",
    "ProfitabilityProsecutor",
    "ProfitabilityProsecutorNoAttack",
    "ProsecutorRisk",
    "RecursiveCLDiversity",
    "SampleUniqueness",
    "TCloseness",
    "privacy_model_classes",
    "privacy_model_from_dict",
    "privacy_model_kinds",
]
