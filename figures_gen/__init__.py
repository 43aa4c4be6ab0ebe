"""Build-time figures. One module per figure; every plotted value comes from `roofline`.

A figure module defines:

    NAME: str                      file stem: figures/<NAME>.svg and figures/<NAME>.csv
    def data() -> Table            the plotted data (written beside the SVG as CSV)
    def draw(fig, table) -> None   draw on a matplotlib Figure from that table only
    def alt() -> str               alt text, built from roofline quantities (no typed numbers)
    def caption() -> str           one or two sentences under the figure
    NARROW_SIZE_IN (optional)      the phone variant's size, where the default does not fit

Every figure is drawn in four variants (VARIANTS: wide or narrow, light or dark) from the same
draw(): the shared style here sets sizes and colours, moves legends under a narrow figure, and
places point labels (`point_labels`) where they collide with nothing.

`render(name)` gives the SVG bytes and CSV text; the same call backs the site build
(src/roofline_site/gen/figures.py) and the tests, so the tests compare like with like.
"""

from __future__ import annotations

import csv
import importlib
import io
from dataclasses import dataclass
from typing import Sequence

#: Every figure, by module name, in the order they are built.
FIGURES: tuple[str, ...] = (
    "h100_roofline",
    "intensity_line",
    "ridge_overlay",
    "sol_bandwidth",
    "kv_context",
    "prefill_intensity",
    "batch_sweep",
    "hardware_map",
    # playbook (docs/playbook.md): one figure per move
    "playbook_quantization",
    "playbook_speculative",
    "playbook_fusion",
    "playbook_paged",
    "playbook_moe",
    "playbook_tp",
    "playbook_disagg",
    # many chips (docs/many-chips.md)
    "many_chips_tp",
    # serving (docs/serving.md)
    "serving_frontier",
    # measurements (docs/measure.md, docs/real-systems.md)
    "measured_roofline",
    "real_vs_sol",
)

FIG_SIZE_IN = (7.0, 4.2)


@dataclass(frozen=True)
class Table:
    """Columns (with units in their names) and rows of the plotted data."""

    columns: tuple[str, ...]
    rows: tuple[tuple, ...]

    def column(self, name: str) -> list:
        i = self.columns.index(name)
        return [r[i] for r in self.rows]

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for row in self.rows:
            w.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in row])
        return buf.getvalue()


def module(name: str):
    if name not in FIGURES:
        raise KeyError(f"unknown figure '{name}'; known: {', '.join(FIGURES)}")
    return importlib.import_module(f"figures_gen.{name}")


#: The variants every figure is drawn in: file-stem suffix -> (narrow, dark). The page shows the narrow
#: ones below 720 px (text at least 11 px as displayed on a 390 px phone) and the dark ones under the
#: reader's dark scheme (Material's palette, which follows prefers-color-scheme until toggled).
VARIANTS: dict[str, tuple[bool, bool]] = {"": (False, False), "-dark": (False, True),
                                           "-narrow": (True, False), "-narrow-dark": (True, True)}
NARROW_SIZE_IN = (5.0, 4.6)
PAD_IN = 0.08  # around the narrow variant's drawing
#: Smallest text in a narrow variant, in SVG units: its 360-unit width shows at about 358 px on a
#: 390 px phone, so 11.5 units are 11.4 px there.
NARROW_MIN_FONT = 11.5
#: Foreground and background of the dark variant: Material's slate scheme.
DARK_BG, DARK_FG = "#1e2129", "#e2e4e9"


