"""What joins methods to analyses and to the user's work, without Qt.

The GUI and the command line call these workflows; nothing here draws or imports Qt
(the import contracts in pyproject.toml say so).
"""
