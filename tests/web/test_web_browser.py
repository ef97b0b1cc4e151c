"""`tabletop serve` in a real browser: Debian's chromium, driven by Playwright (no browser download).

A whole game of each game played by clicks against a heuristic; the KRZ GRTN guesser's page and its
traffic never hold the target; a policy running in its page (onnxruntime-web) makes the moves the Python
`OnnxAgent` makes; and the size of a page on first load. `TABLETOP_WEB_SCREENSHOTS=docs/img` also saves a
picture of each game in play (docs/play.md shows them).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install -e '.[dev]'")

from tabletop.agents import OnnxAgent
from tabletop.envs.krz_grtn.phases import GUESS, OVER
from tabletop.envs.krz_grtn.pictures import CONCEPTS
from tabletop.train.web.lobby import Lobby
from tabletop.train.web.server import Server, running, runtime_installed

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(),
        reason="Debian's chromium is not installed (apt-get install chromium; .ci/run does)",
    ),
]
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
    "--disable-background-networking",
    "--disable-component-update",
]  # no traffic beyond the page's own
SCREENSHOTS = os.environ.get("TABLETOP_WEB_SCREENSHOTS")
GAMES = {  # label: game, arguments, the heuristic across the table, the step after which a picture is taken
    "cromlet_v0": ("cromlet_v0", {}, "greedy", 30),
    "chromino_v1": ("chromino_v1", {}, "most_contacts", 24),
    "kings_cribbage_v0": ("kings_cribbage_v0", {}, "greedy", 30),
    "kings_cribbage_moves": ("kings_cribbage_v0", {"action_mode": "moves"}, "greedy", 10),
    "krz_grtn_v1": ("krz_grtn_v1", {"num_players": 3}, "skeleton", 16),
}
FIRST_LOAD_LIMIT = 200_000
"""Bytes a table page may take on first load (HTML, scripts, styles, the games list), the runtime aside."""


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def site():
    lobby = Lobby()
    with running(Server(lobby)) as base:
        yield base, lobby


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors = []
    tab.on("pageerror", lambda err: errors.append(str(err)))
    yield tab
    context.close()
    assert not errors, errors


def new_table(page, base: str, request: dict) -> dict:
    answer = page.request.post(
        base + "api/tables", data=json.dumps({"pace_ms": 0, **request}), headers={"Content-Type": "application/json"}
    )
    assert answer.ok, answer.text()
    return answer.json()


CLICKABLE = (
    "#menu:not([hidden]) button.choice",
    "#board .legal:not(.pick), #movebar button.move",
    "#board .legal.pick",
)
"""What to click, first found first: a choice in an open menu, an element that plays a move, one that picks
what to play (a tile, then its cell)."""
LOOK = f"""() => {{
  const body = document.body.dataset;
  return {{over: body.over === "1", step: Number(body.step),
           counts: {json.dumps(CLICKABLE)}.map((s) => document.querySelectorAll(s).length)}};
}}"""


def play_by_clicks(page, seed: int, on_turn=None, max_clicks: int = 4000) -> int:
    """Click legal moves until the game ends; returns the clicks made."""
    rng = random.Random(seed)
    clicks = 0
    while True:
        page.wait_for_selector("body[data-my-turn='1'], body[data-over='1']", timeout=60_000)
        seen = page.evaluate(LOOK)
        if seen["over"]:
            return clicks
        if on_turn is not None:
            on_turn(seen["step"])
        which = next((i for i, n in enumerate(seen["counts"]) if n), None)
        assert which is not None, f"my turn at step {seen['step']}, but nothing to click"
        try:
            page.locator(CLICKABLE[which]).nth(rng.randrange(seen["counts"][which])).click(timeout=5000)
        except sync_api.TimeoutError:
            pass  # redrawn under the pointer: look again
        clicks += 1
        assert clicks < max_clicks, "the game did not end"


@pytest.mark.parametrize("label", GAMES)
def test_a_whole_game_played_by_clicks_against_a_heuristic(page, site, label):
    base, lobby = site
    game, args, heuristic, picture_step = GAMES[label]
    count = 3 if game == "krz_grtn_v1" else 2
    made = new_table(page, base, {"game": game, "args": args, "seats": ["you", *[heuristic] * (count - 1)], "seed": 7})
    page.goto(base + made["link"].lstrip("/"))
    entry, _ = lobby.find(made["link"].rsplit("/", 1)[1])
    shot = []

    def picture(step: int) -> None:
        if SCREENSHOTS and not shot and step >= picture_step and page.locator("#board .legal").count():
            if not page.locator("#board .legal:not(.pick)").count():
                page.locator(CLICKABLE[2]).first.click()  # pick a tile, so the picture shows where it may go
            page.wait_for_timeout(800)  # let the last move arrive on screen
            page.screenshot(
                path=str(Path(SCREENSHOTS) / f"web_{label.removesuffix('_v0')}.png"),
                animations="disabled",
                full_page=True,
            )
            shot.append(step)

    clicks = play_by_clicks(page, seed=1, on_turn=picture)
    table = entry.table
    assert table.over and clicks >= sum(1 for seat, _ in table.moves if seat == 0) // 4
    assert page.locator("#result").is_visible()
    result = page.text_content("#result")
    verdict = {1: "you win", -1: "you lose", 0: "a draw"}[int(table.state.returns()[0])] if count == 2 else None
    assert verdict is None or result.startswith(verdict), result
    # step back through the finished game, as this seat saw it
    page.click("#first")
    page.wait_for_selector("body[data-step='0'][data-reviewing='1']")
    page.click("#forward")
    page.wait_for_selector("body[data-step='1']")
    page.click("#last")
    page.wait_for_selector(f"body[data-step='{len(table.moves)}'][data-reviewing='0']")


def test_a_kings_cribbage_move_in_moves_mode_is_one_click_on_a_cell_it_covers(page, site):
    base, lobby = site
    made = new_table(
        page,
        base,
        {"game": "kings_cribbage_v0", "args": {"action_mode": "moves"}, "seats": ["you", "greedy"], "seed": 3},
    )
    page.goto(base + made["link"].lstrip("/"))
    entry, _ = lobby.find(made["link"].rsplit("/", 1)[1])
    page.wait_for_selector("body[data-my-turn='1']")
    state = entry.table.state
    offered = state.view(0)["offered"]
    covered = {a % state.game.cells for move in offered for a in move}
    cells = {int(c) for c in page.locator("#board g.cell.legal").evaluate_all("(gs) => gs.map((g) => g.dataset.cell)")}
    assert cells == covered  # exactly the cells some offered move covers
    step = int(page.evaluate("document.body.dataset.step"))
    page.locator("#board g.cell.legal").first.click()
    if page.locator("#menu:not([hidden]) button.choice").count():  # several offered moves cover the cell
        page.locator("#menu:not([hidden]) button.choice").first.click()
    # the step moved on (the heuristic may answer at once); a selector, because polling a JavaScript string would
    # evaluate it in the page, which the page's CSP forbids (under load the first poll is false and it failed)
    page.wait_for_selector(f"body:not([data-step='{step}'])")
    seat, action = entry.table.moves[step]
    assert seat == 0 and action < state.game.max_moves  # a whole offered move, played by one choice


def test_the_krz_guesser_never_sees_the_target(page, site):
    base, lobby = site
    traffic, responses = [], []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: traffic.append(payload)))
    page.on("response", lambda response: responses.append(response))
    made = new_table(
        page,
        base,
        {"game": "krz_grtn_v1", "args": {"num_players": 3}, "seats": ["you", "skeleton", "skeleton"], "seed": 11},
    )
    page.goto(base + made["link"].lstrip("/"))
    entry, _ = lobby.find(made["link"].rsplit("/", 1)[1])
    table = entry.table
    play_by_clicks(page, seed=2)
    # the replay shows each step as this seat saw it live: while X waits for the clues, no target on the page
    hidden_steps = [
        step
        for step in range(len(table.moves))
        if table.position_at(step).x == 0 and table.position_at(step).phase not in (GUESS, OVER)
    ]
    assert hidden_steps, "seat 0 never guessed: choose another seed"
    page.click("#first")
    for step in range(len(table.moves)):
        page.wait_for_selector(f"body[data-step='{step}']")
        if step in hidden_steps:
            text = page.evaluate("document.documentElement.textContent")
            name = CONCEPTS[table.position_at(step).target].name
            assert not re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE), (step, name)
        page.keyboard.press("ArrowRight")
    checked = 0
    for payload in traffic:
        frame = json.loads(payload)
        if frame["type"] != "frame" or frame["over"]:
            continue
        state = table.position_at(frame["step"])
        if state.x != 0:
            continue
        assert frame["view"]["target"] is None and frame["view"]["target_position"] is None
        if state.phase != GUESS:
            target = CONCEPTS[state.target]
            assert f'"{target.name}"' not in payload and str(target.id) not in frame["names"]
            checked += 1
    assert checked > 0
    targets = {CONCEPTS[table.position_at(step).target].name for step in hidden_steps}
    for response in responses:  # pages, scripts and the games list never carry picture names at all
        body = response.body().decode("utf-8", "replace")
        assert not any(f'"{name}"' in body for name in targets), response.url


def test_a_policy_in_its_page_moves_as_the_python_onnx_agent_does(browser, cromlet_onnx_dir):
    if not runtime_installed():
        pytest.skip("onnxruntime-web is not installed: npm ci --prefix train/web (.ci/run does)")
    policy = f"onnx:{cromlet_onnx_dir}"
    lobby = Lobby(policies=(policy,), runtime=True)
    context = browser.new_context()
    tab = context.new_page()
    with running(Server(lobby)) as base:
        made = new_table(tab, base, {"game": "cromlet_v0", "seats": [f"page:{policy}", "greedy"], "seed": 5})
        (seat_page,) = made["invites"]
        tab.goto(base + seat_page["link"].lstrip("/"))
        tab.wait_for_selector("body[data-over='1'], body[data-policy='failed']", timeout=120_000)
        assert tab.get_attribute("body", "data-policy") == "ready", tab.text_content("#policy-status")
        in_page = tab.evaluate("window.tabletopPolicyMoves")
    context.close()
    table = lobby.find(made["link"].rsplit("/", 1)[1])[0].table
    agent = OnnxAgent(cromlet_onnx_dir)
    ours = [(step, action) for step, (seat, action) in enumerate(table.moves) if seat == 0]
    assert len(ours) > 20 and [(m["step"], m["action"]) for m in in_page] == ours
    for step, action in ours:
        state = table.position_at(step)
        assert agent.act(table.env.observer.encode(state, 0), state.legal_action_mask()) == action, step


def test_a_tiles_mode_kings_cribbage_table_with_an_in_page_moves_mode_policy_plays_to_the_end(page):
    """The shipped Kings Cribbage policy was trained in moves mode: offered as a page seat at the default tiles
    table, it plays through the tiles adapter on the server (the adapter is Python), and the game ends."""
    lobby = Lobby(runtime=True)
    with running(Server(lobby)) as base:
        made = new_table(page, base, {"game": "kings_cribbage_v0", "seats": ["you", "page:pretrained"], "seed": 3})
        page.goto(base + made["link"].lstrip("/"))
        play_by_clicks(page, seed=2)
        table = lobby.find(made["link"].rsplit("/", 1)[1])[0].table
        assert table.over and any(seat == 1 for seat, _ in table.moves)
        assert page.locator("#result").is_visible()


def test_the_pages_are_small_on_first_load(page, site, record_property):
    """Everything a page fetches before it shows its table (the form with the games list; a table page),
    read before the next navigation; a policy in the page adds onnxruntime-web's WebAssembly on top."""
    base, _ = site
    loaded = []
    page.on("response", lambda response: loaded.append(response))
    sizes = {}
    page.goto(base)
    page.wait_for_selector("#seats select")
    sizes["form"] = [(r.url, len(r.body())) for r in loaded]
    made = new_table(page, base, {"game": "kings_cribbage_v0", "seats": ["you", "greedy"], "seed": 1})
    loaded.clear()
    page.goto(base + made["link"].lstrip("/"))
    page.wait_for_selector("#board g.cell")
    sizes["table"] = [(r.url, len(r.body())) for r in loaded]
    for name, responses in sizes.items():
        assert all(url.startswith(base) for url, _ in responses)  # nothing from anywhere else
        total = sum(size for _, size in responses)
        record_property(f"{name}_page_bytes", total)
        print(f"\n{name} page, first load: {total} bytes in {len(responses)} responses")
        assert 0 < total < FIRST_LOAD_LIMIT


def test_the_form_starts_a_table_or_says_what_is_wrong(page, site):
    base, lobby = site
    page.goto(base)
    page.select_option("#game", "cromlet_v0")
    page.fill("#arg-hand_size", "99")
    page.click("#start")
    page.wait_for_selector("#error:has-text('hand_size=99 is not allowed')")
    page.fill("#arg-hand_size", "")
    page.select_option("#arg-num_players", "3")
    assert page.locator("#seats select").count() == 3
    page.select_option("#seat-1", "random")
    page.select_option("#seat-2", "patient")
    page.fill("#seed", "4")
    page.click("#start")
    page.wait_for_url(re.compile(r"/t/[\w-]{22}$"))
    page.wait_for_selector("#board g.stone")
    entry, viewer = lobby.find(page.url.rsplit("/", 1)[1])
    assert viewer == 0 and [s.spec for s in entry.table.seats] == ["human", "random", "patient"]
    assert page.text_content("#title") == "cromlet · you are player_0"
