"""Each string measured once per process and kind of renderer, not once per renderer.

matplotlib keeps the size of a measured string per renderer object, and a render makes several:
the layout's (tight_layout, the labels, the phone width) and the SVG writer's. So every figure's
every layout measured its tick values, labels and legend entries afresh through FreeType (a sixth
of a render on eleven figures; shared, half as many strings are measured, in 40 % less time). A
string's size depends only on the string, its font properties, math or not, the dpi, the kind of
renderer and the text settings, so inside `shared_text_metrics()` the sizes are kept under all of
those and reused by later renderers and later figures. The SVGs are byte-identical with and without
it (tests/unit/figures/test_text_metrics.py). The settings are read when the block starts: figure
modules change none (`_style.style` sets them before).
"""

from __future__ import annotations

from contextlib import contextmanager

#: (renderer kind and dpi, text settings, string, font, math, dpi) -> (width, height, descent).
_sizes: dict = {}
_MAX_SIZES = 65536
#: The settings a string's measured size can depend on (hinting, kerning, fonts, math text).
_SETTINGS = ("text.", "mathtext.", "font.", "svg.")


def _renderer_key(renderer) -> tuple:
    """The kind of renderer (and the one it draws through, for the SVG writer's mixed-mode wrapper)
    and their dpi: what, besides the string, sets the size it measures."""
    inner = getattr(renderer, "_renderer", None)
    return (type(renderer), getattr(renderer, "dpi", None), type(inner), getattr(inner, "dpi", None))


@contextmanager
def shared_text_metrics():
    """Inside: every string's size is measured once per renderer kind and settings (module doc).

    matplotlib's measuring function is replaced for the duration and put back after, so a plot
    outside a figure's render sees matplotlib as it is.
    """
    import matplotlib
    import matplotlib.text as mtext

    settings = tuple(sorted((k, repr(v)) for k, v in matplotlib.rcParams.items() if k.startswith(_SETTINGS)))
    name = "_get_text_metrics_with_cache"
    original = getattr(mtext, name)

    def measured(renderer, text, fontprop, ismath, dpi):
        font = fontprop.copy()  # (a FontProperties' hash follows its state: a copy cannot change)
        key = (_renderer_key(renderer), settings, text, font, ismath, dpi)
        if (size := _sizes.get(key)) is None:
            if len(_sizes) >= _MAX_SIZES:
                _sizes.clear()
            size = _sizes[key] = original(renderer, text, font, ismath, dpi)
        return size

    setattr(mtext, name, measured)
    try:
        yield
    finally:
        setattr(mtext, name, original)
