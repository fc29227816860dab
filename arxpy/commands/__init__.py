"""Sub-commands of the ``arxpy`` command line, one module each.

Each module exposes ``register(subparsers)`` adding its parser and setting
``func=run`` (a function ``run(args) -> int`` returning the exit code).
"""
