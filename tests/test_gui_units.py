"""One unit convention: fractions of records are typed and shown in percent in every form,
while projects and declarations keep the fraction."""

from __future__ import annotations

import pytest

from arxpy.gui.param_form import FRACTION_OF_RECORDS, ParamForm, PercentBox
from arxpy.methods import method_classes


def _fraction_params():
    for cls in method_classes().values():
        for param in cls.params:
            if param.unit == FRACTION_OF_RECORDS:
                yield cls, param


@pytest.mark.parametrize("cls,param", list(_fraction_params()),
                         ids=lambda x: getattr(x, "name", ""))
def test_fractions_of_records_are_percent_in_forms(qtbot, cls, param):
    form = ParamForm(cls.params, {param.name: 0.0125})
    qtbot.addWidget(form)
    box = form.widgets[param.name]
    assert isinstance(box, PercentBox)
    assert box.text() == "1.25 % of records"
    assert form.values()[param.name] == pytest.approx(0.0125)
    box.lineEdit().setText("7 % of records")
    box.interpretText()
    assert form.values()[param.name] == pytest.approx(0.07)


def test_a_percent_above_the_bound_is_not_accepted(qtbot):
    from PySide6.QtGui import QValidator

    box = PercentBox(decimals=4, minimum=0.0, maximum=1.0)
    qtbot.addWidget(box)
    assert box.validate("150", 3)[0] != QValidator.State.Acceptable
    assert box.validate("x", 1)[0] == QValidator.State.Invalid
    assert box.validate("99.5", 4)[0] == QValidator.State.Acceptable


def test_the_lattice_suppression_limit_is_percent_too(window):
    from arxpy.example import example_project

    window.set_project(example_project(records=100))
    box = window.configure.settings_panel.suppression
    assert box.suffix().strip().startswith("%")
