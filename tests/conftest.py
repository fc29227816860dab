"""Shared fixtures. Qt runs on the offscreen platform in every test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
#: The Adult benchmark data lives beside the repository and is never committed.
ADULT_DIR = REPO.parent / "shared" / "data" / "adult"
ADULT_MISSING = f"Adult benchmark data not found at {ADULT_DIR}"


def load_adult(quasi_identifiers=None):
    """Adult as (frame, definition, hierarchies); all nine attributes QIs by default."""
    import pandas as pd

    from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
    from arxpy.hierarchy.io import read_hierarchy

    frame = pd.read_csv(ADULT_DIR / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    qis = list(frame.columns) if quasi_identifiers is None else list(quasi_identifiers)
    hierarchies = {c: read_hierarchy(ADULT_DIR / f"adult_hierarchy_{c}.csv") for c in qis}
    definition = DataDefinition(
        AttributeDefinition(
            c, AttributeType.QUASI_IDENTIFYING if c in qis else AttributeType.INSENSITIVE
        )
        for c in frame.columns
    )
    return frame, definition, hierarchies


@pytest.fixture(scope="session")
def adult_dir() -> Path:
    if not (ADULT_DIR / "adult.csv").exists():
        pytest.skip(ADULT_MISSING)
    return ADULT_DIR


@pytest.fixture(scope="session")
def adult(adult_dir):
    """Adult with all nine attributes as quasi-identifiers (skips when absent)."""
    return load_adult()
