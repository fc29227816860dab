"""Explore benchmark: building and drawing the full Adult lattice, and zooming it.

Run from the repository root::

    QT_QPA_PLATFORM=offscreen python benchmarks/explore.py

Anonymizes Adult (all nine attributes quasi-identifiers, 5-anonymity, 2 % suppression,
Loss), then times, for a 1200×800 lattice view: building the node arrays from the result,
the first full render of all 12,960 transformations, and a redraw after each zoom step.
The target (issue "Explore perspective") is a render and every zoom within a second.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ADULT = REPO.parent / "shared" / "data" / "adult"
ZOOMS = (2.0, 4.0, 8.0, 16.0, 32.0)


def _adult_result():
    import pandas as pd

    from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.hierarchy.io import read_hierarchy
    from arxpy.privacy import KAnonymity

    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    hierarchies = {c: read_hierarchy(ADULT / f"adult_hierarchy_{c}.csv") for c in frame.columns}
    definition = DataDefinition(
        AttributeDefinition(c, AttributeType.QUASI_IDENTIFYING) for c in frame.columns)
    config = AnonymizationConfig([KAnonymity(5)], suppression_limit=0.02)
    return anonymize(frame, definition, hierarchies, config)


def _timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if not (ADULT / "adult.csv").exists():
        print(f"Adult data not found at {ADULT}", file=sys.stderr)
        return 1
    from PySide6.QtWidgets import QApplication

    from arxpy.gui.explore.lattice_view import LatticeView
    from arxpy.workflows.lattice_nodes import LatticeNodes

    app = QApplication.instance() or QApplication(sys.argv[:1])
    result = _adult_result()
    view = LatticeView()
    view.resize(1200, 800)
    view.show()
    app.processEvents()
    nodes: list[LatticeNodes] = []
    build = _timed(lambda: nodes.append(LatticeNodes.from_result(result)))
    first = _timed(lambda: (view.set_nodes(nodes[0]), view.grab()))
    print(f"lattice: {result.lattice_size:,} transformations, {len(view.rows):,} drawn")
    print(f"build node arrays: {build * 1000:.1f} ms")
    print(f"first render: {first * 1000:.1f} ms")
    for factor in ZOOMS:
        redraw = _timed(lambda f=factor: (view.zoom(f), view.grab()))
        print(f"zoom x{factor:g} and redraw: {redraw * 1000:.1f} ms")
        view.fit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
