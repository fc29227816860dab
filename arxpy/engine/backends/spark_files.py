"""Files for the Spark engine: CSV options matching arxpy's reader and writer, and one
output file from the part files Spark writes (in partition order, i.e. input order)."""

from __future__ import annotations

import codecs
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from arxpy.data.csv_io import CsvFormat

#: Python codec names -> Java charset names Spark understands.
JAVA_CHARSETS = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8", "cp1252": "windows-1252",
                 "iso8859-1": "ISO-8859-1", "latin-1": "ISO-8859-1", "utf-16": "UTF-16"}


def csv_read_options(fmt: CsvFormat, corrupt_column: str) -> dict[str, str]:
    """Spark's CSV reader set up to read what arxpy's reader reads; a record with the
    wrong number of fields lands, as text, in ``corrupt_column``."""
    charset = codecs.lookup(fmt.encoding).name
    return {
        "header": str(fmt.has_header).lower(),  # the names come from arxpy's reader
        "enforceSchema": "true",
        "sep": fmt.delimiter,
        "quote": fmt.quotechar,
        "escape": fmt.quotechar,  # a doubled quote is a quote, as in RFC 4180
        "multiLine": "true",  # quoted cells may hold line breaks
        "mode": "PERMISSIVE",
        "columnNameOfCorruptRecord": corrupt_column,
        "encoding": JAVA_CHARSETS.get(charset, charset),
        "ignoreLeadingWhiteSpace": "false",
        "ignoreTrailingWhiteSpace": "false",
    }


def csv_write_options(delimiter: str) -> dict[str, str]:
    """Spark's CSV writer: RFC 4180 quoting, nothing trimmed, no header."""
    return {
        "header": "false",  # written once by join_csv_parts
        "sep": delimiter,
        "quote": '"',
        "escape": '"',
        # Every cell quoted: no reader (nor arxpy's sniffer) can take a ' or a
        # leading space in a label for syntax.
        "quoteAll": "true",
        "ignoreLeadingWhiteSpace": "false",
        "ignoreTrailingWhiteSpace": "false",
        "lineSep": "\n",
        "encoding": "UTF-8",
    }


def _part_files(folder: Path, suffix: str) -> list[Path]:
    # part-00000-..., part-00001-...: name order is partition order, i.e. input order.
    return sorted(p for p in folder.glob(f"part-*{suffix}") if p.is_file())


def join_csv_parts(folder: Path, target: Path, columns: Sequence[str],
                   delimiter: str) -> None:
    """One CSV file: the header, then the part files' bytes in partition order."""
    header = delimiter.join('"' + c.replace('"', '""') + '"' for c in columns) + "\n"
    with open(target, "xb") as out:
        out.write(header.encode("utf-8"))
        for part in _part_files(folder, ".csv"):
            with open(part, "rb") as handle:
                shutil.copyfileobj(handle, out, 1 << 20)
        out.flush()
        os.fsync(out.fileno())


def join_parquet_parts(folder: Path, target: Path, columns: Sequence[str]) -> None:
    """One Parquet file from the part files, row group by row group (bounded memory)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(c, pa.string()) for c in columns])
    with pq.ParquetWriter(target, schema) as writer:
        for part in _part_files(folder, ".parquet"):
            file = pq.ParquetFile(part)
            for group in range(file.num_row_groups):
                writer.write_table(file.read_row_group(group).cast(schema))
