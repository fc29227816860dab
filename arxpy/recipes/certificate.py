"""A signed certificate of a release, and its offline verification (issue 35).

The certificate is JSON: the input's and the output's SHA-256, each attribute and its
treatment, the method and its models, the one verdict's checks, the risk figures over
the declared quasi-identifiers, class figures, software versions, the date and the
recipe's SHA-256. An Ed25519 signature over its canonical bytes
(:func:`~arxpy.recipes.recipe.canonical_json`) is embedded beside it with the public
key's fingerprint. :func:`render_html` gives the reviewer's page, which embeds the same
signed JSON, and :mod:`arxpy.recipes.certificate_pdf` the PDF, which carries it as an
attached file: each of the three verifies. Both renderings read :func:`sections`, so the
page and the PDF state the same figures.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import html
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from arxpy.data.definition import AttributeType
from arxpy.errors import ConfigurationError
from arxpy.recipes.recipe import Recipe, canonical_json
from arxpy.recipes.signing import fingerprint, raw_public_bytes
from arxpy.release import Release

FORMAT = "arxpy-certificate"
FORMAT_VERSION = 1
SIGNATURE_ALGORITHM = "Ed25519"
#: Largest certificate file read (one is a few tens of KiB; a PDF about 60 KiB).
MAX_CERTIFICATE_BYTES = 16 << 20
_EMBEDDED = re.compile(
    r'<script type="application/json" id="arxpy-certificate">(.*?)</script>', re.S)


def file_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def build_certificate(release: Release, recipe: Recipe, *, output_file: Path,
                      input_file_sha256: str | None = None,
                      identifiers: Mapping[str, Any] | None = None,
                      issued: datetime.datetime | None = None,
                      original: pd.DataFrame | None = None) -> dict[str, Any]:
    """The certificate's content (unsigned) for ``release`` written to ``output_file``;
    with ``original`` (the table the release was made of) its utility figures too."""
    verdict = release.verify()
    issued = issued or datetime.datetime.now(datetime.UTC)
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "issued": issued.isoformat(timespec="seconds"),
        "recipe_sha256": recipe.sha256,
        "input": {"file_sha256": input_file_sha256, "table_sha256": release.input_sha256,
                  "records": release.records},
        "output": {"file": output_file.name, "file_sha256": file_sha256(output_file),
                   "table_sha256": release.output_sha256,
                   "released_records": release.records - release.suppressed_records},
        "attributes": attribute_treatments(release, recipe, identifiers),
        "method": {"name": release.method, "parameters": dict(recipe.parameters),
                   "replay": recipe.mode},
        "transformation": None if release.transformation is None
        else {k: int(v) for k, v in release.transformation.items()},
        "verdict": {"anonymous": verdict.anonymous, "status": verdict.status,
                    "headline": verdict.headline,
                    "claims": [c.to_dict() for c in verdict.checks]},
        "risk": verdict.attacker.to_dict(),
        "classes": release.statistics.to_dict(),
        "utility": None if original is None else utility(original, release),
        "identifiers": None if identifiers is None else dict(identifiers),
        "versions": dict(release.versions),
        # only with a preset, so certificates without one keep their content
        **({} if recipe.preset is None else {"preset": dict(recipe.preset)}),
    }


def utility(original: pd.DataFrame, release: Release) -> dict[str, Any]:
    """Compare's information-loss figures of ``release`` (a number, or why not)."""
    from arxpy.analysis.release_utility import utility_figures

    figures = utility_figures(original, release)
    return {name: value if isinstance(value, str) else float(value)
            for name, value in figures.items()}


def attribute_treatments(release: Release, recipe: Recipe,
                         identifiers: Mapping[str, Any] | None) -> list[dict[str, str]]:
    """Each attribute of the recipe with its role and what the release did to it."""
    treated = {t["attribute"]: t for t in (identifiers or {}).get("treatments", ())}
    levels = release.transformation or {}
    ruled = {r["attribute"]: r["rule"] for r in (recipe.preset or {}).get("rules", ())
             if r.get("attribute")}
    out = []
    for attribute in recipe.definition():
        name, role = attribute.name, attribute.type
        if name in ruled:
            treatment = f"{ruled[name]} (policy preset)"
        elif name in treated:
            treatment = treated[name]["treatment"]
        elif role is AttributeType.IDENTIFYING:
            treatment = "remove"
        elif name in levels:
            level, digest = int(levels[name]), recipe.hierarchies[name]["sha256"]
            treatment = f"generalized to level {level} of its hierarchy (SHA-256 {digest})" \
                if level else f"kept at level 0 of its hierarchy (SHA-256 {digest})"
        elif role is AttributeType.QUASI_IDENTIFYING:
            treatment = f"transformed by {release.method}"
        else:
            treatment = "released as is"
        out.append({"attribute": name, "role": role.value, "treatment": treatment})
    return out


