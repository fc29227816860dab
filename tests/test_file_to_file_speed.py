"""The pieces that make a large file's run fast (issue 31) give today's answers.

The shuffle's permutation is the stable argsort of the shuffle keys whichever path
sorts them (compiled or numpy): the written file for a seed never depends on it. A plain
CSV file read as codes (compiled, on threads) is the table the general reader gives;
a file that is not plain is left to the general reader. Lines written from codes by the
compiled formatter are the text path's bytes.
"""

from __future__ import annotations

import hashlib
import shutil
import sysconfig

import numpy as np
import pandas as pd
import pytest

from arxpy.data import csv_codes
from arxpy.data import export as export_module
from arxpy.data.csv_io import CsvFormat, _first_record, make_unique_names, read_csv, sniff_csv
from arxpy.data.export import csv_text, export_table
from arxpy.engine.backends.base import shuffle_keys, shuffle_order
from arxpy.engine.backends.memory import histogram_of_frame, rows_in_order
from arxpy.errors import DataExportError
from arxpy.lattice import kernels

needs_kernels = pytest.mark.skipif(not kernels.compiled_available(),
                                   reason="the compiled kernels were not built here")


@pytest.fixture(params=[True, False], ids=["compiled", "numpy"])
def kernel_path(request, monkeypatch):
    if request.param and not kernels.compiled_available():
        pytest.skip("the compiled kernels were not built here")
    monkeypatch.setattr(kernels, "USE_COMPILED", request.param)
    return request.param


