"""Build the arxpy desktop bundle: ``python3 packaging/build.py [--output DIR]``.

1. Make a clean virtual environment in the work folder (outside the repository) and
   install arxpy's runtime dependencies only (``pip install <copy of the repo>``, no
   extras) plus PyInstaller, so nothing else on the machine is swept into the bundle.
2. Render the SVG icon to PNG (and ICO/ICNS on Windows/macOS).
3. Run PyInstaller on ``packaging/arxpy.spec`` (one folder).
4. Add the Linux desktop entry, icons and ``install-desktop-entry.sh`` to the folder
   and pack it as ``arxpy-<version>-<platform>.tar.gz``.

Nothing is written inside the repository. Prints the folder, the archive and their
sizes; exits 2 with one line on a problem the user can fix.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGING = REPO / "packaging"
#: PyInstaller 6 puts the libraries in <folder>/_internal and reads
#: importlib.resources of collected packages; 7 may change the spec format.
PYINSTALLER = "pyinstaller>=6.10,<7"
#: What of the repository a pip install needs (pyproject.toml reads the README; setup.py
#: declares the optional C kernel, built by the install when a compiler is at hand).
SOURCE_ITEMS = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "arxpy", "resources")


class BuildError(Exception):
    """A problem the person building can fix; printed as one line."""


def default_work_dir() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "arxpy-build"


def version() -> str:
    text = (REPO / "arxpy" / "_version.py").read_text(encoding="utf-8")
    match = re.search(r'__version__\s*=\s*"([^"]+)"', text)
    if match is None:
        raise BuildError("cannot read __version__ from arxpy/_version.py")
    return match.group(1)


def platform_tag() -> str:
    """``linux-x86_64``, ``windows-amd64``, ``macos-arm64`` ...: the archive's suffix."""
    system = {"linux": "linux", "win32": "windows", "darwin": "macos"}.get(sys.platform,
                                                                           sys.platform)
    return f"{system}-{platform.machine().lower()}"


def check_outside_repo(path: Path, option: str) -> None:
    resolved = path.resolve()
    if resolved == REPO or REPO in resolved.parents:
        raise BuildError(f"{option} '{path}' is inside the repository; choose a folder "
                         "outside it (nothing generated belongs in the source tree)")


def run(command: Sequence[str | Path], **kwargs) -> None:
    printable = " ".join(str(part) for part in command)
    print(f"$ {printable}", flush=True)
    result = subprocess.run([str(part) for part in command], check=False, **kwargs)
    if result.returncode != 0:
        raise BuildError(f"'{printable}' failed with exit status {result.returncode}")


def venv_python(env: Path) -> Path:
    return env / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def copy_source(destination: Path) -> Path:
    """A copy of what pip needs, so that pip's build folders stay out of the repo."""
    shutil.rmtree(destination, ignore_errors=True)
    destination.mkdir(parents=True)
    # Compiled extensions of an editable install are built again for the environment.
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "*.so", "*.pyd")
    for name in SOURCE_ITEMS:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=ignore)
        elif source.exists():
            shutil.copy2(source, destination / name)
    return destination


def make_environment(work: Path, python: str, reuse: bool) -> Path:
    """The build environment: arxpy's runtime dependencies and PyInstaller only."""
    env = work / "venv"
    if not (reuse and venv_python(env).exists()):
        run([python, "-m", "venv", "--clear", env])
    source = copy_source(work / "src")
    pip = [venv_python(env), "-m", "pip", "--disable-pip-version-check"]
    # --force-reinstall --no-deps: arxpy itself is always the current checkout.
    run([*pip, "install", "--quiet", source, PYINSTALLER])
    run([*pip, "install", "--quiet", "--force-reinstall", "--no-deps", source])
    return env


def render_icons(env: Path, out_dir: Path) -> Path:
    shutil.rmtree(out_dir, ignore_errors=True)
    run([venv_python(env), PACKAGING / "icons.py", REPO / "resources/icons/arxpy.svg",
         out_dir])
    if sys.platform == "darwin":  # iconutil wants an .iconset folder of named PNGs
        iconset = out_dir / "arxpy.iconset"
        iconset.mkdir()
        for size in (16, 32, 128, 256, 512):
            shutil.copy(out_dir / f"arxpy-{size}.png", iconset / f"icon_{size}x{size}.png")
        run(["iconutil", "-c", "icns", iconset, "-o", out_dir / "arxpy.icns"])
    return out_dir


