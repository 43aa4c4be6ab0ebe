"""Paged attention on the roofline: more sequences fit, so the decode batch and its intensity grow."""

from __future__ import annotations

from figures_gen import Table, _playbook
from roofline import example, format as fmt, get_device, get_model, playbook

NAME = "playbook-paged"
DEVICE, MODEL = "h100-sxm5", "llama-3.1-8b"


def _move():
    return playbook.paged_kv(get_model(MODEL), get_device(DEVICE), int(example("long_context")), int(example("medium_context")))


def data() -> Table:
    p = _move()
    return _playbook.table(("decode", (p.before, p.after)))


def draw(fig, table: Table) -> None:
    p = _move()
    _playbook.draw(fig, table, f"Paged KV cache: {get_model(MODEL).name} decode, {fmt.sig(p.actual_len, 6)} tokens "
                               f"per sequence, {get_device(DEVICE).name}")


def alt() -> str:
    p = _move()
    return (f"Log-log roofline of the {get_device(DEVICE).name}. An arrow runs from decode at batch "
            f"{fmt.sig(p.contiguous_batch)} ({fmt.intensity(p.before.arithmetic_intensity)}), the sequences that fit "
            f"when each reserves {fmt.sig(p.max_len, 6)} tokens of KV cache, to batch {fmt.sig(p.paged_batch)} "
            f"({fmt.intensity(p.after.arithmetic_intensity)}) when each holds its actual "
            f"{fmt.sig(p.actual_len, 6)}-token context in blocks of {fmt.sig(p.block_tokens)}. The larger batch is still "
            f"{p.after.bound} as a whole step.")


def caption() -> str:
    p = _move()
    return (f"Paging lets {fmt.sig(p.paged_batch)} sequences share each weight read instead of "
            f"{fmt.sig(p.contiguous_batch)}: {fmt.tokens_per_s(p.paged_tokens_per_s)} against "
            f"{fmt.tokens_per_s(p.contiguous_tokens_per_s)} with {fmt.sig(p.actual_len, 6)} tokens per sequence, "
            f"the step's own token included (sum of kernel times).")
