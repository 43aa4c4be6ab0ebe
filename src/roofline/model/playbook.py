"""The optimization playbook: each inference optimization as a move of a point on the roofline.

Every function takes a model and a device from the registry (or bare numbers where the move
needs no model), and returns a frozen dataclass holding the step before and after the move
plus the numbers the move is about. Steps come from the per-kernel model
(`roofline.model.kernels`): a step is the kernels a serving engine runs, its time the sum of
their roofline times, and `named` gives it the label a figure shows. A single kernel is a
`RooflinePoint` (`roofline.model.point`), the one point type the package has; a step has the
same fields (FLOPs, bytes, intensity, ridge, time, bound), so a figure plots either.

The roofline is a ceiling: no launch overhead, datasheet peaks. Where a move has a cost it
cannot see (the draft model, the interconnect, a KV-cache transfer), the function says what
it leaves out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from roofline.errors import InputError
from roofline.model import kernels as _k
from roofline.model.accounting import kv_bytes_per_token
from roofline.model.dtypes import bytes_per_element
from roofline.model.formats import Formats
from roofline.model.kernels import KernelStep
from roofline.model.point import RooflinePoint
from roofline.registry.hardware import Device
from roofline.registry.models import Model

#: Weight formats the quantization move steps through, widest first.
QUANT_DTYPES = ("bf16", "fp8", "int8", "int4-g128")

#: Tokens per KV-cache block in vLLM's PagedAttention (Kwon et al., SOSP 2023, section 4).
PAGED_BLOCK_TOKENS = 16

#: A point a playbook figure plots: one kernel, or a whole step (the sum of its kernels).
Point = RooflinePoint | KernelStep


def _formats(weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> Formats:
    return Formats.of(weight_dtype, "bf16", kv_dtype)


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
    compute_dtype: str               # what the matmuls run in (`Formats.matmul_dtype`)
    weight_bytes_per_token: float    # weights streamed for one token (group metadata included)
    speed_of_light_tokens_per_s: float  # bandwidth ÷ weight bytes a step reads
    point: KernelStep                # the step, named "<format> weights"

    @property
    def step_time_s(self) -> float:
        """The sum of the step's kernels' roofline times."""
        return float(self.point.time_s)

    @property
    def tokens_per_s(self) -> float:
        """Batch 1, one token per step: 1 ÷ the kernels' summed time."""
        return 1.0 / self.step_time_s


@dataclass(frozen=True)
class Quantization:
    """Batch-1 decode of one model on one device at each weight format, widest first."""

    model: Model
    device: Device
    context_len: int
    levels: tuple[QuantLevel, ...]

    def level(self, weight_dtype: str) -> QuantLevel:
        for lv in self.levels:
            if lv.weight_dtype == weight_dtype:
                return lv
        raise InputError(f"no quantization level {weight_dtype!r}; computed: {', '.join(l.weight_dtype for l in self.levels)}")

    @property
    def before(self) -> KernelStep:
        return self.levels[0].point

    @property
    def after(self) -> KernelStep:
        return self.levels[-1].point


def quantization(model: Model, device: Device, weight_dtypes=QUANT_DTYPES, context_len: int = 1) -> Quantization:
    """Batch-1 decode with `context_len` tokens cached and the weights stored in each format of
    `weight_dtypes` (KV cache in bf16).

    Formats as checkpoints store them (`roofline.model.formats`): int4 means int4-g128 with fp16
    scales and zero points, mxfp4 blocks of 32 with one E8M0 scale, and the embedding and output
    head stay bf16. fp8 checkpoints run fp8 × fp8 on the fp8 peak where the device has one; int8,
    int4 and mxfp4 are weight-only (dequantized, multiplied in 16-bit).

    >>> q = quantization(Model.from_param_count(8e9), get_device("h100-sxm5"))
    >>> [round(l.point.arithmetic_intensity) for l in q.levels]  # 2 FLOPs ÷ bytes per weight
    [1, 2, 2, 4]
    """
    ctx = _check_count("context", context_len)
    levels = []
    for w in weight_dtypes:
        fmt = Formats.of(w)
        if fmt.weights.element == "fp8" and "fp8" in device.dense_peak_flop_per_s:
            fmt = Formats.of(w, "fp8")  # an fp8 checkpoint multiplies in fp8 where it can
        step = _k.decode(model, device, 1, ctx, fmt).named(f"{w} weights")
        wbytes = float(step.weight_bytes)
        levels.append(QuantLevel(w, step.matmul_dtype, wbytes, device.memory_bandwidth_bytes_per_s / wbytes, step))
    if not levels:
        raise InputError("quantization needs at least one weight dtype")
    return Quantization(model, device, ctx, tuple(levels))


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
    before: KernelStep           # plain decode: one token per step
    after: KernelStep            # the verify pass: k + 1 tokens over the same weights and cache

    @property
    def draft_time_s(self) -> float:
        return self.draft_cost_fraction * self.draft_tokens * float(self.before.time_s)

    @property
    def step_time_s(self) -> float:
        """Verify pass plus drafting."""
        return float(self.after.time_s) + self.draft_time_s

    @property
    def plain_tokens_per_s(self) -> float:
        return 1.0 / float(self.before.time_s)

    @property
    def tokens_per_s(self) -> float:
        return self.expected_tokens_per_step / self.step_time_s

    @property
    def speedup(self) -> float:
        return self.tokens_per_s / self.plain_tokens_per_s


