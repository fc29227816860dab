import json
import zipfile

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.errors import ProjectError
from arxpy.hierarchy.model import Hierarchy
from arxpy.project import SCHEMA_VERSION, Project


def _project() -> Project:
    data = pd.DataFrame(
        {"age": ["34", "", "NA", "71"], "zip": ["12345", "1;2", 'a "quoted", value', "?"],
         "disease": ["flu", "line\nbreak", "Zürich", "NULL"]}
    )
    definition = DataDefinition(
        [
            AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING, min_level=1, weight=2.5),
            AttributeDefinition("zip", AttributeType.QUASI_IDENTIFYING),
            AttributeDefinition("disease", AttributeType.SENSITIVE),
        ]
    )
    hierarchies = {
        "age": Hierarchy(
            [["34", "30-39", "*"], ["", "NA", "*"], ["NA", "NA", "*"], ["71", "70-79", "*"]]
        ),
        "zip": Hierarchy([["12345", "123**", "*"], ["1;2", "1**", "*"]]),
    }
    settings_ = {"privacy_models": [{"kind": "k-anonymity", "k": 2}], "suppression_limit": 0.1}
    return Project(data, definition, hierarchies, settings_, name="Discharge study")


def test_round_trip_is_exact(tmp_path):
    project = _project()
    path = project.save(tmp_path / "study.arxpy")
    loaded = Project.load(path)
    assert loaded == project
    assert loaded.data.loc[1, "age"] == ""  # missing values stay their own value
    assert loaded.data.loc[2, "age"] == "NA"


def test_archive_layout_and_schema(tmp_path):
    path = _project().save(tmp_path / "study.arxpy")
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("project.json"))
        names = set(archive.namelist())
    assert manifest["schema_version"] == SCHEMA_VERSION
    assert {"project.json", "data.csv"} <= names
    assert all(member in names for member in manifest["hierarchies"].values())


def test_newer_schema_is_refused_with_advice(tmp_path):
    path = _project().save(tmp_path / "study.arxpy")
    newer = tmp_path / "newer.arxpy"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(newer, "w") as dst:
        for item in src.namelist():
            payload = src.read(item)
            if item == "project.json":
                manifest = json.loads(payload)
                manifest["schema_version"] = SCHEMA_VERSION + 1
                payload = json.dumps(manifest).encode()
            dst.writestr(item, payload)
    with pytest.raises(ProjectError, match="newer arxpy.*Update arxpy"):
        Project.load(newer)


def test_failed_save_keeps_existing_file(tmp_path, monkeypatch):
    path = _project().save(tmp_path / "study.arxpy")
    before = path.read_bytes()

    def explode(self):
        raise RuntimeError("disk full")

    broken = _project()
    monkeypatch.setattr(Project, "_members", lambda self: {"project.json": b"{}", "x": explode})
    with pytest.raises(TypeError):  # the payload is not bytes
        broken.save(path)
    assert path.read_bytes() == before
    assert Project.load(path) == _project()
    assert [p.name for p in tmp_path.iterdir()] == ["study.arxpy"]  # no temp file left


@pytest.mark.parametrize("content", [b"", b"not a zip", None])
def test_bad_files_give_project_errors(tmp_path, content):
    path = tmp_path / "bad.arxpy"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ProjectError, match="bad.arxpy"):
        Project.load(path)


def test_archive_without_manifest(tmp_path):
    path = tmp_path / "plain.arxpy"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data.csv", "a\n1\n")
    with pytest.raises(ProjectError, match="not an arxpy project"):
        Project.load(path)


cells = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                max_size=8)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(cells, cells), min_size=0, max_size=12))
def test_any_string_table_round_trips(tmp_path_factory, rows):
    data = pd.DataFrame(rows, columns=["a", "b"])
    project = Project(data, DataDefinition.for_columns(["a", "b"]))
    path = project.save(tmp_path_factory.mktemp("p") / "t.arxpy")
    assert Project.load(path) == project
