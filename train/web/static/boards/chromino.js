// Chromino as on the table: three-square tiles in five colours (a chameleon's centre is white with a star),
// each laid tile outlined. A turn is two clicks, as with a real tile: pick one from your hand (and turn
// it, among the ways it can lie), then click the cell its centre goes on; the page sends both sub-steps
// as one move. The view is cropped to the tiles laid and the cells a tile may go.
import { svg, clickable, fresh, setViewBox } from "/static/draw.js";

const COLOURS = ["#d7301f", "#f2c12e", "#2e9e4f", "#2f63cf", "#8a45b0", "#ffffff"];
const CELL = 30, MARGIN = 2, HAND_CELL = 24;
const STEPS = [[0, 1], [0, 1], [1, 0], [1, 0]];

function squares(S, tile, orientation, row, col) {
  const colours = S.tile_colours[tile].slice();
  if (orientation & 1) colours.reverse();
  const [dr, dc] = STEPS[orientation];
  return [-1, 0, 1].map((k, i) => [row + k * dr, col + k * dc, colours[i]]);
}

function square(parent, x, y, size, colour) {
  svg("rect", { x: x + 1, y: y + 1, width: size - 2, height: size - 2, rx: 4, fill: COLOURS[colour],
    stroke: "rgba(0,0,0,.35)", "stroke-width": 1 }, parent);
  if (colour === 5) svg("text", { x: x + size / 2, y: y + size * 0.72, "text-anchor": "middle", "font-size": size * 0.6, fill: "#333", text: "✱" }, parent);
}

// A tile drawn flat (left to right) at (x, y), for hands and the orientation chooser.
function flatTile(parent, S, tile, orientation, x, y, size) {
  const cells = squares(S, tile, orientation, 0, 1);
  const vertical = orientation >= 2;
  cells.forEach(([r, c, colour], i) => square(parent, x + (vertical ? 0 : i * size), y + (vertical ? i * size : 0), size, colour));
  svg("rect", { x, y, width: vertical ? size : 3 * size, height: vertical ? 3 * size : size, rx: 5, fill: "none",
    stroke: "#222", "stroke-width": 2 }, parent);
}

const ORIENTATION_WORDS = ["left to right", "right to left", "top to bottom", "bottom to top"];

