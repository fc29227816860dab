"""Issue 28's hostile command-line inputs across every command, as fast fixture cases
(the campaign, ``benchmarks/fuzz_campaign.py``, draws many more from the same builders
in ``tests/fuzz/commands.py``): outputs pointed at inputs, parameters out of bounds,
forged published documents, Ctrl-C inside the DuckDB engine's functions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_checks import one_error_line

from arxpy import cli
from arxpy.cli import main

from . import commands

#: Commands writing a file that could replace another file of the run.
WITH_OUTPUTS = commands.overwritable()


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> commands.Files:
    return commands.write_inputs(tmp_path_factory.mktemp("commands"))


def _snapshot(folder: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in Path(folder).iterdir() if p.is_file()}


@pytest.mark.parametrize("name", WITH_OUTPUTS)
def test_each_output_over_an_input_through_a_link_is_refused(files, capsys, tmp_path,
                                                             name):
    argv = commands.TEMPLATES[name](files)
    inputs, outputs = commands.declared(argv)
    option, _ = outputs[0]
    victim = Path((inputs or outputs[1:])[0][1])
    link = tmp_path / f"link{victim.suffix}"
    link.symlink_to(victim)
    before = _snapshot(files["dir"])
    hostile = commands.with_parameter(argv, option, str(link))
    assert "is the same file as" in one_error_line(hostile, capsys)
    assert _snapshot(files["dir"]) == before


PARAMETERS = [
    ("condense", "--k", "0"), ("condense", "--k", "1"), ("condense", "--k", "2"),
    ("condense", "--k", "1e308"), ("condense", "--k", "nan"), ("condense", "--k", "x"),
    ("condense", "--delimiter", ";;"), ("anonymize", "--k", "0"),
    ("anonymize", "--k", "-5"), ("anonymize", "--k", "nan"), ("kpbms", "--k", "0"),
    ("kpbms", "--discretize", "eqfreq:1000000000"), ("kpbms", "--seed", "-1"),
    ("intervals", "--k", "1e308"), ("intervals", "--seed", "-1"),
    ("run intervals", "--k", "nan"), ("synth-ehr", "--records", "1000000000"),
    ("synth-ehr", "--records", "0"), ("synth-ehr", "--seed", "-1"),
    ("setvalued-risk", "--m", "24"), ("setvalued-risk", "--seed", "-1"),
    ("km-check", "--m", "12"), ("km-check", "--k", "0"), ("disassociate", "--m", "24"),
    ("disassociate", "--k", "0"), ("example", "--records", "1000000000"),
    ("pbca", "--seed", "-1"), ("kpbms-evaluate", "--seed", "-1"),
]


@pytest.mark.parametrize("name, option, value", PARAMETERS,
                         ids=[" ".join(p) for p in PARAMETERS])
def test_an_invalid_parameter_is_one_line(files, capsys, name, option, value):
    before = _snapshot(files["dir"])
    argv = commands.with_parameter(commands.TEMPLATES[name](files), option, value)
    one_error_line(argv, capsys)
    assert _snapshot(files["dir"]) == before


def _forged(**changes) -> dict:
    document = commands.published_document(2, 2, 2)
    cluster = document["joint_clusters"][0]["clusters"][0]
    for key, value in changes.items():
        if key == "size":
            cluster["size"] = value
        elif key == "subrecords":
            cluster["record_chunks"][0]["subrecords"] = value
        else:
            document[key] = value
    return document


DOCUMENTS = {
    "m 10^9": _forged(m=10**9), "m not a number": _forged(m="x"), "k -1": _forged(k=-1),
    "size 10^12": _forged(size=10**12), "nested subrecords": _forged(subrecords=[[["x"]], 5]),
    "no clusters": {"method": "disassociation", "k": 2, "m": 2},
}


@pytest.mark.parametrize("reader", range(len(commands.DOCUMENT_READERS)))
@pytest.mark.parametrize("forgery", DOCUMENTS)
def test_a_forged_published_document_is_one_line(files, capsys, tmp_path, forgery, reader):
    document = tmp_path / "forged.json"
    document.write_text(json.dumps(DOCUMENTS[forgery]))
    one_error_line(commands.DOCUMENT_READERS[reader](files, str(document)), capsys)


def test_ctrl_c_inside_a_duckdb_function_is_an_interrupt(files, capsys, monkeypatch):
    """Issue 28, defect 7: DuckDB wrapped the KeyboardInterrupt raised in its vectorized
    function as invalid input, and the run blamed the data."""
    pytest.importorskip("duckdb", reason="the duckdb engine needs arxpy[duckdb]")
    from arxpy.engine.backends import duckdb_engine

    def pressed(self, batch):
        raise KeyboardInterrupt

    monkeypatch.setattr(duckdb_engine._Release, "__call__", pressed)
    argv = commands.TEMPLATES["anonymize --engine duckdb"](files)
    assert main(argv) == cli.INTERRUPTED_STATUS
    err = capsys.readouterr().err.replace("\r", "\n")
    assert err.strip().splitlines()[-1] == cli.INTERRUPTED_LINE and "Traceback" not in err
    assert not Path(commands.out(files, "d.csv")).exists()
