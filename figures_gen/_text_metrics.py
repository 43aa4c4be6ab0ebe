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

A text's layout (its lines' sizes and offsets, its rotated box, relative to its anchor) is kept the
same way: matplotlib lays every text out again at each pass (the tight layout, each label placement,
the SVG writer), looking its font up and reading the font's tables each time (a fifth of a render).
The layout is a function of the string, the font, the dpi, the alignment, the rotation and the line
spacing, not of where the text stands, so it is kept under those; a text that wraps (its lines follow
its place in the figure) is laid out afresh.

What a process measured itself (`measured_here`) can be handed to a later one (`keep_measured`): the site keeps
it between builds, under `fonts_key`, the matplotlib, FreeType and font files the sizes came from.
"""

from __future__ import annotations

from contextlib import contextmanager

#: (renderer kind and dpi, text settings, string, font, math, dpi) -> (width, height, descent).
_sizes: dict = {}
#: (renderer kind and dpi, text settings, what a layout reads of the text) -> matplotlib's Text._get_layout.
_layouts: dict = {}
#: The sizes and layouts worked out in this process, not handed in by `keep_measured`.
_here: dict = {"sizes": {}, "layouts": {}}
_MAX_SIZES = 65536
#: The settings a string's measured size can depend on (hinting, kerning, fonts, math text).
_SETTINGS = ("text.", "mathtext.", "font.", "svg.")


def fonts_key() -> str:
    """What a kept size or layout depends on besides its own key: matplotlib's and FreeType's versions and
    every font file matplotlib knows (path, size, time of change), hashed."""
    import hashlib
    import os

    import matplotlib
    from matplotlib import ft2font
    from matplotlib.font_manager import fontManager

    h = hashlib.sha256(f"matplotlib {matplotlib.__version__}; FreeType {ft2font.__freetype_version__}".encode())
    for path in sorted({font.fname for font in [*fontManager.ttflist, *fontManager.afmlist]}):
        try:
            st = os.stat(path)
            h.update(f"{path} {st.st_size} {st.st_mtime_ns}\n".encode("utf-8", "surrogatepass"))
        except OSError:
            h.update(f"{path} missing\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:16]


def measured_here() -> dict:
    """{"sizes": ..., "layouts": ...}: what this process measured and laid out itself (copies)."""
    return {kind: dict(found) for kind, found in _here.items()}


def keep_measured(measured: dict) -> None:
    """Take sizes and layouts another process measured under the same `fonts_key` (`measured_here`'s form)."""
    for kind, memo in (("sizes", _sizes), ("layouts", _layouts)):
        found = measured.get(kind)
        if isinstance(found, dict) and len(memo) + len(found) <= _MAX_SIZES:
            memo.update(found)


def _renderer_key(renderer) -> tuple:
    """The kind of renderer (and the one it draws through, for the SVG writer's mixed-mode wrapper)
    and their dpi: what, besides the string, sets the size it measures."""
    inner = getattr(renderer, "_renderer", None)
    return (type(renderer), getattr(renderer, "dpi", None), type(inner), getattr(inner, "dpi", None))


def _layout_inputs(text) -> tuple:
    """Everything of `text` that matplotlib's Text._get_layout reads, besides the renderer and settings.

    The font properties object itself (its hash and equality follow its state): the key stored holds a copy."""
    return (text.get_text(), text._fontproperties, text.get_figure(root=True).dpi, text.get_usetex(),
            text._parse_math, text._linespacing, text._get_multialignment(), text.get_rotation(),
            text.get_rotation_mode(), text._horizontalalignment, text._verticalalignment)


@contextmanager
def shared_text_metrics():
    """Inside: every string's size is measured, and every text laid out, once per renderer kind and
    settings (module doc).

    matplotlib's measuring function and Text's layout method are replaced for the duration and put back
    after, so a plot outside a figure's render sees matplotlib as it is.
    """
    import matplotlib
    import matplotlib.text as mtext
    from matplotlib.transforms import Bbox

    settings = tuple(sorted((k, repr(v)) for k, v in matplotlib.rcParams.items() if k.startswith(_SETTINGS)))
    name = "_get_text_metrics_with_cache"
    original = getattr(mtext, name)
    original_layout = mtext.Text.__dict__["_get_layout"]

    def measured(renderer, text, fontprop, ismath, dpi):
        font = fontprop.copy()  # (a FontProperties' hash follows its state: a copy cannot change)
        key = (_renderer_key(renderer), settings, text, font, ismath, dpi)
        if (size := _sizes.get(key)) is None:
            if len(_sizes) >= _MAX_SIZES:
                _sizes.clear()
                _here["sizes"].clear()
            size = _sizes[key] = _here["sizes"][key] = original(renderer, text, font, ismath, dpi)
        return size

    def laid_out(text, renderer):
        if text.get_wrap():
            return original_layout(text, renderer)
        inputs = _layout_inputs(text)
        key = (_renderer_key(renderer), settings, inputs)
        if (layout := _layouts.get(key)) is None:
            if len(_layouts) >= _MAX_SIZES:
                _layouts.clear()
                _here["layouts"].clear()
            layout = original_layout(text, renderer)
            stored = (key[0], settings, (inputs[0], inputs[1].copy(), *inputs[2:]))
            _layouts[stored] = _here["layouts"][stored] = layout
        box, lines, corner = layout
        # A fresh box and list each time: the caller owns what it gets, as from matplotlib.
        return Bbox(box.get_points().copy()), list(lines), corner

    setattr(mtext, name, measured)
    mtext.Text._get_layout = laid_out
    try:
        yield
    finally:
        setattr(mtext, name, original)
        mtext.Text._get_layout = original_layout
