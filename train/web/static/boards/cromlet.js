// Cromlet as on the table: 24 stone circles (cromlets), each a ring of numbered stones, lowest at the top;
// crowns in the player's colour, a claimed cromlet ringed in its claimer's colour with the claiming stone
// ringed in black, closed stones grey, a white dot on a stone a wild covers.
// A click on a stone plays the card of that circle (or asks: play, or play and claim); the wild card in
// the hand switches to placing a wild on any open stone.
import { svg, clickable, fresh, setViewBox } from "/static/draw.js";

const COLS = 6, CELL_W = 142, CELL_H = 140, STONE = 14, HAND_H = 110;

function geometry(S) {
  const start = [], cromletOf = [], valueOf = [];
  let c = 0;
  S.values.forEach((values, k) => {
    start.push(c);
    values.forEach((v) => { cromletOf.push(k); valueOf.push(v); c += 1; });
  });
  return { start, cromletOf, valueOf };
}

function cardName(S, g, card) {
  return card === S.wild ? "wild" : `${S.letters[g.cromletOf[card]]}${g.valueOf[card]}`;
}

function handCards(view) {
  const counts = view.hand || [];
  const cards = [];
  counts.forEach((n, card) => { for (let i = 0; i < n; i += 1) cards.push(card); });
  return cards;
}

export default {
  target(action, frame, S) {
    if (action < 2 * S.circles) return `card:${action % S.circles}`;
    if (action < 4 * S.circles) return `wild:${action % S.circles}`;
    return null; // trading dead cards: a button
  },

  playerInfo(seat, frame, S) {
    const v = frame.view;
    const team = v.team_of[seat];
    const g = geometry(S);
    const pile = v.discards[seat].slice(-3).map((c) => cardName(S, g, c)).join(" ");
    return `${v.hand_sizes[seat]} cards · claims ${v.team_claims[team]}/${v.claim_limit}` +
      (S.teams ? ` · team ${team}` : "") + (pile ? ` · discards …${pile}` : "");
  },

  draw(root, frame, S, ui) {
    const v = frame.view, prev = ui.previous, g = geometry(S);
    const rows = Math.ceil(S.letters.length / COLS);
    const width = COLS * CELL_W, boardH = rows * CELL_H;
    const spectator = ui.viewer === null;
    const hands = spectator ? v.hands : null;
    setViewBox(root, width, boardH + (spectator ? 26 * v.num_players + 30 : HAND_H));
    const wildMode = Boolean(ui.selection.wild);

    S.letters.forEach((letter, k) => {
      const cx = (k % COLS) * CELL_W + CELL_W / 2, cy = Math.floor(k / COLS) * CELL_H + CELL_H / 2;
      const n = S.values[k].length, radius = 22 + n * 3.2;
      const site = svg("g", { class: "cromlet", "data-cromlet": letter }, root);
      const claimer = v.claimed_by[k];
      svg("circle", { cx, cy, r: radius + STONE + 6, fill: "rgba(0,0,0,.13)",
        stroke: claimer >= 0 ? ui.colour(claimer) : "none", "stroke-width": 5 }, site);
      svg("text", { x: cx, y: cy + 8, "text-anchor": "middle", "font-size": 24,
        "font-weight": 700, fill: v.closed[k] ? "#b9c6bd" : "#f4f1e6", text: letter }, site);
      for (let i = 0; i < n; i += 1) {
        const c = g.start[k] + i;
        const angle = -Math.PI / 2 + (2 * Math.PI * i) / n;
        const x = cx + radius * Math.cos(angle), y = cy + radius * Math.sin(angle);
        const owner = v.cover[c];
        const stone = svg("g", { class: "stone", "data-circle": c }, site);
        const isNew = prev && prev.cover[c] < 0 && owner >= 0;
        const body = svg("g", {}, stone);
        fresh(body, isNew);
        if (v.claim_circle[k] === c) svg("circle", { cx: x, cy: y, r: STONE + 3, fill: "#111" }, body);
        svg("circle", { cx: x, cy: y, r: STONE, stroke: "#2b2b26", "stroke-width": 1.2,
          fill: owner >= 0 ? ui.colour(owner) : v.closed[k] ? "#7d8a80" : "#f3efe2" }, body);
        svg("text", { x, y: y + 5, "text-anchor": "middle", "font-size": 14, "font-weight": 600,
          fill: owner >= 0 ? "#fff" : v.closed[k] ? "#d8ddd8" : "#1d1d1b", text: g.valueOf[c] }, body);
        if (v.wild[c]) svg("circle", { cx: x + 9, cy: y - 9, r: 5, fill: "#fff", stroke: "#111" }, body);
        const keys = wildMode ? [`wild:${c}`] : [`card:${c}`, `wild:${c}`];
        clickable(stone, ui, keys, (gr) => svg("circle", { class: "hl", cx: x, cy: y, r: STONE + 5 }, gr));
      }
    });

    if (spectator) {
      hands.forEach((counts, seat) => {
        const cards = [];
        counts.forEach((n, card) => { for (let i = 0; i < n; i += 1) cards.push(cardName(S, g, card)); });
        svg("text", { x: 12, y: boardH + 22 + 26 * seat, "font-size": 15, fill: ui.colour(seat),
          "font-weight": 700, text: `player_${seat}` }, root);
        svg("text", { x: 90, y: boardH + 22 + 26 * seat, "font-size": 15, fill: "#f4f1e6",
          text: cards.join("  ") || "no cards" }, root);
      });
      svg("text", { x: 12, y: boardH + 22 + 26 * v.num_players, "font-size": 14, fill: "#d7e6dc",
        text: `deck: ${v.deck_size} cards` }, root);
      return;
    }

    const cards = handCards(v);
    const hand = svg("g", { class: "hand" }, root);
    svg("text", { x: 12, y: boardH + 18, "font-size": 14, fill: "#d7e6dc",
      text: `your hand · deck: ${v.deck_size} cards` }, hand);
    cards.forEach((card, i) => {
      const x = 12 + i * 62, y = boardH + 28;
      const group = svg("g", { class: "card", "data-card": cardName(S, g, card) }, hand);
      const selected = card === S.wild && wildMode;
      svg("rect", { x, y, width: 54, height: 74, rx: 7, fill: card === S.wild ? "#fdf6d8" : "#fffdf6",
        stroke: selected ? "#fff" : "#4a463c", "stroke-width": selected ? 4 : 1.5 }, group);
      svg("text", { x: x + 27, y: y + 44, "text-anchor": "middle", "font-size": card === S.wild ? 15 : 20,
        "font-weight": 700, fill: "#1d1d1b", text: cardName(S, g, card) }, group);
      const outline = (gr) => svg("rect", { class: "hl", x: x - 3, y: y - 3, width: 60, height: 80, rx: 9 }, gr);
      if (card === S.wild) {
        const wilds = [...ui.keys.keys()].filter((key) => key.startsWith("wild:"));
        if (ui.interactive && wilds.length) {
          group.classList.add("legal", "pick");
          group.dataset.key = "wild";
          outline(group);
          group.addEventListener("click", (e) => { e.stopPropagation(); ui.selection.wild = !wildMode; ui.redraw(); });
        }
      } else {
        clickable(group, ui, [`card:${card}`], outline);
      }
    });
  },
};
