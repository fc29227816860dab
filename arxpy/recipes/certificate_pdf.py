"""The PDF form of a signed certificate (issue 35): fpdf2 renders it, pypdf reads it.

The pages state what the HTML page states (:func:`~arxpy.recipes.certificate.summary_rows`
and :func:`~arxpy.recipes.certificate.sections`), set in DejaVu, the Unicode TrueType
family matplotlib ships, so any attribute name prints. The signed JSON travels inside
as an attached file (:data:`ATTACHMENT`), which is what ``verify-certificate`` checks;
the hashes the first page shows are compared with the signed ones as well, so a page
edited to show another output hash fails too.
"""

from __future__ import annotations

import datetime
import importlib.util
import io
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fpdf import FPDF
from fpdf.fonts import FontFace
from pypdf import PdfReader

from arxpy.errors import ConfigurationError
from arxpy.recipes.certificate import VERIFY_HINT, sections, shown, summary_rows

#: The attached file holding the signed certificate.
ATTACHMENT = "arxpy-certificate.json"
#: Summary rows whose values are hashes: set in a monospaced font, and compared with
#: the page's text on verification.
HASH_FIGURES = ("Recipe SHA-256", "Input SHA-256 (file)", "Input SHA-256 (table)",
                "Output SHA-256 (file)")
FAMILY, MONO = "DejaVu", "DejaVuMono"
_FONT_FILES = {(FAMILY, ""): "DejaVuSans.ttf", (FAMILY, "B"): "DejaVuSans-Bold.ttf",
               (MONO, ""): "DejaVuSansMono.ttf"}
#: Column widths (mm) of the tables by their number of columns, on A4 with 15 mm margins.
_WIDTHS = {2: (55, 125), 3: (42, 30, 108), 4: (28, 42, 40, 70)}
_CLAIM_WIDTHS = (62, 14, 104)
_GREEN, _RED, _HEAD = (225, 242, 228), (250, 225, 225), (232, 236, 242)


def _font_folder() -> Path:
    """matplotlib's bundled TrueType fonts (a dependency of arxpy; found without
    importing it)."""
    spec = importlib.util.find_spec("matplotlib")
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        fonts = Path(folder) / "mpl-data" / "fonts" / "ttf"
        if (fonts / _FONT_FILES[(FAMILY, "")]).is_file():
            return fonts
    raise ConfigurationError("The DejaVu fonts matplotlib ships were not found; "
                             "reinstall matplotlib to write a PDF certificate.")


class _CertificatePdf(FPDF):
    """Pages with a footer naming the page among all."""

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font(FAMILY, size=7.5)
        self.set_text_color(110)
        self.cell(0, 5, f"arxpy release certificate · page {self.page_no()} of {{nb}}",
                  align="C")
        self.set_text_color(0)


def render_pdf(document: Mapping[str, Any]) -> bytes:
    """The certificate's PDF: summary, tables and the signed JSON attached."""
    certificate = document["certificate"]
    pdf = _CertificatePdf(format="A4")
    fonts = _font_folder()
    for (family, style), name in _FONT_FILES.items():
        pdf.add_font(family, style, str(fonts / name))
    issued = _issued(certificate)
    pdf.set_creation_date(issued)  # the same document renders to the same bytes
    pdf.set_title("arxpy release certificate")
    pdf.set_subject(f"Output SHA-256 {certificate['output']['file_sha256']}")
    pdf.set_creator(f"arxpy {certificate['versions'].get('arxpy', '')}".strip())
    pdf.set_margins(15, 15, 15)
    pdf.set_auto_page_break(True, margin=18)
    pdf.add_page()
    _title(pdf, document)
    _summary(pdf, document)
    for heading, columns, rows in sections(document):
        _section(pdf, heading, columns, rows)
    pdf.ln(4)
    pdf.set_font(FAMILY, size=8.5)
    pdf.multi_cell(0, 4.5, VERIFY_HINT + f". The signed statement is attached as {ATTACHMENT}.",
                   align="L")
    pdf.embed_file(bytes=json.dumps(document, indent=2, ensure_ascii=False).encode("utf-8"),
                   basename=ATTACHMENT, mime_type="application/json",
                   modification_date=issued,
                   desc="The signed certificate: arxpy verify-certificate checks it")
    return bytes(pdf.output())


