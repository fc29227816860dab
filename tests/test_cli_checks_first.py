"""Issue 28, defect 13: settings that can never work are refused before the data are
read, options are never ignored in silence, a project's method is never replaced by
another, and a publication that shows a code in two places fails km-check."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from arxpy.cli import main
from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.hierarchy.model import Hierarchy
from arxpy.project import Project


@pytest.fixture
def broken_body(tmp_path):
    """A table whose line 4 is ragged: reading the records fails, reading the header
    does not, so an error about the configuration proves the records were not read."""
    (tmp_path / "data.csv").write_text("age,zip\n31,1300\n45,1301\n52\n")
    (tmp_path / "age.csv").write_text("31;*\n45;*\n52;*\n")
    return tmp_path


@pytest.mark.parametrize(("extra", "message"), [
    (["--k", "2"], "No attribute is a quasi-identifier"),
    (["--k", "2", "--hierarchy", "age=missing.csv"], "missing.csv does not exist"),
    (["--k", "2", "--hierarchy", "height=AGE"], "height"),
    (["--hierarchy", "age=AGE"], "Choose at least one privacy model"),
])
def test_an_impossible_configuration_is_refused_before_reading_the_data(
        broken_body, capsys, extra, message):
    extra = [e.replace("AGE", str(broken_body / "age.csv")) for e in extra]
    assert main(["anonymize", "--data", str(broken_body / "data.csv"), *extra,
                 "--output", str(broken_body / "out.csv")]) == 2
    err = capsys.readouterr().err
    assert message in err and "line 4" not in err
    assert not (broken_body / "out.csv").exists()


def test_a_possible_configuration_still_reads_every_record(broken_body, capsys):
    assert main(["anonymize", "--data", str(broken_body / "data.csv"), "--k", "2",
                 "--hierarchy", f"age={broken_body / 'age.csv'}"]) == 2
    assert "line 4" in capsys.readouterr().err  # the data were read: the fault is found


@pytest.mark.parametrize(("extra", "option"), [
    (["--memory-limit", "1GB"], "--memory-limit is an option of --engine duckdb"),
    (["--memory-limit", "1GB", "--engine", "spark"], "--memory-limit is an option"),
    (["--spark-master", "local[1]"], "--spark-master is an option of --engine spark"),
])
def test_an_engine_option_without_its_engine_is_refused(broken_body, capsys, extra, option):
    assert main(["anonymize", "--data", str(broken_body / "data.csv"), "--k", "2",
                 "--hierarchy", f"age={broken_body / 'age.csv'}", *extra]) == 2
    assert option in capsys.readouterr().err


def _project(tmp_path, settings: dict) -> str:
    data = pd.DataFrame({"age": ["31", "45", "52", "31"], "dx": ["a", "b", "a", "b"]})
    definition = DataDefinition([AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING),
                                 AttributeDefinition("dx", AttributeType.INSENSITIVE)])
    hierarchies = {"age": Hierarchy([["31", "*"], ["45", "*"], ["52", "*"]])}
    base = {"privacy_models": [{"kind": "k-anonymity", "k": 2}], "suppression_limit": 0.0}
    path = tmp_path / "study.arxpy"
    Project(data, definition, hierarchies, {**base, **settings}, name="s").save(path)
    return str(path)


def test_anonymize_refuses_a_project_whose_chosen_method_is_another(tmp_path, capsys):
    project = _project(tmp_path, {"method": "mdav", "method_parameters": {"mdav": {"k": 2}}})
    out = tmp_path / "out.csv"
    assert main(["anonymize", "--project", project, "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert "chosen method is 'mdav'" in err and "arxpy run mdav --project" in err
    assert not out.exists()
    lattice = _project(tmp_path, {"method": "generalization"})
    assert main(["anonymize", "--project", lattice, "--output", str(out)]) == 0


def _publication(item_chunk: list[str]) -> dict:
    subrecords = [["a"], ["a"], ["b"], ["b"]]
    return {"method": "disassociation", "k": 2, "m": 1, "joint_clusters": [
        {"clusters": [{"size": 4, "item_chunk": item_chunk,
                       "record_chunks": [{"domain": ["a", "b"], "subrecords": subrecords}]}],
         "shared_chunks": []}]}


def test_km_check_refuses_a_code_published_in_two_places(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(_publication(["c"])))
    assert main(["km-check", "--published", str(path), "--k", "2", "--m", "1"]) == 0
    path.write_text(json.dumps(_publication(["a", "c"])))  # 'a' in a chunk and items
    assert main(["km-check", "--published", str(path), "--k", "2", "--m", "1"]) == 2
    err = capsys.readouterr().err
    assert "publishes code 'a' of cluster 0 in both clusters[0].record_chunks[0] and " \
           "clusters[0].item_chunk" in err
    shared = _publication([])
    shared["joint_clusters"][0]["clusters"].append(
        {"size": 2, "item_chunk": [], "record_chunks": [
            {"domain": ["b"], "subrecords": [["b"], ["b"]]}]})
    shared["joint_clusters"][0]["shared_chunks"] = [
        {"domain": ["b"], "members": [0, 1], "subrecords": [["b"]] * 6}]
    path.write_text(json.dumps(shared))
    assert main(["km-check", "--published", str(path), "--k", "2", "--m", "1"]) == 2
    assert "in both clusters[0].record_chunks[0] and shared_chunks[0]" in \
        capsys.readouterr().err
