"""The arithmetic-intensity number line: batch-1 decode … the H100 ridge … a prefill, on a log axis."""

from __future__ import annotations

from figures_gen import Table, key_labels, log_ticks, narrow
from roofline import (
    decode as decode_step, device_ridge_point, example, format as fmt, get_device, get_model,
    matmul_cost, matmul_cost_intro_convention, prefill, step_record,
)

NAME = "intensity-line"
NARROW_SIZE_IN = (5.0, 3.4)  # the points numbered, their names listed under the figure
DEVICE, MODEL = "h100-sxm5", "llama-3.1-8b"


def _points() -> list[tuple[str, str, float]]:
    """(kind, label, intensity) from left to right; kind is 'op', 'decode', 'prefill' or 'ridge'."""
    d, m = get_device(DEVICE), get_model(MODEL)
    sm, sk, sn = (int(example(k)) for k in ("intro_m", "intro_k", "intro_n"))
    sq = int(example("square_n"))
    batch, prompt = example("batch_mid"), example("prompt_len")
    one, mid = step_record(decode_step(m, d)), step_record(decode_step(m, d, batch))
    pts = [
        ("op", f"Visual Guide's {sm}×{sk}·{sk}×{sn}", matmul_cost_intro_convention(sm, sn, sk, "fp16").arithmetic_intensity),
        # Every decode label names its batch and context: at 4,096 cached the batch-64 point sits far lower.
        ("decode", f"{m.name} decode\nbatch 1, {fmt.sig(one['context_len'])} token cached", one["arithmetic_intensity"]),
        ("decode", f"{m.name} decode\nbatch {fmt.sig(batch)}, {fmt.sig(mid['context_len'])} token cached",
         mid["arithmetic_intensity"]),
        ("ridge", f"{d.name} ridge", device_ridge_point(d)),
        ("op", f"{sq}×{sq} squared (2·m·n·k)", matmul_cost(sq, sq, sq, "bf16").arithmetic_intensity),
        ("prefill", f"{m.name} {fmt.sig(prompt)}-token prefill", step_record(prefill(m, d, prompt))["arithmetic_intensity"]),
    ]
    return sorted(pts, key=lambda p: p[2])


def data() -> Table:
    return Table(("kind", "label", "arithmetic_intensity_flop_per_byte"), tuple(_points()))


COLOURS = {"op": "#555555", "decode": "#d81b60", "prefill": "#00897b", "ridge": "#3f51b5"}
#: Two points closer than this (decades) would draw one dot over the other: they leave the line, one
#: up and one down, by DOT_LIFT (axis units).
CLOSE_DECADES, DOT_LIFT = 0.04, 0.08


def _dot_heights(kinds, xs) -> list[float]:
    """Each point's dot height: 0 on the line, ±DOT_LIFT where a neighbour sits within CLOSE_DECADES
    (above for the first of the pair, below for the second; the ridge is a line and takes no part)."""
    import math

    pts = [i for i, k in enumerate(kinds) if k != "ridge"]
    heights = [0.0] * len(xs)
    for a, b in zip(pts, pts[1:]):
        if abs(math.log10(xs[b]) - math.log10(xs[a])) < CLOSE_DECADES:
            heights[a], heights[b] = (heights[a] or DOT_LIFT), -DOT_LIFT
    return heights


