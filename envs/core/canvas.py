"""A tiny numpy drawing surface for `rgb_array` pictures (envs may depend on numpy only).

Rectangles, discs and a 3×5 pixel font scaled up: enough to draw boards, tiles, cards and labels.
"""

from __future__ import annotations

import numpy as np

Color = tuple[int, int, int]

WHITE: Color = (255, 255, 255)
BLACK: Color = (0, 0, 0)
GREY: Color = (150, 150, 150)
LIGHT_GREY: Color = (215, 215, 215)
FELT: Color = (34, 102, 60)

# Distinct, colour-blind-friendly player colours (Okabe–Ito order).
PLAYER_COLORS: tuple[Color, ...] = (
    (0, 114, 178),
    (213, 94, 0),
    (240, 228, 66),
    (0, 158, 115),
    (204, 121, 167),
    (86, 180, 233),
)

_GLYPHS = {
    "0": "111101101101111",
    "1": "010110010010111",
    "2": "111001111100111",
    "3": "111001111001111",
    "4": "101101111001001",
    "5": "111100111001111",
    "6": "111100111101111",
    "7": "111001001001001",
    "8": "111101111101111",
    "9": "111101111001111",
    "A": "010101111101101",
    "B": "110101110101110",
    "C": "011100100100011",
    "D": "110101101101110",
    "E": "111100110100111",
    "F": "111100110100100",
    "G": "011100101101011",
    "H": "101101111101101",
    "I": "111010010010111",
    "J": "001001001101010",
    "K": "101101110101101",
    "L": "100100100100111",
    "M": "101111111101101",
    "N": "110101101101101",
    "O": "010101101101010",
    "P": "110101110100100",
    "Q": "010101101110011",
    "R": "110101110101101",
    "S": "011100010001110",
    "T": "111010010010010",
    "U": "101101101101111",
    "V": "101101101101010",
    "W": "101101111111101",
    "X": "101101010101101",
    "Y": "101101010010010",
    "Z": "111001010100111",
    "-": "000000111000000",
    "+": "000010111010000",
    ":": "000010000010000",
    ".": "000000000000010",
    "/": "001001010100100",
    "*": "101010111010101",
    "_": "000000000000111",
    "?": "111001010000010",
    "(": "010100100100010",
    ")": "010001001001010",
    "!": "010010010000010",
    " ": "000000000000000",
}


class Canvas:
    """An RGB picture being drawn; `pixels` is the H×W×3 uint8 result."""

    def __init__(self, height: int, width: int, background: Color = WHITE):
        self.pixels = np.empty((height, width, 3), dtype=np.uint8)
        self.pixels[:] = background

    def rect(self, top: int, left: int, height: int, width: int, color: Color) -> None:
        self.pixels[max(top, 0) : top + height, max(left, 0) : left + width] = color

    def frame(self, top: int, left: int, height: int, width: int, color: Color, thickness: int = 1) -> None:
        t = thickness
        self.rect(top, left, t, width, color)
        self.rect(top + height - t, left, t, width, color)
        self.rect(top, left, height, t, color)
        self.rect(top, left + width - t, height, t, color)

    def disc(self, cy: int, cx: int, radius: int, color: Color) -> None:
        h, w, _ = self.pixels.shape
        y0, y1 = max(cy - radius, 0), min(cy + radius + 1, h)
        x0, x1 = max(cx - radius, 0), min(cx + radius + 1, w)
        yy, xx = np.ogrid[y0:y1, x0:x1]
        inside = (yy - cy) ** 2 + (xx - cx) ** 2 <= radius * radius
        self.pixels[y0:y1, x0:x1][inside] = color

    def text(self, top: int, left: int, text: str, color: Color = BLACK, scale: int = 2) -> None:
        """Draw `text` in the 3×5 font; unknown characters draw as '?'."""
        for i, ch in enumerate(text.upper()):
            bits = _GLYPHS.get(ch, _GLYPHS["?"])
            glyph = np.array([int(b) for b in bits], dtype=bool).reshape(5, 3)
            glyph = np.kron(glyph, np.ones((scale, scale), dtype=bool))
            y, x = top, left + i * 4 * scale
            region = self.pixels[y : y + glyph.shape[0], x : x + glyph.shape[1]]
            region[glyph[: region.shape[0], : region.shape[1]]] = color

    @staticmethod
    def text_width(text: str, scale: int = 2) -> int:
        return len(text) * 4 * scale - scale
