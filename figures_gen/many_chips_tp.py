"""Tensor parallelism against the linear line: decode tokens/s vs devices at batch 1 and at a serving batch."""

from __future__ import annotations

from figures_gen import Table, log_ticks
from roofline import example, format as fmt, get_device, get_model, parallel, step_record

NAME = "many-chips-tp"
DEVICE, MODEL = "h200-sxm", "llama-3.1-70b"
CONTEXT = int(example("medium_context"))
BATCHES = (1, int(example("batch_mid")))  # one user; a serving batch
DEVICES = (1, 2, 4, 8)                    # TP degrees within one HGX H200
COLOURS = ("#3f51b5", "#d81b60")


def _step(batch: int, n: int) -> dict:
    """The record (`step_record`) of a decode step at `batch` on TP `n`."""
    return step_record(parallel.decode(get_model(MODEL), get_device(DEVICE), batch, CONTEXT, layout=parallel.Layout(tp=n)))


def data() -> Table:
    """Only layouts that fit: where the weights and KV cache exceed a GPU, there is no point to plot."""
    rows = []
    for b in BATCHES:
        fitting = [n for n in DEVICES if bool(_step(b, n)["fits"])]
        base_n, base = fitting[0], float(_step(b, fitting[0])["tokens_per_s"])
        rows += [(b, n, float(_step(b, n)["tokens_per_s"]), base * n / base_n) for n in fitting]
    return Table(("batch", "devices", "tokens_per_s", "linear_tokens_per_s"), tuple(rows))


def draw(fig, table: Table) -> None:
    ax = fig.add_subplot()
    bs, ns = table.column("batch"), table.column("devices")
    tok, lin = table.column("tokens_per_s"), table.column("linear_tokens_per_s")
    for b, colour in zip(BATCHES, COLOURS):
        pts = [(n, t, li) for bb, n, t, li in zip(bs, ns, tok, lin) if bb == b]
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", color=colour, lw=1.8, ms=4,
                  label=f"batch {b}, context {CONTEXT}")
        ax.loglog([p[0] for p in pts], [p[2] for p in pts], "--", color=colour, lw=1, alpha=0.7,
                  label=f"batch {b}: linear from {pts[0][0]} GPU{'s' if pts[0][0] > 1 else ''}")
    ax.set_xticks(DEVICES)
    log_ticks(ax, "x", DEVICES)
    log_ticks(ax, "y", [])
    # A short log axis gets "2×10⁰"-style minor labels with superscripts too small on a phone: none.
    from matplotlib.ticker import FixedFormatter, FixedLocator, NullFormatter, NullLocator

    ax.xaxis.set_major_locator(FixedLocator(DEVICES))
    ax.xaxis.set_major_formatter(FixedFormatter([str(n) for n in DEVICES]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(f"{get_device(DEVICE).name} GPUs, tensor-parallel (one NVLink domain, log)")
    ax.set_ylabel("decode tokens/s, whole batch (log)")
    ax.set_title(f"{get_model(MODEL).name}, bf16: ceiling with NVLink collectives")
    # Between the two batches' lines, where none crosses it (upper left, the batch-64 lines ran through it).
    ax.legend(loc="center right", bbox_to_anchor=(1.0, 0.6), frameon=False)


def _summary(b: int) -> str:
    fitting = [n for n in DEVICES if bool(_step(b, n)["fits"])]
    return ", ".join(f"{fmt.tokens_per_s(float(_step(b, n)['tokens_per_s']))} on {n}" for n in fitting)


def alt() -> str:
    return (f"Log-log chart of decode tokens/s of {get_model(MODEL).name} on {get_device(DEVICE).name} GPUs with "
            f"tensor parallelism at {CONTEXT} tokens cached, each curve beside a dashed linear line from its first "
            f"point. Batch {BATCHES[0]}: {_summary(BATCHES[0])}. Batch {BATCHES[1]}: {_summary(BATCHES[1])}.")


def caption() -> str:
    b1 = [float(_step(BATCHES[0], n)["tokens_per_s"]) for n in (DEVICES[0], DEVICES[-1])]
    m, d = get_model(MODEL), get_device(DEVICE)
    return (f"{m.name} in bf16 on the {d.name}, tensor-parallel, {fmt.sig(float(CONTEXT), 6)} tokens cached per "
            f"sequence. Ceilings from the per-kernel model plus the all-reduces over NVLink (dense bf16 peak, spec bandwidth, "
            f"each collective at the link's latency floor, the fastest published small-message all-reduce). "
            f"At batch {BATCHES[0]}, {DEVICES[-1]} GPUs give "
            f"{fmt.sig(b1[1] / b1[0])}× the tokens/s of one, where the linear line gives {DEVICES[-1]}×.")