def speculative(model: Model, device: Device, draft_tokens: int, acceptance: float,
                context_len: int = 1, draft_cost_fraction: float = 0.0, weight_dtype: str = "bf16") -> Speculative:
    """Speculative decoding: one target pass verifies `draft_tokens` drafted tokens of one sequence.

    The verify pass is `kernels.extend`: k + 1 new tokens of one sequence over its cache of
    `context_len` tokens, weights and cache read once, the output head on every new position.
    Its weight matmuls do k + 1 times the FLOPs of plain decode for the same bytes, so while
    they stay memory-bound the pass takes about the time of one plain step. The draft model
    costs `draft_cost_fraction` of a plain decode step per drafted token (0 ignores it).

    >>> s = speculative(Model.from_param_count(8e9), get_device("h100-sxm5"), 4, 0.8)
    >>> round(s.speedup, 4)  # memory-bound verify: same time, 3.3616 tokens instead of one
    3.3616
    """
    k = _check_count("draft tokens", draft_tokens, low=1)
    a = _check_fraction("acceptance rate", acceptance, high_inclusive=True)
    c = _check_fraction("draft cost fraction", draft_cost_fraction, high_inclusive=True)
    ctx = _check_count("context", context_len)
    f = _formats(weight_dtype)
    plain = _k.decode(model, device, 1, ctx, f).named("plain decode")
    verify = _k.extend(model, device, k + 1, ctx, 1, f).named(f"verify {k + 1} tokens")
    return Speculative(k, a, c, expected_accepted_tokens(k, a), plain, verify)


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

    FLOPs are the same either way (`flops_per_element` per op per value), so fusing multiplies
    intensity by n and, while memory-bound, divides time by n. Elementwise ops run on the vector
    units, so the roof above them is the vector peak (fp32 where published), as in the kernel model.

    >>> f = fusion(4, 2**21, get_device("h100-sxm5"))
    >>> f.before.arithmetic_intensity, f.after.arithmetic_intensity  # 1 ÷ (2 × 2 bytes), then × 4
    (0.25, 1.0)
    """
    n = _check_count("number of fused ops", n_ops)
    e = float(_check_count("tensor elements", elements))
    if not (isinstance(flops_per_element, (int, float)) and math.isfinite(flops_per_element) and flops_per_element > 0):
        raise InputError(f"FLOPs per element must be a positive number, got {flops_per_element!r}")
    size = bytes_per_element(dtype)
    flops = n * e * flops_per_element
    peak, vec_dtype = _k.vector_peak(device)
    bw = device.memory_bandwidth_bytes_per_s

    def point(name, passes):
        return RooflinePoint(name, flops=flops, act_read_bytes=passes * e * size, act_written_bytes=passes * e * size,
                             peak_flop_per_s=peak, bandwidth_bytes_per_s=bw, compute_dtype=vec_dtype)

    return Fusion(n, e, point(f"{n} separate kernels", n), point("one fused kernel", 1))


@dataclass(frozen=True)
class AttentionFusion:
    """Attention as three kernels (QKᵀ, softmax, P·V: scores written and re-read) against one fused
    FlashAttention-style kernel (scores never leave the chip), and the steps around them."""

    unfused: KernelStep
    fused: KernelStep

    @property
    def unfused_kernels(self) -> tuple[RooflinePoint, ...]:
        return tuple(k for k in self.unfused.ops if k.name in ("attn_qk", "attn_softmax", "attn_pv"))

    @property
    def fused_kernel(self) -> RooflinePoint:
        return next(k for k in self.fused.ops if k.name == "attention")

    @property
    def unfused_attention_time_s(self) -> float:
        return float(sum(k.time_s for k in self.unfused_kernels))

    @property
    def unfused_attention_bytes(self) -> float:
        return float(sum(k.bytes for k in self.unfused_kernels))

    @property
    def attention_speedup(self) -> float:
        return self.unfused_attention_time_s / float(self.fused_kernel.time_s)

    @property
    def step_speedup(self) -> float:
        return float(self.unfused.time_s) / float(self.fused.time_s)


def attention_fusion(model: Model, device: Device, tokens: int, batch: int = 1, phase: str = "prefill",
                     weight_dtype: str = "bf16") -> AttentionFusion:
    """A prefill of a `tokens`-token prompt (or a decode step with `tokens` cached), attention unfused and fused.

    Unfused, the score matrix (prompt × prompt per head and layer in prefill, one row per
    sequence in decode) is written, read and rewritten by softmax, and read again: in prefill
    those bytes grow with the square of the prompt, so fusing pays most there.

    >>> f = attention_fusion(get_model("llama-3.1-8b"), get_device("h100-sxm5"), 4096)
    >>> f.attention_speedup > 5
    True
    """
    n, b = _check_count("tokens", tokens), _check_count("batch", batch)
    if phase not in ("prefill", "decode"):
        raise InputError(f"phase must be 'prefill' or 'decode', got {phase!r}")
    f = _formats(weight_dtype)
    run = ((lambda att: _k.prefill(model, device, n, b, f, att)) if phase == "prefill"
           else (lambda att: _k.decode(model, device, b, n, f, att)))
    return AttentionFusion(run("unfused").named("unfused attention"), run("fused").named("fused attention"))


# ---------------------------------------------------------------- paged KV cache --------
@dataclass(frozen=True)
class PagedKV:
    """Decode batch that fits when each sequence reserves its maximum length against its actual length."""

    max_len: int
    actual_len: int
    block_tokens: int
    free_bytes: float                 # usable memory minus the resident weights and the runtime reserve
    contiguous_reserved_bytes: float  # per sequence: max_len tokens of KV cache
    paged_reserved_bytes: float       # per sequence: actual_len rounded up to whole blocks
    contiguous_batch: int
    paged_batch: int
    before: KernelStep
    after: KernelStep

    @property
    def contiguous_tokens_per_s(self) -> float:
        return self.contiguous_batch / float(self.before.time_s)

    @property
    def paged_tokens_per_s(self) -> float:
        return self.paged_batch / float(self.after.time_s)

    @property
    def contiguous_waste(self) -> float:
        """Share of the contiguous reservation never written: 1 − actual ÷ max."""
        return 1.0 - self.actual_len / self.max_len


def paged_kv(model: Model, device: Device, max_len: int, actual_len: int, block_tokens: int = PAGED_BLOCK_TOKENS,
             weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> PagedKV:
    """Sequences that fit beside the weights: reserved at `max_len` (contiguous) or in blocks (paged).

    Every sequence holds `actual_len` tokens after the decode step. Contiguous allocation
    reserves `max_len` tokens of KV cache per sequence up front; paged allocation reserves whole
    blocks of `block_tokens` as the sequence grows. The memory is the device's usable bytes less
    the weights as stored and the runtime reserve (`kernels.RUNTIME_RESERVE_BYTES`); activations,
    a few MB at these batches, are left out of the reservation. The batch that fits sets the
    decode step: more sequences share each weight read.

    >>> p = paged_kv(get_model("llama-3.1-8b"), get_device("h100-sxm5"), 32768, 4096)
    >>> p.contiguous_batch < p.paged_batch
    True
    """
    max_len = _check_count("maximum length", max_len)
    actual = _check_count("actual length", actual_len)
    block = _check_count("block size", block_tokens)
    if actual > max_len:
        raise InputError(f"actual length ({actual}) cannot exceed the maximum length ({max_len})")
    if actual < 2:
        raise InputError(f"actual length must be at least 2 (one cached token and the one decoded), got {actual}")
    kv_tok = kv_bytes_per_token(model, kv_dtype)
    if kv_tok == 0:
        raise InputError(f"{model.name} has no KV cache (a bare parameter count); pick a registry model")
    f = _formats(weight_dtype, kv_dtype)
    free = (_k.usable_memory_bytes(device) - _k.weights_resident_bytes(model, f) - _k.RUNTIME_RESERVE_BYTES)
    contiguous = max_len * kv_tok
    paged = math.ceil(actual / block) * block * kv_tok
    b_contig, b_paged = int(free // contiguous), int(free // paged)
    if b_contig < 1:
        raise InputError(f"{model.name} on the {device.name}: not one sequence of {max_len} tokens fits beside the weights")

    def pt(b, label):
        return _k.decode(model, device, b, actual - 1, f).named(label)

    return PagedKV(max_len, actual, block, free, contiguous, paged, b_contig, b_paged,
                   pt(b_contig, f"contiguous, batch {b_contig}"), pt(b_paged, f"paged, batch {b_paged}"))


# ---------------------------------------------------------------- mixture of experts ----
@dataclass(frozen=True)
class MixtureOfExperts:
    """An MoE model's decode at batch 1 and at a larger batch, against a dense model of its active size."""

    model: Model
    batch: int
    context_len: int
    active_bytes_per_token: float    # weights a single token reads (experts_per_token experts)
    total_bytes_per_token: float     # what a step reading every expert would read
    experts_touched: float           # distinct experts per layer read at `batch` (uniform routing)
    before: KernelStep               # batch 1
    after: KernelStep                # batch `batch`
    dense_after: KernelStep          # a dense model with the MoE's active matmul weights, at `batch`


