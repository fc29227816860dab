"""Tiny inputs for the conformance battery (:mod:`arxpy.methods.conformance`): one
:class:`Fixture` per registered method, with example parameters that fit it.

A new method adds its entry to :data:`FIXTURES`; a registered method without one fails
``tests/test_method_conformance.py``. Each builder takes the number of records (a few
dozen by default; the perf variant of the cancel check asks for more).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from arxpy.data.definition import (
    AttributeDefinition,
    AttributeType,
    DataDefinition,
    DataKind,
    DataType,
)
from arxpy.hierarchy.builders.flat import FlatBuilder
from arxpy.hierarchy.builders.intervals import IntervalBuilder
from arxpy.methods.conformance import Fixture

RECORDS = 40
#: ICD-9-CM codes the set-valued table draws from.
CODES = ("401.9", "250.00", "272.4", "428.0", "414.01", "427.31", "584.9", "599.0")


def roles(frame: pd.DataFrame, quasi: tuple[str, ...] = (), identifying: tuple[str, ...] = (),
          sensitive: tuple[str, ...] = ()) -> DataDefinition:
    definition = DataDefinition.for_columns(frame.columns)
    for names, role in ((quasi, AttributeType.QUASI_IDENTIFYING),
                        (identifying, AttributeType.IDENTIFYING),
                        (sensitive, AttributeType.SENSITIVE)):
        for name in names:
            definition = definition.with_attribute(name, type=role)
    return definition


def clinical(records: int = RECORDS) -> pd.DataFrame:
    """Patients with an identifier, age, sex, BMI and charge (text cells, as imported)."""
    rng = np.random.default_rng(29)
    return pd.DataFrame({
        "ID": [f"P{i:05d}" for i in range(records)],
        "Age": rng.integers(20, 80, records).astype(str),
        "Sex": rng.choice(["F", "M"], records),
        "BMI": np.round(rng.normal(26, 4, records), 1).astype(str),
        "Charge": rng.integers(100, 1000, records).astype(str),
    })


def clinical_hierarchies(frame: pd.DataFrame) -> dict:
    return {"Age": IntervalBuilder(width=10, fanouts=(2,)).build(frame["Age"].unique()),
            "Sex": FlatBuilder().build(frame["Sex"].unique())}


def survival(records: int = RECORDS) -> pd.DataFrame:
    """Patients with survival time (days) and a binary vital status."""
    rng = np.random.default_rng(30)
    return pd.DataFrame({
        "ID": [f"P{i:05d}" for i in range(records)],
        "Age": rng.integers(30, 85, records).astype(str),
        "Sex": rng.choice(["F", "M"], records),
        "Time": (rng.exponential(1000, records).astype(int) + 1).astype(str),
        "Status": np.tile(["0", "1"], records // 2 + 1)[:records],
    })


def classified(records: int = RECORDS) -> pd.DataFrame:
    """Categorical features and a class (Risk) that smoking and age group predict."""
    rng = np.random.default_rng(31)
    smoker = rng.choice(["yes", "no"], records)
    group = rng.choice(["young", "mid", "old"], records)
    risk = np.where((smoker == "yes") & (group != "young"), "high", "low")
    flip = rng.random(records) < 0.1
    return pd.DataFrame({
        "ID": [f"P{i:05d}" for i in range(records)],
        "Smoker": smoker, "AgeGroup": group,
        "Region": rng.choice(["north", "south", "east"], records),
        "Risk": np.where(flip, np.where(risk == "high", "low", "high"), risk),
    })


def diagnoses(records: int = RECORDS) -> pd.DataFrame:
    """One to three ICD-9-CM codes per record, separated by ';'."""
    rng = np.random.default_rng(32)
    return pd.DataFrame({"codes": [";".join(rng.choice(CODES, int(n), replace=False))
                                   for n in rng.integers(1, 4, records)]})


def _clustered(name: str) -> Callable[[int], Fixture]:
    def build(records: int = RECORDS) -> Fixture:
        frame = clinical(records)
        return Fixture(frame, roles(frame, ("Age", "Sex", "BMI"), ("ID",)),
                       {"k": 5, "seed": 7})
    build.__name__ = f"{name}_fixture"
    return build


def improved_condensation(records: int = RECORDS) -> Fixture:
    frame = survival(records)
    return Fixture(frame, roles(frame, ("Age", "Sex", "Time"), ("ID",)),
                   {"k": 5, "seed": 7, "time": "Time", "status": "Status"},
                   unchanged_columns=("Status",))


def generalization(records: int = RECORDS) -> Fixture:
    frame = clinical(records)
    return Fixture(frame, roles(frame, ("Age", "Sex"), ("ID",)),
                   {"privacy_models": [{"kind": "k-anonymity", "k": 3}],
                    "suppression_limit": 0.1},
                   clinical_hierarchies(frame), unchanged_columns=("BMI", "Charge"))


def k_anonymity_baseline(records: int = RECORDS) -> Fixture:
    frame = clinical(records)
    return Fixture(frame, roles(frame, ("Age", "Sex"), ("ID",)), {"k": 3},
                   clinical_hierarchies(frame), unchanged_columns=("BMI", "Charge"))


def intervals(records: int = RECORDS) -> Fixture:
    frame = clinical(records)
    return Fixture(frame, roles(frame, ("Age", "BMI"), ("ID",)),
                   {"attributes": ["Age", "BMI"], "k": 4},
                   unchanged_columns=("Sex", "Charge"))


def kpbms(records: int = RECORDS) -> Fixture:
    frame = classified(records)
    return Fixture(frame, roles(frame, identifying=("ID",)),
                   {"class_attribute": "Risk", "k": 3, "cv_folds": 5},
                   unchanged_columns=("Risk",))


def disassociation(records: int = RECORDS) -> Fixture:
    frame = diagnoses(records)
    definition = DataDefinition([AttributeDefinition(
        "codes", AttributeType.QUASI_IDENTIFYING, DataType(DataKind.SET))])
    return Fixture(frame, definition, {"k": 3, "m": 2, "codes_column": "codes", "seed": 7})


def top_bottom_coding(records: int = RECORDS) -> Fixture:
    frame = clinical(records)
    return Fixture(frame, roles(frame, ("Age", "Sex"), ("ID",)),
                   {"attribute": "Age", "top": 70, "bottom": 25},
                   unchanged_columns=("Sex", "BMI", "Charge"))


def cell_suppression(records: int = RECORDS) -> Fixture:
    frame = clinical(records)
    return Fixture(frame, roles(frame, ("Age", "Sex"), ("ID",)),
                   {"k": 3, "importance": ["Sex", "Age"], "average_risk": 0.2},
                   unchanged_columns=("BMI", "Charge"))


#: A fixture builder per registered method name.
FIXTURES: dict[str, Callable[..., Fixture]] = {
    "condensation": _clustered("condensation"),
    "mdav": _clustered("mdav"),
    "tfrp": _clustered("tfrp"),
    "improved-condensation": improved_condensation,
    "generalization": generalization,
    "k-anonymity-baseline": k_anonymity_baseline,
    "intervals": intervals,
    "kpbms": kpbms,
    "disassociation": disassociation,
    "top-bottom-coding": top_bottom_coding,
    "cell-suppression": cell_suppression,
}
