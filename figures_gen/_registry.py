"""The registry of figures: every figure module, by name, in the order they are built."""

from __future__ import annotations

import importlib

#: Every figure, by module name, in the order they are built.
FIGURES: tuple[str, ...] = (
    "h100_roofline",
    "intensity_line",
    "ridge_overlay",
    "sol_bandwidth",
    "kv_context",
    "prefill_intensity",
    "batch_sweep",
    "hardware_map",
    # playbook (docs/playbook.md): one figure per move
    "playbook_quantization",
    "playbook_speculative",
    "playbook_fusion",
    "playbook_paged",
    "playbook_moe",
    "playbook_tp",
    "playbook_disagg",
    # many chips (docs/many-chips.md)
    "many_chips_tp",
    # serving (docs/serving.md)
    "serving_steps",
    "serving_frontier",
    # measurements (docs/measure.md, docs/real-systems.md)
    "measured_roofline",
    "real_vs_sol",
)


def module(name: str):
    """The figure module `name`; an unknown name is refused with the known ones listed."""
    import figures_gen  # the package's FIGURES: a test may narrow it

    if name not in figures_gen.FIGURES:
        raise KeyError(f"unknown figure '{name}'; known: {', '.join(figures_gen.FIGURES)}")
    return importlib.import_module(f"figures_gen.{name}")
