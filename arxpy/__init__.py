"""arxpy: a desktop de-identification workbench for health data in the style of ARX."""

__version__ = "0.1.0"
