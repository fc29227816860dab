"""The pieces of packaging/build.py that need no PyInstaller (fast); the whole build is
tested by tests/test_bundle.py (slow)."""

from __future__ import annotations

import configparser
import importlib.util
import shutil
import subprocess
import tarfile

import pytest
from conftest import REPO

from arxpy._version import __version__


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"packaging_{name}",
                                                  REPO / "packaging" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def build():
    return load("build")


def test_build_refuses_a_work_folder_inside_the_repository(build, capsys):
    work = REPO / "bundle-work"
    assert build.main(["--work", str(work)]) == 2
    assert "inside the repository" in capsys.readouterr().err
    assert not work.exists()


def test_build_refuses_an_output_folder_inside_the_repository(build, tmp_path, capsys):
    assert build.main(["--work", str(tmp_path), "--output", str(REPO / "packaging")]) == 2
    assert "--output" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # refused before anything was made


def test_default_work_folder_is_outside_the_repository(build, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert build.default_work_dir() == tmp_path / "arxpy-build"


def test_archive_is_named_after_the_package_version(build):
    assert build.version() == __version__


def test_pack_keeps_the_executable_under_a_versioned_folder(build, tmp_path):
    folder = tmp_path / "arxpy"
    (folder / "_internal").mkdir(parents=True)
    executable = folder / "arxpy"
    executable.write_text("#!/bin/sh\n")
    executable.chmod(0o755)
    (folder / "_internal" / "lib.so").write_bytes(b"\0" * 10)
    (folder / "link.so").symlink_to("_internal/lib.so")
    archive = build.pack(folder, tmp_path / "arxpy-1.2.3-linux-x86_64.tar.gz", "arxpy-1.2.3")
    with tarfile.open(archive) as tar:
        members = {member.name: member for member in tar.getmembers()}
    assert members["arxpy-1.2.3/arxpy"].mode & 0o111
    assert members["arxpy-1.2.3/link.so"].issym()  # links stay links (no duplicate copies)
    assert not list(tmp_path.glob("*.part"))


def test_desktop_entry_follows_the_freedesktop_keys():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # keys are case-sensitive
    entry.read(REPO / "resources" / "desktop" / "arxpy.desktop", encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application"
    assert section["Exec"].split()[0] == "arxpy" and section["Icon"] == "arxpy"
    assert section["Categories"].endswith(";")
    validate = shutil.which("desktop-file-validate")
    if validate:
        subprocess.run([validate, str(REPO / "resources/desktop/arxpy.desktop")], check=True)


def test_icons_render_at_every_theme_size(qapp, tmp_path):
    from PySide6.QtGui import QImage

    icons = load("icons")
    written = icons.render(REPO / "resources" / "icons" / "arxpy.svg", tmp_path)
    assert len(written) == len(icons.SIZES)
    for size, path in zip(icons.SIZES, written, strict=True):
        image = QImage(str(path))
        assert (image.width(), image.height()) == (size, size)
        assert image.pixelColor(size // 2, size // 2).alpha() == 255  # drawn, not empty