def _style(narrow: bool = False):
    """The one shared style of every figure (the dark variant is recoloured from it: _recolour_dark)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcdefaults()
    fg, bg = "black", "white"
    size = NARROW_MIN_FONT if narrow else 10  # tick labels are made at draw time: set their size here
    plt.rcParams.update({
        "svg.hashsalt": "roofline",      # stable element ids: byte-identical SVG across builds
        "svg.fonttype": "none",          # text as text: small files, the page's own font
        "font.family": "sans-serif",
        "font.size": size,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "figure.dpi": 100,
        "text.color": fg, "axes.labelcolor": fg, "axes.edgecolor": fg, "xtick.color": fg, "ytick.color": fg,
        "grid.color": "#b0b0b0", "figure.facecolor": bg, "axes.facecolor": bg,
        "savefig.facecolor": bg, "legend.labelcolor": fg,
    })
    if narrow:
        plt.rcParams.update({k: size for k in ("xtick.labelsize", "ytick.labelsize", "legend.fontsize",
                                               "axes.labelsize", "axes.titlesize", "figure.titlesize")})
    return plt


def _luminance(rgb) -> float:
    r, g, b = rgb[:3]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _for_dark(colour):
    """A colour readable on the dark background: greys and dark hues lifted towards white, hue kept."""
    from matplotlib.colors import to_rgba

    r, g, b, a = to_rgba(colour)
    lum = _luminance((r, g, b))
    if lum >= 0.55:
        return (r, g, b, a)
    mix = min(0.75, 0.55 - lum + 0.25) if max(r, g, b) - min(r, g, b) > 0.15 else 1 - lum - 0.12
    return (r + (1 - r) * mix, g + (1 - g) * mix, b + (1 - b) * mix, a)


def _recolour_dark(fig) -> None:
    """Every drawn colour of a light figure made readable on the dark background."""
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.text import Text

    fig.patch.set_facecolor(DARK_BG)
    for ax in fig.axes:
        ax.patch.set_facecolor(DARK_BG)
        for spine in ax.spines.values():
            spine.set_edgecolor(_for_dark(spine.get_edgecolor()))
        ax.tick_params(colors=DARK_FG, which="both")
    backgrounds = {id(fig.patch), *(id(ax.patch) for ax in fig.axes)}
    for a in fig.findobj():
        if id(a) in backgrounds:
            continue
        if isinstance(a, Text):
            a.set_color(_for_dark(a.get_color()))
            box = a.get_bbox_patch()
            if box is not None:
                box.set_facecolor(DARK_BG)
        elif isinstance(a, Line2D):
            a.set_color(_for_dark(a.get_color()))
            mfc = a.get_markerfacecolor()
            a.set_markerfacecolor(DARK_BG if _luminance(__import__("matplotlib").colors.to_rgba(mfc)) > 0.95 else _for_dark(mfc))
            a.set_markeredgecolor(_for_dark(a.get_markeredgecolor()))
        elif isinstance(a, Patch) and not a.get_fill() is False:
            fc = a.get_facecolor()
            if fc[3] > 0 and _luminance(fc) > 0.95:
                a.set_facecolor(DARK_BG)
            elif fc[3] > 0:
                a.set_facecolor(_for_dark(fc))
            a.set_edgecolor(_for_dark(a.get_edgecolor()))
        elif isinstance(a, Collection):
            if len(a.get_facecolors()):
                a.set_facecolors([_for_dark(c) for c in a.get_facecolors()])
            if len(a.get_edgecolors()):
                a.set_edgecolors([_for_dark(c) for c in a.get_edgecolors()])


_CURRENT = {"narrow": False}


def narrow() -> bool:
    """Whether the figure being drawn is the phone variant: a module may lay out differently (stacked
    panels) when it is; sizes and colours it need not handle."""
    return _CURRENT["narrow"]


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) if len(text) > width and "$" not in text else text


def _narrow(fig) -> None:
    """A phone's figure: no text under NARROW_MIN_FONT, long titles and axis labels wrapped, legends
    moved below the axes with wrapped entries (nothing may widen the figure past the phone)."""
    from matplotlib.text import Text

    from matplotlib.ticker import FixedLocator, LogLocator

    for t in fig.findobj(Text):
        if t.get_text() and t.get_fontsize() < NARROW_MIN_FONT:
            t.set_fontsize(NARROW_MIN_FONT)
    for ax in fig.axes:  # at most five decades labelled on a log axis: the labels need the room
        for axis in (ax.xaxis, ax.yaxis):
            # (a figure that fixed its own ticks, such as 1, 2, 4, 8 devices, keeps them)
            if axis.get_scale() == "log" and not isinstance(axis.get_major_locator(), FixedLocator):
                axis.set_major_locator(LogLocator(base=10, numticks=4 if axis is ax.xaxis else 5))
    for ax in fig.axes:  # notes drawn inside the axes: wrapped, so none runs past the phone's edge
        for t in ax.texts:
            t.set_text(_wrap(t.get_text(), 28))
    if fig._suptitle is not None:
        fig._suptitle.set_text(_wrap(fig._suptitle.get_text(), 44))
    for ax in fig.axes:
        ax.title.set_text(_wrap(ax.title.get_text(), 44))
        ax.xaxis.label.set_text(_wrap(ax.xaxis.label.get_text(), 36))
        ax.yaxis.label.set_text(_wrap(ax.yaxis.label.get_text(), 26))
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        handles, labels = leg.legend_handles, [_wrap(t.get_text(), 40) for t in leg.get_texts()]
        leg.remove()
        new = ax.legend(handles, labels, loc="upper left", frameon=False, fontsize=NARROW_MIN_FONT,
                        borderaxespad=0.0, handlelength=1.5)
        new._rl_below = True  # moved under the figure once the layout is known (_legends_below)


#: Every numeric axis carries at least this many labelled ticks: two say nothing of the scale between them.
MIN_TICKS = 3


def shown_ticks(axis) -> list[float]:
    """The major tick values inside `axis`'s view, where a label is drawn."""
    lo, hi = sorted(axis.get_view_interval())
    span = (hi - lo) * 1e-9
    return [v for v in axis.get_majorticklocs() if lo - span <= v <= hi + span]


