// The drawing of a game that has none of its own: the renderer's text as this viewer may read it (the frame's
// `text`, what `tabletop play` prints), and every legal move as a button under the board.
import { setViewBox, svg } from "/static/draw.js";

const LINE_H = 18, CHAR_W = 8.4, MARGIN = 12;

export default {
  target() { return null; },  // no element stands for a move: each legal move is a button

  draw(root, frame) {
    const lines = (frame.text || "").split("\n");
    const width = Math.max(...lines.map((line) => line.length), 20) * CHAR_W + 2 * MARGIN;
    setViewBox(root, width, lines.length * LINE_H + 2 * MARGIN);
    const text = svg("text", { class: "text-board", "font-family": "monospace", "font-size": 14, fill: "#f4f1e8" }, root);
    lines.forEach((line, i) => {
      svg("tspan", { x: MARGIN, y: MARGIN + (i + 1) * LINE_H - 4, "xml:space": "preserve", text: line }, text);
    });
  },
};
