"""Drawing a figure: its two layouts (wide, narrow) rendered by matplotlib once each, the dark
variants mapped from them (_dark), the SVG's display size, and a count of every render."""

from __future__ import annotations

import io
import re
from collections import Counter

from figures_gen._dark import dark_svg
from figures_gen._labels import place_labels
from figures_gen._narrow import drawing, fit_phone_width, narrow_layout
from figures_gen._registry import module
from figures_gen._style import FIG_SIZE_IN, NARROW_MIN_FONT, NARROW_SIZE_IN, PAD_IN, enough_ticks, style
from figures_gen._ticks_once import ticks_once
from figures_gen._text_metrics import shared_text_metrics

#: The variants every figure is shown in: file-stem suffix -> (narrow, dark). The page shows the narrow
#: ones below 720 px (text at least 11 px as displayed on a 390 px phone) and the dark ones under the
#: reader's dark scheme (Material's palette, which follows prefers-color-scheme until toggled).
VARIANTS: dict[str, tuple[bool, bool]] = {"": (False, False), "-dark": (False, True),
                                           "-narrow": (True, False), "-narrow-dark": (True, True)}
#: At most this many matplotlib renders of one figure per build: the wide layout and the narrow one.
MAX_RENDERS = 2
#: matplotlib renders (savefig) per figure in this process; the build reads it (and adds its workers').
RENDERS: Counter[str] = Counter()


def _save(fig, narrow: bool) -> bytes:
    tight = narrow or getattr(fig, "_rl_key", False)
    if not tight:
        # Laid out already (tight_layout, then the labels): the placeholder engine tight_layout leaves
        # behind made savefig draw the whole figure once more, without output, before drawing it for the
        # SVG: a fifth of a render. A figure cropped to its drawing ("tight") needs that draw to measure.
        fig.set_layout_engine(None)
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, transparent=False,
                facecolor=fig.get_facecolor(), bbox_inches="tight" if tight else None, pad_inches=PAD_IN)
    return compact_svg(buf.getvalue())


_METADATA = re.compile(rb"\s*<metadata>.*?</metadata>", re.S)
# The XML declaration and DOCTYPE before <svg> (a browser showing an <img> reads neither).
_PROLOG = re.compile(rb"\A<\?xml.*?(?=<svg)", re.S)
# matplotlib's bookkeeping ids on groups nothing references (url(#...) and href point at <defs>' ids,
# which are kept, as are the axis, tick and legend ids the figure-reading checks find ticks and legends by).
_BOOKKEEPING_ID = re.compile(rb' id="(?:figure|axes|patch|text|line2d)_\d+"')
# matplotlib's indentation between elements and line breaks inside path data (neither is drawn).
_INDENT = re.compile(rb">\s*\n\s*<")
_PATH_DATA = re.compile(rb' d="([^"]*)"')
# A group with no attribute around elements (matplotlib wraps every artist in one): drawn the same unwrapped.
_LEAVES = rb"<(?:path|use|text)\b[^>]*?/>|<text\b[^>]*>[^<]*</text>|<defs>(?:<path\b[^>]*?/>)*</defs>"
_BARE_GROUP = re.compile(rb"<g>((?:" + _LEAVES + rb")*)</g>")
# A tick with no label (a log axis' minor ticks): its id named nothing a check reads (labels are found by
# their tick's id), and a numbered id per tick is what compresses worst in a figure.
_UNLABELLED_TICK = re.compile(rb'<g id="[xy]tick_\d+">((?:<defs>(?:<path\b[^>]*?/>)*</defs>|<(?:path|use)\b[^>]*?/>)*)</g>')
# A marker's definition and its uses each carry the same style: on the definition it already wins.
_MARKER_STYLE = re.compile(rb'<path id="([^"]+)" d="[^"]*" style="([^"]*)"/>')
_USE_STYLE = re.compile(rb'(<use xlink:href="#([^"]+)"[^>]*?) style="([^"]*)"')
# A text's zero rotation about its own anchor (matplotlib writes one on every label).
_NO_ROTATION = re.compile(rb' transform="rotate\(-?0 [-\d. ]+\)"')
_FONT_FAMILY = re.compile(rb"(; )?font-family: ([^;\"]+)(; )?")
_STYLE_OPEN = b'<style type="text/css">'
# Geometry attributes of the drawing (the root <svg>'s size and viewBox are left exact).
_GEOMETRY = re.compile(rb'(\s(?:d|x|y|x1|y1|x2|y2|cx|cy|r|width|height|points|transform)=")([^"]*)"')
_LONG_DECIMAL = re.compile(rb"-?\d+\.\d{3,}")


