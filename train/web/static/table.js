// The table page: one websocket to the server, bound to the seat (or the spectator) its link names.
// The server sends frames (this viewer's view, its transcript lines, its legal moves on its turn); the
// game's drawing in boards/<game>.js turns a frame into SVG and says which legal move each element plays.
import { clear, seatColour } from "/static/draw.js";

const $ = (id) => document.getElementById(id);
const token = location.pathname.split("/").pop();
const compact = new URLSearchParams(location.search).has("compact");

const page = {
  hello: null,     // the table: game, arguments, players, public constants, this page's viewer
  board: null,     // the game's drawing module
  live: null,      // the newest frame
  shown: null,     // the frame on screen: the live one, or a step of a finished game under review
  previous: null,  // the view drawn before, so new pieces can arrive with a flourish
  log: [],         // transcript lines, oldest first
  selection: {},   // the drawing's own choice in progress (a tile picked, a mode), cleared each step
  policy: null,    // the policy running in this page, for a seat played by one
  sent: null,      // the step a move was sent at: no second move until the server answers
  socket: null,
};

function send(message) {
  if (page.socket && page.socket.readyState === WebSocket.OPEN) page.socket.send(JSON.stringify(message));
}

function seatName(seat) {
  if (seat === page.hello.viewer) return "you";
  return `player_${seat}`;
}

function playerLabel(seat) {
  const p = page.hello.players[seat];
  return seat === page.hello.viewer ? "you" : p.plays;
}

// --- what the board can play ---------------------------------------------------------------------
function legalByKey(frame) {
  const map = new Map();
  const loose = [];
  for (const [action, name] of frame.legal || []) {
    const key = page.board.target(action, frame, page.hello.static);
    if (key === null) { loose.push([action, name]); continue; }
    if (!map.has(key)) map.set(key, []);
    map.get(key).push([action, name]);
  }
  return { map, loose };
}

function interactive() {
  const f = page.shown;
  return f === page.live && !f.over && f.legal !== null && !page.hello.policy && page.sent !== f.step;
}

const ui = {
  keys: new Map(),
  get interactive() { return interactive(); },
  get selection() { return page.selection; },
  get previous() { return page.previous; },
  get viewer() { return page.hello.viewer; },
  colour: seatColour,
  options(key) { return this.keys.get(key) || []; },
  // A click on an element that stands for `keys`: one legal move plays at once, several ask which.
  pick(keys, event, filter = () => true) {
    const options = [].concat(...[].concat(keys).map((k) => this.options(k))).filter(([a]) => filter(a));
    if (options.length === 1) this.play([options[0][0]]);
    else if (options.length > 1) showMenu(options, event);
  },
  play(actions) {
    hideMenu();
    page.sent = page.live.step;
    send({ type: "move", actions, step: page.live.step });
    draw();
  },
  redraw() { draw(); },
};

// --- drawing -------------------------------------------------------------------------------------
function draw() {
  const frame = page.shown;
  const { map, loose } = legalByKey(frame);
  ui.keys = interactive() ? map : new Map();
  const root = $("board");
  clear(root);
  page.board.draw(root, frame, page.hello.static, ui);
  drawMoveBar(interactive() ? loose : []);
  drawPlayers(frame);
  drawStatus(frame);
  drawResult(frame);
  drawReview(frame);
  const body = document.body.dataset;
  body.step = frame.step;
  body.toMove = frame.to_move;
  body.over = frame.over ? "1" : "0";
  body.myTurn = interactive() ? "1" : "0";
  body.reviewing = frame === page.live ? "0" : "1";
}

function drawMoveBar(loose) {
  const bar = $("movebar");
  bar.replaceChildren();
  for (const [action, name] of loose) {
    const button = document.createElement("button");
    button.className = "move";
    button.textContent = name;
    button.dataset.action = action;
    button.addEventListener("click", () => ui.play([action]));
    bar.append(button);
  }
}

function drawPlayers(frame) {
  const list = $("players");
  list.replaceChildren();
  for (const p of page.hello.players) {
    const li = document.createElement("li");
    if (p.seat === frame.to_move) li.className = "to-move";
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = seatColour(p.seat);
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = `player_${p.seat} · ${playerLabel(p.seat)}`;
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = frame.scores[p.seat];
    const info = document.createElement("span");
    info.className = "info";
    info.textContent = page.board.playerInfo ? page.board.playerInfo(p.seat, frame, page.hello.static) : "";
    li.append(swatch, who, score, info);
    list.append(li);
  }
}

