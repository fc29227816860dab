"""Record engines (issue 17): the histogram and the written output of every engine equal
what the in-memory path gives for the same run.

The reference for the output is the release the default path exports
(``released_frame`` of ``Result.release()``), not the engine's own plan.
"""

from __future__ import annotations

import pytest

from arxpy.data.csv_io import read_csv, sniff_csv
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.engine.backends import MemoryEngine, RecordSource
from arxpy.engine.export import released_frame
from arxpy.engine.scaled import anonymize_source
from arxpy.example import example_project


@pytest.fixture(scope="module")
def example():
    project = example_project(records=3000)
    return project, AnonymizationConfig.from_dict(project.settings)


@pytest.mark.parametrize("remove_suppressed", [False, True])
def test_memory_engine_writes_what_the_default_path_exports(example, tmp_path,
                                                            remove_suppressed):
    project, config = example
    config = AnonymizationConfig.from_dict({**project.settings,
                                            "remove_suppressed": remove_suppressed})
    run = anonymize_source(RecordSource.of_frame(project.data), project.definition,
                           project.hierarchies, config, MemoryEngine())
    reference = anonymize(project.data, project.definition, project.hierarchies, config)
    assert run.result.optimum == reference.optimum
    summary = run.write(tmp_path / "out.csv", delimiter=";")
    expected = released_frame(reference.release())
    written = read_csv(summary.path, sniff_csv(summary.path, delimiter=";"))
    assert summary.suppressed == reference.optimum.suppressed_records > 0
    assert summary.records == len(expected)
    assert list(written.columns) == list(expected.columns)
    assert (written.to_numpy() == expected.astype(str).to_numpy()).all()