_EXPERT_KERNELS = ("experts_gate_up", "experts_down")


def mixture_of_experts(model: Model, device: Device, batch: int, weight_dtype: str = "bf16",
                       context_len: int = 1) -> MixtureOfExperts:
    """Bytes per token from active, not total, parameters; and the expert reads that grow with batch.

    At batch 1 a token reads only its routed experts. At batch B the step reads every expert
    some token routes to, E·(1 − (1 − k/E)^B) per layer (`kernels.experts_touched`), so the
    expert matmuls' intensity rises more slowly with batch than a dense model's. The dense model
    of the active size is a bare parameter count (weights only, no attention).

    >>> moe = mixture_of_experts(get_model("mixtral-8x7b"), get_device("h100-sxm5"), 4)
    >>> moe.experts_touched  # 8 · (1 − 0.75^4)
    5.46875
    """
    b = _check_count("batch", batch)
    ctx = _check_count("context", context_len)
    if not model.is_moe:
        raise InputError(f"{model.name} is dense (one expert); pick a mixture-of-experts model such as mixtral-8x7b")
    f = _formats(weight_dtype)
    one = _k.decode(model, device, 1, ctx, f).named(f"{model.name}, batch 1")
    # Reading every expert: the routed experts' bytes at batch 1 are k of E, scale them to E.
    routed = sum(float(op.weight_bytes) for op in one.ops if op.name in _EXPERT_KERNELS)
    total = float(one.weight_bytes) + routed * (model.n_experts / model.experts_per_token - 1)
    dense = Model.from_param_count(model.matmul_params())
    return MixtureOfExperts(
        model, b, ctx, float(one.weight_bytes), total, float(_k.experts_touched(model, b)), one,
        _k.decode(model, device, b, ctx, f).named(f"{model.name}, batch {b}"),
        _k.decode(dense, device, b, ctx, f).named(f"dense model of the active size, batch {b}"),
    )


