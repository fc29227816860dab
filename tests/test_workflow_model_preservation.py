"""The condensation compare workflow is one: ``arxpy compare-models`` and the GUI's
Model preservation job run their methods through the same repetitions and give the
same figures for the same method, k and seeds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arxpy import cli
from arxpy.analysis.model_preservation import read_analyses
from arxpy.data.definition import DataDefinition
from arxpy.methods import method_from_dict
from arxpy.methods.condensation.devdata import cancer_registry
from arxpy.workflows.model_preservation import Repetitions, model_preservation_job

ANALYSES = Path(__file__).parents[1] / "docs/examples/condensation-analyses.json"


@pytest.fixture(scope="module")
def registry():
    return cancer_registry(300, seed=5)


def test_command_and_gui_job_give_the_same_figures(registry, tmp_path) -> None:
    data = tmp_path / "registry.csv"
    registry.to_csv(data, index=False)
    report = tmp_path / "r.json"
    assert cli.main(["compare-models", "--original", str(data), "--methods", "mdav",
                     "--k", "15", "--analyses", str(ANALYSES), "--repeats", "2",
                     "--seed", "7", "--report", str(report)]) == 0
    entry = json.loads(report.read_text())["results"][0]
    assert entry["seeds"] == [7, 8]
    mdav = method_from_dict({"name": "mdav", **entry["parameters"], "seed": 0})
    gui = model_preservation_job(mdav, registry, DataDefinition.for_columns(registry.columns),
                                 read_analyses(ANALYSES), repeats=2, seed=7)
    (only,) = gui.values()
    assert only.to_dict()["models"] == entry["models"]


def test_a_method_without_seed_runs_once_for_every_repetition(registry) -> None:
    baseline = method_from_dict({"name": "k-anonymity-baseline", "k": 10,
                                 "quasi_identifiers": ["DiagAge", "Stage"]})
    runs = Repetitions(baseline, registry, DataDefinition.for_columns(registry.columns))
    tables = [runs(seed) for seed in range(3)]
    assert tables[0] is tables[1] is tables[2] and len(runs.tables) == 3
    assert runs.seeds == [None] and runs.parameters["k"] == 10
    assert "*" in set(tables[0]["DiagAge"])  # suppressed records stay unless released_only
