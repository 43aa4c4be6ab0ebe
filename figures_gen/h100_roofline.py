"""The H100 SXM5 roofline with batch-1 decode and a prefill placed on it."""

from __future__ import annotations

import numpy as np

from figures_gen import Table, log_ticks, narrow
from roofline import (
    attainable_flop_per_s, decode as decode_step, device_ridge_point, example, format as fmt,
    get_device, get_model, prefill, step_record,
)

NAME = "h100-roofline"
DEVICE, MODEL = "h100-sxm5", "llama-3.1-8b"


def _points():
    """The device, and the records of batch-1 decode and the example prefill (`step_record`'s names)."""
    d, m = get_device(DEVICE), get_model(MODEL)
    return d, step_record(decode_step(m, d)), step_record(prefill(m, d, example("prompt_len")))


def data() -> Table:
    d, _, _ = _points()
    ai = np.logspace(-1, 5, 145)  # to 1e5: room right of the ridge for the compute side's labels
    perf = attainable_flop_per_s(ai, d.peak_flop_per_s(), d.memory_bandwidth_bytes_per_s)
    return Table(("arithmetic_intensity_flop_per_byte", "attainable_flop_per_s"),
                 tuple(zip(ai.tolist(), perf.tolist())))


def draw(fig, table: Table) -> None:
    d, dec, pre = _points()
    ax = fig.add_subplot()
    ax.loglog(table.column("arithmetic_intensity_flop_per_byte"), np.array(table.column("attainable_flop_per_s")) / 1e12,
              color="#3f51b5", lw=2.2, label="roofline")
    ridge = device_ridge_point(d)
    ax.axvline(ridge, color="#888", ls="--", lw=1)
    xs = table.column("arithmetic_intensity_flop_per_byte")
    ax.axvspan(xs[0], ridge, color="#d81b60", alpha=0.07, lw=0)
    ax.axvspan(ridge, xs[-1], color="#00897b", alpha=0.07, lw=0)
    ax.set_xlim(xs[0], xs[-1])
    ax.text(0.02, 0.80 if narrow() else 0.96, "memory-bound", transform=ax.transAxes, color="#ad1457", va="top")
    ax.text(0.98, 0.62, "compute-bound", transform=ax.transAxes, color="#00695c", va="top", ha="right")
    roofs = (f"bandwidth roof: {fmt.bytes_per_s(d.memory_bandwidth_bytes_per_s)} × intensity",
             f"compute roof: {fmt.flop_per_s(d.peak_flop_per_s())}")
    if narrow():  # no room beside the roofs on a phone that no line crosses: the roofs are named in the legend
        for words in roofs:
            ax.plot([], [], color="#3f51b5", lw=2.2, label=words)
    else:  # under the rising roof (it climbs away from the text) and under the flat one, right of the ridge
        ax.annotate(roofs[0], (0.3, 0.3 * d.memory_bandwidth_bytes_per_s / 1e12), xytext=(10, -10),
                    textcoords="offset points", va="top", color="#3f51b5", fontsize=9)
        ax.annotate(roofs[1], (xs[-1], d.peak_flop_per_s() / 1e12),
                    xytext=(-2, -6), textcoords="offset points", ha="right", va="top", color="#3f51b5", fontsize=9)
    ax.annotate(f"ridge {fmt.intensity(ridge)}", (ridge, d.peak_flop_per_s() / 1e12 * 0.12), ha="left",
                xytext=(4, 0), textcoords="offset points", color="#555")
    for step, colour, label in ((dec, "#d81b60", "batch-1 decode"), (pre, "#00897b", f"{int(pre['tokens_per_sequence'])}-token prefill")):
        ai = step["arithmetic_intensity"]
        y = attainable_flop_per_s(ai, step["peak_flop_per_s"], step["bandwidth_bytes_per_s"]) / 1e12
        # Small enough that the prefill, a short way past the ridge, sits clear of the ridge's line and the corner.
        ax.plot([ai], [y], "o", color=colour, ms=6, zorder=3, label=f"{label} ({fmt.intensity(ai)})")
    ax.set_xlabel("arithmetic intensity (FLOP/byte, log)")
    ax.set_ylabel("attainable TFLOP/s (log)")
    ax.set_title(f"{d.name}, dense {d.sixteen_bit_dtype}")
    log_ticks(ax, "x", [])
    log_ticks(ax, "y", [])
    # Under the axes, where neither the roofline nor the ridge's line crosses it (a phone stacks it below too).
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3, frameon=False, fontsize=8)


def alt() -> str:
    d, dec, pre = _points()
    return (f"Log-log roofline of the {d.name}: a bandwidth roof of {fmt.bytes_per_s(d.memory_bandwidth_bytes_per_s)} "
            f"rises until it meets the {fmt.flop_per_s(d.peak_flop_per_s())} compute roof at a ridge of "
            f"{fmt.intensity(device_ridge_point(d))}. Batch-1 decode of {get_model(MODEL).name} with "
            f"{fmt.sig(dec['context_len'], 6)} token cached sits at "
            f"{fmt.intensity(dec['arithmetic_intensity'])}, far left in the memory-bound region; a "
            f"{fmt.sig(pre['tokens_per_sequence'])}-token prefill sits at {fmt.intensity(pre['arithmetic_intensity'])}, "
            f"past the ridge.")


def caption() -> str:
    d, dec, pre = _points()
    return (f"The {d.name} roofline at its dense bf16 peak and spec bandwidth, with {get_model(MODEL).name} in bf16. "
            f"Batch-1 decode with {fmt.sig(dec['context_len'], 6)} token cached uses "
            f"{fmt.percent(dec['flop_utilization'])} of peak compute; the "
            f"{fmt.sig(pre['tokens_per_sequence'], 6)}-token prefill is {pre['bound']}.")
