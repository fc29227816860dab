"""Tabular data: import (CSV, Excel, SQLite), export, attribute definitions, data types."""

from arxpy.data.atomic import atomic_write
from arxpy.data.csv_io import (
    CANDIDATE_DELIMITERS,
    CANDIDATE_QUOTES,
    CsvFormat,
    make_unique_names,
    preview_csv,
    read_csv,
    sniff_csv,
)
from arxpy.data.definition import (
    AttributeDefinition,
    AttributeType,
    DataDefinition,
    DataKind,
    DataType,
)
from arxpy.data.excel_io import list_sheets, read_excel
from arxpy.data.export import export_table
from arxpy.data.sql_io import list_tables, read_sqlite
from arxpy.data.types import (
    DATE_FORMATS,
    MISSING_VALUES,
    format_value,
    infer_data_type,
    is_missing,
    ordinal_type,
    parse_values,
    validate_values,
)

__all__ = [
    "CANDIDATE_DELIMITERS",
    "CANDIDATE_QUOTES",
    "DATE_FORMATS",
    "MISSING_VALUES",
    "AttributeDefinition",
    "AttributeType",
    "CsvFormat",
    "DataDefinition",
    "DataKind",
    "DataType",
    "atomic_write",
    "export_table",
    "format_value",
    "infer_data_type",
    "is_missing",
    "list_sheets",
    "list_tables",
    "make_unique_names",
    "ordinal_type",
    "parse_values",
    "preview_csv",
    "read_csv",
    "read_excel",
    "read_sqlite",
    "sniff_csv",
    "validate_values",
]
