"""A registry of model classes by key, so project files, the CLI and the GUI name them alike."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from arxpy.errors import ConfigurationError

T = TypeVar("T")


class Registry(Generic[T]):
    """Classes by the value of their ``key_attribute``; rebuilds instances from dicts."""

    def __init__(self, what: str, key_attribute: str) -> None:
        self._what = what  # e.g. "privacy model", for messages
        self._key = key_attribute
        self._classes: dict[str, type[T]] = {}

    def register(self, cls: type[T]) -> type[T]:
        """Class decorator: make ``cls`` known under its key."""
        self._classes[getattr(cls, self._key)] = cls
        return cls

    def from_dict(self, d: dict[str, Any]) -> T:
        """An instance from ``to_dict`` output; the constructor takes the other keys."""
        params = dict(d)
        key = params.pop(self._key, None)
        if key not in self._classes:
            known = ", ".join(sorted(self._classes))
            raise ConfigurationError(f"Unknown {self._what} '{key}'. Known: {known}.")
        return self._classes[key](**params)

    def keys(self) -> list[str]:
        return sorted(self._classes)

    def classes(self) -> dict[str, type[T]]:
        """Every registered class by key."""
        return dict(self._classes)
