"""Attribute weights as ARX has them (issue 31, item 1).

An attribute nobody gave a weight weighs 0.5 (``ARXConfiguration.getAttributeWeight``)
and the multi-dimensional models divide every weight by the largest, so setting one
weight changes the others' share as it does in ARX. Files arxpy wrote keep their weights
(it has always written every one); only a missing weight reads as ARX's default. The
ARX figures on Adult are in ``tests/test_parity_arx.py``.
"""

from __future__ import annotations

import argparse
import json
import zipfile

import pandas as pd
import pytest

from arxpy.commands.options import apply_attribute_options
from arxpy.data.definition import (
    DEFAULT_WEIGHT,
    AttributeDefinition,
    AttributeType,
    DataDefinition,
)
from arxpy.hierarchy.model import Hierarchy
from arxpy.lattice.encoding import encode
from arxpy.lattice.grouping import Grouper
from arxpy.project import Project
from arxpy.quality.height import Height
from arxpy.quality.loss import Loss

AGE = Hierarchy([["20", "20-29", "*"], ["25", "20-29", "*"], ["30", "30-39", "*"],
                 ["45", "40-49", "*"]])
SEX = Hierarchy([["m", "*"], ["f", "*"]])
FRAME = pd.DataFrame({"age": ["20", "25", "25", "30", "45", "45"],
                      "sex": ["m", "m", "f", "f", "f", "f"]})
QI = AttributeType.QUASI_IDENTIFYING


def _definition(**weights: float) -> DataDefinition:
    return DataDefinition(AttributeDefinition(name, QI, **(
        {"weight": weights[name]} if name in weights else {})) for name in FRAME.columns)


def _score(model, definition: DataDefinition, levels=(1, 1)) -> float:
    data = encode(FRAME, definition, {"age": AGE, "sex": SEX})
    model.prepare(data)
    classes, _ = Grouper(data).group_records(levels)
    return model.score(classes, classes.sizes < 0)


def test_an_attribute_without_a_weight_weighs_half_as_in_arx():
    assert DEFAULT_WEIGHT == 0.5
    assert AttributeDefinition("age", QI).weight == 0.5
    assert AttributeDefinition.from_dict({"name": "age", "type": "quasi-identifying"}).weight == 0.5


@pytest.mark.parametrize("model", [Loss, Height], ids=["loss", "height"])
def test_one_weight_set_leaves_the_other_at_half_of_the_largest(model):
    # age 1.0 and sex unset: ARX weighs age 1 and sex 0.5 after dividing by the largest.
    unset = _score(model(), _definition(age=1.0))
    assert unset == _score(model(), _definition(age=1.0, sex=0.5))
    assert unset != _score(model(), _definition(age=1.0, sex=1.0))
    # Height at (1, 1) is w_age + w_sex: exactly 1 + 0.5.
    if model is Height:
        assert unset == 1.5


def test_weights_written_by_an_older_arxpy_keep_their_meaning(tmp_path):
    # arxpy always wrote every weight (1.0 unless set); they are read as written, so
    # a file with age 2.0 and zip at the old default 1.0 still weighs age twice zip.
    frame = pd.DataFrame({"age": ["34", "71"], "zip": ["123", "456"]})
    hierarchies = {c: Hierarchy([[v, "*"] for v in frame[c]]) for c in frame.columns}
    project = Project(frame, DataDefinition(AttributeDefinition(c, QI) for c in frame.columns),
                      hierarchies, {}, name="old")
    path = project.save(tmp_path / "old.arxpy")
    rewritten = tmp_path / "rewritten.arxpy"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(rewritten, "w") as dst:
        for item in src.namelist():
            content = src.read(item)
            if item == "project.json":
                manifest = json.loads(content)
                weights = iter((2.0, 1.0))
                for attribute in manifest["definition"]:
                    attribute["weight"] = next(weights)
                content = json.dumps(manifest).encode()
            dst.writestr(item, content)
    loaded = Project.load(rewritten)
    assert [a.weight for a in loaded.definition] == [2.0, 1.0]


def test_a_project_without_weights_reads_arx_default(tmp_path):
    frame = pd.DataFrame({"age": ["34", "71"]})
    project = Project(frame, DataDefinition([AttributeDefinition("age", QI, weight=3.0)]),
                      {"age": Hierarchy([["34", "*"], ["71", "*"]])}, {}, name="p")
    path = project.save(tmp_path / "p.arxpy")
    stripped = tmp_path / "stripped.arxpy"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(stripped, "w") as dst:
        for item in src.namelist():
            content = src.read(item)
            if item == "project.json":
                manifest = json.loads(content)
                del manifest["definition"][0]["weight"]
                content = json.dumps(manifest).encode()
            dst.writestr(item, content)
    assert Project.load(stripped).definition["age"].weight == DEFAULT_WEIGHT


def test_cli_weight_option_sets_one_and_leaves_the_others_at_the_default():
    args = argparse.Namespace(data_type=[], weight=["age=1"], min_level=[], max_level=[])
    definition = apply_attribute_options(args, FRAME, _definition())
    assert (definition["age"].weight, definition["sex"].weight) == (1.0, DEFAULT_WEIGHT)
