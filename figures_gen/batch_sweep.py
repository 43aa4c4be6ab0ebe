"""Decode kernels against batch size: the weight matmuls cross the ridge, attention never does, memory runs out."""

from __future__ import annotations

import numpy as np

from figures_gen import Table, log_ticks, narrow
from roofline import (
    critical_batch, decode, example, format as fmt, get_device, get_model, max_batch_that_fits, step_record,
)

NAME = "batch-sweep"
NARROW_SIZE_IN = (5.0, 8.4)  # two panels stacked
DEVICE, MODEL = "h100-sxm5", "llama-3.1-8b"


def batches() -> np.ndarray:
    """1 … 4,096 sequences, four points per doubling."""
    return np.unique(np.round(np.logspace(0, 12, 49, base=2))).astype(int)


def _steps():
    """The device, model, batches and context, each batch's step record (`step_record`), the critical batch
    and the largest batch that fits."""
    d, m = get_device(DEVICE), get_model(MODEL)
    b = batches()
    ctx = example("medium_context")
    steps = tuple(step_record(decode(m, d, bi, ctx)) for bi in b)
    return d, m, b, ctx, steps, critical_batch(m, d), int(max_batch_that_fits(m, d, ctx))


def _op(step: dict, name: str) -> dict:
    return next(k for k in step["ops"] if k["name"] == name)


def data() -> Table:
    _, _, b, _, steps, _, _ = _steps()
    cols = ("batch", "mlp_matmul_intensity_flop_per_byte", "attention_intensity_flop_per_byte",
            "whole_step_intensity_flop_per_byte", "fits", "time_per_step_s", "time_perfect_overlap_s",
            "tokens_per_s", "ridge_flop_per_byte")
    return Table(cols, tuple((int(bi), _op(s, "gate_up_proj")["arithmetic_intensity"],
                              _op(s, "attention")["arithmetic_intensity"], s["arithmetic_intensity"], s["fits"],
                              s["time_s"], s["time_perfect_overlap_s"], s["tokens_per_s"], s["ridge_point"])
                             for bi, s in zip(b, steps)))


