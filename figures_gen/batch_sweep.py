"""Decode intensity and throughput against batch size, with the critical batch marked."""

from __future__ import annotations

import numpy as np

from figures_gen import Table, log_ticks
from roofline import format as fmt
from roofline.examples import example
from roofline.registry.hardware import get_device
from roofline.model.inference import critical_batch, decode_step
from roofline.registry.models import get_model

NAME = "batch-sweep"
DEVICE, MODEL = "h100-sxm5", "llama-3.1-8b"


def batches() -> np.ndarray:
    """1 … 4,096 sequences, four points per doubling."""
    return np.unique(np.round(np.logspace(0, 12, 49, base=2))).astype(int)


def _steps():
    d, m = get_device(DEVICE), get_model(MODEL)
    b = batches()
    return d, m, b, decode_step(m, d, b, 0), decode_step(m, d, b, example("medium_context"))


def data() -> Table:
    _, _, b, empty, long = _steps()
    cols = ("batch", "intensity_empty_cache_flop_per_byte", "intensity_medium_context_flop_per_byte",
            "fits_medium_context", "time_per_step_empty_cache_s", "tokens_per_s_empty_cache", "ridge_flop_per_byte")
    rows = zip(b, empty.arithmetic_intensity, long.arithmetic_intensity, long.fits, empty.time_s,
               empty.tokens_per_s)
    return Table(cols, tuple((int(bi), float(a), float(c), bool(f), float(t), float(tps), float(empty.ridge_point))
                             for bi, a, c, f, t, tps in rows))


def draw(fig, table: Table) -> None:
    d, m = get_device(DEVICE), get_model(MODEL)
    ctx = int(example("medium_context"))
    crit = critical_batch(m, d)
    b = np.array(table.column("batch"))
    ridge = table.column("ridge_flop_per_byte")[0]
    ax1, ax2 = fig.subplots(1, 2)

    ax1.loglog(b, table.column("intensity_empty_cache_flop_per_byte"), color="#3f51b5", lw=2.2,
               label="empty KV cache")
    long = np.array(table.column("intensity_medium_context_flop_per_byte"))
    fits = np.array(table.column("fits_medium_context"), dtype=bool)
    ax1.loglog(b[fits], long[fits], color="#ef6c00", lw=2.2, label=f"{fmt.sig(float(ctx), 6)} tokens cached")
    last_fit = int(np.flatnonzero(fits)[-1])
    ax1.loglog(b[last_fit:], long[last_fit:], color="#ef6c00", lw=1.4, ls=":", label="… KV cache does not fit")
    ax1.axhline(ridge, color="#757575", ls="--", lw=1)
    ax1.annotate(f"ridge {fmt.intensity(ridge)}", (b[0], ridge), xytext=(2, 3), textcoords="offset points",
                 color="#555", fontsize=8.5)
    if crit is not None:
        ax1.axvline(crit, color="#d81b60", lw=1)
        ax1.annotate(f"critical batch {fmt.sig(float(crit), 6)}", (crit, 2), xytext=(4, 0),
                     textcoords="offset points", ha="left", color="#d81b60", fontsize=8.5)
    ax1.set_xlabel("batch (sequences, log)")
    ax1.set_ylabel("decode intensity (FLOP/byte, log)")
    ax1.set_title("Intensity")
    ax1.legend(loc="upper left", frameon=False, fontsize=8.5)

    ax2.loglog(b, table.column("tokens_per_s_empty_cache"), color="#3f51b5", lw=2.2, label="tokens/s")
    ax2.set_xlabel("batch (sequences, log)")
    ax2.set_ylabel("tokens/s, whole batch (log)", color="#3f51b5")
    ax3 = ax2.twinx()
    ax3.spines["right"].set_visible(True)
    ax3.grid(False)
    ax3.loglog(b, np.array(table.column("time_per_step_empty_cache_s")) * 1e3, color="#00897b", lw=1.8, ls="--",
               label="ms per step")
    ax3.set_ylabel("time per step (ms, log)", color="#00897b")
    if crit is not None:
        ax2.axvline(crit, color="#d81b60", lw=1)
    ax2.set_title("Throughput and latency, empty cache")
    for ax in (ax1, ax2, ax3):
        log_ticks(ax, "x", [])
        log_ticks(ax, "y", [])
        ax.minorticks_off()  # keeps the SVG small
    from matplotlib.ticker import LogLocator

    ax3.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    lines = ax2.get_lines()[:1] + ax3.get_lines()[:1]
    ax2.legend(lines, [l.get_label() for l in lines], loc="upper left", frameon=False, fontsize=8.5)
    fig.suptitle(f"Decode of {m.name} on the {d.name}, bf16", fontsize=10)


def alt() -> str:
    d, m, b, empty, long = _steps()
    crit = critical_batch(m, d)
    ctx = example("medium_context")
    crit_long = critical_batch(m, d, ctx)
    never = ("never reaches the ridge" if crit_long is None
             else f"reaches the ridge only at batch {fmt.sig(float(crit_long), 6)}")
    return (f"Two log-log panels for decode of {m.name} on the {d.name}, batch from one to {fmt.sig(float(b[-1]), 6)}. "
            f"Left: with an empty KV cache, intensity rises almost in step with batch and crosses the ridge of "
            f"{fmt.intensity(empty.ridge_point)} at the critical batch of {fmt.sig(float(crit), 6)}; with "
            f"{fmt.sig(float(ctx), 6)} tokens cached it flattens near {fmt.intensity(long.arithmetic_intensity[-1])} and "
            f"{never}. Right: whole-batch throughput climbs from "
            f"{fmt.tokens_per_s(empty.tokens_per_s[0])} at batch one to "
            f"{fmt.tokens_per_s(empty.tokens_per_s[-1])}, while time per step stays near "
            f"{fmt.seconds(empty.time_s[0])} until the critical batch and then grows in proportion to batch, "
            f"reaching {fmt.seconds(empty.time_s[-1])}.")


def caption() -> str:
    d, m, b, empty, long = _steps()
    crit = critical_batch(m, d)
    ctx = example("medium_context")
    long_case = ("decode stays memory-bound at any batch" if critical_batch(m, d, ctx) is None
                 else "decode reaches the ridge only at a far larger batch")
    return (f"Below the critical batch ({fmt.sig(float(crit), 6)}) batching is nearly free; above it each step takes longer. "
            f"With {fmt.sig(float(ctx), 6)} tokens cached, {long_case}.")
