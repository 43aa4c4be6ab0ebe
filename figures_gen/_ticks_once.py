"""Each axis' ticks and tick-label boxes worked out once per layout pass, not six times.

Within one pass of matplotlib's layout (a figure's or an Axes' tight box, or a draw) every axis
recomputes its ticks (locator, formatter, tick positions) for its own box, again for its label's
position, and again for each spine beside it, and measures every tick label each time: a third of
a figure's render. Nothing in a pass moves a tick (the limits, locators, sizes and positions are set
before it starts), so inside `ticks_once()` the first answer per axis is kept until the outermost
pass ends. The SVGs are byte-identical with and without it (tests/unit/figures/test_ticks_once.py).
"""

from __future__ import annotations

import functools
from contextlib import contextmanager

_memo: dict = {"depth": 0, "ticks": {}, "boxes": {}}


def _update_ticks(original):
    @functools.wraps(original)
    def once(axis):
        if not _memo["depth"]:
            return original(axis)
        if axis not in _memo["ticks"]:
            _memo["ticks"][axis] = original(axis)
        return list(_memo["ticks"][axis])  # (a caller may extend its list)
    return once


def _ticklabel_bboxes(original):
    @functools.wraps(original)
    def once(axis, ticks, renderer):
        if not _memo["depth"]:
            return original(axis, ticks, renderer)
        key = (axis, tuple(map(id, ticks)), id(renderer))
        if key not in _memo["boxes"]:
            _memo["boxes"][key] = original(axis, ticks, renderer)
        first, second = _memo["boxes"][key]
        return list(first), list(second)
    return once


@contextmanager
def one_pass():
    """Measurements that move nothing between them, as one pass (under `ticks_once`; harmless outside it):
    what is kept in it is dropped when the outermost pass ends."""
    _memo["depth"] += 1
    try:
        yield
    finally:
        _memo["depth"] -= 1
        if not _memo["depth"]:
            _memo["ticks"].clear()
            _memo["boxes"].clear()


def _pass(original):
    """`original` (a draw or a tight box) as one pass."""
    @functools.wraps(original)
    def in_one_pass(*args, **kwargs):
        with one_pass():
            return original(*args, **kwargs)
    return in_one_pass


@contextmanager
def ticks_once():
    """Inside: matplotlib works out each axis' ticks once per layout pass (see the module's docstring).

    matplotlib's classes are patched for the duration and restored after, so nothing outside a
    figure's render (another plot in the same process) sees the change.
    """
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.figure import Figure

    patches = [(Axis, "_update_ticks", _update_ticks), (Axis, "_get_ticklabel_bboxes", _ticklabel_bboxes),
               (Figure, "draw", _pass), (Figure, "get_tightbbox", _pass), (Axes, "get_tightbbox", _pass)]
    # Each method where it is defined (Axes' tight box is its base class's), put back there after.
    owners = [(next(c for c in cls.__mro__ if name in c.__dict__), name, wrap) for cls, name, wrap in patches]
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in owners]
    for owner, name, wrap in owners:
        setattr(owner, name, wrap(owner.__dict__[name]))
    try:
        yield
    finally:
        for cls, name, original in saved:
            setattr(cls, name, original)
        _memo.update(depth=0, ticks={}, boxes={})
