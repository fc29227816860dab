"""The desktop bundle, frozen by PyInstaller (`packaging/build.py`), run as a custodian
would: from its folder, with no Python on the PATH and a minimal environment.

Slow (deselected by default): building takes about 11 minutes on the 2-core machine.
``ARXPY_BUNDLE=/path/to/folder`` (the folder holding the ``arxpy`` executable) tests
a bundle built before instead of building one.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tarfile
from pathlib import Path

import pytest
from conftest import REPO
from test_gui_smoke import check_k_anonymous_release

from arxpy._version import __version__
from arxpy.example import example_files

EXECUTABLE = "arxpy.exe" if sys.platform == "win32" else "arxpy"
BUILD_TIMEOUT_S = 25 * 60
# The first test also waits for the build (pytest-timeout's default is 300 s).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(BUILD_TIMEOUT_S + 300)]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path | None]:
    """(bundle folder, archive); the archive is None for a bundle given by ARXPY_BUNDLE."""
    given = os.environ.get("ARXPY_BUNDLE")
    if given:
        folder = Path(given)
        assert (folder / EXECUTABLE).is_file(), f"ARXPY_BUNDLE={given} holds no {EXECUTABLE}"
        return folder, None
    work = tmp_path_factory.mktemp("bundle-build")
    status, output = build_bundle(work)
    assert status == 0, output[-8000:]
    archives = list((work / "dist").glob("arxpy-*.tar.gz"))
    return work / "dist" / "arxpy", archives[0] if archives else None


def build_bundle(work: Path) -> tuple[int, str]:
    """Run packaging/build.py; on a timeout stop it with pip and PyInstaller under it."""
    build = subprocess.Popen([sys.executable, str(REPO / "packaging" / "build.py"),
                              "--work", str(work)], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = build.communicate(timeout=BUILD_TIMEOUT_S)
    finally:
        if build.poll() is None:
            os.killpg(build.pid, signal.SIGKILL)
            build.wait()
    return build.returncode, output


@pytest.fixture
def bundle(built) -> Path:
    return built[0]


def frozen(bundle: Path, home: Path, *args: str, timeout: float = 300):
    """Run the bundle's executable with only its own folder on the PATH: no Python, no
    PYTHONPATH or PYTHONHOME, a fresh home, Qt offscreen."""
    home.mkdir(parents=True, exist_ok=True)
    env = {"PATH": str(bundle), "HOME": str(home), "LANG": "C.UTF-8",
           "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([str(bundle / EXECUTABLE), *args], env=env, cwd=home,
                          capture_output=True, text=True, timeout=timeout)


def test_no_python_is_reachable_from_the_bundle_path(bundle):
    for name in ("python", "python3", f"python{sys.version_info[0]}.{sys.version_info[1]}"):
        assert shutil.which(name, path=str(bundle)) is None


def test_frozen_gui_anonymizes_the_bundled_example_and_exports_it(bundle, tmp_path):
    out = tmp_path / "released.csv"
    done = frozen(bundle, tmp_path / "home", "gui", "--example", "--smoke-test", str(out))
    assert done.returncode == 0, done.stderr
    assert "smoke test passed" in done.stdout
    check_k_anonymous_release(out, records=40_000)


def test_frozen_cli_reports_its_version_and_writes_the_example(bundle, tmp_path):
    version = frozen(bundle, tmp_path / "home", "--version")
    assert version.returncode == 0
    assert version.stdout.strip() == f"arxpy {__version__}"
    target = tmp_path / "example"
    done = frozen(bundle, tmp_path / "home", "example", "--output", str(target),
                  "--records", "500")
    assert done.returncode == 0, done.stderr
    for name in example_files():  # reference tables read from the bundled package data
        assert (target / name).is_file(), name


def test_frozen_cli_anonymizes_a_project(bundle, tmp_path):
    home = tmp_path / "home"
    assert frozen(bundle, home, "example", "--output", str(tmp_path / "ex"),
                  "--records", "2000").returncode == 0
    out = tmp_path / "released.csv"
    done = frozen(bundle, home, "anonymize", "--project", str(tmp_path / "ex/discharge.arxpy"),
                  "--output", str(out))
    assert done.returncode == 0, done.stderr
    check_k_anonymous_release(out, records=2000)


def test_frozen_cli_lists_every_method(bundle, tmp_path):
    from arxpy.methods import method_names

    done = frozen(bundle, tmp_path / "home", "methods")
    assert done.returncode == 0, done.stderr
    for name in method_names():  # registered by modules imported by name
        assert name in done.stdout


def test_user_errors_stay_one_line_when_frozen(bundle, tmp_path):
    done = frozen(bundle, tmp_path / "home", "anonymize", "--project",
                  str(tmp_path / "missing.arxpy"))
    assert done.returncode == 2
    assert done.stderr.startswith("arxpy: error:") and "Traceback" not in done.stderr


def test_bundle_leaves_out_what_arxpy_does_not_use(bundle):
    names = [path.relative_to(bundle).as_posix() for path in bundle.rglob("*")]
    unused = re.compile(r"Qt6(Quick|Qml|WebEngine|3D|Multimedia|Designer|Pdf)|libqgtk3|"
                        r"libpango|libgtk|(^|/)(duckdb|polars|pyarrow|torch|tkinter|IPython)/")
    assert [name for name in names if unused.search(name)] == []
    assert any(name.endswith("arxpy/resources/example/counties.csv") for name in names)
    assert any(name.endswith("arxpy/resources/icons/arxpy.svg") for name in names)


def test_bundle_carries_the_search_kernel_where_it_could_be_built(built):
    # The build compiles arxpy's optional C kernel when a compiler is at hand; a bundle
    # built here must then carry it (else the frozen search runs on its slower numpy path).
    bundle, archive = built
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if archive is None or shutil.which(compiler) is None:
        pytest.skip("a bundle given by ARXPY_BUNDLE, or no C compiler here")
    kernels = [p for p in bundle.rglob("_kernels*") if p.suffix in (".so", ".pyd")]
    assert [p.relative_to(bundle).parent.as_posix() for p in kernels] == \
        ["_internal/arxpy/lattice"]


def test_desktop_entry_installs_with_the_bundle_path(bundle, tmp_path):
    entry = (bundle / "share/applications/arxpy.desktop").read_text()
    assert "Exec=arxpy %f" in entry and "Icon=arxpy" in entry
    assert (bundle / "share/icons/hicolor/256x256/apps/arxpy.png").is_file()
    data = tmp_path / "data"
    subprocess.run(["sh", str(bundle / "install-desktop-entry.sh")], check=True,
                   env={**os.environ, "XDG_DATA_HOME": str(data)}, capture_output=True)
    installed = (data / "applications/arxpy.desktop").read_text()
    assert f'Exec="{bundle.resolve()}/arxpy" %f' in installed
    assert (data / "icons/hicolor/48x48/apps/arxpy.png").is_file()


def test_archive_holds_the_versioned_folder(built):
    folder, archive = built
    if archive is None:
        pytest.skip("ARXPY_BUNDLE names a folder; its archive was not built by this test")
    assert archive.name == f"arxpy-{__version__}-linux-x86_64.tar.gz"
    with tarfile.open(archive) as tar:
        executable = tar.getmember(f"arxpy-{__version__}/arxpy")
    assert executable.mode & 0o111


@pytest.mark.perf
def test_frozen_window_is_usable_within_five_seconds(bundle, tmp_path):
    done = frozen(bundle, tmp_path / "home", "gui", "--startup-time")
    assert done.returncode == 0, done.stderr
    seconds = float(re.search(r"window usable after (\d+\.\d+) s", done.stdout).group(1))
    assert seconds < 5.0
