"""Top-and-bottom coding: the fifth method added as one module (issue 29's test of the
architecture): values coded as declared, its claim checked independently, and the
verdict that coding alone bounds no attacker."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from arxpy.analysis.classification import ClassificationConfig, ClassificationTask, evaluate_release
from arxpy.cli import main
from arxpy.data.definition import AttributeType, DataDefinition, DataKind, DataType
from arxpy.errors import ConfigurationError
from arxpy.methods import method_classes, run_method
from arxpy.methods.topcoding import java_double


def table(n: int = 300) -> tuple[pd.DataFrame, DataDefinition]:
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"age": rng.integers(0, 105, n).astype(str),
                          "sex": rng.choice(["f", "m"], n),
                          "stay": rng.integers(1, 30, n).astype(str)})
    frame.loc[3, "age"] = "NA"  # not a number: released as it is
    definition = DataDefinition.for_columns(frame.columns)
    for name in ("age", "sex"):
        definition = definition.with_attribute(name, type=AttributeType.QUASI_IDENTIFYING)
    return frame, definition


def test_values_beyond_the_codes_become_one_category_each():
    frame, definition = table()
    release = run_method("top-bottom-coding", frame, definition,
                         {"attribute": "age", "top": 90, "bottom": 10})
    ages = pd.to_numeric(frame["age"], errors="coerce")
    released = release.table["age"]
    assert (released[ages > 90] == ">90").all() and (released[ages < 10] == "<10").all()
    inside = ages.between(10, 90) | ages.isna()
    assert (released[inside] == frame["age"][inside]).all()
    assert released[3] == "NA"
    assert (release.table[["sex", "stay"]] == frame[["sex", "stay"]]).all().all()


def test_its_claim_is_checked_and_coding_alone_is_not_anonymous():
    frame, definition = table()
    release = run_method("top-bottom-coding", frame, definition,
                         {"attribute": "age", "top": 90})
    (check,) = release.verify().checks
    assert check.holds is True
    assert not release.anonymous
    assert "bound no attacker" in release.verify().headline
    leaked = release.table.copy()
    leaked.loc[0, "age"] = "104"  # an outlier released after all
    forged = dataclasses.replace(release, table=leaked)
    (check,) = forged.verify().checks
    assert check.holds is False and "1 released beyond the codes" in check.finding


@pytest.mark.parametrize("params, message", [
    ({"attribute": "age"}, "give a top code, a bottom code or both"),
    ({"attribute": "age", "top": 10, "bottom": 20}, "lies above the top code"),
])
def test_impossible_codes_are_refused(params, message):
    with pytest.raises(ConfigurationError, match=message):
        method_classes()["top-bottom-coding"](**params)


def test_it_is_a_method_everywhere(tmp_path):
    frame, definition = table()
    release = run_method("top-bottom-coding", frame, definition,
                         {"attribute": "age", "top": 80, "bottom": 20})
    task = ClassificationTask(frame, definition, {}, ClassificationConfig("sex", ("age",)))
    assert 0 <= evaluate_release(task, release).accuracy <= 1
    path = tmp_path / "in.csv"
    frame.to_csv(path, index=False)
    assert main(["run", "top-bottom-coding", "--data", str(path), "--attribute", "age",
                 "--top", "80", "--output", str(tmp_path / "out.csv")]) == 0
    assert (pd.read_csv(tmp_path / "out.csv", dtype=str)["age"] == ">80").sum() == \
        (pd.to_numeric(frame["age"], errors="coerce") > 80).sum()


def test_arx_convention_codes_the_top_code_itself_with_arx_labels():
    # ARX 3.9.2's interval hierarchy: >= for the top code, Java's text of a decimal bound
    # (benchmarks/topcoding_arx.py compares six configurations with ARX itself).
    frame = pd.DataFrame({"bmi": ["18.4", "18.5", "39.9", "40", "41.2", "NULL"]})
    definition = DataDefinition.for_columns(["bmi"]).with_attribute(
        "bmi", data_type=DataType(DataKind.DECIMAL))
    release = run_method("top-bottom-coding", frame, definition,
                         {"attribute": "bmi", "top": 40, "bottom": 18.5, "convention": "arx"})
    assert release.table["bmi"].tolist() == ["<18.5", "18.5", "39.9", ">=40.0", ">=40.0",
                                             "NULL"]
    (check,) = release.verify().checks
    assert check.holds is True
    leaked = release.table.copy()
    leaked.loc[3, "bmi"] = "40"  # the top code itself is beyond it in ARX's convention
    (check,) = dataclasses.replace(release, table=leaked).verify().checks
    assert check.holds is False


@pytest.mark.parametrize("value, text", [(40, "40.0"), (18.5, "18.5"), (1e7, "1.0E7"),
                                         (0.00015, "1.5E-4"), (-2.5e-5, "-2.5E-5"), (0, "0.0")])
def test_java_double_text(value, text):
    assert java_double(value) == text
