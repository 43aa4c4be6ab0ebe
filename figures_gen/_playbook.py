"""Shared drawing for the playbook figures (figures_gen/playbook_*.py): points moving on a roofline.

Not a figure itself (the leading underscore keeps it out of FIGURES and the alt-text scan).
Every playbook figure plots `roofline.model.playbook.Point`s: a kernel (`RooflinePoint`) or a
whole step (`KernelStep`, its kernels summed), each at FLOPs ÷ its time. A kernel sits on its
roof; a step sits below the roof at its whole-step intensity, by as much as its kernels fail to
overlap. Its CSV has one row per point: the series it belongs to, its FLOPs and bytes, its time
(a step's is the sum of its kernels' times) and the roofs (peak, bandwidth) it sits under, so a
reader can redraw the figure from the CSV alone.
"""

from __future__ import annotations

import numpy as np

from figures_gen import Table, log_ticks, point_labels
from roofline import format as fmt, playbook

COLUMNS = ("series", "point", "flops", "bytes", "arithmetic_intensity_flop_per_byte", "attained_flop_per_s",
           "time_s", "peak_flop_per_s", "bandwidth_bytes_per_s")

ROOF_COLOURS = ("#3f51b5", "#8e24aa", "#6d4c41")
POINT_COLOURS = ("#d81b60", "#00897b", "#f57c00", "#1e88e5")
ARROW_COLOUR = "#333333"


def table(*series: tuple[str, tuple[playbook.Point, ...]]) -> Table:
    """One row per point; within a series the first point is "before", the rest are where it moves."""
    rows = []
    for name, points in series:
        for p in points:
            rows.append((name, p.name, float(p.flops), float(p.bytes), float(p.arithmetic_intensity),
                         float(p.attained_flop_per_s), float(p.time_s), float(p.peak_flop_per_s),
                         float(p.bandwidth_bytes_per_s)))
    return Table(COLUMNS, tuple(rows))


def _roofs(t: Table) -> list[tuple[float, float]]:
    seen = []
    for peak, bw in zip(t.column("peak_flop_per_s"), t.column("bandwidth_bytes_per_s")):
        if (peak, bw) not in seen:
            seen.append((peak, bw))
    return seen


def draw(fig, t: Table, title: str, *, arrows: bool = True, roof_names: dict | None = None) -> None:
    """Roofs of every (peak, bandwidth) in the table, each point, and arrows from a series' first point."""
    ax = fig.add_subplot()
    ai = np.array(t.column("arithmetic_intensity_flop_per_byte"))
    perf = np.array(t.column("attained_flop_per_s")) / 1e12
    roofs = _roofs(t)
    ridges = [peak / bw for peak, bw in roofs]
    x_lo = min(ai.min(), *ridges) / 4
    x_hi = max(ai.max(), *ridges) * 4
    ridge_labels = []
    for i, (peak, bw) in enumerate(roofs):
        ridge = peak / bw
        xs = np.array([x_lo, ridge, x_hi])
        ys = np.minimum(peak, bw * xs) / 1e12
        name = (roof_names or {}).get((peak, bw), "roof")
        colour = ROOF_COLOURS[i % len(ROOF_COLOURS)]
        ax.loglog(xs, ys, color=colour, lw=2, ls="-" if i == 0 else "--",
                  label=f"{name}: {fmt.flop_per_s(peak)}, {fmt.bytes_per_s(bw)}")
        ax.axvline(ridge, color=colour, ls=":", lw=1, alpha=0.8)
        ridge_labels.append((ridge, peak / 1e12, f"ridge {fmt.intensity(ridge)}", colour))
    series = t.column("series")
    labels = t.column("point")
    order = list(dict.fromkeys(series))
    placed: dict[tuple, list[str]] = {}
    for j, s in enumerate(series):
        placed.setdefault((round(ai[j], 9), round(perf[j], 9)), []).append(labels[j])
    for k, name in enumerate(order):
        idx = [j for j, s in enumerate(series) if s == name]
        colour = POINT_COLOURS[k % len(POINT_COLOURS)]
        if arrows:
            first = idx[0]
            for j in idx[1:]:
                if (ai[j], perf[j]) != (ai[first], perf[first]):
                    ax.annotate("", xy=(ai[j], perf[j]), xytext=(ai[first], perf[first]),
                                arrowprops=dict(arrowstyle="-|>", color=ARROW_COLOUR, lw=1.4,
                                                shrinkA=6, shrinkB=6))
                    # The arrow's shaft again as an unseen line: labels are placed clear of drawn lines,
                    # and an annotation's arrow is not one (a point's number sat on the arrow).
                    ax.plot([ai[first], ai[j]], [perf[first], perf[j]], color=ARROW_COLOUR, alpha=0.0, lw=1.4)
        for n, j in enumerate(idx):
            before = arrows and n == 0 and len(idx) > 1
            ax.plot([ai[j]], [perf[j]], "o", ms=8, color=colour, mfc="white" if before else colour, mew=2, zorder=3)
    # The points' names first (placed where they meet nothing), then the ridges' where room is left.
    point_labels(ax, [(x, y, " / ".join(dict.fromkeys(names))) for (x, y), names in placed.items()],
                 fontsize=9, colour="#222222")
    point_labels(ax, ridge_labels, fontsize=8)
    ax.set_xlim(x_lo, x_hi)
    peaks = [p for p, _ in roofs]
    ax.set_ylim(min(perf.min(), *(bw * x_lo / 1e12 for _, bw in roofs)) / 1.5, max(peaks) / 1e12 * 3)
    ax.set_xlabel("arithmetic intensity (FLOP/byte, log)")
    ax.set_ylabel("attained TFLOP/s (log)")
    ax.set_title(title, fontsize=10)
    log_ticks(ax, "x", [])
    log_ticks(ax, "y", [])
    ax.legend(loc="upper left", frameon=False, fontsize=8)
