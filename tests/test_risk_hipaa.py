"""HIPAA Safe Harbor identifier detection on synthetic columns, by name and by value."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest

from arxpy.risk import find_hipaa_identifiers
from arxpy.risk.hipaa import levenshtein

N = 40


def kinds(frame: pd.DataFrame, column: str, match_type: str | None = None) -> set[str]:
    found = find_hipaa_identifiers(frame).matches
    return {m.identifier for m in found
            if m.attribute == column and (match_type is None or m.match_type == match_type)}


def values(column: list[str]) -> pd.DataFrame:
    """One neutrally named column, so only its values can match."""
    return pd.DataFrame({"v": (column * N)[:N]})


def test_levenshtein():
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3 and levenshtein("zip", "zip") == 0


@pytest.mark.parametrize(("name", "kind"), [
    ("Last Name", "name"), ("surname", "name"), ("ZIP code", "geographic_subdivision"),
    ("Street address", "geographic_subdivision"), ("date_of_birth", "date"),
    ("Phone", "telephone_number"), ("Fax", "fax_number"), ("E-Mail", "email_address"),
    ("SSN", "social_security_number"), ("MRN", "medical_record_number"),
    ("Account number", "account_number"), ("URL", "url"), ("IP address", "ip_address"),
    ("Health plan number", "health_plan_beneficiary_number"), ("VIN", "vehicle_identifier"),
])
def test_names(name, kind):
    frame = pd.DataFrame({name: ["x"] * N})
    assert kind in kinds(frame, name, "name")
    match = next(m for m in find_hipaa_identifiers(frame).matches if m.identifier == kind)
    assert "attribute name" in match.reason


def test_harmless_names_do_not_match():
    frame = pd.DataFrame({c: ["x"] * N for c in ["Sex", "Race", "Diagnosis", "State", "Year"]})
    assert find_hipaa_identifiers(frame).matches == ()


@pytest.mark.parametrize(("column", "kind"), [
    (["alice@example.org", "bob.smith@mail.example.com"], "email_address"),
    (["123-45-6789", "987-65-4321"], "social_security_number"),
    (["192.168.0.1", "2001:db8::1", "10.0.0.255"], "ip_address"),
    (["https://example.org/a", "http://www.example.com", "www.hospital.org/x"], "url"),
    (["(555) 123-4567", "555-987-6543", "+1 555 222 3333"], "telephone_number"),
    (["2014-03-05", "2013-12-31", "2014-01-02"], "date"),
    (["03/05/2014", "12/31/2013"], "date"),
    (["Mary Smith", "James Johnson", "Linda Brown"], "name"),
])
def test_values(column, kind):
    assert kind in kinds(values(column), "v", "value")


def test_zip_codes_five_digits_versus_three():
    assert "geographic_subdivision" in kinds(values(["78701", "10001", "94110-1234"]), "v")
    assert kinds(values(["787", "100", "941"]), "v") == set()  # populous 3-digit areas
    match = find_hipaa_identifiers(values(["787", "100", "036"])).matches[0]
    assert match.instance == "ZIP Code (3 digits)" and "036" in match.reason


def test_dates_versus_years():
    assert kinds(values(["2001", "1999", "2014"]), "v") == set()  # a year alone is allowed
    old = str(dt.date.today().year - 95)
    assert "date" in kinds(values([old, str(int(old) - 1)]), "v")
    assert "date" in kinds(values(["2014-03", "2013-12"]), "v")  # month precision


def test_ages_over_89_only_in_age_columns():
    ages = [str(a) for a in range(20, 100)]
    frame = pd.DataFrame({"Age": ages, "Length of stay": ages})
    found = find_hipaa_identifiers(frame).matches
    assert [(m.attribute, m.instance) for m in found] == [("Age", "Age over 89")]
    assert kinds(pd.DataFrame({"Age": [str(a) for a in range(20, 80)]}), "Age", "value") == set()


def test_record_numbers_distinct_for_every_record():
    frame = pd.DataFrame({"v": [f"MRN{100000 + i}" for i in range(N)],
                          "w": [f"MRN{100000 + i % 5}" for i in range(N)]})
    assert "other_unique_identifier" in kinds(frame, "v")
    assert kinds(frame, "w") == set()  # repeated values are not record numbers


def test_missing_values_are_ignored_and_threshold_applies():
    column = ["alice@example.org", "NA", "", "bob@example.org"]
    assert "email_address" in kinds(values(column), "v")
    mixed = values(["alice@example.org", "no", "mail", "here"])
    assert kinds(mixed, "v") == set()
    assert find_hipaa_identifiers(mixed, threshold=0.2).matches[0].matched == "0.25"


def test_summary_table():
    frame = pd.DataFrame({"email": ["a@b.org"] * N, "sex": ["F"] * N})
    table = find_hipaa_identifiers(frame).summary()
    assert set(table["attribute"]) == {"email"}
    assert set(table["match_type"]) == {"name", "value"}
    assert list(table.columns) == ["attribute", "identifier", "instance", "match_type",
                                   "matched", "reason"]


def _output_matches(values_by_column, generalized):
    from arxpy.risk.hipaa import find_hipaa_identifiers_in_output

    frame = pd.DataFrame(values_by_column)
    found = find_hipaa_identifiers_in_output(frame, set(generalized)).matches
    return {(m.attribute, m.identifier) for m in found}


def test_output_zip_with_three_digits_masked_is_no_longer_flagged():
    """Issue 11: '75***' kept two digits; the ZIP row said 'still flagged' by its name."""
    zips = ["75***", "76***", "77***", "78***"]
    assert _output_matches({"ZIP code": zips}, {"ZIP code"}) == set()


def test_output_zip_judged_by_its_values():
    geo = ("ZIP code", "geographic_subdivision")
    assert _output_matches({"ZIP code": ["75002", "75023", "75100"]}, {"ZIP code"}) == {geo}
    # A restricted three-digit area (036 has 20,000 people or fewer) stays flagged.
    assert _output_matches({"ZIP code": ["036**", "036**", "036**"]}, {"ZIP code"}) == {geo}
    assert _output_matches({"ZIP code": ["750**", "751**", "752**"]}, {"ZIP code"}) == set()


def test_output_attribute_left_as_is_keeps_its_name_match():
    geo = ("ZIP code", "geographic_subdivision")
    assert geo in _output_matches({"ZIP code": ["75***", "76***"]}, set())
