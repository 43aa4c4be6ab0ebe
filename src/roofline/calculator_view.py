"""The calculator's view of the package: the registry as JSON, custom devices and models, reference outputs.

The site's interactive calculator (docs/assets/calculator/calc.js) re-implements the
formulas of inference.py in JavaScript and reads its data from `registry_json()`,
written at build time to calculator/registry.json. `calculate()` is the reference
the JavaScript is parity-tested against (tests/test_calculator_parity.py).

>>> calculate(get_device("h100-sxm5"), Model.from_param_count(8e9))["tokens_per_s"]  # 3.35e12 / 16e9
209.375
"""

from __future__ import annotations

import datetime as dt
import inspect
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from roofline.configs import reader_config_json
from roofline.model.dtypes import BYTES_PER_ELEMENT, STORAGE_DTYPES, bytes_per_element
from roofline.errors import InputError
from roofline.examples import example
from roofline.registry.hardware import GIGA, SIXTEEN_BIT, TERA, Device, devices, get_device
from roofline.model.inference import (ACTIVATION_DTYPE, MAX_SIZE, critical_batch, crossover_prompt_len, decode_step,
                                experts_touched, kv_bytes_per_token, prefill, speed_of_light_tokens_per_s,
                                weight_bytes_resident)
from roofline.registry.models import Model, get_model, models
from roofline.registry.specfile import PLAUSIBLE
from roofline.model.roofs import COMPUTE_BOUND, MEMORY_BOUND, attainable_flop_per_s

SCHEMA_VERSION = 1

#: What the calculator accepts in each field: (lowest, highest, whole numbers only, lowest allowed itself).
#: Batch and lengths share the package's MAX_SIZE; device and model limits sit far past any real part,
#: so only a typo trips them.
LIMITS = MappingProxyType({
    "batch": (1, MAX_SIZE, True, True),
    "context_len": (0, MAX_SIZE, True, True),
    "prompt_len": (1, MAX_SIZE, True, True),
    # The registry's plausible ranges (registry.specfile.PLAUSIBLE): a denormal peak or a googol of
    # bandwidth gets the same inline sentence as any other bad value, never a page error.
    "peak_TFLOP_per_s": (*PLAUSIBLE["dense_peak_TFLOP_per_s"][:2], False, True),
    "bandwidth_TB_per_s": (*PLAUSIBLE["memory_bandwidth_TB_per_s"][:2], False, True),
    "memory_GB": (*PLAUSIBLE["memory_capacity_GB"][:2], False, True),
    "params_billions": (*PLAUSIBLE["published_params_B"][:2], False, True),  # get_model: 1e3 to 1e15 parameters
    "n_layers": (*PLAUSIBLE["n_layers"][:2], True, True),
    "kv_heads": (*PLAUSIBLE["kv_heads"][:2], True, True),
    "n_heads": (*PLAUSIBLE["n_heads"][:2], True, True),
    "head_dim": (*PLAUSIBLE["head_dim"][:2], True, True),
})

#: Base-unit multipliers for the calculator's custom fields (vendor units in, SI base units out).
FIELD_SCALES = MappingProxyType({"peak_TFLOP_per_s": TERA, "bandwidth_TB_per_s": TERA, "memory_GB": GIGA,
                          "params_billions": GIGA})


# ------------------------------------------------------------------ custom entries ---------
def custom_device(peak_flop_per_s: float, bandwidth_bytes_per_s: float, capacity_bytes: float) -> Device:
    """A device from three numbers: a dense 16-bit peak, a memory bandwidth and a capacity.

    >>> custom_device(989.4e12, 3.35e12, 80e9).peak_flop_per_s("fp8")  # only a 16-bit peak
    Traceback (most recent call last):
    InputError: custom has no published dense fp8 peak; it has bf16
    """
    for name, value in (("peak FLOP/s", peak_flop_per_s), ("memory bandwidth", bandwidth_bytes_per_s),
                        ("memory capacity", capacity_bytes)):
        if not (isinstance(value, (int, float)) and 0 < value < float("inf")):
            raise InputError(f"custom device: {name} must be a positive number, got {value!r}")
    return Device(id="custom", name="custom device", vendor="", kind="custom", memory_type="",
                  memory_capacity_bytes=float(capacity_bytes),
                  memory_bandwidth_bytes_per_s=float(bandwidth_bytes_per_s),
                  dense_peak_flop_per_s=MappingProxyType({"bf16": float(peak_flop_per_s)}),
                  source_url="", source_title="", note="entered by the reader", confidence="",
                  checked=dt.date.min)


