"""The bundled example: a synthetic patient-discharge dataset, its hierarchies and project.

Modeled on the Texas inpatient discharge data used by Prasser et al., "A Tool for
Optimizing De-Identified Health Data for Use in Statistical Classification" (Table I:
39,676 records; Hospital ID, Age, Sex, Ethnicity, Race, ZIP code, County, Length of
stay, Admission quarter, Charge). Nothing here comes from real patients: records are
drawn with a seeded generator from small hand-written reference tables shipped in
``arxpy.resources/example`` (counties with their ZIP codes, hospitals, race groups).

The generative story, per record (all vectorized over records):

1. a hospital, in proportion to its yearly discharges;
2. the patient's county: mostly the hospital's own, else one in the same region,
   rarely anywhere in the state (referrals); a ZIP code within that county;
3. a cohort (newborn, child, obstetric, adult) fixing age and sex; adult ages are
   skewed old;
4. ethnicity from the county's Hispanic share; race given ethnicity and county;
   a small share of either recorded as ``"NA"`` (missing);
5. length of stay, geometric with a mean rising with age and a per-patient frailty;
6. admission quarter over 2013-2014;
7. charge, log-normal: rising with length of stay and age, scaled by the hospital's
   cost index and by price growth in 2014.

Data-file and hierarchy writers are imported lazily so this module imports even
where only the generator is needed.
"""

from __future__ import annotations

import copy
import csv
import functools
import io
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from arxpy.data.definition import (
    AttributeDefinition,
    AttributeType,
    DataDefinition,
    DataKind,
    DataType,
)
from arxpy.errors import ConfigurationError, DataExportError, HierarchyError
from arxpy.hierarchy.model import Hierarchy

if TYPE_CHECKING:
    from arxpy.project import Project

COLUMNS = (
    "Hospital ID", "Age", "Sex", "Ethnicity", "Race", "ZIP code",
    "County", "Length of stay", "Admission quarter", "Charge",
)  # fmt: skip
DEFAULT_RECORDS = 40_000
#: Most records generated: 50 times the default (a million take about 1.4 GB and 20 s),
#: so a typo cannot exhaust the machine's memory.
MAX_RECORDS = 2_000_000
DEFAULT_SEED = 2014
#: How a missing Ethnicity or Race is recorded (kept as its own value, never NaN).
MISSING = "NA"
QUARTERS = tuple(f"{year}-Q{q}" for year in (2013, 2014) for q in range(1, 5))
PROJECT_NAME = "Patient discharge (synthetic example)"
DATA_FILE = "discharge.csv"
PROJECT_FILE = "discharge.arxpy"
HIERARCHY_FOLDER = "hierarchies"
#: The paper's setting: 5-anonymity, attribute generalization plus record suppression.
SETTINGS: dict[str, Any] = {
    "privacy_models": [{"kind": "k-anonymity", "k": 5}],
    "quality_model": {"name": "loss", "gs_factor": 0.5, "aggregate": "geometric_mean"},
    "suppression_limit": 0.02,
    "strategy": "optimal",
    "time_limit": None,
}

RACES = (
    "White", "Black", "Asian or Pacific Islander", "American Indian/Eskimo/Aleut", "Other",
)  # fmt: skip
# Cohorts: newborn, child (1-17), obstetric (mothers), other adult; shares of discharges.
_COHORT_SHARES = np.array([0.10, 0.05, 0.13, 0.72])
_NEWBORN, _CHILD, _OBSTETRIC, _ADULT = range(4)
# Where patients live relative to their hospital: same county, same region, anywhere.
_ORIGIN_SHARES = np.array([0.80, 0.17, 0.03])
_ZIP_DECAY = 0.8  # ZIPs are listed most populous first; weight decays by this factor
_MISSING_ETHNICITY = 0.015
_MISSING_RACE = 0.01
_UNKNOWN_SEX = 0.0005
# Race among Hispanic patients (Texas data code most as White or Other), in RACES order.
_HISPANIC_RACE = np.array([0.62, 0.02, 0.005, 0.015, 0.34])
_QUARTER_WEIGHTS = np.tile([1.06, 0.98, 0.97, 0.99], 2)  # winter peak each year
# Log-charge model: cohort base (log dollars), slopes, noise; see _charges.
_CHARGE_BASE = np.array([7.9, 9.0, 8.95, 9.0])
_CHARGE_PER_LOG_DAY = 0.85
_CHARGE_PER_YEAR_OF_AGE = 0.009
_CHARGE_GROWTH_2014 = 0.03
_CHARGE_NOISE = 0.5
_MINIMUM_CHARGE = 250.0


