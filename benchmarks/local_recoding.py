"""Local recoding on Adult: arxpy against ARX 3.9.2's ``optimizeIterative`` (issue 34).

``python benchmarks/local_recoding.py ADULT_DIR [ARX.jsonl]`` runs the configurations of
``benchmarks/arx/local_recoding.batch`` (the ``local=iterative`` lines) through arxpy
and prints, per configuration, the passes (levels, records released, score), the
records still suppressed and ARX's granularity of the global and the combined release;
with ARX's output of ``ArxDriver batch`` with ``local=`` (one JSON line per configuration) it puts
ARX's figures beside them. docs/engine.md has the commands and the figures.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pandas as pd

from arxpy.analysis.local_recoding import COMBINED, GLOBAL, pass_figures
from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.hierarchy.io import read_hierarchy

BATCH = Path(__file__).parent / "arx" / "local_recoding.batch"
QIS = "sex,age,race,marital-status,education,native-country,workclass,occupation,salary-class"


def model_specs(text: str) -> list[dict]:
    specs = []
    for item in text.split(","):
        part = item.split(":")
        if part[0] == "k":
            specs.append({"kind": "k-anonymity", "k": int(part[1])})
        elif part[0] == "ldist":
            specs.append({"kind": "distinct-l-diversity", "attribute": part[1],
                          "l": int(part[2])})
        elif part[0] == "tequal":
            specs.append({"kind": "t-closeness", "attribute": part[1], "t": float(part[2]),
                          "distance": "equal"})
    return specs


def run(adult: Path, line: dict[str, str]) -> dict:
    frame = pd.read_csv(adult / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    qis = line.get("qis", QIS).split(",")
    models = model_specs(line["models"])
    sensitive = {m["attribute"] for m in models if "attribute" in m}
    definition = DataDefinition(AttributeDefinition(
        c, AttributeType.QUASI_IDENTIFYING if c in qis else
        AttributeType.SENSITIVE if c in sensitive else AttributeType.INSENSITIVE)
        for c in frame.columns)
    hierarchies = {q: read_hierarchy(adult / f"adult_hierarchy_{q}.csv") for q in qis}
    config = AnonymizationConfig.from_dict({
        "privacy_models": models, "suppression_limit": float(line["supp"]),
        "local_recoding": int(line.get("passes", 4)),
        "local_recoding_gs_factor": float(line.get("lgs", 0.05))})
    started = time.perf_counter()
    result = anonymize(frame, definition, hierarchies, config)
    seconds = time.perf_counter() - started
    release = result.release()
    figures = pass_figures(frame, release)
    return {"passes": [(",".join(map(str, p.levels)), p.released, p.score)
                       for p in result.passes.passes],
            "suppressed": release.suppressed_records,
            "granularity_before": figures.loc[GLOBAL, "granularity"],
            "granularity": figures.loc[COMBINED, "granularity"], "seconds": seconds,
            "anonymous": release.anonymous}


def main(argv: list[str]) -> int:
    adult = Path(argv[0])
    arx = {}
    if len(argv) > 1:
        for text in Path(argv[1]).read_text().splitlines():
            record = json.loads(text)
            arx[record["id"]] = record
    for text in BATCH.read_text().splitlines():
        line = dict(item.split("=", 1) for item in text.split())
        if line.get("local") != "iterative":
            continue
        mine = run(adult, line)
        print(line["id"], json.dumps(mine))
        if line["id"] in arx:
            theirs = arx[line["id"]]
            print("  ARX", theirs.get("optimum"), theirs.get("local_steps"),
                  "suppressed", theirs.get("outliers"), "granularity",
                  theirs.get("granularity_before"), theirs.get("granularity"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
