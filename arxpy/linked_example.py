"""The linked example (issue 32): a synthetic patient table and its admissions table,
linked by ``Patient ID``. Nothing comes from real patients.

Patients are the example's records (:func:`arxpy.example.generate_example`: age, sex,
ethnicity, race, ZIP code, county, hospital) with a made-up identifier. Each patient
has 1 to :data:`MOST_ADMISSIONS` admissions (geometric, mean about 1.7); the first is
admitted uniformly over 2013-2014, each later one a geometric number of days (mean
:data:`MEAN_GAP_DAYS`) after the previous discharge; stays follow the example's length
of stay; each admission has a principal diagnosis (an ICD-10 code of
:data:`DIAGNOSES`, the common ones more often), drawn from its own stream so the other
columns do not depend on it. Deterministic for a given ``(patients, seed)`` and numpy
version.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pandas as pd

from arxpy.errors import DataExportError
from arxpy.example import DEFAULT_SEED, HIERARCHY_FOLDER, example_hierarchies, generate_example

LINK_COLUMN = "Patient ID"
PATIENT_COLUMNS = (LINK_COLUMN, "Age", "Sex", "Ethnicity", "Race", "ZIP code", "County")
ADMISSION_COLUMNS = (LINK_COLUMN, "Admission date", "Discharge date", "Hospital ID",
                     "Length of stay", "Diagnosis")
#: Principal diagnoses of admissions, most frequent first (ICD-10 codes; a category
#: such as E11 or J44 holds several).
DIAGNOSES = ("I10", "E11.9", "J44.1", "I50.9", "J18.9", "E11.6", "N39.0", "I48.9",
             "J44.9", "K80.2", "I21.4", "S72.0")
#: Quasi-identifiers of the patient table in the linked example.
QUASI_IDENTIFIERS = ("Age", "Sex", "ZIP code")
PATIENTS_FILE, ADMISSIONS_FILE = "patients.csv", "admissions.csv"
DEFAULT_PATIENTS = 5_000
MOST_ADMISSIONS = 8
MEAN_GAP_DAYS = 90
_FIRST_DAY = dt.date(2013, 1, 1)
_DAYS = 730  # 2013 and 2014


def generate_linked_example(patients: int = DEFAULT_PATIENTS, seed: int = DEFAULT_SEED
                            ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(patients, admissions): columns :data:`PATIENT_COLUMNS` and
    :data:`ADMISSION_COLUMNS`, all str, dates ``%Y-%m-%d``."""
    return _linked(generate_example(patients, seed), seed)


def _linked(records: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The linked tables of the example's ``records`` (one per patient)."""
    patients = len(records)
    rng = np.random.default_rng([seed, 32])  # apart from the example's own stream
    ids = np.char.add("P", np.char.zfill(
        rng.choice(10_000_000, size=patients, replace=False).astype(str), 7))
    table = records.loc[:, list(PATIENT_COLUMNS[1:])].copy()
    table.insert(0, LINK_COLUMN, ids.astype(object))
    count = np.minimum(rng.geometric(0.6, patients), MOST_ADMISSIONS)
    owner = np.repeat(np.arange(patients), count)
    first = np.cumsum(count) - count  # position of each patient's first admission
    later = np.arange(len(owner)) != np.repeat(first, count)
    stays = records["Length of stay"].astype(np.int64).to_numpy()[owner]
    stays = np.maximum(1, np.rint(stays * rng.uniform(0.5, 1.5, len(owner)))).astype(np.int64)
    gaps = np.where(later, rng.geometric(1 / MEAN_GAP_DAYS, len(owner)), 0)
    starts = np.repeat(rng.integers(0, _DAYS, patients), count)
    previous = np.concatenate([[0], stays[:-1]])  # the previous stay, within a patient
    step = np.where(later, previous + gaps, 0)
    offset = starts + _within(step, count)
    admitted = np.datetime64(_FIRST_DAY) + offset.astype("timedelta64[D]")
    discharged = admitted + stays.astype("timedelta64[D]")
    admissions = pd.DataFrame({
        LINK_COLUMN: ids[owner].astype(object),
        "Admission date": admitted.astype(str).astype(object),
        "Discharge date": discharged.astype(str).astype(object),
        "Hospital ID": records["Hospital ID"].to_numpy()[owner],
        "Length of stay": stays.astype(str).astype(object),
        "Diagnosis": _diagnoses(len(owner), seed),
    })
    return table, admissions


def _diagnoses(admissions: int, seed: int) -> np.ndarray:
    """A principal diagnosis per admission, the i-th code of :data:`DIAGNOSES` with
    weight 1/(i+1), from a stream apart from the other columns."""
    weights = 1 / np.arange(1, len(DIAGNOSES) + 1)
    rng = np.random.default_rng([seed, 33])
    return np.array(DIAGNOSES, dtype=object)[
        rng.choice(len(DIAGNOSES), size=admissions, p=weights / weights.sum())]


def _within(steps: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Cumulative sums of ``steps`` restarting at each patient's first admission."""
    total = np.cumsum(steps)
    start = np.repeat(np.cumsum(count) - count, count)
    return total - total[start] + steps[start]


def write_linked_example(directory: str | Path, *, force: bool = False,
                         patients: int = DEFAULT_PATIENTS, seed: int = DEFAULT_SEED
                         ) -> dict[str, Path]:
    """Write patients.csv, admissions.csv and the patient table's hierarchies into
    ``directory``; refuses (before writing) to replace one of them unless ``force``."""
    from arxpy.data.export import export_table
    from arxpy.hierarchy.io import write_hierarchy

    directory = Path(directory)
    names = [PATIENTS_FILE, ADMISSIONS_FILE,
             *(f"{HIERARCHY_FOLDER}/{q}.csv" for q in QUASI_IDENTIFIERS)]
    targets = {name: directory / name for name in names}
    existing = [name for name, path in targets.items() if path.exists()]
    if existing and not force:
        raise DataExportError(
            f"'{directory}' already holds {existing[0]} of the linked example; choose "
            "another directory or overwrite with --force.")
    records = generate_example(patients, seed)
    table, admissions = _linked(records, seed)
    hierarchies = example_hierarchies(records)
    try:
        (directory / HIERARCHY_FOLDER).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataExportError(f"Cannot create '{directory / HIERARCHY_FOLDER}': {exc}.") from exc
    export_table(table, targets[PATIENTS_FILE])
    export_table(admissions, targets[ADMISSIONS_FILE])
    for name in QUASI_IDENTIFIERS:
        write_hierarchy(hierarchies[name], targets[f"{HIERARCHY_FOLDER}/{name}.csv"])
    return targets