@dataclass(frozen=True)
class _Reference:
    """The reference tables as arrays (county, ZIP and hospital indices are positions)."""

    counties: np.ndarray  # county names
    regions: np.ndarray  # region name per county
    population: np.ndarray  # thousands
    hispanic: np.ndarray  # shares in [0, 1]
    black: np.ndarray
    asian: np.ndarray
    zips: np.ndarray  # all ZIP codes, grouped by county
    zip_start: np.ndarray  # index of each county's first ZIP in ``zips``
    zip_cdf: np.ndarray  # (counties, max ZIPs per county) cumulative ZIP weights
    hospitals: np.ndarray  # hospital IDs
    hospital_county: np.ndarray  # county index per hospital
    discharges: np.ndarray  # yearly discharges (thousands)
    cost_index: np.ndarray  # charge multiplier (1 = typical)
    race_groups: dict[str, str]  # race -> group, including MISSING


def _read_table(name: str) -> list[dict[str, str]]:
    text = (resources.files("arxpy.resources") / "example" / name).read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


@functools.cache
def _reference() -> _Reference:
    counties = _read_table("counties.csv")
    hospitals = _read_table("hospitals.csv")
    races = _read_table("race.csv")
    names = np.array([c["county"] for c in counties])
    zip_lists = [c["zips"].split() for c in counties]
    weights = np.zeros((len(counties), max(map(len, zip_lists))))
    for i, zips in enumerate(zip_lists):
        weights[i, : len(zips)] = _ZIP_DECAY ** np.arange(len(zips))
    position = {name: i for i, name in enumerate(names)}
    return _Reference(
        counties=names,
        regions=np.array([c["region"] for c in counties]),
        population=_floats(counties, "population"),
        hispanic=_floats(counties, "hispanic"),
        black=_floats(counties, "black"),
        asian=_floats(counties, "asian"),
        zips=np.array([z for zips in zip_lists for z in zips]),
        zip_start=np.cumsum([0] + [len(z) for z in zip_lists[:-1]]),
        zip_cdf=np.cumsum(weights / weights.sum(axis=1, keepdims=True), axis=1),
        hospitals=np.array([h["hospital_id"] for h in hospitals]),
        hospital_county=np.array([position[h["county"]] for h in hospitals]),
        discharges=_floats(hospitals, "discharges"),
        cost_index=_floats(hospitals, "cost_index"),
        race_groups={r["race"]: r["group"] for r in races},
    )


def _floats(rows: list[dict[str, str]], key: str) -> np.ndarray:
    return np.array([float(r[key]) for r in rows])


def _pick(rng: np.random.Generator, cdf: np.ndarray) -> np.ndarray:
    """One category index per row of ``cdf`` (rows: cumulative probabilities ending at 1)."""
    u = rng.random(cdf.shape[0])
    return np.minimum((u[:, None] >= cdf).sum(axis=1), cdf.shape[1] - 1)


def _draw(rng: np.random.Generator, weights: np.ndarray, size: int) -> np.ndarray:
    """``size`` category indices drawn in proportion to ``weights``."""
    return rng.choice(weights.size, size=size, p=weights / weights.sum())


def _cdf(weights: np.ndarray) -> np.ndarray:
    """Row-wise cumulative distribution of non-negative weights (rows of a 2-D array)."""
    weights = np.atleast_2d(weights)
    return np.cumsum(weights / weights.sum(axis=1, keepdims=True), axis=1)


