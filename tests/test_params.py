"""Declared parameters: one declaration checks values and names what to change."""

from __future__ import annotations

import pytest

from arxpy.errors import ConfigurationError
from arxpy.params import Param, Parameterized, check_params


class Smoothing(Parameterized):
    params = (
        Param("k", "int", 5, low=2, help="records per cluster"),
        Param("t", "float", 0.2, low=0, high=1),
        Param("rate", "float", 1.0, low=0, low_open=True),
        Param("mode", "choice", "fast", choices=("fast", "exact"), label="mode"),
        Param("seed", "int", None, optional=True),
    )

    def check_together(self) -> None:
        if self.mode == "exact" and self.k > 100:
            raise ConfigurationError("Smoothing: exact mode takes k of at most 100.")


def test_defaults_positional_and_clone_are_independent() -> None:
    model = Smoothing(3, mode="exact")
    assert model.get_params() == {"k": 3, "t": 0.2, "rate": 1.0, "mode": "exact", "seed": None}
    twin = model.clone()
    assert twin is not model and twin.get_params() == model.get_params()
    twin.k = 9
    assert model.k == 3


@pytest.mark.parametrize(("values", "message"), [
    ({"k": 1}, "k must be a whole number at least 2, got 1"),
    ({"k": 2.5}, "k must be a whole number, got 2.5"),
    ({"k": True}, "whole number"),
    ({"t": "x"}, "t must be a number, got 'x'"),
    ({"t": 1.5}, "t must be between 0 and 1"),
    ({"t": float("nan")}, "t must be a finite number between 0 and 1"),
    ({"rate": 0}, "rate must be positive"),
    ({"mode": "slow"}, "Unknown mode 'slow'; use one of fast, exact"),
    ({"speed": 1}, "unknown setting 'speed'"),
    ({"mode": "exact", "k": 101}, "exact mode"),
])
def test_bad_values_name_the_setting(values, message) -> None:
    with pytest.raises(ConfigurationError, match=message):
        Smoothing(**values)


def test_whole_floats_become_ints_and_required_settings_are_asked_for() -> None:
    assert Smoothing(k=4.0).k == 4 and isinstance(Smoothing(k=4.0).k, int)
    with pytest.raises(ConfigurationError, match="give l"):
        check_params((Param("l", "int", low=1),), {}, "l-diversity")


def test_description_is_json_able() -> None:
    import json

    described = json.loads(json.dumps(Smoothing.describe_params()))
    assert described[0] == {"name": "k", "kind": "int", "default": 5, "low": 2,
                            "help": "records per cluster"}
    assert described[3]["choices"] == ["fast", "exact"]
    assert described[2]["open"] == [True, False]


def test_a_privacy_model_strength_is_never_filled_in_silently() -> None:
    """A project's k-anonymity without k is an error, not 5-anonymity; forms suggest one."""
    import arxpy.privacy  # noqa: F401
    from arxpy.privacy import KAnonymity, privacy_model_from_dict

    with pytest.raises(ConfigurationError, match="give k"):
        privacy_model_from_dict({"kind": "k-anonymity"})
    assert KAnonymity.params[0].required and KAnonymity.params[0].suggested == 5


def test_parameters_read_in_words_not_python_values():
    from arxpy.methods import method_classes
    from arxpy.params import parameters_in_words

    condensation = method_classes()["condensation"]
    text = parameters_in_words(condensation.params, {
        "k": 10, "seed": None, "shuffle_output": True, "types": {}, "standardize": False,
        "attributes": ("Age", "Sex"), "ratio": 0.25})
    # Labels and units from the declaration; names without a label in words.
    assert text == ("k: 10 records · seed: none · shuffle output: yes · attribute kinds: "
                    "none · standardize: no · attributes: Age, Sex · ratio: 0.25")
    for python in ("True", "False", "None", "{}", "=", "("):
        assert python not in text
