"""The phone variant's layout: no text under NARROW_MIN_FONT, long text wrapped, legends under the
axes, the drawing shrunk to the phone's width."""

from __future__ import annotations

from figures_gen._style import NARROW_MIN_FONT, NARROW_SIZE_IN, PAD_IN

_CURRENT = {"narrow": False}


def narrow() -> bool:
    """Whether the figure being drawn is the phone variant: a module may lay out differently (stacked
    panels) when it is; sizes and colours it need not handle."""
    return _CURRENT["narrow"]


def drawing(narrow_now: bool) -> None:
    """Say which variant is being drawn (read back by `narrow()` inside a figure's draw)."""
    _CURRENT["narrow"] = narrow_now


def wrap(text: str, width: int) -> str:
    """`text` on lines of at most `width` characters; mathtext ($...$) is never split."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) if len(text) > width and "$" not in text else text


def narrow_layout(fig) -> None:
    """A phone's figure: no text under NARROW_MIN_FONT, long titles and axis labels wrapped, legends
    moved below the axes with wrapped entries (nothing may widen the figure past the phone)."""
    from matplotlib.ticker import FixedLocator, LogLocator

    for t in _texts(fig):
        if t.get_text() and t.get_fontsize() < NARROW_MIN_FONT:
            t.set_fontsize(NARROW_MIN_FONT)
    for ax in fig.axes:  # at most five decades labelled on a log axis: the labels need the room
        for axis in (ax.xaxis, ax.yaxis):
            # (a figure that fixed its own ticks, such as 1, 2, 4, 8 devices, keeps them)
            if axis.get_scale() == "log" and not isinstance(axis.get_major_locator(), FixedLocator):
                axis.set_major_locator(LogLocator(base=10, numticks=4 if axis is ax.xaxis else 5))
    for ax in fig.axes:  # notes drawn inside the axes: wrapped, so none runs past the phone's edge
        for t in ax.texts:
            t.set_text(wrap(t.get_text(), 28))
    if fig._suptitle is not None:
        fig._suptitle.set_text(wrap(fig._suptitle.get_text(), 44))
    for ax in fig.axes:
        ax.title.set_text(wrap(ax.title.get_text(), 44))
        ax.xaxis.label.set_text(wrap(ax.xaxis.label.get_text(), 36))
        ax.yaxis.label.set_text(wrap(ax.yaxis.label.get_text(), 26))
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        handles, labels = leg.legend_handles, [wrap(t.get_text(), 40) for t in leg.get_texts()]
        leg.remove()
        new = ax.legend(handles, labels, loc="upper left", frameon=False, fontsize=NARROW_MIN_FONT,
                        borderaxespad=0.0, handlelength=1.5)
        new._rl_below = True  # moved under the figure once the layout is known (legends_below)


def _texts(artist):
    """Every Text under `artist`, as `artist.findobj(Text)` finds them, less the labels of ticks an axis has not
    made yet: those have no text, and an axis asked for its children makes every tick its locator places (most
    of a narrow layout's time, spent again when the ticks are drawn)."""
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    children = ([artist.label, artist.offsetText, *artist.majorTicks, *artist.minorTicks]
                if isinstance(artist, Axis) else artist.get_children())
    for child in children:
        yield from _texts(child)
    if isinstance(artist, Text):
        yield artist


def legends_below(fig) -> None:
    """Stack the narrow variant's legends under everything else, left-aligned with the first axes."""
    renderer = fig.canvas.get_renderer()
    legends = [ax.get_legend() for ax in fig.axes if getattr(ax.get_legend(), "_rl_below", False)]
    if not legends:
        return
    for leg in legends:
        leg.set_visible(False)
    boxes = [ax.get_tightbbox(renderer) for ax in fig.axes]  # (each measured once: most of this function's time)
    bottom, left = min(b.y0 for b in boxes), min(b.x0 for b in boxes)
    to_fig = fig.transFigure.inverted()
    for leg in legends:
        leg.set_visible(True)
        x, y = to_fig.transform((left, bottom - 6))
        leg.set_bbox_to_anchor((x, y), transform=fig.transFigure)
        bottom = leg.get_window_extent(renderer).y0


def fit_phone_width(fig) -> None:
    """Shrink the narrow figure until everything drawn (with the legends below) is NARROW_SIZE_IN[0] inches wide:
    the SVG is then shown at about its own size on a phone, so its type keeps its size."""
    target = (NARROW_SIZE_IN[0] - 2 * PAD_IN) * 72
    for _ in range(8):
        legends_below(fig)
        width = fig.get_tightbbox(fig.canvas.get_renderer()).width * 72
        if width <= target + 2:
            return
        w, h = fig.get_size_inches()
        if w - (width - target) / 72 < 0.75 * NARROW_SIZE_IN[0]:
            return  # text sticks out further than shrinking can fix: leave the axes their room
        fig.set_size_inches(w - (width - target) / 72, h)
        fig.tight_layout()
