"""The conformance battery's form round trip (needs Qt): the form generated from each
registered method's declaration (``gui/param_form.py``), filled with the method's
example parameters, gives them back. Parametrized over ``method_classes()`` like
``tests/test_method_conformance.py``."""

from __future__ import annotations

import pytest
from method_fixtures import FIXTURES

from arxpy.methods import method_classes
from arxpy.methods.conformance import ConformanceError, check_form_round_trip

#: Known defects: method -> the precise defect (strict xfail).
KNOWN_DEFECTS: dict[str, str] = {}


@pytest.fixture
def fill(qtbot):
    from arxpy.gui.param_form import ParamForm

    def fill(params, values, attributes):
        form = ParamForm(params, values, attributes)
        qtbot.addWidget(form)
        return form.values()

    return fill


def _cases() -> list:
    return [pytest.param(name, marks=[pytest.mark.xfail(strict=True, raises=ConformanceError,
                                                        reason=KNOWN_DEFECTS[name])]
                         if name in KNOWN_DEFECTS else [])
            for name in sorted(method_classes())]


@pytest.mark.parametrize("name", _cases())
def test_the_generated_form_gives_the_example_parameters_back(name, fill):
    if name not in FIXTURES:
        pytest.fail(f"Method '{name}' has no conformance fixture (tests/method_fixtures.py)")
    check_form_round_trip(method_classes()[name], FIXTURES[name](), fill)


def test_a_form_that_rewrites_a_value_fails_the_check(fill):
    """A number beyond what a field holds: the form keeps it as given (it never rewrites
    a value), and a form that clamped it, as this one did before, fails the check."""
    from arxpy.methods.base import Method
    from arxpy.methods.conformance import Fixture
    from arxpy.params import Param

    class Budgeted(Method):
        name, label, description = "conformance-budgeted", "Budgeted (test)", "Never runs."
        params = (Param("budget", "float", 5e9, low=0.0, label="budget"),)

        def run(self, data, definition, **kwargs):
            raise NotImplementedError

    fixture = FIXTURES["intervals"]()
    check_form_round_trip(Budgeted, Fixture(fixture.data, fixture.definition), fill)

    def clamping(params, values, attributes):
        return {name: min(value, 1e6) for name, value in fill(params, values,
                                                                 attributes).items()}

    with pytest.raises(ConformanceError, match=r"budget: 1000000\.0 != 5000000000\.0"):
        check_form_round_trip(Budgeted, Fixture(fixture.data, fixture.definition), clamping)
