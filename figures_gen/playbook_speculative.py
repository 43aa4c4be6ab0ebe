"""Speculative decoding on the roofline: one verify pass over k + 1 tokens instead of one token per pass."""

from __future__ import annotations

from figures_gen import Table, _playbook
from roofline import example, format as fmt, get_device, get_model, playbook

NAME = "playbook-speculative"
DEVICE, MODEL = "h100-sxm5", "llama-3.1-8b"


def _move():
    return playbook.speculative(get_model(MODEL), get_device(DEVICE), int(example("spec_draft_tokens")),
                       example("spec_acceptance"), int(example("medium_context")))


def data() -> Table:
    s = _move()
    return _playbook.table(("decode", (s.before, s.after)))


def draw(fig, table: Table) -> None:
    _playbook.draw(fig, table, f"Speculative decoding: {get_model(MODEL).name}, batch 1, "
                               f"{fmt.sig(example('medium_context'), 6)} tokens cached, {get_device(DEVICE).name}")


def alt() -> str:
    s = _move()
    return (f"Log-log roofline of the {get_device(DEVICE).name}. An arrow runs from plain batch-1 decode of "
            f"{get_model(MODEL).name} with {fmt.sig(s.after.context_len, 6)} tokens cached at {fmt.intensity(s.before.arithmetic_intensity)} to a verify pass of "
            f"{fmt.sig(s.draft_tokens + 1)} tokens at {fmt.intensity(s.after.arithmetic_intensity)}, "
            f"{s.after.bound}, so the pass takes {fmt.seconds(s.after.time_s)} against "
            f"{fmt.seconds(s.before.time_s)}.")


def caption() -> str:
    s = _move()
    return (f"Verifying {fmt.sig(s.draft_tokens)} drafted tokens takes {fmt.seconds(s.after.time_s)}, a plain step "
            f"{fmt.seconds(s.before.time_s)} (batch one, {fmt.sig(s.after.context_len, 6)} tokens cached); at acceptance "
            f"{fmt.sig(s.acceptance)} a step yields {fmt.sig(s.expected_tokens_per_step)} tokens on average, "
            f"{fmt.tokens_per_s(s.tokens_per_s)} against {fmt.tokens_per_s(s.plain_tokens_per_s)} "
            f"(draft model's cost ignored).")
