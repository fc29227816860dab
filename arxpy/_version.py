"""The package version, kept apart so low layers can read it without importing the API."""

__version__ = "0.1.0"