def compact_svg(svg: bytes) -> bytes:
    r"""matplotlib's SVG with its RDF <metadata>, its XML prolog and its groups' bookkeeping ids dropped and
    the drawing's coordinates rounded to 0.01 pt (0.014 px at the 700 px a figure is shown: no visible
    change), then tidied (_tidy), which a reader downloads ~35 % fewer bytes of. Text (labels,
    tick values) is left as it is.

    >>> compact_svg(b'<?xml version="1.0"?>\n<!DOCTYPE svg>\n<svg viewBox="0 0 494.554453 359.3"><metadata>x</metadata>'
    ...             b'<g id="line2d_1"><path d="M 53.002344 254.916094 L 1.5 0"/></g><g id="xtick_1">'
    ...             b'<text x="10.123456">0.999 FLOP/byte</text></g></svg>')
    b'<svg viewBox="0 0 494.554453 359.3"><path d="M 53 254.92 L 1.5 0"/><g id="xtick_1"><text x="10.12">0.999 FLOP/byte</text></g></svg>'
    """
    svg = _BOOKKEEPING_ID.sub(b"", _PROLOG.sub(b"", _METADATA.sub(b"", svg, count=1), count=1))
    root_end = svg.find(b">", svg.find(b"<svg")) + 1

    def rounded(m: re.Match) -> bytes:
        return _short(float(m.group()))

    def attr(m: re.Match) -> bytes:
        return m.group(1) + _LONG_DECIMAL.sub(rounded, m.group(2)) + b'"'

    return _tidy(svg[:root_end] + _GEOMETRY.sub(attr, svg[root_end:]))


def _tidy(svg: bytes) -> bytes:
    r"""`svg` drawn the same in fewer bytes: indentation and path-data line breaks dropped, bare groups
    and unlabelled ticks unwrapped, a marker's style said on its definition only, zero rotations
    dropped, and a font family every text shares said once, in the <style>.

    >>> _tidy(b'<svg><defs><style type="text/css">*{a: b}</style></defs>\n <g>\n  <path d="M 0 0 \nL 1 1 \nz\n"/>\n </g>\n'
    ...       b' <g id="xtick_1"><g><text style="font-size: 10px; font-family: \'DejaVu Sans\', sans-serif; text-anchor: middle"'
    ...       b' x="1" y="2" transform="rotate(-0 1 2)">0.1</text></g></g><g id="xtick_2"><g><defs><path id="m1" d="M 0 0"'
    ...       b' style="stroke: red"/></defs><use xlink:href="#m1" x="3" y="4" style="stroke: red"/></g></g></svg>')
    b'<svg><defs><style type="text/css">text{font-family:\'DejaVu Sans\', sans-serif}*{a: b}</style></defs><path d="M 0 0 L 1 1 z"/><g id="xtick_1"><text style="font-size: 10px; text-anchor: middle" x="1" y="2">0.1</text></g><defs><path id="m1" d="M 0 0" style="stroke: red"/></defs><use xlink:href="#m1" x="3" y="4"/></svg>'
    """
    svg = _PATH_DATA.sub(lambda m: b' d="' + b" ".join(m.group(1).split()) + b'"', _INDENT.sub(b"><", svg))
    marker_style = dict(_MARKER_STYLE.findall(svg))
    svg = _USE_STYLE.sub(lambda m: m.group(1) if marker_style.get(m.group(2)) == m.group(3) else m.group(0), svg)
    while (unwrapped := _BARE_GROUP.sub(rb"\1", svg)) != svg:
        svg = unwrapped
    svg = _UNLABELLED_TICK.sub(rb"\1", svg)
    svg = _NO_ROTATION.sub(b"", svg)
    families = {m.group(2) for m in _FONT_FAMILY.finditer(svg)}
    if len(families) == 1 and svg.count(_STYLE_OPEN) == 1:
        family = families.pop()
        svg = _FONT_FAMILY.sub(lambda m: b"; " if m.group(1) and m.group(3) else b"", svg)
        svg = svg.replace(_STYLE_OPEN, _STYLE_OPEN + b"text{font-family:" + family + b"}", 1)
    return svg


