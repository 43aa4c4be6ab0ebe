"""The optimization playbook: each inference optimization as a move of a point on the roofline.

Every function takes a model and a device from the registry (or bare numbers where
the move needs no model), and returns a frozen dataclass holding the point before and
after the move (`RooflinePoint`: FLOPs, bytes and the roofs they meet) plus the
numbers the move is about. Costs come from `inference` (decode and prefill steps)
and `roofline` (the two roofs), so a spec change moves every point.

The roofline is a ceiling: no kernel overhead, perfect overlap, datasheet peaks.
Where a move has a cost the roofline cannot see (the draft model, the interconnect,
a KV-cache transfer), the function says what it leaves out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from roofline.model import inference as _inf
from roofline.model.dtypes import bytes_per_element, check_storage_dtype
from roofline.errors import InputError
from roofline.registry.hardware import Device
from roofline.registry.models import Model
from roofline.model.roofs import attainable_flop_per_s, bound, ridge_point

#: Weight formats the quantization move steps through, widest first.
QUANT_DTYPES = ("bf16", "fp8", "int8", "int4-g128")

#: Tokens per KV-cache block in vLLM's PagedAttention (Kwon et al., SOSP 2023, section 4).
PAGED_BLOCK_TOKENS = 16


# ---------------------------------------------------------------- the point -------------
@dataclass(frozen=True)
class RooflinePoint:
    """One piece of work (FLOPs over bytes) placed under one set of roofs (peak, bandwidth).

    >>> p = RooflinePoint("decode", 1.6e10, 1.6e10, 989.4e12, 3.35e12)
    >>> p.intensity_flop_per_byte, round(p.time_s * 1e3, 3)
    (1.0, 4.776)
    """

    label: str
    flops: float
    bytes: float
    peak_flop_per_s: float
    bandwidth_bytes_per_s: float

    @property
    def intensity_flop_per_byte(self) -> float:
        return self.flops / self.bytes

    @property
    def ridge_flop_per_byte(self) -> float:
        return ridge_point(self.peak_flop_per_s, self.bandwidth_bytes_per_s)

    @property
    def attainable_flop_per_s(self) -> float:
        """min(peak, bandwidth × intensity): the height of the roof above the point."""
        return attainable_flop_per_s(self.intensity_flop_per_byte, self.peak_flop_per_s, self.bandwidth_bytes_per_s)

    @property
    def time_s(self) -> float:
        """The roofline time: FLOPs ÷ attainable FLOP/s = max(FLOPs ÷ peak, bytes ÷ bandwidth)."""
        return max(self.flops / self.peak_flop_per_s, self.bytes / self.bandwidth_bytes_per_s)

    @property
    def bound(self) -> str:
        return bound(self.intensity_flop_per_byte, self.ridge_flop_per_byte)


def point_of(step: _inf.Step, label: str) -> RooflinePoint:
    """The roofline point of a scalar decode or prefill step."""
    return RooflinePoint(label, float(step.flops), float(step.bytes), step.peak_flop_per_s,
                         step.bandwidth_bytes_per_s)


def _check_count(name: str, value, *, low: float = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or value != int(value) or value < low:
        raise InputError(f"{name} must be a whole number ≥ {low:g}, got {value!r}")
    return int(value)


def _check_fraction(name: str, value, *, high_inclusive: bool) -> float:
    ok = isinstance(value, (int, float, np.floating)) and not isinstance(value, bool) and math.isfinite(value) \
        and 0 <= value and (value <= 1 if high_inclusive else value < 1)
    if not ok:
        raise InputError(f"{name} must be a number from 0 to 1{'' if high_inclusive else ' (exclusive)'}, got {value!r}")
    return float(value)


# ---------------------------------------------------------------- quantization ----------
@dataclass(frozen=True)
class QuantLevel:
    """Batch-1 decode with weights stored in one format."""

    weight_dtype: str
    compute_dtype: str               # what the matmuls run in (see inference.compute_dtype)
    weight_bytes_per_token: float    # weights streamed for one token
    speed_of_light_tokens_per_s: float  # bandwidth ÷ weight bytes a step reads (the seeds' estimate)
    point: RooflinePoint             # the whole step as one point (for the chart)
    step_time_s: float = 0.0         # the sum of its kernels' roofline times

    @property
    def tokens_per_s(self) -> float:
        """Roofline ceiling of the decode step (batch 1, so one token per step): 1 ÷ the kernels' summed time."""
        return 1.0 / (self.step_time_s or self.point.time_s)


