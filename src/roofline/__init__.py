"""The roofline model for LLM inference: sourced specs in, FLOPs, bytes and times out.

Everything the explainer site shows is computed here; the site glue
(`roofline_site`) imports this package, never the other way round.

This module is the package's public face: pages, figures and a reader's own scripts import
from `roofline` only, so a move inside the package is never a page edit (a test enforces it).
Names load on first use (PEP 562), so `import roofline` stays cheap for the CLI.

>>> from roofline import decode, get_device, get_model
>>> step = decode(get_model("llama-3.1-8b"), get_device("h100-sxm5"), batch=1, context_len=1)
>>> step.bound
'memory-bound'
"""

from __future__ import annotations

import importlib

from roofline.errors import InputError, RooflineError, SpecError

# public name -> (module, attribute in it; None for the module itself)
_EXPORTS: dict[str, tuple[str, str | None]] = {
    # the registry: devices, models, published measurements
    "Device": ("roofline.registry.hardware", "Device"),
    "get_device": ("roofline.registry.hardware", "get_device"),
    "devices": ("roofline.registry.hardware", "devices"),
    "Model": ("roofline.registry.models", "Model"),
    "get_model": ("roofline.registry.models", "get_model"),
    "models": ("roofline.registry.models", "models"),
    "measurements_of_kind": ("roofline.registry.measurements", "of_kind"),
    # a reader's own model
    "read_config": ("roofline.configs", "read_config"),
    # formats and the step model
    "Formats": ("roofline.model.formats", "Formats"),
    "decode": ("roofline.model.kernels", "decode"),
    "prefill": ("roofline.model.kernels", "prefill"),
    "step_record": ("roofline.model.record", "step_record"),
    "critical_batch": ("roofline.model.kernels", "critical_batch"),
    "crossover_prompt_len": ("roofline.model.kernels", "crossover_prompt_len"),
    "max_batch_that_fits": ("roofline.model.kernels", "max_batch_that_fits"),
    "speed_of_light_tokens_per_s": ("roofline.model.kernels", "speed_of_light_tokens_per_s"),
    "usable_memory_bytes": ("roofline.model.kernels", "usable_memory_bytes"),
    "weight_bytes_per_token": ("roofline.model.kernels", "weight_bytes_per_token"),
    "kv_bytes_per_token": ("roofline.model.accounting", "kv_bytes_per_token"),
    "matmul_cost": ("roofline.model.ops", "matmul_cost"),
    "matmul_cost_intro_convention": ("roofline.model.ops", "matmul_cost_intro_convention"),
    "attainable_flop_per_s": ("roofline.model.roofs", "attainable_flop_per_s"),
    "device_ridge_point": ("roofline.model.roofs", "device_ridge_point"),
    # modules read as a whole: layouts over several devices, the playbook's moves, measured derates,
    # number formatting, the token vocabulary, `roofline measure`'s records
    "parallel": ("roofline.model.parallel", None),
    "playbook": ("roofline.model.playbook", None),
    "measured": ("roofline.model.measured", None),
    "efficiency": ("roofline.model.efficiency", None),
    "validation": ("roofline.model.validation", None),
    "format": ("roofline.format", None),
    "quantities": ("roofline.quantities", None),
    "measure": ("roofline.measure", None),
    # the service model: `roofline serve`, the Serving page
    "Workload": ("roofline.model.serving", "Workload"),
    "ServicePoint": ("roofline.model.serving", "ServicePoint"),
    "serve_point": ("roofline.model.serving", "serve_point"),
    "offline_max": ("roofline.model.serving", "offline_max"),
    "frontier": ("roofline.model.serving", "frontier"),
    "pareto": ("roofline.model.serving", "pareto"),
    "best_under_targets": ("roofline.model.serving", "best_under_targets"),
    "disaggregated": ("roofline.model.serving", "disaggregated"),
    "memory_cap": ("roofline.model.serving", "memory_cap"),
    "Layout": ("roofline.model.parallel", "Layout"),
    # the site's named example workloads
    "example": ("roofline.examples", "example"),
}

__all__ = ["RooflineError", "SpecError", "InputError", *_EXPORTS]
__version__ = "0.1.0"


def __getattr__(name: str):
    try:
        module_name, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'roofline' has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