function drawStatus(frame) {
  const status = $("status");
  status.classList.remove("mine");
  if (frame.failure) status.textContent = frame.failure;
  else if (frame.over) status.textContent = "game over";
  else if (frame !== page.live) status.textContent = `replay: step ${frame.step} of ${page.live.moves}`;
  else if (interactive()) { status.textContent = "your move"; status.classList.add("mine"); }
  else if (page.sent === frame.step && frame === page.live) status.textContent = "sending your move…";
  else if (page.hello.policy && frame.to_move === page.hello.viewer) status.textContent = "the policy is choosing";
  else status.textContent = `${seatName(frame.to_move)} (${playerLabel(frame.to_move)}) to move${frame.paused ? " · paused" : ""}`;
}

function drawResult(frame) {
  const box = $("result");
  box.hidden = !frame.over;
  if (!frame.over) return;
  const returns = frame.returns;
  const seat = page.hello.viewer;
  let text;
  if (returns.length === 1) text = `your return: ${returns[0]}`;
  else if (seat === null) {
    const best = Math.max(...returns);
    const winners = returns.map((r, s) => (r === best && r > 0 ? `player_${s}` : null)).filter(Boolean);
    text = winners.length ? `won by ${winners.join(", ")}` : "nobody wins";
  } else text = returns[seat] > 0 ? "you win" : returns[seat] < 0 ? "you lose" : "a draw";
  box.textContent = `${text} · scores ${frame.scores.join(" · ")}`;
  box.className = `result${seat !== null && returns[seat] < 0 ? " loss" : ""}`;
}

function drawReview(frame) {
  const over = page.live && page.live.over;
  $("review-box").hidden = !over;
  const viewer = page.hello.viewer;
  const canSave = viewer === null || over;
  $("save-box").hidden = !canSave;
  if (canSave) $("save").href = `/api/position/${token}?step=${frame.step}`;
  if (!over) return;
  $("step-out").textContent = `${frame.step} / ${page.live.moves}`;
  $("first").disabled = $("back").disabled = frame.step === 0;
  $("forward").disabled = $("last").disabled = frame.step === page.live.moves;
}

function drawLog() {
  const list = $("log");
  list.replaceChildren();
  const lines = page.shown === page.live ? page.log : page.shown.log;
  lines.slice().reverse().forEach((line, i) => {
    const li = document.createElement("li");
    if (i === 0 && page.shown === page.live) li.className = "latest";
    const mover = document.createElement("span");
    mover.className = "mover";
    mover.style.color = seatColour(line.seat);
    mover.textContent = `${seatName(line.seat)}: `;
    li.append(mover, line.text);
    list.append(li);
  });
}

let bannerTimer = null;
function announce(lines) {
  const others = lines.filter((l) => l.seat !== page.hello.viewer);
  if (!others.length) return;
  const last = others[others.length - 1];
  const banner = $("banner");
  banner.textContent = `${seatName(last.seat)}: ${last.text}`;
  banner.classList.add("show");
  clearTimeout(bannerTimer);
  bannerTimer = setTimeout(() => banner.classList.remove("show"), 1800);
}

function showMenu(options, event) {
  const menu = $("menu");
  menu.replaceChildren();
  for (const [action, name] of options) {
    const button = document.createElement("button");
    button.className = "choice";
    button.textContent = name;
    button.dataset.action = action;
    button.addEventListener("click", (e) => { e.stopPropagation(); ui.play([action]); });
    menu.append(button);
  }
  const area = document.querySelector(".board-area").getBoundingClientRect();
  menu.style.left = `${Math.max(4, (event ? event.clientX : area.left + 40) - area.left)}px`;
  menu.style.top = `${Math.max(4, (event ? event.clientY : area.top + 40) - area.top)}px`;
  menu.hidden = false;
}

function hideMenu() { $("menu").hidden = true; }

function showError(text) {
  $("error").textContent = text;
  setTimeout(() => { if ($("error").textContent === text) $("error").textContent = ""; }, 6000);
}