@dataclass(frozen=True)
class Quantization:
    """Batch-1 decode of one model on one device at each weight format, widest first."""

    model: Model
    device: Device
    levels: tuple[QuantLevel, ...]

    def level(self, weight_dtype: str) -> QuantLevel:
        for lv in self.levels:
            if lv.weight_dtype == weight_dtype:
                return lv
        raise InputError(f"no quantization level {weight_dtype!r}; computed: {', '.join(l.weight_dtype for l in self.levels)}")

    @property
    def before(self) -> RooflinePoint:
        return self.levels[0].point

    @property
    def after(self) -> RooflinePoint:
        return self.levels[-1].point


def quantization(model: Model, device: Device, weight_dtypes=QUANT_DTYPES, context_len: int = 1) -> Quantization:
    """Batch-1 decode with the weights stored in each format of `weight_dtypes` (KV cache in bf16).

    Formats as checkpoints store them (`roofline.model.formats`): int4 means int4-g128 with fp16
    scales and zero points, and the embedding and output head stay bf16. fp8 checkpoints run
    fp8 × fp8 on the fp8 peak where the device has one; int8 and int4 are weight-only
    (dequantized, multiplied in 16-bit). The step is the per-kernel model; `point` is the whole
    step as one point for the chart.

    >>> q = quantization(Model.from_param_count(8e9), get_device("h100-sxm5"))
    >>> [round(l.point.intensity_flop_per_byte) for l in q.levels]  # 2 FLOPs ÷ bytes per weight
    [1, 2, 2, 4]
    """
    from roofline.model import kernels
    from roofline.model.formats import Formats

    levels = []
    for w in weight_dtypes:
        fmt = Formats.of(w)
        if fmt.weights.element == "fp8" and "fp8" in device.dense_peak_flop_per_s:
            fmt = Formats.of(w, "fp8")  # an fp8 checkpoint multiplies in fp8 where it can
        step = kernels.decode(model, device, 1, context_len, fmt)
        wbytes = float(step.weight_bytes)
        point = RooflinePoint(f"{w} weights", float(step.flops), float(step.bytes),
                              device.peak_flop_per_s(step.matmul_dtype), device.memory_bandwidth_bytes_per_s)
        levels.append(QuantLevel(w, step.matmul_dtype, wbytes, device.memory_bandwidth_bytes_per_s / wbytes, point,
                                 float(step.time_s)))
    if not levels:
        raise InputError("quantization needs at least one weight dtype")
    return Quantization(model, device, tuple(levels))


# ---------------------------------------------------------------- speculative decoding --
def expected_accepted_tokens(draft_tokens: int, acceptance: float) -> float:
    """Expected tokens one speculative step yields: (1 − a^(k+1)) ÷ (1 − a); k + 1 when a = 1.

    Leviathan, Kalman and Matias, "Fast Inference from Transformers via Speculative
    Decoding", ICML 2023, equation 1 (each drafted token accepted independently with
    probability a; the verify pass always yields one token of its own).

    >>> expected_accepted_tokens(4, 0.8)  # (1 − 0.8^5) ÷ 0.2
    3.3616...
    """
    k = _check_count("draft tokens", draft_tokens, low=0)
    a = _check_fraction("acceptance rate", acceptance, high_inclusive=True)
    if a == 1.0:
        return float(k + 1)
    return (1.0 - a ** (k + 1)) / (1.0 - a)


@dataclass(frozen=True)
class Speculative:
    """Plain batch-1 decode against one speculative step that verifies k drafted tokens."""

    draft_tokens: int
    acceptance: float
    draft_cost_fraction: float   # cost of one draft token as a fraction of one plain decode step
    expected_tokens_per_step: float
    before: RooflinePoint        # plain decode: one token per step
    after: RooflinePoint         # the verify pass: k + 1 tokens over the same weights

    @property
    def draft_time_s(self) -> float:
        return self.draft_cost_fraction * self.draft_tokens * self.before.time_s

    @property
    def step_time_s(self) -> float:
        """Verify pass plus drafting."""
        return self.after.time_s + self.draft_time_s

    @property
    def plain_tokens_per_s(self) -> float:
        return 1.0 / self.before.time_s

    @property
    def tokens_per_s(self) -> float:
        return self.expected_tokens_per_step / self.step_time_s

    @property
    def speedup(self) -> float:
        return self.tokens_per_s / self.plain_tokens_per_s


