"""The bundled synthetic patient-discharge example and the ``arxpy example`` command."""

from __future__ import annotations

import csv
import io
import time
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from arxpy.cli import main
from arxpy.data.definition import AttributeType, DataKind
from arxpy.errors import ConfigurationError, DataExportError, HierarchyError
from arxpy.example import (
    COLUMNS,
    MISSING,
    QUARTERS,
    example_definition,
    example_files,
    example_hierarchies,
    example_project,
    generate_example,
    write_example,
)


def _reference(name: str) -> list[dict[str, str]]:
    text = (resources.files("arxpy.resources") / "example" / name).read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return generate_example()


def test_same_seed_gives_identical_frame_and_other_seed_differs() -> None:
    first = generate_example(3_000, seed=7)
    assert first.equals(generate_example(3_000, seed=7))
    other = generate_example(3_000, seed=8)
    assert not first.equals(other)
    assert (first["Charge"] != other["Charge"]).mean() > 0.9


def test_columns_size_and_cells_are_strings(frame: pd.DataFrame) -> None:
    assert list(frame.columns) == list(COLUMNS)
    assert frame.shape == (40_000, 10)
    assert len(generate_example(123)) == 123
    for column in frame:
        assert frame[column].map(type).eq(str).all(), column
        assert not frame[column].eq("").any(), column


@pytest.mark.perf
def test_generates_40000_records_in_well_under_two_seconds() -> None:
    generate_example(1_000)  # reference tables are read once and cached
    started = time.perf_counter()
    generate_example()
    assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize("records", [0, -5, 2.5, True])
def test_rejects_impossible_record_counts(records: object) -> None:
    with pytest.raises(ConfigurationError, match="records"):
        generate_example(records)  # type: ignore[arg-type]


def test_geography_is_consistent_with_the_reference_tables(frame: pd.DataFrame) -> None:
    counties = _reference("counties.csv")
    zip_county = {z: c["county"] for c in counties for z in c["zips"].split()}
    assert frame.groupby("ZIP code")["County"].nunique().max() == 1
    assert frame["ZIP code"].map(zip_county).eq(frame["County"]).all()
    assert frame["ZIP code"].str.fullmatch(r"7\d{4}").all()  # Texas ZIPs start with 7
    hospital_county = {h["hospital_id"]: h["county"] for h in _reference("hospitals.csv")}
    assert set(frame["Hospital ID"]) <= set(hospital_county)
    assert frame["Hospital ID"].str.fullmatch(r"\d{6}").all()  # leading zeros kept
    local = frame["Hospital ID"].map(hospital_county).eq(frame["County"]).mean()
    assert 0.7 < local < 0.9  # patients mostly from near their hospital


def test_demographics_are_plausible(frame: pd.DataFrame) -> None:
    age = frame["Age"].astype(int)
    assert age.between(0, 100).all()
    assert 0.05 < (age == 0).mean() < 0.15  # newborn spike
    assert age[age >= 18].median() > 50  # inpatients skew old
    assert set(frame["Sex"]) <= {"M", "F", "U"}
    assert 0.5 < (frame["Sex"] == "F").mean() < 0.7  # obstetric stays
    hispanic = frame["Ethnicity"].eq("Hispanic").groupby(frame["County"]).mean()
    assert hispanic["Hidalgo"] > 0.8 and hispanic["Collin"] < 0.3
    assert set(frame["Ethnicity"]) == {"Hispanic", "Non-Hispanic", MISSING}
    races = {r["race"] for r in _reference("race.csv")}
    assert set(frame["Race"]) == races
    for column in ("Ethnicity", "Race"):
        assert 0.005 < (frame[column] == MISSING).mean() < 0.03, column
    assert set(frame["Admission quarter"]) == set(QUARTERS)


def test_length_of_stay_and_charge_depend_on_age_and_hospital(frame: pd.DataFrame) -> None:
    age = frame["Age"].astype(int)
    stay = frame["Length of stay"].astype(int)
    charge = frame["Charge"].astype(float)
    assert stay.min() >= 1 and stay.median() <= 4 and stay.max() > 30  # skewed
    assert stay[age >= 65].mean() > stay[(age >= 18) & (age < 45)].mean() + 1
    assert (charge > 0).all() and frame["Charge"].str.fullmatch(r"\d+\.\d\d").all()
    assert charge.corr(stay, method="spearman") > 0.3
    assert charge.corr(age, method="spearman") > 0.2
    # The paper's three charge classes are all well populated.
    assert 0.1 < (charge < 10_000).mean() < 0.4 and 0.1 < (charge > 50_000).mean() < 0.5
    # Hospital effect: per-hospital median charge follows the cost index.
    cost = {h["hospital_id"]: float(h["cost_index"]) for h in _reference("hospitals.csv")}
    medians = charge.groupby(frame["Hospital ID"]).median()
    assert medians.corr(medians.index.to_series().map(cost), method="spearman") > 0.5