def _keys(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    full = np.iinfo(np.int64)
    if kind == "distinct":
        return rng.integers(full.min, full.max, n, dtype=np.int64, endpoint=True)
    if kind == "few ties":  # repeated hashed keys spread over the whole range
        pool = rng.integers(full.min, full.max, max(n // 4, 1), dtype=np.int64)
        return pool[rng.integers(0, len(pool), n)]
    if kind == "small":  # many ties around zero: crosses the sign bit
        return rng.integers(-3, 3, n).astype(np.int64)
    if kind == "one bucket":  # equal top bits: the per-bucket radix sort does the work
        return (rng.integers(0, 1 << 20, n).astype(np.int64) << 8) | np.int64(1 << 62)
    extremes = np.array([full.min, full.max, 0, -1, 1, full.min + 1, full.max - 1])
    return extremes[rng.integers(0, len(extremes), n)]


@pytest.mark.parametrize("kind", ["distinct", "few ties", "small", "one bucket", "extremes"])
@pytest.mark.parametrize("n", [0, 1, 2, 47, 49, 3000, 70_000])
def test_stable_argsort_is_numpys_stable_argsort(kernel_path, kind, n):
    keys = _keys(kind, n, np.random.default_rng(n))
    order = kernels.stable_argsort(keys)
    assert order.dtype == np.int64
    np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))


def test_stable_argsort_refuses_a_short_output():
    if not kernels.compiled_available():
        pytest.skip("the compiled kernels were not built here")
    from arxpy.lattice import _kernels

    with pytest.raises(ValueError, match="shorter"):
        _kernels.argsort(np.arange(5, dtype=np.int64), np.empty(4, dtype=np.int64))


@pytest.mark.parametrize("seed", [0, 7, 2**63 - 1])
def test_shuffle_order_is_the_sorted_shuffle_keys(kernel_path, seed):
    rows = 50_000
    expected = np.argsort(shuffle_keys(np.arange(rows), seed), kind="stable")
    np.testing.assert_array_equal(shuffle_order(rows, seed), expected)


# -- reading a plain file as codes -------------------------------------------------------

needs_reader = pytest.mark.skipif(csv_codes._csv_codes is None,
                                  reason="the compiled CSV reader was not built here")


def _general(path, fmt, monkeypatch) -> pd.DataFrame:
    """The table the general reader (pyarrow's, else pandas') gives."""
    with monkeypatch.context() as patch:
        patch.setattr(csv_codes, "_csv_codes", None)
        return read_csv(path, fmt, categories=True)


def _plain(path, fmt, parts=None, first=None) -> pd.DataFrame | None:
    first = first or _first_record(path, fmt)
    names = make_unique_names(first) if fmt.has_header else \
        [f"Column {i}" for i in range(1, len(first) + 1)]
    return csv_codes.read_plain_codes(path, fmt.delimiter, fmt.quotechar, fmt.encoding,
                                      first, names, fmt.has_header, parts=parts)


def _many_values(rows: int, distinct: int) -> str:
    rng = np.random.default_rng(distinct)
    lines = [f"v{rng.integers(distinct)};{i % 3};é{i % 5}" for i in range(rows)]
    return "x;y;z\n" + "\n".join(lines) + "\n"


@needs_reader
@pytest.mark.parametrize("text", [
    "a;b\n1;2\n3;4\n",
    "a;b\r\n1;2\r\n3;4",  # CRLF; no line end after the last record
    "\ufeffa;b\n1;2\n1;2\n3;4\n",  # a byte order mark before the header
    "a;a;b\nä;€;\n 1 ; 2 ;\n;;\n",  # repeated names; non-ASCII; spaces kept; empty cells
    "k;v\n" + "".join(f"{i % 7};{'w' * (i % 40)}\n" for i in range(300)),  # long values
    _many_values(3000, 200),  # more than 127 values: int16 codes
])
@pytest.mark.parametrize("parts", [1, 3])
def test_a_plain_file_reads_as_the_general_reader_reads_it(tmp_path, monkeypatch, text,
                                                            parts):
    path = tmp_path / "data.csv"
    path.write_text(text, encoding="utf-8", newline="")
    fmt = sniff_csv(path) if text.startswith("x;") else CsvFormat(delimiter=";")
    frame = _plain(path, fmt, parts)
    assert frame is not None
    pd.testing.assert_frame_equal(frame, _general(path, fmt, monkeypatch))


@needs_reader
def test_more_values_than_int16_codes_hold(tmp_path, monkeypatch):
    path = tmp_path / "data.csv"
    values = np.random.default_rng(3).permutation(36_000) % 34_000  # 34,000 distinct
    path.write_text("x;y\n" + "".join(f"v{v};{v % 3}\n" for v in values), encoding="utf-8")
    fmt = sniff_csv(path)
    frame = _plain(path, fmt, parts=3)
    assert frame["x"].cat.codes.dtype == np.int32
    pd.testing.assert_frame_equal(frame, _general(path, fmt, monkeypatch))


@needs_reader
def test_a_line_longer_than_the_read_buffer(tmp_path, monkeypatch):
    path = tmp_path / "data.csv"
    path.write_text("a;b\n1;" + "x" * (5 << 20) + "\n2;y\n", encoding="utf-8")
    fmt = CsvFormat(delimiter=";")
    pd.testing.assert_frame_equal(_plain(path, fmt), _general(path, fmt, monkeypatch))


@needs_reader
def test_without_a_header(tmp_path, monkeypatch):
    path = tmp_path / "data.csv"
    path.write_text("1;2\n3;4\n1;4\n", encoding="utf-8")
    fmt = CsvFormat(delimiter=";", has_header=False)
    frame = _plain(path, fmt, parts=2)
    assert list(frame.columns) == ["Column 1", "Column 2"]
    pd.testing.assert_frame_equal(frame, _general(path, fmt, monkeypatch))


@needs_reader
@pytest.mark.parametrize("data", [
    b'a;b\n"1";2\n',  # the quote character
    b"a;b\n1;2\n\n3;4\n",  # a blank line
    b"a;b\n1;2\n3\n",  # a short record
    b"a;b\n1;2;3\n",  # a long record
    b"a;b\n1;2\x00\n",  # a NUL byte
    b"a;b\n1\r;2\n",  # a lone carriage return
    b"a;b\n1;\xff\n",  # not UTF-8
    b"a\n1\n2\n",  # one column (a line of spaces would be a record)
    b"a;b\n",  # no records
])
def test_what_is_not_plain_goes_to_the_general_reader(tmp_path, data):
    path = tmp_path / "data.csv"
    path.write_bytes(data)
    header = data.split(b"\n")[0].decode().split(";")
    assert _plain(path, CsvFormat(delimiter=";"), first=header) is None


@needs_reader
def test_a_bom_without_a_header_goes_to_the_general_reader(tmp_path):
    path = tmp_path / "data.csv"
    path.write_bytes(b"\xef\xbb\xbf1;2\n3;4\n")
    assert _plain(path, CsvFormat(delimiter=";", has_header=False)) is None


def test_ranges_start_at_line_starts(tmp_path):
    path = tmp_path / "data.csv"
    text = b"h\n" + b"".join(b"%d\n" % (10 ** (i % 6)) for i in range(200))
    path.write_bytes(text)
    for start, parts in ((2, 7), (0, 7), (0, 400)):
        ranges = csv_codes._ranges(path, start, len(text), parts)
        assert ranges[0][0] == start and ranges[-1][1] == len(text)
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:], strict=False))
        assert all(text[at - 1:at] == b"\n" for at, _ in ranges[1:])
    assert len(csv_codes._ranges(path, 2, len(text), 7)) == 7


