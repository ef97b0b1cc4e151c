"""Without the openspiel extra, importing the OpenSpiel games is one line that says how to install it."""

from __future__ import annotations

import subprocess
import sys


def test_importing_without_pyspiel_names_the_extra():
    code = "import sys; sys.modules['pyspiel'] = None; import tabletop.envs.openspiel"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last == 'ImportError: tabletop.envs.openspiel needs OpenSpiel: pip install "tabletop-rl[openspiel]"'
