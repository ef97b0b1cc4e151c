// Kings Cribbage as on the table: light (ivory) and dark (ebony) tiles on a square board, the move being
// built framed in orange. Pick a tile from your rack, then click a highlighted cell (a 6 or a 9 that may lie
// either way asks which); commit when the tiles make a move. With no move, click tiles to set aside for the
// exchange, then pass. In the move-level mode (action_mode "moves") every cell that one of the offered whole
// moves covers is highlighted; a click plays the move, or asks which when several cover the cell.
import { svg, clickable, fresh, setViewBox } from "/static/draw.js";

const CELL = 40, EDGE = 22, RACK_TILE = 44;
const IVORY = "#f5eed7", EBONY = "#3c281e", PENDING = "#e6781a";
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

function tile(parent, x, y, size, value, dark, pending) {
  svg("rect", { x: x + 2, y: y + 2, width: size - 4, height: size - 4, rx: 5, fill: dark ? EBONY : IVORY,
    stroke: pending ? PENDING : "rgba(0,0,0,.45)", "stroke-width": pending ? 3.5 : 1 }, parent);
  svg("text", { x: x + size / 2, y: y + size * 0.66, "text-anchor": "middle", "font-size": size * 0.45, "font-weight": 700,
    fill: dark ? "#f5eed7" : "#1d1d1b", text: RANKS[value - 1] }, parent);
}

function faceOf(action, S) { return Math.floor(action / S.cells); }

export default {
  target(action, frame, S) {
    if (S.action_mode === "moves") return action < S.max_moves ? `move:${action}` : null; // pass, exchanges: buttons
    if (action < S.actions.commit) return `cell:${action % S.cells}`;
    if (action >= S.actions.mark && action < S.actions.exchange) return `rack:${action - S.actions.mark}`;
    return null; // commit, pass: buttons
  },

  playerInfo(seat, frame) {
    const v = frame.view;
    return `${v.rack_sizes[seat]} tiles · bag ${v.bag_sizes[seat]}${v.marked_count && seat === frame.to_move ? ` · ${v.marked_count} set aside` : ""}`;
  },

  draw(root, frame, S, ui) {
    const v = frame.view, prev = ui.previous, N = S.board_size, sel = ui.selection;
    const spectator = ui.viewer === null;
    const racks = spectator ? v.racks : [v.rack || []];
    const boardPx = EDGE + N * CELL;
    const width = Math.max(boardPx + 8, 6 * (RACK_TILE + 8) + 140), height = boardPx + 24 + racks.length * (RACK_TILE + 30);
    setViewBox(root, width, height);
    const ox = (width - boardPx) / 2;

    svg("rect", { x: ox + EDGE, y: EDGE, width: N * CELL, height: N * CELL, fill: "rgba(0,0,0,.15)", rx: 4 }, root);
    for (let i = 0; i < N; i += 1) {
      svg("text", { x: ox + EDGE + i * CELL + CELL / 2, y: 15, "text-anchor": "middle", "font-size": 12, fill: "#d7e6dc", text: String.fromCharCode(65 + i) }, root);
      svg("text", { x: ox + EDGE / 2, y: EDGE + i * CELL + CELL / 2 + 4, "text-anchor": "middle", "font-size": 12, fill: "#d7e6dc", text: i + 1 }, root);
    }
    const pending = new Map(v.pending.map((a) => {
      const face = faceOf(a, S);
      return [a % S.cells, [S.face_value[face], Math.floor(S.face_kind[face] / S.ranks)]];
    }));
    const prevPending = new Set(prev ? prev.pending.map((a) => a % S.cells) : []);
    for (let r = 0; r < N; r += 1) for (let c = 0; c < N; c += 1) {
      const x = ox + EDGE + c * CELL, y = EDGE + r * CELL, cell = r * N + c;
      const group = svg("g", { class: "cell", "data-cell": cell }, root);
      svg("rect", { x: x + 0.5, y: y + 0.5, width: CELL - 1, height: CELL - 1, fill: "transparent", stroke: "rgba(255,255,255,.12)" }, group);
      if (v.values[r][c]) {
        const g = svg("g", {}, group);
        fresh(g, prev && !prev.values[r][c] && !prevPending.has(cell));
        tile(g, x, y, CELL, v.values[r][c], v.colours[r][c] === 1, false);
      } else if (pending.has(cell)) {
        const g = svg("g", {}, group);
        fresh(g, prev && !prevPending.has(cell));
        tile(g, x, y, CELL, ...pending.get(cell), true);
      }
      if (S.action_mode === "moves") {
        const covering = (v.offered || []).flatMap((move, i) => (move.some((a) => a % S.cells === cell) ? [`move:${i}`] : []));
        clickable(group, ui, covering, (gr) => svg("rect", { class: "hl", x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, rx: 6 }, gr));
      } else if (sel.kind !== undefined) {
        clickable(group, ui, [`cell:${cell}`], (gr) => svg("rect", { class: "hl", x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, rx: 6 }, gr),
          (a) => S.face_kind[faceOf(a, S)] === sel.kind);
      }
    }

    // racks: yours (the tiles still on it), or everyone's for the spectator
    const marked = (v.marked || []).slice();
    let y = boardPx + 30;
    racks.forEach((rack, i) => {
      const seat = spectator ? i : ui.viewer;
      const left = rack.slice();
      if (seat === frame.to_move) for (const a of v.pending) left.splice(left.indexOf(S.face_kind[faceOf(a, S)]), 1);
      const aside = seat === frame.to_move ? marked.slice() : [];
      svg("text", { x: 8, y: y + RACK_TILE / 2 + 5, "font-size": 14, fill: "#d7e6dc", text: spectator ? `player_${seat}` : "your rack" }, root);
      left.forEach((kind, j) => {
        const x = 110 + j * (RACK_TILE + 8);
        const isAside = aside.includes(kind);
        if (isAside) aside.splice(aside.indexOf(kind), 1);
        const ty = isAside ? y - 10 : y;
        const group = svg("g", { class: "rack-tile", "data-kind": kind }, root);
        tile(group, x, ty, RACK_TILE, kind % S.ranks + 1, kind >= S.ranks, false);
        if (isAside) svg("text", { x: x + RACK_TILE / 2, y: ty + RACK_TILE + 12, "text-anchor": "middle", "font-size": 10, fill: "#ffd9a8", text: "set aside" }, group);
        if (spectator || !ui.interactive) return;
        const outline = (gr) => svg("rect", { class: sel.kind === kind ? "hl selected" : "hl", x: x - 1, y: ty - 1, width: RACK_TILE + 2, height: RACK_TILE + 2, rx: 7 }, gr);
        if (ui.options(`rack:${kind}`).length) {
          clickable(group, ui, [`rack:${kind}`], outline);
          return;
        }
        const placeable = S.action_mode !== "moves" && [...ui.keys.values()].flat().some(([a]) => a < S.actions.commit && S.face_kind[faceOf(a, S)] === kind);
        if (!placeable) return;
        if (sel.kind === kind) { outline(group); return; }
        group.classList.add("legal", "pick");
        group.dataset.key = `kind:${kind}`;
        outline(group);
        group.addEventListener("click", (e) => { e.stopPropagation(); sel.kind = kind; ui.redraw(); });
      });
      y += RACK_TILE + 30;
    });
  },
};
