"""The batch HMAC-SHA-256 (issue 32): the compiled kernel, with and without the SHA
extensions, and its Python fallback give Python's ``hmac`` bytes for every value; the
DuckDB engine releases the memory engine's output through either."""

from __future__ import annotations

import hashlib
import hmac
import random

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

from arxpy.engine.backends import keyed_digests  # noqa: E402
from arxpy.identifiers import PseudonymKey  # noqa: E402

SECRET = bytes(range(7, 39))
# characters of one to four UTF-8 bytes, NUL included
ALPHABET = "aZ09 -_\0\u00e9\u00df\u20ac\u3000\U0001f600"


def _values(count: int = 3000) -> list[str]:
    rng = random.Random(5)
    lengths = [0, 1, 55, 56, 63, 64, 65, 119, 120, 200]  # around the padding's edges
    lengths += [rng.randrange(0, 90) for _ in range(count - len(lengths))]
    return ["".join(rng.choice(ALPHABET) for _ in range(n)) for n in lengths]


def _expected(secret: bytes, label: str, values: list[str]) -> np.ndarray:
    prefix = label.encode() + b"\0"
    return np.frombuffer(b"".join(hmac.new(secret, prefix + v.encode(), hashlib.sha256)
                                  .digest() for v in values), np.uint8).reshape(-1, 32)


needs_kernel = pytest.mark.skipif(not keyed_digests.COMPILED,
                                  reason="the compiled kernel was not built")


@needs_kernel
@pytest.mark.parametrize("portable", [False, True], ids=["best", "portable"])
@pytest.mark.parametrize("label", ["arxpy pseudonym v1\0records", "L" * 70, ""])
def test_the_kernel_gives_pythons_hmac_for_every_value(portable, label):
    values = _values()
    # a key longer than a block is hashed first (RFC 2104), as PseudonymKey does
    for secret in (SECRET, bytes(range(100))):
        digests = keyed_digests.KeyedDigests(PseudonymKey(secret), label, portable)
        expected = _expected(secret, label, values)
        assert (digests(pa.array(values)) == expected).all()
        # a slice starts at an offset; large strings have 64-bit offsets
        assert (digests(pa.array(values).slice(17, 100)) == expected[17:117]).all()
        assert (digests(pa.array(values, pa.large_string())) == expected).all()
        assert digests(pa.array([], pa.string())).shape == (0, 32)


def test_the_fallback_gives_the_same_bytes(monkeypatch):
    monkeypatch.setattr(keyed_digests, "COMPILED", False)
    values = _values(200)
    digests = keyed_digests.KeyedDigests(PseudonymKey(SECRET), "a label")
    assert (digests(pa.chunked_array([values[:50], values[50:]])) ==
            _expected(SECRET, "a label", values)).all()


def test_hex_digests_are_the_hex_text_of_each_digest():
    digests = np.frombuffer(bytes(range(256)) * 2, np.uint8).reshape(16, 32)
    for digits in (64, 16, 5, 1):
        assert keyed_digests.hex_digests(digests, digits).to_pylist() == [
            bytes(d).hex()[:digits] for d in digests]


@needs_kernel
def test_the_kernel_refuses_offsets_outside_the_data():
    from arxpy.lattice import _kernels

    out = np.empty((2, 32), np.uint8)
    with pytest.raises(ValueError, match="ascending within data"):
        _kernels.hmac_sha256(b"\0" * 64, b"\0" * 64, np.array([0, 5, 9]), b"12345678", out)
    with pytest.raises(ValueError, match="ascending within data"):
        _kernels.hmac_sha256(b"\0" * 64, b"\0" * 64, np.array([0, 5, 3]), b"12345678", out)
    with pytest.raises(ValueError, match="n \\* 32 bytes"):
        _kernels.hmac_sha256(b"\0" * 64, b"\0" * 64, np.array([0, 1, 2, 3]), b"123", out)
    with pytest.raises(TypeError, match="int64"):
        _kernels.hmac_sha256(b"\0" * 64, b"\0" * 64, np.array([0, 1], np.int32), b"1", out)


@pytest.mark.parametrize(("compiled", "patient_format", "looked_up"),
                         [(True, "h20", False), (True, "p", True), (False, "h20", True)],
                         ids=["kernel-hex", "kernel-prefix", "sql"])
def test_duckdb_pseudonyms_and_shifts_are_the_memory_engines_through_either_hmac(
        compiled, patient_format, looked_up, monkeypatch):
    pytest.importorskip("duckdb")
    if compiled and not keyed_digests.COMPILED:
        pytest.skip("the compiled kernel was not built")
    from test_duckdb_identifiers import _plan, _table, _through_duckdb

    from arxpy.data.definition import DataDefinition
    from arxpy.engine.backends import duckdb_identifiers

    monkeypatch.setattr(keyed_digests, "COMPILED", compiled)
    if not looked_up:  # too many patients: each record's offset by the kernel
        monkeypatch.setattr(duckdb_identifiers, "_MOST_PATIENTS", 0)
    key, frame, plan = PseudonymKey(SECRET), _table(), _plan(patient_format)
    memory = plan.apply(frame, DataDefinition.for_columns(frame.columns), key).frame
    treatment, sql, duck = _through_duckdb(plan, frame, key)
    treatment.check()  # the patient's pseudonyms meet their namesakes' in one namespace
    assert (treatment._patients is not None) == looked_up
    for name in frame.columns.drop("r"):
        assert duck[name].tolist() == memory[name].tolist(), name
    assert ("arxpy_hmac_" in sql) == compiled and ("sha256" in sql) != compiled
    for spelling in (SECRET.hex(), SECRET.hex().upper(), SECRET.decode("latin-1")):
        assert spelling not in sql