# ---------------------------------------------------------------- tensor parallelism ----
@dataclass(frozen=True)
class TensorParallel:
    """One decode step split over N devices, each holding and reading 1/N of the weights (ideal)."""

    n_devices: int
    memory_required_bytes: float        # weights, KV cache and activations of the whole step
    memory_per_device_bytes: float      # that ÷ N, plus one runtime reserve
    capacity_per_device_bytes: float    # usable memory of one device
    min_devices_to_fit: int
    before: KernelStep                  # the whole step on one device (hypothetical if it does not fit)
    after: KernelStep                   # the same kernels on the group's aggregate roofs
    time_with_collectives_s: float | None = None  # per-device kernels plus all-reduces, where a link is recorded

    @property
    def fits_one_device(self) -> bool:
        return self.memory_required_bytes + _k.RUNTIME_RESERVE_BYTES <= self.capacity_per_device_bytes

    @property
    def fits(self) -> bool:
        return self.memory_per_device_bytes <= self.capacity_per_device_bytes

    @property
    def aggregate_bandwidth_bytes_per_s(self) -> float:
        return self.after.bandwidth_bytes_per_s

    @property
    def speedup(self) -> float:
        return float(self.before.time_s) / float(self.after.time_s)


def group_device(device: Device, n: int) -> Device:
    """N devices as one: every peak, the bandwidth and the memory N-fold (communication ignored)."""
    return replace(device, id=f"{n}x-{device.id}", name=f"{n} × {device.name}",
                   dense_peak_flop_per_s={k: n * v for k, v in device.dense_peak_flop_per_s.items()},
                   memory_bandwidth_bytes_per_s=n * device.memory_bandwidth_bytes_per_s,
                   memory_capacity_bytes=n * device.memory_capacity_bytes,
                   usable_memory_bytes=n * device.usable_memory_bytes if device.usable_memory_bytes else None)


