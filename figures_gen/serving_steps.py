"""The two kinds of engine step over time: decode-only steps, and steps carrying a prompt's chunk beside
the decodes, for the Serving page's worked example and its long-prompt variant (docs/serving.md)."""

from __future__ import annotations

from functools import lru_cache

from figures_gen import Table
from roofline import example, format as fmt, Formats, get_device, get_model, Layout, serve_point, Workload

NAME = "serving-steps"
DEVICE, MODEL, FORMAT, TP = "h100-sxm5", "llama-3.1-70b", "fp8", 4
COLOURS = {"decode-only step": "#3f51b5", "step carrying a prompt chunk": "#d81b60"}
SHOWN_STEPS = 24   # enough steps to show the pattern repeat several times


def _prompts() -> tuple[int, int]:
    return int(example("serve_input")), int(example("serve_long_input"))


@lru_cache(maxsize=4)
def _point(prompt: int):
    wl = Workload(prompt, int(example("serve_output")), int(example("serve_concurrency")),
                  formats=Formats.of(FORMAT, FORMAT, FORMAT))
    return serve_point(get_model(MODEL), get_device(DEVICE), Layout(tp=TP), wl)


def _schedule(p) -> list[tuple[int, str, float]]:
    """(step, kind, time) for the first steps of the steady state: prompt steps spread evenly, a share f of them
    (each prompt's chunks in a run when it spans several)."""
    f = p.prompt_step_share
    n_p = p.workload.prefill_steps
    chunk_times = [p.prompt_step_s] * n_p
    out, owed, i = [], 0.0, 0
    while i < SHOWN_STEPS:
        owed += f
        if owed >= n_p * (1 - 1e-9):           # a whole prompt is due: its chunks run back to back
            owed -= n_p
            for t in chunk_times:
                if i < SHOWN_STEPS:
                    out.append((i, "step carrying a prompt chunk", t))
                    i += 1
        else:
            out.append((i, "decode-only step", p.decode_step_s))
            i += 1
    return out


def data() -> Table:
    rows = []
    for prompt in _prompts():
        rows += [(prompt, step, kind, t * 1e3) for step, kind, t in _schedule(_point(prompt))]
    return Table(("prompt_tokens", "step", "kind", "step_time_ms"), tuple(rows))


def draw(fig, table: Table) -> None:
    prompts = _prompts()
    axes = fig.subplots(len(prompts), 1, sharex=True)
    for ax, prompt in zip(axes, prompts):
        seen = set()
        for pr, step, kind, t in zip(table.column("prompt_tokens"), table.column("step"), table.column("kind"),
                                     table.column("step_time_ms")):
            if pr != prompt:
                continue
            ax.bar(step, t, width=0.8, color=COLOURS[kind], label=None if kind in seen else kind)
            seen.add(kind)
        ax.set_ylabel(f"ms, prompt {prompt:,}", fontsize=9)  # short: two long rotated labels met on a phone
    # one legend above the panels: inside them it sat on the tall bars
    axes[0].legend(loc="lower center", bbox_to_anchor=(0.5, 1.02), ncol=2, frameon=False, fontsize=8)
    axes[-1].set_xlabel("engine step (steady state)")


def alt() -> str:
    parts = []
    for prompt in _prompts():
        p = _point(prompt)
        parts.append(f"with prompts of {prompt:,} tokens, decode-only steps of {fmt.seconds(p.decode_step_s)} and, "
                     f"{fmt.percent(p.prompt_step_share)} of the time, steps carrying a prompt chunk of "
                     f"{fmt.seconds(p.prompt_step_s)}")
    p = _point(_prompts()[0])
    return (f"Two bar charts of engine step time against step number for {get_model(MODEL).name} in {FORMAT} on "
            f"{TP} {get_device(DEVICE).name} GPUs with {p.concurrency} requests in flight (a decode batch of up to "
            f"{p.concurrency}, each request's context growing from its prompt to the prompt plus "
            f"{p.workload.output_tokens} tokens cached): " + "; ".join(parts) + ".")


def caption() -> str:
    p = _point(_prompts()[0])
    return (f"{get_model(MODEL).name}, {FORMAT}, TP{TP} on {get_device(DEVICE).name} bounds (dense peak), "
            f"{p.concurrency} requests in flight, {p.workload.output_tokens} output tokens each (decode batch up to "
            f"{p.concurrency}, context from the prompt to {p.workload.output_tokens} more tokens cached): the tall "
            f"steps carry a prompt's chunk and set TTFT and the slow tail of TPOT; the short ones are decode-only.")
