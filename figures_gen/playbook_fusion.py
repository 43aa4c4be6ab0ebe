"""Operator fusion on the roofline: n elementwise kernels against one fused kernel, and a prefill
with attention as three kernels against one fused (FlashAttention-style) kernel."""

from __future__ import annotations

from figures_gen import Table, _playbook
from roofline import example, format as fmt, get_device, get_model, playbook

NAME = "playbook-fusion"
DEVICE, MODEL = "h100-sxm5", "llama-3.1-8b"


def _move():
    return playbook.fusion(int(example("fusion_ops")), int(example("fusion_elements")), get_device(DEVICE))


def _attention():
    return playbook.attention_fusion(get_model(MODEL), get_device(DEVICE), int(example("medium_context")))


def data() -> Table:
    f, a = _move(), _attention()
    return _playbook.table(("elementwise chain", (f.before, f.after)),
                           (f"prefill, {fmt.sig(a.fused.tokens_per_sequence, 6)} tokens", (a.unfused, a.fused)))


def draw(fig, table: Table) -> None:
    f = _move()
    d = get_device(DEVICE)
    names = {(f.after.peak_flop_per_s, f.after.bandwidth_bytes_per_s): f"vector ({f.after.compute_dtype})",
             (d.peak_flop_per_s("bf16"), d.memory_bandwidth_bytes_per_s): "tensor (bf16)"}
    _playbook.draw(fig, table, f"Fusion: elementwise ops, and attention in a {get_model(MODEL).name} prefill, "
                               f"{d.name}", roof_names=names)


def alt() -> str:
    f, a = _move(), _attention()
    return (f"Log-log roofline of the {get_device(DEVICE).name}. An arrow runs from {f.before.name} at "
            f"{fmt.intensity(f.before.arithmetic_intensity)} to {f.after.name} at "
            f"{fmt.intensity(f.after.arithmetic_intensity)}; the vector ridge is at "
            f"{fmt.intensity(f.after.ridge_point)}, so the fused kernel is still {f.after.bound}. A second arrow "
            f"runs from a {fmt.sig(a.fused.tokens_per_sequence, 6)}-token prefill of {get_model(MODEL).name} with "
            f"unfused attention ({fmt.seconds(a.unfused.time_s)}) to the same prefill with fused attention "
            f"({fmt.seconds(a.fused.time_s)}), each plotted at its FLOPs ÷ the sum of its kernels' times.")


def caption() -> str:
    f, a = _move(), _attention()
    return (f"Same FLOPs, {fmt.sig(f.before.bytes / f.after.bytes)} times fewer bytes: the chain drops from "
            f"{fmt.seconds(f.before.time_s)} to {fmt.seconds(f.after.time_s)} (roofline time). Fusing attention "
            f"keeps the {fmt.sig(a.fused.tokens_per_sequence, 6)}-token prompt's scores on chip: attention drops "
            f"from {fmt.seconds(a.unfused_attention_time_s)} to {fmt.seconds(a.fused_kernel.time_s)}, the prefill "
            f"from {fmt.seconds(a.unfused.time_s)} to {fmt.seconds(a.fused.time_s)} (batch one).")
