"""A recipe with its hierarchy files (Qt-free; the GUI's File › Export recipe).

A project's hierarchies have no files, and replay needs them by the names the recipe
gives, so they are written beside the recipe, one ARX CSV per attribute in
``RECIPE-hierarchies/``. They list values of the data: the folder is as sensitive as
the data and is kept with the recipe under the same protection.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from arxpy.data.definition import DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.recipes.recipe import FIXED, Recipe, build_recipe, hierarchy_sha256
from arxpy.release import Release


def hierarchy_folder(recipe_path: str | Path) -> Path:
    """Where the hierarchies of the recipe ``recipe_path`` go: ``RECIPE-hierarchies``."""
    path = Path(recipe_path)
    return path.with_name(f"{path.stem}-hierarchies")


def hierarchy_file_name(attribute: str) -> str:
    """A file name for the hierarchy of ``attribute`` (characters a file system may
    refuse become ``_``)."""
    return re.sub(r"[^\w .()-]", "_", attribute).strip(" .") + ".csv"


def export_recipe(path: str | Path, definition: DataDefinition,
                  hierarchies: Mapping[str, Hierarchy], release: Release, *,
                  mode: str = FIXED, identifiers: Mapping[str, Any] | None = None,
                  parameters: Mapping[str, Any] | None = None,
                  with_hierarchies: bool = True, preset: Mapping[str, Any] | None = None,
                  data: pd.DataFrame | None = None) -> tuple[Recipe, list[Path]]:
    """Write the recipe of ``release`` (:func:`build_recipe`, as the CLI makes it) to
    ``path`` and, with ``with_hierarchies``, its hierarchies into
    :func:`hierarchy_folder`; returns the recipe and the files written. An existing
    hierarchy file that differs is never overwritten. ``preset`` is the record of the
    policy preset the project applied, ``data`` the project's table (to tell which
    hierarchies its rules still build)."""
    from arxpy.presets import built_hierarchies

    used = {n: h for n, h in hierarchies.items() if n in definition}
    files = {name: hierarchy_file_name(name) for name in used}
    built = built_hierarchies(preset, data, definition, used) \
        if preset is not None and data is not None else {}
    recipe = build_recipe(definition, used, release, mode=mode, identifiers=identifiers,
                          hierarchy_files=files, parameters=parameters,
                          preset=preset, built=built)
    written = _write_hierarchies(hierarchy_folder(path), used, files) \
        if with_hierarchies else []
    recipe.save(path)
    return recipe, [Path(path), *written]


def _write_hierarchies(folder: Path, hierarchies: Mapping[str, Hierarchy],
                       files: Mapping[str, str]) -> list[Path]:
    from arxpy.hierarchy.io import read_hierarchy, write_hierarchy

    targets = {name: folder / files[name] for name in hierarchies}
    for name, target in targets.items():  # every clash refused before anything is written
        if target.exists() and hierarchy_sha256(read_hierarchy(target)) != \
                hierarchy_sha256(hierarchies[name]):
            raise ConfigurationError(
                f"'{target}' holds another hierarchy; choose another recipe name or "
                "move that folder.")
    folder.mkdir(parents=True, exist_ok=True)
    for name, target in targets.items():
        write_hierarchy(hierarchies[name], target)
    return list(targets.values())
