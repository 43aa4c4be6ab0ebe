"""Expert parallelism across nodes: DeepSeek-V3 decode tokens/s per GPU against HGX H200 nodes."""

from __future__ import annotations

from figures_gen import Table, log_ticks
from roofline import example, format as fmt, get_device, get_model, quantities

NAME = "many-chips-nodes"
DEVICE, MODEL = "h200-sxm", "deepseek-v3"
CONTEXT = int(example("ep_prompt"))  # SGLang's published cross-node runs: 2,000-token inputs
PER_DEVICE = (int(example("batch_mid")), int(example("ep_batch_heavy")))  # a light and a heavy batch per GPU
NODES = (1, 2, 4, 8, 16)       # EP8 to EP128: every degree divides the 256 experts
COLOURS = ("#3f51b5", "#d81b60")


def _q(nodes: int, per: int, what: str = "tokens_per_s_per_device") -> float:
    return float(quantities.NAMESPACE["ep_decode"](MODEL, DEVICE, nodes, per, CONTEXT, what))


def data() -> Table:
    rows = [(per, n, _q(n, per), _q(n, per, "network_time_share")) for per in PER_DEVICE for n in NODES]
    return Table(("per_device", "nodes", "tokens_per_s_per_device", "network_time_share"), tuple(rows))


def draw(fig, table: Table) -> None:
    from matplotlib.ticker import FixedFormatter, FixedLocator, NullFormatter, NullLocator

    ax = fig.add_subplot()
    per, nodes, tok = table.column("per_device"), table.column("nodes"), table.column("tokens_per_s_per_device")
    for b, colour in zip(PER_DEVICE, COLOURS):
        pts = [(n, t) for p, n, t in zip(per, nodes, tok) if p == b]
        ax.semilogx([p[0] for p in pts], [p[1] for p in pts], "o-", color=colour, lw=1.8, ms=4,
                    label=f"batch {b} per GPU")
    ax.xaxis.set_major_locator(FixedLocator(NODES))
    ax.xaxis.set_major_formatter(FixedFormatter([str(n) for n in NODES]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    log_ticks(ax, "y", [])
    ax.set_ylim(bottom=0)
    d = get_device(DEVICE)
    ax.set_xlabel(f"HGX {d.name} nodes of {d.network.node_devices}, EP over all GPUs (log)")
    ax.set_ylabel("decode tokens/s per GPU")
    ax.set_title(f"{get_model(MODEL).name}: where the network becomes the roof")
    ax.legend(loc="lower right", frameon=False)


def _summary(b: int) -> str:
    return ", ".join(f"{fmt.tokens_per_s(_q(n, b))} on {n}" for n in NODES)


def alt() -> str:
    d = get_device(DEVICE)
    return (f"Chart of {get_model(MODEL).name} decode ceiling tokens/s per GPU against the number of "
            f"{d.network.node_devices}-GPU {d.name} nodes, expert-parallel over all GPUs, {CONTEXT} tokens cached. "
            f"Batch of {PER_DEVICE[0]} sequences per GPU: {_summary(PER_DEVICE[0])}. "
            f"Batch of {PER_DEVICE[1]} per GPU: {_summary(PER_DEVICE[1])}.")


def caption() -> str:
    d, m = get_device(DEVICE), get_model(MODEL)
    best = max(NODES, key=lambda n: _q(n, PER_DEVICE[1]))
    return (f"{m.name} in its fp8 checkpoint on the {d.name}, fp8 activations, dense peaks, {fmt.sig(float(CONTEXT), 6)} tokens cached "
            f"per sequence. Ceilings: each step at its perfect-overlap time, the all-to-all split between NVLink and one "
            f"{fmt.bytes_per_s(d.network.bandwidth_bytes_per_s_per_direction)} NIC per GPU at their spec bandwidths and "
            f"latency floors. At a batch of {PER_DEVICE[1]} sequences per GPU "
            f"the ceiling peaks at {best} node{'s' if best > 1 else ''}: past it the network, not memory or compute, is the roof.")
