"""The HTML report reads as prose: no Python dicts, no 'optimal (optimal)' (issue 11)."""

from __future__ import annotations

from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.engine.export import report_html
from arxpy.example import example_project


def test_report_names_the_quality_model_and_strategy_in_words():
    project = example_project(records=400)
    settings = dict(project.settings)
    settings["quality_model"] = {"name": "loss", "gs_factor": 0.25}
    result = anonymize(project.data, project.definition, project.hierarchies,
                       AnonymizationConfig.from_dict(settings))
    html = report_html(result, result.optimum.levels)
    assert "{" not in html.split("<h2>Configuration</h2>")[1].split("<h2>")[0]
    assert "gs factor = 0.25" in html
    assert "optimal (optimal)" not in html
    # Two averages of class size, named apart: released classes vs ARX's AECS.
    assert "Mean size of released classes" in html
