"""What the command-line tests assert of a refused run (shared by several test files)."""

from __future__ import annotations

from arxpy.cli import main


def one_error_line(argv: list[str], capsys) -> str:
    """The one ``arxpy: error:`` line of a run that must fail with status 2 and no
    traceback (argparse's own refusals included)."""
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("arxpy: error:")]
    assert code == 2 and len(errors) == 1 and "Traceback" not in err, err
    return errors[0]
