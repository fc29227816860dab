"""A second opinion on a CSV delimiter a user chose (no Qt).

Reading a ';' file with ',' gives one column whose header is the whole first line:
nothing fails, and the table looks like one long text per record (the import wizard used
to take such cells for sets of codes). :func:`likely_delimiter` notices the other
delimiter in that header so the wizard can name it before anything is imported.
"""

from __future__ import annotations

from collections.abc import Sequence

from arxpy.data.csv_io import DELIMITER_NAMES

#: Share of the sample lines that must split like the header for a delimiter to count.
AGREEMENT = 0.8


def likely_delimiter(header: str, lines: Sequence[str], chosen: str) -> str | None:
    """The delimiter the data probably use when ``chosen`` leaves a single column: another
    of :data:`DELIMITER_NAMES` that occurs in ``header`` and splits most of ``lines`` (the
    first cells read) into as many fields as the header. None when ``chosen`` looks right
    or no other delimiter fits."""
    best, best_fields = None, 1
    for candidate in DELIMITER_NAMES:
        if candidate == chosen:
            continue
        fields = header.count(candidate) + 1
        if fields < 2:
            continue
        shown = [line for line in lines if line]
        agreeing = sum(line.count(candidate) + 1 == fields for line in shown)
        if shown and agreeing < AGREEMENT * len(shown):
            continue
        if fields > best_fields:
            best, best_fields = candidate, fields
    return best


def delimiter_warning(header: str, lines: Sequence[str], chosen: str) -> str:
    """A sentence questioning ``chosen`` (see :func:`likely_delimiter`), "" if none."""
    likely = likely_delimiter(header, lines, chosen)
    if likely is None:
        return ""
    name = DELIMITER_NAMES.get(chosen, repr(chosen))
    other = DELIMITER_NAMES[likely]
    count = header.count(likely)
    return (f"Only one column with the delimiter {name} ({chosen!r}), yet the first line "
            f"holds {count} {other}{'s' if count != 1 else ''}: the delimiter is probably "
            f"{other} ({likely!r}). Choose it above, or go on if the file really has one "
            "column.")
