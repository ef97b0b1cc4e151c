"""docs/speed.md's table is what scripts/speed_table.py makes of the saved reports in docs/records/speed/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.scripts import load_script

REPO = Path(__file__).resolve().parents[1]
REPORTS = [REPO / "docs" / "records" / "speed" / f"{env_id}.txt" for env_id in
           ("cromlet_v0", "chromino_v1", "kings_cribbage_v0", "krz_grtn_v1")]  # fmt: skip


def _script():
    return load_script("scripts/speed_table.py")


def test_the_page_shows_the_table_of_the_saved_reports():
    script, page = _script(), (REPO / "docs" / "speed.md").read_text()
    caption = re.search(r"Measured (\S+) on (.+?); steps per CPU-second", page)
    assert caption, "docs/speed.md's table needs its caption (date and machine)"
    runs = [script.parse(path.read_text(), str(path)) for path in REPORTS]
    table = script.table(runs, machine=caption.group(2), date=caption.group(1))
    assert script.replace(page, table) == page, "regenerate it: python scripts/speed_table.py ... --write docs/speed.md"


def test_a_report_gives_every_ratio_by_cpu_time():
    run = _script().parse(REPORTS[0].read_text())
    assert run.game == "cromlet_v0()"
    assert {theirs for _, theirs, _ in run.ratios} == {"connect_four_v3 AEC", "openspiel:cribbage engine"}
    ours, theirs, ratio = run.ratios[0]
    assert ratio == pytest.approx(run.rate[ours] / run.rate[theirs], rel=0.01)


def test_a_file_that_is_no_report_is_one_line_naming_it(tmp_path, capsys):
    page = tmp_path / "notes.txt"
    page.write_text("nothing measured here\n")
    assert _script().main([str(page)]) == 2
    assert (
        capsys.readouterr().err.strip()
        == f"speed_table: {page}: not a `tabletop speed` report (no engine loop or no ratio line)"
    )


def test_a_page_without_markers_is_refused(tmp_path):
    with pytest.raises(ValueError, match="speed-table"):
        _script().replace("# Speed\n", "| table |")
