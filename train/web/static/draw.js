// Small SVG helpers shared by the drawings in boards/. An element with class "legal" plays or asks for a
// legal move when clicked; "legal pick" marks one that only picks what to play (a tile, a wild card).
const NS = "http://www.w3.org/2000/svg";
const SEAT_COLOURS = ["#0072b2", "#d55e00", "#e8d43a", "#009e73", "#cc79a7", "#56b4e9", "#e69f00", "#555555"];

export function seatColour(seat) {
  return seat === null || seat < 0 ? "#888" : SEAT_COLOURS[seat % SEAT_COLOURS.length];
}

// An SVG element with attributes (text content under "text"), appended to `parent` when given.
export function svg(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.setAttribute("class", value);
    else node.setAttribute(key, value);
  }
  if (parent) parent.append(node);
  return node;
}

export function clear(root) {
  while (root.firstChild) root.firstChild.remove();
}

// A group that plays `keys` when clicked (if the board is interactive and any of them is legal),
// with a highlight ring drawn by `outline(group)`.
export function clickable(group, ui, keys, outline, filter) {
  const list = [].concat(keys);
  const options = list.flatMap((k) => ui.options(k)).filter(([a]) => !filter || filter(a));
  if (!ui.interactive || !options.length) return false;
  group.classList.add("legal");
  group.dataset.key = list.join(" ");
  outline(group);
  group.addEventListener("click", (event) => { event.stopPropagation(); ui.pick(list, event, filter); });
  return true;
}

// Marks `node` as new since the last drawing, so CSS lets it arrive.
export function fresh(node, isNew) {
  if (isNew) node.classList.add("fresh");
  return node;
}

export function setViewBox(root, width, height) {
  root.setAttribute("viewBox", `0 0 ${width} ${height}`);
  root.style.maxHeight = `${Math.max(height * 1.25, 360)}px`;
}