// --- messages ------------------------------------------------------------------------------------
async function onHello(hello) {
  page.hello = hello;
  const name = hello.game.replace(/_v\d+$/, "");
  page.board = (await import(`/static/boards/${hello.drawing}.js`)).default;
  document.title = `${name.replace(/_/g, " ")} · ${hello.viewer === null ? "watching" : `player_${hello.viewer}`}`;
  $("title").textContent = `${name.replace(/_/g, " ")} · ${hello.viewer === null ? "watching" : `you are player_${hello.viewer}`}`;
  document.body.dataset.viewer = hello.viewer === null ? "spectator" : hello.viewer;
  document.body.dataset.game = hello.game;
  $("pause").hidden = $("advance").hidden = hello.viewer !== null;
  $("pace").disabled = !hello.host;  // the table's pace is its creator's to set
  if (!hello.host) $("pace").title = "the pause before each agent move: set by whoever started the table";
  if (hello.invites.length) {
    $("invites-box").hidden = false;
    for (const invite of hello.invites) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = invite.link;
      a.target = "_blank";
      a.rel = "noopener";
      a.textContent = new URL(invite.link, location.href).href;
      li.append(`player_${invite.seat} (${invite.plays}): `, a);
      $("invites").append(li);
    }
    // a spectator sees every hand anyway: the pages of policies that play here run inside this one
    if (hello.viewer === null) {
      $("embedded-box").hidden = false;
      for (const invite of hello.invites) {
        const frame = document.createElement("iframe");
        frame.src = `${invite.link}?compact`;
        frame.title = `player_${invite.seat}`;
        $("embedded").append(frame);
      }
    }
  }
  if (hello.policy) {
    $("policy-box").hidden = false;
    $("policy-status").textContent = "loading the exported policy with onnxruntime-web…";
    const { loadPolicy } = await import("/static/policy.js");
    try {
      page.policy = await loadPolicy(token, hello);
      $("policy-status").textContent = `${page.policy.describe()} · ready`;
    } catch (err) {
      $("policy-status").textContent = `cannot run the policy: ${err.message}`;
      document.body.dataset.policy = "failed";
      return;
    }
    document.body.dataset.policy = "ready";
  }
  if (compact) document.body.classList.add("compact");
}

async function onFrame(frame) {
  if (page.live && frame.step !== page.live.step) page.selection = {};
  page.previous = page.shown && page.shown.step < frame.step ? page.shown.view : null;
  page.live = frame;
  page.log.push(...frame.log);
  const reviewing = page.shown && page.shown.type === "review";
  if (!reviewing) page.shown = frame;
  hideMenu();
  draw();
  drawLog();
  if (!reviewing) announce(frame.log);
  $("pace").value = frame.pace_ms;
  $("pace-out").textContent = `${frame.pace_ms} ms`;
  $("pause").textContent = frame.paused ? "resume" : "pause";
  $("advance").disabled = !frame.paused;
  if (page.policy && frame.policy) await playPolicy(frame);
}

async function playPolicy(frame) {
  const started = performance.now();
  const action = await page.policy.act(frame.policy.observation, frame.policy.mask);
  const wait = Math.max(0, frame.pace_ms - (performance.now() - started));
  $("policy-status").textContent = `${page.policy.describe()} · step ${frame.step}: action ${action}`;
  (window.tabletopPolicyMoves ||= []).push({ step: frame.step, action });
  setTimeout(() => { if (page.live.step === frame.step) send({ type: "move", actions: [action], step: frame.step }); }, wait);
}

function onReview(frame) {
  page.previous = null;
  page.shown = frame.step === page.live.moves ? page.live : frame;
  hideMenu();
  draw();
  drawLog();
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/${token}`);
  page.socket = socket;
  let queue = Promise.resolve();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    queue = queue.then(async () => {
      if (message.type === "hello") await onHello(message);
      else if (message.type === "frame") await onFrame(message);
      else if (message.type === "review") onReview(message);
      else if (message.type === "error") { page.sent = null; showError(message.message); if (page.live) draw(); }
    }).catch((err) => showError(String(err)));
  });
  socket.addEventListener("close", (event) => {
    $("status").textContent = event.code === 4404 ? "no table has this link" : event.code === 4410 ? "this table has ended" : "disconnected: reload to reconnect";
    document.body.dataset.closed = "1";
  });
}

function review(step) {
  send({ type: "review", step: Math.max(0, Math.min(step, page.live.moves)) });
}

$("first").addEventListener("click", () => review(0));
$("back").addEventListener("click", () => review(page.shown.step - 1));
$("forward").addEventListener("click", () => review(page.shown.step + 1));
$("last").addEventListener("click", () => review(page.live.moves));
$("pace").addEventListener("change", () => send({ type: "pace", ms: Number($("pace").value) }));
$("pause").addEventListener("click", () => send({ type: "pause", paused: !page.live.paused }));
$("advance").addEventListener("click", () => send({ type: "advance" }));
document.addEventListener("keydown", (e) => {
  if (!page.live || !page.live.over) return;
  if (e.key === "ArrowLeft") review(page.shown.step - 1);
  if (e.key === "ArrowRight") review(page.shown.step + 1);
});
document.addEventListener("click", (e) => { if (!$("menu").contains(e.target)) hideMenu(); }, true);
connect();
