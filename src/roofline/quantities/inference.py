"""Tokens about decode steps and prefills: times, throughputs, critical batch, speed of light."""

from __future__ import annotations

from dataclasses import dataclass

from roofline.errors import InputError
from roofline.model import inference as _inf
from roofline.quantities.core import (
    Input,
    Quantity,
    as_device,
    as_model,
    bandwidth_input,
    device_source,
    model_inputs,
    peak_input,
)


# ---------------------------------------------------------------- inference ---------------
@dataclass(frozen=True)
class StepView:
    """A decode step or prefill as Quantities; `.step` is the underlying `inference.Step`."""

    step: _inf.Step

    def _inputs(self) -> tuple[Input, ...]:
        s = self.step
        return (*model_inputs(s.model), peak_input(s.device, s.compute_dtype), bandwidth_input(s.device),
                Input("batch", float(s.batch)), Input("tokens cached" if s.phase == "decode" else "prompt length",
                                                      float(s.context_len if s.phase == "decode" else s.tokens_per_sequence)),
                Input("weights / KV cache", f"{s.weight_dtype} / {s.kv_dtype}"))

    def _q(self, value, unit, what, formula) -> Quantity:
        s = self.step
        where = f"{s.phase} of {s.model.name} on the {s.device.name}"
        return Quantity(float(value), unit, f"{what}, {where}", formula, self._inputs())

    @property
    def flops(self): return self._q(self.step.flops, "FLOP", "FLOPs per step", "2 × weights × tokens + attention")
    @property
    def bytes(self): return self._q(self.step.bytes, "B", "bytes per step", "weights + KV cache + activations")
    @property
    def weight_bytes(self): return self._q(self.step.weight_bytes, "B", "weight bytes per step", "weights read once per step")
    @property
    def kv_bytes(self): return self._q(self.step.kv_bytes, "B", "KV-cache bytes per step", "batch × cached tokens × KV bytes per token")
    @property
    def intensity(self): return self._q(self.step.arithmetic_intensity, "FLOP/byte", "arithmetic intensity", "FLOPs ÷ bytes")
    @property
    def time(self): return self._q(self.step.time_s, "s", "time per step", "max(FLOPs ÷ peak, bytes ÷ bandwidth)")
    @property
    def ttft(self): return self._q(self.step.time_s, "s", "time to first token", "prefill time = max(FLOPs ÷ peak, bytes ÷ bandwidth)")
    @property
    def tokens_per_s(self): return self._q(self.step.tokens_per_s, "tokens/s", "tokens/s (whole batch)", "batch × tokens per step ÷ time")
    @property
    def tokens_per_s_per_seq(self): return self._q(self.step.tokens_per_s_per_sequence, "tokens/s", "tokens/s per sequence", "tokens per step ÷ time")
    @property
    def attained(self): return self._q(self.step.attained_flop_per_s, "FLOP/s", "FLOP/s attained", "FLOPs ÷ time")
    @property
    def utilization(self): return self._q(self.step.attained_flop_per_s / self.step.peak_flop_per_s, "%", "share of peak FLOP/s", "attained ÷ peak")
    @property
    def memory_required(self): return self._q(self.step.memory_required_bytes, "B", "memory for weights and KV cache", "all weights + batch × cached tokens × KV bytes per token")
    @property
    def ridge(self): return self._q(self.step.ridge_point, "FLOP/byte", "ridge point", "peak ÷ bandwidth")
    @property
    def bound(self) -> str: return str(self.step.bound)
    @property
    def fits(self) -> bool: return bool(self.step.fits)