def _issued(certificate: Mapping[str, Any]) -> datetime.datetime:
    try:
        issued = datetime.datetime.fromisoformat(str(certificate["issued"]))
    except ValueError:
        return datetime.datetime.now(datetime.UTC)
    return issued if issued.tzinfo else issued.replace(tzinfo=datetime.UTC)


def _title(pdf: Any, document: Mapping[str, Any]) -> None:
    certificate, signature = document["certificate"], document["signature"]
    pdf.set_font(FAMILY, "B", 18)
    pdf.cell(0, 10, "Release certificate", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(FAMILY, size=9)
    pdf.set_text_color(80)
    pdf.multi_cell(0, 5, f"Issued {certificate['issued']} by arxpy, signed with "
                   f"{signature['algorithm']} key {signature['public_key_fingerprint']}.",
                   new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0)
    pdf.ln(2)
    verdict = certificate["verdict"]
    pdf.set_fill_color(*(_GREEN if verdict.get("anonymous") else _RED))
    pdf.set_font(FAMILY, "B", 10.5)
    pdf.multi_cell(0, 6, shown(verdict["headline"]), border=1, fill=True, padding=2,
                   new_x="LMARGIN", new_y="NEXT")
    pdf.set_fill_color(255)
    pdf.ln(3)


def _summary(pdf: Any, document: Mapping[str, Any]) -> None:
    mono = FontFace(family=MONO, size_pt=8)
    pdf.set_font(FAMILY, size=9)
    with pdf.table(col_widths=_WIDTHS[2], first_row_as_headings=False, line_height=5,
                   padding=1.2, text_align="LEFT") as table:
        for figure, value in summary_rows(document):
            row = table.row()
            row.cell(figure, style=FontFace(emphasis="BOLD"))
            row.cell(shown(value), style=mono if figure in HASH_FIGURES else None)


def _section(pdf: Any, heading: str, columns: tuple[str, ...],
             rows: list[tuple[Any, ...]]) -> None:
    pdf.ln(3)
    if pdf.will_page_break(20):  # a heading never ends a page alone
        pdf.add_page()
    pdf.set_font(FAMILY, "B", 12)
    pdf.cell(0, 8, heading, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(FAMILY, size=8.5)
    widths = _CLAIM_WIDTHS if columns[:2] == ("Claim", "Holds") else _WIDTHS[len(columns)]
    heads = FontFace(emphasis="BOLD", fill_color=_HEAD)
    with pdf.table(col_widths=widths, headings_style=heads, line_height=4.6,
                   padding=1.2, text_align="LEFT") as table:
        table.row([str(c) for c in columns])
        for values in rows:
            row = table.row()
            for value in values:
                fill = _RED if value == "NO" else None
                row.cell(shown(value), style=FontFace(fill_color=fill) if fill else None)


def attached_statement(content: bytes) -> str | None:
    """The signed JSON attached to a certificate PDF (None: none attached, or not a
    PDF pypdf can read)."""
    try:
        attached = PdfReader(io.BytesIO(content)).attachments.get(ATTACHMENT) or []
    except Exception:  # noqa: BLE001 - any malformed file is "not a certificate"
        return None
    return attached[0].decode("utf-8", errors="replace") if attached else None


def page_problems(content: bytes, document: Mapping[str, Any]) -> list[str]:
    """Hashes the signed statement holds that the PDF's pages do not show (an edited
    page), one sentence each."""
    try:
        text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages)
    except Exception:  # noqa: BLE001 - an unreadable page shows nothing
        text = ""
    text = re.sub(r"\s+", "", text)
    return [f"page differs: the PDF's pages do not show the signed {figure} {value}."
            for figure, value in summary_rows(document)
            if figure in HASH_FIGURES and isinstance(value, str) and len(value) == 64
            and value not in text]