@dataclass(frozen=True)
class SizedModel(Model):
    """A dense model given by its parameter count plus the attention shape that sizes its KV cache.

    Weights stream as one dense block (like `Model.from_param_count`), and `n_layers`,
    `kv_heads`, `head_dim`, `n_heads` add the KV cache and the attention FLOPs. It has
    no hidden size, so it moves no activation bytes.
    """

    @property
    def is_bare(self) -> bool:
        return True


def custom_model(params: float, n_layers: int = 0, kv_heads: int = 0, head_dim: int = 0,
                 n_heads: int = 0) -> Model:
    """A model from a parameter count; layers, KV heads and head dim (all three or none) add a KV cache.

    `n_heads` (query heads) defaults to `kv_heads`, i.e. multi-head attention.

    >>> custom_model(8e9, 32, 8, 128).kv_elements_per_token()  # 2·32·8·128, as Llama 3.1 8B
    65536
    """
    base = get_model(repr(float(params)))  # the package's own check of a bare parameter count
    shape = (n_layers, kv_heads, head_dim)
    if not any(shape) and not n_heads:
        return base
    names = ("layers", "KV heads", "head dim")
    for name, value in zip(names, shape):
        if not (float(value).is_integer() and value >= 1):
            raise InputError(f"custom model: give layers, KV heads and head dim together as whole numbers ≥ 1; "
                             f"{name} is {value!r}")
    heads = n_heads or kv_heads
    if heads % kv_heads:
        raise InputError(f"custom model: query heads ({heads}) must be a multiple of KV heads ({kv_heads})")
    return SizedModel(id=f"{params:g} params, sized", name=f"dense model, {params:g} parameters",
                      n_layers=int(n_layers), hidden_size=0, n_heads=int(heads), kv_heads=int(kv_heads),
                      head_dim=int(head_dim), ffn_size=0, gated_ffn=False, vocab_size=0, tied_embeddings=True,
                      bare_params=base.bare_params, published_params=base.bare_params)


