"""Point labels placed where they collide with nothing, and the key under a figure for those that
found no spot."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from figures_gen._narrow import wrap
from figures_gen._ticks_once import one_pass


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


# Where a text's anchor sits across its box, as a share of its width (ha) or height (va).
_ALIGN_SHARE = {"left": 0.0, "center": 0.5, "right": 1.0, "bottom": 0.0, "top": 1.0}


def moved_box(box, spot, to, points_px: float):
    """The display box of a label measured (`box`) at `spot`, once moved to the spot `to`: each spot is
    (dx, dy, ha, va), an offset in points from the point and the text's alignment about it. The text,
    its size and its lines stay the same, so only the box's place changes."""
    (dx0, dy0, ha0, va0), (dx, dy, ha, va) = spot, to
    shift_x = (dx - dx0) * points_px + (_ALIGN_SHARE[ha0] - _ALIGN_SHARE[ha]) * box.width
    shift_y = (dy - dy0) * points_px + (_ALIGN_SHARE[va0] - _ALIGN_SHARE[va]) * box.height
    return box.translated(shift_x, shift_y)


def place_labels(fig, min_font: float) -> None:
    """Place every label `point_labels` asked for (see there); at least `min_font` on a phone."""
    from matplotlib.transforms import Bbox

    renderer = fig.canvas.get_renderer()
    taken = []  # display-space boxes: markers first, then each placed label
    # Every drawn line (curves, roofs, guides) as display-space paths: a label crosses none of them.
    paths = [line.get_transform().transform_path(line.get_path()) for ax in fig.axes for line in ax.get_lines()
             if line.get_visible() and line.get_linestyle() not in ("None", "none", "", " ") and len(line.get_xydata())]

    boxes = {"count": 0, "extents": np.empty((0, 4))}  # `taken` as rows of (x0, y0, x1, y1), low corner first

    def clear(box):
        # Bbox.overlaps on every box taken, as one array comparison (the same comparisons, in numpy)
        if boxes["count"] != len(taken):
            new = np.array([t.extents for t in taken[boxes["count"]:]], float).reshape(-1, 4)
            new = np.column_stack([np.minimum(new[:, 0], new[:, 2]), np.minimum(new[:, 1], new[:, 3]),
                                   np.maximum(new[:, 0], new[:, 2]), np.maximum(new[:, 1], new[:, 3])])
            boxes.update(count=len(taken), extents=np.vstack([boxes["extents"], new]))
        x0, y0, x1, y1 = box.extents
        x0, x1, y0, y1 = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
        t = boxes["extents"]
        if np.any((x0 <= t[:, 2]) & (t[:, 0] <= x1) & (y0 <= t[:, 3]) & (t[:, 1] <= y1)):
            return False
        return not any(p.intersects_bbox(box, filled=False) for p in paths)

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
    points_px = fig.dpi / 72  # an offset in points, in display units

    def place(ax, x, y, text, fontsize, colour, spots=_SPOTS) -> bool:
        frame = ax.get_window_extent(renderer)
        # One label, measured once at the first spot: its box at every other spot is that box moved
        # by the change of offset and alignment (the text, its size and its lines stay the same).
        # Measuring the text anew at each spot would be most of placing it.
        _, _, ha0, va0 = spots[0]
        t = ax.annotate(text, (x, y), xytext=spots[0][:2], textcoords="offset points", ha=ha0, va=va0,
                        fontsize=fontsize, color=colour, annotation_clip=False)
        first = t.get_window_extent(renderer)
        for dx, dy, ha, va in spots:
            box = moved_box(first, spots[0], (dx, dy, ha, va), points_px).expanded(1.04, 1.1)
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
            if inside and clear(box):
                t.set_position((dx, dy))
                t.set_horizontalalignment(ha)
                t.set_verticalalignment(va)
                taken.append(box)
                return True
        t.remove()
        return False

    unplaced = []
    for ax, points, fontsize, colour in fig.__dict__.get("_rl_labels", []):
        for x, y, text, *own in points:
            shown = wrap(text, 22) if min_font else text  # a phone's labels: two short lines fit more spots
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
    (the saved SVG keeps everything drawn)."""
    renderer = fig.canvas.get_renderer()
    with one_pass():  # (nothing moves between the figure's box and its axes')
        bottom = fig.get_tightbbox(renderer).y0 * fig.dpi
        left = min(ax.get_tightbbox(renderer).x0 for ax in fig.axes)
    x, y = fig.transFigure.inverted().transform((left, bottom - 6))
    fig.text(x, y, "\n".join(wrap(line, 40) for line in lines), ha="left", va="top", fontsize=fontsize,
             color="#424242", linespacing=1.4)
    fig._rl_key = True