def speculative(model: Model, device: Device, draft_tokens: int, acceptance: float,
                context_len: int = 0, draft_cost_fraction: float = 0.0, weight_dtype: str = "bf16") -> Speculative:
    """Speculative decoding: one target pass verifies `draft_tokens` drafted tokens of one sequence.

    The verify pass is costed as a decode step of k + 1 tokens that share one KV cache:
    weights read once, the sequence's cache read once, FLOPs for k + 1 tokens. So its
    intensity is about k + 1 times batch-1 decode, and while it stays memory-bound it
    takes the same time. The draft model costs `draft_cost_fraction` of a plain decode
    step per drafted token (0 ignores it, as the roofline ceiling does).

    >>> s = speculative(Model.from_param_count(8e9), get_device("h100-sxm5"), 4, 0.8)
    >>> round(s.speedup, 4)  # memory-bound verify: same time, 3.3616 tokens instead of one
    3.3616
    """
    k = _check_count("draft tokens", draft_tokens, low=1)
    a = _check_fraction("acceptance rate", acceptance, high_inclusive=True)
    c = _check_fraction("draft cost fraction", draft_cost_fraction, high_inclusive=True)
    plain = _inf.decode_step(model, device, 1, context_len, weight_dtype)
    wide = _inf.decode_step(model, device, k + 1, context_len, weight_dtype)
    # One sequence, not k + 1: its cache is read once and k + 1 new entries are written.
    kv = (context_len + k + 1) * _inf.kv_bytes_per_token(model)
    verify = replace(wide, batch=1, tokens_per_sequence=k + 1, kv_bytes=kv)
    return Speculative(k, a, c, expected_accepted_tokens(k, a),
                       point_of(plain, "plain decode"), point_of(verify, f"verify {k + 1} tokens"))


# ---------------------------------------------------------------- operator fusion -------
@dataclass(frozen=True)
class Fusion:
    """A chain of elementwise ops over one tensor, one kernel per op against one fused kernel."""

    n_ops: int
    elements: float
    before: RooflinePoint   # unfused: each op reads its input and writes its output
    after: RooflinePoint    # fused: one read, one write, intermediates stay in registers

    @property
    def speedup(self) -> float:
        return self.before.time_s / self.after.time_s


def fusion(n_ops: int, elements: float, device: Device, dtype: str = "bf16", flops_per_element: float = 1.0) -> Fusion:
    """`n_ops` elementwise ops over `elements` values: n reads + n writes unfused, 1 + 1 fused.

    FLOPs are the same either way (`flops_per_element` per op per value), so fusing
    multiplies intensity by n and, while memory-bound, divides time by n.

    >>> f = fusion(4, 2**21, get_device("h100-sxm5"))
    >>> f.before.intensity_flop_per_byte, f.after.intensity_flop_per_byte  # 1 ÷ (2 × 2 bytes), then × 4
    (0.25, 1.0)
    """
    n = _check_count("number of fused ops", n_ops)
    e = float(_check_count("tensor elements", elements))
    if not (isinstance(flops_per_element, (int, float)) and math.isfinite(flops_per_element) and flops_per_element > 0):
        raise InputError(f"FLOPs per element must be a positive number, got {flops_per_element!r}")
    size = bytes_per_element(dtype)
    flops = n * e * flops_per_element
    peak, bw = device.peak_flop_per_s(device.sixteen_bit_dtype), device.memory_bandwidth_bytes_per_s
    return Fusion(n, e,
                  RooflinePoint(f"{n} separate kernels", flops, n * 2 * e * size, peak, bw),
                  RooflinePoint("one fused kernel", flops, 2 * e * size, peak, bw))


# ---------------------------------------------------------------- paged KV cache --------
@dataclass(frozen=True)
class PagedKV:
    """Decode batch that fits when each sequence reserves its maximum length against its actual length."""

    max_len: int
    actual_len: int
    block_tokens: int
    free_bytes: float                 # capacity minus the resident weights
    contiguous_reserved_bytes: float  # per sequence: max_len tokens of KV cache
    paged_reserved_bytes: float       # per sequence: actual_len rounded up to whole blocks
    contiguous_batch: int
    paged_batch: int
    before: RooflinePoint
    after: RooflinePoint

    @property
    def contiguous_tokens_per_s(self) -> float:
        return self.contiguous_batch / self.before.time_s

    @property
    def paged_tokens_per_s(self) -> float:
        return self.paged_batch / self.after.time_s

    @property
    def contiguous_waste(self) -> float:
        """Share of the contiguous reservation never written: 1 − actual ÷ max."""
        return 1.0 - self.actual_len / self.max_len


