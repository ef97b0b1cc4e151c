// The new-table form: games and their arguments from /api/games, one choice per seat, POST /api/tables.
const $ = (id) => document.getElementById(id);
let games = [];

const SEAT_WORDS = {
  you: "you",
  person: "another person (gets a link)",
  random: "random",
  pretrained: "pretrained policy (on the server)",
};

function seatWords(choice) {
  if (SEAT_WORDS[choice]) return SEAT_WORDS[choice];
  if (choice.startsWith("page:")) return `${choice.slice(5)} (runs in its own page)`;
  return choice;
}

function currentGame() { return games.find((g) => g.id === $("game").value); }

function argInput(param) {
  const row = document.createElement("div");
  row.className = "row";
  const label = document.createElement("label");
  label.textContent = param.name;
  label.htmlFor = `arg-${param.name}`;
  let input;
  if (param.choices) {
    input = document.createElement("select");
    for (const choice of param.choices) {
      const option = document.createElement("option");
      option.value = JSON.stringify(choice);
      option.textContent = choice === null ? "none" : String(choice);
      option.selected = JSON.stringify(choice) === JSON.stringify(param.default);
      input.append(option);
    }
  } else {
    input = document.createElement("input");
    input.type = "text";
    input.placeholder = param.default === null ? "" : JSON.stringify(param.default); // empty: the game decides
  }
  input.id = `arg-${param.name}`;
  input.dataset.name = param.name;
  input.addEventListener("change", () => { if (param.name === "num_players") drawSeats(); });
  const help = document.createElement("small");
  help.textContent = `${param.doc} (allowed: ${param.allowed})`;
  row.append(label, input, help);
  return row;
}

function readArgs() {
  const args = {};
  for (const input of $("args").querySelectorAll("[data-name]")) {
    const param = currentGame().parameters.find((p) => p.name === input.dataset.name);
    const text = input.value.trim();
    if (text === "" || text === JSON.stringify(param.default)) continue;
    try { args[param.name] = JSON.parse(text); } catch { args[param.name] = text; }
  }
  return args;
}

function seatCount() {
  const game = currentGame();
  const param = game.parameters.find((p) => p.name === "num_players");
  const given = readArgs().num_players;
  return Number.isInteger(given) ? given : param.default;
}

function drawSeats() {
  const game = currentGame();
  const box = $("seats");
  const kept = [...box.querySelectorAll("select")].map((s) => s.value);
  box.querySelectorAll(".row").forEach((r) => r.remove());
  const heuristic = game.players.find((p) => !["you", "person", "random"].includes(p)) || "random";
  for (let i = 0; i < seatCount(); i += 1) {
    const row = document.createElement("div");
    row.className = "row";
    const label = document.createElement("label");
    label.textContent = `player_${i}`;
    label.htmlFor = `seat-${i}`;
    const select = document.createElement("select");
    select.id = `seat-${i}`;
    for (const choice of game.players) {
      const option = document.createElement("option");
      option.value = choice;
      option.textContent = seatWords(choice);
      select.append(option);
    }
    select.value = kept[i] && game.players.includes(kept[i]) ? kept[i] : (i === 0 ? "you" : heuristic);
    select.addEventListener("change", updateButton);
    row.append(label, select);
    box.append(row);
  }
  updateButton();
}

function updateButton() {
  const seats = [...$("seats").querySelectorAll("select")].map((s) => s.value);
  $("start").textContent = seats.includes("you") ? "Play" : "Watch";
}

function drawGame() {
  const game = currentGame();
  $("summary").textContent = game.summary;
  const box = $("args");
  box.querySelectorAll(".row").forEach((r) => r.remove());
  for (const param of game.parameters) box.append(argInput(param));
  drawSeats();
}

async function readPosition() {
  const file = $("position").files[0];
  if (!file) return null;
  const text = await file.text();
  try { return JSON.parse(text); } catch (err) { throw new Error(`${file.name} is not JSON: ${err.message}`); }
}

async function start(event) {
  event.preventDefault();
  $("error").textContent = "";
  const seedText = $("seed").value.trim();
  let request;
  try {
    request = {
      game: $("game").value,
      args: readArgs(),
      seats: [...$("seats").querySelectorAll("select")].map((s) => s.value),
      seed: seedText === "" ? null : Number(seedText),
      position: await readPosition(),
      pace_ms: Number($("pace").value),
    };
    if (seedText !== "" && !Number.isInteger(request.seed)) throw new Error("seed: a whole number, or empty for a fresh deal");
  } catch (err) {
    $("error").textContent = err.message;
    return;
  }
  const answer = await fetch("/api/tables", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request) });
  const body = await answer.json();
  if (!answer.ok) { $("error").textContent = body.error; return; }
  location.assign(body.link);
}

async function main() {
  const answer = await fetch("/api/games");
  const body = await answer.json();
  games = body.games;
  for (const game of games) {
    const option = document.createElement("option");
    option.value = game.id;
    option.textContent = game.id.replace(/_v\d+$/, "").replace(/_/g, " ");
    $("game").append(option);
  }
  const wanted = new URLSearchParams(location.search).get("game");
  if (wanted && games.some((g) => g.id === wanted)) $("game").value = wanted;
  $("game").addEventListener("change", drawGame);
  $("pace").addEventListener("input", () => { $("pace-out").textContent = `${$("pace").value} ms before each agent move`; });
  $("pace").dispatchEvent(new Event("input"));
  $("new-table").addEventListener("submit", start);
  drawGame();
}

main();
