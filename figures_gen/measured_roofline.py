"""Measured rooflines (every JSON in measurements/) under a server CPU's spec roofline.

The committed example is always drawn; any measurement file a reader drops into
measurements/ is drawn beside it on the next build.
"""

from __future__ import annotations

import numpy as np

from figures_gen import Table, log_ticks
from roofline import attainable_flop_per_s, format as fmt, get_device, measure

NAME = "measured-roofline"
#: The spec roofline drawn for scale: a whole server socket of the CPU family the example ran on.
SPEC_DEVICE = "xeon-8480plus"
#: Each roofline is two straight segments on log-log axes, so a coarse grid plus its ridge draws it exactly.
INTENSITY = np.logspace(-2, 3, 21)


def _spec():
    d = get_device(SPEC_DEVICE)
    return d, measure.spec_dtype(d)


def _series():
    """(name, compute roof FLOP/s, bandwidth roof B/s, style) for every line, the spec first."""
    d, dt_ = _spec()
    out = [(f"{d.name}, spec ({dt_} dense peak)", d.peak_flop_per_s(dt_), d.memory_bandwidth_bytes_per_s, "spec")]
    for m in measure.site_measurements():
        out.append((f"{m.label}: fp32 GEMM, triad", m.fp32.median, m.triad.median, "fp32"))
        out.append((f"{m.label}: fp64 GEMM, triad", m.fp64.median, m.triad.median, "fp64"))
    return out


def data() -> Table:
    rows = []
    for name, peak, bw, _ in _series():
        ai_grid = np.union1d(INTENSITY, [peak / bw])
        for ai, perf in zip(ai_grid.tolist(), attainable_flop_per_s(ai_grid, peak, bw).tolist()):
            rows.append((name, ai, perf))
    return Table(("series", "arithmetic_intensity_flop_per_byte", "attainable_flop_per_s"), tuple(rows))


def draw(fig, table: Table) -> None:
    ax = fig.add_subplot()
    styles = {name: style for name, _, _, style in _series()}
    names = list(dict.fromkeys(table.column("series")))
    colour_i = -1
    for name in names:
        rows = [r for r in table.rows if r[0] == name]
        x = [r[1] for r in rows]
        y = np.array([r[2] for r in rows]) / 1e9
        style = styles[name]
        if style == "spec":
            ax.loglog(x, y, color="#3f51b5", lw=2.2, label=name)
        elif style == "fp32":
            colour_i += 1
            ax.loglog(x, y, color=measure.MEASURED_COLOURS[colour_i % len(measure.MEASURED_COLOURS)], lw=2, label=name)
        else:
            ax.loglog(x, y, color=measure.MEASURED_COLOURS[colour_i % len(measure.MEASURED_COLOURS)], lw=1, ls="--", label=name)
    ax.set_xlabel("arithmetic intensity (FLOP/byte, log)")
    ax.set_ylabel("attainable GFLOP/s (log)")
    ax.set_title("Measured rooflines (medians) under a server socket's datasheet roofline")
    log_ticks(ax, "x", [])
    log_ticks(ax, "y", [])
    ax.legend(loc="lower right", frameon=False, fontsize=7)


def alt() -> str:
    d, dt_ = _spec()
    m = measure.example_measurement()
    others = len(measure.site_measurements()) - 1
    extra = f" Measurement files from the measurements folder add {fmt.count(others)} more." if others else ""
    return (f"Log-log rooflines. The {d.name} datasheet roofline ({dt_}) has a bandwidth roof of "
            f"{fmt.bytes_per_s(d.memory_bandwidth_bytes_per_s)} and a compute roof of "
            f"{fmt.flop_per_s(d.peak_flop_per_s(dt_))}. Far below it, the example machine ({m.label}) measured a "
            f"triad bandwidth of {fmt.bytes_per_s(m.triad.median)} and an fp32 GEMM rate of "
            f"{fmt.flop_per_s(m.fp32.median)}, a ridge of {fmt.intensity(m.ridge_point)}.{extra}")


def caption() -> str:
    d, _ = _spec()
    m = measure.example_measurement()
    return (f"Measured roofs of the example machine ({fmt.count(m.usable_cpus)} shared vCPUs) and of every file in "
            f"measurements/, under the spec roofline of a whole {d.name} socket. Solid: fp32 GEMM; dashed: fp64.")
