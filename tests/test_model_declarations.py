"""Privacy and quality models declare their parameters once; bad settings say what to change.

A project file or a script with a bad value (Loss ``gs_factor: "high"``, t-closeness
``t: "x"``, a model that is not a mapping) must raise a ConfigurationError naming the
model and the setting, never a Python traceback.
"""

from __future__ import annotations

import pandas as pd
import pytest

from arxpy.cli import main
from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig
from arxpy.errors import ConfigurationError
from arxpy.hierarchy.model import Hierarchy
from arxpy.params import Param
from arxpy.privacy import (
    KAnonymity,
    KMap,
    PopulationUniqueness,
    TCloseness,
    privacy_model_classes,
    privacy_model_from_dict,
)
from arxpy.project import Project
from arxpy.quality import Loss, quality_model_classes, quality_model_from_dict


def example_values(param: Param) -> object:
    """A valid value for a required parameter: the form's suggestion where it has one."""
    if param.suggested is not None:
        return param.suggested
    return {"attribute": "disease", "attributes": ("disease",), "text": "x",
            "mapping": {}}.get(param.kind, 1)


def instance(cls):
    values = {p.name: example_values(p) for p in cls.params if p.required}
    if cls in (PopulationUniqueness, KMap):
        values["region"] = "usa"
    return cls(**values)


@pytest.mark.parametrize("cls", list(privacy_model_classes().values()), ids=lambda c: c.kind)
def test_every_privacy_model_is_one_declaration(cls) -> None:
    assert cls.label and cls.description.endswith(".")
    assert all(p.help for p in cls.params), "every parameter explains itself in the form"
    model = instance(cls)
    again = privacy_model_from_dict(model.to_dict())
    assert again == model and again is not model
    twin = model.clone()
    assert twin == model and twin is not model
    assert model.to_dict()["kind"] == cls.kind


@pytest.mark.parametrize("cls", list(quality_model_classes().values()), ids=lambda c: c.name)
def test_every_quality_model_is_one_declaration(cls) -> None:
    assert cls.label
    assert all(p.help for p in cls.params)
    model = instance(cls)
    again = quality_model_from_dict(model.to_dict())
    assert type(again) is cls and again.to_dict() == model.to_dict()
    assert model.clone() is not model and model.clone().to_dict() == model.to_dict()


def test_registry_lists_classes_in_menu_order() -> None:
    kinds = list(privacy_model_classes())
    assert kinds[0] == "k-anonymity" and set(kinds) >= {"t-closeness", "average-risk"}
    assert privacy_model_classes()["t-closeness"] is TCloseness
    assert quality_model_classes()["loss"] is Loss


def test_positional_construction_follows_the_declaration() -> None:
    assert KAnonymity(5).k == 5
    model = TCloseness("disease", 0.2, "ordered")
    assert model.to_dict() == {"kind": "t-closeness", "attribute": "disease", "t": 0.2,
                               "distance": "ordered"}
    # Optional parameters left out are not written.
    assert PopulationUniqueness(0.01, "pitman", region="usa").to_dict() == {
        "kind": "population-uniqueness", "threshold": 0.01, "estimator": "pitman",
        "region": "usa"}


@pytest.mark.parametrize(("spec", "message"), [
    ({"name": "loss", "gs_factor": "high"}, r"loss: gs_factor must be a number, got 'high'"),
    ({"name": "loss", "aggregate": 3}, r"loss: Unknown aggregate 3"),
    ({"name": "loss", "speed": 1}, r"loss: unknown setting 'speed'; its settings are gs_factor"),
    ({"name": "precision", "monotonic": "yes"}, r"precision: monotonic must be true or false"),
    ({"name": "classification"}, r"classification: give class_attribute"),
    ({"name": "classification", "class_attribute": "d", "suppressed_penalty": 0,
      "minority_penalty": 0, "ambiguity_penalty": 0}, r"penalties must not all be 0"),
    ({"name": 7}, r"Unknown quality model '7'"),
    ("loss", r"quality model must be given as a mapping"),
])
def test_bad_quality_settings_name_the_setting(spec, message) -> None:
    with pytest.raises(ConfigurationError, match=message):
        quality_model_from_dict(spec)


