"""Classification classes are listed in range order, as people read bins."""

from __future__ import annotations

import numpy as np
import pandas as pd

from arxpy.analysis.classification import bin_values
from arxpy.analysis.metrics import range_order


def test_bins_come_in_range_order_and_other_values_after_them():
    binned = bin_values(pd.Series(["5", "200", "60000", "NA", "12000"]), [100, 10000, 50000])
    values = sorted(set(binned))  # alphabetical: '<100', '>=50000', 'NA', '[100, ...'
    assert range_order(values) == ["<100", "[100, 10000[", "[10000, 50000[", ">=50000", "NA"]
    assert range_order(["-5.5 to 0", "b", "a"]) == ["-5.5 to 0", "a", "b"]


def test_per_class_table_lists_classes_in_range_order():
    from arxpy.analysis.classifiers import ClassifierSpec
    from arxpy.analysis.metrics import ClassificationPerformance, Predictions

    classes = [">=50000", "<10000", "[10000, 50000["]  # as encoded: not in range order
    labels = np.array([0, 1, 2, 1, 0, 2])
    proba = np.eye(3)[labels]
    exact = Predictions(labels, proba)
    performance = ClassificationPerformance(
        "Charge", classes, ["Age"], {}, ClassifierSpec(), np.zeros(6, dtype=int),
        exact, exact, exact, 0)
    table = performance.per_class()
    assert list(table.loc["output"].index) == ["<10000", "[10000, 50000[", ">=50000"]
    assert (table.loc["output", "support"] == 2).all()
    assert performance.curve_classes() == ["<10000", "[10000, 50000[", ">=50000"]
