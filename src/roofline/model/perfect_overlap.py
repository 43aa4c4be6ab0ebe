"""The whole-step, perfect-overlap model: a step timed as max(total FLOPs ÷ peak, total bytes ÷ bandwidth).

This is a lower bound on a step's time, not its cost: it assumes every kernel's memory traffic
hides under another kernel's compute. The site's step times are the per-kernel model's
(`roofline.model.kernels`: the sum of each kernel's roofline time), whose
`time_perfect_overlap_s` is this bound. This module is kept only because the calculator's
whole-step mirror (calc.js, through `roofline.calculator_view`) still reads it; nothing else
should. `Step` is a `RooflinePoint` of the whole step, so intensity, time and bound are computed
in one place.

Accounting: FLOPs 2 per weight per token for every weight matmul plus attention's
4·layers·heads·head_dim per token per attended position; bytes the weights read once per step,
the KV cache each sequence reads plus the entries it writes, and activations in and out of each
weight matmul. Batch and length arguments accept numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from roofline.model.dtypes import bytes_per_element, check_storage_dtype
from roofline.errors import InputError
from roofline.registry.hardware import Device
from roofline.registry.models import Model
from roofline.model.accounting import kv_bytes_per_token, weight_bytes_per_token, weight_bytes_resident
from roofline.model.kernels import experts_touched
from roofline.model.point import RooflinePoint

ACTIVATION_DTYPE = "bf16"
MAX_SIZE = 1e9  # batch sizes or lengths above this are certainly typos


def compute_dtype(device: Device, weight_dtype: str) -> str:
    """The format the matmuls run in: fp8 and fp32 where the device has that peak, else 16-bit.

    int8/int4 weights are weight-only quantization: dequantized and multiplied in 16-bit.
    """
    if weight_dtype in ("fp8", "fp32") and weight_dtype in device.dense_peak_flop_per_s:
        return weight_dtype
    return device.sixteen_bit_dtype


def _size(name: str, value, *, allow_zero: bool = False) -> np.ndarray:
    arr = np.asarray(value, dtype=float) if not isinstance(value, str) else None
    if arr is None or arr.dtype.kind not in "fi":
        raise InputError(f"{name} must be a number, got {value!r}")
    low_ok = (arr >= 0) if allow_zero else (arr >= 1)
    if not np.all(np.isfinite(arr)) or not np.all(low_ok) or np.any(arr != np.floor(arr)):
        need = "a whole number ≥ 0" if allow_zero else "a whole number ≥ 1"
        raise InputError(f"{name} must be {need}, got {value!r}")
    if np.any(arr > MAX_SIZE):
        raise InputError(f"{name} must be at most {MAX_SIZE:.0e}, got {value!r}")
    return arr


def _scalar(x):
    arr = np.asarray(x)
    return arr.item() if arr.ndim == 0 else arr


@dataclass(frozen=True)
class Step:
    """One forward step of a batch on one device. Arrays where the inputs were arrays."""

    phase: str                # "decode" or "prefill"
    model: Model
    device: Device
    batch: object
    tokens_per_sequence: object  # 1 for decode, the prompt length for prefill
    context_len: object          # tokens already in the KV cache (decode)
    weight_dtype: str
    kv_dtype: str
    compute_dtype: str
    flops: object
    weight_bytes: object
    kv_bytes: object
    activation_bytes: object
    memory_required_bytes: object

    @cached_property
    def point(self) -> RooflinePoint:
        """The whole step as one roofline point at the matmuls' peak."""
        return RooflinePoint(self.phase, flops=self.flops, weight_bytes=self.weight_bytes,
                             act_read_bytes=self.activation_bytes, kv_read_bytes=self.kv_bytes,
                             peak_flop_per_s=self.device.peak_flop_per_s(self.compute_dtype),
                             bandwidth_bytes_per_s=self.device.memory_bandwidth_bytes_per_s,
                             compute_dtype=self.compute_dtype)

    bytes = property(lambda self: self.point.bytes)
    arithmetic_intensity = property(lambda self: self.point.arithmetic_intensity)
    peak_flop_per_s = property(lambda self: self.point.peak_flop_per_s)
    bandwidth_bytes_per_s = property(lambda self: self.point.bandwidth_bytes_per_s)
    ridge_point = property(lambda self: self.point.ridge_point)
    compute_time_s = property(lambda self: self.point.compute_time_s)
    memory_time_s = property(lambda self: self.point.memory_time_s)
    #: Perfect overlap: max(FLOPs ÷ peak, bytes ÷ bandwidth) over the whole step, a lower bound.
    time_perfect_overlap_s = property(lambda self: self.point.time_s)
    time_s = time_perfect_overlap_s  # the name calc.js's mirror reads; it is the perfect-overlap bound
    bound = property(lambda self: self.point.bound)

    @property
    def attained_flop_per_s(self):
        return _scalar(np.asarray(self.flops) / self.time_s)

    @property
    def tokens_per_s_per_sequence(self):
        """Decode: one token per step per sequence. Prefill: prompt tokens processed per second per sequence."""
        return _scalar(np.asarray(self.tokens_per_sequence) / self.time_s)

    @property
    def tokens_per_s(self):
        """Aggregate over the batch."""
        return _scalar(np.asarray(self.batch) * self.tokens_per_sequence / self.time_s)

    @property
    def fits(self):
        return _scalar(np.asarray(self.memory_required_bytes) <= self.device.memory_capacity_bytes)