def _enough_ticks(fig) -> None:
    """A log axis showing fewer than MIN_TICKS ticks (under two decades, or thinned on a phone) gets 2
    and 5 between its powers of ten, then 3 and 7, labelled as plain numbers like `log_ticks`' (a
    figure that fixed its own ticks keeps them)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() != "log" or isinstance(axis.get_major_locator(), FixedLocator):
                continue
            for subs in ((1.0, 2.0, 5.0), (1.0, 2.0, 3.0, 5.0, 7.0)):
                if len(shown_ticks(axis)) >= MIN_TICKS:
                    break
                axis.set_major_locator(LogLocator(base=10, subs=subs, numticks=30))
                axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def _legends_below(fig) -> None:
    """Stack the narrow variant's legends under everything else, left-aligned with the first axes."""
    renderer = fig.canvas.get_renderer()
    legends = [ax.get_legend() for ax in fig.axes if getattr(ax.get_legend(), "_rl_below", False)]
    if not legends:
        return
    for leg in legends:
        leg.set_visible(False)
    bottom = min(ax.get_tightbbox(renderer).y0 for ax in fig.axes)
    left = min(ax.get_tightbbox(renderer).x0 for ax in fig.axes)
    to_fig = fig.transFigure.inverted()
    for leg in legends:
        leg.set_visible(True)
        x, y = to_fig.transform((left, bottom - 6))
        leg.set_bbox_to_anchor((x, y), transform=fig.transFigure)
        bottom = leg.get_window_extent(renderer).y0


def key_labels(fig, lines: Sequence[str]) -> None:
    """Lines listed under the figure once it is laid out (with any labels that found no spot), for a
    figure that names its points by number: "1  Llama 3.1 8B decode, batch 1: 0.999 FLOP/byte"."""
    fig.__dict__.setdefault("_rl_key_lines", []).extend(lines)


def point_labels(ax, points, *, fontsize: float = 8, colour: str = "#424242") -> None:
    """Label data points without collisions: each (x, y, text[, colour]) is placed after layout, at the first
    of eight spots around its point that overlaps no other label, marker or the axes' edge; a label
    with no free spot is left off (the CSV and the table beside the figure name every point)."""
    ax.figure.__dict__.setdefault("_rl_labels", []).append((ax, list(points), fontsize, colour))