@pytest.mark.parametrize(("spec", "message"), [
    ({"kind": "t-closeness", "attribute": "d", "t": "x"}, r"t-closeness: t must be a number"),
    ({"kind": "t-closeness", "attribute": "d", "t": 2}, r"t-closeness: t must be between 0 and 1"),
    ({"kind": "t-closeness", "t": 0.2}, r"t-closeness: give attribute"),
    ({"kind": "k-anonymity", "k": "5"}, r"k-anonymity: k must be a whole number, got '5'"),
    ({"kind": "k-anonymity", "k": 5, "l": 2}, r"k-anonymity: unknown setting 'l'"),
    ({"kind": "population-uniqueness", "threshold": 0.1, "region": "mars"},
     r"Unknown region 'mars'; use one of"),
    ({"k": 5}, r"Unknown privacy model 'None'"),
    (["k-anonymity", 5], r"privacy model must be given as a mapping"),
    (None, r"privacy model must be given as a mapping"),
])
def test_bad_privacy_settings_name_the_setting(spec, message) -> None:
    with pytest.raises(ConfigurationError, match=message):
        privacy_model_from_dict(spec)


K = [{"kind": "k-anonymity", "k": 2}]


@pytest.mark.parametrize(("settings", "message"), [
    ({"privacy_models": K, "suppression_limit": "lots"}, r"suppression_limit must be a number"),
    ({"privacy_models": K, "suppression_limit": 1.5}, r"suppression_limit must be between 0 and 1"),
    ({"privacy_models": K, "strategy": "fast"}, r"Unknown search strategy 'fast'"),
    ({"privacy_models": K, "strategy": 3}, r"Unknown search strategy 3"),
    ({"privacy_models": K, "time_limit": "soon"}, r"time_limit must be a number"),
    ({"privacy_models": K, "time_limit": -1}, r"time_limit must be positive"),
    ({"privacy_models": K, "remove_suppressed": "no"}, r"remove_suppressed must be true or false"),
    ({"privacy_models": {"kind": "k-anonymity"}}, r"privacy_models must be a list"),
    ({"privacy_models": [5]}, r"privacy model must be given as a mapping"),
    ({"privacy_models": K, "quality_model": ["loss"]}, r"quality model must be given as a mapping"),
    ([K], r"anonymization settings must be a mapping"),
])
def test_bad_configuration_settings_name_the_setting(settings, message) -> None:
    with pytest.raises(ConfigurationError, match=message):
        AnonymizationConfig.from_dict(settings)


def test_configuration_values_are_normalized() -> None:
    config = AnonymizationConfig.from_dict({"privacy_models": K, "suppression_limit": 0,
                                            "time_limit": 5, "strategy": "heuristic"})
    assert config.suppression_limit == 0.0 and isinstance(config.time_limit, float)
    with pytest.raises(ConfigurationError, match="suppression_limit must be between 0 and 1"):
        AnonymizationConfig([KAnonymity(2)], suppression_limit=2)


@pytest.mark.parametrize(("model", "setting"), [
    ({"kind": "t-closeness", "attribute": "disease", "t": "x"}, "t must be a number"),
    ({"kind": "k-anonymity", "k": 2}, "gs_factor must be a number"),
])
def test_a_project_file_with_a_bad_value_is_one_clear_line(tmp_path, capsys, model,
                                                           setting) -> None:
    frame = pd.DataFrame({"age": ["20", "21", "30", "31"], "disease": ["a", "b", "a", "b"]})
    definition = DataDefinition([
        AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING),
        AttributeDefinition("disease", AttributeType.SENSITIVE)])
    age = Hierarchy([[a, a[0] + "*", "*"] for a in ("20", "21", "30", "31")])
    settings = {"privacy_models": [model],
                "quality_model": {"name": "loss", "gs_factor": "high"}}
    path = Project(frame, definition, {"age": age}, settings).save(tmp_path / "bad.arxpy")
    code = main(["anonymize", "--project", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert setting in err and "Traceback" not in err


def test_models_state_their_risk_guarantees() -> None:
    from arxpy.privacy import AverageRisk, EntropyLDiversity, ProsecutorRisk

    assert KAnonymity(5).guaranteed_class_size == 5
    assert ProsecutorRisk(0.3).guaranteed_class_size == 4  # 1/4 <= 0.3 < 1/3
    assert EntropyLDiversity("d", 2.5).guaranteed_class_size == 3
    assert TCloseness("d", 0.2).guaranteed_class_size is None
    assert AverageRisk(0.05).marketer_risk_limit == 0.05
    assert PopulationUniqueness(0.01, region="usa").marketer_risk_limit == 0.01
    assert KAnonymity(5).marketer_risk_limit is None