export default {
  target(action, frame, S) {
    if (action < S.actions.place) return `tile:${action >> 2}`;
    if (action < S.actions.draw) {
      const cell = action - S.actions.place;
      return `cell:${Math.floor(cell / S.grid_size)}:${cell % S.grid_size}`;
    }
    return null; // draw, pass: buttons
  },

  playerInfo(seat, frame) {
    const v = frame.view;
    const lone = v.public_tiles[seat];
    const parts = [`${v.hand_sizes[seat]} tiles`];
    if (v.variant === "expert") parts.push(`${v.scores[seat]} points`);
    if (v.finished[seat]) parts.push("out");
    if (lone !== null) parts.push("last tile shown");
    if (seat === frame.to_move) parts.push(`bag ${v.bag_size}`);
    return parts.join(" · ");
  },

  draw(root, frame, S, ui) {
    const v = frame.view, prev = ui.previous, G = S.grid_size;
    const sel = ui.selection;
    const moves = ui.interactive && v.legal_moves ? v.legal_moves : [];
    const choosing = ui.interactive && frame.legal.some(([a]) => a < S.actions.place);
    if (choosing && sel.tile !== undefined && !moves.some((m) => m[0] === sel.tile)) delete sel.tile;
    if (choosing && sel.tile !== undefined && !moves.some((m) => m[0] === sel.tile && m[1] === sel.orientation)) {
      sel.orientation = moves.find((m) => m[0] === sel.tile)[1];
    }
    const targets = choosing && sel.tile !== undefined
      ? moves.filter((m) => m[0] === sel.tile && m[1] === sel.orientation).map((m) => [m[2], m[3]])
      : [...ui.keys.keys()].filter((k) => k.startsWith("cell:")).map((k) => k.split(":").slice(1).map(Number));

    // the part of the grid to show: every laid square, every target, a margin around them
    let r0 = G, r1 = -1, c0 = G, c1 = -1;
    const grow = (r, c) => { r0 = Math.min(r0, r); r1 = Math.max(r1, r); c0 = Math.min(c0, c); c1 = Math.max(c1, c); };
    v.board.forEach((row, r) => row.forEach((colour, c) => { if (colour >= 0) grow(r, c); }));
    targets.forEach(([r, c]) => { grow(r - 1, c - 1); grow(r + 1, c + 1); });
    r0 = Math.max(0, r0 - MARGIN); c0 = Math.max(0, c0 - MARGIN); r1 = Math.min(G - 1, r1 + MARGIN); c1 = Math.min(G - 1, c1 + MARGIN);
    while (c1 - c0 < 14) { if (c0 > 0) c0 -= 1; if (c1 - c0 < 14 && c1 < G - 1) c1 += 1; if (c0 === 0 && c1 === G - 1) break; }
    while (r1 - r0 < 8) { if (r0 > 0) r0 -= 1; if (r1 - r0 < 8 && r1 < G - 1) r1 += 1; if (r0 === 0 && r1 === G - 1) break; }
    const gridW = (c1 - c0 + 1) * CELL, gridH = (r1 - r0 + 1) * CELL;
    const hands = ui.viewer === null ? v.hands : [v.hand || []];
    const handRows = hands.reduce((n, h) => n + Math.max(1, Math.ceil((h.length * (3 * HAND_CELL + 12)) / Math.max(gridW, 560))), 0);
    const width = Math.max(gridW, 560), height = gridH + 32 + handRows * (HAND_CELL + 22) + 70;
    setViewBox(root, width, height);
    const ox = (width - gridW) / 2, at = (r, c) => [ox + (c - c0) * CELL, (r - r0) * CELL];

    const grid = svg("g", { class: "grid" }, root);
    svg("rect", { x: ox, y: 0, width: gridW, height: gridH, fill: "rgba(0,0,0,.12)", rx: 6 }, grid);
    for (let r = r0; r <= r1; r += 1) for (let c = c0; c <= c1; c += 1) {
      const [x, y] = at(r, c);
      svg("rect", { x: x + 0.5, y: y + 0.5, width: CELL - 1, height: CELL - 1, fill: "none", stroke: "rgba(255,255,255,.06)" }, grid);
    }
    // laid tiles, one group each, outlined
    const byTile = new Map();
    v.tiles.forEach((row, r) => row.forEach((id, c) => {
      if (id < 0) return;
      if (!byTile.has(id)) byTile.set(id, []);
      byTile.get(id).push([r, c, v.board[r][c]]);
    }));
    const prevIds = prev ? new Set(prev.tiles.flat()) : null;
    for (const [id, cells] of byTile) {
      const group = svg("g", { class: "tile", "data-tile": id }, root);
      fresh(group, prevIds && !prevIds.has(id));
      for (const [r, c, colour] of cells) { const [x, y] = at(r, c); square(group, x, y, CELL, colour); }
      const rows = cells.map((q) => q[0]), cols = cells.map((q) => q[1]);
      const [x, y] = at(Math.min(...rows), Math.min(...cols));
      svg("rect", { x: x + 0.5, y: y + 0.5, width: (Math.max(...cols) - Math.min(...cols) + 1) * CELL - 1,
        height: (Math.max(...rows) - Math.min(...rows) + 1) * CELL - 1, rx: 5, fill: "none", stroke: "#151515", "stroke-width": 2.2 }, group);
    }

    // where the picked tile (or the chosen one, mid-turn) may go
    const ghostOf = choosing && sel.tile !== undefined ? [sel.tile, sel.orientation] : [v.chosen_tile, v.chosen_orientation];
    const ghosts = svg("g", {}, root);
    for (const [r, c] of targets) {
      const [x, y] = at(r, c);
      const spot = svg("g", { class: "spot", "data-cell": `${r}:${c}` }, root);
      svg("rect", { x: x + 4, y: y + 4, width: CELL - 8, height: CELL - 8, rx: 6, fill: "rgba(255,255,255,.18)" }, spot);
      const outline = (gr) => svg("rect", { class: "hl", x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, rx: 7 }, gr);
      if (choosing) {
        spot.classList.add("legal");
        spot.dataset.key = `place:${r}:${c}`;
        outline(spot);
        const choose = 4 * sel.tile + sel.orientation, place = S.actions.place + r * G + c;
        spot.addEventListener("click", (e) => { e.stopPropagation(); ui.play([choose, place]); });
      } else {
        clickable(spot, ui, [`cell:${r}:${c}`], outline);
      }
      if (ghostOf[0] !== null && ghostOf[0] !== undefined) {
        spot.addEventListener("mouseenter", () => {
          ghosts.replaceChildren();
          const g = svg("g", { class: "ghost" }, ghosts);
          for (const [gr, gc, colour] of squares(S, ghostOf[0], ghostOf[1], r, c)) { const [gx, gy] = at(gr, gc); square(g, gx, gy, CELL, colour); }
        });
        spot.addEventListener("mouseleave", () => ghosts.replaceChildren());
      }
    }

    // hands: yours (or every hand, for the spectator), and the ways the picked tile can lie
    let y = gridH + 32;
    hands.forEach((hand, i) => {
      const seat = ui.viewer === null ? i : ui.viewer;
      svg("text", { x: 8, y: y - 6, "font-size": 14, fill: "#d7e6dc",
        text: ui.viewer === null ? `player_${seat}` : `your hand · bag: ${v.bag_size} tiles` }, root);
      let x = 8;
      hand.forEach((tile) => {
        if (x + 3 * HAND_CELL > width) { x = 8; y += HAND_CELL + 12; }
        const group = svg("g", { class: "hand-tile", "data-tile": tile }, root);
        const tx = x, ty = y;
        flatTile(group, S, tile, 0, tx, ty, HAND_CELL);
        const picked = choosing && sel.tile === tile;
        if (picked) svg("rect", { class: "hl selected", x: tx - 3, y: ty - 3, width: 3 * HAND_CELL + 6, height: HAND_CELL + 6, rx: 7 }, group);
        else if (choosing && ui.options(`tile:${tile}`).length) {
          group.classList.add("legal", "pick");
          group.dataset.key = `tile:${tile}`;
          svg("rect", { class: "hl", x: tx - 3, y: ty - 3, width: 3 * HAND_CELL + 6, height: HAND_CELL + 6, rx: 7 }, group);
          group.addEventListener("click", (e) => {
            e.stopPropagation();
            sel.tile = tile;
            sel.orientation = moves.find((m) => m[0] === tile)[1];
            ui.redraw();
          });
        }
        x += 3 * HAND_CELL + 12;
      });
      y += HAND_CELL + 22;
    });
    if (choosing && sel.tile !== undefined) {
      const ways = [...new Set(moves.filter((m) => m[0] === sel.tile).map((m) => m[1]))].sort();
      svg("text", { x: 8, y: y + 4, "font-size": 14, fill: "#d7e6dc", text: "lay it:" }, root);
      let x = 60;
      for (const o of ways) {
        const group = svg("g", { class: "orientation", "data-orientation": o }, root);
        const vertical = o >= 2, w = vertical ? 18 : 54, h = vertical ? 54 : 18;
        flatTile(group, S, sel.tile, o, x, y - 8, 18);
        svg("title", { text: ORIENTATION_WORDS[o] }, group);
        const box = { x: x - 3, y: y - 11, width: w + 6, height: h + 6, rx: 5 };
        if (o === sel.orientation) svg("rect", { class: "hl selected", ...box }, group);
        else {
          group.classList.add("legal", "pick");
          group.dataset.key = `orientation:${o}`;
          svg("rect", { class: "hl", ...box }, group);
          group.addEventListener("click", (e) => { e.stopPropagation(); sel.orientation = o; ui.redraw(); });
        }
        x += w + 18;
      }
    }
  },
};
