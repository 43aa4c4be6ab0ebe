"""Tensor parallelism on the roofline: N devices raise both roofs N-fold; intensity does not move."""

from __future__ import annotations

from figures_gen import Table, _playbook
from roofline import example, format as fmt, get_device, get_model, playbook

NAME = "playbook-tp"
DEVICE, MODEL = "h100-sxm5", "llama-3.1-70b"


def _move():
    return playbook.tensor_parallel(get_model(MODEL), get_device(DEVICE), int(example("tp_degree")))


def data() -> Table:
    t = _move()
    return _playbook.table(("decode", (t.before, t.after)))


def draw(fig, table: Table) -> None:
    t = _move()
    names = {(t.before.peak_flop_per_s, t.before.bandwidth_bytes_per_s): "one GPU",
             (t.after.peak_flop_per_s, t.after.bandwidth_bytes_per_s): f"{t.n_devices} GPUs"}
    _playbook.draw(fig, table, f"Tensor parallelism: {get_model(MODEL).name} decode, batch 1, "
                               f"{fmt.sig(t.before.context_len)} token cached, {get_device(DEVICE).name}",
                   roof_names=names)


def alt() -> str:
    t = _move()
    return (f"Log-log roofline of one {get_device(DEVICE).name} and of {fmt.sig(t.n_devices)} of them together. "
            f"Batch-1 decode of {get_model(MODEL).name} ({fmt.sig(t.before.context_len)} token cached) stays at {fmt.intensity(t.after.arithmetic_intensity)}; "
            f"an arrow runs straight up from the one-GPU roof to the group's, whose aggregate bandwidth is "
            f"{fmt.bytes_per_s(t.aggregate_bandwidth_bytes_per_s)}.")


def caption() -> str:
    t = _move()
    return (f"The model needs {fmt.nbytes(t.memory_required_bytes)}, "
            f"{'more than' if not t.fits_one_device else 'within'} one GPU's "
            f"{fmt.nbytes(t.capacity_per_device_bytes)}; split over {fmt.sig(t.n_devices)} GPUs a token takes "
            f"{fmt.seconds(t.after.time_s)} (ideal: communication ignored"
            + (f"; with its all-reduces, {fmt.seconds(t.time_with_collectives_s)}" if t.time_with_collectives_s else "")
            + ").")
