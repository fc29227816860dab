"""A large CSV file without ``--engine`` goes through the memory engine's histogram route.

The route reads the file as categorical codes, searches the histogram of distinct rows
and writes from codes; it must give the table path's optimum, counts and output bytes
(shuffled rows included), and it is taken only when nothing of the run needs the
records as a table. The route's file is audited by tests/audit.py, not by arxpy.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import audit
import numpy as np
import pandas as pd
import pytest

import arxpy.commands.anonymize as anonymize_command
from arxpy.cli import main
from arxpy.data.csv_io import CsvFormat, read_csv
from arxpy.errors import DataImportError
from arxpy.example import example_definition, write_example

SAME = ("transformation", "score", "suppressed_records", "records", "optimal")


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> tuple[Path, list[str]]:
    folder = tmp_path_factory.mktemp("route")
    write_example(folder, records=600)
    data = next(p for p in folder.iterdir() if p.suffix == ".csv")
    hierarchies = [a for name in example_definition().quasi_identifiers
                   for a in ("--hierarchy", f"{name}={folder / 'hierarchies' / f'{name}.csv'}")]
    return folder, ["anonymize", "--data", str(data), *hierarchies, "--k", "5",
                    "--suppression", "0.05", "--shuffle-seed", "11"]


def _run(folder: Path, args: list[str], name: str, *extra: str) -> tuple[dict, bytes]:
    output, report = folder / f"{name}.csv", folder / f"{name}.json"
    assert main([*args, "--output", str(output), "--report", str(report), *extra]) == 0
    return json.loads(report.read_text()), output.read_bytes()


def test_the_route_gives_the_table_path_s_answers_and_bytes(example, monkeypatch):
    folder, args = example
    table_report, table_bytes = _run(folder, args, "table")
    monkeypatch.setattr(anonymize_command, "HISTOGRAM_ROUTE_BYTES", 0)
    route_report, route_bytes = _run(folder, args, "route")

    assert "engine" not in table_report
    assert route_report["engine"]["name"] == "memory"
    for key in SAME:
        assert route_report[key] == table_report[key], key
    assert route_report["suppressed_records"] > 0  # the suppression path is exercised
    assert route_bytes == table_bytes  # same labels, same '*', same shuffled order
    assert route_report["release"]["output_file_sha256"] == hashlib.sha256(route_bytes
                                                                          ).hexdigest()
    released = read_csv(folder / "route.csv", CsvFormat(delimiter=";"))
    quasi = list(table_report["transformation"])
    kept = released[~(released[quasi] == "*").all(axis=1)]
    assert audit.k_anonymity(kept, quasi) >= 5


@pytest.mark.parametrize("extra", [("--engine", "memory"), ("--neutralize-formulas",),
                                   ("--microaggregate", "Age=median", "--type", "Age=integer")])
def test_an_explicit_engine_or_a_table_option_keeps_the_table_path(example, monkeypatch,
                                                                   extra):
    folder, args = example
    monkeypatch.setattr(anonymize_command, "HISTOGRAM_ROUTE_BYTES", 0)
    report, _ = _run(folder, args, "kept", *extra)
    assert "engine" not in report
    assert "output_sha256" in report["release"]  # a digest only the table path gives


@pytest.mark.parametrize("text", [
    'a;b\n"x;1";2\n3;4\n',  # quotes: the csv module checks the field counts
    "a;b\r\n1;\r\n\r\n;2\r\n",  # CR LF, empty cells, a blank line
    "\ufeffa;b\n1;2\n1;2\n3;4",  # byte order mark, no final line end
    "a;b\r1;2\r3;4\r",  # lone carriage returns end records for the csv module
    'a;b\n"y""q";4\nab"c;d\n',  # doubled quotes; a quote inside an unquoted cell
    "a;b\n1;2\n   \n3;4\n",  # a line of spaces: blank for pandas, refused by pyarrow
    'a;b\n"two\nlines";2\n',  # a quoted line break
    "\n\na;b\nä;€\n 1 ; 2 \n",  # blank lines before the header; non-ASCII; spaces kept
])
def test_categories_hold_the_same_strings(tmp_path, text):
    path = tmp_path / "data.csv"
    path.write_text(text, encoding="utf-8", newline="")
    fmt = CsvFormat(delimiter=";")
    plain, coded = read_csv(path, fmt), read_csv(path, fmt, categories=True)
    assert all(isinstance(coded[c].dtype, pd.CategoricalDtype) for c in coded)
    assert list(coded.columns) == list(plain.columns) == ["a", "b"]
    assert np.array_equal(coded.astype(object).to_numpy(), plain.to_numpy())


def test_a_short_record_is_named_on_the_counted_path(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("a;b;c\n" + "1;2;3\n" * 100 + "4;5\n7;8;9\n")
    with pytest.raises(DataImportError, match="line 102: expected 3 fields"):
        read_csv(path, CsvFormat(delimiter=";"), categories=True)


def test_a_nul_byte_is_refused_on_the_categories_path_too(tmp_path):
    path = tmp_path / "data.csv"
    path.write_bytes(b"a;b\n1;2\x003\n")
    with pytest.raises(DataImportError, match="NUL byte at byte 7"):
        read_csv(path, CsvFormat(delimiter=";"), categories=True)
