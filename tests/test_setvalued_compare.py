"""Compare for set-valued releases (issue 15): k, m, the independent k^m verdict and the
document's structure instead of classes and prosecutor risks over equal cells."""

from __future__ import annotations

import copy
import dataclasses

import pandas as pd
from golden_disassociation import RECORDS
from km_reference import publication_is_km_anonymous

from arxpy.analysis.compare import compare_releases
from arxpy.analysis.setvalued_compare import NOT_APPLICABLE, NOT_SET_VALUED, SETVALUED_ROWS
from arxpy.data.definition import AttributeDefinition, DataDefinition, DataKind, DataType
from arxpy.methods import method_from_dict

CODES = "codes"


def _release(k: int, m: int = 2):
    data = pd.DataFrame({CODES: [";".join(sorted(r)) for r in RECORDS]}).astype(object)
    definition = DataDefinition([AttributeDefinition(CODES, data_type=DataType(DataKind.SET))])
    method = method_from_dict({"name": "disassociation", "k": k, "m": m,
                               "codes_column": CODES, "seed": 5})
    return method.run(data, definition)


def test_set_valued_releases_show_km_figures_not_classes():
    three, two = _release(3), _release(2)
    # The same input without the k^m claim: compared as any other release.
    plain = dataclasses.replace(two, claims=())
    table = compare_releases({"k3": three, "k2": two, "plain": plain})
    for name, release in (("k3", three), ("k2", two)):
        column, document = table[name], release.published
        assert column["k^m: k"] == document["k"] and column["k^m: m"] == 2
        assert publication_is_km_anonymous(document)
        assert column["k^m-anonymous (independent check)"].startswith("yes")
        clusters = [c for j in document["joint_clusters"] for c in j["clusters"]]
        assert column["clusters"] == len(clusters)
        assert column["smallest cluster"] == min(c["size"] for c in clusters) >= document["k"]
        # No code lost: every input code is published.
        assert column["distinct codes published"] == len(set().union(*RECORDS))
        for row in ("classes (equal quasi-identifiers)", "highest prosecutor risk"):
            assert column[row] == NOT_APPLICABLE
    assert all(table.loc[row, "plain"] == NOT_SET_VALUED for row in SETVALUED_ROWS)
    # The table is a synthetic reconstruction: an attacker's classes mean nothing there.
    assert table.loc["highest prosecutor risk", "plain"].startswith("not applicable: the "
                                                                   "released records are synthetic")
    # Rows in one order whatever the column order: the k^m rows after the cell rows.
    rows = list(compare_releases({"plain": plain, "k3": three}).index)
    assert rows == list(table.index)
    assert rows.index("k^m: k") == rows.index("average prosecutor risk") + 1


def test_comparison_without_set_valued_releases_has_no_km_rows():
    plain = dataclasses.replace(_release(3), claims=())
    assert "k^m: k" not in compare_releases({"a": plain, "b": plain}).index


def test_a_tampered_document_fails_the_independent_check():
    release = _release(3)
    document = copy.deepcopy(dict(release.published))
    # A code only one subrecord holds: an itemset shared by fewer than k records.
    chunk = document["joint_clusters"][0]["clusters"][0]["record_chunks"][0]
    chunk["domain"] = sorted([*chunk["domain"], "999.9"])
    chunk["subrecords"][0] = sorted([*chunk["subrecords"][0], "999.9"])
    tampered = dataclasses.replace(release, published=document)
    verdict = compare_releases({"x": tampered}).loc["k^m-anonymous (independent check)", "x"]
    assert verdict.startswith("NO") and not publication_is_km_anonymous(document)