def _step(phase, model, device, batch, new_tokens, context, weight_dtype, kv_dtype) -> Step:
    check_storage_dtype(weight_dtype, "weight dtype")
    check_storage_dtype(kv_dtype, "KV dtype")
    w = bytes_per_element(weight_dtype)
    a = bytes_per_element(ACTIVATION_DTYPE)
    kv_tok = kv_bytes_per_token(model, kv_dtype)
    tokens = batch * new_tokens
    touched = experts_touched(model, tokens)
    weight_bytes = model.matmul_params(touched) * w if not model.is_bare else model.bare_params * w + 0 * tokens
    matmul_flops = 2.0 * model.matmul_params() * tokens
    kv_b = bytes_per_element(kv_dtype)
    if phase == "decode":  # a windowed layer reads (and keeps) at most its window
        attn_flops = batch * model.attention_flops_per_token(context + 1)
        kv_bytes = batch * model.kv_elements_for_context(context + 1) * kv_b
        cached = context + 1
    else:  # causal prefill: token i attends to i positions; the prompt's KV is written once
        attn_flops = batch * model.prefill_attention_flops(new_tokens)
        kv_bytes = batch * new_tokens * kv_tok
        cached = new_tokens
    act_bytes = tokens * model.activation_elements_per_token() * a
    resident = weight_bytes_resident(model, weight_dtype) + batch * model.kv_elements_for_context(cached) * kv_b
    return Step(
        phase=phase, model=model, device=device, batch=_scalar(batch),
        tokens_per_sequence=_scalar(new_tokens), context_len=_scalar(context),
        weight_dtype=weight_dtype, kv_dtype=kv_dtype, compute_dtype=compute_dtype(device, weight_dtype),
        flops=_scalar(matmul_flops + attn_flops), weight_bytes=_scalar(weight_bytes),
        kv_bytes=_scalar(kv_bytes), activation_bytes=_scalar(act_bytes),
        memory_required_bytes=_scalar(resident),
    )


