"""Identifier treatments and per-patient date shifts (issue 32), on tiny tables.

Pseudonyms are checked against Python's own ``hmac`` module (RFC 2104), not against
the code under test; formats, masks and date intervals against the inputs.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import re
import stat

import numpy as np
import pandas as pd
import pytest

from arxpy.data.definition import AttributeType, DataDefinition
from arxpy.errors import ConfigurationError
from arxpy.identifiers import (
    MASK,
    PSEUDONYM,
    RANDOM,
    DateShift,
    IdentifierPlan,
    MaskRule,
    PseudonymFormat,
    PseudonymKey,
    Treatment,
    create_key_file,
    read_key_file,
)
from arxpy.identifiers.dates import patient_offsets
from arxpy.identifiers.keys import FINGERPRINT_LABEL

SECRET = bytes(range(32))
KEY = PseudonymKey(SECRET)


def pseudonymize(frame, *treatments, key=KEY, shift=None, definition=None):
    plan = IdentifierPlan(tuple(treatments), shift)
    definition = definition or DataDefinition.for_columns(frame.columns)
    return plan.apply(frame, definition, key)


def test_macs_are_rfc_2104_hmac_sha256_for_short_and_long_keys():
    for secret in (SECRET, b"k" * 100):
        key = PseudonymKey(secret)
        values = ["", "P-1", "Müller", "x" * 300]
        expected = [hmac.new(secret, b"label\0" + v.encode(), hashlib.sha256).digest()
                    for v in values]
        assert key.digests("label", values) == expected
    fingerprint = hmac.new(SECRET, FINGERPRINT_LABEL.encode() + b"\0", "sha256").hexdigest()
    assert KEY.fingerprint == fingerprint[:16]


def test_a_key_shows_only_its_fingerprint_and_is_never_pickled():
    assert SECRET.hex() not in repr(KEY) and KEY.fingerprint in repr(KEY)
    assert not any(isinstance(getattr(KEY, s, None), bytes) for s in KEY.__slots__)
    with pytest.raises(TypeError, match="never pickled"):
        pickle.dumps(KEY)
    with pytest.raises(ConfigurationError, match="at least 16 bytes"):
        PseudonymKey(b"short")


def test_keygen_writes_32_private_bytes_and_never_overwrites(tmp_path):
    path = tmp_path / "pseudonym.key"
    key = create_key_file(path)
    assert path.stat().st_size == 32
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_key_file(path).fingerprint == key.fingerprint
    before = path.read_bytes()
    with pytest.raises(ConfigurationError, match="never overwritten"):
        create_key_file(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["pseudonym.key"]  # no temporary left
    assert create_key_file(tmp_path / "other.key").fingerprint != key.fingerprint


def test_a_key_file_too_short_or_too_large_is_refused_without_its_content(tmp_path):
    short = tmp_path / "short.key"
    short.write_bytes(b"secret-ish")
    with pytest.raises(ConfigurationError, match="fewer than 16 bytes") as caught:
        read_key_file(short)
    assert "secret-ish" not in str(caught.value)
    large = tmp_path / "data.csv"
    large.write_bytes(b"P-000001;" * 1000)
    with pytest.raises(ConfigurationError, match="not a key file") as caught:
        read_key_file(large)
    assert "P-000001" not in str(caught.value)


def test_same_key_same_pseudonym_across_runs_and_across_two_tables():
    patients = pd.DataFrame({"pid": ["A1", "B2", "A1", "C3"], "age": ["1", "2", "3", "4"]})
    admissions = pd.DataFrame({"patient": ["C3", "A1", "D4"], "ward": ["x", "y", "z"]})
    first = pseudonymize(patients, Treatment("pid", PSEUDONYM)).frame
    again = pseudonymize(patients, Treatment("pid", PSEUDONYM)).frame
    other = pseudonymize(admissions, Treatment("patient", PSEUDONYM)).frame
    assert first["pid"].tolist() == again["pid"].tolist()
    assert first["pid"][0] == first["pid"][2] != first["pid"][1]
    assert other["patient"].tolist()[:2] == [first["pid"][3], first["pid"][0]]
    # Another namespace keeps unrelated identifiers apart.
    apart = pseudonymize(admissions, Treatment("patient", PSEUDONYM, namespace="ward"))
    assert apart.frame["patient"][1] != first["pid"][0]


def test_several_attributes_share_one_namespace_in_one_table():
    frame = pd.DataFrame({"mother": ["M1", "M2"], "child_of": ["M2", "M1"]})
    out = pseudonymize(frame, Treatment("mother", PSEUDONYM),
                       Treatment("child_of", PSEUDONYM)).frame
    assert out["mother"].tolist() == out["child_of"].tolist()[::-1]


def test_another_key_gives_no_pseudonym_in_common_on_100000_identifiers():
    values = [f"P{i:07d}" for i in range(100_000)]
    fmt = PseudonymFormat.parse("hex:16")
    mine = fmt.render(KEY.digests("pseudonym", values), np.array(values, dtype=object))
    other = PseudonymKey(bytes(range(1, 33)))
    theirs = fmt.render(other.digests("pseudonym", values), np.array(values, dtype=object))
    assert len(set(mine)) == len(values)
    assert not set(mine) & set(theirs)


@pytest.mark.parametrize(("text", "pattern"), [
    ("hex:12", r"[0-9a-f]{12}"),
    ("hex:64", r"[0-9a-f]{64}"),
    ("prefix:PAT-", r"PAT-[0-9]{16}"),
    ("prefix:X:6", r"X[0-9]{6}"),
])
def test_pseudonym_formats_keep_their_declared_shape(text, pattern):
    values = [f"id{i}" for i in range(200)]
    out = pseudonymize(pd.DataFrame({"id": values}),
                       Treatment("id", PSEUDONYM, PseudonymFormat.parse(text))).frame
    assert out["id"].str.fullmatch(pattern).all()
    assert str(PseudonymFormat.parse(text)) == text


def test_digits_are_a_number_as_long_as_the_value():
    values = [str(10**11 + 7919 * i) for i in range(300)] + ["A-12", "7"]
    out = pseudonymize(pd.DataFrame({"id": values}),
                       Treatment("id", PSEUDONYM, PseudonymFormat.parse("digits"))).frame
    for value, pseudonym in zip(values, out["id"], strict=True):
        assert len(pseudonym) == len(value) and pseudonym.isdigit() and pseudonym[0] != "0"
    assert (out["id"] != pd.Series(values)).sum() >= len(values) - 2  # not the input


@pytest.mark.parametrize("text", ["hex:0", "hex:65", "hex", "digits:3", "prefix:", "uuid"])
def test_unknown_formats_are_refused_with_the_choices(text):
    with pytest.raises(ConfigurationError, match="hex:N"):
        PseudonymFormat.parse(text)


def test_truncated_pseudonyms_that_collide_are_refused_with_a_longer_format():
    values = [f"secret-{i}" for i in range(100)]
    with pytest.raises(ConfigurationError, match=r"one-to-one.*lengthen.*hex:\d+") as caught:
        pseudonymize(pd.DataFrame({"id": values}),
                     Treatment("id", PSEUDONYM, PseudonymFormat.parse("hex:2")))
    assert "secret-" not in str(caught.value)
    with pytest.raises(ConfigurationError, match="too few digits"):
        pseudonymize(pd.DataFrame({"id": [f"{i:02d}" for i in range(90)]}),
                     Treatment("id", PSEUDONYM, PseudonymFormat.parse("digits")))


@pytest.mark.parametrize(("rule", "value", "masked"), [
    ("keep-last:4", "0171-555-0123", "****-***-0123"),
    ("keep-first:2", "AB 12 34", "AB ** **"),
    ("keep-last:4", "123", "***"),  # a mask never releases a whole value
    ("keep-last:2", "Ünï-12", "***-12"),  # letters beyond ASCII are masked too
    (r"regex:(\d{3})-\d{2}-(\d{4})", "123-45-6789", "123-**-6789"),
    (r"regex:(\d{3})-\d{2}-(\d{4})", "12-345", "**-***"),  # no match: masked entirely
])
def test_masks_keep_length_separators_and_what_the_rule_keeps(rule, value, masked):
    out = pseudonymize(pd.DataFrame({"v": [value, "NA"]}),
                       Treatment("v", MASK, rule=MaskRule.parse(rule)))
    assert out.frame["v"].tolist() == [masked, "NA"]  # the missing value stays missing
    if rule.startswith("regex"):
        assert out.record["treatments"][0]["unmatched_distinct_values"] == \
            int(masked == "**-***")


def test_bad_mask_rules_and_characters_are_refused():
    for rule, message in (("keep-last:x", "Cannot read"), ("regex:(", "not a regular"),
                          ("regex:abc", "no group")):
        with pytest.raises(ConfigurationError, match=message):
            MaskRule.parse(rule)
    with pytest.raises(ConfigurationError, match="mask character"):
        IdentifierPlan((Treatment("v", MASK, rule=MaskRule.parse("keep-last:1")),),
                       mask_character="7")


def test_random_replacement_is_one_to_one_consistent_and_says_not_reproducible():
    values = [f"M{i % 50}" for i in range(200)]
    frame = pd.DataFrame({"mrn": values})
    first = pseudonymize(frame, Treatment("mrn", RANDOM, PseudonymFormat.parse("hex:8")),
                         key=None)
    second = pseudonymize(frame, Treatment("mrn", RANDOM, PseudonymFormat.parse("hex:8")),
                          key=None)
    pairs = set(zip(values, first.frame["mrn"], strict=True))
    assert len(pairs) == 50 and len({p for _, p in pairs}) == 50
    assert first.frame["mrn"].str.fullmatch("[0-9a-f]{8}").all()
    assert not set(first.frame["mrn"]) & set(values)
    assert set(first.frame["mrn"]) != set(second.frame["mrn"])
    record = first.record["treatments"][0]
    assert record["reproducible"] is False and "not reproducible" in record["note"]
    assert first.record["key_fingerprint"] is None


def _admissions(patients=40, seed=3):
    rng = np.random.default_rng(seed)
    pid = [f"P{p:03d}" for p in rng.integers(0, patients, 300)]
    start = np.datetime64("2020-01-01") + rng.integers(0, 900, 300).astype("timedelta64[D]")
    stop = start + rng.integers(0, 30, 300).astype("timedelta64[D]")
    text = [str(d) for d in start]
    text[5] = "NA"  # a missing date stays missing
    return pd.DataFrame({"pid": pid, "admitted": text,
                         "discharged": pd.to_datetime(stop).strftime("%d.%m.%Y")})


def test_within_patient_date_differences_are_those_of_the_input_for_every_patient():
    frame = _admissions()
    out = pseudonymize(frame, shift=DateShift(("admitted", "discharged"), "pid", 30)).frame
    assert out["admitted"][5] == "NA"
    days = {}
    for name, fmt in (("admitted", "%Y-%m-%d"), ("discharged", "%d.%m.%Y")):
        before = pd.to_datetime(frame[name], format=fmt, errors="coerce")
        after = pd.to_datetime(out[name], format=fmt, errors="coerce")
        assert out[name].dropna().str.len().eq(frame[name].str.len()).all()  # same format
        days[name] = (after - before).dt.days
    shifts = pd.concat([frame["pid"], days["admitted"], days["discharged"]], axis=1,
                       keys=["pid", "a", "d"])
    for _, rows in shifts.groupby("pid"):
        offsets = set(rows["a"].dropna()) | set(rows["d"])
        assert len(offsets) == 1  # one offset per patient, in both columns
        assert 1 <= abs(offsets.pop()) <= 30
    # Every interval within a patient is that of the input.
    for _, rows in frame.assign(a=out["admitted"]).groupby("pid"):
        kept = rows[rows["admitted"] != "NA"]
        original = pd.to_datetime(kept["admitted"]).diff().dropna()
        shifted = pd.to_datetime(kept["a"]).diff().dropna()
        assert (original.to_numpy() == shifted.to_numpy()).all()


def test_date_offsets_come_from_the_key_and_spread_over_the_range():
    patients = [f"P{i}" for i in range(4000)]
    offsets = patient_offsets(KEY, patients, 10)
    assert set(offsets) == set(range(-10, 0)) | set(range(1, 11))
    counts = np.bincount(offsets + 10, minlength=21)
    assert counts[10] == 0 and counts.max() < 2 * counts[counts > 0].min()
    assert (patient_offsets(KEY, patients, 10) == offsets).all()
    assert (patient_offsets(PseudonymKey(b"x" * 32), patients, 10) != offsets).mean() > 0.8


def test_a_treated_identifier_is_never_a_quasi_identifier_or_sensitive():
    frame = pd.DataFrame({"pid": ["a"], "age": ["1"]})
    for role in (AttributeType.QUASI_IDENTIFYING, AttributeType.SENSITIVE):
        definition = DataDefinition.for_columns(frame.columns).with_attribute("pid", type=role)
        with pytest.raises(ConfigurationError, match="never generalized or judged"):
            pseudonymize(frame, Treatment("pid", PSEUDONYM), definition=definition)
    treated = pseudonymize(frame, Treatment("pid", PSEUDONYM))
    assert treated.definition["pid"].type is AttributeType.INSENSITIVE


def test_dates_must_be_days_a_key_is_needed_and_values_stay_out_of_messages():
    frame = pd.DataFrame({"pid": ["a", "b"], "month": ["2020-01", "2020-02"],
                          "day": ["2020-01-01", "Jane Doe 1970"]})
    with pytest.raises(ConfigurationError, match="no day"):
        pseudonymize(frame, shift=DateShift(("month",), "pid", 5))
    with pytest.raises(ConfigurationError, match="not dates") as caught:
        pseudonymize(frame, shift=DateShift(("day",), "pid", 5))
    assert "Jane" not in str(caught.value)
    with pytest.raises(ConfigurationError, match="need a key"):
        pseudonymize(frame, Treatment("pid", PSEUDONYM), key=None)
    with pytest.raises(ConfigurationError, match="from 1 to"):
        DateShift(("day",), "pid", 0)


def test_the_record_round_trips_and_names_removed_identifiers():
    frame = pd.DataFrame({"pid": ["a"], "name": ["Jane"], "phone": ["0123"], "d": ["2020-01-01"]})
    definition = DataDefinition.for_columns(frame.columns).with_attribute(
        "name", type=AttributeType.IDENTIFYING)
    plan = IdentifierPlan((Treatment("pid", PSEUDONYM, PseudonymFormat.parse("prefix:P:8")),
                           Treatment("phone", MASK, rule=MaskRule.parse("keep-first:1"))),
                          DateShift(("d",), "pid", 7), mask_character="#")
    record = plan.apply(frame, definition, KEY).record
    assert IdentifierPlan.from_record(record) == plan
    assert {t["attribute"]: t["treatment"] for t in record["treatments"]} == \
        {"pid": "keyed-pseudonym", "phone": "mask", "name": "remove"}
    assert record["key_fingerprint"] == KEY.fingerprint
    assert record["date_shift"]["range_days"] == [-7, 7]
    assert re.search("direct identification only", record["note"])


def test_random_replacements_keyed_for_a_release_refuse_as_drawn_ones_do():
    from arxpy.errors import ConfigurationError
    from arxpy.identifiers import RANDOM, IdentifierPlan, PseudonymFormat, PseudonymKey, Treatment

    frame = pd.DataFrame({"w": [f"w{i}" for i in range(20)] * 2})
    plan = IdentifierPlan((Treatment("w", RANDOM, PseudonymFormat.parse("hex:1")),))
    definition = DataDefinition.for_columns(["w"])
    for random_key in (None, PseudonymKey(bytes(32))):  # 20 values, 16 replacements
        with pytest.raises(ConfigurationError, match="too few values for the 20 distinct"):
            plan.apply(frame, definition, random_key=random_key)
    wide = IdentifierPlan((Treatment("w", RANDOM, PseudonymFormat.parse("hex:12")),))
    one, two = (wide.apply(frame, definition, random_key=PseudonymKey(bytes([b]) * 32))
                .frame["w"] for b in (1, 2))
    assert one.nunique() == 20 and one[:20].tolist() == one[20:].tolist()
    assert not set(one) & set(two)  # another release's key: other replacements
