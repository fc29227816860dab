"""The encrypted re-identification table (issue 32): pseudonym -> original for a trusted
party, written only on request, opened with ``arxpy reidentify``."""

from __future__ import annotations

import json
import os
import stat

import pandas as pd
import pytest
from test_cli_identifiers import anonymize_args, ward  # noqa: F401 (the fixture)

from arxpy.cli import main
from arxpy.errors import ConfigurationError
from arxpy.identifiers import reidentification
from arxpy.identifiers.reidentification import ReidentificationTable, read_table, write_table

PASSPHRASE = "correct horse battery staple"


@pytest.fixture(autouse=True)
def cheap_scrypt(monkeypatch):
    """scrypt at 2^10 instead of 2^17: the same code, a thousandth of the seconds."""
    monkeypatch.setattr(reidentification, "SCRYPT_N", 2**10)


def _table() -> ReidentificationTable:
    original = pd.DataFrame({"pid": ["P-1", "P-2", "P-1", ""], "mrn": ["M-7", "M-8", "M-9", "M-6"]})
    treated = pd.DataFrame({"pid": ["aa", "bb", "aa", ""], "mrn": ["x1", "x2", "x3", "x4"]})
    record = {"treatments": [{"attribute": "pid", "treatment": "keyed-pseudonym"},
                             {"attribute": "mrn", "treatment": "random-replacement"},
                             {"attribute": "name", "treatment": "remove"}],
              "key_fingerprint": "0123456789abcdef"}
    return ReidentificationTable.of(original, treated, record)


def test_a_table_round_trips_and_reidentifies_a_release(tmp_path):
    path = tmp_path / "trusted" / "reid.bin"
    path.parent.mkdir()
    write_table(_table(), path, PASSPHRASE)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    table = read_table(path, PASSPHRASE)
    assert table == _table() and table.key_fingerprint == "0123456789abcdef"
    assert table.originals_of("aa") == [("pid", "P-1")] and table.originals_of("zz") == []
    release = pd.DataFrame({"pid": ["bb", "aa", "*", ""], "mrn": ["x3", "x1", "x9", "x4"]})
    restored, unknown = table.reidentify(release)
    assert list(restored["pid"]) == ["P-2", "P-1", "*", ""]
    assert list(restored["mrn"]) == ["M-9", "M-7", "x9", "M-6"]
    assert unknown == {"pid": 1, "mrn": 1}
    with pytest.raises(ConfigurationError, match="never overwritten"):
        write_table(_table(), path, PASSPHRASE)


def test_wrong_passphrase_changed_file_and_other_files_fail_in_one_line(tmp_path):
    path = tmp_path / "reid.bin"
    write_table(_table(), path, PASSPHRASE)
    content = path.read_bytes()
    # the plaintext is not on disk, neither as the table's bytes nor as its JSON (three
    # bytes such as b"P-1" appear in random ciphertext by chance: about 1 run in 10^4)
    assert _table().to_bytes() not in content and b'"originals"' not in content
    with pytest.raises(ConfigurationError, match="passphrase is wrong") as wrong:
        read_table(path, PASSPHRASE + "!")
    assert "\n" not in str(wrong.value) and PASSPHRASE not in str(wrong.value)
    head = content.index(b"\n", content.index(b"\n") + 1)
    for at in (head + 5, len(content) - 1, content.index(b'"salt"') + 10):
        changed = tmp_path / f"changed{at}.bin"
        changed.write_bytes(content[:at] + bytes([content[at] ^ 1]) + content[at + 1:])
        with pytest.raises(ConfigurationError, match="changed"):
            read_table(changed, PASSPHRASE)
    (tmp_path / "data.csv").write_text("pid\nP-1\n")
    with pytest.raises(ConfigurationError, match="not an arxpy re-identification table"):
        read_table(tmp_path / "data.csv", PASSPHRASE)
    with pytest.raises(ConfigurationError, match="at least 12 characters"):
        write_table(_table(), tmp_path / "short.bin", "short")


def _passphrase_file(folder):
    path = folder / "pass.txt"
    path.write_text(PASSPHRASE + "\n")
    return path


def test_anonymize_writes_the_table_away_from_the_release_and_reidentify_reverses_it(
        ward, capsys, caplog):  # noqa: F811 (the fixture)
    trusted = ward / "trusted"
    trusted.mkdir()
    out, report_path, table = ward / "out.csv", ward / "report.json", trusted / "reid.bin"
    secret = _passphrase_file(trusted)
    treat = ("--pseudonymize", "pid", "--replace-random", "mrn",
             "--output", str(out), "--report", str(report_path),
             "--passphrase-file", str(secret))
    # Beside the release by default: refused, nothing written.
    assert main(anonymize_args(ward, *treat, "--reidentification-table",
                               str(ward / "reid.bin"))) == 2
    assert "beside the release" in capsys.readouterr().err and not out.exists()
    assert main(anonymize_args(ward, *treat, "--reidentification-table", str(table))) == 0
    report = json.loads(report_path.read_text())["identifiers"]["reidentification_table"]
    assert report["attributes"] == ["pid", "mrn"] and report["entries"] > 40
    source = pd.read_csv(ward / "data.csv", sep=";", dtype=str, keep_default_na=False)
    back = ward / "back.csv"
    assert main(["reidentify", str(table), "--passphrase-file", str(secret),
                 "--release", str(out), "--output", str(back)]) == 0
    assert stat.S_IMODE(os.stat(back).st_mode) == 0o600
    restored = pd.read_csv(back, sep=";", dtype=str, keep_default_na=False)
    pairs = set(zip(source["pid"], source["mrn"], strict=True))
    assert set(zip(restored["pid"], restored["mrn"], strict=True)) == pairs
    released = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    assert main(["reidentify", str(table), "--passphrase-file", str(secret),
                 "--pseudonym", released["pid"][0]]) == 0
    row = released.index[0]
    assert capsys.readouterr().out.split("\t")[1:] == ["pid", restored["pid"][row] + "\n"]
    # No original identifier anywhere but the data and the file made to hold them; the
    # passphrase nowhere but its own file.
    originals = [v.encode() for v in set(source["pid"]) | set(source["mrn"])]
    for path in ward.rglob("*"):
        if path.is_file() and path not in (ward / "data.csv", back, secret):
            content = path.read_bytes()
            assert not any(v in content for v in originals), path
            assert PASSPHRASE.encode() not in content, path
    assert PASSPHRASE not in caplog.text + capsys.readouterr().out


def test_reidentify_with_a_wrong_passphrase_is_one_line(ward, capsys, monkeypatch):  # noqa: F811
    trusted = ward / "trusted"
    trusted.mkdir()
    table = trusted / "reid.bin"
    monkeypatch.setenv("ARXPY_PASSPHRASE", PASSPHRASE)  # the variable instead of a file
    assert main(anonymize_args(ward, "--pseudonymize", "pid", "--output",
                               str(ward / "out.csv"), "--reidentification-table",
                               str(table))) == 0
    monkeypatch.setenv("ARXPY_PASSPHRASE", "another long passphrase")
    capsys.readouterr()
    assert main(["reidentify", str(table), "--pseudonym", "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "passphrase is wrong" in err
    assert "another long passphrase" not in err
