"""Entry point of the frozen desktop bundle: the same program as the ``arxpy`` command."""

import multiprocessing

from arxpy.cli import console_main

if __name__ == "__main__":
    # Worker processes of a frozen program start this executable again; without this
    # call they would run the application instead of their task.
    multiprocessing.freeze_support()
    console_main()