# -- writing lines from codes ------------------------------------------------------------

def _table(rows: int) -> pd.DataFrame:
    rng = np.random.default_rng(rows)
    cells = np.array(["a", 'say "hi"', "x;y", " lead", "ä€", "", "=1+2", "tab\tin"], dtype=object)
    return pd.DataFrame({
        "text": cells[rng.integers(0, len(cells), rows)],
        "code": pd.Categorical(cells[rng.integers(0, 3, rows)]),
        "number": rng.integers(0, 50, rows).astype(float),
        "missing": np.where(rng.random(rows) < 0.3, None, "v"),
    })


@needs_reader
@pytest.mark.parametrize("delimiter", [";", "\t", ","])
@pytest.mark.parametrize("neutralize", [False, True])
def test_lines_from_codes_are_the_text_path_s_bytes(tmp_path, monkeypatch, delimiter,
                                                     neutralize):
    frame = _table(1000)
    monkeypatch.setattr(export_module, "FORMAT_CHUNK_ROWS", 97)  # several blocks
    compiled, text = tmp_path / "compiled.csv", tmp_path / "text.csv"
    export_table(frame, compiled, delimiter=delimiter, neutralize_formulas=neutralize)
    monkeypatch.setattr(export_module, "encoded_cells", lambda cells, encoding: None)
    export_table(frame, text, delimiter=delimiter, neutralize_formulas=neutralize)
    assert compiled.read_bytes() == text.read_bytes()
    assert compiled.read_bytes() == csv_text(
        [str(c) for c in frame.columns], [frame[c] for c in frame.columns], delimiter,
        neutralize).encode()


@needs_reader
def test_a_one_column_table_and_the_digest(tmp_path):
    frame = pd.DataFrame({"only": ["", "x", "", "y y "]})
    digest = hashlib.sha256()
    path = export_table(frame, tmp_path / "one.csv", delimiter=";", digest=digest)
    assert path.read_bytes() == b'only\n""\nx\n""\n"y y "\n'
    assert digest.hexdigest() == hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_unencodable_cell_is_named_as_before(tmp_path):
    frame = pd.DataFrame({"price": ["5", "5 €"], "n": ["1", "2"]})
    with pytest.raises(DataExportError, match=r"'€' \(in '5;1 5 €;2 '\)"):
        export_table(frame, tmp_path / "out.csv", delimiter=";", encoding="latin-1")


class _Handle:
    def __init__(self, fail_at: int) -> None:
        self.pieces: list[bytes] = []
        self.fail_at = fail_at

    def write(self, data: bytes) -> None:
        if len(self.pieces) == self.fail_at:
            raise OSError(28, "No space left on device")
        self.pieces.append(data)


