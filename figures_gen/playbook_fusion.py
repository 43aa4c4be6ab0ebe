"""Operator fusion on the roofline: n elementwise kernels against one fused kernel."""

from __future__ import annotations

from figures_gen import Table, _playbook
from roofline import format as fmt
from roofline.examples import example
from roofline.registry.hardware import get_device
from roofline.model.playbook import fusion

NAME = "playbook-fusion"
DEVICE = "h100-sxm5"


def _move():
    return fusion(int(example("fusion_ops")), int(example("fusion_elements")), get_device(DEVICE))


def data() -> Table:
    f = _move()
    return _playbook.table(("elementwise chain", (f.before, f.after)))


def draw(fig, table: Table) -> None:
    _playbook.draw(fig, table, f"Fusing elementwise ops (bf16): {get_device(DEVICE).name}")


def alt() -> str:
    f = _move()
    return (f"Log-log roofline of the {get_device(DEVICE).name}. An arrow runs from {f.before.label} at "
            f"{fmt.intensity(f.before.intensity_flop_per_byte)} to {f.after.label} at "
            f"{fmt.intensity(f.after.intensity_flop_per_byte)}; the ridge is at "
            f"{fmt.intensity(f.after.ridge_flop_per_byte)}, so the fused kernel is still {f.after.bound}.")


def caption() -> str:
    f = _move()
    return (f"Same FLOPs, {fmt.sig(f.before.bytes / f.after.bytes)} times fewer bytes: the chain drops from "
            f"{fmt.seconds(f.before.time_s)} to {fmt.seconds(f.after.time_s)} (roofline time).")
