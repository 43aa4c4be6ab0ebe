"""The dark variant of a figure, made from the light one's SVG text: each colour mapped to one readable
on Material's slate background, with nothing drawn again.

Why the SVG text, not one SVG whose colours follow the page: figures are shown with <img>, and the
page's CSS (Material's `data-md-color-scheme`, toggled by the reader) does not reach inside an image;
only `prefers-color-scheme` does, which ignores the toggle. Two small files keep the toggle honoured,
keep the page's markup and weight as they are, and cost one regular-expression pass, not a matplotlib
render.
"""

from __future__ import annotations

import re

#: Foreground and background of the dark variant: Material's slate scheme.
DARK_BG, DARK_FG = "#1e2129", "#e2e4e9"

# A colour as matplotlib's SVG backend writes one: in a style (`fill: #1f77b4`) or an attribute
# (`stroke="#000000"`, in hatch patterns), always six hex digits; looked for inside tags only (the
# backend escapes '<' and '>' in text and attributes), so a label that reads "fill: #000000" stays.
_COLOUR = re.compile(rb'\b(fill|stroke)(:\s*|=")#([0-9a-fA-F]{6})\b')
_TAG = re.compile(rb"<[^>]*>")


def luminance(rgb) -> float:
    """Relative luminance (Rec. 709 weights) of an (r, g, b) in 0..1."""
    r, g, b = rgb[:3]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def for_dark(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    """A colour readable on the dark background: greys and dark hues lifted towards white, hue kept."""
    r, g, b = rgb
    lum = luminance(rgb)
    if lum >= 0.55:
        return rgb
    mix = min(0.75, 0.55 - lum + 0.25) if max(r, g, b) - min(r, g, b) > 0.15 else 1 - lum - 0.12
    return (r + (1 - r) * mix, g + (1 - g) * mix, b + (1 - b) * mix)


def dark_colour(prop: str, hex6: str) -> str:
    """The dark scheme's colour for a light figure's `fill` or `stroke` colour `hex6` ('1f77b4').

    White fills (the figure and axes backgrounds, text boxes, a hollow marker's face) become the
    background; black (text, spines, ticks) the foreground; every other colour `for_dark`.

    dark_colour("fill", "ffffff") == "#1e2129"; dark_colour("stroke", "000000") == "#e2e4e9"
    """
    rgb = tuple(int(hex6[i:i + 2], 16) / 255 for i in (0, 2, 4))
    if prop == "fill" and luminance(rgb) > 0.95:
        return DARK_BG
    if rgb == (0.0, 0.0, 0.0):
        return DARK_FG
    return "#" + "".join(f"{round(c * 255):02x}" for c in for_dark(rgb))


def dark_svg(light: bytes) -> bytes:
    """The dark variant of a light figure's SVG (matplotlib's), byte for byte the same drawing.

    Black is matplotlib's unwritten default fill (black text, a black face): the root <svg> names the
    dark foreground as the fill every element without one inherits.
    """
    def swap(m: re.Match) -> bytes:
        return m[1] + m[2] + dark_colour(m[1].decode(), m[3].decode()).encode()

    out = _TAG.sub(lambda tag: _COLOUR.sub(swap, tag[0]), light)
    return re.sub(rb"<svg\b", b'<svg fill="' + DARK_FG.encode() + b'"', out, count=1)