_SPOTS = ((5, 0, "left", "center"), (-5, 0, "right", "center"), (0, 5, "center", "bottom"),
          (0, -5, "center", "top"), (4, 4, "left", "bottom"), (-4, 4, "right", "bottom"),
          (4, -4, "left", "top"), (-4, -4, "right", "top"))


def _place_labels(fig, min_font: float) -> None:
    from matplotlib.transforms import Bbox

    renderer = fig.canvas.get_renderer()
    taken = []  # display-space boxes: markers first, then each placed label
    # Every drawn line (curves, roofs, guides) as display-space paths: a label crosses none of them.
    paths = [line.get_transform().transform_path(line.get_path()) for ax in fig.axes for line in ax.get_lines()
             if line.get_visible() and line.get_linestyle() not in ("None", "none", "", " ") and len(line.get_xydata())]

    def clear(box):
        return all(not box.overlaps(t) for t in taken) and not any(p.intersects_bbox(box, filled=False) for p in paths)

    for ax, points, _, _ in fig.__dict__.get("_rl_labels", []):
        for x, y, *_ in points:
            px, py = ax.transData.transform((x, y))
            taken.append(Bbox.from_extents(px - 4, py - 4, px + 4, py + 4))
    for ax in fig.axes:  # every marker, labelled or not
        for line in ax.get_lines():
            if line.get_visible() and line.get_marker() not in (None, "None", "none", "", " "):
                r = line.get_markersize() / 2 * fig.dpi / 72
                for px, py in line.get_transform().transform(line.get_xydata()):
                    taken.append(Bbox.from_extents(px - r, py - r, px + r, py + r))
    for t in fig.findobj(lambda a: hasattr(a, "get_window_extent") and a.__class__.__name__ == "Text"):
        if t.get_text() and t.get_visible() and t.figure is fig:
            try:
                taken.append(t.get_window_extent(renderer).expanded(1.02, 1.05))
            except Exception:  # noqa: BLE001  (text without a position yet)
                pass
    def place(ax, x, y, text, fontsize, colour, spots=_SPOTS) -> bool:
        frame = ax.get_window_extent(renderer)
        for dx, dy, ha, va in spots:
            t = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points", ha=ha, va=va,
                            fontsize=fontsize, color=colour, annotation_clip=False)
            box = t.get_window_extent(renderer).expanded(1.04, 1.1)
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
            if inside and clear(box):
                taken.append(box)
                return True
            t.remove()
        return False

    unplaced = []
    for ax, points, fontsize, colour in fig.__dict__.get("_rl_labels", []):
        for x, y, text, *own in points:
            shown = _wrap(text, 22) if min_font else text  # a phone's labels: two short lines fit more spots
            if not place(ax, x, y, shown, max(fontsize, min_font), own[0] if own else colour):
                unplaced.append((ax, x, y, text, max(fontsize, min_font), own[0] if own else colour))
    fig.__dict__.pop("_rl_labels", None)
    key = fig.__dict__.pop("_rl_key_lines", [])
    if unplaced:  # every label is kept: by number at its point, in words under the figure
        far = tuple((dx * k, dy * k, ha, va) for k in (1, 2, 3) for dx, dy, ha, va in _SPOTS)
        for n, (ax, x, y, text, size, colour) in enumerate(unplaced, len(key) + 1):
            marked = place(ax, x, y, str(n), size, colour, far)
            key.append(f"{n}  {text}" if marked else text)
    if key:
        _key_below(fig, key, min_font or 9)


