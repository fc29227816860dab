"""A registry of model classes by key, so project files, the CLI and the GUI name them alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from arxpy.errors import ConfigurationError

T = TypeVar("T")


class Registry(Generic[T]):
    """Classes by the value of their ``key_attribute``; rebuilds instances from dicts.

    Classes are listed in the order they registered (the order menus show them in).
    """

    def __init__(self, what: str, key_attribute: str) -> None:
        self._what = what  # e.g. "privacy model", for messages
        self._key = key_attribute
        self._classes: dict[str, type[T]] = {}

    def register(self, cls: type[T]) -> type[T]:
        """Class decorator: make ``cls`` known under its key."""
        self._classes[getattr(cls, self._key)] = cls
        return cls

    def unregister(self, key: str) -> None:
        """Forget the class known under ``key`` (a class registered for a while, as the
        conformance tests do with deliberately broken methods)."""
        self._classes.pop(key, None)

    def from_dict(self, d: Any) -> T:
        """An instance from ``to_dict`` output; the constructor takes the other keys.

        The class's parameter declaration checks every value: anything that does not fit
        (an unknown key, a bad value, not a dict at all) raises ConfigurationError naming
        the model and the setting.
        """
        if not isinstance(d, Mapping):
            raise ConfigurationError(
                f"A {self._what} must be given as a mapping with its '{self._key}' and "
                f"settings, got {d!r}.")
        params = dict(d)
        key = params.pop(self._key, None)
        if not isinstance(key, str) or key not in self._classes:
            known = ", ".join(sorted(self._classes))
            raise ConfigurationError(f"Unknown {self._what} '{key}'. Known: {known}.")
        if not all(isinstance(name, str) for name in params):
            raise ConfigurationError(f"The settings of {self._what} '{key}' must be named.")
        try:
            return self._classes[key](**params)
        except (TypeError, ValueError) as exc:  # a constructor outside the declaration
            raise ConfigurationError(f"Invalid settings of {self._what} '{key}': {exc}.") from None

    def keys(self) -> list[str]:
        return sorted(self._classes)

    def classes(self) -> dict[str, type[T]]:
        """Every registered class by key."""
        return dict(self._classes)