def test_a_write_error_on_the_writer_thread_reaches_the_caller():
    handle = _Handle(fail_at=1)
    with pytest.raises(OSError, match="No space"):
        with export_module._BackgroundWrites(handle, None) as sink:
            for i in range(50):
                sink.write(b"%d" % i)
    assert handle.pieces == [b"0"]


def test_the_caller_s_error_stops_the_writer_thread():
    handle = _Handle(fail_at=-1)
    sink = export_module._BackgroundWrites(handle, hashlib.sha256())
    with pytest.raises(KeyError), sink:
        sink.write(b"a")
        raise KeyError("stop")
    assert not sink._thread.is_alive() and handle.pieces == [b"a"]


# -- the memory engine's shuffle and histogram -------------------------------------------

def test_rows_in_order_is_pandas_row_take():
    frame = pd.DataFrame({"a": pd.Categorical(["x", "y", "x", "z", None]),
                          "b": [1.5, 2, None, 4, 5],
                          "c": ["p", None, "q", "r", "s"],
                          "d": pd.array([1, None, 3, 4, 5], dtype="Int64")})
    frame.columns = ["a", "a", "c", "d"]  # names need not be unique
    order = np.array([3, 1, 4, 0, 2])
    pd.testing.assert_frame_equal(rows_in_order(frame, order),
                                  frame.iloc[order].reset_index(drop=True))


@pytest.mark.parametrize("columns", [3, 40])  # 40 columns: the key is renumbered
def test_the_histogram_does_not_depend_on_the_grouping_path(kernel_path, columns):
    rng = np.random.default_rng(columns)
    frame = pd.DataFrame({f"q{j}": pd.Categorical(rng.choice(["a", "b", "c", "dd"], 500))
                          for j in range(columns)})
    histogram = histogram_of_frame(frame, list(frame.columns))
    expected = frame.value_counts(sort=False).sort_index()
    assert histogram.counts.tolist() == expected.to_numpy().tolist()
    assert [tuple(row) for row in histogram.frame.to_numpy()] == list(expected.index)


def test_the_csv_extension_is_built_where_a_compiler_is():
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) here: arxpy reads and writes CSV in Python")
    assert csv_codes._csv_codes is not None, (
        "a C compiler is here but arxpy.data._csv_codes was not built: reinstall arxpy "
        "(pip install -e .) to build it")


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("categorical", [True, False])
def test_a_row_order_writes_the_reordered_table_s_bytes(tmp_path, monkeypatch, compiled,
                                                        categorical):
    frame = _table(700)
    if categorical:
        frame = frame.astype("category")
    if not compiled:
        monkeypatch.setattr(export_module, "encoded_cells", lambda cells, encoding: None)
    monkeypatch.setattr(export_module, "FORMAT_CHUNK_ROWS", 64)
    monkeypatch.setattr(export_module, "CSV_CHUNK_ROWS", 100)
    order = np.random.default_rng(5).permutation(len(frame))
    ordered, reordered = tmp_path / "ordered.csv", tmp_path / "reordered.csv"
    export_table(frame, ordered, delimiter=";", row_order=order)
    export_table(frame.iloc[order].reset_index(drop=True), reordered, delimiter=";")
    assert ordered.read_bytes() == reordered.read_bytes()


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig", "cp1252"])
def test_other_encodings_write_the_text_path_s_bytes(tmp_path, monkeypatch, encoding):
    frame = pd.DataFrame({"a": ["x", "é", "x"] * 40, "b": ["1", "2", "3"] * 40})
    monkeypatch.setattr(export_module, "FORMAT_CHUNK_ROWS", 16)
    monkeypatch.setattr(export_module, "CSV_CHUNK_ROWS", 16)
    written = export_table(frame, tmp_path / "a.csv", delimiter=";", encoding=encoding)
    monkeypatch.setattr(export_module, "encoded_cells", lambda cells, encoding: None)
    text = export_table(frame, tmp_path / "b.csv", delimiter=";", encoding=encoding)
    assert written.read_bytes() == text.read_bytes()
