"""Label placement (figures_gen/_labels.py): a label is measured once and moved between spots; its box
at each spot must be the box matplotlib measures for the text placed there."""

from __future__ import annotations

import pytest

from figures_gen._labels import _SPOTS, moved_box


@pytest.mark.parametrize("text", ["H100", "Llama 3.1 8B\ndecode, batch 1"])  # one line, and a wrapped phone label
def test_a_label_moved_between_spots_is_where_matplotlib_draws_it(text):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 4), dpi=100)
    try:
        ax.set_xscale("log")
        ax.set_xlim(1, 1000)
        renderer = fig.canvas.get_renderer()
        first_spot = _SPOTS[0]
        label = ax.annotate(text, (30, 0.4), xytext=first_spot[:2], textcoords="offset points",
                            ha=first_spot[2], va=first_spot[3], fontsize=11.5, annotation_clip=False)
        first = label.get_window_extent(renderer)
        for spot in _SPOTS[1:]:
            label.set_position(spot[:2])
            label.set_horizontalalignment(spot[2])
            label.set_verticalalignment(spot[3])
            drawn = label.get_window_extent(renderer)
            moved = moved_box(first, first_spot, spot, fig.dpi / 72)
            assert moved.extents == pytest.approx(drawn.extents, abs=1e-6), spot
    finally:
        plt.close(fig)


def test_a_box_moves_by_its_offset_and_its_alignment():
    from matplotlib.transforms import Bbox

    box = Bbox.from_bounds(100, 50, 40, 10)  # 40 wide, 10 high, measured left-aligned 5 pt right of its point
    # Right-aligned 5 pt left of the point at 100 dpi (1 pt = 100/72 px): the box's right edge moves from
    # 140 to 100 - 2 * 5 * 100/72 + 40 ... worked as x0: 100 - 10*100/72 - 40 = 46.11 (x1 86.11).
    moved = moved_box(box, (5, 0, "left", "center"), (-5, 0, "right", "center"), 100 / 72)
    assert moved.x0 == pytest.approx(100 - 10 * 100 / 72 - 40) and moved.y0 == pytest.approx(50)
    # Centred, 5 pt above (va bottom, from center): up by 5 pt and by half its height; left by half its width.
    moved = moved_box(box, (5, 0, "left", "center"), (0, 5, "center", "bottom"), 100 / 72)
    assert moved.x0 == pytest.approx(100 - 5 * 100 / 72 - 20) and moved.y0 == pytest.approx(50 + 5 * 100 / 72 + 5)
