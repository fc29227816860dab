"""Type detection on a wide table (issue 28, defect 13): 300 records x 3,009 columns.

Run from the repository root::

    python benchmarks/wide_table.py [--rows 300] [--columns 3009] [--repeat 3]

Times :func:`sniff_csv` (the header check types every header cell) and
:func:`infer_data_type` over every column (what the import wizard does), on integer
cells under names like ``gene_1`` and ``Marker 3/b``. Figures are in docs/data-types.md.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from arxpy.data.csv_io import read_csv, sniff_csv
from arxpy.data.types import infer_data_type


def wide_csv(path: Path, rows: int, columns: int) -> Path:
    rng = np.random.default_rng(0)
    names = [f"gene_{j}" if j % 3 else f"Marker {j}/b" for j in range(columns)]
    body = rng.integers(0, 100, (rows, columns)).astype(str)
    path.write_text(",".join(names) + "\n" + "\n".join(",".join(r) for r in body) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300)
    parser.add_argument("--columns", type=int, default=3009)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = wide_csv(Path(folder) / "wide.csv", args.rows, args.columns)
        for _ in range(args.repeat):
            start = time.perf_counter()
            fmt = sniff_csv(path)
            sniffed = time.perf_counter() - start
            frame = read_csv(path, fmt)
            start = time.perf_counter()
            for name in frame.columns:
                infer_data_type(frame[name])
            inferred = time.perf_counter() - start
            print(f"{args.rows} x {args.columns}: sniff_csv {sniffed:.3f} s, "
                  f"infer_data_type on every column {inferred:.2f} s")


if __name__ == "__main__":
    main()
