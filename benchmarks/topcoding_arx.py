"""Top/bottom coding against ARX 3.9.2 (issue 34): arxpy's ``top-bottom-coding`` with
``convention="arx"`` beside the first level of ARX's interval hierarchy
(``benchmarks/arx/TopBottomCoding.java``) on six configurations.

``python benchmarks/topcoding_arx.py ARX_BUILD ADULT_DIR`` compiles the Java program
against the build's CLASSPATH, runs each configuration through both and prints a
Markdown table: values, values ARX codes, values arxpy codes, and whether every label
agrees (a value ARX leaves in range must be released unchanged by arxpy; a coded value
must carry ARX's label). The sdcMicro convention's differences are counted beside.
docs/top-bottom-coding.md has the table and the commands.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from arxpy.data.definition import AttributeType, DataDefinition, DataKind, DataType
from arxpy.methods import run_method

JAVA = Path(__file__).parent / "arx" / "TopBottomCoding.java"


def configurations(adult: Path) -> list[tuple[str, str, list[str], float | None, float | None]]:
    """(name, type, values, bottom, top) per configuration."""
    rng = np.random.default_rng(34)
    ages = [str(v) for v in rng.integers(0, 105, 500)] + ["18", "90", "NULL"]
    bmi = [f"{v:.1f}" for v in rng.normal(26, 6, 500)] + ["18.5", "40.0", "40", "NULL"]
    income = [str(v) for v in rng.integers(0, 20_000_000, 300)] + ["10000000"]
    adult_ages = pd.read_csv(adult / "adult.csv", sep=";", dtype=str)["age"].tolist()
    return [
        ("ages, top 90", "integer", ages, None, 90),
        ("ages, bottom 18", "integer", ages, 18, None),
        ("ages, bottom 18 and top 90 (bounds present, NULL)", "integer", ages, 18, 90),
        ("BMI (decimal), bottom 18.5 and top 40", "decimal", bmi, 18.5, 40),
        ("income (decimal), top 1e7", "decimal", income, None, 1e7),
        ("Adult's age (30,162 records), bottom 20 and top 75", "integer", adult_ages, 20, 75),
    ]


def arx_labels(classes: str, kind: str, values: list[str], bottom, top) -> dict[str, str]:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(values) + "\n")
    bound = ("-" if bottom is None else _java_arg(bottom, kind),
             "-" if top is None else _java_arg(top, kind))
    out = subprocess.run(["java", "-cp", classes, "TopBottomCoding", kind, *bound, f.name],
                         check=True, capture_output=True, text=True).stdout
    return dict(line.split("\t") for line in out.splitlines())


def _java_arg(value: float, kind: str) -> str:
    return str(int(value)) if kind == "integer" else repr(float(value))


def arxpy_labels(kind: str, values: list[str], bottom, top, convention: str) -> list[str]:
    frame = pd.DataFrame({"x": values})
    definition = DataDefinition.for_columns(["x"]).with_attribute(
        "x", type=AttributeType.QUASI_IDENTIFYING,
        data_type=DataType(DataKind.DECIMAL if kind == "decimal" else DataKind.INTEGER))
    release = run_method("top-bottom-coding", frame, definition,
                         {"attribute": "x", "top": top, "bottom": bottom,
                          "convention": convention})
    return release.table["x"].tolist()


def compare(arx: dict[str, str], values: list[str], ours: list[str]) -> tuple[int, int, int]:
    """(values ARX codes, values arxpy codes, disagreements)."""
    arx_coded = ours_coded = wrong = 0
    for value, label in zip(values, ours, strict=True):
        theirs = arx[value]
        coded = theirs.startswith(("<", ">="))
        arx_coded += coded
        ours_coded += label != value
        wrong += (label != theirs) if coded else (label != value)
    return arx_coded, ours_coded, wrong


def main() -> None:
    build, adult = Path(sys.argv[1]), Path(sys.argv[2])
    classes = tempfile.mkdtemp()
    classpath = (build / "CLASSPATH").read_text().strip()
    subprocess.run(["javac", "-nowarn", "-d", classes, "-cp", classpath, str(JAVA)], check=True)
    print("| configuration | values | ARX codes | arxpy (arx) codes | labels differing | "
          "sdcmicro convention: differing |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, kind, values, bottom, top in configurations(adult):
        arx = arx_labels(f"{classpath}:{classes}", kind, values, bottom, top)
        theirs, ours, wrong = compare(arx, values, arxpy_labels(kind, values, bottom, top, "arx"))
        sdc = compare(arx, values, arxpy_labels(kind, values, bottom, top, "sdcmicro"))[2]
        print(f"| {name} | {len(values):,} | {theirs:,} | {ours:,} | {wrong:,} | {sdc:,} |")


if __name__ == "__main__":
    main()
