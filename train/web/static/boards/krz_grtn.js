// KRZ GRTN as on the table: the level cards and life cards, the pictures (the target face up for the clue
// givers only; a face-down card for X), and a screen per player. Behind your own screen are your letters:
// click one to add it to your clue (or to put it back in the middle when over the tile limit). Clues are
// shown to the others once every clue is laid out; then X points at a picture.
import { svg, clickable, fresh, setViewBox } from "/static/draw.js";

const WIDTH = 920, CARD_W = 138, CARD_H = 112, TILE = 30;

function letterTile(parent, x, y, text, blank) {
  svg("rect", { x, y, width: TILE, height: TILE, rx: 4, fill: blank ? "#d9d9d2" : "#f5e8c8", stroke: "#6b5a3a", "stroke-width": 1.2 }, parent);
  if (!blank) svg("text", { x: x + TILE / 2, y: y + TILE * 0.7, "text-anchor": "middle", "font-size": 17, "font-weight": 700, fill: "#2a2116", text }, parent);
}

function card(parent, x, y, entry, gold) {
  svg("rect", { x, y, width: CARD_W, height: CARD_H, rx: 8, fill: "#fffdf6", stroke: gold ? "#e8b830" : "#8b8674", "stroke-width": gold ? 5 : 2 }, parent);
  if (!entry) {
    svg("rect", { x: x + 8, y: y + 8, width: CARD_W - 16, height: CARD_H - 16, rx: 6, fill: "#2f63cf", opacity: 0.85 }, parent);
    svg("text", { x: x + CARD_W / 2, y: y + CARD_H / 2 + 10, "text-anchor": "middle", "font-size": 30, fill: "#fff", text: "?" }, parent);
    return;
  }
  const [name, keywords] = entry;
  svg("text", { x: x + 10, y: y + 26, "font-size": 17, "font-weight": 700, fill: "#1d1d1b", text: name }, parent);
  keywords.slice(0, 4).forEach((word, i) => svg("text", { x: x + 10, y: y + 48 + i * 16, "font-size": 13, fill: "#6b6b63", text: word }, parent));
}

function clueText(S, tiles) {
  return tiles.map((t) => (t === S.blank ? "_" : S.letters[t]));
}

