"""docs/openspiel.md's CFR+ example runs as written (with fewer iterations) and prints NashConv."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="the openspiel extra is not installed (pip install tabletop-rl[openspiel])")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "openspiel.md"


@pytest.mark.slow
def test_the_cfr_plus_example_prints_nash_conv(capsys):
    block = re.search(r"<!-- cfr example -->\n```python\n(.*?)```\n<!-- /cfr example -->", PAGE.read_text(), re.S)
    assert block, "docs/openspiel.md keeps its CFR+ example between <!-- cfr example --> markers"
    code = block.group(1)
    assert len(code.strip().splitlines()) <= 15
    assert "ITERATIONS, EVERY = 100, 20" in code
    exec(compile(code.replace("ITERATIONS, EVERY = 100, 20", "ITERATIONS, EVERY = 2, 2"), str(PAGE), "exec"), {})
    printed = capsys.readouterr().out
    assert re.fullmatch(r"iteration 2: NashConv \d+\.\d{4}\n", printed), printed
