"""The serving frontier: output tokens/s per device against tokens/s per user, one curve per layout,
the co-located envelope drawn thick and the disaggregated one dashed beside it."""

from __future__ import annotations

from functools import lru_cache

from figures_gen import Table, log_ticks
from roofline import (
    disaggregated, example, format as fmt, Formats, frontier, get_device, get_model, pareto,
    Workload,
)

NAME = "serving-frontier"
DEVICE, MODEL = "h100-sxm5", "llama-3.1-70b"
FORMAT = "fp8"  # weights, activations and KV cache
COLOURS = ("#3f51b5", "#d81b60", "#00897b", "#f57c00", "#6d4c41", "#5e35b1")
OTHER = "#9e9e9e"


def _workload() -> Workload:
    return Workload(int(example("serve_input")), int(example("serve_output")),
                    formats=Formats.of(FORMAT, FORMAT, FORMAT))


@lru_cache(maxsize=1)
def _points():
    m, d, wl = get_model(MODEL), get_device(DEVICE), _workload()
    pts = frontier(m, d, wl)
    return pts, pareto(pts), pareto(disaggregated(m, d, wl))


def data() -> Table:
    pts, env, dis = _points()
    on = {id(p) for p in env}
    rows = [("co-located", p.layout_name, p.concurrency, p.output_tokens_per_s_per_user,
             p.output_tokens_per_s_per_device, p.expected_output_tokens_per_s_per_device, int(id(p) in on))
            for p in pts]
    rows += [("disaggregated envelope", p.layout_name, p.concurrency, p.output_tokens_per_s_per_user,
              p.output_tokens_per_s_per_device, "", 1) for p in dis]  # no expected figure for the pools
    return Table(("serving", "layout", "concurrency", "tokens_per_s_per_user", "output_tokens_per_s_per_device",
                  "expected_output_tokens_per_s_per_device", "on_envelope"), tuple(rows))


def plt_null():
    from matplotlib.ticker import NullFormatter

    return NullFormatter()


def _named_layouts(table: Table) -> list[str]:
    """Layouts drawn in colour: those with a point on the co-located envelope, widest last."""
    names = []
    for s, lay, on in zip(table.column("serving"), table.column("layout"), table.column("on_envelope")):
        if s == "co-located" and on and lay not in names:
            names.append(lay)
    return names


def draw(fig, table: Table) -> None:
    ax = fig.add_subplot()
    serving, lays = table.column("serving"), table.column("layout")
    x, y, on = (table.column("tokens_per_s_per_user"), table.column("output_tokens_per_s_per_device"),
                table.column("on_envelope"))
    env = sorted((a, b) for s, a, b, o in zip(serving, x, y, on) if s == "co-located" and o)
    dis = sorted((a, b) for s, a, b in zip(serving, x, y) if s == "disaggregated envelope")
    # Focus on the envelopes: the low-throughput ends of the narrow layouts' curves say nothing more. Points
    # outside are dropped, not clipped: a clipped path still runs under the axis labels in the SVG.
    y_lo, y_hi = min(min(p[1] for p in env), min(p[1] for p in dis)) / 2, max(p[1] for p in env) * 1.4
    x_lo, x_hi = min(p[0] for p in env) / 1.5, max(max(p[0] for p in env), max(p[0] for p in dis)) * 1.3

    def inside(pts):
        return [p for p in pts if x_lo <= p[0] <= x_hi and y_lo <= p[1] <= y_hi]

    named = _named_layouts(table)
    others = sorted({lay for s, lay in zip(serving, lays) if s == "co-located"} - set(named))
    for lay in others:
        pts = inside(sorted((a, b) for s, l_, a, b in zip(serving, lays, x, y) if s == "co-located" and l_ == lay))
        if pts:
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], "-", color=OTHER, lw=0.8, alpha=0.7,
                      label="other layouts\n(" + ", ".join(others) + ")" if lay == others[0] else None)
    for lay, colour in zip(named, COLOURS):
        pts = inside(sorted((a, b) for s, l_, a, b in zip(serving, lays, x, y) if s == "co-located" and l_ == lay))
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", color=colour, lw=1.4, ms=3, label=lay)
    ax.loglog([p[0] for p in env], [p[1] for p in env], "-", color="#212121", lw=3, alpha=0.35,
              label="envelope (co-located)")
    dis_in = inside(dis)
    ax.loglog([p[0] for p in dis_in], [p[1] for p in dis_in], "--", color="#212121", lw=1.5,
              label="envelope, prefill and decode\non separate GPUs")
    ax.set_ylim(y_lo, y_hi)
    ax.set_xlim(x_lo, x_hi)
    # 1-3-10 ticks: the narrowed axes span under two decades, where decades alone label only two
    for axis, (lo, hi) in (("x", ax.get_xlim()), ("y", ax.get_ylim())):
        ticks = [m * 10 ** e for e in range(-1, 7) for m in (1, 3) if lo <= m * 10 ** e <= hi]
        (ax.set_xticks if axis == "x" else ax.set_yticks)(ticks)
        (ax.xaxis if axis == "x" else ax.yaxis).set_minor_formatter(plt_null())
        log_ticks(ax, axis, [])
    ax.set_xlabel("output tokens/s per user, 1 ÷ mean TPOT (log)")
    ax.set_ylabel("output tokens/s per GPU (log)")
    # Two lines: over axes narrowed for the legend beside them, one ran past the figure's left edge.
    ax.set_title(f"{get_model(MODEL).name}, {FORMAT}, {get_device(DEVICE).name}:\nserving ceilings")
    # To the right of the axes: inside them, the other layouts' curves ran down through the legend.
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=8)


def alt() -> str:
    pts, env, dis = _points()
    wl = _workload()
    hi, lo = env[0], env[-1]
    return (f"Log-log chart of output tokens/s per GPU against output tokens/s per user for {get_model(MODEL).name} "
            f"in {FORMAT} on {get_device(DEVICE).name} GPUs, I {wl.input_tokens} prompt and O {wl.output_tokens} output "
            f"tokens per request, one curve per layout over the requests in flight. The envelope runs from "
            f"{fmt.tokens_per_s(hi.output_tokens_per_s_per_device)} per GPU at "
            f"{fmt.tokens_per_s(hi.output_tokens_per_s_per_user)} per user ({hi.layout_name}, {hi.concurrency} "
            f"requests) to {fmt.tokens_per_s(lo.output_tokens_per_s_per_device)} per GPU at "
            f"{fmt.tokens_per_s(lo.output_tokens_per_s_per_user)} per user ({lo.layout_name}, {lo.concurrency} "
            f"request{'s' if lo.concurrency > 1 else ''}). The disaggregated envelope peaks at "
            f"{fmt.tokens_per_s(dis[0].output_tokens_per_s_per_device)} per GPU.")


def caption() -> str:
    wl = _workload()
    return (f"{get_model(MODEL).name} in {FORMAT} on {get_device(DEVICE).name} GPUs, requests of {wl.input_tokens} "
            f"prompt and {wl.output_tokens} output tokens: dense ceilings, one curve per layout from one request to "
            f"its memory cap; thick, the envelope; dashed, the prompts prefilled on separate GPUs.")
