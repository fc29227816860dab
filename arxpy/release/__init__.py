"""What every anonymization method returns, and the one verdict on it.

:class:`Release` (:mod:`arxpy.release.model`) is the output table with its provenance;
:class:`Claim` and the claim-kind checkers (:mod:`arxpy.release.claims`) say what it
promises and test it; :func:`judge` (:mod:`arxpy.release.verdict`) gives the verdict
every view and report prints.
"""

from arxpy.release import (
    dp_claims,  # noqa: F401  (registers its checker)
    population_claims,  # noqa: F401  (registers its checkers)
    profitability_claims,  # noqa: F401  (registers its checkers)
)
from arxpy.release.claims import (
    Claim,
    ClaimCheck,
    check_claim,
    register_claim_checker,
    released_group_sizes,
)
from arxpy.release.model import (
    SUPPRESSED_VALUE,
    ClassStatistics,
    Release,
    software_versions,
    table_sha256,
)
from arxpy.release.passes import RecodingPass, RecodingPasses
from arxpy.release.verdict import AttackerView, Verdict, judge

__all__ = [
    "SUPPRESSED_VALUE", "AttackerView", "Claim", "ClaimCheck", "ClassStatistics",
    "RecodingPass", "RecodingPasses", "Release", "Verdict", "check_claim", "judge",
    "register_claim_checker", "released_group_sizes",
    "software_versions", "table_sha256",
]
