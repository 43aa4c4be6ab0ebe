"""KV-cache bytes one decode step reads (per-kernel model), against context length, for several batch sizes."""

from __future__ import annotations

import numpy as np

from figures_gen import Table, log_ticks
from roofline import (
    decode, example, format as fmt, get_device, get_model, kv_bytes_per_token, usable_memory_bytes,
    step_record, weight_bytes_per_token,
)

NAME = "kv-context"
DEVICE, MODEL = "h100-sxm5", "llama-3.1-8b"
CONTEXTS = 2 ** np.arange(7, 18)  # 128 … 131,072 tokens cached: a doubling sweep
COLOURS = ("#3f51b5", "#00897b", "#d81b60")


def batches() -> tuple[int, ...]:
    return (1, 8, int(example("batch_mid")))


def _kv_read(m, batch, context) -> float:
    """The KV-cache bytes one decode step reads (its record's `kv_read_bytes`)."""
    return step_record(decode(m, get_device(DEVICE), batch, context))["kv_read_bytes"]


def data() -> Table:
    m = get_model(MODEL)
    rows = []
    for b in batches():
        rows += [(b, int(c), _kv_read(m, b, c)) for c in CONTEXTS]
    return Table(("batch", "context_tokens", "kv_cache_bytes_read_per_step"), tuple(rows))


def draw(fig, table: Table) -> None:
    m, d = get_model(MODEL), get_device(DEVICE)
    ax = fig.add_subplot()
    bs, cs, kv = table.column("batch"), table.column("context_tokens"), table.column("kv_cache_bytes_read_per_step")
    for b, colour in zip(batches(), COLOURS):
        pts = [(c, k / 1e9) for bb, c, k in zip(bs, cs, kv) if bb == b]
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", ms=3.5, lw=1.8, color=colour, label=f"batch {b}")
    w = weight_bytes_per_token(m) / 1e9
    # The two levels are named in the legend: a label on its line is crossed by the rising batches.
    ax.axhline(w, color="#555", ls="--", lw=1, label=f"{m.name} weights read per step, bf16 ({fmt.nbytes(w * 1e9)})")
    cap = usable_memory_bytes(d) / 1e9
    ax.axhline(cap, color="#b71c1c", ls=":", lw=1.2, label=f"{d.name} usable memory ({fmt.nbytes(cap * 1e9)})")
    ax.set_xlabel("tokens cached per sequence (log)")
    ax.set_ylabel("KV-cache bytes read per decode step (GB, log)")
    log_ticks(ax, "x", [])
    log_ticks(ax, "y", [])
    ax.legend(loc="lower right", frameon=False, fontsize=8)


def alt() -> str:
    m = get_model(MODEL)
    lo, hi = int(CONTEXTS[0]), int(CONTEXTS[-1])
    ends = "; ".join(
        f"batch {b}: {fmt.nbytes(_kv_read(m, b, lo))} at {fmt.sig(lo, 6)} tokens, "
        f"{fmt.nbytes(_kv_read(m, b, hi))} at {fmt.sig(hi, 6)}" for b in batches())
    return (f"Log-log lines of the KV-cache bytes one decode step of {m.name} reads against the tokens cached, "
            f"one straight line per batch size, each rising in proportion to context: {ends}. Dashed lines mark "
            f"the weight bytes a step reads and the {get_device(DEVICE).name} usable memory: above it the "
            f"cache no longer fits.")


def caption() -> str:
    m = get_model(MODEL)
    w = weight_bytes_per_token(m)
    return (f"KV-cache reads grow as batch × context × {fmt.nbytes(kv_bytes_per_token(m))} per token for {m.name} "
            f"in bf16; they pass the {fmt.nbytes(w)} of weights a step reads at about "
            f"{fmt.sig(w / kv_bytes_per_token(m))} tokens cached in total.")
