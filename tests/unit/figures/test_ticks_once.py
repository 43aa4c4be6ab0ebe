"""figures_gen._ticks_once: each axis' ticks worked out once per layout pass, and the SVG unchanged by it.

The byte comparison is the guard that matters: a memo kept past its pass (tried by hand: never
cleared) changes the narrow SVG of batch_sweep, real_vs_sol, h100_roofline and kv_context.
"""

from __future__ import annotations

from contextlib import nullcontext

import pytest

import figures_gen._render as render_module
from figures_gen import module
from figures_gen._style import style
from figures_gen._ticks_once import ticks_once


@pytest.mark.parametrize("name, narrow", [("batch_sweep", True), ("real_vs_sol", False)])
def test_a_figure_is_byte_identical_with_and_without_ticks_once(name, narrow, monkeypatch):
    """batch_sweep's narrow layout: twin axes, log axes, legends moved below, labels placed; real_vs_sol:
    its own fixed tick labels. Both drawn with the memo and without it."""
    table = module(name).data()
    with_memo = render_module._draw(name, table, narrow)
    monkeypatch.setattr(render_module, "ticks_once", nullcontext)
    assert render_module._draw(name, table, narrow) == with_memo


def test_each_axis_works_out_its_ticks_once_per_pass_and_again_in_the_next(monkeypatch):
    from matplotlib.axis import Axis

    calls = []
    original = Axis._update_ticks

    def counted(axis):
        calls.append(axis)
        return original(axis)

    monkeypatch.setattr(Axis, "_update_ticks", counted)
    plt = style()
    fig = plt.figure()
    try:
        ax = fig.add_subplot()
        ax.plot([1, 10, 100], [1, 2, 3])
        ax.set_xscale("log")
        renderer = fig.canvas.get_renderer()
        fig.get_tightbbox(renderer)
        without = len(calls)
        calls.clear()
        with ticks_once():
            fig.get_tightbbox(renderer)
            # One Axes has two axes (x and y): worked out once each in the pass, where matplotlib alone
            # works each out for its box, its label's position and its spine (three times or more).
            assert sorted(map(id, calls)) == sorted([id(ax.xaxis), id(ax.yaxis)]) and without >= 6
            fig.get_tightbbox(renderer)  # a second pass: the first one's answers are not reused
            assert len(calls) == 4
    finally:
        plt.close(fig)


def test_matplotlib_is_put_back_after_ticks_once_even_when_the_figure_fails():
    from matplotlib.axes._base import _AxesBase
    from matplotlib.axis import Axis
    from matplotlib.figure import Figure, FigureBase

    before = (Axis._update_ticks, Axis._get_ticklabel_bboxes, Figure.draw, FigureBase.get_tightbbox,
              _AxesBase.get_tightbbox)
    with pytest.raises(ZeroDivisionError):
        with ticks_once():
            assert Axis._update_ticks is not before[0]
            1 / 0
    assert (Axis._update_ticks, Axis._get_ticklabel_bboxes, Figure.draw, FigureBase.get_tightbbox,
            _AxesBase.get_tightbbox) == before
