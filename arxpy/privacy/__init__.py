"""Privacy models. Importing this package registers every model by its kind."""

from arxpy.privacy.base import PrivacyModel
from arxpy.privacy.disclosure import DeltaDisclosure
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.privacy.ldiversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from arxpy.privacy.likeness import BasicBetaLikeness, EnhancedBetaLikeness
from arxpy.privacy.population_uniqueness import PopulationUniqueness
from arxpy.privacy.prosecutor_risk import ProsecutorRisk
from arxpy.privacy.registry import privacy_model_from_dict, privacy_model_kinds
from arxpy.privacy.risk_threshold import AverageRisk
from arxpy.privacy.tcloseness import TCloseness

__all__ = [
    "AverageRisk",
    "BasicBetaLikeness",
    "DeltaDisclosure",
    "DistinctLDiversity",
    "EnhancedBetaLikeness",
    "EntropyLDiversity",
    "KAnonymity",
    "PopulationUniqueness",
    "PrivacyModel",
    "ProsecutorRisk",
    "RecursiveCLDiversity",
    "TCloseness",
    "privacy_model_from_dict",
    "privacy_model_kinds",
]