def run_pyinstaller(env: Path, work: Path, output: Path, icons: Path) -> Path:
    folder = output / "arxpy"
    environment = {**os.environ, "ARXPY_BUNDLE_ICONS": str(icons)}
    # Only the build environment's packages: PyInstaller imports modules from its
    # working directory first, so it must not run in the checkout either.
    environment.pop("PYTHONPATH", None)
    run([venv_python(env), "-m", "PyInstaller", "--noconfirm", "--clean",
         "--log-level", "WARN", "--distpath", output, "--workpath", work / "pyinstaller",
         PACKAGING / "arxpy.spec"], env=environment, cwd=work)  # not the checkout's arxpy
    if not folder.is_dir():
        raise BuildError(f"PyInstaller finished without writing {folder}")
    return folder


def add_desktop_integration(folder: Path, icons: Path) -> None:
    """The freedesktop layout under share/, and the script that installs it per user."""
    applications = folder / "share" / "applications"
    applications.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "resources/desktop/arxpy.desktop", applications)
    hicolor = folder / "share" / "icons" / "hicolor"
    for png in icons.glob("arxpy-*.png"):
        size = png.stem.split("-")[1]
        target = hicolor / f"{size}x{size}" / "apps"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(png, target / "arxpy.png")
    scalable = hicolor / "scalable" / "apps"
    scalable.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "resources/icons/arxpy.svg", scalable)
    script = folder / "install-desktop-entry.sh"
    shutil.copy(PACKAGING / "linux" / "install-desktop-entry.sh", script)
    script.chmod(0o755)


def pack(folder: Path, archive: Path, top: str) -> Path:
    """``folder`` as ``top/`` in a gzip tarball (level 6: nearly 9's size, far faster)."""
    partial = archive.with_name(archive.name + ".part")
    with tarfile.open(partial, "w:gz", compresslevel=6) as tar:
        tar.add(folder, arcname=top)
    partial.replace(archive)  # never a half-written archive under the final name
    return archive


def size_of(folder: Path) -> int:
    """Bytes of the files under ``folder`` (links counted once, as links)."""
    return sum(path.lstat().st_size for path in folder.rglob("*") if not path.is_dir())


def build(output: Path, work: Path, python: str, reuse: bool) -> tuple[Path, Path]:
    check_outside_repo(work, "--work")
    check_outside_repo(output, "--output")
    work.mkdir(parents=True, exist_ok=True)
    output.mkdir(parents=True, exist_ok=True)
    steps = time.perf_counter()
    env = make_environment(work, python, reuse)
    icons = render_icons(env, work / "icons")
    folder = run_pyinstaller(env, work, output, icons)
    if sys.platform.startswith("linux"):
        add_desktop_integration(folder, icons)
    name = f"arxpy-{version()}"
    archive = pack(folder, output / f"{name}-{platform_tag()}.tar.gz", name)
    minutes = (time.perf_counter() - steps) / 60
    print(f"Built {folder} ({size_of(folder) / 1e6:.0f} MB unpacked) and {archive} "
          f"({archive.stat().st_size / 1e6:.0f} MB) in {minutes:.1f} min")
    return folder, archive


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=default_work_dir(), metavar="DIR",
                        help="build folder for the environment and PyInstaller's files "
                        "(default: %(default)s)")
    parser.add_argument("--output", type=Path, default=None, metavar="DIR",
                        help="where the bundle folder and archive go (default: WORK/dist)")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter of the build environment, 3.11 or newer with "
                        "a shared libpython (default: this one)")
    parser.add_argument("--reuse-env", action="store_true",
                        help="keep the build environment's installed dependencies from "
                        "the last build (faster; arxpy itself is always reinstalled)")
    args = parser.parse_args(argv)
    try:
        build(args.output or args.work / "dist", args.work, args.python, args.reuse_env)
    except BuildError as exc:
        print(f"build: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