def test_definition_matches_the_paper_setting() -> None:
    definition = example_definition()
    assert definition.names == list(COLUMNS)
    assert definition.quasi_identifiers == [
        "Hospital ID", "Age", "Sex", "Ethnicity", "Race", "ZIP code", "County",
        "Admission quarter",
    ]  # fmt: skip
    assert definition["Length of stay"].type is AttributeType.INSENSITIVE
    assert definition["Charge"].type is AttributeType.INSENSITIVE
    assert definition["Age"].data_type.kind is DataKind.INTEGER
    assert definition["Charge"].data_type.kind is DataKind.DECIMAL
    assert definition["Admission quarter"].data_type.order == QUARTERS


def test_every_quasi_identifier_has_a_valid_hierarchy(frame: pd.DataFrame) -> None:
    from arxpy.hierarchy.validation import validate_hierarchy

    hierarchies = example_hierarchies(frame)
    assert list(hierarchies) == example_definition().quasi_identifiers
    for attribute, hierarchy in hierarchies.items():
        values = sorted(frame[attribute].unique())
        assert validate_hierarchy(hierarchy, values) == [], attribute
        assert set(hierarchy.values) == set(values), attribute
        assert set(hierarchy.level(hierarchy.height - 1)) == {"*"}, attribute
    assert hierarchies["County"].mapping(1)["Hidalgo"] == "South Texas"
    assert hierarchies["Admission quarter"].mapping(1)["2014-Q3"] == "2014"
    assert hierarchies["Race"].mapping(1)[MISSING] == "Unknown"
    assert hierarchies["ZIP code"].mapping(1)["78501"] == "7850*"


def test_age_hierarchy_has_intervals_of_5_10_20(frame: pd.DataFrame) -> None:
    age = example_hierarchies(frame)["Age"]
    assert age.height == 5
    for level in (1, 2, 3):
        # Values sharing a label at this level all lie in one interval of that width.
        groups = pd.Series(age.level(0)).astype(int).groupby(age.level(level))
        spans = groups.max() - groups.min()
        assert spans.max() < 5 * 2 ** (level - 1), level
        assert groups.ngroups <= int(np.ceil(101 / (5 * 2 ** (level - 1)))) + 1, level


def test_hierarchies_refuse_values_the_reference_does_not_know(frame: pd.DataFrame) -> None:
    odd = frame.head(50).copy()
    odd.loc[0, "County"] = "Atlantis"
    with pytest.raises(HierarchyError, match="Atlantis"):
        example_hierarchies(odd)


def test_example_project_carries_the_settings() -> None:
    project = example_project(records=500)
    assert project.settings["privacy_models"] == [{"kind": "k-anonymity", "k": 5}]
    assert project.settings["suppression_limit"] == 0.02
    assert set(project.hierarchies) == set(project.definition.quasi_identifiers)


def test_command_writes_data_hierarchies_and_project(tmp_path, capsys) -> None:
    from arxpy.hierarchy.io import read_hierarchy
    from arxpy.project import Project

    out = tmp_path / "example"
    assert main(["example", "--output", str(out), "--records", "2000", "--seed", "3"]) == 0
    for name in example_files():
        assert (out / name).is_file(), name
    expected = example_project(records=2000, seed=3)
    assert Project.load(out / "discharge.arxpy") == expected
    data = pd.read_csv(out / "discharge.csv", dtype=str, keep_default_na=False)
    assert data.equals(expected.data)
    assert read_hierarchy(out / "hierarchies" / "ZIP code.csv") == expected.hierarchies["ZIP code"]
    capsys.readouterr()

    assert main(["example", "--output", str(out), "--records", "2000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--force" in err and "discharge.csv" in err
    assert Project.load(out / "discharge.arxpy") == expected  # untouched

    assert main(["example", "--output", str(out), "--records", "1000", "--force"]) == 0
    assert len(Project.load(out / "discharge.arxpy").data) == 1000


def test_write_example_refuses_a_file_as_directory(tmp_path) -> None:
    target = tmp_path / "not-a-folder"
    target.write_text("x")
    with pytest.raises(DataExportError, match="not-a-folder"):
        write_example(target, records=10)
