"""Policy presets (issue 35): Safe Harbor, Expert Determination and a pseudonymised
release configure an ordinary run, and every rule reaches report, recipe and certificate.

The Safe Harbor acceptance runs the example's CSV with no privacy model (the preset adds
1-anonymity, so the search keeps each attribute at the least generalization the rules
allow) and checks the output row by row with :func:`safe_harbor_problems`, written here
from 45 CFR 164.514(b)(2) apart from the preset code: ZIP codes at most their first
three digits (000 for the restricted areas, listed here from the HHS guidance), dates
only years, no age over 89 except as one category. Class sizes are audited with
tests/audit.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import audit
import pandas as pd
import pytest
from cli_checks import one_error_line

from arxpy.cli import main
from arxpy.example import generate_example, write_example

#: HHS (2012), "Guidance Regarding Methods for De-identification of PHI", section 3.3.
RESTRICTED = {"036", "059", "063", "102", "203", "556", "692", "790", "821", "823", "830",
              "831", "878", "879", "884", "890", "893"}


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep=None, engine="python", dtype=str, keep_default_na=False)


def safe_harbor_problems(original: pd.DataFrame, released: pd.DataFrame) -> list[str]:
    """What in ``released`` (rows aligned with ``original``) Safe Harbor forbids."""
    problems = []
    if "County" in released.columns:
        problems.append("County is released")
    for before, after in zip(original["ZIP code"], released["ZIP code"], strict=True):
        digits = re.fullmatch(r"(\d{0,3})\**", after)
        if digits is None or len(after) != len(before):
            problems.append(f"ZIP {after!r} is not a masked prefix")
        elif len(digits.group(1)) == 3 and before[:3] in RESTRICTED and after[:3] != "000":
            problems.append(f"restricted area {before[:3]} released as {after!r}")
        elif len(digits.group(1)) == 3 and before[:3] not in RESTRICTED \
                and after[:3] != before[:3]:
            problems.append(f"ZIP {before} released as {after!r}")
    for value in released["Admission quarter"]:
        if not re.fullmatch(r"\d{4}|\*", value):
            problems.append(f"admission {value!r} is finer than a year")
    for value in released["Age"]:
        if value.isdigit() and int(value) > 89:
            problems.append(f"age {value} over 89 released")
        numbers = [int(n) for n in re.findall(r"\d+", value)]
        if not value.isdigit() and value not in ("*", "90 or older") and (
                len(numbers) != 2 or numbers[1] > 90):
            problems.append(f"age group {value!r} may hold ages over 89")
    return problems


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """The example's CSV and hierarchies (300 records) with a restricted ZIP area and
    an age of 95 put into the first record, and a signing key."""
    folder = tmp_path_factory.mktemp("example")
    write_example(folder, records=300)
    frame = _read(folder / "discharge.csv")
    frame.loc[0, ["ZIP code", "Age"]] = ["79015", "95"]
    frame.to_csv(folder / "discharge.csv", sep=";", index=False)
    assert main(["keygen", "--signing", str(folder / "custodian.key")]) == 0
    return folder, frame


def _hierarchies(folder: Path, names: tuple[str, ...]) -> list[str]:
    return [a for n in names for a in ("--hierarchy", f"{n}={folder / 'hierarchies' / n}.csv")]


QIS = ("Age", "Sex", "ZIP code", "County", "Admission quarter")


@pytest.fixture(scope="module")
def safe_harbor(example):
    folder, _ = example
    assert main(["anonymize", "--data", str(folder / "discharge.csv"),
                 *_hierarchies(folder, QIS), "--preset", "safe-harbor", "--keep-order",
                 "--output", str(folder / "out.csv"), "--report", str(folder / "r.json"),
                 "--recipe-out", str(folder / "recipe.json"),
                 "--certificate", str(folder / "cert.json"),
                 "--signing-key", str(folder / "custodian.key")]) == 0
    return json.loads((folder / "r.json").read_text())


def test_safe_harbor_removes_or_transforms_every_flagged_attribute(example, safe_harbor):
    from arxpy.risk.hipaa import find_hipaa_identifiers, find_hipaa_identifiers_in_output

    folder, original = example
    released = _read(folder / "out.csv")
    flagged = set(find_hipaa_identifiers(original).attributes())
    assert flagged == {"Age", "ZIP code", "County", "Admission quarter"}
    levels = safe_harbor["transformation"]
    assert all(n not in released.columns or levels.get(n, 0) >= 1 for n in flagged)
    assert safe_harbor_problems(original, released) == []
    assert released.loc[0, "ZIP code"] == "000**" and released.loc[0, "Age"] == "90 or older"
    generalized = {n for n, level in levels.items() if level}
    assert find_hipaa_identifiers_in_output(released, generalized).matches == ()
    # No model given: 1-anonymity, so every rule's least generalization is the optimum.
    assert levels == {"Age": 1, "Sex": 0, "ZIP code": 1, "Admission quarter": 1}
    assert safe_harbor["preset"]["remaining_risk"]["highest_prosecutor_risk"] is not None
    assert safe_harbor["preset"]["output_scan"] == []


def test_the_independent_check_catches_what_safe_harbor_forbids(example):
    _, original = example
    bad = original.drop(columns="County").copy()
    bad["Admission quarter"] = original["Admission quarter"]
    bad["ZIP code"] = original["ZIP code"].str[:3] + "**"
    restricted = original["ZIP code"].str[:3].isin(RESTRICTED).sum()
    old = (original["Age"].astype(int) > 89).sum()
    assert restricted >= 1 and old >= 1
    assert len(safe_harbor_problems(original, bad)) == len(original) + restricted + old


def test_certificate_and_recipe_list_each_rule(example, safe_harbor):
    folder, _ = example
    certificate = json.loads((folder / "cert.json").read_text())["certificate"]
    rules = {r["attribute"]: r for r in certificate["preset"]["rules"]}
    assert set(rules) == {"Age", "ZIP code", "County", "Admission quarter", None}
    assert rules["ZIP code"]["action"] == "zip3" and "000" in rules["ZIP code"]["rule"]
    assert "164.514(b)(2)(i)(B)" in rules["County"]["category"]
    assert all(r["reason"] for r in rules.values())
    page = (folder / "cert.html").read_text()
    assert "Policy preset: HIPAA Safe Harbor" in page and "90 or older" in page
    treatments = {a["attribute"]: a["treatment"] for a in certificate["attributes"]}
    assert treatments["County"] == "removed from the release (policy preset)"
    recipe = json.loads((folder / "recipe.json").read_text())
    assert recipe["preset"]["name"] == "safe-harbor"
    assert recipe["hierarchies"]["ZIP code"]["built_by"] == "zip3"
    assert recipe["hierarchies"]["ZIP code"]["file"] is None


def test_replay_builds_the_rules_hierarchies_on_a_new_extract(example, safe_harbor):
    folder, _ = example
    second = generate_example(300, seed=9)
    second.loc[0, ["ZIP code", "Age"]] = ["82301", "97"]
    second.to_csv(folder / "second.csv", sep=";", index=False)
    assert main(["replay", str(folder / "recipe.json"), "--data", str(folder / "second.csv"),
                 "--hierarchies", str(folder / "hierarchies"), "--keep-order",
                 "--output", str(folder / "out2.csv"),
                 "--report", str(folder / "r2.json")]) == 0
    report = json.loads((folder / "r2.json").read_text())
    assert report["transformation"] == safe_harbor["transformation"]
    assert report["preset"]["name"] == "safe-harbor"
    assert safe_harbor_problems(second, _read(folder / "out2.csv")) == []
    # A column that now holds dates is flagged by the scan of the output: refused.
    second["Charge"] = [f"2020-01-{1 + i % 28:02d}" for i in range(len(second))]
    second.to_csv(folder / "third.csv", sep=";", index=False)
    assert main(["replay", str(folder / "recipe.json"), "--data", str(folder / "third.csv"),
                 "--hierarchies", str(folder / "hierarchies"),
                 "--output", str(folder / "out3.csv"),
                 "--report", str(folder / "r3.json")]) == 2
    problems = json.loads((folder / "r3.json").read_text())["replay"]["problems"]
    assert any("still flags 'Charge'" in p for p in problems)


ED_QIS = ("Sex", "Ethnicity", "Race", "Admission quarter")


def test_expert_determination_bounds_the_highest_risk(example):
    folder, _ = example
    out = folder / "ed.csv"
    assert main(["anonymize", "--data", str(folder / "discharge.csv"),
                 *_hierarchies(folder, ED_QIS), "--preset",
                 "expert-determination", "--highest-risk", "0.2", "--average-risk", "0.1",
                 "--suppression", "0.05", "--output", str(out),
                 "--report", str(folder / "ed.json")]) == 0
    report = json.loads((folder / "ed.json").read_text())
    released = _read(out)
    kept = released[~(released[list(ED_QIS)] == "*").all(axis=1)]  # suppressed rows out
    assert audit.k_anonymity(kept, list(ED_QIS)) >= 5  # highest risk 1/5
    thresholds = {r["parameters"]["measure"]: r["parameters"]["threshold"]
                  for r in report["preset"]["rules"] if r["action"] == "risk-threshold"}
    assert thresholds == {"highest prosecutor risk": 0.2, "average prosecutor risk": 0.1}
    assert report["preset"]["remaining_risk"]["average_prosecutor_risk"] <= 0.1
    # County, a flagged geographic unit and no quasi-identifier here, is removed first.
    assert "County" not in released.columns


def test_pseudonymised_release_needs_the_key_and_keys_the_identifiers(tmp_path, capsys):
    frame = pd.DataFrame({
        "MRN": [f"MR{100000 + i}" for i in range(40)],
        "Name": ["Mary Smith", "James Brown", "Linda Davis", "John Jones"] * 10,
        "Admitted": [f"2020-0{1 + i % 9}-1{i % 10}" for i in range(40)],
        "Sex": ["F", "M"] * 20})
    data = tmp_path / "d.csv"
    frame.to_csv(data, index=False)
    sex = tmp_path / "sex.csv"
    sex.write_text("F;*\nM;*\n")
    base = ["anonymize", "--data", str(data), "--hierarchy", f"Sex={sex}",
            "--identifying", "MRN", "--preset", "pseudonymised", "--keep-order",
            "--output", str(tmp_path / "o.csv"), "--report", str(tmp_path / "r.json")]
    assert "--key-file" in one_error_line(base, capsys)
    key = tmp_path / "p.key"
    assert main(["keygen", "--pseudonym", str(key)]) == 0
    assert main([*base, "--key-file", str(key), "--shift-days", "30"]) == 0
    released = _read(tmp_path / "o.csv")
    assert "Name" not in released.columns
    assert not set(released["MRN"]) & set(frame["MRN"])
    assert released["MRN"].nunique() == frame["MRN"].nunique()  # one-to-one pseudonyms
    shifted = pd.to_datetime(released["Admitted"]) - pd.to_datetime(frame["Admitted"])
    assert shifted.dt.days.abs().between(1, 30).all()
    rules = json.loads((tmp_path / "r.json").read_text())["preset"]["rules"]
    assert {(r["attribute"], r["action"]) for r in rules} >= {
        ("MRN", "keyed-pseudonym"), ("Name", "remove"), ("Admitted", "date-shift")}


def test_a_preset_option_without_its_preset_is_one_line(example, capsys):
    folder, _ = example
    line = one_error_line(["anonymize", "--data", str(folder / "discharge.csv"),
                           *_hierarchies(folder, ("Sex",)), "--k", "2", "--highest-risk",
                           "0.1", "--output", str(folder / "x.csv")], capsys)
    assert "--preset expert-determination" in line


def test_built_hierarchies_merge_groups_only_upwards():
    from arxpy.presets.hierarchies import age90_hierarchy, year_hierarchy, zip3_hierarchy

    for hierarchy in (zip3_hierarchy(["75001", "79015", "03601", "NA", "7501"]),
                      age90_hierarchy(["0", "45", "89", "90", "104", "NA", "x"]),
                      year_hierarchy(["2013-Q1", "03/04/2014", "NA"])):
        rows = hierarchy.rows
        for level in range(1, hierarchy.height - 1):
            for a in rows:
                for b in rows:  # same group at a level: same group at the next
                    assert a[level] != b[level] or a[level + 1] == b[level + 1]
    assert zip3_hierarchy(["79015", "03601"]).level(1) == ["000**", "000**"]
    assert age90_hierarchy(["89", "90"]).level(1) == ["89", "90 or older"]


def test_session_applies_a_preset_that_a_project_and_an_exported_recipe_keep(tmp_path):
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.example import example_project
    from arxpy.project import Project
    from arxpy.recipes.export import export_recipe
    from arxpy.workflows.session import Session

    session = Session()
    session.set_project(example_project(200))
    session.apply_preset(session.preview_preset("safe-harbor"))
    assert session.history.count == 1
    session.project.save(tmp_path / "p.arxpy")
    reopened = Project.load(tmp_path / "p.arxpy")
    assert reopened.settings["policy_preset"] == session.preset_record
    result = anonymize(session.data, session.definition, session.hierarchies,
                       AnonymizationConfig.from_dict(session.settings))
    recipe, _ = export_recipe(tmp_path / "r.json", session.definition, session.hierarchies,
                              result.release(), preset=session.preset_record,
                              data=session.data)
    assert {n for n, h in recipe.hierarchies.items() if h.get("built_by")} == {
        "Age", "ZIP code", "Admission quarter"}
    assert recipe.preset["name"] == "safe-harbor"


def test_safe_harbor_removes_keyed_pseudonyms_and_expert_determination_needs_qis():
    from arxpy.data.definition import AttributeType, DataDefinition
    from arxpy.errors import ConfigurationError
    from arxpy.identifiers import PSEUDONYM, IdentifierPlan, Treatment
    from arxpy.presets import apply_preset

    frame = pd.DataFrame({"Token": ["a1", "b2", "c3"], "Sex": ["F", "M", "F"]})
    definition = DataDefinition.for_columns(frame.columns).with_attribute(
        "Token", type=AttributeType.IDENTIFYING)
    plan = IdentifierPlan((Treatment("Token", PSEUDONYM),))
    outcome = apply_preset("safe-harbor", frame, definition, {}, {}, plan=plan)
    assert not outcome.plan.treatments
    assert [(r.attribute, r.action) for r in outcome.rules][0] == ("Token", "remove")
    assert "164.514(c)" in outcome.rules[0].category
    with pytest.raises(ConfigurationError, match="quasi-identifiers"):
        apply_preset("expert-determination", frame, definition, {}, {})
