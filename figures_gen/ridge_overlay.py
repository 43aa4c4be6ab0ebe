"""Several devices' rooflines overlaid: each bends at its own ridge point."""

from __future__ import annotations

import numpy as np

from figures_gen import Table, log_ticks
from roofline import attainable_flop_per_s, device_ridge_point, devices, format as fmt, get_device

NAME = "ridge-overlay"
#: Devices drawn, by registry id; a spread of ridges from low to high.
DEVICES = ("a100-sxm4-80gb", "h100-sxm5", "h200-sxm", "b200", "mi300x", "l4")
COLOURS = ("#0072b2", "#3f51b5", "#009e73", "#d55e00", "#cc79a7", "#e69f00")
LO, HI = 0.5, 5000.0


def intensities(device_id: str) -> np.ndarray:
    """A few points per roofline: both ends and the ridge (the roof is straight between them in log-log)."""
    ridge = device_ridge_point(get_device(device_id))
    return np.array(sorted({LO, ridge, HI}))


def data() -> Table:
    rows = []
    for dev_id in DEVICES:
        d = get_device(dev_id)
        ai = intensities(dev_id)
        perf = attainable_flop_per_s(ai, d.peak_flop_per_s(), d.memory_bandwidth_bytes_per_s)
        rows += [(dev_id, d.name, float(x), float(y)) for x, y in zip(ai, perf)]
    return Table(("device_id", "device", "arithmetic_intensity_flop_per_byte", "attainable_flop_per_s"), tuple(rows))


def draw(fig, table: Table) -> None:
    ax = fig.add_subplot()
    ids = table.column("device_id")
    xs, ys = table.column("arithmetic_intensity_flop_per_byte"), table.column("attainable_flop_per_s")
    for dev_id, colour in zip(DEVICES, COLOURS):
        d = get_device(dev_id)
        pts = [(x, y / 1e12) for i, x, y in zip(ids, xs, ys) if i == dev_id]
        ridge = device_ridge_point(d)
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], color=colour, lw=2,
                  label=f"{d.name}: ridge {fmt.intensity(ridge)}")
        ax.plot([ridge], [d.peak_flop_per_s() / 1e12], "o", color=colour, ms=6)
    ax.set_xlim(LO, HI)
    ax.set_xlabel("arithmetic intensity (FLOP/byte, log)")
    ax.set_ylabel("attainable dense 16-bit TFLOP/s (log)")
    log_ticks(ax, "x", [])
    log_ticks(ax, "y", [])
    ax.legend(loc="lower right", frameon=False, fontsize=8)  # the empty corner: no roof passes there


def alt() -> str:
    parts = "; ".join(f"{get_device(i).name} ridge {fmt.intensity(device_ridge_point(get_device(i)))}" for i in DEVICES)
    return (f"Log-log rooflines of {len(DEVICES)} devices overlaid, each a rising bandwidth roof that flattens "
            f"at its dense bf16 peak. The bend, the ridge point, moves with the ratio of peak to bandwidth: {parts}.")


def caption() -> str:
    # Two ranges, each named: the devices drawn here, and every registry device (the table above lists
    # them all, so a range of the six alone reads as a mistake beside it).
    ridges = {i: device_ridge_point(get_device(i)) for i in DEVICES}
    lo, hi = min(ridges, key=ridges.get), max(ridges, key=ridges.get)
    every = sorted((device_ridge_point(d, d.sixteen_bit_dtype), d.name) for d in devices().values())  # as the table
    (lo_ridge, lo_name), (hi_ridge, hi_name) = every[0], every[-1]
    return (f"Rooflines of {fmt.sig(float(len(DEVICES)), 6)} of the registry's devices at dense bf16 peaks: their "
            f"ridges range from {fmt.intensity(ridges[lo])} ({get_device(lo).name}) to "
            f"{fmt.intensity(ridges[hi])} ({get_device(hi).name}). Across every device in the table above, ridges "
            f"range from {fmt.intensity(lo_ridge)} ({lo_name}) to {fmt.intensity(hi_ridge)} ({hi_name}).")
