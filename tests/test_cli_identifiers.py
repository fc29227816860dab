"""The identifier options of ``arxpy anonymize`` and ``arxpy run``, and ``arxpy keygen``
(issue 32), end to end on a table of 120 admissions."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
import logging

import audit as anonymity
import numpy as np
import pandas as pd
import pytest

from arxpy.cli import main

QIS = ["age", "zip", "admitted"]


@pytest.fixture
def ward(tmp_path):
    """Admissions of 40 patients (several each), hierarchies, and a key from keygen."""
    rng = np.random.default_rng(7)
    rows = ["pid;name;phone;mrn;admitted;discharged;age;zip;disease"]
    for i in range(120):
        patient = int(rng.integers(0, 40))
        start = dt.date(2021, 1, 1) + dt.timedelta(days=int(rng.integers(0, 300)))
        stop = start + dt.timedelta(days=int(rng.integers(0, 15)))
        rows.append(f"P-{patient:05d};Name{patient:03d};0171-555-{1000 + i};M-{5000 + i};"
                    f"{start};{stop};{20 + patient % 40};{1300 + i % 6};"
                    f"{['flu', 'cold'][i % 2]}")
    (tmp_path / "data.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "age.csv").write_text("\n".join(
        f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*" for a in range(20, 60)) + "\n")
    (tmp_path / "zip.csv").write_text("\n".join(
        f"{z};{z // 10}*;*" for z in range(1300, 1310)) + "\n")
    first = dt.date(2020, 1, 1)
    (tmp_path / "date.csv").write_text("\n".join(
        f"{first + dt.timedelta(days=d)};{(first + dt.timedelta(days=d)).year};*"
        for d in range(3 * 366)) + "\n")
    assert main(["keygen", "--pseudonym", str(tmp_path / "k.key")]) == 0
    return tmp_path


def anonymize_args(folder, *extra):
    return ["anonymize", "--data", str(folder / "data.csv"), "--delimiter", ";",
            "--hierarchy", f"age={folder / 'age.csv'}", "--hierarchy",
            f"zip={folder / 'zip.csv'}", "--hierarchy", f"admitted={folder / 'date.csv'}",
            "--identifying", "name", "--k", "3", "--suppression", "0.2",
            "--key-file", str(folder / "k.key"), *extra]


TREATMENTS = ("--pseudonymize", "pid", "--mask", "phone=keep-last:4",
              "--replace-random", "mrn", "--date-shift", "admitted,discharged",
              "--shift-days", "20", "--patient", "pid")


def test_anonymize_releases_pseudonyms_masks_and_shifted_dates_under_k(ward, capsys):
    out, report_path = ward / "out.csv", ward / "report.json"
    assert main(anonymize_args(ward, *TREATMENTS, "--output", str(out),
                               "--report", str(report_path))) == 0
    report = json.loads(report_path.read_text())
    source = pd.read_csv(ward / "data.csv", sep=";", dtype=str, keep_default_na=False)
    released = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    assert list(released.columns) == [c for c in source.columns if c != "name"]
    secret = (ward / "k.key").read_bytes()
    expected = {hmac.new(secret, b"arxpy pseudonym v1\0default\0" + p.encode(),
                         hashlib.sha256).hexdigest()[:16] for p in source["pid"]}
    assert set(released["pid"]) == expected
    assert released["phone"].str.fullmatch(r"\*{4}-\*{3}-1\d{3}").all()
    assert not set(released["mrn"]) & set(source["mrn"])
    assert report["output_order"]["shuffled"] is True
    # The privacy model still holds over the quasi-identifiers, by the independent check.
    kept = released[released["age"] != "*"]
    assert len(kept) >= 0.8 * len(released)
    assert anonymity.k_anonymity(kept, QIS) >= 3
    identifiers = report["identifiers"]
    by_attribute = {t["attribute"]: t for t in identifiers["treatments"]}
    assert by_attribute["pid"]["format"] == "hex:16"
    assert by_attribute["phone"]["rule"] == "keep-last:4"
    assert by_attribute["mrn"]["reproducible"] is False
    assert by_attribute["name"]["treatment"] == "remove"
    assert identifiers["date_shift"]["range_days"] == [-20, 20]
    assert len(identifiers["key_fingerprint"]) == 16
    assert "direct identification only" in capsys.readouterr().out


def _leaks(text: str, secret: bytes, identifiers: set[str]) -> list[str]:
    forms = {secret.hex(), secret.hex().upper(), base64.b64encode(secret).decode(),
             base64.urlsafe_b64encode(secret).decode().rstrip("="),
             base64.b64encode(secret).decode().rstrip("=")}
    found = [f"key as {form[:6]}..." for form in forms if form in text]
    return found + sorted(v for v in identifiers if v in text)


def test_neither_the_key_nor_an_identifier_reaches_report_output_logs_or_errors(
        ward, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    out, report = ward / "out.csv", ward / "report.json"
    assert main(anonymize_args(ward, *TREATMENTS, "--output", str(out),
                               "--report", str(report))) == 0
    # A refused run: pseudonyms too short to stay one-to-one.
    assert main(anonymize_args(ward, *TREATMENTS, "--pseudonym-format", "hex:1",
                               "--output", str(ward / "refused.csv"))) == 2
    captured = capsys.readouterr()
    assert "one-to-one" in captured.err
    secret = (ward / "k.key").read_bytes()
    source = pd.read_csv(ward / "data.csv", sep=";", dtype=str, keep_default_na=False)
    identifiers = set(source["pid"]) | set(source["name"]) | set(source["phone"]) \
        | set(source["mrn"])
    for name, text in (("report", report.read_text()), ("output", out.read_text()),
                       ("stdout", captured.out), ("stderr", captured.err),
                       ("logs", caplog.text)):
        assert not _leaks(text, secret, identifiers), name
    for path in (out, report):
        assert secret not in path.read_bytes()
    assert not (ward / "refused.csv").exists()


def test_run_any_method_with_identifiers_and_refuse_a_pseudonym_as_quasi_identifier(ward):
    report = ward / "run.json"
    common = ["--data", str(ward / "data.csv"), "--delimiter", ";", "--identifying", "name",
              "--pseudonymize", "pid", "--pseudonym-format", "prefix:PSN-:10",
              "--key-file", str(ward / "k.key"), "--output", str(ward / "run.csv")]
    assert main(["run", "k-anonymity-baseline", "--k", "3", "--quasi-identifying", "age",
                 *common, "--report", str(report)]) == 0
    released = pd.read_csv(ward / "run.csv", dtype=str, keep_default_na=False)
    assert released["pid"].str.fullmatch(r"PSN-\d{10}").all()
    assert json.loads(report.read_text())["identifiers"]["treatments"][0]["format"] == \
        "prefix:PSN-:10"
    # Without declared quasi-identifiers this method takes every attribute, pid too.
    (ward / "run.csv").unlink()
    assert main(["run", "k-anonymity-baseline", "--k", "3", *common]) == 2
    assert not (ward / "run.csv").exists()


@pytest.mark.parametrize(("extra", "message"), [
    (("--shift-days", "5"), "--shift-days goes with --date-shift"),
    (("--mask", "phone=keep-last:4"), "--key-file goes with --pseudonymize or --date-shift"),
    (("--date-shift", "admitted", "--patient", "pid"), "needs --shift-days"),
    (("--pseudonymize", "age"), "'age' is a quasi-identifier"),
    (("--pseudonymize", "pid", "--ldiversity", "pid:distinct:2"), "'pid' is sensitive"),
    (("--pseudonymize", "pid", "--pseudonym-format", "hex:99"), "pseudonym format"),
    (("--mask", "phone=keep-middle:2", "--pseudonymize", "pid"), "mask rule"),
    (("--date-shift", "name", "--shift-days", "3", "--patient", "pid"), "'name' is identifying"),
    (("--pseudonymize", "pid", "--passphrase-file", "KEY"),
     "--passphrase-file goes with --reidentification-table"),
    (("--pseudonymize", "pid", "--output", "KEY"), "same file as --key-file"),
])
def test_option_mistakes_are_one_line_errors(ward, capsys, extra, message):
    extra = tuple(str(ward / "k.key") if e == "KEY" else e for e in extra)
    before = (ward / "k.key").read_bytes()
    assert main(anonymize_args(ward, *extra)) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("arxpy: error:") and message in err
    assert (ward / "k.key").read_bytes() == before


def test_pseudonymize_without_a_key_says_how_to_make_one(ward, capsys):
    argv = anonymize_args(ward, "--pseudonymize", "pid")
    argv[argv.index("--key-file"):argv.index("--key-file") + 2] = []
    assert main(argv) == 2
    assert "arxpy keygen --pseudonym KEYFILE" in capsys.readouterr().err


def test_keygen_prints_the_fingerprint_never_the_key_and_refuses_an_existing_file(
        ward, capsys):
    path = ward / "second.key"
    assert main(["keygen", "--pseudonym", str(path)]) == 0
    out = capsys.readouterr().out
    assert "fingerprint" in out and "lost key" in out
    assert not _leaks(out, path.read_bytes(), set())
    assert main(["keygen", "--pseudonym", str(path)]) == 2
    assert "never overwritten" in capsys.readouterr().err


def test_a_named_namespace_is_reported_and_gives_its_own_pseudonyms(ward):
    out, report = ward / "out.csv", ward / "report.json"
    assert main(anonymize_args(ward, "--pseudonymize", "pid=patients", "--output", str(out),
                               "--report", str(report))) == 0
    treatment = json.loads(report.read_text())["identifiers"]["treatments"][0]
    assert (treatment["attribute"], treatment["namespace"]) == ("pid", "patients")
    secret = (ward / "k.key").read_bytes()
    source = pd.read_csv(ward / "data.csv", sep=";", dtype=str, keep_default_na=False)
    released = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    assert set(released["pid"]) == {
        hmac.new(secret, b"arxpy pseudonym v1\0patients\0" + p.encode(),
                 hashlib.sha256).hexdigest()[:16] for p in source["pid"]}