def sign(certificate: Mapping[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """The signed document: the certificate and a detached signature over its
    canonical bytes, with the public key's fingerprint."""
    public = key.public_key()
    signature = key.sign(canonical_json(dict(certificate)))
    return {"certificate": dict(certificate),
            "signature": {"algorithm": SIGNATURE_ALGORITHM,
                          "public_key_fingerprint": fingerprint(public),
                          "public_key": base64.b64encode(raw_public_bytes(public)).decode(),
                          "value": base64.b64encode(signature).decode()}}


def read_signed(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The signed document in a certificate file: its JSON, the HTML page embedding it
    or the PDF carrying it as an attached file."""
    try:
        with open(path, "rb") as handle:
            content = handle.read(MAX_CERTIFICATE_BYTES + 1)
    except OSError as exc:
        raise ConfigurationError(
            f"Cannot read the certificate '{path}': {exc.strerror or exc}.") from None
    if len(content) > MAX_CERTIFICATE_BYTES:
        raise ConfigurationError(f"'{path}' is too large to be an arxpy certificate.")
    if content.startswith(b"%PDF"):
        from arxpy.recipes.certificate_pdf import attached_statement

        text = attached_statement(content)
    else:
        text = content.decode("utf-8", errors="replace")
        embedded = _EMBEDDED.search(text)
        text = embedded.group(1) if embedded else text
    try:
        document = json.loads(text) if text is not None else None
    except ValueError:
        document = None
    if not (isinstance(document, dict) and isinstance(document.get("certificate"), dict)
            and isinstance(document.get("signature"), dict)):
        raise ConfigurationError(
            f"'{path}' is not an arxpy certificate; give the file --certificate wrote.")
    return document


def verify(document: Mapping[str, Any], public_key: Ed25519PublicKey,
           release_file: str | os.PathLike[str] | None = None) -> list[str]:
    """Why ``document`` is not a valid certificate of ``release_file`` signed by
    ``public_key``: one sentence per difference (empty: valid)."""
    certificate, signature = document["certificate"], document["signature"]
    problems = []
    if signature.get("public_key_fingerprint") != fingerprint(public_key):
        problems.append(
            f"public key differs: the certificate was signed by key "
            f"{signature.get('public_key_fingerprint')}, the key given is "
            f"{fingerprint(public_key)}.")
    try:
        public_key.verify(base64.b64decode(str(signature.get("value", "")), validate=True),
                          canonical_json(certificate))
    except (InvalidSignature, ValueError):
        problems.append("signature differs: it does not match the certificate's content "
                        "under the key given (the certificate was changed after signing, "
                        "or signed with another key).")
    if release_file is not None:
        stated = (certificate.get("output") or {}).get("file_sha256")
        actual = file_sha256(release_file)
        if actual != stated:
            problems.append(f"output hash differs: the release file's SHA-256 is "
                            f"{actual}, the certificate states {stated}.")
    return problems


def write_signed(document: Mapping[str, Any], path: str | os.PathLike[str]) -> list[Path]:
    """The signed certificate in the form ``path``'s extension names (see
    :func:`certificate_files`); the files written."""
    from arxpy.data.atomic import atomic_write

    written = certificate_files(path)
    for target in written:
        suffix = target.suffix.lower()
        if suffix == ".pdf":
            from arxpy.recipes.certificate_pdf import render_pdf

            content = render_pdf(document)
            with atomic_write(target, "wb") as handle:
                handle.write(content)
            continue
        with atomic_write(target) as handle:
            if suffix == ".html":
                handle.write(render_html(document))
            else:
                json.dump(document, handle, indent=2, allow_nan=False, ensure_ascii=False)
                handle.write("\n")
    return written


def certificate_files(path: str | os.PathLike[str]) -> list[Path]:
    """The files ``--certificate path`` writes: ``CERT.pdf`` a PDF, ``CERT.html`` a page
    (each carrying the signed JSON); any other name the JSON and its page
    ``CERT.html`` beside it."""
    target = Path(path)
    if target.suffix.lower() in (".pdf", ".html"):
        return [target]
    return [target, target.with_suffix(".html")]


#: What the risk section of a certificate shows, in this order.
RISK_FIGURES = ("quasi_identifiers", "classes", "smallest_class", "highest_prosecutor_risk",
                "average_prosecutor_risk", "not_applicable")


def summary_rows(document: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The certificate's headline figures: date, hashes, records, method, verdict, key."""
    c, s = document["certificate"], document["signature"]
    return [("Issued", c["issued"]), ("Recipe SHA-256", c["recipe_sha256"]),
            ("Input SHA-256 (file)", c["input"]["file_sha256"] or "n/a"),
            ("Input SHA-256 (table)", c["input"]["table_sha256"]),
            ("Input records", c["input"]["records"]),
            ("Output file", c["output"]["file"]),
            ("Output SHA-256 (file)", c["output"]["file_sha256"]),
            ("Released records", c["output"]["released_records"]),
            ("Method", c["method"]["name"]), ("Replay", c["method"]["replay"]),
            ("Verdict", c["verdict"]["headline"]),
            ("Signed by key", f"{s['algorithm']} {s['public_key_fingerprint']}")]


def sections(document: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...], list[tuple]]]:
    """The certificate's tables after the summary, as (heading, columns, rows): what the
    HTML page and the PDF both show."""
    c = document["certificate"]
    risk, utility_figures = c["risk"], c.get("utility")
    transformation = c.get("transformation") or {}
    return [
        *_preset_section(c.get("preset")),
        ("Attributes and their treatment", ("Attribute", "Role", "Treatment"),
         [(a["attribute"], a["role"], a["treatment"]) for a in c["attributes"]]),
        ("Privacy claims (checked independently)", ("Claim", "Holds", "Finding"),
         [(x["claim"], "yes" if x["holds"] else "NO", x["finding"])
          for x in c["verdict"]["claims"]]),
        ("Risk over the declared quasi-identifiers", ("Figure", "Value"),
         [(k.replace("_", " "), risk.get(k)) for k in RISK_FIGURES]),
        ("Classes", ("Figure", "Value"),
         [(k.replace("_", " "), v) for k, v in c["classes"].items()]),
        ("Utility (information loss against the input)", ("Figure", "Value"),
         list(utility_figures.items()) if utility_figures
         else [("utility", "not computed for this certificate")]),
        ("Transformation", ("Attribute", "Level"),
         list(transformation.items()) or [("(none)", "not a lattice release")]),
        ("Software", ("Component", "Version"), list(c["versions"].items())),
    ]


