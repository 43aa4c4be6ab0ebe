"""figures_gen._text_metrics: each string measured once per renderer kind and settings, and the SVGs unchanged by it.

The byte comparison is the guard that matters: sizes kept under the string alone (tried by hand) hand a
string the size it was measured at in another font or layout, and change the SVGs below.
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext

import pytest

import figures_gen._render as render_module
from figures_gen import module
from figures_gen._style import style
from figures_gen._text_metrics import shared_text_metrics


def test_figures_are_byte_identical_with_and_without_shared_text_metrics(monkeypatch):
    """h100_roofline's two layouts, then batch_sweep's narrow one (twin log axes, legends below, labels
    placed): the later renders take sizes the earlier ones measured, in other layouts and renderers."""
    def drawn():
        table = module("h100_roofline").data()
        first = [render_module._draw("h100_roofline", table, narrow) for narrow in (False, True)]
        return first + [render_module._draw("batch_sweep", module("batch_sweep").data(), True)]

    monkeypatch.setattr(render_module, "shared_text_metrics", nullcontext)
    alone = drawn()
    monkeypatch.undo()
    assert drawn() == alone


def test_a_string_is_measured_once_across_renderers_of_one_kind(monkeypatch):
    from matplotlib.backends.backend_agg import RendererAgg

    measured = []
    original = RendererAgg.get_text_width_height_descent

    def counted(self, s, prop, ismath):
        measured.append(s)
        return original(self, s, prop, ismath)

    monkeypatch.setattr(RendererAgg, "get_text_width_height_descent", counted)
    plt = style()
    figs = [plt.figure(), plt.figure()]
    try:
        with shared_text_metrics():
            for fig in figs:  # two figures: two Agg renderers, each of which matplotlib alone would ask
                fig.text(0.5, 0.5, "a label measured once")
                fig.canvas.draw()
        assert measured.count("a label measured once") == 1
    finally:
        for fig in figs:
            plt.close(fig)


def test_matplotlib_is_put_back_after_shared_text_metrics_even_when_the_figure_fails():
    import matplotlib.text as mtext

    before, layout = getattr(mtext, "_get_text_metrics_with_cache"), mtext.Text._get_layout
    with pytest.raises(ZeroDivisionError):
        with shared_text_metrics():
            assert getattr(mtext, "_get_text_metrics_with_cache") is not before
            assert mtext.Text._get_layout is not layout
            1 / 0
    assert getattr(mtext, "_get_text_metrics_with_cache") is before and mtext.Text._get_layout is layout


def _layouts_counted(monkeypatch) -> list[str]:
    """The strings matplotlib's own Text._get_layout lays out from now on (under the test's monkeypatch)."""
    import matplotlib.text as mtext

    laid, original = [], mtext.Text._get_layout

    def counted(self, renderer):
        laid.append(self.get_text())
        return original(self, renderer)

    monkeypatch.setattr(mtext.Text, "_get_layout", counted)
    return laid


@contextmanager
def _figure():
    """A figure in the figures' style, drawn inside shared_text_metrics, closed after."""
    plt = style()
    fig = plt.figure()
    try:
        with shared_text_metrics():
            yield fig
    finally:
        plt.close(fig)


def test_a_text_is_laid_out_once_across_passes_and_again_when_it_changes(monkeypatch):
    laid = _layouts_counted(monkeypatch)
    with _figure() as fig:
        label = fig.text(0.2, 0.5, "a label laid out once")
        fig.canvas.draw()
        label.set_position((0.6, 0.3))  # moved: its layout is relative to where it stands, so kept
        fig.canvas.draw()
        assert laid.count("a label laid out once") == 1
        label.set_rotation(30)  # turned: another layout
        fig.canvas.draw()
        assert laid.count("a label laid out once") == 2


def test_a_wrapping_text_is_laid_out_at_every_pass(monkeypatch):
    # A wrapped text's lines follow its place in the figure: never taken from an earlier pass.
    laid = _layouts_counted(monkeypatch)
    with _figure() as fig:
        fig.text(0.2, 0.5, "a long label that wraps " * 8, wrap=True)
        fig.canvas.draw()
        fig.canvas.draw()
        assert laid.count("a long label that wraps " * 8) == 2


def test_a_layout_handed_out_is_the_callers_own():
    import matplotlib.text as mtext

    with _figure() as fig:
        label = fig.text(0.2, 0.5, "mine")
        renderer = fig.canvas.get_renderer()
        box, lines, _ = mtext.Text._get_layout(label, renderer)
        box.set_points([[0, 0], [1, 1]])
        lines.clear()
        again, lines_again, _ = mtext.Text._get_layout(label, renderer)
        assert again.width > 1 and lines_again and lines_again[0][0] == "mine"
