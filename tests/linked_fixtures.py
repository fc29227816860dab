"""The ward project the linked-tables tests release: the linked example's patient table
with its link column identifying, Age, Sex and ZIP code quasi-identifying (the
example's hierarchies), 5-anonymity and 10 % suppression."""

from __future__ import annotations

import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.example import example_hierarchies, generate_example
from arxpy.linked_example import LINK_COLUMN, QUASI_IDENTIFIERS
from arxpy.project import Project
from arxpy.workflows.session import default_settings


def ward_project(patients: pd.DataFrame, records: int, name: str = "ward") -> Project:
    """``patients`` (the example's ``records`` patients) as the ward project."""
    definition = DataDefinition.for_columns(patients.columns).with_attribute(
        LINK_COLUMN, type=AttributeType.IDENTIFYING)
    for attribute in QUASI_IDENTIFIERS:
        definition = definition.with_attribute(attribute,
                                               type=AttributeType.QUASI_IDENTIFYING)
    hierarchies = {q: h for q, h in example_hierarchies(generate_example(records)).items()
                   if q in QUASI_IDENTIFIERS}
    settings = {**default_settings(), "suppression_limit": 0.1,
                "privacy_models": [{"kind": "k-anonymity", "k": 5}]}
    return Project(patients, definition, hierarchies, settings, name=name)


#: The trusted party's passphrase the desktop tests type.
PASSPHRASE = "a passphrase for the trusted party"


def ask_for_table(options, table, again: str = PASSPHRASE) -> None:
    """Tick a dialog's re-identification option and fill its file and passphrases."""
    options.setChecked(True)
    options.path.setText(str(table))
    options.passphrase.setText(PASSPHRASE)
    options.again.setText(again)