def _preset_section(preset: Mapping[str, Any] | None) -> list[tuple[str, tuple, list]]:
    """The policy preset's rules, each with where it applies and why (none: no section)."""
    if not preset:
        return []
    return [(f"Policy preset: {preset['label']}", ("Attribute", "Rule", "Category", "Reason"),
             [(r.get("attribute") or "(release)", r["rule"], r["category"], r["reason"])
              for r in preset["rules"]])]


def shown(value: Any) -> str:
    """A figure as a reader sees it: lists joined, fractions to four significant digits."""
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


#: The command a reader runs to check a certificate (both renderings end with it).
VERIFY_HINT = ("Verify offline: arxpy verify-certificate THIS_FILE --release OUTPUT "
               "--public-key KEYFILE.pub")


def render_html(document: Mapping[str, Any]) -> str:
    """The reviewer's page: every figure as escaped text, and the signed JSON embedded
    (``</`` written as ``<\\/``, so no value can close the script element)."""
    embedded = json.dumps(document, ensure_ascii=False, allow_nan=False).replace("</", "<\\/")
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        "<title>arxpy release certificate</title></head><body>",
        "<h1>Release certificate</h1>", _table(("Figure", "Value"), summary_rows(document))]
    for heading, columns, rows in sections(document):
        parts += [f"<h2>{html.escape(heading)}</h2>", _table(columns, rows)]
    parts += [f"<p>{html.escape(VERIFY_HINT)}</p>",
              f'<script type="application/json" id="arxpy-certificate">{embedded}</script>',
              "</body></html>", ""]
    return "\n".join(parts)


def _table(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> str:
    def cell(tag: str, value: Any) -> str:
        return f"<{tag}>{html.escape(shown(value))}</{tag}>"

    head = "".join(cell("th", h) for h in header)
    body = "".join("<tr>" + "".join(cell("td", v) for v in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"