def tensor_parallel(model: Model, device: Device, n_devices: int, batch: int = 1, context_len: int = 1,
                    weight_dtype: str = "bf16") -> TensorParallel:
    """N devices each read 1/N of the weights and KV cache: every kernel's time ÷ N, intensity unchanged.

    Ideal: the group runs the one-device kernels on N-fold roofs, so the all-reduces after
    each layer's attention and MLP are left out; `time_with_collectives_s` adds them
    (`roofline.model.parallel`) where the registry records the device's scale-up link.

    >>> tp = tensor_parallel(get_model("llama-3.1-70b"), get_device("h100-sxm5"), 8)
    >>> tp.fits_one_device, tp.fits, tp.min_devices_to_fit
    (False, True, 2)
    """
    from roofline.model import parallel

    n = _check_count("tensor-parallel degree", n_devices)
    b, ctx = _check_count("batch", batch), _check_count("context", context_len)
    f = _formats(weight_dtype)
    one = _k.decode(model, device, b, ctx, f).named("one device")
    group = _k.decode(model, group_device(device, n), b, ctx, f).named(f"{n} devices")
    need = float(one.weights_resident_bytes + np.asarray(one.kv_resident_bytes) + one.activation_peak_bytes)
    cap = _k.usable_memory_bytes(device)
    try:
        with_links = float(parallel.decode(model, device, b, ctx, f, layout=parallel.Layout(tp=n)).time_s)
    except InputError:
        with_links = None  # no link recorded, or a split no engine runs
    return TensorParallel(n, need, need / n + _k.RUNTIME_RESERVE_BYTES, cap,
                          math.ceil(need / (cap - _k.RUNTIME_RESERVE_BYTES)), one, group, with_links)


# ---------------------------------------------------------------- disaggregation --------
@dataclass(frozen=True)
class Disaggregation:
    """A prefill and a decode batch of one model on one device: their steps and their interference."""

    prompt_len: int
    decode_batch: int
    context_len: int
    prefill: KernelStep
    decode: KernelStep
    kv_transfer_bytes: float   # the prompt's KV cache, shipped from the prefill pool to the decode pool

    @property
    def time_to_first_token_s(self) -> float:
        return float(self.prefill.time_s)

    @property
    def decode_step_s(self) -> float:
        return float(self.decode.time_s)

    @property
    def stalled_decode_step_s(self) -> float:
        """Shared GPU, run back to back: the decode step that waits behind a prefill."""
        return self.decode_step_s + self.time_to_first_token_s

    @property
    def stall_ratio(self) -> float:
        return self.stalled_decode_step_s / self.decode_step_s


def disaggregation(model: Model, device: Device, prompt_len: int, decode_batch: int, context_len: int = 1,
                   weight_dtype: str = "bf16") -> Disaggregation:
    """Prefill's matmuls sit right of the ridge, decode's (at serving batches) left of it; on a
    shared GPU one waits for the other.

    The interference model is the simplest honest one: without chunking, a prefill scheduled
    between two decode steps delays every sequence of the batch by the prefill's whole time.
    Disaggregated, each pool runs one phase; the price is moving the prompt's KV cache between
    pools (its size is given; its time depends on an interconnect the registry does not hold).

    >>> d = disaggregation(Model.from_param_count(8e9), get_device("h100-sxm5"), 512, 64)
    >>> d.prefill.bound, d.decode.bound
    ('compute-bound', 'memory-bound')
    """
    t = _check_count("prompt length", prompt_len)
    b = _check_count("decode batch", decode_batch)
    ctx = _check_count("context", context_len)
    f = _formats(weight_dtype)
    pre = _k.prefill(model, device, t, 1, f).named(f"prefill, {t} tokens")
    dec = _k.decode(model, device, b, ctx, f).named(f"decode, batch {b}")
    return Disaggregation(t, b, ctx, pre, dec, t * kv_bytes_per_token(model))
