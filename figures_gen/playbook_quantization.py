"""Quantization on the roofline: batch-1 decode as the weights shrink from bf16 to fp8, int8 and int4."""

from __future__ import annotations

from figures_gen import Table, _playbook
from roofline import format as fmt, get_device, get_model, playbook

NAME = "playbook-quantization"
DEVICE, MODEL = "h100-sxm5", "llama-3.1-8b"


def _move():
    return playbook.quantization(get_model(MODEL), get_device(DEVICE))


def data() -> Table:
    q = _move()
    return _playbook.table(("decode", tuple(lv.point for lv in q.levels)))


def draw(fig, table: Table) -> None:
    q = _move()
    _playbook.draw(fig, table, f"Quantization: {q.model.name}, batch-1 decode, {fmt.sig(q.context_len)} token cached, "
                               f"{q.device.name}",
                   roof_names={(lv.point.peak_flop_per_s, lv.point.bandwidth_bytes_per_s): f"{lv.compute_dtype} compute"
                               for lv in q.levels})


def alt() -> str:
    q = _move()
    parts = ", ".join(f"{lv.weight_dtype} at {fmt.intensity(lv.point.arithmetic_intensity)}" for lv in q.levels)
    return (f"Log-log roofline of the {q.device.name} with arrows from batch-1 decode of {q.model.name} "
            f"({fmt.sig(q.context_len)} token cached) with {q.before.name} to the narrower formats: {parts}. Every "
            f"step is {' or '.join(dict.fromkeys(lv.point.bound for lv in q.levels))}: each point sits at its "
            f"FLOPs ÷ the sum of its kernels' times, and FLOP/s and tokens per second rise with intensity.")


def caption() -> str:
    q = _move()
    a, b = q.levels[0], q.levels[-1]
    return (f"Fewer bytes per weight raise decode intensity and the ceiling: {a.weight_dtype} gives "
            f"{fmt.tokens_per_s(a.tokens_per_s)}, {b.weight_dtype} {fmt.tokens_per_s(b.tokens_per_s)} "
            f"(batch one, {fmt.sig(q.context_len)} token cached, sum of kernel times). fp8 runs on the fp8 roof; int8 "
            f"and int4 are weight-only and compute in {b.compute_dtype}; the output head stays bf16.")
