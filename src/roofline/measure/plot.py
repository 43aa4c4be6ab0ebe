"""The measured roofline(s) drawn beside a device's spec roofline (`roofline measure --plot`, the site's figure)."""

from __future__ import annotations

import io

from pathlib import Path

import numpy as np

from roofline.atomic import atomic_write_bytes
from roofline.errors import InputError
from roofline.measure.compare import spec_dtype
from roofline.registry.machine import Measurement

MEASURED_COLOURS = ("#d81b60", "#00897b", "#f57c00", "#5e35b1", "#6d4c41", "#1e88e5")


def draw_rooflines(ax, measurements: list[Measurement], device=None, dtype: str | None = None,
                   intensity=None) -> None:
    """Draw each measured roofline (fp32 GEMM median and triad median) and a device's spec roofline."""
    from roofline.model.roofs import attainable_flop_per_s

    ai = np.logspace(-2, 4, 181) if intensity is None else np.asarray(intensity)
    if device is not None:
        dt_ = spec_dtype(device, dtype)
        peak, bw = device.peak_flop_per_s(dt_), device.memory_bandwidth_bytes_per_s
        ax.loglog(ai, attainable_flop_per_s(ai, peak, bw), color="#3f51b5", lw=2.2,
                  label=f"{device.name}, spec ({dt_} dense peak)")
        ax.plot([peak / bw], [peak], "s", color="#3f51b5", ms=6)
    for i, m in enumerate(measurements):
        colour = MEASURED_COLOURS[i % len(MEASURED_COLOURS)]
        ax.loglog(ai, attainable_flop_per_s(ai, m.fp32.median, m.triad.median), color=colour, lw=2,
                  label=f"{m.label}, measured (fp32 GEMM, triad)")
        ax.loglog(ai, attainable_flop_per_s(ai, m.fp64.median, m.triad.median), color=colour, lw=1, ls="--",
                  label=f"{m.label}, measured fp64 GEMM")
        ax.plot([m.ridge_point], [m.fp32.median], "o", color=colour, ms=6)
    ax.set_xlabel("arithmetic intensity (FLOP/byte, log)")
    ax.set_ylabel("attainable FLOP/s (log)")
    ax.legend(loc="lower right", frameon=False, fontsize=8)


def plot_svg(path: Path | str, measurements: list[Measurement], device=None, dtype: str | None = None) -> Path:
    """Write the measured roofline(s), beside a device's spec roofline, to an SVG file."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("--plot needs matplotlib, which is not installed (pip install matplotlib)") from None
    path = Path(path)
    plt.rcParams["svg.hashsalt"] = "roofline"
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    try:
        draw_rooflines(ax, measurements, device, dtype)
        ax.set_title("Measured roofline" + (f" beside the {device.name} spec" if device is not None else ""))
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        svg = io.BytesIO()
        fig.savefig(svg, format="svg", metadata={"Date": None})
        atomic_write_bytes(path, svg.getvalue())  # a link's target written; a device node never replaced
    except OSError as err:
        raise InputError(f"cannot write the plot to {path} ({err.strerror})") from None
    finally:
        plt.close(fig)
    return path