export default {
  target(action, frame, S) {
    if (action >= S.actions.add_tile && action < S.actions.finish_clue) {
      const tile = action - S.actions.add_tile;
      return tile === S.blank ? "blank" : `letter:${tile}`;
    }
    if (action >= S.actions.return_letter && action < S.actions.guess) return `letter:${action - S.actions.return_letter}`;
    if (action >= S.actions.guess) return `picture:${action - S.actions.guess}`;
    return null; // the "Life!" vote and finishing the clue: buttons
  },

  playerInfo(seat, frame) {
    const v = frame.view;
    return `${seat === v.x ? "X (guesses)" : "clue giver"} · owns ${v.owned_letters[seat]} letters`;
  },

  draw(root, frame, S, ui) {
    const v = frame.view, names = frame.names, prev = ui.previous;
    const spectator = ui.viewer === null;
    const rows = v.num_players;
    const pictureRows = Math.max(1, Math.ceil(Math.max(v.candidates.length, 1) / 6));
    const screensTop = 70 + pictureRows * (CARD_H + 14) + 34;
    const ownTop = screensTop + rows * 44 + 14;
    setViewBox(root, WIDTH, ownTop + (spectator ? 10 : 96));

    // level cards and lives
    S.levels.forEach((level, i) => {
      const x = 12 + i * 52, current = i === v.levels_passed && v.outcome === 0;
      svg("rect", { x, y: 10, width: 44, height: 34, rx: 5, fill: i < v.levels_passed ? "#7fb08e" : "#fffdf6",
        stroke: current ? "#e8b830" : "#55514a", "stroke-width": current ? 4 : 1.5 }, root);
      svg("text", { x: x + 22, y: 33, "text-anchor": "middle", "font-size": 16, "font-weight": 700, fill: "#1d1d1b", text: level }, root);
    });
    svg("text", { x: 330, y: 33, "font-size": 22, fill: "#ff8a80", text: "♥".repeat(v.lives) + "♡".repeat(Math.max(0, S.max_lives - v.lives)) }, root);
    const phaseWords = { vote: "the \"Life!\" vote", clue: "clues are laid behind the screens", return: "back to the tile limit", guess: "X points at a picture", over: v.outcome > 0 ? "all six levels passed" : "the team has lost" };
    svg("text", { x: 480, y: 33, "font-size": 16, fill: "#f4f1e6", text: `X is player_${v.x} · ${phaseWords[v.phase]}` }, root);
    svg("text", { x: 12, y: 62, "font-size": 13, fill: "#d7e6dc", text: `middle: ${v.bag_size} letters · tile limit ${v.tile_limit}` }, root);

    // the pictures
    const pics = svg("g", { class: "pictures" }, root);
    if (v.phase === "guess") {
      v.candidates.forEach((id, p) => {
        const x = 12 + (p % 6) * (CARD_W + 12), y = 70 + Math.floor(p / 6) * (CARD_H + 14);
        const group = svg("g", { class: "picture", "data-picture": p }, pics);
        fresh(group, prev && prev.phase !== "guess");
        card(group, x, y, names[id], v.target_position === p);
        svg("text", { x: x + CARD_W - 14, y: y + CARD_H - 10, "font-size": 14, "font-weight": 700, fill: "#55514a", text: p + 1 }, group);
        clickable(group, ui, [`picture:${p}`], (g) => svg("rect", { class: "hl", x: x - 4, y: y - 4, width: CARD_W + 8, height: CARD_H + 8, rx: 10 }, g));
      });
    } else if (v.phase !== "over") {
      const group = svg("g", { class: "picture target" }, pics);
      card(group, 12, 70, v.target === null ? null : names[v.target], v.target !== null);
      svg("text", { x: 12 + CARD_W + 16, y: 110, "font-size": 15, fill: "#f4f1e6",
        text: v.target === null ? "the target: only the clue givers see it" : "the target (X does not see it)" }, pics);
    }
    if (v.last_attempt) {
      const a = v.last_attempt;
      const guess = names[a.guess] ? names[a.guess][0] : "?", target = names[a.target] ? names[a.target][0] : "?";
      svg("text", { x: 12, y: screensTop - 12, "font-size": 13, fill: "#d7e6dc",
        text: `last attempt (level ${a.level}): player_${a.x} pointed at ${guess}; the target was ${target}: ${a.passed ? "passed" : "failed"}` }, root);
    }

    // one screen per player: role, letters owned, the clue (shown to the others once laid out)
    for (let seat = 0; seat < rows; seat += 1) {
      const y = screensTop + seat * 44;
      const row = svg("g", { class: "screen", "data-seat": seat }, root);
      svg("rect", { x: 12, y: y + 6, width: 18, height: 18, rx: 9, fill: ui.colour(seat) }, row);
      svg("text", { x: 38, y: y + 21, "font-size": 14, "font-weight": 700, fill: "#f4f1e6",
        text: `${seat === ui.viewer ? "you" : `player_${seat}`} · ${seat === v.x ? "X" : "giver"}` }, row);
      let clue = null;
      if (spectator) clue = v.all_clues[seat];
      else if (seat === ui.viewer) clue = v.clue;
      else if (v.clues[seat]) clue = v.clues[seat];
      if (clue) {
        const old = prev ? (spectator ? prev.all_clues[seat] : seat === ui.viewer ? prev.clue : (prev.clues || {})[seat]) || [] : null;
        clueText(S, clue).forEach((ch, i) => {
          const g = svg("g", {}, row);
          fresh(g, old && i >= old.length);
          letterTile(g, 190 + i * (TILE + 4), y, ch, ch === "_");
        });
      } else if (seat !== v.x && v.phase === "clue") {
        svg("text", { x: 190, y: y + 21, "font-size": 13, fill: "#b9cfc1", text: "clue behind the screen" }, row);
      }
      if (spectator) {
        const letters = [];
        v.supplies[seat].forEach((n, i) => { for (let k = 0; k < n; k += 1) letters.push(S.letters[i]); });
        svg("text", { x: 560, y: y + 21, "font-size": 13, fill: "#d7e6dc", text: `screen: ${letters.join("")} · ${v.all_blanks[seat]} blanks` }, row);
      }
    }
    if (spectator) return;

    // behind your screen
    svg("text", { x: 12, y: ownTop + 14, "font-size": 14, fill: "#d7e6dc", text: "behind your screen" }, root);
    let x = 12;
    const own = svg("g", { class: "own" }, root);
    v.letters.forEach((count, i) => {
      for (let k = 0; k < count; k += 1) {
        const group = svg("g", { class: "letter", "data-letter": S.letters[i] }, own);
        const tx = x;
        letterTile(group, tx, ownTop + 24, S.letters[i], false);
        clickable(group, ui, [`letter:${i}`], (g) => svg("rect", { class: "hl", x: tx - 3, y: ownTop + 21, width: TILE + 6, height: TILE + 6, rx: 6 }, g));
        x += TILE + 6;
      }
    });
    for (let k = 0; k < v.blanks; k += 1) {
      const group = svg("g", { class: "letter blank", "data-letter": "_" }, own);
      const tx = x + 10;
      letterTile(group, tx, ownTop + 24, "", true);
      clickable(group, ui, ["blank"], (g) => svg("rect", { class: "hl", x: tx - 3, y: ownTop + 21, width: TILE + 6, height: TILE + 6, rx: 6 }, g));
      x += TILE + 6;
    }
  },
};