def generate_example(records: int = DEFAULT_RECORDS, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """The synthetic discharge table: ``records`` rows, columns :data:`COLUMNS`, all str.

    Deterministic for a given ``(records, seed)`` and numpy version. Age is in whole years (0-100),
    length of stay in days (>= 1), charge in US dollars with cents (> 0), admission
    quarter one of :data:`QUARTERS`; Ethnicity and Race contain ``"NA"`` at a rate of
    about 1-2 %.
    """
    if isinstance(records, bool) or not isinstance(records, int) or \
            not 1 <= records <= MAX_RECORDS:
        raise ConfigurationError(
            f"Number of example records must be from 1 to {MAX_RECORDS:,}, got {records}.")
    rng = np.random.default_rng(seed)
    ref = _reference()
    hospital = _draw(rng, ref.discharges, records)
    county = _residences(rng, ref, ref.hospital_county[hospital])
    zip_code = ref.zip_start[county] + _pick(rng, ref.zip_cdf[county])
    cohort = _draw(rng, _COHORT_SHARES, records)
    age = _ages(rng, cohort)
    ethnicity, race = _ethnicities_and_races(rng, ref, county)
    stay = _lengths_of_stay(rng, cohort, age)
    quarter = _draw(rng, _QUARTER_WEIGHTS, records)
    charge = _charges(rng, cohort, age, stay, ref.cost_index[hospital], quarter >= 4)
    columns = (
        ref.hospitals[hospital], age.astype(str), _sexes(rng, cohort), ethnicity, race,
        ref.zips[zip_code], ref.counties[county], stay.astype(str),
        np.asarray(QUARTERS)[quarter], np.char.mod("%.2f", charge),
    )  # fmt: skip
    frame = {name: column.astype(object) for name, column in zip(COLUMNS, columns, strict=True)}
    return pd.DataFrame(frame)


def _residences(
    rng: np.random.Generator, ref: _Reference, hospital_county: np.ndarray
) -> np.ndarray:
    """County index of each patient's residence, given the hospital's county."""
    n = hospital_county.size
    origin = _draw(rng, _ORIGIN_SHARES, n)
    region_names, region = np.unique(ref.regions, return_inverse=True)
    # Population of each county, restricted to each region: (regions, counties).
    in_region = ref.population * (region[None, :] == np.arange(region_names.size)[:, None])
    nearby = _pick(rng, _cdf(in_region)[region[hospital_county]])
    anywhere = _draw(rng, ref.population, n)
    return np.select([origin == 0, origin == 1], [hospital_county, nearby], anywhere)


def _ages(rng: np.random.Generator, cohort: np.ndarray) -> np.ndarray:
    """Age in whole years (0-100): newborns 0, children 1-17, mothers ~28, adults skewed old."""
    n = cohort.size
    child = rng.integers(1, 18, n)
    mother = np.clip(np.rint(rng.normal(28.0, 5.5, n)), 14, 46)
    adult = 18 + np.rint(82 * rng.beta(2.2, 1.8, n))
    age = np.select(
        [cohort == _NEWBORN, cohort == _CHILD, cohort == _OBSTETRIC], [0, child, mother], adult
    )
    return age.astype(np.int64)


def _sexes(rng: np.random.Generator, cohort: np.ndarray) -> np.ndarray:
    """'M', 'F' or (rarely) 'U' for unknown; mothers are female, adults mostly female."""
    male_share = np.array([0.51, 0.53, 0.0, 0.46])[cohort]
    sex = np.where(rng.random(cohort.size) < male_share, "M", "F")
    return np.where(rng.random(cohort.size) < _UNKNOWN_SEX, "U", sex)


def _ethnicities_and_races(
    rng: np.random.Generator, ref: _Reference, county: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Ethnicity ('Hispanic'/'Non-Hispanic'/'NA') and race (RACES or 'NA') per patient."""
    n = county.size
    hispanic = rng.random(n) < ref.hispanic[county]
    # Race among non-Hispanic residents from the county's Black and Asian shares.
    non_hispanic = 1.0 - ref.hispanic[county]
    black = np.minimum(ref.black[county] / non_hispanic, 0.8)
    asian = np.minimum(ref.asian[county] / non_hispanic, 0.15)
    other = np.column_stack([black, asian, np.full(n, 0.005), np.full(n, 0.03)])
    white = np.clip(1.0 - other.sum(axis=1), 0.05, None)
    weights = np.where(hispanic[:, None], _HISPANIC_RACE, np.column_stack([white, other]))
    race = np.asarray(RACES)[_pick(rng, _cdf(weights))]
    ethnicity = np.where(hispanic, "Hispanic", "Non-Hispanic")
    no_ethnicity = rng.random(n) < _MISSING_ETHNICITY
    ethnicity = np.where(no_ethnicity, MISSING, ethnicity)
    # Records missing one demographic field often miss the other too.
    no_race = rng.random(n) < np.where(no_ethnicity, 0.5, _MISSING_RACE)
    return ethnicity, np.where(no_race, MISSING, race)


def _lengths_of_stay(rng: np.random.Generator, cohort: np.ndarray, age: np.ndarray) -> np.ndarray:
    """Days from admission to discharge (1-365): geometric, mean rising with age."""
    mean = np.array([2.4, 3.3, 2.6, 0.0])[cohort]
    mean = np.where(cohort == _ADULT, 3.0 + 0.05 * (age - 18), mean)
    # A log-normal frailty (mean 1) gives the long tail of complicated stays.
    frailty = np.exp(rng.normal(-0.1, 0.45, cohort.size))
    p = np.clip(1.0 / (mean * frailty), 1e-3, 1.0)
    return np.minimum(rng.geometric(p), 365)


def _charges(
    rng: np.random.Generator,
    cohort: np.ndarray,
    age: np.ndarray,
    stay: np.ndarray,
    cost_index: np.ndarray,
    in_2014: np.ndarray,
) -> np.ndarray:
    """Total charge in dollars (rounded to cents, >= 250): log-normal around a log-linear mean."""
    log_charge = (
        _CHARGE_BASE[cohort]
        + _CHARGE_PER_LOG_DAY * np.log(stay)
        + _CHARGE_PER_YEAR_OF_AGE * age
        + np.log(cost_index)
        + np.log1p(_CHARGE_GROWTH_2014) * in_2014
        + rng.normal(0.0, _CHARGE_NOISE, cohort.size)
    )
    return np.round(np.maximum(np.exp(log_charge), _MINIMUM_CHARGE), 2)


def example_definition() -> DataDefinition:
    """Attribute roles and types of the example, following the paper's setting.

    Every spatial, demographic and temporal attribute is a quasi-identifier as in the
    paper, with two deliberate choices: Hospital ID is quasi-identifying because the
    hospital a person was treated in is often public (news reports, the patient's
    neighbours), the classic linkage in re-identified discharge data; Length of stay
    is kept insensitive rather than quasi-identifying (it is the main predictor of
    charge) and not sensitive, because ARX refuses sensitive attributes without an
    l-diversity/t-closeness model and the project's settings use k-anonymity only.
    Make it sensitive and add such a model to demonstrate them.
    """
    qi, insensitive = AttributeType.QUASI_IDENTIFYING, AttributeType.INSENSITIVE
    integer, string = DataType(DataKind.INTEGER), DataType(DataKind.STRING)
    roles = {
        "Hospital ID": (qi, string),
        "Age": (qi, integer),
        "Sex": (qi, string),
        "Ethnicity": (qi, string),
        "Race": (qi, string),
        "ZIP code": (qi, string),  # a code, not a number: leading digits mean region
        "County": (qi, string),
        "Length of stay": (insensitive, integer),
        "Admission quarter": (qi, DataType(DataKind.ORDINAL, order=QUARTERS)),
        "Charge": (insensitive, DataType(DataKind.DECIMAL)),
    }
    return DataDefinition(
        AttributeDefinition(name, type=role, data_type=data_type)
        for name, (role, data_type) in roles.items()
    )


def example_hierarchies(frame: pd.DataFrame) -> dict[str, Hierarchy]:
    """A hierarchy for every quasi-identifier of :func:`example_definition`, covering ``frame``.

    Age: 5-year intervals (``[20, 25[``), then 10, 20 years, ``*``; Sex and Ethnicity:
    value, ``*``; Race: race, group (White, Black, Other race, Unknown), ``*``; ZIP
    code: masked one digit at a time from the right (``7850*`` to ``7****``), ``*``;
    County and Hospital ID: value, region, ``*``; Admission quarter: quarter, year,
    ``*``. Raises :class:`HierarchyError` for a value the
    reference tables do not know.
    """
    from arxpy.hierarchy.builders import FlatBuilder, IntervalBuilder, MaskingBuilder

    # 5-, 10- and 20-year intervals: the huge last fanout would merge all ages into
    # one interval, which the builder leaves to the ``*`` level.
    age_builder = IntervalBuilder(width=5, start=0, fanouts=(2, 2, 1000))

    ref = _reference()
    county_region = dict(zip(ref.counties, ref.regions, strict=True))
    hospital_region = dict(zip(ref.hospitals, ref.regions[ref.hospital_county], strict=True))

    def values(attribute: str) -> list[str]:
        return sorted(frame[attribute].unique())

    ages = sorted(frame["Age"].unique(), key=int)
    return {
        "Hospital ID": _grouped("Hospital ID", list(ref.hospitals), hospital_region, frame),
        "Age": age_builder.build(ages),
        "Sex": FlatBuilder().build(values("Sex")),
        "Ethnicity": FlatBuilder().build(values("Ethnicity")),
        "Race": _grouped("Race", [*RACES, MISSING], ref.race_groups, frame),
        "ZIP code": MaskingBuilder(levels=4).build(values("ZIP code")),
        "County": _grouped("County", list(ref.counties), county_region, frame),
        "Admission quarter": _grouped(
            "Admission quarter", list(QUARTERS), {q: q[:4] for q in QUARTERS}, frame
        ),
    }


def _grouped(
    attribute: str, order: list[str], group: dict[str, str], frame: pd.DataFrame
) -> Hierarchy:
    """Three levels (value, group, ``*``) for the values of ``attribute`` in ``frame``.

    Rows follow the reference ``order`` so that groups stay contiguous.
    """
    present = set(frame[attribute].unique())
    unknown = sorted(present - set(order))
    if unknown:
        raise HierarchyError(
            f"The example hierarchy for '{attribute}' has no place for "
            f"{', '.join(map(repr, unknown[:5]))}; use data from generate_example()."
        )
    return Hierarchy((value, group[value], "*") for value in order if value in present)


def example_project(records: int = DEFAULT_RECORDS, seed: int = DEFAULT_SEED) -> Project:
    """The ready-to-run example project: data, definition, hierarchies and :data:`SETTINGS`."""
    from arxpy.project import Project

    frame = generate_example(records, seed)
    return Project(
        data=frame,
        definition=example_definition(),
        hierarchies=example_hierarchies(frame),
        settings=copy.deepcopy(SETTINGS),
        name=PROJECT_NAME,
    )


def example_files() -> list[str]:
    """Paths, relative to the output directory, that :func:`write_example` writes."""
    attributes = example_definition().quasi_identifiers
    hierarchies = [f"{HIERARCHY_FOLDER}/{name}.csv" for name in attributes]
    return [DATA_FILE, *hierarchies, PROJECT_FILE]


def write_example(
    directory: str | Path,
    *,
    force: bool = False,
    records: int = DEFAULT_RECORDS,
    seed: int = DEFAULT_SEED,
) -> dict[str, Path]:
    """Write the example's CSV, ARX-format hierarchies and project into ``directory``.

    Creates ``directory`` if needed. Returns ``{relative path: written path}`` for
    :func:`example_files`. Refuses (with :class:`DataExportError`, before writing
    anything) when one of those files exists, unless ``force``.
    """
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise DataExportError(
            f"Output '{directory}' is a file; choose a directory for the example."
        )
    targets = {name: directory / name for name in example_files()}
    existing = [name for name, path in targets.items() if path.exists()]
    if existing and not force:
        more = f" and {len(existing) - 2} more" if len(existing) > 2 else ""
        raise DataExportError(
            f"'{directory}' already holds {', '.join(existing[:2])}{more} of the example; "
            "choose another directory or overwrite with --force."
        )
    from arxpy.data.export import export_table
    from arxpy.hierarchy.io import write_hierarchy

    project = example_project(records, seed)
    try:
        (directory / HIERARCHY_FOLDER).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataExportError(f"Cannot create '{directory / HIERARCHY_FOLDER}': {exc}.") from exc
    export_table(project.data, targets[DATA_FILE])
    for attribute, hierarchy in project.hierarchies.items():
        write_hierarchy(hierarchy, targets[f"{HIERARCHY_FOLDER}/{attribute}.csv"])
    project.save(targets[PROJECT_FILE])
    return targets
