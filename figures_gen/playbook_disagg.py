"""Disaggregated prefill and decode: the two phases sit on opposite sides of the ridge."""

from __future__ import annotations

from figures_gen import Table, _playbook
from roofline import example, format as fmt, get_device, get_model, playbook

NAME = "playbook-disagg"
DEVICE, MODEL = "h100-sxm5", "llama-3.1-8b"


def _move():
    return playbook.disaggregation(get_model(MODEL), get_device(DEVICE), int(example("prompt_len")), int(example("batch_mid")),
                          int(example("medium_context")))


def data() -> Table:
    g = _move()
    return _playbook.table(("prefill", (g.prefill,)), ("decode", (g.decode,)))


def draw(fig, table: Table) -> None:
    _playbook.draw(fig, table, f"Prefill and decode: {get_model(MODEL).name}, {get_device(DEVICE).name}", arrows=False)


def alt() -> str:
    g = _move()
    return (f"Log-log roofline of the {get_device(DEVICE).name} with two points: a prefill at "
            f"{fmt.intensity(g.prefill.arithmetic_intensity)} ({g.prefill.bound}) and a decode batch of "
            f"{fmt.sig(g.decode_batch)} with {fmt.sig(g.context_len, 6)} tokens cached at "
            f"{fmt.intensity(g.decode.arithmetic_intensity)} ({g.decode.bound}), "
            f"with the ridge at {fmt.intensity(g.prefill.ridge_point)}.")


def caption() -> str:
    g = _move()
    return (f"The {fmt.sig(g.prompt_len)}-token prefill is {g.prefill.bound}; the decode batch of "
            f"{fmt.sig(g.decode_batch)} with {fmt.sig(g.context_len, 6)} tokens cached is {g.decode.bound}. Sharing one GPU without "
            f"chunking, a decode step that waits behind the prefill takes {fmt.seconds(g.stalled_decode_step_s)} "
            f"instead of {fmt.seconds(g.decode_step_s)}.")
