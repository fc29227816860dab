"""Recipes, replay and certificates (issue 35): a data-free file of everything that
decides a release, its replay on a new extract, and a signed certificate a reviewer
verifies offline. Qt-free; ``docs/recipes.md`` describes the files.
"""

from arxpy.recipes.recipe import FIXED, RUN, SEARCH, Recipe, build_recipe, hierarchy_sha256
from arxpy.recipes.replay import Replay, ReplayRefused, replay

__all__ = ["FIXED", "RUN", "SEARCH", "Recipe", "Replay", "ReplayRefused", "build_recipe",
           "hierarchy_sha256", "replay"]
