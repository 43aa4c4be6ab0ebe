"""Prefill arithmetic intensity against prompt length, with several devices' ridges marked."""

from __future__ import annotations

import numpy as np

from figures_gen import Table, log_ticks, point_labels
from roofline import (
    crossover_prompt_len, device_ridge_point, example, format as fmt, get_device, get_model, Model,
    prefill,
)

NAME = "prefill-intensity"
MODEL = "llama-3.1-8b"
H100 = "h100-sxm5"  # the device the caption names
#: Ridges spread across the registry: an Apple SoC, the A100, the H100, a TPU v6e.
DEVICES = ("m4-max", "a100-sxm4-80gb", "h100-sxm5", "tpu-v6e")
COLOURS = ("#6d4c41", "#1e88e5", "#d81b60", "#43a047")


def prompt_lengths() -> np.ndarray:
    """1 … 32,768 tokens, four points per doubling."""
    return np.unique(np.round(np.logspace(0, 15, 61, base=2))).astype(int)


def _ridge_col(device_id: str) -> str:
    return f"ridge_{device_id}_flop_per_byte"


def data() -> Table:
    t = prompt_lengths()
    h = get_device(H100)  # intensity does not depend on the device (only compute dtype)
    bare = prefill(Model.from_param_count(example("bare_params")), h, t).arithmetic_intensity
    real = prefill(get_model(MODEL), h, t).arithmetic_intensity
    ridges = [device_ridge_point(get_device(d)) for d in DEVICES]
    cols = ("prompt_len_tokens", "intensity_weights_only_flop_per_byte", "intensity_model_flop_per_byte",
            *(_ridge_col(d) for d in DEVICES))
    return Table(cols, tuple((int(ti), float(b), float(r), *ridges) for ti, b, r in zip(t, bare, real)))


def draw(fig, table: Table) -> None:
    m = get_model(MODEL)
    ax = fig.add_subplot()
    t = table.column("prompt_len_tokens")
    ax.loglog(t, table.column("intensity_weights_only_flop_per_byte"), color="#757575", ls="--", lw=1.5,
              label="weights only (intensity = T)")
    ax.loglog(t, table.column("intensity_model_flop_per_byte"), color="#3f51b5", lw=2.2, label=m.name)
    ridge_labels = []
    for dev_id, colour in zip(DEVICES, COLOURS):
        d = get_device(dev_id)
        r = table.column(_ridge_col(dev_id))[0]
        ax.axhline(r, color=colour, ls=":", lw=1.2)
        ridge_labels.append((t[0] * 1.5, r, f"{d.name.split(' (')[0]} ridge {fmt.intensity(r)}", colour))
        cross = crossover_prompt_len(m, d)
        if cross is not None:
            ax.plot([cross], [prefill(m, d, cross).arithmetic_intensity], "o", color=colour, ms=6)
    point_labels(ax, ridge_labels, fontsize=8.5)
    ax.set_xlabel("prompt length T (tokens, log)")
    ax.set_ylabel("prefill intensity (FLOP/byte, log)")
    ax.set_title(f"Prefill of {m.name}, bf16, batch 1")
    log_ticks(ax, "x", [])
    log_ticks(ax, "y", [])
    ax.minorticks_off()  # keeps the SVG small
    ax.legend(loc="lower right", frameon=False)


def alt() -> str:
    m, h = get_model(MODEL), get_device(H100)
    t_hi = int(prompt_lengths()[-1])
    hi = prefill(m, h, t_hi).arithmetic_intensity
    names = ", ".join(get_device(d).name for d in DEVICES)
    return (f"Log-log plot of prefill arithmetic intensity against prompt length from one to "
            f"{fmt.sig(float(t_hi), 6)} tokens. A weights-only model follows the diagonal where intensity equals the "
            f"prompt length. {m.name} tracks it at short prompts and bends below it as activation traffic grows, "
            f"reaching {fmt.intensity(hi)} at {fmt.sig(float(t_hi), 6)} tokens. Horizontal lines mark the ridge points of "
            f"the {names}; a dot marks where {m.name} crosses each, at "
            + ", ".join(f"{fmt.sig(float(crossover_prompt_len(m, get_device(d))), 6)} tokens" for d in DEVICES) + ".")


def caption() -> str:
    m, h = get_model(MODEL), get_device(H100)
    return (f"Prefill intensity grows with the prompt (bf16 weights, batch one). The whole prefill of {m.name} "
            f"reaches the {h.name} ridge (dense bf16 peak) at "
            f"{fmt.sig(float(crossover_prompt_len(m, h)), 6)} tokens, later than the weights-only "
            f"{fmt.sig(float(crossover_prompt_len(Model.from_param_count(example('bare_params')), h)), 6)}.")
