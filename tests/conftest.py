"""Shared fixtures. Qt runs on the offscreen platform in every test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
#: The Adult benchmark data lives beside the repository and is never committed.
ADULT_DIR = REPO.parent / "shared" / "data" / "adult"


@pytest.fixture(scope="session")
def adult_dir() -> Path:
    if not (ADULT_DIR / "adult.csv").exists():
        pytest.skip(f"Adult benchmark data not found at {ADULT_DIR}")
    return ADULT_DIR