def paged_kv(model: Model, device: Device, max_len: int, actual_len: int, block_tokens: int = PAGED_BLOCK_TOKENS,
             weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> PagedKV:
    """Sequences that fit beside the weights: reserved at `max_len` (contiguous) or in blocks (paged).

    Every sequence holds `actual_len` tokens after the decode step. Contiguous
    allocation reserves `max_len` tokens of KV cache per sequence up front; paged
    allocation reserves whole blocks of `block_tokens` as the sequence grows. The
    batch that fits sets the decode intensity: more sequences share each weight read.

    >>> p = paged_kv(get_model("llama-3.1-8b"), get_device("h100-sxm5"), 32768, 4096)
    >>> p.contiguous_batch, p.paged_batch
    (14, 119)
    """
    max_len = _check_count("maximum length", max_len)
    actual = _check_count("actual length", actual_len)
    block = _check_count("block size", block_tokens)
    if actual > max_len:
        raise InputError(f"actual length ({actual}) cannot exceed the maximum length ({max_len})")
    kv_tok = _inf.kv_bytes_per_token(model, kv_dtype)
    if kv_tok == 0:
        raise InputError(f"{model.name} has no KV cache (a bare parameter count); pick a registry model")
    free = device.memory_capacity_bytes - _inf.weight_bytes_resident(model, weight_dtype)
    contiguous = max_len * kv_tok
    paged = math.ceil(actual / block) * block * kv_tok
    b_contig, b_paged = int(free // contiguous), int(free // paged)
    if b_contig < 1:
        raise InputError(f"{model.name} on the {device.name}: not one sequence of {max_len} tokens fits beside the weights")

    def pt(b, label):
        return point_of(_inf.decode_step(model, device, b, actual - 1, weight_dtype, kv_dtype), label)

    return PagedKV(max_len, actual, block, free, contiguous, paged, b_contig, b_paged,
                   pt(b_contig, f"contiguous, batch {b_contig}"), pt(b_paged, f"paged, batch {b_paged}"))


# ---------------------------------------------------------------- mixture of experts ----
@dataclass(frozen=True)
class MixtureOfExperts:
    """An MoE model's decode at batch 1 and at a larger batch, against a dense model of its active size."""

    model: Model
    batch: int
    active_bytes_per_token: float    # weights a single token reads (experts_per_token experts)
    total_bytes_per_token: float     # what a step reading every expert would read
    experts_touched: float           # distinct experts per layer read at `batch` (uniform routing)
    before: RooflinePoint            # batch 1
    after: RooflinePoint             # batch `batch`
    dense_after: RooflinePoint       # a dense model with the MoE's active parameters, at `batch`


def mixture_of_experts(model: Model, device: Device, batch: int, weight_dtype: str = "bf16") -> MixtureOfExperts:
    """Bytes per token from active, not total, parameters; and the expert reads that grow with batch.

    At batch 1 a token reads only its routed experts. At batch B the step reads every
    expert some token routes to, E·(1 − (1 − k/E)^B) per layer (`inference.experts_touched`),
    so intensity rises more slowly with batch than a dense model's.

    >>> moe = mixture_of_experts(get_model("mixtral-8x7b"), get_device("h100-sxm5"), 4)
    >>> moe.experts_touched  # 8 · (1 − 0.75^4)
    5.46875
    """
    b = _check_count("batch", batch)
    if not model.is_moe:
        raise InputError(f"{model.name} is dense (one expert); pick a mixture-of-experts model such as mixtral-8x7b")
    w = bytes_per_element(check_storage_dtype(weight_dtype, "weight dtype"))
    # Bytes are the weights a step reads (matmuls, output head included; the embedding table is a lookup).
    dense = Model.from_param_count(model.matmul_params())
    return MixtureOfExperts(
        model, b, _inf.weight_bytes_per_token(model, weight_dtype), model.matmul_params(model.n_experts) * w,
        float(_inf.experts_touched(model, b)),
        point_of(_inf.decode_step(model, device, 1, 0, weight_dtype), f"{model.name}, batch 1"),
        point_of(_inf.decode_step(model, device, b, 0, weight_dtype), f"{model.name}, batch {b}"),
        point_of(_inf.decode_step(dense, device, b, 0, weight_dtype), f"dense model of the active size, batch {b}"),
    )


# ---------------------------------------------------------------- tensor parallelism ----
@dataclass(frozen=True)
class TensorParallel:
    """One decode step split over N devices, each holding and reading 1/N of the weights (ideal)."""

    n_devices: int
    memory_required_bytes: float        # weights plus KV cache of the whole step
    memory_per_device_bytes: float
    capacity_per_device_bytes: float
    min_devices_to_fit: int
    before: RooflinePoint               # the whole step on one device (hypothetical if it does not fit)
    after: RooflinePoint                # the whole step on the group's aggregate roofs

    @property
    def fits_one_device(self) -> bool:
        return self.memory_required_bytes <= self.capacity_per_device_bytes

    @property
    def fits(self) -> bool:
        return self.memory_per_device_bytes <= self.capacity_per_device_bytes

    @property
    def aggregate_bandwidth_bytes_per_s(self) -> float:
        return self.after.bandwidth_bytes_per_s

    @property
    def speedup(self) -> float:
        return self.before.time_s / self.after.time_s


def tensor_parallel(model: Model, device: Device, n_devices: int, batch: int = 1, context_len: int = 0,
                    weight_dtype: str = "bf16") -> TensorParallel:
    """N devices each read 1/N of the weights and KV cache: time ÷ N, intensity unchanged, bandwidth × N.

    Ideal: the all-reduces after each layer's attention and FFN are ignored, so this
    is an upper bound on the gain; the interconnect is not in the registry.

    >>> tp = tensor_parallel(get_model("llama-3.1-70b"), get_device("h100-sxm5"), 8)
    >>> tp.fits_one_device, tp.fits, tp.min_devices_to_fit
    (False, True, 2)
    """
    n = _check_count("tensor-parallel degree", n_devices)
    step = _inf.decode_step(model, device, batch, context_len, weight_dtype)
    need, cap = float(step.memory_required_bytes), device.memory_capacity_bytes
    one = point_of(step, "one device")
    group = RooflinePoint(f"{n} devices", one.flops, one.bytes, n * one.peak_flop_per_s, n * one.bandwidth_bytes_per_s)
    return TensorParallel(n, need, need / n, cap, math.ceil(need / cap), one, group)


# ---------------------------------------------------------------- disaggregation --------
@dataclass(frozen=True)
class Disaggregation:
    """A prefill and a decode batch of one model on one device: their points and their interference."""

    prompt_len: int
    decode_batch: int
    prefill: RooflinePoint
    decode: RooflinePoint
    kv_transfer_bytes: float   # the prompt's KV cache, shipped from the prefill pool to the decode pool

    @property
    def time_to_first_token_s(self) -> float:
        return self.prefill.time_s

    @property
    def decode_step_s(self) -> float:
        return self.decode.time_s

    @property
    def stalled_decode_step_s(self) -> float:
        """Shared GPU, run back to back: the decode step that waits behind a prefill."""
        return self.decode.time_s + self.prefill.time_s

    @property
    def stall_ratio(self) -> float:
        return self.stalled_decode_step_s / self.decode.time_s


def disaggregation(model: Model, device: Device, prompt_len: int, decode_batch: int, context_len: int = 0,
                   weight_dtype: str = "bf16") -> Disaggregation:
    """Prefill sits right of the ridge, decode left of it; on a shared GPU one waits for the other.

    The interference model is the simplest honest one: without chunking, a prefill
    scheduled between two decode steps delays every sequence of the batch by the
    prefill's whole time. Disaggregated, each pool runs one phase; the price is moving
    the prompt's KV cache between pools (its size is given; its time depends on an
    interconnect the registry does not hold).

    >>> d = disaggregation(Model.from_param_count(8e9), get_device("h100-sxm5"), 512, 64)
    >>> d.prefill.bound, d.decode.bound
    ('compute-bound', 'memory-bound')
    """
    t = _check_count("prompt length", prompt_len)
    b = _check_count("decode batch", decode_batch)
    pre = _inf.prefill(model, device, t, 1, weight_dtype)
    dec = _inf.decode_step(model, device, b, context_len, weight_dtype)
    return Disaggregation(t, b, point_of(pre, f"prefill, {t} tokens"), point_of(dec, f"decode, batch {b}"),
                          t * _inf.kv_bytes_per_token(model))