def draw(fig, table: Table) -> None:
    d = get_device(DEVICE)
    ridge = device_ridge_point(d)
    ax = fig.add_subplot()
    lo, hi = 0.1, 1e4
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(-1.25, 1.25)
    ax.axvspan(lo, ridge, color="#d81b60", alpha=0.07, lw=0)
    ax.axvspan(ridge, hi, color="#00897b", alpha=0.07, lw=0)
    ax.text(lo * 1.3, -1.12, f"memory-bound on the {d.name}", color="#ad1457", fontsize=9)
    ax.text(hi / 1.3, -1.12, "compute-bound", color="#00695c", fontsize=9, ha="right")
    ax.axhline(0, color="#333", lw=1.2)
    kinds, labels, xs = table.column("kind"), table.column("label"), table.column("arithmetic_intensity_flop_per_byte")
    if narrow():  # a phone: one row per label, so none can meet another
        _draw_rows(ax, ridge, kinds, labels, xs)
        return
    n = 0  # labels alternate above and below the line; right of the ridge they grow rightwards
    for kind, label, x, h in zip(kinds, labels, xs, _dot_heights(kinds, xs)):
        colour = COLOURS[kind]
        text = f"{label}\n{fmt.intensity(x)}"
        if kind == "ridge":
            ax.axvline(x, color=colour, ls="--", lw=1.2)
            ax.annotate(text, (x, 1.1), xytext=(-5, 0), textcoords="offset points", ha="right", va="top",
                        fontsize=8.5, color=colour)
            continue
        ax.plot([x], [h], "o", color=colour, ms=6, zorder=3)
        up = n % 2 == 0 if not h else h > 0
        n += 1
        y = 0.45 if up else -0.45
        ax.annotate(text, (x, h), (x, y), ha="left" if x > ridge else ("right" if x > ridge / 10 else "center"), va="bottom" if up else "top",
                    fontsize=8.5, color=colour, arrowprops={"arrowstyle": "-", "color": colour, "lw": 0.8})
    ax.set_yticks([])
    ax.spines["left"].set_visible(False)
    ax.grid(False, axis="y")
    ax.set_xlabel("arithmetic intensity (FLOP/byte, log)")
    log_ticks(ax, "x", [])


def _draw_rows(ax, ridge, kinds, labels, xs) -> None:
    """A phone: each point numbered beside its dot (above and below the line in turn, so neighbours
    such as a prefill and a square matmul just right of the ridge never meet), its name and intensity
    listed under the figure; no leader line crosses anything."""
    ax.set_ylim(-1.0, 1.0)
    ax.texts[0].set_position((ax.texts[0].get_position()[0], -0.9))
    ax.texts[1].set_position((ax.get_xlim()[1] / 1.08, -0.9))  # hard right: the ridge is near the edge
    lines, n = [], 0
    for kind, label, x, h in zip(kinds, labels, xs, _dot_heights(kinds, xs)):
        colour = COLOURS[kind]
        if kind == "ridge":
            ax.axvline(x, color=colour, ls="--", lw=1.2)
            ax.annotate(f"ridge {fmt.intensity(x)}", (x, 0.92), xytext=(-4, 0), textcoords="offset points",
                        ha="right", va="top", color=colour)
            lines.append(f"{label}: {fmt.intensity(x)}")
            continue
        n += 1
        ax.plot([x], [h], "o", color=colour, ms=5, zorder=3)
        up = n % 2 == 1 if not h else h > 0
        right = x > ridge  # a number right of the ridge grows rightwards, clear of its line
        ax.annotate(str(n), (x, h), xytext=(2 if right else -2, 7 if up else -7), textcoords="offset points",
                    ha="left" if right else "right", va="bottom" if up else "top", color=colour)
        lines.append(f"{n}  {label}: {fmt.intensity(x)}")
    key_labels(ax.figure, lines)
    ax.set_yticks([])
    ax.spines["left"].set_visible(False)
    ax.grid(False, axis="y")
    ax.set_xlabel("arithmetic intensity (FLOP/byte, log)")
    log_ticks(ax, "x", [])


def alt() -> str:
    pts = _points()
    parts = "; ".join(f"{label.replace(chr(10), ', ')} at {fmt.intensity(x)}" for _, label, x in pts)
    return (f"A horizontal log-scale number line of arithmetic intensity, shaded memory-bound left of the "
            f"{get_device(DEVICE).name} ridge and compute-bound right of it. From left to right: {parts}.")


def caption() -> str:
    d = get_device(DEVICE)
    dec = step_record(decode_step(get_model(MODEL), d))
    return (f"Where common operations sit against the {d.name} ridge (dense bf16 peak, spec bandwidth). "
            f"Batch-1 decode of {get_model(MODEL).name} in bf16, with {fmt.sig(dec['context_len'], 6)} token cached, is "
            f"{fmt.sig(device_ridge_point(d) / dec['arithmetic_intensity'])}× below it.")
