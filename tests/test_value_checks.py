"""Issue 28, defect 10: integral numbers written as decimals are integers, numbers that
may be category codes and sensitive values spelled several ways are said (one
``arxpy: warning:`` line each, naming the attribute and counts, never values)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from arxpy.cli import main
from arxpy.data.definition import DataDefinition, DataKind, DataType
from arxpy.data.types import infer_data_type, parse_values, validate_values
from arxpy.data.value_checks import (
    CODE_REPEATS,
    CODE_VALUES_LIMIT,
    code_count,
    variant_groups,
)
from arxpy.methods.registry import method_classes


def _series(*values: str) -> pd.Series:
    return pd.Series(list(values), dtype=object)


def test_integral_values_written_as_decimals_are_integers():
    values = _series("5.0", "12", "-3.", "NA", "0.00")
    assert infer_data_type(values) == DataType(DataKind.INTEGER)
    np.testing.assert_array_equal(parse_values(values, DataType(DataKind.INTEGER)),
                                  [5, 12, -3, np.nan, 0])
    assert validate_values(_series("5.0", "5.5"), DataType(DataKind.INTEGER)) == [(1, "5.5")]
    assert infer_data_type(_series("5.0", "5.5")) == DataType(DataKind.DECIMAL)
    assert infer_data_type(_series("20200105.0")).kind is DataKind.INTEGER  # not a date


def _registry(records: int = 60) -> pd.DataFrame:
    """Integer columns as pandas writes them after a missing value (``4.0``)."""
    rng = np.random.default_rng(5)
    return pd.DataFrame({
        "nodes": [f"{v:.1f}" for v in rng.integers(0, 30, records)],
        "age": [str(v) for v in rng.integers(30, 90, records)],
        "size": [f"{v:.2f}" for v in rng.normal(20, 6, records)],
    })


@pytest.mark.parametrize("method", ["condensation", "mdav"])
def test_condensation_releases_integer_columns_in_the_integer_domain(method):
    """The defect measured `condense` releasing nodes = 4.86 on an integer column."""
    frame = _registry()
    cls = method_classes()[method]
    release = cls(k=5, seed=2).run(frame, DataDefinition.for_columns(frame.columns))
    nodes = release.table["nodes"].astype(float)
    assert (nodes == np.round(nodes)).all()
    original = frame["nodes"].astype(float)
    assert nodes.between(original.min(), original.max()).all()
    size = release.table["size"].astype(float)
    assert not (size == np.round(size)).all()  # decimals stay continuous


def test_few_valued_numbers_may_be_codes():
    codes = _series(*(["1", "2", "3.0"] * CODE_REPEATS))
    assert code_count(codes) == 3
    assert code_count(_series(*(["1", "2", "3"] * (CODE_REPEATS - 1)))) == 0  # too few records
    many = _series(*[str(v) for v in range(CODE_VALUES_LIMIT + 1)] * CODE_REPEATS)
    assert code_count(many) == 0
    assert code_count(_series(*(["7"] * 20))) == 0  # a constant is no code list


def test_condense_warns_that_a_few_valued_number_may_be_codes(tmp_path, capsys):
    frame = _registry()
    frame["stage"] = [str(v) for v in np.arange(len(frame)) % 3 + 1]
    frame.to_csv(tmp_path / "in.csv", index=False)
    assert main(["condense", "--data", str(tmp_path / "in.csv"), "--method", "mdav",
                 "--k", "5", "--seed", "1", "--output", str(tmp_path / "out.csv")]) == 0
    lines = [x for x in capsys.readouterr().err.split("arxpy: warning: ")[1:]]
    assert len(lines) == 1
    assert lines[0].startswith("Attribute 'stage' is numeric but holds only 3 distinct values")
    assert "CategoricalCodesWarning" not in lines[0]


def test_case_and_space_variants_are_counted_without_values():
    values = _series("HIV", "hiv", "HIV ", "flu", " Flu", "cold", "NA", "na")
    assert variant_groups(values) == 2  # HIV (3 spellings), flu (2); NA is missing
    assert variant_groups(_series("HIV", "flu", "cold")) == 0


def test_a_sensitive_attribute_with_variants_is_warned_once_per_attribute(tmp_path, capsys):
    path = tmp_path / "in.csv"
    rows = [(f"{20 + i % 4}", ["HIV", "hiv", "HIV ", "flu"][i % 4]) for i in range(16)]
    path.write_text("age,diagnosis\n" + "".join(f"{a},{d}\n" for a, d in rows))
    hierarchy = tmp_path / "age.csv"
    hierarchy.write_text("".join(f"{a};*\n" for a in range(20, 24)))
    assert main(["anonymize", "--data", str(path), "--hierarchy", f"age={hierarchy}",
                 "--k", "2", "--ldiversity", "diagnosis:distinct:2",
                 "--output", str(tmp_path / "out.csv")]) == 0
    err = capsys.readouterr().err
    assert err.count("arxpy: warning:") == 1
    assert ("arxpy: warning: Sensitive attribute 'diagnosis' has 1 value spelled in ways "
            "that differ only by case or surrounding spaces") in err
    assert "HIV" not in err and "hiv" not in err
    path.write_text("age,diagnosis\n" + "".join(f"{a},flu\n" for a, _ in rows))
    assert main(["anonymize", "--data", str(path), "--hierarchy", f"age={hierarchy}",
                 "--k", "2", "--sensitive", "diagnosis",
                 "--output", str(tmp_path / "out2.csv")]) == 0
    assert "arxpy: warning:" not in capsys.readouterr().err