def _key_below(fig, lines: list[str], fontsize: float) -> None:
    """The labels that found no free spot beside their points, as a list under everything drawn (the
    narrow variant's legends included), left-aligned with the first axes. The figure grows to hold it
    (`_save` keeps everything drawn)."""
    renderer = fig.canvas.get_renderer()
    bottom = fig.get_tightbbox(renderer).y0 * fig.dpi
    left = min(ax.get_tightbbox(renderer).x0 for ax in fig.axes)
    x, y = fig.transFigure.inverted().transform((left, bottom - 6))
    fig.text(x, y, "\n".join(_wrap(line, 40) for line in lines), ha="left", va="top", fontsize=fontsize,
             color="#424242", linespacing=1.4)
    fig._rl_key = True


def _save(fig, narrow: bool) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, transparent=False,
                facecolor=fig.get_facecolor(), bbox_inches="tight" if narrow or getattr(fig, "_rl_key", False) else None, pad_inches=PAD_IN)
    return buf.getvalue()


def _fit_phone_width(fig) -> None:
    """Shrink the narrow figure until everything drawn (with the legends below) is NARROW_SIZE_IN[0] inches wide:
    the SVG is then shown at about its own size on a phone, so its type keeps its size."""
    target = (NARROW_SIZE_IN[0] - 2 * PAD_IN) * 72
    for _ in range(8):
        _legends_below(fig)
        width = fig.get_tightbbox(fig.canvas.get_renderer()).width * 72
        if width <= target + 2:
            return
        w, h = fig.get_size_inches()
        if w - (width - target) / 72 < 0.75 * NARROW_SIZE_IN[0]:
            return  # text sticks out further than shrinking can fix: leave the axes their room
        fig.set_size_inches(w - (width - target) / 72, h)
        fig.tight_layout()


def render_variants(name: str) -> dict[str, bytes]:
    """{suffix: SVG bytes} of every variant of a figure (see VARIANTS), deterministic. Each width is
    drawn once and saved twice: light, then recoloured for the dark scheme."""
    mod = module(name)
    table = mod.data()
    out = {}
    for narrow in (False, True):
        plt = _style(narrow)
        fig = plt.figure(figsize=getattr(mod, "NARROW_SIZE_IN", NARROW_SIZE_IN) if narrow else FIG_SIZE_IN)
        _CURRENT["narrow"] = narrow
        try:
            mod.draw(fig, table)
            if narrow:
                _narrow(fig)
            _enough_ticks(fig)
            fig.tight_layout()
            if narrow:
                _fit_phone_width(fig)
            _place_labels(fig, NARROW_MIN_FONT if narrow else 0)
            base = "-narrow" if narrow else ""
            out[base] = _save(fig, narrow)
            _recolour_dark(fig)
            out[base + "-dark"] = _save(fig, narrow)
        finally:
            _CURRENT["narrow"] = False
            plt.close(fig)
    return {k: out[k] for k in VARIANTS}


def render(name: str) -> tuple[bytes, str]:
    """(SVG bytes, CSV text) of one figure's wide light variant, deterministic."""
    return render_variants(name)[""], module(name).data().to_csv()


#: The width a figure is declared at on the page (the content column); each variant's height follows
#: from its own aspect ratio, so the box the browser reserves is the box the SVG fills (no shift).
DISPLAY_WIDTH_PX = 700


def display_size(svg: bytes, width_px: int = DISPLAY_WIDTH_PX) -> tuple[int, int]:
    """(width, height) to declare for an SVG shown `width_px` wide: its viewBox's aspect ratio.

    display_size(b'<svg viewBox="0 0 504 302.4">') == (700, 420)
    """
    import re

    m = re.search(rb"<svg\b[^>]*?\bviewBox=\"\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*\"", svg)
    if m is None or float(m.group(1)) <= 0:
        raise ValueError("the SVG has no viewBox with a positive width")
    return width_px, round(width_px * float(m.group(2)) / float(m.group(1)))


def log_ticks(ax, axis: str, values: Sequence[float]) -> None:
    """Plain-number tick labels on a log axis (1, 10, 100 ...) rather than 10^k."""
    from matplotlib.ticker import FuncFormatter

    fmt = FuncFormatter(lambda v, _: f"{v:g}")
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(fmt)
