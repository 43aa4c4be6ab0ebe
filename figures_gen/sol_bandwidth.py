"""Speed-of-light batch-1 decode tokens/s against memory bandwidth, for every registry device."""

from __future__ import annotations

import numpy as np

from figures_gen import Table, log_ticks
from roofline import decode, devices, format as fmt, get_model, weight_bytes_per_token

NAME = "sol-bandwidth"
MODELS = ("llama-3.1-8b", "llama-3.1-70b")
COLOURS = ("#3f51b5", "#d81b60")
WEIGHT_DTYPE = "bf16"
#: Devices named on the plot (the rest are unlabeled points); registry ids.
LABELLED = ("l4", "rtx-4090", "m4-max", "a100-sxm4-80gb", "h100-sxm5", "h200-sxm", "b200")


def _short(name: str) -> str:
    """A device name without vendor words or parenthesized detail, for point labels."""
    for word in ("NVIDIA ", "GeForce ", "AMD Instinct ", "Apple "):
        name = name.replace(word, "")
    return name.split(" (")[0]


def data() -> Table:
    rows = []
    for model_id in MODELS:
        m = get_model(model_id)
        wb = weight_bytes_per_token(m, WEIGHT_DTYPE)  # once per model: one decode per device, not two
        for d in devices().values():
            fits = bool(decode(m, d, 1, 1).fits)  # weights, one sequence's cache, activations, reserve
            # speed_of_light_tokens_per_s's own division, with the weight bytes no device enters
            rows.append((model_id, d.id, d.memory_bandwidth_bytes_per_s, d.memory_bandwidth_bytes_per_s / wb,
                         "yes" if fits else "no"))
    return Table(("model", "device_id", "bandwidth_bytes_per_s", "sol_tokens_per_s", "weights_fit"), tuple(rows))


def draw(fig, table: Table) -> None:
    ax = fig.add_subplot()
    names = {d.id: d.name for d in devices().values()}
    cols = [table.column(c) for c in table.columns]
    rows = list(zip(*cols))
    bws = np.array(table.column("bandwidth_bytes_per_s"))
    line_x = np.array([bws.min() * 0.8, bws.max() * 1.25])
    for model_id, colour in zip(MODELS, COLOURS):
        m = get_model(model_id)
        mine = [r for r in rows if r[0] == model_id]
        wb = weight_bytes_per_token(m, WEIGHT_DTYPE)
        ax.loglog(line_x / 1e12, line_x / wb, color=colour, lw=1, alpha=0.6)
        for fit in ("yes", "no"):
            pts = [r for r in mine if r[4] == fit]
            ax.plot([r[2] / 1e12 for r in pts], [r[3] for r in pts], "o", ms=6, color=colour,
                    mfc=colour if fit == "yes" else "white",
                    label=f"{m.name}, {WEIGHT_DTYPE}" + ("" if fit == "yes" else " (weights do not fit)"))
        if model_id == MODELS[0]:
            for r in mine:
                if r[1] in LABELLED:
                    # Labels go below-right of the point, or above-left near the top end where space runs out.
                    right = r[2] < 0.5 * bws.max()
                    ax.annotate(_short(names[r[1]]), (r[2] / 1e12, r[3]), xytext=(5, -10) if right else (-6, 5),
                                textcoords="offset points", ha="left" if right else "right", fontsize=7.5, color="#333")
    ax.set_xlabel("memory bandwidth (TB/s, log)")
    ax.set_ylabel("speed-of-light decode (tokens/s, log)")
    log_ticks(ax, "x", [])
    log_ticks(ax, "y", [])
    ax.legend(loc="upper left", frameon=False, fontsize=8)


def alt() -> str:
    parts = []
    for model_id in MODELS:
        m = get_model(model_id)
        wb = weight_bytes_per_token(m, WEIGHT_DTYPE)
        sols = {d.name: d.memory_bandwidth_bytes_per_s / wb for d in devices().values()}
        lo, hi = min(sols, key=sols.get), max(sols, key=sols.get)
        parts.append(f"{m.name} from {fmt.tokens_per_s(sols[lo])} on the {lo} to {fmt.tokens_per_s(sols[hi])} on the {hi}")
    return (f"Log-log scatter of speed-of-light batch-1 decode (weights only, no KV cache) against memory bandwidth for every registry device, "
            f"{WEIGHT_DTYPE} weights. Each model's points lie on one straight line, tokens/s = bandwidth ÷ weight bytes: "
            + "; ".join(parts) + ". Hollow points mark devices whose memory cannot hold the weights.")


def caption() -> str:
    m = get_model(MODELS[0])
    return (f"Batch-1 decode ceiling, weights only (no KV cache): bandwidth ÷ the weight bytes a step reads "
            f"({fmt.nbytes(weight_bytes_per_token(m, WEIGHT_DTYPE))} for {m.name} in {WEIGHT_DTYPE}: every matmul "
            f"weight and norm vector, and one row of the embedding table, which is looked up, not read whole). Peak compute does not appear in the formula.")
