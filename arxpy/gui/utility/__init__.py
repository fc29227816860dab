"""The Utility perspective: input versus output statistics, distributions, contingency,
equivalence classes and quality, classifier performance and the quality-model study."""

from arxpy.gui.utility.perspective import UtilityPerspective

__all__ = ["UtilityPerspective"]
