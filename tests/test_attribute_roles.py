"""An attribute has one role: a quasi-identifier named as sensitive is refused everywhere.

Before, ``--hierarchy age=... --sensitive age`` dropped age from the quasi-identifiers and
released it ungeneralized (issue 12, item 1).
"""

from __future__ import annotations

import pandas as pd
import pytest

from arxpy.cli import main
from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig
from arxpy.engine.anonymizer import prepare
from arxpy.errors import ConfigurationError, DefinitionError
from arxpy.hierarchy.model import Hierarchy
from arxpy.privacy.ldiversity import DistinctLDiversity
from arxpy.project import Project


@pytest.fixture
def files(tmp_path):
    rows = ["age;zip;disease"]
    for i in range(40):
        rows.append(f"{20 + (i * 7) % 40};{1300 + (i * 3) % 9};{['flu', 'cold', 'ache'][i % 3]}")
    (tmp_path / "data.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "age.csv").write_text("\n".join(
        f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*" for a in range(20, 60)) + "\n")
    (tmp_path / "zip.csv").write_text("\n".join(
        f"{z};{z // 10}*;*" for z in range(1300, 1310)) + "\n")
    (tmp_path / "disease.csv").write_text("flu;respiratory;*\ncold;respiratory;*\n"
                                          "ache;other;*\n")
    return tmp_path


def _run(folder, *extra):
    return main(["anonymize", "--data", str(folder / "data.csv"), "--delimiter", ";",
                 "--hierarchy", f"age={folder / 'age.csv'}",
                 "--hierarchy", f"zip={folder / 'zip.csv'}",
                 "--output", str(folder / "out.csv"), *extra])


@pytest.mark.parametrize("extra", [
    ["--k", "2", "--sensitive", "age"],
    ["--ldiversity", "age:distinct:2"],
    ["--tcloseness", "age:equal:0.2"],
    ["--k", "2", "--identifying", "zip"],
])
def test_cli_refuses_a_quasi_identifier_with_a_second_role(files, capsys, extra):
    assert _run(files, *extra) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("arxpy: error:") and "cannot be both" in err
    assert not (files / "out.csv").exists()  # nothing released


def test_cli_keeps_hierarchical_t_closeness_of_a_sensitive_attribute(files):
    # The hierarchy of a hierarchical t-closeness attribute serves the distance; the
    # attribute is sensitive, and every given quasi-identifier stays generalizable.
    code = _run(files, "--k", "2", "--suppression", "1",
                "--hierarchy", f"disease={files / 'disease.csv'}",
                "--tcloseness", "disease:hierarchical:0.9")
    assert code == 0
    out = pd.read_csv(files / "out.csv", sep=";", dtype=str, keep_default_na=False)
    assert list(out.columns) == ["age", "zip", "disease"]


def test_cli_refuses_sensitive_over_a_project_quasi_identifier(files, tmp_path, capsys):
    data = pd.read_csv(files / "data.csv", sep=";", dtype=str)
    definition = DataDefinition.for_columns(data.columns).with_attribute(
        "age", type=AttributeType.QUASI_IDENTIFYING)
    hierarchy = Hierarchy([[str(a), "*"] for a in range(20, 60)])
    project = Project(data, definition, {"age": hierarchy},
                      {"privacy_models": [{"kind": "k-anonymity", "k": 2}]})
    path = project.save(tmp_path / "p.arxpy")
    code = main(["anonymize", "--project", str(path), "--sensitive", "age",
                 "--output", str(tmp_path / "out.csv")])
    assert code == 2
    assert "cannot be both" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()


def test_api_refuses_a_model_protecting_a_quasi_identifier():
    frame = pd.DataFrame({"age": ["20", "21", "20", "21"], "d": ["a", "b", "a", "b"]})
    definition = DataDefinition.for_columns(frame.columns).with_attribute(
        "age", type=AttributeType.QUASI_IDENTIFYING)
    config = AnonymizationConfig([DistinctLDiversity("age", 2)])
    hierarchies = {"age": Hierarchy([["20", "*"], ["21", "*"]])}
    with pytest.raises(ConfigurationError, match="both quasi-identifying and sensitive"):
        prepare(frame, definition, hierarchies, config)


def test_gui_refuses_making_a_protected_attribute_a_quasi_identifier(qtbot):
    from arxpy.gui.state import AppState

    frame = pd.DataFrame({"age": ["20", "21"] * 4, "disease": ["a", "b", "c", "d"] * 2})
    definition = DataDefinition.for_columns(frame.columns).with_attribute(
        "disease", type=AttributeType.SENSITIVE)
    settings = {"privacy_models": [{"kind": "distinct-l-diversity", "attribute": "disease",
                                    "l": 2}]}
    state = AppState()
    state.set_project(Project(frame, definition, {}, settings))
    with pytest.raises(DefinitionError, match="cannot be both"):
        state.set_attribute("disease", type=AttributeType.QUASI_IDENTIFYING)
    assert state.definition["disease"].type is AttributeType.SENSITIVE
    assert state.undo_stack.count() == 0