@needs_kernel
def test_the_treatments_cross_into_python_once_a_record(monkeypatch):
    # One Arrow function a chunk for the offsets, dates and hex pseudonyms: DuckDB must not
    # call it again for each field it releases (each call moves every input into Arrow).
    pytest.importorskip("duckdb")
    from test_duckdb_identifiers import _plan, _table, _through_duckdb

    from arxpy.engine.backends import duckdb_identifiers

    rows, treated = [], duckdb_identifiers._Chunk.__call__

    def counted(chunk, batch):
        rows.append(len(batch))
        return treated(chunk, batch)

    monkeypatch.setattr(duckdb_identifiers._Chunk, "__call__", counted)
    _, sql, duck = _through_duckdb(_plan("h20"), _table(), PseudonymKey(SECRET))
    assert sum(rows) == len(duck) and sql.count("arxpy_treated(") == 1
    assert "arxpy_offset" not in sql and "arxpy_shift_" not in sql


@needs_kernel
def test_patients_pseudonyms_that_meet_are_refused_when_counted_once_a_patient():
    pytest.importorskip("duckdb")
    import pandas as pd
    from test_duckdb_identifiers import _through_duckdb

    from arxpy.errors import ConfigurationError
    from arxpy.identifiers import PSEUDONYM, DateShift, IdentifierPlan, PseudonymFormat, Treatment

    frame = pd.DataFrame({"pid": [f"P{i % 40}" for i in range(80)],
                          "day": ["2021-03-01"] * 80})
    for digits, refused in ((1, True), (16, False)):
        plan = IdentifierPlan((Treatment("pid", PSEUDONYM, PseudonymFormat.parse(
            f"hex:{digits}")),), DateShift(("day",), "pid", 5))
        treatment, _, duck = _through_duckdb(plan, frame, PseudonymKey(SECRET))
        assert treatment._patients is not None and duck["pid"].str.len().eq(digits).all()
        if refused:  # 40 patients in 16 pseudonyms
            with pytest.raises(ConfigurationError, match="share their pseudonym"):
                treatment.check()
        else:
            treatment.check()


def test_two_word_identities_that_meet_are_refused_and_repeats_are_not():
    from arxpy.engine.backends.duckdb_identifiers import _Identities
    from arxpy.errors import ConfigurationError
    from arxpy.identifiers import PseudonymFormat

    # (value word, identity high, low): values 1 and 2 repeat; 3 meets 1 in one identity
    rows = np.array([[1, 7, 9], [2, 7, 8], [1, 7, 9], [2, 7, 8]], dtype=np.uint64)
    identities = _Identities(PseudonymFormat.parse("hex:20"))
    identities.add(rows)
    identities.refuse_collisions("'x'")
    identities.add(np.array([[3, 7, 9]], dtype=np.uint64))
    with pytest.raises(ConfigurationError, match="2 of the 3 distinct values of 'x'"):
        identities.refuse_collisions("'x'")


def test_a_date_the_first_pass_did_not_read_is_refused_not_passed():
    import pandas as pd

    from arxpy.engine.backends.duckdb_identifiers import _DateTable
    from arxpy.errors import ConfigurationError

    duckdb = pytest.importorskip("duckdb")
    dates = ["2021-03-01", "", "2021-03-03", "2021-03-02"]
    hashes = pa.array(duckdb.sql("SELECT " + ", ".join(f"hash('{d}')" for d in dates))
                      .fetchall()[0], pa.uint64())  # as the treated table's SQL hashes them
    table = _DateTable(pd.Series(dates[:3]), "%Y-%m-%d", 2)
    shifted = table.by_hash(pa.array([1, 2, -2]), hashes[:3])
    assert shifted.to_pylist() == ["2021-03-02", "", "2021-03-01"]  # missing: kept as it is
    with pytest.raises(ConfigurationError, match="data changed during the run"):
        table.by_hash(pa.array([1]), hashes[3:])


@pytest.mark.parametrize("texts", [["2021-03-01", "2021-03-02", "2021-03-03"],
                                   ["1 May 2021", "12 May 2021", "ä"]],
                         ids=["one-width", "widths"])
def test_texts_taken_by_position_are_arrows_take(texts):
    from arxpy.engine.backends.duckdb_identifiers import _Texts

    table = _Texts(pa.array(["a longer one", *texts], pa.string())[1:])  # a slice
    positions, missing = np.array([2, 0, 0, 1]), np.array([False, True, False, False])
    assert table.take(positions).to_pylist() == [texts[i] for i in positions]
    assert table.take(positions, missing).to_pylist() == [texts[2], None, texts[0], texts[1]]