# ------------------------------------------------------------------ reference outputs ------
def calculate(device: Device, model: Model, phase: str = "decode", batch=1, length=0,
              weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> dict[str, Any]:
    """Every output the calculator shows, from the package: the reference for the JavaScript.

    `length` is the context already cached (decode) or the prompt length (prefill).
    Throughputs are kept even when the configuration does not fit; the page hides them.
    """
    if phase == "decode":
        step = decode_step(model, device, batch, length, weight_dtype, kv_dtype)
        cached = step.context_len + 1
        cb_context = length
    elif phase == "prefill":
        step = prefill(model, device, length, batch, weight_dtype, kv_dtype)
        cached = step.tokens_per_sequence
        cb_context = length  # the decode that follows starts from the prompt
    else:
        raise InputError(f"phase must be 'decode' or 'prefill', got {phase!r}")
    kv_tok = kv_bytes_per_token(model, kv_dtype)
    crossover = crossover_prompt_len(model, device, batch, weight_dtype, kv_dtype) if phase == "prefill" else None
    return {
        "phase": phase,
        "compute_dtype": step.compute_dtype,
        "peak_flop_per_s": step.peak_flop_per_s,
        "bandwidth_bytes_per_s": step.bandwidth_bytes_per_s,
        "memory_capacity_bytes": device.memory_capacity_bytes,
        "ridge_point": step.ridge_point,
        "total_params": model.total_params,
        "active_params": model.active_params,
        "experts_touched": float(experts_touched(model, step.batch * step.tokens_per_sequence)),
        "flops": step.flops,
        "weight_bytes": step.weight_bytes,
        "kv_bytes": step.kv_bytes,
        "activation_bytes": step.activation_bytes,
        "bytes": step.bytes,
        "arithmetic_intensity": step.arithmetic_intensity,
        "bound": step.bound,
        "attainable_flop_per_s": attainable_flop_per_s(step.arithmetic_intensity, step.peak_flop_per_s,
                                                       step.bandwidth_bytes_per_s),
        "attained_flop_per_s": step.attained_flop_per_s,
        "compute_time_s": step.compute_time_s,
        "memory_time_s": step.memory_time_s,
        "time_s": step.time_s,
        "time_to_first_token_s": step.time_s if phase == "prefill" else None,
        "tokens_per_s_per_sequence": step.tokens_per_s_per_sequence,
        "tokens_per_s": step.tokens_per_s,
        "kv_bytes_per_token": kv_tok,
        "kv_cache_bytes": step.batch * model.kv_elements_for_context(cached) * bytes_per_element(kv_dtype),
        "weights_resident_bytes": weight_bytes_resident(model, weight_dtype),
        "memory_required_bytes": step.memory_required_bytes,
        "fits": bool(step.fits),
        "critical_batch": critical_batch(model, device, cb_context, weight_dtype, kv_dtype),
        "crossover_prompt_len": crossover,
        "speed_of_light_tokens_per_s": speed_of_light_tokens_per_s(model, device, weight_dtype),
    }


# ------------------------------------------------------------------ the per-kernel model ---
def kernel_outputs(device: Device, model: Model, phase: str = "decode", batch=1, length=1,
                   weight_format: str = "bf16", kv_dtype: str = "bf16", activation: str = "bf16",
                   attention: str = "fused") -> dict[str, Any]:
    """The per-kernel model's outputs for one configuration: the reference docs/assets/calculator/kernels.js
    is parity-tested against (tests/unit/test_calculator_kernels_parity.py).

    `length` is the context already cached (decode, at least 1) or the prompt length (prefill).
    """
    from roofline.model import kernels
    from roofline.model.formats import Formats

    f = Formats.of(weight_format, activation, kv_dtype)
    if phase == "decode":
        step = kernels.decode(model, device, batch, length, f, attention)
    elif phase == "prefill":
        step = kernels.prefill(model, device, length, batch, f, attention)
    else:
        raise InputError(f"phase must be 'decode' or 'prefill', got {phase!r}")
    ops = [{"name": k.name, "count": k.count, "flops": float(k.flops), "bytes": float(k.bytes),
            "arithmetic_intensity": float(k.arithmetic_intensity), "ridge_point": float(k.ridge_point),
            "bound": str(k.bound), "time_s": float(k.time_s)} for k in step.ops]
    mb = kernels.max_batch_that_fits(model, device, length if phase == "decode" else 1, f, attention)
    return {
        "ops": ops,
        "time_s": float(step.time_s),
        "time_perfect_overlap_s": float(step.time_perfect_overlap_s),
        "weight_bytes": float(step.weight_bytes),
        "memory_required_bytes": float(step.memory_required_bytes),
        "usable_memory_bytes": kernels.usable_memory_bytes(device),
        "fits": bool(step.fits),
        "critical_batch": kernels.critical_batch(model, device, f),
        "max_batch_that_fits": None if mb is None else float(mb),
        "attention_intensity": None if model.is_bare else kernels.attention_intensity_limit(model, f),
    }


# ------------------------------------------------------------------ registry export --------
def _device_record(d: Device) -> dict[str, Any]:
    return {"id": d.id, "name": d.name, "vendor": d.vendor, "kind": d.kind, "memory_type": d.memory_type,
            "memory_capacity_bytes": d.memory_capacity_bytes, "capacity_unit": d.capacity_unit,
            "usable_memory_bytes": d.usable_memory_bytes,
            "memory_bandwidth_bytes_per_s": d.memory_bandwidth_bytes_per_s,
            "dense_peak_flop_per_s": dict(d.dense_peak_flop_per_s), "source_url": d.source_url,
            "source_title": d.source_title}


# Architecture fields beyond Llama's shape; calc.js reads each (absent = 0/false, as in Model).
MODEL_ARCH_FIELDS = ("moe_ffn_size", "n_shared_experts", "n_dense_layers", "kv_lora_rank", "q_lora_rank",
                     "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "sliding_window", "n_window_layers",
                     "qkv_bias", "o_bias", "mlp_bias", "attention_sinks")


def _model_record(m: Model) -> dict[str, Any]:
    fields = ("id", "name", "n_layers", "hidden_size", "n_heads", "kv_heads", "head_dim", "ffn_size", "gated_ffn",
              "vocab_size", "tied_embeddings", "n_experts", "experts_per_token", "bare_params", "source_url",
              "source_title", *MODEL_ARCH_FIELDS)
    return {f: getattr(m, f) for f in fields}


def _kernel_constants() -> dict[str, Any]:
    """The per-kernel model's constants, named once in roofline.model.kernels and formats."""
    from roofline.model import formats as F
    from roofline.model import kernels as K

    return {"softmax_flops_per_score": K.SOFTMAX_FLOPS_PER_SCORE, "norm_flops_per_element": K.NORM_FLOPS_PER_ELEMENT,
            "gated_act_flops_per_element": K.GATED_ACT_FLOPS_PER_ELEMENT, "norm_weight_bytes": K.NORM_WEIGHT_BYTES,
            "runtime_reserve_bytes": K.RUNTIME_RESERVE_BYTES, "max_size": K.MAX_SIZE,
            "scale_bytes": F.SCALE_BYTES, "default_group_size": F.DEFAULT_GROUP_SIZE,
            "element_bytes": dict(F._ELEMENT_BYTES), "activation_dtypes": list(F.ACTIVATION_DTYPES),
            "attention_variants": list(K.ATTENTION_VARIANTS), "critical_batch_max": 1 << 20}


def registry_json() -> dict[str, Any]:
    """The registry and the constants the calculator needs, as one JSON-ready dict (base SI units)."""
    return {
        "schema": SCHEMA_VERSION,
        "constants": {
            "bytes_per_element": dict(BYTES_PER_ELEMENT),
            "storage_dtypes": list(STORAGE_DTYPES),
            "sixteen_bit": list(SIXTEEN_BIT),
            "activation_dtype": ACTIVATION_DTYPE,
            "max_size": MAX_SIZE,
            "critical_batch_max": inspect.signature(critical_batch).parameters["max_batch"].default,
            "crossover_max_len": inspect.signature(crossover_prompt_len).parameters["max_len"].default,
            "compute_bound": COMPUTE_BOUND,
            "memory_bound": MEMORY_BOUND,
            "kernels": _kernel_constants(),
        },
        "limits": {k: {"min": lo, "max": hi, "integer": whole, "min_inclusive": incl}
                   for k, (lo, hi, whole, incl) in LIMITS.items()},
        "units": dict(FIELD_SCALES),
        "defaults": {
            "hardware": "h100-sxm5", "model": "llama-3.1-8b", "phase": "decode", "batch": 1,
            "context_len": example("medium_context"), "prompt_len": example("prompt_len"),
            "weight_dtype": "bf16", "kv_dtype": "bf16", "params": example("bare_params"),
            "compare_batch": example("batch_mid"),
        },
        "devices": [_device_record(d) for d in devices().values()],
        "models": [_model_record(m) for m in models().values()],
        "config_reader": reader_config_json(),
    }


__all__ = ["LIMITS", "FIELD_SCALES", "SizedModel", "calculate", "kernel_outputs", "custom_device", "custom_model", "registry_json",
           "get_device", "get_model"]
