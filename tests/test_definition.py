import pytest

from arxpy.data.definition import (
    AttributeDefinition,
    AttributeType,
    DataDefinition,
    DataKind,
    DataType,
)
from arxpy.errors import DefinitionError


def _definition() -> DataDefinition:
    return DataDefinition(
        [
            AttributeDefinition("name", AttributeType.IDENTIFYING),
            AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING, DataType(DataKind.INTEGER),
                                min_level=1, max_level=3, weight=2.0),
            AttributeDefinition("zip", AttributeType.QUASI_IDENTIFYING),
            AttributeDefinition("disease", AttributeType.SENSITIVE),
            AttributeDefinition("note"),
        ]
    )


def test_roles_in_data_order():
    definition = _definition()
    assert definition.quasi_identifiers == ["age", "zip"]
    assert definition.identifying == ["name"]
    assert definition.sensitive == ["disease"]
    assert definition["note"].type is AttributeType.INSENSITIVE


def test_round_trip_through_dicts():
    definition = _definition()
    assert DataDefinition.from_list(definition.to_list()) == definition


def test_with_attribute_returns_changed_copy():
    definition = _definition()
    changed = definition.with_attribute("note", type=AttributeType.SENSITIVE)
    assert changed.sensitive == ["disease", "note"]
    assert definition["note"].type is AttributeType.INSENSITIVE


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"weight": 0}, "Weight"),
        ({"min_level": 3, "max_level": 1}, "exceeds"),
        ({"min_level": -1}, "0 or more"),
    ],
)
def test_invalid_attribute_settings_explain_themselves(kwargs, fragment):
    with pytest.raises(DefinitionError, match=fragment):
        AttributeDefinition("age", AttributeType.QUASI_IDENTIFYING, **kwargs)


def test_unknown_attribute_lists_known_ones():
    with pytest.raises(DefinitionError, match="Unknown attribute 'agee'.*age"):
        _definition()["agee"]


def test_duplicate_and_mismatched_columns_rejected():
    with pytest.raises(DefinitionError, match="twice"):
        DataDefinition([AttributeDefinition("a"), AttributeDefinition("a")])
    with pytest.raises(DefinitionError, match="without a definition: extra"):
        _definition().check_columns(["name", "age", "zip", "disease", "note", "extra"])


def test_data_types_need_their_parameters():
    with pytest.raises(DefinitionError, match="order"):
        DataType(DataKind.ORDINAL)
    with pytest.raises(DefinitionError, match="format"):
        DataType(DataKind.DATE)
    ordinal = DataType(DataKind.ORDINAL, order=("low", "mid", "high"))
    assert DataType.from_dict(ordinal.to_dict()) == ordinal
