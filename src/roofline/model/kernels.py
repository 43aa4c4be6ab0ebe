"""A decode step or a prefill as the kernels a serving engine runs, each one roofline point.

Per layer: attention norm, QKV projection (K and V written straight into the cache),
attention (fused, FlashAttention-style: Q, K, V read once and the scores never leave the
chip; or unfused: scores written by QKᵀ, read and rewritten by softmax, read by P·V),
output projection, residual add, MLP norm, MLP (gate/up, activation, down; for MoE the
router and the experts the batch touches), residual add. Once per step: the embedding
lookup, the final norm and the output head (in prefill over the last position only:
engines compute logits for the token they sample).

Counting conventions (the site's, see docs/conventions.md): a multiply-add is 2 FLOPs;
softmax costs 5 FLOPs per score (max, subtract, exp, sum, divide), RMSNorm 4 per element
(square, sum, scale, weight), an add 1, the gated activation 2 per output (SiLU, multiply);
bytes are operands read once plus results written once. Weight matmuls run at the peak
their formats select (`Formats.matmul_dtype`); elementwise kernels (norms, adds,
softmax, activation) run on the vector units, at the fp32 peak where one is published.

A step's time is the sum of its kernels' roofline times (kernels run one after another).
The whole-step max(Σ compute time, Σ memory time) is `time_perfect_overlap_s`: a lower
bound that assumes every kernel's memory traffic hides under another's compute.

Batch, context and prompt arguments accept numpy arrays (broadcast together), so a sweep
over batch 1…4096 with the per-kernel breakdown is one call.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from functools import wraps

import numpy as np

from roofline.errors import InputError
from roofline.registry.hardware import Device
from roofline.model.formats import Formats, WeightFormat
from roofline.registry.models import Model
from roofline.model.point import RooflinePoint, bound_of, computed_once, scalar  # noqa: F401  (re-exported: kernels.RooflinePoint)
from roofline.model.roofs import COMPUTE_BOUND, MEMORY_BOUND

ATTENTION_VARIANTS = ("fused", "unfused")
MAX_SIZE = 1e9  # batch sizes or lengths above this are certainly typos

SOFTMAX_FLOPS_PER_SCORE = 5.0
NORM_FLOPS_PER_ELEMENT = 4.0
GATED_ACT_FLOPS_PER_ELEMENT = 2.0
NORM_WEIGHT_BYTES = 2.0  # norm weights stay 16-bit in every checkpoint format

#: Memory a serving process holds besides weights, KV cache and activations: the CUDA
#: context and library workspaces (cuBLAS, NCCL, the allocator's slack). An assumption,
#: stated wherever "fits" is: 2 GiB.
RUNTIME_RESERVE_BYTES = 2 * 2**30


def check_size(name: str, value, minimum: int = 1) -> np.ndarray:
    if type(value) is float or (type(value) is int and abs(value) < 2**53):
        # The usual call, one plain number: the same checks without numpy's reductions (28 µs a call).
        if not math.isfinite(value) or value < minimum or value != math.floor(value):
            raise InputError(f"{name} must be a whole number ≥ {minimum}, got {value!r}")
        if value > MAX_SIZE:
            raise InputError(f"{name} must be at most {MAX_SIZE:.0e}, got {value!r}")
        return np.asarray(value, dtype=float)
    arr = np.asarray(value, dtype=float) if not isinstance(value, str) else None
    if arr is None or arr.dtype.kind not in "fi":
        raise InputError(f"{name} must be a number, got {value!r}")
    if not np.all(np.isfinite(arr)) or not np.all(arr >= minimum) or np.any(arr != np.floor(arr)):
        raise InputError(f"{name} must be a whole number ≥ {minimum}, got {value!r}")
    if np.any(arr > MAX_SIZE):
        raise InputError(f"{name} must be at most {MAX_SIZE:.0e}, got {value!r}")
    return arr


@dataclass(frozen=True)
class KernelStep:
    """A decode step or a prefill: its kernels, and their sums.

    >>> s = decode(get_model("llama-3.1-8b"), get_device("h100-sxm5"), batch=1, context_len=1)
    >>> [k.name for k in s.ops][:3]
    ['embedding', 'attn_norm', 'qkv_proj']
    """

    phase: str
    model: Model
    device: Device
    formats: Formats
    attention: str
    batch: object
    tokens_per_sequence: object
    context_len: object
    ops: tuple[RooflinePoint, ...]
    kv_resident_bytes: object
    weights_resident_bytes: float
    runtime_reserve_bytes: float = RUNTIME_RESERVE_BYTES
    matmul_dtype: str = field(default="bf16")
    #: A label for charts and tables ("plain decode", "verify 5 tokens"); `named` sets it.
    name: str = ""

    def named(self, name: str) -> "KernelStep":
        """The same step under a label (the playbook's figures plot steps by name)."""
        return replace(self, name=name)

    def _sum(self, attr: str):
        return scalar(sum(np.asarray(getattr(k, attr), float) for k in self.ops))

    @computed_once
    def flops(self):
        return self._sum("flops")

    @computed_once
    def bytes(self):
        return self._sum("bytes")

    @computed_once
    def weight_bytes(self):
        return self._sum("weight_bytes")

    @computed_once
    def kv_bytes(self):
        return scalar(np.asarray(self._sum("kv_read_bytes")) + self._sum("kv_written_bytes"))

    @computed_once
    def kv_read_bytes(self):
        """KV-cache bytes attention reads: K and V of every attended position, per sequence and layer."""
        return self._sum("kv_read_bytes")

    @computed_once
    def activation_bytes(self):
        return scalar(np.asarray(self._sum("act_read_bytes")) + self._sum("act_written_bytes"))

    @computed_once
    def time_s(self):
        """The step's time: the sum of its kernels' roofline times."""
        return self._sum("time_s")

    @computed_once
    def compute_time_s(self):
        return self._sum("compute_time_s")

    @computed_once
    def memory_time_s(self):
        return self._sum("memory_time_s")

    @computed_once
    def time_perfect_overlap_s(self):
        """Perfect overlap: max(Σ compute time, Σ memory time), a lower bound on `time_s`."""
        return scalar(np.maximum(self.compute_time_s, self.memory_time_s))

    @computed_once
    def arithmetic_intensity(self):
        """The whole step's FLOPs per byte (what a perfect-overlap view compares with the ridge)."""
        return scalar(np.asarray(self.flops, float) / np.asarray(self.bytes, float))

    @computed_once
    def ridge_point(self) -> float:
        """The weight matmuls' ridge point on this device at their formats' peak."""
        return self.device.peak_flop_per_s(self.matmul_dtype) / self.device.memory_bandwidth_bytes_per_s

    @computed_once
    def peak_flop_per_s(self) -> float:
        """The weight matmuls' peak (the one the step's ridge is quoted at)."""
        return self.device.peak_flop_per_s(self.matmul_dtype)

    @computed_once
    def bandwidth_bytes_per_s(self) -> float:
        return self.device.memory_bandwidth_bytes_per_s

    @computed_once
    def compute_dtype(self) -> str:
        return self.matmul_dtype

    @computed_once
    def attained_flop_per_s(self):
        """FLOPs ÷ the step's time (the sum of its kernels' times)."""
        return scalar(np.asarray(self.flops, float) / np.asarray(self.time_s, float))

    @computed_once
    def compute_bound_time_s(self):
        """Time spent in kernels at or past their ridge point."""
        return scalar(sum(np.where(np.asarray(k.arithmetic_intensity) >= k.ridge_point, k.time_s, 0.0)
                           for k in self.ops))

    @computed_once
    def bound(self):
        """'compute-bound' where compute-bound kernels take most of the step's time."""
        cb = np.asarray(self.compute_bound_time_s)
        return bound_of(cb * 2 >= np.asarray(self.time_s))

    @computed_once
    def tokens_per_s(self):
        """Tokens per second over the whole batch (decode: one per sequence per step)."""
        return scalar(np.asarray(self.batch) * self.tokens_per_sequence / self.time_s)

    @computed_once
    def tokens_per_s_per_sequence(self):
        return scalar(np.asarray(self.tokens_per_sequence) / self.time_s)

    @computed_once
    def activation_peak_bytes(self):
        """Activation memory held at once: the residual stream plus the largest kernel's inputs and outputs."""
        per_kernel = [(np.asarray(k.act_read_bytes, float) + k.act_written_bytes) / k.count for k in self.ops]
        residual = np.asarray(self.batch) * self.tokens_per_sequence * self.model.hidden_size * self.formats.activation_bytes
        return scalar(np.maximum.reduce(np.broadcast_arrays(*per_kernel)) + residual)

    @computed_once
    def memory_required_bytes(self):
        """Weights + KV cache + activations + the runtime reserve (`RUNTIME_RESERVE_BYTES`)."""
        return scalar(self.weights_resident_bytes + np.asarray(self.kv_resident_bytes)
                       + self.activation_peak_bytes + self.runtime_reserve_bytes)

    @computed_once
    def fits(self):
        return scalar(np.asarray(self.memory_required_bytes) <= usable_memory_bytes(self.device))


def usable_memory_bytes(device: Device) -> float:
    """Bytes a program can allocate on the device: the runtime's figure where sourced, else the vendor's."""
    return device.usable_memory_bytes_or_vendor


# ----------------------------------------------------------------------------- shapes ------
@dataclass(frozen=True)
class _Shapes:
    d: int
    q: int        # query width: heads · head_dim
    kv: int       # K (or V) width: KV heads · head_dim
    heads: int
    head_dim: int
    ffn: int
    ffn_mats_in: int  # 2 for a gated MLP (gate and up), else 1
    vocab: int
    layers: int
    experts: int
    experts_per_token: int


def _shapes(model: Model) -> _Shapes:
    """The widths a layer's kernels read from the model (one place to extend for new architectures)."""
    return _Shapes(d=model.hidden_size, q=model.n_heads * model.head_dim, kv=model.kv_heads * model.head_dim,
                   heads=model.n_heads, head_dim=model.head_dim, ffn=model.ffn_size,
                   ffn_mats_in=2 if model.gated_ffn else 1, vocab=model.vocab_size, layers=model.n_layers,
                   experts=model.n_experts, experts_per_token=model.experts_per_token)


def experts_touched(model: Model, tokens) -> np.ndarray:
    """Expected distinct experts per layer that `tokens` routed tokens hit (uniform routing): E·(1 − (1 − k/E)^tokens)."""
    e, k = model.n_experts, model.experts_per_token
    if e == 1:
        return np.ones_like(np.asarray(tokens, float))
    return e * (1.0 - (1.0 - k / e) ** np.asarray(tokens, float))


def window_layers(model: Model) -> tuple[int, int, int]:
    """(layers attending to everything, windowed layers, window): `sliding_window` and
    `n_window_layers` where the model has them (as a sliding-window checkpoint's config.json names them), else every layer full."""
    window = int(getattr(model, "sliding_window", 0) or 0)
    n_win = int(getattr(model, "n_window_layers", 0) or 0) if window else 0
    return model.n_layers - n_win, n_win, window


def layer_positions(model: Model, positions) -> np.ndarray:
    """Σ over layers of the cached positions one token attends to (a windowed layer caps them).

    >>> float(layer_positions(get_model("llama-3.1-8b"), 1024))  # 32 layers · 1024
    32768.0
    """
    full, n_win, window = window_layers(model)
    pos = np.asarray(positions, float)
    return full * pos + (n_win * np.minimum(pos, window) if n_win else 0.0)


def causal_layer_pairs(model: Model, n) -> np.ndarray:
    """Σ over layers of the query-key pairs of a causal prefill of n tokens: Σ_{i=1..n} min(i, window)."""
    full, n_win, window = window_layers(model)
    n = np.asarray(n, float)
    out = full * n * (n + 1) / 2
    if n_win:
        w = float(window)
        out = out + n_win * np.where(n <= w, n * (n + 1) / 2, w * (w + 1) / 2 + (n - w) * w)
    return out


def attention_dims(model: Model, expanded: bool = False) -> tuple[int, int, int, int]:
    """(QKᵀ width, P·V width, query width read, output width written) per head-score, per token.

    Ordinary attention: head_dim for both. MLA runs in the form engines use for each phase.
    Decode (and short appends) absorbed, as FlashMLA does: scores over the cached latent plus
    rotary key (kv_lora_rank + qk_rope_head_dim), the weighted sum over the latent (kv_lora_rank),
    so K and V are one cached vector read once. Prefill expanded (`expanded`), as vLLM's MLA
    backend does (vllm/v1/attention/backends/mla/common.py, its compute-friendly path):
    kv_b_proj turns each prompt token's latent into per-head K and V (the qkv_proj kernel counts
    that projection, 2·tokens·kv_b weights FLOPs, in both forms), then attention scores over qk_nope + qk_rope and sums over v_head_dim, 3.4× fewer FLOPs per
    score for DeepSeek's shapes (320 against 1,088 multiply-adds per head).
    """
    if model.is_mla and expanded:
        qk, pv = model.qk_nope_head_dim + model.qk_rope_head_dim, model.v_head_dim
        return qk, pv, model.n_heads * qk, model.n_heads * pv
    if model.is_mla:
        qk, pv = model.kv_lora_rank + model.qk_rope_head_dim, model.kv_lora_rank
        return qk, pv, model.n_heads * qk, model.n_heads * pv
    q = model.n_heads * model.head_dim
    return model.head_dim, model.head_dim, q, q


def vector_peak(device: Device) -> tuple[float, str]:
    """Elementwise kernels run on the vector units: the fp32 peak where published, else the 16-bit one."""
    if "fp32" in device.dense_peak_flop_per_s:
        return device.dense_peak_flop_per_s["fp32"], "fp32"
    return device.peak_flop_per_s(device.sixteen_bit_dtype), device.sixteen_bit_dtype


def _attention_dtype(formats: Formats) -> str:
    """QKᵀ and P·V compute in the KV format where activations share it (fp8 × fp8), else 16-bit."""
    if formats.kv == formats.activation:
        return formats.activation
    return formats.activation if formats.activation in ("bf16", "fp16", "fp32") else "bf16"


# ----------------------------------------------------------------------------- kernels -----
def _kernels(model: Model, device: Device, formats: Formats, attention: str, batch, new_tokens,
             attended_layers, pairs_layers, head_tokens, mla_expanded: bool = False) -> tuple[RooflinePoint, ...]:
    """Every kernel of one step. Per sequence, summed over layers: `attended_layers`, the cached
    positions whose K and V are read (decode: context + 1 per layer; prefill: the prompt);
    `pairs_layers`, the query-key pairs scored. `head_tokens`: positions the output head runs on.
    `mla_expanded`: MLA attends over K and V expanded from the latent (prefill), not absorbed."""
    bw = device.memory_bandwidth_bytes_per_s
    a, kvb = formats.activation_bytes, formats.kv_bytes
    T = batch * new_tokens
    B = batch
    vec_peak, vec_dtype = vector_peak(device)
    mm_dtype = formats.matmul_dtype()
    mm_peak = device.peak_flop_per_s(mm_dtype)
    head_fmt = formats.head_format
    head_dtype = formats.matmul_dtype(head_fmt)

    def point(name, count=1, vector=False, peak=None, dtype=None, **amounts):
        if vector:
            peak, dtype = vec_peak, vec_dtype
        return RooflinePoint(name, peak_flop_per_s=peak or mm_peak, bandwidth_bytes_per_s=bw,
                             compute_dtype=dtype or mm_dtype, count=count,
                             **{k: scalar(v) for k, v in amounts.items()})

    if model.is_bare:  # a bare parameter count: one dense weight matrix, weights only
        p = model.bare_params
        return (point("weights", flops=2.0 * p * T, weight_bytes=p * formats.weights.bare_bytes_per_weight() + 0 * T),)

    s = _shapes(model)
    L = s.layers

    def weights(params, in_features, group):
        return params * formats.weights_for(group).bytes_per_weight(in_features)

    def mm(group):
        """(peak, dtype) a group's matmuls run at: its own format's (gpt-oss's bf16 attention beside fp4 experts)."""
        dt = formats.matmul_dtype(formats.weights_for(group))
        return {"peak": device.peak_flop_per_s(dt), "dtype": dt}

    def norm(name, count):
        return point(name, count, vector=True, flops=count * NORM_FLOPS_PER_ELEMENT * T * s.d,
                     weight_bytes=count * s.d * NORM_WEIGHT_BYTES + 0 * T,
                     act_read_bytes=count * T * s.d * a, act_written_bytes=count * T * s.d * a)

    def add(name):
        return point(name, L, vector=True, flops=L * T * s.d, act_read_bytes=L * 2 * T * s.d * a,
                     act_written_bytes=L * T * s.d * a)

    ops = [point("embedding", vector=True, flops=0 * T, weight_bytes=T * s.d * head_fmt.bytes_per_weight(s.d),
                 act_written_bytes=T * s.d * a),
           norm("attn_norm", L)]
    kv_per_layer = model.kv_elements_per_token_per_layer  # K and V, or MLA's latent + rotary key
    if model.is_mla:
        # MLA's projections as stored (q_a, q_b, kv_a, kv_b): an engine that absorbs kv_b into the
        # query and output side at decode reads the same weights and does the same 2·T·params FLOPs.
        proj = [x for x in model.attention_matmul_shapes() if x[0] != "o_proj"]
        ops.append(point("qkv_proj", L, **mm("attention"), flops=L * 2.0 * T * sum(i * o for _, i, o in proj),
                         weight_bytes=L * sum(weights(i * o, i, "attention") for _, i, o in proj) + 0 * T,
                         act_read_bytes=L * T * sum(i for _, i, _ in proj) * a,
                         act_written_bytes=L * T * sum(o for _, _, o in proj) * a,
                         kv_written_bytes=L * T * kv_per_layer * kvb))
    else:
        qkv_out = s.q + 2 * s.kv
        ops.append(point("qkv_proj", L, **mm("attention"), flops=L * 2.0 * T * s.d * qkv_out,
                         weight_bytes=L * weights(s.d * qkv_out, s.d, "attention") + 0 * T,
                         act_read_bytes=L * T * s.d * a, act_written_bytes=L * T * s.q * a,
                         kv_written_bytes=L * T * 2 * s.kv * kvb))

    attn_dtype = _attention_dtype(formats)
    attn_peak = device.peak_flop_per_s(attn_dtype)
    scores = B * pairs_layers * s.heads            # scores in all layers
    expanded = bool(mla_expanded and model.is_mla)
    qk_dim, pv_dim, q_in, q_out = attention_dims(model, expanded)
    kv_read_qk = B * attended_layers * (kv_per_layer if model.is_mla else s.kv) * kvb  # K (MLA: the latent)
    kv_read_pv = 0 * kv_read_qk if model.is_mla else B * attended_layers * s.kv * kvb  # V (MLA: the same latent)
    # Expanded MLA reads the per-head K and V kv_b_proj wrote (activations), not the cached latent.
    kv_k = kv_read_qk if not expanded else 0 * kv_read_qk
    kv_v = (kv_read_pv if not model.is_mla else kv_read_qk) if not expanded else 0 * kv_read_qk
    per_pos_k = s.heads * model.qk_nope_head_dim + model.qk_rope_head_dim
    exp_k = B * attended_layers * per_pos_k * a if expanded else 0 * kv_read_qk
    exp_v = B * attended_layers * s.heads * model.v_head_dim * a if expanded else 0 * kv_read_qk
    if attention == "fused":
        ops.append(point("attention", L, peak=attn_peak, dtype=attn_dtype,
                         flops=2.0 * (qk_dim + pv_dim) * scores + SOFTMAX_FLOPS_PER_SCORE * scores,
                         act_read_bytes=L * T * q_in * a + exp_k + exp_v, act_written_bytes=L * T * q_out * a,
                         kv_read_bytes=kv_k + (0 * kv_read_pv if expanded else kv_read_pv)))
    else:
        ops += [point("attn_qk", L, peak=attn_peak, dtype=attn_dtype, flops=2.0 * qk_dim * scores,
                      act_read_bytes=L * T * q_in * a + exp_k, act_written_bytes=scores * a,
                      kv_read_bytes=kv_k),
                point("attn_softmax", L, vector=True, flops=SOFTMAX_FLOPS_PER_SCORE * scores,
                      act_read_bytes=scores * a, act_written_bytes=scores * a),
                point("attn_pv", L, peak=attn_peak, dtype=attn_dtype, flops=2.0 * pv_dim * scores,
                      act_read_bytes=scores * a + exp_v, act_written_bytes=L * T * q_out * a,
                      kv_read_bytes=kv_v)]
    _, o_in, o_out = model.attention_matmul_shapes()[-1]
    ops += [point("o_proj", L, **mm("attention"), flops=L * 2.0 * T * o_in * o_out,
                  weight_bytes=L * weights(o_in * o_out, o_in, "attention") + 0 * T,
                  act_read_bytes=L * T * o_in * a, act_written_bytes=L * T * s.d * a),
            add("attn_add"), norm("mlp_norm", L)]

    m_in = s.ffn_mats_in
    # MoE models may keep a dense MLP in some layers (DeepSeek-V3's first three, Llama 4's
    # interleaved ones) and an always-on shared expert beside the routed ones.
    Lm = model.n_moe_layers if model.is_moe else 0
    Ld = L - Lm
    if Ld:
        f = s.ffn
        ops += [point("gate_up_proj" if m_in == 2 else "up_proj", Ld, **mm("mlp"), flops=Ld * 2.0 * T * s.d * m_in * f,
                      weight_bytes=Ld * weights(s.d * m_in * f, s.d, "mlp") + 0 * T,
                      act_read_bytes=Ld * T * s.d * a, act_written_bytes=Ld * T * m_in * f * a),
                point("dense_act" if Lm else "mlp_act", Ld, vector=True, flops=Ld * GATED_ACT_FLOPS_PER_ELEMENT * T * f,
                      act_read_bytes=Ld * T * m_in * f * a, act_written_bytes=Ld * T * f * a),
                point("down_proj", Ld, **mm("mlp"), flops=Ld * 2.0 * T * f * s.d,
                      weight_bytes=Ld * weights(f * s.d, f, "mlp") + 0 * T,
                      act_read_bytes=Ld * T * f * a, act_written_bytes=Ld * T * s.d * a)]
    if Lm:
        f = model.expert_ffn_size
        touched = experts_touched(model, T)
        k = s.experts_per_token
        ops += [point("router", Lm, dtype=head_dtype, peak=device.peak_flop_per_s(head_dtype),
                      flops=Lm * 2.0 * T * s.d * s.experts,
                      weight_bytes=Lm * s.d * s.experts * head_fmt.bytes_per_weight(s.d) + 0 * T,
                      act_read_bytes=Lm * T * s.d * a, act_written_bytes=Lm * T * s.experts * a),
                point("experts_gate_up", Lm, **mm("experts"), flops=Lm * 2.0 * T * k * s.d * m_in * f,
                      weight_bytes=Lm * touched * weights(s.d * m_in * f, s.d, "experts"),
                      act_read_bytes=Lm * T * k * s.d * a, act_written_bytes=Lm * T * k * m_in * f * a),
                point("mlp_act", Lm, vector=True, flops=Lm * GATED_ACT_FLOPS_PER_ELEMENT * T * k * f,
                      act_read_bytes=Lm * T * k * m_in * f * a, act_written_bytes=Lm * T * k * f * a),
                point("experts_down", Lm, **mm("experts"), flops=Lm * 2.0 * T * k * f * s.d,
                      weight_bytes=Lm * touched * weights(f * s.d, f, "experts"),
                      act_read_bytes=Lm * T * k * f * a, act_written_bytes=Lm * T * k * s.d * a)]
        if model.n_shared_experts:
            fs = model.n_shared_experts * f  # the shared experts run as one MLP that wide
            ops += [point("shared_gate_up", Lm, **mm("shared"), flops=Lm * 2.0 * T * s.d * m_in * fs,
                          weight_bytes=Lm * weights(s.d * m_in * fs, s.d, "shared") + 0 * T,
                          act_read_bytes=Lm * T * s.d * a, act_written_bytes=Lm * T * m_in * fs * a),
                    point("shared_act", Lm, vector=True, flops=Lm * GATED_ACT_FLOPS_PER_ELEMENT * T * fs,
                          act_read_bytes=Lm * T * m_in * fs * a, act_written_bytes=Lm * T * fs * a),
                    point("shared_down", Lm, **mm("shared"), flops=Lm * 2.0 * T * fs * s.d,
                          weight_bytes=Lm * weights(fs * s.d, fs, "shared") + 0 * T,
                          act_read_bytes=Lm * T * fs * a, act_written_bytes=Lm * T * s.d * a)]
    ops += [add("mlp_add"), norm("final_norm", 1)]
    H = B * head_tokens
    ops.append(point("lm_head", dtype=head_dtype, peak=device.peak_flop_per_s(head_dtype),
                     flops=2.0 * H * s.d * s.vocab,
                     weight_bytes=s.vocab * s.d * head_fmt.bytes_per_weight(s.d) + 0 * H,
                     act_read_bytes=H * s.d * a, act_written_bytes=H * s.vocab * a))
    return tuple(ops)


def weights_resident_bytes(model: Model, formats: Formats) -> float:
    """Bytes every weight of the checkpoint occupies in its format (all experts, group metadata included).

    >>> round(weights_resident_bytes(get_model("llama-3.1-70b"), Formats.of("bf16")) / 1e9, 1)
    141.1
    """
    if model.is_bare:
        return model.bare_params * formats.weights.bare_bytes_per_weight()
    s = _shapes(model)
    hf = formats.head_format

    def mlp(f, group):
        wf = formats.weights_for(group)
        return wf.bytes_per_weight(s.d) * s.d * s.ffn_mats_in * f + wf.bytes_per_weight(f) * f * s.d

    aw = formats.weights_for("attention")
    attn = sum(aw.bytes_per_weight(i) * i * o for _, i, o in model.attention_matmul_shapes())
    Lm = model.n_moe_layers if model.is_moe else 0
    f = model.expert_ffn_size
    moe = (s.experts * mlp(f, "experts") + model.n_shared_experts * mlp(f, "shared")
           + s.d * s.experts * hf.bytes_per_weight(s.d) if Lm else 0.0)
    table = s.vocab * s.d * hf.bytes_per_weight(s.d)
    return float(s.layers * (attn + 2 * s.d * NORM_WEIGHT_BYTES) + (s.layers - Lm) * mlp(s.ffn, "mlp") + Lm * moe
                 + table * (1 if model.tied_embeddings else 2) + s.d * NORM_WEIGHT_BYTES)


def _kv_elements_per_token_per_layer(model: Model) -> float:
    return model.kv_elements_per_token() / model.n_layers if model.n_layers else 0.0


def _check(formats: Formats | None, attention: str, device: Device) -> Formats:
    if attention not in ATTENTION_VARIANTS:
        raise InputError(f"unknown attention variant {attention!r}: expected one of {', '.join(ATTENTION_VARIANTS)}")
    formats = formats or Formats.of()
    for dtype in {formats.matmul_dtype(), _attention_dtype(formats)}:
        if dtype not in device.dense_peak_flop_per_s and dtype not in ("bf16", "fp16"):
            raise InputError(f"activation dtype {formats.activation!r} with weight format {formats.weights.name!r} "
                             f"computes in {dtype}, but the {device.name} has no published {dtype} peak "
                             f"(it has {', '.join(device.dense_peak_flop_per_s)}); choose activations it has a peak for "
                             f"(weight-only {formats.weights.name} runs at the bf16 peak)")
    return formats


_STEPS: OrderedDict = OrderedDict()  # call -> (objects it names by id, step), most recently used last
STEPS_KEPT = 4096


def remembered(step_fn):
    """`step_fn` (a decode or prefill step, of one device or of a layout), answered from the calls made
    before with the same arguments.

    Rendering every page's numbers asks for about 5,400 decode steps, of which about 700 differ:
    the pages and figures ask again for the steps they share, and a serving frontier asks for the
    same prompt's prefill once per limit it relaxes. A step is frozen (its derived figures are kept
    read-only by computed_once), so one object can answer every caller. The model and device are
    keyed by identity and held (`recall`); an argument that cannot be hashed (a sweep's array) is
    computed as always. A call that raises keeps nothing.
    """
    @wraps(step_fn)
    def step(model, device, *args, **kwargs):
        call = (step_fn.__module__, step_fn.__name__, id(model), id(device), *((type(a), a) for a in args),
                *sorted((k, type(v), v) for k, v in kwargs.items()))
        return recall(call, (model, device), lambda: step_fn(model, device, *args, **kwargs))

    return step


def recall(call: tuple, held: tuple, compute):
    """`compute()`, or what it returned for `call` before while the objects `held` (those `call` names by
    id) are still the ones it was made from: they are kept with it, so an id is never reused while kept
    (a device's dict fields make it unhashable). A `call` that cannot be hashed is computed as always."""
    try:
        kept = _STEPS.get(call)
    except TypeError:  # an array or another unhashable argument
        return compute()
    if kept is not None and all(a is b for a, b in zip(kept[0], held)):
        _STEPS.move_to_end(call)
        return kept[1]
    made = compute()
    _STEPS[call] = (held, made)
    if len(_STEPS) > STEPS_KEPT:
        _STEPS.popitem(last=False)
    return made


def forget_steps() -> None:
    """Drop every remembered step (the tests do, before each test: one may patch a constant the steps read)."""
    _STEPS.clear()


@remembered
def decode(model: Model, device: Device, batch=1, context_len=1, formats: Formats | None = None,
           attention: str = "fused") -> KernelStep:
    """One decode step: each of `batch` sequences with `context_len` tokens cached emits one token.

    The new token attends to the cached tokens and itself (context_len + 1 positions).

    >>> s = decode(get_model("llama-3.1-8b"), get_device("h100-sxm5"), batch=1, context_len=1024)
    >>> s.time_s >= s.time_perfect_overlap_s
    True
    """
    formats = _check(formats, attention, device)
    b = check_size("batch", batch)
    try:
        ctx = check_size("context", context_len, minimum=1)
    except InputError:
        raise InputError(f"context must be a whole number ≥ 1 (a decode step attends to at least one cached "
                         f"token; use prefill for an empty cache), got {context_len!r}") from None
    b, ctx = np.broadcast_arrays(b, ctx)
    attended = layer_positions(model, ctx + 1) if not model.is_bare else 0 * b
    ops = _kernels(model, device, formats, attention, b, np.ones_like(b), attended, attended, np.ones_like(b))
    kv_resident = b * attended * _kv_elements_per_token_per_layer(model) * formats.kv_bytes
    return KernelStep("decode", model, device, formats, attention, scalar(b), scalar(np.ones_like(b)),
                      scalar(ctx), ops, scalar(kv_resident), weights_resident_bytes(model, formats),
                      matmul_dtype=formats.matmul_dtype())


@remembered
def cached_prompt_tokens(prompt_len, cache_hit_rate) -> np.ndarray:
    """Prompt tokens a prefix cache serves: ⌊hit rate × prompt⌋, at most prompt − 1 (the last token is always
    computed: its logits give the first output token, as vLLM and SGLang recompute it on a full hit).

    >>> int(cached_prompt_tokens(2000, 0.5)), int(cached_prompt_tokens(2000, 1.0))
    (1000, 1999)
    """
    h = np.asarray(cache_hit_rate, float)
    if h.ndim or not (np.isfinite(h) and 0 <= h <= 1) or isinstance(cache_hit_rate, bool):
        raise InputError(f"cache hit rate must be a number from 0 to 1 (the share of prompt tokens a prefix "
                         f"cache holds), got {cache_hit_rate!r}")
    n = np.asarray(prompt_len, float)
    return np.minimum(np.floor(h * n), n - 1)


def prefill(model: Model, device: Device, prompt_len, batch=1, formats: Formats | None = None,
            attention: str = "fused", cache_hit_rate=0.0) -> KernelStep:
    """Process `prompt_len` prompt tokens for each of `batch` sequences: the time to first token.

    Fused attention computes the causal half (token i attends to i positions); unfused
    attention writes the full prompt × prompt score matrix and masks it, as eager code does.
    The output head runs on the last position only.

    With a prefix-cache `cache_hit_rate` h, the first `cached_prompt_tokens` positions are not
    recomputed: their weight matmuls and their own attention pairs are gone, and what a hit costs is
    reading their cached K and V as the new tokens attend to them (the attended positions still
    count the whole prompt). At h = 0 this is the plain prefill exactly.
    """
    formats = _check(formats, attention, device)
    b = check_size("batch", batch)
    n = check_size("prompt length", prompt_len)
    b, n = np.broadcast_arrays(b, n)
    cached = cached_prompt_tokens(n, cache_hit_rate)
    if model.is_bare:
        attended = pairs = 0 * n
    elif not np.any(cached):
        attended = layer_positions(model, n)
        # fused: the causal half; unfused (eager): the full prompt × prompt matrix, masked
        pairs = causal_layer_pairs(model, n) if attention == "fused" else n * attended
    else:
        attended = layer_positions(model, n)
        new = n - cached
        pairs = (causal_layer_pairs(model, n) - causal_layer_pairs(model, cached) if attention == "fused"
                 else new * attended)
        n = new
    ops = _kernels(model, device, formats, attention, b, n, attended, pairs, np.ones_like(b), mla_expanded=True)
    kv_resident = b * attended * _kv_elements_per_token_per_layer(model) * formats.kv_bytes
    return KernelStep("prefill", model, device, formats, attention, scalar(b), scalar(n), scalar(np.zeros_like(n)),
                      ops, scalar(kv_resident), weights_resident_bytes(model, formats),
                      matmul_dtype=formats.matmul_dtype())


def extend(model: Model, device: Device, new_tokens, context_len, batch=1, formats: Formats | None = None,
           attention: str = "fused") -> KernelStep:
    """Append `new_tokens` tokens to each of `batch` sequences with `context_len` tokens cached, in one pass.

    A speculative verify pass (k drafted tokens + 1) or a chunk of a chunked prefill: the weights
    are read once for all the new tokens, each sequence's cache once, and the output head runs on
    every new position (a verify pass needs each one's logits). Fused attention scores the causal
    pairs, token i of the chunk against context + i positions; unfused writes the full chunk ×
    (context + chunk) matrix. `extend(m, d, n, 0)` is a prefill with logits at every position.

    >>> v = extend(get_model("llama-3.1-8b"), get_device("h100-sxm5"), 5, 4096)
    >>> v.tokens_per_sequence, v.context_len
    (5.0, 4096.0)
    """
    formats = _check(formats, attention, device)
    b = check_size("batch", batch)
    n = check_size("new tokens", new_tokens)
    ctx = check_size("context", context_len, minimum=0)
    b, n, ctx = np.broadcast_arrays(b, n, ctx)
    if model.is_bare:
        attended = pairs = 0 * n
    else:
        attended = layer_positions(model, ctx + n)
        pairs = (causal_layer_pairs(model, ctx + n) - causal_layer_pairs(model, ctx) if attention == "fused"
                 else n * attended)
    ops = _kernels(model, device, formats, attention, b, n, attended, pairs, n)
    kv_resident = b * attended * _kv_elements_per_token_per_layer(model) * formats.kv_bytes
    return KernelStep("extend", model, device, formats, attention, scalar(b), scalar(n), scalar(ctx),
                      ops, scalar(kv_resident), weights_resident_bytes(model, formats),
                      matmul_dtype=formats.matmul_dtype())


@dataclass(frozen=True)
class MixedWork:
    """One engine step of continuous batching with chunked prefill, as totals over its requests.

    The decode tokens of the requests in flight and a chunk of prefill tokens run through the
    model together: the weight matmuls see every token, attention each request's own positions.
    Totals may be fractional (a steady-state average step); positions and pairs are summed over
    layers, as `layer_positions` and the causal pair count give them.

    >>> w = MixedWork(decode_tokens=2, decode_positions=64, prefill_tokens=8, prefill_positions=256,
    ...               prefill_pairs=1152, head_tokens=3, requests=3, kv_positions=768)
    >>> w.tokens, float(w.scaled(0.5).tokens)
    (10, 5.0)
    """

    decode_tokens: object      # one per decoding request
    decode_positions: object   # Σ over decode tokens of the layer-summed positions each attends to
    prefill_tokens: object     # prompt tokens in this step's chunk
    prefill_positions: object  # Σ over the chunk's requests of the layer-summed positions whose K and V it reads
    prefill_pairs: object      # Σ layer-summed query-key pairs the chunk scores
    head_tokens: object        # positions whose logits are computed: decode tokens + prefills that finish
    requests: object           # requests holding a KV cache
    kv_positions: object       # layer-summed positions those requests keep cached

    @property
    def tokens(self):
        return self.decode_tokens + self.prefill_tokens

    def scaled(self, share) -> "MixedWork":
        """The same step's work on a share of its requests (a pipeline micro-batch, a device's share under EP)."""
        return MixedWork(*(np.asarray(getattr(self, f.name), float) * share
                           for f in self.__dataclass_fields__.values()))


def mixed(model: Model, device: Device, work: MixedWork, formats: Formats | None = None,
          attention: str = "fused") -> KernelStep:
    """One engine step running `work`'s decode tokens and prefill chunk together, kernel by kernel.

    The same kernels as `decode` and `extend`, fed the step's totals: a batch of one "sequence"
    holding every token, so the weight matmuls read their weights once for decode and prefill
    tokens together, and attention reads each request's cached positions (the totals in `work`).
    Attention is one kernel over the mixed batch, as a varlen FlashAttention or vLLM's unified
    attention kernel runs it.
    """
    formats = _check(formats, attention, device)
    if model.is_bare:
        raise InputError("a bare parameter count has no attention or KV cache to serve requests with; "
                         "give a registry model or a config.json")
    one = np.ones_like(np.asarray(work.tokens, float))
    attended = np.asarray(work.decode_positions, float) + work.prefill_positions
    pairs = np.asarray(work.decode_positions, float) + work.prefill_pairs
    ops = _kernels(model, device, formats, attention, one, np.asarray(work.tokens, float), attended, pairs,
                   np.asarray(work.head_tokens, float))
    kv_resident = np.asarray(work.kv_positions, float) * _kv_elements_per_token_per_layer(model) * formats.kv_bytes
    return KernelStep("mixed", model, device, formats, attention, scalar(one), scalar(work.tokens),
                      scalar(np.zeros_like(one)), ops, scalar(kv_resident), weights_resident_bytes(model, formats),
                      matmul_dtype=formats.matmul_dtype())


#: Unit roofs for byte counts that no device's roofs enter (every peak a byte count could select).
_UNIT_ROOFS = Device(id="unit-roofs", name="unit roofs", vendor="", kind="", memory_type="", memory_capacity_bytes=1.0,
                     memory_bandwidth_bytes_per_s=1.0,
                     dense_peak_flop_per_s={d: 1.0 for d in ("fp32", "bf16", "fp16", "fp8", "int8", "fp4")},
                     source_url="", source_title="", note="", confidence="", checked=None)


def weight_bytes_per_token(model: Model, formats: Formats | str | None = None) -> float:
    """Weight bytes a batch-1 decode step reads: every matmul weight in its format (the routed
    experts only), the 16-bit head, the norm vectors and one embedding row. The speed of light
    divides a bandwidth by it; no device enters it.

    >>> weight_bytes_per_token(Model.from_param_count(8e9))  # 8e9 weights · 2 bytes
    16000000000.0
    """
    f = Formats.of(formats) if isinstance(formats, str) else (formats or Formats.of())
    return float(decode(model, _UNIT_ROOFS, 1, 1, f).weight_bytes)


# ------------------------------------------------------------------- derived quantities -----
WEIGHT_MATMULS = ("qkv_proj", "o_proj", "gate_up_proj", "up_proj", "down_proj", "experts_gate_up",
                  "experts_down", "shared_gate_up", "shared_down", "router", "lm_head", "weights")
#: The tensor group each weight matmul's weights belong to (Formats.weights_for): "head" is the
#: embedding, router and output head, which stay 16-bit unless the checkpoint quantizes them.
MATMUL_GROUPS = {"qkv_proj": "attention", "o_proj": "attention", "gate_up_proj": "mlp", "up_proj": "mlp",
                 "down_proj": "mlp", "experts_gate_up": "experts", "experts_down": "experts",
                 "shared_gate_up": "shared", "shared_down": "shared", "router": "head", "lm_head": "head"}


def _in_weight_format(name: str, formats: Formats) -> bool:
    """Whether the weight matmul `name` stores its weights in the weight format (a bare model's one does)."""
    group = MATMUL_GROUPS.get(name)
    return group is None or formats.weights_for(group).name == formats.weights.name


def first_true(pred, limit: int) -> int | None:
    """Smallest n in 1..limit with pred(n) true (pred monotone, vectorised over an int array); None if none.

    One call over the powers of two up to `limit` (and `limit`) brackets it, then each call over 64
    evenly spread values between the last false and the first true narrows it: a handful of calls.
    """
    top = int(limit)
    grid = np.unique(np.append(1 << np.arange(top.bit_length(), dtype=np.int64), top))
    ok = np.atleast_1d(np.asarray(pred(grid.astype(float))))
    if not ok[-1]:
        return None
    first = int(np.argmax(ok))
    lo, hi = (int(grid[first - 1]) if first > 0 else 0), int(grid[first])
    while hi - lo > 1:
        grid = np.unique(np.linspace(lo, hi, 66).astype(np.int64))
        grid = grid[(grid > lo) & (grid < hi)]
        ok = np.atleast_1d(np.asarray(pred(grid.astype(float))))
        first = int(np.argmax(ok)) if ok.any() else len(grid)
        lo = int(grid[first - 1]) if first > 0 else lo
        hi = int(grid[first]) if first < len(grid) else hi
    return hi


def critical_batch(model: Model, device: Device, formats: Formats | None = None, max_batch: int = 1 << 20) -> int | None:
    """The sources' critical batch: the smallest decode batch at which every weight matmul stored in
    the weight format, counting its weight bytes only, reaches the ridge of the roof it runs on. It
    does not depend on the context. Matmuls kept in 16-bit (the router and output head, and tensors
    outside the format's scope) reach the bf16 ridge at the bf16 critical batch, whatever the format.

    With 16-bit weights a matmul's weights-only intensity is 2·B·P ÷ 2·P = B, so the critical
    batch is ⌈ridge⌉: 296 on an H100 SXM5 in bf16 (989.4e12 / 3.35e12 = 295.3). Each matmul is held
    to the roof it runs on: with fp8 weights and activations the fp8 matmuls reach the fp8 ridge
    (590.7) at 2·B ≥ 590.7, and the 16-bit head the bf16 ridge at B ≥ 295.3, both at 296. Pooling
    mixed-format FLOPs and bytes against one ridge would hold the bf16 head to the fp8 roof.

    >>> critical_batch(get_model("llama-3.1-8b"), get_device("h100-sxm5"))
    296
    """
    formats = _check(formats, "fused", device)

    def reached(b):
        s = decode(model, device, b, 1, formats)
        ok = True
        for k in s.ops:
            if (k.name in WEIGHT_MATMULS and _in_weight_format(k.name, formats)
                    and np.any(np.asarray(k.weight_bytes, float) > 0)):
                ok = np.logical_and(ok, np.asarray(k.flops, float) / np.asarray(k.weight_bytes, float) >= k.ridge_point)
        return ok

    return first_true(reached, max_batch)


def whole_step_crossing_batch(model: Model, device: Device, context_len, formats: Formats | None = None,
                              attention: str = "fused", max_batch: int = 1 << 20) -> int | None:
    """The smallest batch whose whole decode step (all FLOPs ÷ all bytes) reaches the matmuls' ridge;
    None where attention's KV reads keep it below (long contexts). A perfect-overlap figure."""
    formats = _check(formats, attention, device)

    def reached(b):
        s = decode(model, device, b, context_len, formats, attention)
        return np.asarray(s.arithmetic_intensity) >= s.ridge_point

    return first_true(reached, max_batch)


def attention_intensity_limit(model: Model, formats: Formats | None = None) -> float:
    """Decode attention's FLOPs per byte as the context grows: it never depends on the batch.

    Per cached position and layer, attention does 4·heads·head_dim FLOPs (QKᵀ and P·V) plus 5·heads
    for softmax, and reads 2·kv_heads·head_dim KV values, so the limit is
    (4·head_dim + 5)·heads ÷ (2·kv_heads·head_dim·KV bytes) ≈ 2·(heads ÷ kv_heads) ÷ KV bytes.

    >>> round(attention_intensity_limit(get_model("llama-3.1-8b")), 3)  # (512+5)·32 ÷ (2·8·128·2)
    4.039
    """
    formats = formats or Formats.of()
    if model.is_bare:
        raise InputError("a bare parameter count has no attention")
    qk_dim, pv_dim, _, _ = attention_dims(model)
    flops = (2 * (qk_dim + pv_dim) + SOFTMAX_FLOPS_PER_SCORE) * model.n_heads
    return flops / (model.kv_elements_per_token_per_layer * formats.kv_bytes)


def max_batch_that_fits(model: Model, device: Device, context_len, formats: Formats | None = None,
                        attention: str = "fused"):
    """The largest decode batch whose weights, KV cache, activations and runtime reserve fit the
    device's usable memory at `context_len` cached tokens per sequence (0 where even one does not).

    Memory is linear in the batch, so two evaluations give it exactly; vectorised over the context.
    None for a bare parameter count (it models no per-sequence memory).
    """
    formats = _check(formats, attention, device)
    if model.is_bare:
        return None
    one = np.asarray(decode(model, device, 1, context_len, formats, attention).memory_required_bytes, float)
    two = np.asarray(decode(model, device, 2, context_len, formats, attention).memory_required_bytes, float)
    per_sequence = two - one
    fixed = one - per_sequence
    free = usable_memory_bytes(device) - fixed
    return scalar(np.maximum(np.floor(free / per_sequence), 0).astype(np.int64))


def crossover_prompt_len(model: Model, device: Device, batch=1, formats: Formats | None = None,
                         attention: str = "fused", max_len: int = 1 << 20) -> int | None:
    """Shortest prompt whose whole prefill (all FLOPs ÷ all bytes) reaches the weight matmuls' ridge;
    None if none up to `max_len`. Weights only in bf16 that is ⌈ridge⌉: intensity 2·P·T ÷ 2·P = T.

    >>> crossover_prompt_len(Model.from_param_count(8e9), get_device("h100-sxm5"))
    296
    """
    formats = _check(formats, attention, device)
    check_size("batch", batch)

    def reached(n):
        s = prefill(model, device, n, batch, formats, attention)
        return np.asarray(s.arithmetic_intensity) >= s.ridge_point

    return first_true(reached, max_len)


def speed_of_light_tokens_per_s(model: Model, device: Device, formats: Formats | str | None = None) -> float:
    """The speed of light: bandwidth ÷ the weight bytes a batch-1 decode step reads (every matmul
    weight in its format, the 16-bit head, the norm vectors and one embedding row).

    >>> round(speed_of_light_tokens_per_s(Model.from_param_count(8e9), get_device("h100-sxm5")), 3)
    209.375
    """
    f = Formats.of(formats) if isinstance(formats, str) else (formats or Formats.of())
    return device.memory_bandwidth_bytes_per_s / float(decode(model, device, 1, 1, f).weight_bytes)