def decode(model, hw, batch=1, context=0, weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> StepView:
    return StepView(_inf.decode_step(as_model(model), as_device(hw), float(batch), float(context), weight_dtype, kv_dtype))


def prefill(model, hw, prompt, batch=1, weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> StepView:
    return StepView(_inf.prefill(as_model(model), as_device(hw), float(prompt), float(batch), weight_dtype, kv_dtype))


# Pages ask for the same critical batch several times (reaches_ridge, then the value); each is a
# search. Keyed on the objects themselves, which are kept alive here so an id is never reused:
# an edited registry yields new objects and so new entries.
_critical_batches: dict[tuple, tuple] = {}


def _critical_batch_of(m, d, context: float, weight_dtype: str, kv_dtype: str):
    key = (id(m), id(d), context, weight_dtype, kv_dtype)
    hit = _critical_batches.get(key)
    if hit is None or hit[0] is not m or hit[1] is not d:
        hit = _critical_batches[key] = (m, d, _inf.critical_batch(m, d, context, weight_dtype, kv_dtype))
    return hit[2]


def critical_batch(model, hw, context=0, weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> Quantity:
    m, d = as_model(model), as_device(hw)
    b = _critical_batch_of(m, d, float(context), weight_dtype, kv_dtype)
    if b is None:
        raise InputError(f"decode of {m.name} on the {d.name} at context {float(context):g} never reaches the ridge")
    return Quantity(float(b), "", f"critical batch of {m.name} on the {d.name}",
                    "smallest batch whose decode intensity reaches the ridge point",
                    (*model_inputs(m), peak_input(d, _inf.compute_dtype(d, weight_dtype)), bandwidth_input(d),
                     Input("tokens cached", float(context))))


def reaches_ridge(model, hw, context=0, weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> bool:
    return _critical_batch_of(as_model(model), as_device(hw), float(context), weight_dtype, kv_dtype) is not None


def crossover_prompt(model, hw, batch=1, weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> Quantity:
    """Shortest prompt whose prefill reaches the ridge: {{ crossover_prompt("llama-3.1-8b", "h100-sxm5") }}."""
    m, d = as_model(model), as_device(hw)
    t = _inf.crossover_prompt_len(m, d, float(batch), weight_dtype, kv_dtype)
    if t is None:
        raise InputError(f"prefill of {m.name} on the {d.name} never reaches the ridge")
    return Quantity(float(t), "", f"prompt length at which prefill of {m.name} reaches the ridge of the {d.name}",
                    "smallest prompt length whose prefill intensity reaches the ridge point",
                    (*model_inputs(m), peak_input(d, _inf.compute_dtype(d, weight_dtype)), bandwidth_input(d),
                     Input("batch", float(batch))), digits=6)


def capacity_quoted(hw: str) -> Quantity:
    """Memory capacity in the vendor's own unit: GiB where the vendor says GiB (TPU v4), else GB."""
    d = as_device(hw)
    unit = "GiB" if d.capacity_unit == "GiB" else "B"
    return Quantity(d.memory_capacity_bytes, unit, f"{d.name} memory capacity, as the vendor quotes it",
                    "vendor datasheet", (Input(f"{d.name} memory capacity", d.memory_capacity_bytes, "B", device_source(d)),))


def bound_on_every_device(bound: str, phase: str, model, n=1, weight_dtype: str = "bf16") -> bool:
    """True if `phase` ("decode" at batch n, or "prefill" of an n-token prompt) of `model` is `bound` on every registry device."""
    from roofline.registry.hardware import devices

    if phase not in ("decode", "prefill"):
        raise InputError(f"phase must be 'decode' or 'prefill', got {phase!r}")
    m = as_model(model)
    for d in devices().values():
        step = (_inf.decode_step(m, d, float(n), 0.0, weight_dtype) if phase == "decode"
                else _inf.prefill(m, d, float(n), 1.0, weight_dtype))
        if step.bound != bound:
            return False
    return True


def kv_per_token(model, kv_dtype: str = "bf16") -> Quantity:
    m = as_model(model)
    return Quantity(_inf.kv_bytes_per_token(m, kv_dtype), "B", f"KV-cache bytes per token of {m.name} ({kv_dtype})",
                    "2 × layers × KV heads × head_dim × bytes per element", model_inputs(m))


def params(model) -> Quantity:
    m = as_model(model)
    return Quantity(m.total_params, "", f"parameters of {m.name}", "computed from the architecture", model_inputs(m))


def active_params(model) -> Quantity:
    m = as_model(model)
    return Quantity(m.active_params, "", f"parameters active per token in {m.name}",
                    "all weights minus the experts a token is not routed to", model_inputs(m))


def weights_size(model, weight_dtype: str = "bf16") -> Quantity:
    m = as_model(model)
    return Quantity(_inf.weight_bytes_resident(m, weight_dtype), "B", f"weights of {m.name} in {weight_dtype}",
                    "parameters × bytes per parameter", model_inputs(m))


def sol(model, hw, weight_dtype: str = "bf16") -> Quantity:
    m, d = as_model(model), as_device(hw)
    return Quantity(_inf.speed_of_light_tokens_per_s(m, d, weight_dtype), "tokens/s",
                    f"speed-of-light batch-1 decode of {m.name} on the {d.name}",
                    "bandwidth ÷ (weights a decode step reads × bytes per weight)", (*model_inputs(m), bandwidth_input(d)))

#: The token functions this topic adds to the namespace pages evaluate in.
TOKENS = (decode, prefill, critical_batch, reaches_ridge, crossover_prompt, capacity_quoted, bound_on_every_device, kv_per_token, params, active_params, weights_size, sol,)

__all__ = ['decode', 'prefill', 'critical_batch', 'reaches_ridge', 'crossover_prompt', 'capacity_quoted', 'bound_on_every_device', 'kv_per_token', 'params', 'active_params', 'weights_size', 'sol']
