"""The repository speaks of what the software is and does, never of how it was made.

Every tracked text file (code, docs, configs, tests, scripts, examples, README, CHANGELOG) is read line by
line for the words of a work process: sessions of work, people ("the lead", a helper who ran something),
issue and pull-request numbers, team decisions, commit hashes and dates used as before/after markers,
"before this change", and files outside the repository (the rulings live in docs/rulings.md). History lives in
git and the CHANGELOG.

What stays allowed, exactly:
- the software's own sessions: onnxruntime's (`session = ort.InferenceSession(...)`, `session.run(`), Ray,
  HTTP, WebSocket and terminal sessions, `requests.Session`, pytest's `scope="session"`;
- helpers in the sense of functions ("the helpers every test may import");
- a date only where it says when a figure was measured: on a line that names the machine ("2 cores") or
  says "measured", in a Markdown table row, or in a CHANGELOG release heading (`## [0.2.0] - 2026-12-06`);
  never after "since", "until", "before", "after", "from", "by" or "as of".
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
THIS_FILE = Path(__file__).resolve().relative_to(REPO).as_posix()  # its examples are the forbidden forms
SKIPPED = {"train/web/package-lock.json"}  # npm's generated lock file: package names, versions and digests

ORDINALS = (
    r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|"
    r"fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-\w+|thirtieth|\d+(?:st|nd|rd|th)"
)
DATE = r"\b20\d\d-[01]\d-[0-3]\d\b"

# The software's own sessions, removed from a line before the session rule reads it.
ALLOWED_SESSIONS = re.compile(
    r"\bsession\s*=\s*(?:await\s+)?(?:ort|onnxruntime)\.InferenceSession"
    r"|\bsession\.run\("
    r"|\bscope\s*=\s*[\"']session[\"']"
    r"|\brequests\.Session\b"
    r"|\b(?:Ray|HTTP|WebSocket|terminal) sessions?\b",
    re.IGNORECASE,
)

# name -> pattern; a line breaks a rule when its pattern matches (the session rule after the allow-list).
RULES = {
    "a session of work": re.compile(r"\bsessions?\b", re.IGNORECASE),
    "the Nth session": re.compile(rf"\b(?:{ORDINALS})\s+sessions?\b", re.IGNORECASE),
    "a helper (a person)": re.compile(
        r"\bhelpers?\s+(?:sessions?|engineers?|agents?|bench|branch(?:es)?)\b"
        r"|\bhelper's\b|\bhelpers'"
        r"|\b(?:by|asked|asks|ask|told|tells|tell)\s+(?:a|the|one|two|three|four|several)\s+helpers?\b"
        r"|\b(?:a|the|one|each|two|three|four|several)\s+helpers?\s+(?:ran|runs|measured|measures|found|finds|"
        r"wrote|writes|built|builds|reported|reports|said|says|tried|tries|owns|owned|did|does|will|would)\b",
        re.IGNORECASE,
    ),
    "the lead": re.compile(
        r"(?<!\bin )(?<!\btake )(?<!\btakes )(?<!\btook )\bthe lead\b(?!\s+(?:cards?|suits?|tiles?|seats?|players?))",
        re.IGNORECASE,
    ),
    "a team decision": re.compile(r"\bteam decisions?\b", re.IGNORECASE),
    "an issue or pull-request number": re.compile(
        r"\b(?:issues?|PRs?|pull requests?)\s*#?\d+\b|(?<![\w&#/\"'=-])#\d+(?![\w\"';-])", re.IGNORECASE
    ),
    "a commit hash": re.compile(
        r"(?<![\w#.-])(?!\d+e\d+(?![\w-]))(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,12}(?![\w-])"
    ),
    "a date as a before/after marker": re.compile(
        rf"\b(?:since|until|till|before|after|from|by|as of|up to)\s+(?:\(|the\s+)?{DATE}", re.IGNORECASE
    ),
    "a file outside the repository": re.compile(r"\bRULINGS\.md\b|(?<![\w./-])seeds/"),
    "before this change": re.compile(
        r"\b(?:before|after|until|since)\s+(?:this|that)\s+(?:change|commit|patch|pull request)\b", re.IGNORECASE
    ),
}
FIGURE_LINE = re.compile(r"\d+\s+(?:\w+\s+)?cores?\b|\bmeasured\b", re.IGNORECASE)
RELEASE_HEADING = re.compile(rf"^## \[[^\]]+\] - {DATE}\s*$")
ANY_DATE = re.compile(DATE)


def broken_rules(line: str, path: str) -> list[str]:
    """The names of the rules `line` of the file at `path` (relative to the repository) breaks."""
    broken = []
    for name, pattern in RULES.items():
        text = ALLOWED_SESSIONS.sub("", line) if "session" in name else line
        if pattern.search(text):
            broken.append(name)
    if ANY_DATE.search(line) and "a date as a before/after marker" not in broken and not _date_allowed(line, path):
        broken.append("a date that marks no measured figure")
    return broken


def _date_allowed(line: str, path: str) -> bool:
    if path == "CHANGELOG.md" and RELEASE_HEADING.match(line):
        return True
    if path.endswith(".md") and line.lstrip().startswith("|"):
        return True
    return bool(FIGURE_LINE.search(line))


def scan(path: str, text: str) -> list[str]:
    """`path:line: rule: text` for every line of `text` that breaks a rule."""
    if not any(pattern.search(text) for pattern in (*RULES.values(), ANY_DATE)):
        return []  # most files: no line can break a rule
    return [
        f"{path}:{number}: {', '.join(broken)}: {line.strip()[:160]}"
        for number, line in enumerate(text.splitlines(), start=1)
        if (broken := broken_rules(line, path))
    ]


def _tracked_text_files() -> dict[str, str]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    texts = {}
    for path in listed.decode().split("\0"):
        file = REPO / path
        if not path or path in SKIPPED or path == THIS_FILE or not file.is_file():
            continue
        data = file.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary: pictures, ONNX models
        try:
            texts[path] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def test_no_tracked_file_speaks_of_how_the_repository_was_made():
    hits = [hit for path, text in sorted(_tracked_text_files().items()) for hit in scan(path, text)]
    files = sorted({hit.split(":", 1)[0] for hit in hits})
    assert not hits, (
        f"{len(hits)} lines in {len(files)} files speak of the work process ({', '.join(files)}); "
        "say what is true now (this module's docstring lists what is allowed):\n" + "\n".join(hits)
    )


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("Measured in the thirteenth session on an idle machine.", "the Nth session"),
        ("(2026-12-02, 7th session)", "the Nth session"),
        ("at a budget that one 3-hour session of this machine reaches", "a session of work"),
        ("The rest of the budget did not finish in this session.", "a session of work"),
        ("Built by three helper sessions (KRZ GRTN, Chromino).", "a helper (a person)"),
        ("the runner's modules (helper bench's branch)", "a helper (a person)"),
        ("a helper measured 1.4x on the same seeds", "a helper (a person)"),
        ("as asked by the helpers", "a helper (a person)"),
        ("the helper's run folder", "a helper (a person)"),
        ("integrated and reviewed by the lead.", "the lead"),
        ("or a team decision to ship a level one", "a team decision"),
        ("expert iteration (issue 24).", "an issue or pull-request number"),
        ("Issues 21 and 24 set the targets", "an issue or pull-request number"),
        ("fixed in PR 7", "an issue or pull-request number"),
        ("as #49 asks,", "an issue or pull-request number"),
        ("(see #3)", "an issue or pull-request number"),
        ("the policy before, kept in git at 4c08738", "a commit hash"),
        ("since abc1234 the mask is exact", "a commit hash"),
        ("before = 5ba459f, after = cee0ddb.", "a commit hash"),
        ("its policy.pt hashes 0aafbf61...", "a commit hash"),
        ("since 2026-12-03: 64 games", "a date as a before/after marker"),
        ("eight epochs before 2026-12-03 on 2 cores", "a date as a before/after marker"),
        ("Its policy shipped alone until 2026-12-04.", "a date as a before/after marker"),
        ("Run again on 2026-12-02 after the opening became orderings.", "a date that marks no measured figure"),
        ("- 2026-12-03: the reader learns clues", "a date that marks no measured figure"),
        ("The suite ran 18 minutes before this change.", "before this change"),
        ("after that commit the mask is exact", "before this change"),
        ("56 consonants of 21 kinds (RULINGS.md)", "a file outside the repository"),
        ("the rulebook, `seeds/004_edbd2c4e57b3786e.txt`", "a file outside the repository"),
    ],
)
def test_each_forbidden_form_is_found(line, rule):
    assert rule in broken_rules(line, "docs/x.md")


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ('session = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])', "docs/export.md"),
        ("const session = await ort.InferenceSession.create(url);", "train/web/static/policy.js"),
        ('logits, actions = session.run(["logits", "action"], feeds)', "agents/onnx_agent.py"),
        ('@pytest.fixture(scope="session")', "tests/conftest.py"),
        ("A learner holds a Ray session from `start` to `close`.", "train/benchmark/families/rllib.py"),
        ("one HTTP session per client; a WebSocket session per table", "docs/play.md"),
        ("so a transcript reads like a terminal session", "train/serving/play.py"),
        ("client = requests.Session()", "tests/support/web.py"),
        ("sess = onnxruntime.InferenceSession(path)", "agents/onnx_agent.py"),
        ("the helpers every test may import: tests/support/", "pyproject.toml"),
        ('"""Helpers for the KRZ GRTN tests (no tests here)."""', "tests/support/krz_grtn.py"),
        ("one helper (_move_rows) makes room for moves", "envs/kings_cribbage/kernels.py"),
        ("drawing helpers, the game's drawing, style", "docs/play.md"),
        ("The seat in the lead moves last.", "docs/x.md"),
        ("leads the lead suit", "docs/x.md"),
        ("the lead card", "docs/x.md"),
        ("an issue the rulebook leaves open", "docs/rulings.md"),
        ("## 2. Legal actions", "docs/x.md"),
        ('stroke: "#333", fill: "#151515"', "train/web/static/boards/chromino.js"),
        ("color: #333;", "train/web/static/style.css"),
        ("[the rulings](rulings.md#kings-cribbage)", "docs/x.md"),
        ("seed 1234567 and 20000000 steps", "docs/x.md"),
        ("1e10000 is inf; 0xdeadbeef1 is an address; sha256 of 64 hex", "docs/x.md"),
        ("a_checksum_1a2b3c4d5e", "envs/x.py"),
        ("| shipped policy | 0.540 | 2,000 | 2026-12-06 |", "docs/results.md"),
        ("Measured on 2026-12-06 (2 cores, AMD EPYC).", "docs/speed.md"),
        ("# 170 learner steps/s on 2 busy cores (2026-12-01)", "configs/chromino.yaml"),
        ("## [0.2.0] - 2026-12-06", "CHANGELOG.md"),
        ("The mask changed and the bench reran.", "docs/x.md"),
        ("56 consonants of 21 kinds (docs/rulings.md)", "envs/krz_grtn/tiles.py"),
        ("--seeds 3 --out runs/seeds/a", "docs/x.md"),
    ],
)
def test_the_allowed_forms_pass(line, path):
    assert broken_rules(line, path) == []


def test_a_date_outside_a_figure_line_or_a_release_heading_is_refused():
    assert broken_rules("- 2026-12-06: the bench learns KRZ GRTN", "CHANGELOG.md")
    assert broken_rules("## [0.2.0] - 2026-12-06", "docs/x.md")
    assert broken_rules("| 2026-12-06 | the mask |", "envs/x.py")  # a table row counts in Markdown only
