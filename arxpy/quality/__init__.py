"""Quality models. Importing this package registers every model by its name."""

from arxpy.quality.aecs import AverageClassSize
from arxpy.quality.base import QualityModel
from arxpy.quality.classification import Classification
from arxpy.quality.discernibility import Discernibility
from arxpy.quality.entropy import NonUniformEntropy
from arxpy.quality.height import Height
from arxpy.quality.kl import KLDivergence
from arxpy.quality.loss import Loss
from arxpy.quality.payout import PublisherPayout
from arxpy.quality.precision import Precision
from arxpy.quality.registry import (
    quality_model_classes,
    quality_model_from_dict,
    quality_model_names,
)

__all__ = [
    "AverageClassSize",
    "Classification",
    "Discernibility",
    "Height",
    "KLDivergence",
    "Loss",
    "NonUniformEntropy",
    "Precision",
    "PublisherPayout",
    "QualityModel",
    "quality_model_classes",
    "quality_model_from_dict",
    "quality_model_names",
]
