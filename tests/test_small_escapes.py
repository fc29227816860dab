"""The smaller escapes of issue 12 (item 10): each a clear error, no traceback, no loss."""

from __future__ import annotations

import json
import math
import warnings

import pandas as pd
import pytest

from arxpy.cli import main
from arxpy.data.csv_io import CsvFormat
from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.errors import DataImportError, DefinitionError


@pytest.fixture
def files(tmp_path):
    rows = ["age;zip;disease"] + [f"{20 + i % 40};{1300 + i % 9};{['flu', 'cold'][i % 2]}"
                                  for i in range(60)]
    (tmp_path / "data.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "age.csv").write_text("\n".join(f"{a};{a // 10 * 10};*"
                                                for a in range(20, 60)) + "\n")
    return tmp_path


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if "error" in line]
    assert len(lines) == 1
    return lines[0]


@pytest.mark.parametrize("weight", [math.nan, math.inf, -1.0, 0.0])
def test_weight_must_be_positive_and_finite(weight):
    with pytest.raises(DefinitionError, match="positive finite"):
        AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING, weight=weight)


def test_cli_reads_a_non_utf8_file_whose_first_accent_is_past_the_sample(tmp_path, capsys):
    data = tmp_path / "latin.csv"
    data.write_bytes(b"a;b\n" + b"x;y\n" * 20_000 + "\xe9;\xfc\n".encode("latin-1"))
    assert main(["risk", "--data", str(data), "--qi", "a", "--no-hipaa",
                 "--report", str(tmp_path / "r.json")]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["records"] == 20_001
    assert main(["risk", "--data", str(data), "--qi", "a", "--no-hipaa", "--encoding",
                 "cp1252", "--report", str(tmp_path / "r2.json")]) == 0


@pytest.mark.parametrize("option", [["--encoding", "nope"], ["--encoding", "rot13"],
                                    ["--delimiter", ";;"]])
def test_cli_bad_encoding_or_delimiter_is_a_usage_error(files, capsys, option):
    with pytest.raises(SystemExit) as stopped:
        main(["anonymize", "--data", str(files / "data.csv"), "--k", "2", *option])
    assert stopped.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_nul_byte_past_the_sample_is_refused_not_truncated(tmp_path, capsys):
    data = tmp_path / "nul.csv"
    data.write_bytes(b"a;b\n" + b"x;y\n" * 20_000 + b"ab\x00cd;z\n")
    assert main(["risk", "--data", str(data), "--qi", "a", "--no-hipaa",
                 "--report", str(tmp_path / "r.json")]) == 2
    assert "NUL" in _one_error_line(capsys)
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(("rows", "words"), [
    ([f"{a};{a // 10}" + (";*" if a % 2 else "") for a in range(20, 60)], "levels"),
    ([f"{a};{a % 3};{'x' if a % 2 else 'y'}" for a in range(20, 60)], "generalization"),
])
def test_risk_transformation_checks_its_hierarchy(files, capsys, rows, words):
    (files / "bad.csv").write_text("\n".join(rows) + "\n")
    code = main(["risk", "--data", str(files / "data.csv"), "--delimiter", ";", "--qi", "age",
                 "--hierarchy", f"age={files / 'bad.csv'}", "--transformation", "age=1",
                 "--no-hipaa", "--report", str(files / "r.json")])
    assert code == 2 and words in _one_error_line(capsys)


def test_risk_on_zero_records(tmp_path, capsys):
    (tmp_path / "empty.csv").write_text("age;zip\n")
    assert main(["risk", "--data", str(tmp_path / "empty.csv"), "--delimiter", ";",
                 "--qi", "age", "--report", str(tmp_path / "r.json")]) == 0
    assert json.loads((tmp_path / "r.json").read_text())["records"] == 0


@pytest.mark.parametrize("spec", ["disease:entropy:inf", "disease:entropy:nan",
                                  "disease:recursive:inf:2"])
def test_infinite_model_parameters_are_refused(files, capsys, spec):
    code = main(["anonymize", "--data", str(files / "data.csv"), "--delimiter", ";",
                 "--hierarchy", f"age={files / 'age.csv'}", "--ldiversity", spec])
    line = _one_error_line(capsys)
    assert code == 2 and ("finite" in line or "number" in line)


@pytest.mark.parametrize(("extra", "words"), [
    (["--param", "C=abc"], "C must be a number"),
    (["--classifier", "tree", "--param", "max_depth=-1"], "max_depth"),
    (["--seed", "-1"], "seed"),
])
def test_evaluate_parameter_errors(files, capsys, extra, words):
    code = main(["evaluate", "--data", str(files / "data.csv"), "--delimiter", ";",
                 "--hierarchy", f"age={files / 'age.csv'}", "--k", "2",
                 "--class-attribute", "disease", "--report", str(files / "r.json"), *extra])
    assert code == 2 and words in _one_error_line(capsys)
    assert not (files / "r.json").exists()


def test_evaluate_plots_into_a_file_is_refused_before_any_work(files, capsys):
    (files / "plots").write_text("not a folder")
    code = main(["evaluate", "--data", str(files / "data.csv"), "--delimiter", ";",
                 "--hierarchy", f"age={files / 'age.csv'}", "--k", "2",
                 "--class-attribute", "disease", "--report", str(files / "r.json"),
                 "--plots", str(files / "plots")])
    assert code == 2 and "not a folder" in _one_error_line(capsys)
    assert not (files / "r.json").exists()


@pytest.mark.parametrize("encoding", ["rot13", "zlib", "undefined", "", "no-such"])
def test_import_settings_refuse_codecs_that_are_not_text_encodings(encoding):
    with pytest.raises(DataImportError, match="encoding"):
        CsvFormat(encoding=encoding)


def test_thirty_quasi_identifiers_are_refused_without_an_overflow_warning():
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.errors import ConfigurationError
    from arxpy.hierarchy.model import Hierarchy
    from arxpy.privacy.kanonymity import KAnonymity

    names = [f"q{i}" for i in range(30)]
    frame = pd.DataFrame({n: [str(v % 10) for v in range(50)] for n in names})
    definition = DataDefinition(AttributeDefinition(n, AttributeType.QUASI_IDENTIFYING)
                                for n in names)
    hierarchy = Hierarchy([[str(v), str(v // 2), str(v // 4), str(v // 8), "*"]
                           for v in range(10)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ConfigurationError, match="too many"):
            anonymize(frame, definition, {n: hierarchy for n in names},
                      AnonymizationConfig([KAnonymity(2)]))