def _short(value: float) -> bytes:
    """`value` to two decimals, without trailing zeros: 53.002344 -> b"53", 254.916094 -> b"254.92"."""
    text = (b"%.2f" % value).rstrip(b"0").rstrip(b".")
    return b"0" if text in (b"-0", b"") else text


def _draw(name: str, table, narrow: bool) -> bytes:
    """The light SVG of one layout of a figure: drawn, laid out for its width, labels placed, rendered."""
    mod = module(name)
    plt = style(narrow)
    fig = plt.figure(figsize=getattr(mod, "NARROW_SIZE_IN", NARROW_SIZE_IN) if narrow else FIG_SIZE_IN)
    drawing(narrow)
    try:
        # each axis' ticks worked out once per layout pass (_ticks_once), each string measured once (_text_metrics)
        with ticks_once(), shared_text_metrics():
            mod.draw(fig, table)
            if narrow:
                narrow_layout(fig)
            enough_ticks(fig)
            fig.tight_layout()
            if narrow:
                fit_phone_width(fig)
            place_labels(fig, NARROW_MIN_FONT if narrow else 0)
            RENDERS[name] += 1
            return _save(fig, narrow)
    finally:
        drawing(False)
        plt.close(fig)


def _variants(name: str, table) -> dict[str, bytes]:
    out = {}
    for narrow in (False, True):
        base = "-narrow" if narrow else ""
        out[base] = _draw(name, table, narrow)
        out[base + "-dark"] = dark_svg(out[base])
    return {k: out[k] for k in VARIANTS}


def render_variants(name: str) -> dict[str, bytes]:
    """{suffix: SVG bytes} of every variant of a figure (see VARIANTS), deterministic: each layout
    rendered once, its dark variant mapped from the light SVG."""
    return _variants(name, module(name).data())


def figure_files(name: str) -> tuple[dict[str, bytes], str]:
    """({suffix: SVG bytes}, CSV text) of a figure: what the build publishes, from one call of data()."""
    table = module(name).data()
    return _variants(name, table), table.to_csv()


def warm_up() -> None:
    """Import what a render needs (pyplot, the Agg and SVG writers) without changing any setting: a
    process that forks its render workers afterwards imports them once, not once per worker."""
    import matplotlib.backends.backend_agg  # noqa: F401
    import matplotlib.backends.backend_svg  # noqa: F401
    import matplotlib.pyplot  # noqa: F401


def figure_files_counted(name: str) -> tuple[dict[str, bytes], str, int]:
    """`figure_files` and the renders it took: what a worker process of the build returns."""
    before = RENDERS[name]
    svgs, csv_text = figure_files(name)
    return svgs, csv_text, RENDERS[name] - before


def render(name: str) -> tuple[bytes, str]:
    """(SVG bytes, CSV text) of one figure's wide light variant, deterministic (one render)."""
    table = module(name).data()
    return _draw(name, table, False), table.to_csv()


#: The width a figure is declared at on the page (the content column); each variant's height follows
#: from its own aspect ratio, so the box the browser reserves is the box the SVG fills (no shift).
DISPLAY_WIDTH_PX = 700


def display_size(svg: bytes, width_px: int = DISPLAY_WIDTH_PX) -> tuple[int, int]:
    """(width, height) to declare for an SVG shown `width_px` wide: its viewBox's aspect ratio.

    display_size(b'<svg viewBox="0 0 504 302.4">') == (700, 420)
    """
    m = re.search(rb"<svg\b[^>]*?\bviewBox=\"\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*\"", svg)
    if m is None or float(m.group(1)) <= 0:
        raise ValueError("the SVG has no viewBox with a positive width")
    return width_px, round(width_px * float(m.group(2)) / float(m.group(1)))
