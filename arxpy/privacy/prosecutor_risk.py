"""Prosecutor risk of every record at most x: k-anonymity with k = ceil(1/x).

Under the prosecutor model a record in a class of size s is re-identified with
probability 1/s, so "every record's risk is at most x" holds exactly when every class has
at least k records, k the smallest whole number with 1/k <= x. ARX offers this as a
risk-based view of k-anonymity; its ``ParameterTranslation`` rounds 1/x with a 1%
tolerance (so x = 0.33 gives k = 3 there), we round exactly (x = 0.33 gives k = 4), so the
promised bound always holds. Monotonic with and without suppression, as k-anonymity.
"""

from __future__ import annotations

import math

from arxpy.errors import ConfigurationError
from arxpy.lattice.encoding import EncodedData
from arxpy.params import Param
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.privacy.registry import register_privacy_model


def smallest_class_size(threshold: float) -> int:
    """The smallest k with 1/k <= ``threshold`` (``threshold`` in (0, 1])."""
    k = max(math.ceil(1.0 / threshold), 1)
    # 1/x may land just above a whole number in floating point (x = 1/3 gives 3.0000000000000004).
    while k > 1 and 1.0 / (k - 1) <= threshold:
        k -= 1
    return k


@register_privacy_model
class ProsecutorRisk(KAnonymity):
    """Every released record has prosecutor re-identification risk at most ``threshold``.

    The class check and monotonicity are k-anonymity's; only the parameter differs.
    """

    kind = "prosecutor-risk"
    label = "Prosecutor risk"
    description = ("No record's prosecutor re-identification risk (1 / class size) exceeds the "
                   "threshold.")
    params = (Param("threshold", "float", suggested=0.2, low=0, high=1, low_open=True,
                    help="Largest re-identification risk of any record (1 / class size; "
                         "e.g. 0.2 for classes of 5 or more)"),)
    threshold: float

    @property
    def k(self) -> int:  # type: ignore[override]
        """The class size that keeps every record's risk at most the threshold."""
        return smallest_class_size(self.threshold)

    def validate(self, data: EncodedData) -> None:
        if self.k > data.n_records:
            raise ConfigurationError(
                f"A prosecutor risk of at most {self.threshold:g} needs classes of {self.k} "
                f"records, but the data has only {data.n_records}; raise the threshold to at "
                f"least {1 / max(data.n_records, 1):.4g}."
            )

    def describe(self) -> str:
        return f"prosecutor risk at most {self.threshold:g} (classes of {self.k} or more)"
