"""What the installed distribution carries besides code: its version, its license and its type hints."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


def test_the_license_file_is_the_license_pyproject_declares():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Permission is hereby granted, free of charge" in text


def test_every_top_level_package_ships_py_typed():
    package_dirs = PYPROJECT["tool"]["setuptools"]["package-dir"]
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["*"]
    for folder in package_dirs.values():
        assert (REPO / folder / "py.typed").is_file(), f"{folder}/py.typed is missing"


def test_tabletop_version_prints_the_version_pyproject_declares():
    declared = PYPROJECT["project"]["version"]
    assert metadata.version("tabletop-rl") == declared, "the installed metadata is stale: pip install -e ."
    done = subprocess.run(
        [sys.executable, "-c", "from tabletop.train.cli import main; main(['--version'])"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, f"tabletop {declared}\n")
