"""Entry point of the frozen desktop bundle: the same ``main`` as the ``arxpy`` command."""

import multiprocessing
import sys

from arxpy.cli import main

if __name__ == "__main__":
    # Worker processes of a frozen program start this executable again; without this
    # call they would run the application instead of their task.
    multiprocessing.freeze_support()
    sys.exit(main())
