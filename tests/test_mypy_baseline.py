"""`.ci/mypy_baseline.py`: mypy's errors without line numbers, compared with a baseline that may only shrink."""

from __future__ import annotations

import pytest
from support.scripts import load_script

checker = load_script(".ci/mypy_baseline.py")

ERROR = 'envs/core/aec.py:118: error: Item "None" of "State | None" has no attribute "view"  [union-attr]'


def test_an_error_is_kept_without_its_line_number():
    assert (
        checker.normalize(ERROR)
        == 'envs/core/aec.py: [union-attr] Item "None" of "State | None" has no attribute "view"'
    )
    moved = checker.normalize('a.py:9: error: Name "x" already defined on line 4  [no-redef]')
    assert moved == 'a.py: [no-redef] Name "x" already defined on line N'
    assert checker.normalize("envs/core/aec.py:118: note: See https://mypy.rtfd.io") is None
    assert checker.normalize("Found 1 error in 1 file (checked 3 source files)") is None


@pytest.fixture
def baseline(tmp_path, monkeypatch):
    """The checker with mypy's output replaced and its baseline in a temporary file."""
    lines: list[str] = []
    monkeypatch.setattr(checker, "run_mypy", lambda: lines)
    monkeypatch.setattr(checker, "BASELINE", tmp_path / "mypy-baseline.txt")
    monkeypatch.setattr(checker, "ROOT", tmp_path)
    return lines


def test_the_baseline_passes_until_an_error_appears_or_disappears(baseline, capsys):
    baseline.append(ERROR)
    assert checker.main(["--update"]) == 0 and checker.main([]) == 0
    baseline.append(ERROR.replace(":118:", ":140:").replace('"view"', '"scores"'))
    assert checker.main([]) == 1
    assert "new: envs/core/aec.py:140:" in capsys.readouterr().out  # the line, to find it
    baseline.clear()
    assert checker.main([]) == 1
    assert "shrink the baseline" in capsys.readouterr().out


def test_the_same_error_twice_needs_two_entries(baseline):
    baseline.append(ERROR)
    checker.main(["--update"])
    baseline.append(ERROR.replace(":118:", ":200:"))
    assert checker.main([]) == 1


def test_an_error_in_the_public_api_fails_even_in_the_baseline(baseline, capsys):
    baseline.append('envs/registry.py:80: error: Argument 1 to "resolve" has incompatible type  [arg-type]')
    checker.BASELINE.write_text('envs/registry.py: [arg-type] Argument 1 to "resolve" has incompatible type\n')
    assert checker.main([]) == 1 and "new: envs/registry.py:80:" in capsys.readouterr().out
    checker.main(["--update"])
    assert "registry" not in checker.BASELINE.read_text()
