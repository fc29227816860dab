"""Recipes, replay and signed certificates (issue 35), end to end through the CLI.

Two extracts of the example's generator (seeds 1 and 2) share hierarchies built over
both; a recipe from the first replays on the second at the same transformation, its
k-anonymity audited by tests/audit.py, its certificate signed and verified. What breaks
a recipe (an unseen value, a missing or new column, another hierarchy, the suppression
limit) is refused with the reason, and a tampered release or certificate is named.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import audit
import pandas as pd
import pytest
from cli_checks import one_error_line

from arxpy.cli import main
from arxpy.example import example_hierarchies, generate_example, write_example
from arxpy.hierarchy.io import write_hierarchy

RECORDS = 400
K = 3


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep=None, engine="python", dtype=str, keep_default_na=False)


@pytest.fixture(scope="module")
def extracts(tmp_path_factory):
    """Two extracts (CSV) and hierarchies over both, one file per quasi-identifier."""
    folder = tmp_path_factory.mktemp("extracts")
    first, second = generate_example(RECORDS, seed=1), generate_example(RECORDS, seed=2)
    hierarchies = example_hierarchies(pd.concat([first, second], ignore_index=True))
    (folder / "h").mkdir()
    for name, hierarchy in hierarchies.items():
        write_hierarchy(hierarchy, folder / "h" / f"{name}.csv")
    first.to_csv(folder / "first.csv", index=False)
    second.to_csv(folder / "second.csv", index=False)
    return folder, first, second, list(hierarchies)


@pytest.fixture(scope="module")
def signing_key(tmp_path_factory):
    path = tmp_path_factory.mktemp("keys") / "custodian.key"
    assert main(["keygen", "--signing", str(path)]) == 0
    return path


def _hierarchy_args(folder: Path, names: list[str]) -> list[str]:
    return [arg for n in names for arg in ("--hierarchy", f"{n}={folder / 'h' / n}.csv")]


@pytest.fixture(scope="module")
def recipe(extracts, signing_key):
    """The first extract anonymized with a recipe and a certificate."""
    folder, _, _, names = extracts
    assert main(["anonymize", "--data", str(folder / "first.csv"),
                 *_hierarchy_args(folder, names), "--k", str(K), "--suppression", "0.1",
                 "--output", str(folder / "out1.csv"), "--report", str(folder / "r1.json"),
                 "--recipe-out", str(folder / "recipe.json"),
                 "--certificate", str(folder / "cert1.json"),
                 "--signing-key", str(signing_key)]) == 0
    return folder / "recipe.json"


def _replay(recipe: Path, data: Path, out: Path, *extra: str) -> int:
    return main(["replay", str(recipe), "--data", str(data), "--hierarchies",
                 str(recipe.parent / "h"), "--output", str(out), *extra])


@pytest.fixture(scope="module")
def replayed(extracts, recipe, signing_key):
    """The second extract replayed with a report and a PDF certificate:
    (release, report, certificate)."""
    folder = extracts[0]
    out, report, certificate = folder / "out2.csv", folder / "r2.json", folder / "cert2.pdf"
    assert _replay(recipe, folder / "second.csv", out, "--report", str(report),
                   "--certificate", str(certificate), "--signing-key", str(signing_key)) == 0
    return out, report, certificate


def test_a_recipe_replays_on_another_extract_with_the_same_transformation_and_a_signed_certificate(
        extracts, replayed, signing_key, capsys):
    folder, _, second, names = extracts
    out, report, certificate = replayed
    first_report, replayed_report = json.loads((folder / "r1.json").read_text()), \
        json.loads(report.read_text())
    assert replayed_report["transformation"] == first_report["release"]["transformation"]
    assert replayed_report["verification"]["anonymous"] is True
    from arxpy.recipes.certificate import read_signed

    assert replayed_report["recipe_sha256"] == first_report["recipe_sha256"] == \
        read_signed(certificate)["certificate"]["recipe_sha256"]
    released = _read(out)
    kept = released[~(released[names] == "*").all(axis=1)]  # suppressed rows left out
    assert len(kept) >= 0.9 * len(second)
    assert len(released) == len(second)
    assert audit.k_anonymity(kept, names) >= K  # the independent checker, not the verdict
    public = f"{Path(str(signing_key))}.pub"
    for name, release in (("cert1.json", "out1.csv"), ("cert1.html", "out1.csv")):
        assert main(["verify-certificate", str(folder / name), "--release",
                     str(folder / release), "--public-key", public]) == 0
    assert main(["verify-certificate", str(certificate), "--release", str(out),
                 "--public-key", public]) == 0
    assert "Valid: signed by key" in capsys.readouterr().out


def test_the_recipe_holds_no_data_value_of_the_input(tmp_path):
    """Every distinct value (longer than 2 characters) of every column, as a whole word,
    is absent from the recipe: hierarchies and the ordinal order are hashes."""
    write_example(tmp_path, records=RECORDS, seed=3)
    recipe = tmp_path / "recipe.json"
    assert main(["anonymize", "--project", str(tmp_path / "discharge.arxpy"),
                 "--recipe-out", str(recipe), "--recipe-replay", "search"]) == 0
    text = recipe.read_text(encoding="utf-8")
    data = _read(tmp_path / "discharge.csv")
    values = {v for column in data for v in data[column].unique() if len(v) > 2}
    found = [v for v in values
             if re.search(rf"(?<![\w.-]){re.escape(v)}(?![\w.-])", text)]
    assert not found
    assert '"order_sha256"' in text and '"sha256"' in text  # decided, yet data-free
    assert json.loads(text)["decision"] == {"mode": "search"}


def test_an_extract_that_breaks_the_recipe_is_refused_with_every_reason(
        extracts, recipe, capsys):
    folder, first, _, _ = extracts
    broken = first.drop(columns=["Charge"]).assign(Name="x")
    broken.loc[0, "County"] = "Atlantis"
    broken.to_csv(folder / "broken.csv", index=False)
    out, report = folder / "broken-out.csv", folder / "broken.json"
    assert _replay(recipe, folder / "broken.csv", out, "--report", str(report)) == 2
    err = capsys.readouterr().err
    assert "Missing column(s) the recipe needs: 'Charge'" in err
    assert "New column(s) the recipe does not know: 'Name'" in err
    assert not out.exists()
    assert json.loads(report.read_text())["replay"]["refused"] is True
    broken = first.copy()
    broken.loc[0, "County"] = "Atlantis"
    broken.to_csv(folder / "unseen.csv", index=False)
    assert _replay(recipe, folder / "unseen.csv", out) == 2
    assert "'County' has 1 value its hierarchy does not cover: 'Atlantis'" in \
        capsys.readouterr().err


def test_replay_refuses_another_hierarchy_and_a_suppression_limit_exceeded(
        extracts, recipe, capsys, tmp_path):
    folder, first, _, _ = extracts
    (tmp_path / "Sex.csv").write_text("F;*\nM;*\nU;*\nX;*\n", encoding="utf-8")
    assert _replay(recipe, folder / "first.csv", tmp_path / "o.csv", "--hierarchy",
                   f"Sex={tmp_path / 'Sex.csv'}") == 2
    assert "The hierarchy given for 'Sex' is not the recipe's" in capsys.readouterr().err
    # A few records from the same places: the recipe's transformation leaves most of
    # their classes below k, beyond its suppression limit.
    first.head(12).to_csv(tmp_path / "few.csv", index=False)
    assert _replay(recipe, tmp_path / "few.csv", tmp_path / "o.csv") == 2
    err = capsys.readouterr().err
    assert "At the recipe's transformation a claim no longer holds" in err
    assert "suppressed" in err
    assert not (tmp_path / "o.csv").exists()


def test_a_tampered_release_or_certificate_fails_naming_what_differs(
        extracts, recipe, signing_key, capsys, tmp_path):
    folder = extracts[0]
    public = f"{signing_key}.pub"
    release = tmp_path / "out1.csv"
    release.write_bytes((folder / "out1.csv").read_bytes() + b"\n")
    assert main(["verify-certificate", str(folder / "cert1.json"), "--release",
                 str(release), "--public-key", public]) == 1
    assert "output hash differs" in capsys.readouterr().err
    document = json.loads((folder / "cert1.json").read_text())
    document["certificate"]["output"]["released_records"] += 1
    (tmp_path / "cert.json").write_text(json.dumps(document))
    assert main(["verify-certificate", str(tmp_path / "cert.json"), "--release",
                 str(folder / "out1.csv"), "--public-key", public]) == 1
    err = capsys.readouterr().err
    assert "signature differs" in err and "output hash" not in err
    other = tmp_path / "other.key"
    assert main(["keygen", "--signing", str(other)]) == 0
    assert main(["verify-certificate", str(folder / "cert1.json"), "--release",
                 str(folder / "out1.csv"), "--public-key", f"{other}.pub"]) == 1
    assert "public key differs" in capsys.readouterr().err


def test_keygen_signing_writes_a_private_key_and_its_public_half_never_overwriting(
        tmp_path, capsys):
    path = tmp_path / "sign.key"
    assert main(["keygen", "--signing", str(path)]) == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (tmp_path / "sign.key.pub").read_text().startswith("-----BEGIN PUBLIC KEY")
    before = path.read_bytes()
    assert main(["keygen", "--signing", str(path)]) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert path.read_bytes() == before
    with pytest.raises(SystemExit) as exited:  # one key at a time
        main(["keygen", "--signing", str(path), "--pseudonym", str(tmp_path / "p")])
    assert exited.value.code == 2


def test_a_method_recipe_runs_again_with_the_seed_drawn_for_it(extracts, tmp_path):
    """A method without a transformation is run again with its parameters and the seed
    its run drew, so the same extract gives the same file."""
    data = extracts[0] / "first.csv"
    first, again = tmp_path / "m1.json", tmp_path / "m2.json"
    assert main(["run", "mdav", "--data", str(data), "--quasi-identifying", "Age",
                 "--k", "4", "--output", str(tmp_path / "m1.csv"), "--report", str(first),
                 "--recipe-out", str(tmp_path / "r.json")]) == 0
    recipe = json.loads((tmp_path / "r.json").read_text())
    assert recipe["decision"] == {"mode": "run", "seed": json.loads(first.read_text())["seed"]}
    assert main(["replay", str(tmp_path / "r.json"), "--data", str(data), "--output",
                 str(tmp_path / "m2.csv"), "--report", str(again)]) == 0
    assert (tmp_path / "m1.csv").read_bytes() == (tmp_path / "m2.csv").read_bytes()


def test_replay_and_the_certificate_never_overwrite_their_inputs(extracts, recipe, capsys):
    folder = extracts[0]
    assert _replay(recipe, folder / "first.csv", folder / "first.csv") == 2
    assert "is the same file as" in capsys.readouterr().err
    # The certificate's HTML page is an output too: CERT.json's page over the recipe.
    assert _replay(recipe, folder / "first.csv", folder / "o.csv", "--certificate",
                   str(folder / "recipe.json"), "--signing-key", str(folder / "x")) == 2
    assert "is the same file as" in capsys.readouterr().err
    assert json.loads(recipe.read_text())["format"] == "arxpy-recipe"


def _pdf_text(path: Path) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() for page in PdfReader(path).pages)


def test_a_pdf_certificate_states_what_the_html_states_and_verifies_from_the_pdf_alone(
        extracts, replayed, signing_key, capsys):
    from arxpy.recipes.certificate import read_signed

    out, _, certificate = replayed
    assert not certificate.with_suffix(".html").exists()  # the extension picks the form
    signed = read_signed(certificate)["certificate"]
    text = _pdf_text(certificate)
    flat = re.sub(r"\s+", "", text)
    for heading in ("Release certificate", "Attributes and their treatment",
                    "Privacy claims (checked independently)",
                    "Risk over the declared quasi-identifiers", "Utility", "Software"):
        assert heading in text
    for digest in (signed["recipe_sha256"], signed["input"]["file_sha256"],
                   signed["input"]["table_sha256"], signed["output"]["file_sha256"]):
        assert digest in flat
    for attribute in signed["attributes"]:
        assert attribute["attribute"] in text
        assert re.sub(r"\s+", "", attribute["treatment"]) in flat
    for claim in signed["verdict"]["claims"]:
        assert claim["claim"] in text and re.sub(r"\s+", "", claim["finding"]) in flat
    assert signed["verdict"]["headline"] in text
    assert "information loss" in text and signed["utility"]  # utility figures
    assert f"smallest class {signed['risk']['smallest_class']}" in text
    assert signed["issued"] in text and signed["versions"]["arxpy"] in text
    public = f"{signing_key}.pub"
    assert main(["verify-certificate", str(certificate), "--release", str(out),
                 "--public-key", public]) == 0
    assert "Valid: signed by key" in capsys.readouterr().out


def test_a_tampered_pdf_certificate_or_release_fails_naming_what_differs(
        replayed, signing_key, capsys, tmp_path):
    from arxpy.recipes.certificate import read_signed
    from arxpy.recipes.certificate_pdf import page_problems

    out, _, certificate = replayed
    public = f"{signing_key}.pub"
    changed = tmp_path / "out.csv"
    content = bytearray(out.read_bytes())
    content[len(content) // 2] ^= 1  # one byte of the release
    changed.write_bytes(bytes(content))
    assert main(["verify-certificate", str(certificate), "--release", str(changed),
                 "--public-key", public]) == 1
    assert "output hash differs" in capsys.readouterr().err
    # The attached statement is stored as written: edit one figure in place.
    document = read_signed(certificate)["certificate"]
    released = f'"released_records": {document["output"]["released_records"]}'.encode()
    pdf = certificate.read_bytes()
    assert pdf.count(released) == 1
    edited = tmp_path / "cert.pdf"
    edited.write_bytes(pdf.replace(released, released[:-1] + b"0"
                                   if released[-1:] != b"0" else released[:-1] + b"1"))
    assert main(["verify-certificate", str(edited), "--release", str(out),
                 "--public-key", public]) == 1
    assert "signature differs" in capsys.readouterr().err
    # Pages that show another output hash than the one signed are named too.
    signed = read_signed(certificate)
    signed["certificate"]["output"]["file_sha256"] = "0" * 64
    assert page_problems(pdf, signed) == [
        f"page differs: the PDF's pages do not show the signed Output SHA-256 (file) "
        f"{'0' * 64}."]
    assert page_problems(pdf, read_signed(certificate)) == []


def test_a_pdf_certificate_prints_names_in_any_script(replayed):
    from arxpy.recipes.certificate import read_signed
    from arxpy.recipes.certificate_pdf import attached_statement, render_pdf

    document = read_signed(replayed[2])
    names = ["Größe", "Возраст", "Ηλικία", "Ålder ≥ 90"]
    document["certificate"]["attributes"] += [
        {"attribute": name, "role": "insensitive", "treatment": "released as is"}
        for name in [*names, "年龄"]]  # no glyphs in DejaVu: left out, never a crash
    path = replayed[2].parent / "names.pdf"
    path.write_bytes(render_pdf(document))
    text = _pdf_text(path)
    assert all(name in text for name in names)
    assert json.loads(attached_statement(path.read_bytes())) == document


def test_the_release_diff_puts_two_releases_of_one_recipe_side_by_side(
        extracts, replayed, capsys, tmp_path):
    folder = extracts[0]
    first = json.loads((folder / "r1.json").read_text())
    rows_file = tmp_path / "diff.json"
    assert main(["diff", str(folder / "r1.json"), str(replayed[2]),
                 "--json", str(rows_file)]) == 0
    out = capsys.readouterr().out
    assert f"Both releases of recipe {first['recipe_sha256'][:16]}" in out
    rows = {r["figure"]: r for r in json.loads(rows_file.read_text())["rows"]}
    suppressed = rows["suppressed records"]
    assert suppressed["first"] == first["release"]["classes"]["suppressed_records"]
    assert rows["records"]["first"] == rows["records"]["second"] == RECORDS
    assert rows["transformation"]["change"] == "same"  # a fixed recipe
    for figure in ("classes", "highest prosecutor risk", "claim: 3-anonymity",
                   "information loss (entropy, mean over quasi-identifiers)"):
        assert figure in out and rows[figure]["second"] != "n/a"
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**first, "recipe_sha256": "f" * 64}))
    assert "the recipes differ" in one_error_line(
        ["diff", str(folder / "r1.json"), str(other)], capsys)
    assert main(["diff", str(folder / "r1.json"), str(other), "--other-recipe"]) == 0
    assert "warning: the recipes differ" in capsys.readouterr().err
