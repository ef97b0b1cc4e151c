"""What the installed distribution carries besides code: its license and its type hints."""

from __future__ import annotations

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
