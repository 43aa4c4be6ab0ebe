"""The one shared style of every figure: sizes, fonts, colours and ticks (the dark variant is mapped
from the light one's SVG: _dark)."""

from __future__ import annotations

from typing import Sequence

FIG_SIZE_IN = (7.0, 4.2)
NARROW_SIZE_IN = (5.0, 4.6)
PAD_IN = 0.08  # around the narrow variant's drawing
#: Smallest text in a narrow variant, in SVG units: its 360-unit width shows at about 358 px on a
#: 390 px phone, so 11.5 units are 11.4 px there.
NARROW_MIN_FONT = 11.5
#: Every numeric axis carries at least this many labelled ticks: two say nothing of the scale between them.
MIN_TICKS = 3


def style(narrow: bool = False):
    """matplotlib's pyplot, set to the shared style (light; the wide or the phone variant's sizes)."""
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


def shown_ticks(axis) -> list[float]:
    """The major tick values inside `axis`'s view, where a label is drawn."""
    lo, hi = sorted(axis.get_view_interval())
    span = (hi - lo) * 1e-9
    return [v for v in axis.get_majorticklocs() if lo - span <= v <= hi + span]


def enough_ticks(fig) -> None:
    """A log axis showing fewer than MIN_TICKS ticks (under two decades, or thinned on a phone) gets 2
    and 5 between its powers of ten, then 3 and 7, labelled as plain numbers like `log_ticks`' (a
    figure that fixed its own ticks keeps them). A log axis left with matplotlib's minor ticks gets
    them, unlabelled, at the powers of ten only."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            # Minor ticks, unlabelled, only at the powers of ten no label names (a phone's axis labels
            # every other one), not at 2 ... 9 of every decade: barely visible beside the decades' grid,
            # they were about a quarter of a figure's render time (a matplotlib Tick each) and a third of
            # its SVG's bytes.
            if axis.get_scale() == "log" and type(axis.get_minor_locator()) is LogLocator:
                axis.set_minor_locator(LogLocator(base=10, subs=(1.0,), numticks=30))
                axis.set_minor_formatter(NullFormatter())
            if axis.get_scale() != "log" or isinstance(axis.get_major_locator(), FixedLocator):
                continue
            for subs in ((1.0, 2.0, 5.0), (1.0, 2.0, 3.0, 5.0, 7.0)):
                if len(shown_ticks(axis)) >= MIN_TICKS:
                    break
                axis.set_major_locator(LogLocator(base=10, subs=subs, numticks=30))
                axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def log_ticks(ax, axis: str, values: Sequence[float]) -> None:
    """Plain-number tick labels on a log axis (1, 10, 100 ...) rather than 10^k."""
    from matplotlib.ticker import FuncFormatter

    fmt = FuncFormatter(lambda v, _: f"{v:g}")
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(fmt)
