"""``AnonymizationConfig.validate()`` checks and returns a normalized copy; the
configuration it checks stays as it was (issue 29)."""

from __future__ import annotations

import pytest

from arxpy.engine import AnonymizationConfig
from arxpy.errors import ConfigurationError
from arxpy.privacy import KAnonymity


def test_validate_leaves_the_configuration_as_it_was() -> None:
    config = AnonymizationConfig([KAnonymity(2)])
    config.suppression_limit = 1  # an int, as a script may set it
    config.privacy_models = (KAnonymity(3),)
    before = dict(vars(config))
    normalized = config.validate()
    assert all(vars(config)[name] is value for name, value in before.items())
    assert normalized is not config
    assert normalized.suppression_limit == 1.0 and isinstance(normalized.suppression_limit, float)
    assert isinstance(normalized.privacy_models, list)
    assert normalized.to_dict() == {**config.to_dict(), "suppression_limit": 1.0}


def test_validate_refuses_what_can_never_work_without_changing_it() -> None:
    config = AnonymizationConfig([KAnonymity(2)], suppression_limit=0.1)
    config.suppression_limit = 2.0
    with pytest.raises(ConfigurationError, match="suppression"):
        config.validate()
    assert config.suppression_limit == 2.0
