"""The synthetic EHR generator (spec 002 §7): real codes, marginals, determinism, CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from arxpy.cli import main
from arxpy.data import icd9
from arxpy.data.synth_ehr import PAPER_MAX_LENGTH, generate_code_sets, generate_ehr
from arxpy.data.transactions import read_code_sets


def test_codes_are_real_icd9_codes_without_e_codes_and_records_have_no_duplicates():
    sets = generate_code_sets(records=3000, codes=200, seed=3)
    assert len(sets) == 3000 and sets.n_codes <= 200
    assert icd9.unknown_codes(sets.vocabulary) == []
    assert not any(c.startswith("E") for c in sets.vocabulary)
    for i in range(0, 3000, 97):
        row = sets.indices[sets.indptr[i]:sets.indptr[i + 1]]
        assert (np.diff(row) > 0).all()
    assert sets.lengths.min() >= 1 and sets.lengths.max() <= PAPER_MAX_LENGTH


def test_record_lengths_match_the_published_mean():
    # 1 + NegBin with mean 4.11: the paper's 5.11 codes per record (Table 1).
    lengths = generate_code_sets(records=20_000, codes=631, seed=1).lengths
    assert abs(lengths.mean() - 5.11) < 0.1


def test_same_seed_same_data_other_seed_other_data():
    first = generate_ehr(records=500, codes=100, seed=7)
    assert first.equals(generate_ehr(records=500, codes=100, seed=7))
    assert not first.equals(generate_ehr(records=500, codes=100, seed=8))


def test_cli_writes_a_table_the_importer_reads(tmp_path):
    out = tmp_path / "d.csv"
    assert main(["synth-ehr", "--records", "400", "--codes", "80", "--seed", "2",
                 "--output", str(out)]) == 0
    table = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(table.columns) == ["patient_id", "codes"] and len(table) == 400
    codes, _, report = read_code_sets(out, codes_column="codes", id_column="patient_id")
    assert report.unknown_codes == () and report.records == 400
    assert codes.n_codes <= 80


@pytest.mark.perf
def test_the_papers_size_generates_well_under_30_seconds():
    import time

    started = time.perf_counter()
    sets = generate_code_sets(seed=0)
    assert time.perf_counter() - started < 15
    assert len(sets) == 58_302 and sets.n_codes == 631
    assert abs(sets.lengths.mean() - 5.11) < 0.05 and sets.lengths.max() <= 43
