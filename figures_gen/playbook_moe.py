"""Mixture of experts on the roofline: batch 1 reads only routed experts; batching touches them all."""

from __future__ import annotations

from figures_gen import Table, _playbook
from roofline import example, format as fmt, get_device, get_model, playbook

NAME = "playbook-moe"
DEVICE, MODEL = "h200-sxm", "mixtral-8x7b"  # bf16 Mixtral needs more than an H100's memory


def _move():
    return playbook.mixture_of_experts(get_model(MODEL), get_device(DEVICE), int(example("batch_mid")))


def data() -> Table:
    e = _move()
    return _playbook.table(("decode", (e.before, e.after, e.dense_after)))


def draw(fig, table: Table) -> None:
    e = _move()
    _playbook.draw(fig, table, f"Mixture of experts: {get_model(MODEL).name} decode, {fmt.sig(e.context_len)} token "
                               f"cached, {get_device(DEVICE).name}")


def alt() -> str:
    e = _move()
    return (f"Log-log roofline of the {get_device(DEVICE).name}. Arrows run from {e.model.name} decode "
            f"({fmt.sig(e.context_len)} token cached) at batch one "
            f"({fmt.intensity(e.before.arithmetic_intensity)}) to batch {fmt.sig(e.batch)}, where "
            f"{fmt.sig(e.experts_touched)} experts per layer are read and intensity reaches only "
            f"{fmt.intensity(e.after.arithmetic_intensity)}, and to a dense model of the same active size at "
            f"that batch, which reaches {fmt.intensity(e.dense_after.arithmetic_intensity)}.")


def caption() -> str:
    e = _move()
    return (f"At batch one a token reads {fmt.nbytes(e.active_bytes_per_token)} of the "
            f"{fmt.nbytes(e.total_bytes_per_token)} of bf16 weights a step can read (the embedding table is only "
            f"indexed); at batch {fmt.sig(e.batch)} the step reads "
            f"{fmt.sig(e.experts_touched)} of {fmt.sig(e.model.n_experts)} experts per layer, so intensity grows more "
            f"slowly than the batch.")
