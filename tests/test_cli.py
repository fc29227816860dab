import pytest

from arxpy import __version__, cli


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"arxpy {__version__}"


@pytest.mark.parametrize(
    "argv, expected",
    [([], (None, False)), (["--example"], (None, True)), (["gui", "p.arxpy"], ("p.arxpy", False))],
)
def test_gui_is_the_default_command(monkeypatch, argv, expected):
    seen = {}

    def fake_run_app(project_path=None, example=False):
        seen["args"] = (None if project_path is None else str(project_path), example)
        return 0

    monkeypatch.setattr("arxpy.gui.app.run_app", fake_run_app)
    assert cli.main(argv) == 0
    assert seen["args"] == expected


def test_user_errors_are_one_line_and_exit_2(monkeypatch, capsys):
    from arxpy.errors import ProjectError

    def failing_run_app(project_path=None, example=False):
        raise ProjectError("Project file 'x.arxpy' does not exist.")

    monkeypatch.setattr("arxpy.gui.app.run_app", failing_run_app)
    assert cli.main(["gui", "x.arxpy"]) == 2
    err = capsys.readouterr().err
    assert err == "arxpy: error: Project file 'x.arxpy' does not exist.\n"


def test_the_command_line_starts_without_scipy():
    """scipy (0.2-0.3 s to import) is imported where an estimator, a test or a sparse
    product needs it; a run that needs none of them does not pay for it at start."""
    import subprocess
    import sys

    code = ("import sys, arxpy.cli; arxpy.cli.build_parser(); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'sklearn'}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"