def decode_step(model: Model, device: Device, batch=1, context_len=0,
                weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> Step:
    """One decode step: each of `batch` sequences, with `context_len` tokens cached, emits one token.

    >>> s = decode_step(Model.from_param_count(8e9), get_device("h100-sxm5"))
    >>> round(s.time_s * 1e3, 2), round(s.tokens_per_s)
    (4.78, 209)
    """
    b = _size("batch", batch)
    ctx = _size("context length", context_len, allow_zero=True)
    return _step("decode", model, device, b, np.ones_like(b), ctx, weight_dtype, kv_dtype)


def prefill(model: Model, device: Device, prompt_len, batch=1,
            weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> Step:
    """Process `prompt_len` prompt tokens for each of `batch` sequences; its time is the time to first token."""
    b = _size("batch", batch)
    t = _size("prompt length", prompt_len)
    return _step("prefill", model, device, b, t, np.zeros_like(t), weight_dtype, kv_dtype)


def critical_batch(model: Model, device: Device, context_len=0, weight_dtype: str = "bf16",
                   kv_dtype: str = "bf16", max_batch: int = 1 << 20) -> int | None:
    """Smallest decode batch whose intensity reaches the ridge point; None if none up to `max_batch`.

    Decode intensity rises with batch (weights are shared, KV reads are not) towards
    a ceiling set by the KV cache; at long contexts that ceiling can sit below the ridge.
    """
    def step(b):
        return decode_step(model, device, b, context_len, weight_dtype, kv_dtype)

    return _first_reaching_ridge(step, max_batch)


def _first_reaching_ridge(step, limit: int, probes: int = 64) -> int | None:
    """Smallest n in 1..limit with step(n) at or past its ridge point; None if even `limit` falls short.

    Callers guarantee intensity is monotone in n (shared weights, per-token traffic), so search
    by narrowing: each round evaluates `probes` points in one vectorised step and keeps the gap
    between the last one short of the ridge and the first one past it (4 rounds for 2**20).
    """
    ridge = step(1).ridge_point
    lo, hi = 0, int(limit)  # step(lo) falls short (0: nothing tried yet); step(hi) reaches the ridge
    if step(hi).arithmetic_intensity < ridge:
        return None
    while hi - lo > 1:
        grid = np.unique(np.linspace(lo, hi, probes + 2).astype(np.int64))
        grid = grid[(grid > lo) & (grid < hi)]
        reached = np.atleast_1d(step(grid).arithmetic_intensity >= ridge)
        first = int(np.argmax(reached)) if reached.any() else len(grid)
        lo = int(grid[first - 1]) if first > 0 else lo
        hi = int(grid[first]) if first < len(grid) else hi
    return hi


def speed_of_light_tokens_per_s(model: Model, device: Device, weight_dtype: str = "bf16") -> float:
    """Batch-1 decode ceiling from weight bytes alone: bandwidth ÷ the weight bytes a step reads.

    This is the seeds' estimate (no KV cache, no activations): 8e9 fp16 weights on an
    H100 SXM5 give 3.35e12 / 16e9 = 209 tokens/s. For a real model the step reads every
    matmul weight but only one row of the embedding table (`weight_bytes_per_token`).
    """
    return device.memory_bandwidth_bytes_per_s / weight_bytes_per_token(model, weight_dtype)


def crossover_prompt_len(model: Model, device: Device, batch=1, weight_dtype: str = "bf16",
                         kv_dtype: str = "bf16", max_len: int = 1 << 20) -> int | None:
    """Shortest prompt whose prefill intensity reaches the device's ridge point; None if none up to `max_len`.

    For a weights-only model in 16-bit this is ceil(ridge): intensity = 2·P·T ÷ (2·P) = T,
    so on the H100 SXM5 (ridge 989.4/3.35 = 295.3) it is 296. A real model also moves
    activations and writes its KV cache, which pulls intensity below T, so it needs longer.
    Prefill intensity only rises with T (FLOPs grow at least as fast as bytes), so bisect.

    >>> crossover_prompt_len(Model.from_param_count(8e9), get_device("h100-sxm5"))
    296
    """
    _size("batch", batch)
    return _first_reaching_ridge(lambda t: prefill(model, device, t, batch, weight_dtype, kv_dtype), max_len)