def draw(fig, table: Table) -> None:
    d, m, _, ctx, _, crit, wall = _steps()
    b = np.array(table.column("batch"))
    fits = np.array(table.column("fits"), dtype=bool)
    last = int(np.flatnonzero(fits)[-1])
    ridge = table.column("ridge_flop_per_byte")[0]
    ax1, ax2 = fig.subplots(2, 1) if narrow() else fig.subplots(1, 2)  # stacked on a phone

    # Two lines: on one, the label reached the critical batch's line.
    for col, colour, label in (("mlp_matmul_intensity_flop_per_byte", "#3f51b5", "MLP matmul\n(gate/up)"),
                               ("whole_step_intensity_flop_per_byte", "#00897b", "whole step"),
                               ("attention_intensity_flop_per_byte", "#ef6c00", "attention")):
        y = np.array(table.column(col))
        ax1.loglog(b[:last + 1], y[:last + 1], color=colour, lw=2.2, label=label)
        ax1.loglog(b[last:], y[last:], color="#9e9e9e", lw=1.4, ls=":")
    ax1.axhline(ridge, color="#757575", ls="--", lw=1)
    ax1.annotate(f"ridge {fmt.intensity(ridge)}", (b[0], ridge), xytext=(2, 3), textcoords="offset points",
                 color="#555", fontsize=8.5)
    for ax in (ax1, ax2):
        ax.axvspan(wall, b[-1], color="#bdbdbd", alpha=0.35, lw=0)
        ax.axvline(crit, color="#d81b60", lw=1)
    ax1.annotate(f"critical batch {fmt.sig(float(crit), 6)}", (crit, 1.2), xytext=(4, 0),
                 textcoords="offset points", ha="left", color="#d81b60", fontsize=8.5)
    # At the boundary, on the critical batch's baseline, to its left: under every curve (attention sits
    # at a few FLOP/byte) and clear of the critical-batch label on the other side of the grey edge.
    ax1.annotate(f"largest\nbatch {fmt.sig(float(wall), 6)}", (wall, 1.2), xytext=(-4, 0), textcoords="offset points",
                 ha="right", color="#424242", fontsize=8.5)
    ax1.set_xlabel("batch (sequences, log)")
    ax1.set_ylabel("intensity (FLOP/byte, log)")
    ax1.set_title("Kernel intensity")
    # Headroom over the curves (the grey MLP tail climbs to the ridge's ten-fold): the legend sits above
    # them all (a phone's legends go under the figure instead).
    if not narrow():
        ax1.set_ylim(top=ax1.get_ylim()[1] * 8)
    ax1.legend(loc="upper left", frameon=False, fontsize=8.5)

    tps = np.array(table.column("tokens_per_s"))
    ax2.loglog(b[:last + 1], tps[:last + 1], color="#3f51b5", lw=2.2, label="tokens/s")
    ax2.loglog(b[last:], tps[last:], color="#9e9e9e", lw=1.4, ls=":")
    ax2.set_xlabel("batch (sequences, log)")
    ax2.set_ylabel("tokens/s, whole batch (log)", color="#3f51b5")
    ax3 = ax2.twinx()
    ax3.spines["right"].set_visible(True)
    ax3.grid(False)
    t = np.array(table.column("time_per_step_s")) * 1e3
    ax3.loglog(b[:last + 1], t[:last + 1], color="#00897b", lw=1.8, ls="--", label="ms per step")
    ax3.loglog(b[last:], t[last:], color="#9e9e9e", lw=1.2, ls=":")
    ax3.set_ylabel("time per step (ms, log)", color="#00897b")
    ax2.set_title("Throughput and latency")
    for ax in (ax1, ax2, ax3):
        log_ticks(ax, "x", [])
        log_ticks(ax, "y", [])
        ax.minorticks_off()  # keeps the SVG small
    from matplotlib.ticker import LogLocator

    ax3.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    # The two named curves (the critical-batch line and the grey past-the-wall segments are unnamed,
    # "_child…" to matplotlib: never a legend entry).
    lines = [l for l in ax2.get_lines() + ax3.get_lines() if not l.get_label().startswith("_")]
    if not narrow():
        ax2.set_ylim(top=ax2.get_ylim()[1] * 4)  # the legend above the flat grey tail of tokens/s
    ax2.legend(lines, [l.get_label() for l in lines], loc="upper left", frameon=False, fontsize=8.5)
    # Two lines: on one, the title ran past the wide figure's edge.
    fig.suptitle(f"Decode of {m.name} on the {d.name}, bf16, {fmt.sig(float(ctx), 6)} tokens cached;\n"
                 "grey: does not fit", fontsize=10)


def alt() -> str:
    d, m, b, ctx, steps, crit, wall = _steps()
    first, last = steps[0], steps[-1]
    return (f"Two log-log panels for decode of {m.name} on the {d.name} in bf16 with {fmt.sig(float(ctx), 6)} tokens "
            f"cached, batch from one to {fmt.sig(float(b[-1]), 6)}. Left: the MLP matmul's intensity rises with batch "
            f"from {fmt.intensity(_op(first, 'gate_up_proj')['arithmetic_intensity'])} and crosses the ridge of {fmt.intensity(first['ridge_point'])} "
            f"near the critical batch of {fmt.sig(float(crit), 6)}; attention stays near "
            f"{fmt.intensity(_op(last, 'attention')['arithmetic_intensity'])} at every batch; the whole step levels off near "
            f"{fmt.intensity(last['arithmetic_intensity'])}. Past the largest batch that fits, {fmt.sig(float(wall), 6)}, the "
            f"curves are grey: weights and KV cache no longer fit. Right: whole-batch throughput climbs from "
            f"{fmt.tokens_per_s(first['tokens_per_s'])} at batch one, and time per step from {fmt.seconds(first['time_s'])}.")


def caption() -> str:
    d, m, b, ctx, _, crit, wall = _steps()
    return (f"Decode of {m.name} in bf16 on the {d.name}, dense bf16 peak and spec bandwidth. "
            f"The weight matmuls cross the ridge near the critical batch ({fmt.sig(float(crit), 6)}); attention never "
            f"does. With {fmt.sig(float(ctx), 6)} tokens cached, memory runs out first: at most "
            f"{fmt.sig(float(wall), 6)} sequences fit (grey beyond). Step time is the sum of the kernels' roofline times.")
