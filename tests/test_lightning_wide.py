"""Lightning on a wide table (issue 34): 15 correlated quasi-identifiers, about 10^9
transformations. The best-first search without ARX's greedy dives returned the
completely generalized top here; Lightning finds an anonymous transformation well
below it, and the released table is k-anonymous by the independent count."""

import audit

from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.privacy import KAnonymity
from arxpy.quality.loss import Loss
from arxpy.search import lightning
from benchmarks.high_dimensional import generate

#: Checks Lightning may make here: a budget counted, not timed, so a slow machine gets
#: the same answer.
CHECKS = 1_500


def test_lightning_finds_an_anonymous_transformation_below_the_top_of_a_wide_lattice(
        monkeypatch):
    monkeypatch.setattr(lightning._Lightning, "stop",
                        lambda self: len(self.ctx.checks) >= CHECKS)
    frame, definition, hierarchies = generate(1, records=1_500, n_qi=15)
    result = anonymize(frame, definition, hierarchies, AnonymizationConfig(
        [KAnonymity(5)], Loss(), 0.02, "lightning", time_limit=600))
    assert result.lattice_size > 10**8
    best = result.optimum
    assert best is not None and best.levels != result.lattice.top
    assert best.score < 0.95  # the top's loss is 1
    released = result.release(best.levels)
    table = released.table[~released.suppressed]
    assert audit.k_anonymity(table, definition.quasi_identifiers) >= 5
    assert released.suppressed.sum() <= 0.02 * len(frame)
