"""The per-kernel model: hand-derived FLOPs and bytes, a peer's accounting, formats, memory, properties.

Shapes used below (config.json of each model, as in models.toml):
  Llama-3.1-8B: 32 layers, d = 4096, 32 heads, 8 KV heads, head_dim 128 (q = 4096, kv = 1024),
                gated MLP f = 14336, vocab 128256, untied head.
  Llama-2-7b:   32 layers, d = 4096, 32 heads, 32 KV heads (kv = 4096), f = 11008, vocab 32000.
"""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from roofline.errors import InputError
from roofline.model import kernels
from roofline.registry.hardware import devices, get_device
from roofline.model.formats import Formats
from roofline.model.kernels import (
    COMPUTE_BOUND, MEMORY_BOUND, RooflinePoint, attention_intensity_limit, critical_batch, decode,
    max_batch_that_fits, prefill, weights_resident_bytes, whole_step_crossing_batch,
)
from roofline.registry.models import get_model, models

H100 = "h100-sxm5"


def ops(step):
    return {k.name: k for k in step.ops}


# ------------------------------------------------------------- Llama-3.1-8B, hand-derived ----
def test_llama31_8b_decode_batch1_context1023():
    """Batch 1, 1023 tokens cached: the new token attends to 1024 positions."""
    k = ops(decode(get_model("llama-3.1-8b"), get_device(H100), 1, 1023))
    # QKV: 2 · 1 token · 4096 · (4096 + 2·1024) · 32 layers
    assert k["qkv_proj"].flops == 2 * 4096 * 6144 * 32 == 1_610_612_736
    assert k["qkv_proj"].weight_bytes == 4096 * 6144 * 2 * 32
    assert k["qkv_proj"].act_read_bytes == 4096 * 2 * 32
    assert k["qkv_proj"].act_written_bytes == 4096 * 2 * 32      # Q out
    assert k["qkv_proj"].kv_written_bytes == 2 * 1024 * 2 * 32   # the new token's K and V
    # Fused attention: 32 heads · 1024 positions scores per layer; 4·128 FLOPs each (QKᵀ, P·V) + 5 softmax
    assert k["attention"].flops == 32 * (4 * 128 + 5) * 32 * 1024 == 542_113_792
    # K and V of 1024 positions · 1024 wide · 2 bytes · 32 layers
    assert k["attention"].kv_read_bytes == 2 * 1024 * 1024 * 2 * 32 == 134_217_728
    assert k["attention"].weight_bytes == 0
    assert k["o_proj"].flops == 2 * 4096 * 4096 * 32
    assert k["gate_up_proj"].flops == 2 * 4096 * 2 * 14336 * 32 == 7_516_192_768
    assert k["down_proj"].weight_bytes == 14336 * 4096 * 2 * 32
    # Head: one position, 4096 × 128256 weights in bf16
    assert k["lm_head"].flops == 2 * 4096 * 128256 == 1_050_673_152
    assert k["lm_head"].weight_bytes == 4096 * 128256 * 2
    assert k["lm_head"].act_written_bytes == 128256 * 2


def test_llama31_8b_decode_batch64_context4095():
    k = ops(decode(get_model("llama-3.1-8b"), get_device(H100), 64, 4095))
    assert k["qkv_proj"].flops == 64 * 2 * 4096 * 6144 * 32
    assert k["qkv_proj"].weight_bytes == 4096 * 6144 * 2 * 32    # weights read once for the batch
    # 64 sequences · 4096 positions · K and V 1024 wide · 2 B · 32 layers
    assert k["attention"].kv_read_bytes == 64 * 4096 * 2 * 1024 * 2 * 32 == 34_359_738_368
    # Attention's intensity is near its limit: (512+5)·32 FLOPs per 2·1024·2 bytes = 4.04
    assert k["attention"].arithmetic_intensity == pytest.approx(517 * 32 / 4096, rel=1e-3)
    assert k["attention"].bound == MEMORY_BOUND


def test_llama2_7b_decode_batch8_context511():
    k = ops(decode(get_model("llama-2-7b"), get_device(H100), 8, 511))
    # MHA: K and V are 4096 wide. 8 sequences · 512 positions · 2 · 4096 · 2 B · 32 layers
    assert k["attention"].kv_read_bytes == 8 * 512 * 2 * 4096 * 2 * 32
    assert k["qkv_proj"].flops == 8 * 2 * 4096 * 3 * 4096 * 32
    assert k["gate_up_proj"].weight_bytes == 4096 * 2 * 11008 * 2 * 32
    assert k["lm_head"].flops == 8 * 2 * 4096 * 32000


def test_prefill_head_runs_on_the_last_position_only():
    """512-token prompt, batch 1: the head does 2·4096·128256 FLOPs, not 512 times that."""
    k = ops(prefill(get_model("llama-3.1-8b"), get_device(H100), 512))
    assert k["lm_head"].flops == 2 * 4096 * 128256
    assert k["qkv_proj"].flops == 512 * 2 * 4096 * 6144 * 32
    # causal, fused: token i attends to i positions -> 512·513/2 pairs per head
    assert k["attention"].flops == 32 * (4 * 128 + 5) * 32 * (512 * 513 // 2)
    # the prompt's K and V are written once by the QKV projection
    assert k["qkv_proj"].kv_written_bytes == 512 * 2 * 1024 * 2 * 32


# --------------------------------------- the unfused variant against LLM-Viewer's accounting --
# LLM-Viewer (github.com/hahnyuan/LLM-Viewer, model_analyzer.py, ModelAnalyzer.analyze) counts a
# decode step per layer with `seqlen` attended positions. Its formulas, transcribed for Llama-2-7b
# in fp16 (w = a = kv = 2 bytes, hidden 4096, 32 heads, head_size 128, 32 KV heads, ffn 11008):
#   q/k/v/o/gate/up/down: OPs = 2·ic·oc·B; load_weight = ic·oc·2; load_act = ic·B·2;
#                         store_act = oc·B·2 (k, v: store_kv_cache = oc·B·2 instead)
#   qk_matmul: OPs = seqlen·128·32·B·2; load_act = 128·B·32·2; store_act = seqlen·B·32·2;
#              load_kv_cache = seqlen·128·B·32·2
#   sv_matmul: OPs as qk; load_act = seqlen·B·32·2; store_act = 128·B·32·2; load_kv as qk
#   softmax:   OPs = B·32·seqlen·5; load_act = store_act = B·32·seqlen·2
#   attn_norm, mlp_norm: OPs = B·4096·7; load = store = B·4096·2 (no weight)
#   attn_add, mlp_add:   OPs = B·4096; load = store = B·4096·2
#   mlp_act:             OPs = B·4096·2; load = B·4096·2·2; store = B·4096·2
# Where conventions differ (this package's choice first):
#   * attended positions: the new token attends to the cache and itself, so LLM-Viewer's
#     seqlen = 1024 is context_len = 1023 here;
#   * QKV and gate/up are one fused GEMM each, reading their input once (LLM-Viewer: three
#     and two separate GEMMs, each reading it);
#   * RMSNorm counts 4 FLOPs per element and reads its weight (LLM-Viewer: LayerNorm's 7, no
#     weight); a residual add reads both operands (LLM-Viewer: one); the gated activation
#     works on the ffn width (LLM-Viewer uses the hidden width);
#   * the output head and embedding are counted here (LLM-Viewer leaves lm_head out).
# The matmuls, QKᵀ, softmax and P·V are tested exactly; the per-layer totals to 1 %.
SEQLEN = 1024


def llm_viewer_layer(B):
    lin = {name: (ic, oc) for name, ic, oc in (("q", 4096, 4096), ("k", 4096, 4096), ("v", 4096, 4096),
                                                ("o", 4096, 4096), ("gate", 4096, 11008),
                                                ("up", 4096, 11008), ("down", 11008, 4096))}
    r = {}
    for name, (ic, oc) in lin.items():
        r[name] = dict(ops=2 * ic * oc * B, w=ic * oc * 2, la=ic * B * 2,
                       sa=0 if name in "kv" else oc * B * 2, skv=oc * B * 2 if name in "kv" else 0, lkv=0)
    r["qk"] = dict(ops=SEQLEN * 128 * 32 * B * 2, w=0, la=128 * B * 32 * 2, sa=SEQLEN * B * 32 * 2,
                   lkv=SEQLEN * 128 * B * 32 * 2, skv=0)
    r["sv"] = dict(ops=SEQLEN * 128 * 32 * B * 2, w=0, la=SEQLEN * B * 32 * 2, sa=128 * B * 32 * 2,
                   lkv=SEQLEN * 128 * B * 32 * 2, skv=0)
    r["softmax"] = dict(ops=B * 32 * SEQLEN * 5, w=0, la=B * 32 * SEQLEN * 2, sa=B * 32 * SEQLEN * 2, lkv=0, skv=0)
    for name in ("attn_norm", "mlp_norm"):
        r[name] = dict(ops=B * 4096 * 7, w=0, la=B * 4096 * 2, sa=B * 4096 * 2, lkv=0, skv=0)
    for name in ("attn_add", "mlp_add"):
        r[name] = dict(ops=B * 4096, w=0, la=B * 4096 * 2, sa=B * 4096 * 2, lkv=0, skv=0)
    r["mlp_act"] = dict(ops=B * 4096 * 2, w=0, la=B * 4096 * 4, sa=B * 4096 * 2, lkv=0, skv=0)
    return r


@pytest.mark.parametrize("B", [1, 8, 64])
def test_unfused_llama2_7b_fp16_matches_llm_viewer(B):
    m = get_model("llama-2-7b")
    step = decode(m, get_device(H100), B, SEQLEN - 1, Formats.of("fp16", "fp16", "fp16"), attention="unfused")
    k = ops(step)
    lv = llm_viewer_layer(B)
    L = 32

    def total(rec):
        return rec["w"] + rec["la"] + rec["sa"] + rec["lkv"] + rec["skv"]

    # Exact where the conventions agree.
    assert k["attn_qk"].flops == L * lv["qk"]["ops"]
    assert k["attn_qk"].bytes == L * total(lv["qk"])
    assert k["attn_pv"].flops == L * lv["sv"]["ops"]
    assert k["attn_pv"].bytes == L * total(lv["sv"])
    assert k["attn_softmax"].flops == L * lv["softmax"]["ops"]
    assert k["attn_softmax"].bytes == L * total(lv["softmax"])
    assert k["o_proj"].bytes == L * total(lv["o"])
    assert k["down_proj"].bytes == L * total(lv["down"])
    assert k["qkv_proj"].flops == L * sum(lv[n]["ops"] for n in "qkv")
    assert k["qkv_proj"].weight_bytes == L * sum(lv[n]["w"] for n in "qkv")
    assert k["qkv_proj"].kv_written_bytes == L * (lv["k"]["skv"] + lv["v"]["skv"])
    assert k["gate_up_proj"].flops == L * (lv["gate"]["ops"] + lv["up"]["ops"])
    assert k["gate_up_proj"].weight_bytes == L * (lv["gate"]["w"] + lv["up"]["w"])
    # The layers' totals to 1 % (head and embedding are outside LLM-Viewer's layer count).
    layer = [x for x in step.ops if x.name not in ("embedding", "final_norm", "lm_head")]
    assert sum(x.flops for x in layer) == pytest.approx(L * sum(r["ops"] for r in lv.values()), rel=0.01)
    assert sum(x.bytes for x in layer) == pytest.approx(L * sum(total(r) for r in lv.values()), rel=0.01)


def test_fused_attention_never_writes_scores():
    m, d = get_model("llama-2-7b"), get_device(H100)
    fused = ops(decode(m, d, 8, 1023))["attention"]
    unfused = ops(decode(m, d, 8, 1023, attention="unfused"))
    # Same FLOPs; unfused moves the 8·32·1024 scores four more times (write, read, write, read) per layer.
    assert fused.flops == sum(unfused[n].flops for n in ("attn_qk", "attn_softmax", "attn_pv"))
    extra = sum(unfused[n].bytes for n in ("attn_qk", "attn_softmax", "attn_pv")) - fused.bytes
    assert extra == 4 * 8 * 32 * 1024 * 2 * 32


def test_decode_context_zero_is_an_error():
    with pytest.raises(InputError, match="at least one cached token"):
        decode(get_model("llama-3.1-8b"), get_device(H100), 1, 0)


# ------------------------------------------------------------ critical batch, attention -----
def test_critical_batch_is_the_ridge_for_bf16_weights_whatever_the_context():
    # weights-only intensity 2·B·P / (2·P) = B; ridge 989.4 / 3.35 = 295.3 -> 296
    assert critical_batch(get_model("llama-3.1-8b"), get_device(H100)) == 296
    assert critical_batch(get_model("llama-2-7b"), get_device(H100)) == 296


def test_critical_batch_holds_each_weight_matmul_to_its_own_roof():
    # The rule: a matmul with s bytes per weight does 2·B FLOPs per weight read, so it reaches its
    # ridge at B = ridge · s / 2. H100 SXM5: bf16 ridge 989.4e12 / 3.35e12 = 295.34; fp8 ridge
    # 1978.9e12 / 3.35e12 = 590.72 (NVIDIA H100 datasheet, dense).
    m, d = get_model("llama-3.1-8b"), get_device(H100)
    # fp8 weights and fp8 activations: the fp8 matmuls need 2·B ≥ 590.72, B = ⌈295.36⌉ = 296; the
    # 16-bit head runs on the bf16 roof, B ≥ 295.34, also 296. Pooling mixed-format FLOPs and bytes
    # against the fp8 ridge gave 317.
    assert critical_batch(m, d, Formats.of("fp8", "fp8")) == 296
    # fp8 weights dequantized to bf16: 2·B ≥ 295.34, B = ⌈147.67⌉ = 148 (the head reaches its ridge at 296).
    assert critical_batch(m, d, Formats.of("fp8")) == 148
    # int4 in groups of 128 with an fp16 scale and an int4 zero point per group: s = 0.5 + 2.5/128
    # = 0.51953 bytes, B = ⌈295.34 · 0.51953 / 2⌉ = ⌈76.72⌉ = 77.
    assert critical_batch(m, d, Formats.of("int4-g128")) == 77


def test_whole_step_crossing_is_a_different_named_figure():
    m, d = get_model("llama-3.1-8b"), get_device(H100)
    assert whole_step_crossing_batch(m, d, 4096) is None      # attention's KV reads keep it below
    assert whole_step_crossing_batch(m, d, 256) > 296


def test_attention_intensity_is_fixed_by_heads_and_kv_dtype():
    # (4·128 + 5)·32 / (2·1024·2): Llama-3.1-8B, bf16 KV
    assert attention_intensity_limit(get_model("llama-3.1-8b")) == pytest.approx(517 * 32 / 4096)
    # MHA (32 KV heads): a quarter of that; fp8 KV doubles it
    assert attention_intensity_limit(get_model("llama-2-7b")) == pytest.approx(517 * 32 / 16384)
    assert attention_intensity_limit(get_model("llama-3.1-8b"), Formats.of(kv="fp8")) == pytest.approx(517 * 32 / 2048)


def test_matmuls_cross_the_ridge_at_long_context_while_attention_does_not():
    k = ops(decode(get_model("llama-3.1-8b"), get_device(H100), 1024, 4095))
    assert k["gate_up_proj"].bound == COMPUTE_BOUND
    assert k["attention"].bound == MEMORY_BOUND


# ----------------------------------------------------------------------------- memory -------
def test_llama31_70b_bf16_fits_an_h200():
    """70.55e9 weights · 2 B = 141.1e9 B; the H200 exposes 143,771 MiB = 150.75e9 B; reserve 2 GiB."""
    m, d = get_model("llama-3.1-70b"), get_device("h200-sxm")
    assert weights_resident_bytes(m, Formats.of()) == pytest.approx(141.1e9, rel=1e-3)
    assert d.usable_memory_bytes == 143771 * 2**20
    assert decode(m, d, 1, 4095).fits
    # KV per token 2·80·8·128·2 = 327,680 B: (150.75e9 − 141.11e9 − 2.15e9) / (4096 · 327,680) ≈ 5.6
    assert max_batch_that_fits(m, d, 4095) == 5
    assert not decode(m, get_device("h100-sxm5"), 1, 1).fits


def test_max_batch_is_vectorised_over_context():
    got = max_batch_that_fits(get_model("llama-3.1-8b"), get_device(H100), np.array([1023, 4095, 32767]))
    assert list(got) == sorted(got, reverse=True) and got[-1] >= 1


# ----------------------------------------------------------------------------- properties ----
sizes = st.integers(1, 4096)


@settings(max_examples=40)
@given(sizes, sizes, st.sampled_from(["fused", "unfused"]), st.sampled_from(["bf16", "int4-g128", "fp8"]))
def test_sum_of_kernel_times_at_least_perfect_overlap(batch, context, attention, wf):
    s = decode(get_model("llama-3.1-8b"), get_device(H100), batch, context, Formats.of(wf), attention)
    assert s.time_s >= s.time_perfect_overlap_s * (1 - 1e-12)
    assert s.time_s == pytest.approx(sum(k.time_s for k in s.ops))


@settings(max_examples=60)
@given(st.floats(1e9, 1e17), st.floats(1e8, 1e14), st.floats(1e3, 1e12))
def test_bound_flips_exactly_at_each_kernels_ridge(peak, bw, nbytes):
    ridge = peak / bw
    at = RooflinePoint("k", flops=ridge * nbytes, weight_bytes=nbytes, peak_flop_per_s=peak, bandwidth_bytes_per_s=bw)
    if at.arithmetic_intensity >= ridge:  # rounding can put ridge·bytes/bytes a hair below
        assert at.bound == COMPUTE_BOUND
    below = RooflinePoint("k", flops=np.nextafter(at.arithmetic_intensity, 0) * nbytes * (1 - 1e-12),
                          weight_bytes=nbytes, peak_flop_per_s=peak, bandwidth_bytes_per_s=bw)
    assert below.bound == MEMORY_BOUND
    # Compute-bound exactly when the compute time is the longer one.
    for p in (at, below):
        assert (p.bound == COMPUTE_BOUND) == (p.compute_time_s >= p.memory_time_s) or \
            p.compute_time_s == pytest.approx(p.memory_time_s, rel=1e-12)


@settings(max_examples=20)
@given(sizes, sizes)
def test_each_kernels_bound_matches_its_own_ridge(batch, context):
    for k in decode(get_model("llama-3.1-8b"), get_device(H100), batch, context).ops:
        if k.bytes:
            assert (k.bound == COMPUTE_BOUND) == (k.arithmetic_intensity >= k.ridge_point)


def test_batch_sweep_with_breakdown_is_one_call():
    m, d = get_model("llama-3.1-8b"), get_device(H100)
    b = np.arange(1, 4097)
    s = decode(m, d, b, 4095)
    # One call answers every batch at once (its speed is measured in `make bench`, not here).
    assert np.shape(s.time_s) == (4096,) and all(np.shape(k.time_s) == (4096,) for k in s.ops)


def test_a_sliding_window_caps_attention_and_the_cache():
    """Mistral 7B v0.1 attends to at most 4,096 tokens in every layer (its config's sliding_window):
    with 8,191 cached the new token reads the same K and V as with 4,095 cached."""
    from dataclasses import replace

    m = get_model("mistral-7b")
    assert (m.sliding_window, m.n_window_layers) == (4096, 32)
    d = get_device(H100)
    short, long = ops(decode(m, d, 1, 4095)), ops(decode(m, d, 1, 8191))
    # 32 layers · 4096 positions · K and V (8 KV heads · 128) · 2 bytes
    assert long["attention"].kv_read_bytes == short["attention"].kv_read_bytes == 32 * 4096 * 2 * 1024 * 2
    assert decode(m, d, 1, 8191).kv_resident_bytes == 32 * 4096 * 2 * 1024 * 2
    # without the window the cache keeps growing
    full = replace(m, n_window_layers=0)
    assert ops(decode(full, d, 1, 8191))["attention"].kv_read_bytes == 32 * 8192 * 2 * 1024 * 2
    # half the layers windowed: 16 · 8192 + 16 · 4096 positions
    half = replace(m, n_window_layers=16)
    assert ops(decode(half, d, 1, 8191))["attention"].kv_read_bytes == (16 * 8192 + 16 * 4096) * 2 * 1024 * 2


def test_every_registry_architecture_runs_through_the_kernel_model():
    # MLA, shared experts, dense-first layers and narrow experts are modelled (their own kernels);
    # a step of each registry model builds, with a positive time, and nothing is refused.
    from roofline.registry.models import models

    for m in models().values():
        assert float(decode(m, get_device(H100), 1, 1).time_s) > 0, m.id


# ------------------------------------------------- decode as the pages describe it, by hand -----
def test_batching_raises_tpot_by_the_kv_reads_below_the_critical_batch():
    # The TPOT entry used to say batching "barely moves" TPOT below the critical batch. Llama-3.1-8B,
    # bf16, H100 SXM5 (3.35e12 B/s), 1,024 tokens cached. Weight bytes per step: (6,979,321,856 layer
    # weights + 525,336,576 head) × 2 B = 15.009e9 B. KV read per sequence: (1,024 + 1) positions ×
    # 131,072 B (2 × 32 layers × 8 KV heads × 128 × 2 B) = 0.13435e9 B.
    #   batch 1:  (15.009 + 0.134) e9 / 3.35e12 = 4.520 ms (activations add well under 1 %)
    #   batch 64: (15.009 + 64 × 0.13435) e9 / 3.35e12 = 7.047 ms before activations: +56 %, not "barely".
    from roofline.model.kernels import decode
    from roofline.registry.hardware import get_device
    from roofline.registry.models import get_model

    m, h = get_model("llama-3.1-8b"), get_device("h100-sxm5")
    one, many = decode(m, h, 1, 1024), decode(m, h, 64, 1024)
    assert abs(float(one.time_s) - 4.520e-3) / 4.520e-3 < 0.01
    assert float(many.time_s) >= 7.047e-3
    assert float(many.time_s) / float(one.time_s) > 1.5


def test_decode_attention_intensity_is_a_limit_reached_at_long_context():
    # Batching said attention "runs at 4.04 FLOP/byte at any batch and any context". 4.04 is the
    # limit: per cached position and layer (4·128 + 5)·32 = 16,544 FLOPs over 2·8·128 values × 2 B =
    # 4,096 B -> 4.039. With one token cached a sequence attends to 2 positions (33,088 FLOPs) and
    # also reads its query (32·128·2 = 8,192 B) and writes its output (8,192 B): 33,088 ÷ (2·4,096 +
    # 16,384) = 1.346 FLOP/byte, a third of the limit, whatever the batch.
    from roofline.model.kernels import decode
    from roofline.registry.hardware import get_device
    from roofline.registry.models import get_model

    m, h = get_model("llama-3.1-8b"), get_device("h100-sxm5")
    for batch in (1, 64):
        short = {k.name: k for k in decode(m, h, batch, 1).ops}["attention"]
        assert abs(float(short.arithmetic_intensity) - 33088 / 24576) < 1e-3
    long_ = {k.name: k for k in decode(m, h, 64, 4096).ops}["attention"]
    assert 4.0 < float(long_.arithmetic_intensity) < 16544 / 4096


# ------------------------------------------------------------------ extend ------------------
def test_extend_from_an_empty_cache_is_a_prefill_with_logits_everywhere():
    # Same causal pairs as a prefill of n tokens; the head runs on all n positions, not the last:
    # 2 · n · 4,096 · 128,256 FLOPs at n = 64: 67,243,081,728 (524,288 · 128,256).
    m, d = get_model("llama-3.1-8b"), get_device("h100-sxm5")
    e, p = kernels.extend(m, d, 64, 0), kernels.prefill(m, d, 64)
    op = lambda s, n: next(k for k in s.ops if k.name == n)  # noqa: E731
    assert op(e, "attention").flops == op(p, "attention").flops
    assert op(e, "lm_head").flops == 2 * 64 * 4096 * 128_256 == 67_243_081_728
    assert op(p, "lm_head").flops == 2 * 1 * 4096 * 128_256


# ------------------------------------------------------------------ ordering ----------------
PAIRS = [(m, d) for m in sorted(models()) for d in ("h100-sxm5", "b200", "mi300x")
         if d in devices()]


@pytest.mark.parametrize("model_id, device_id", PAIRS)
def test_kernel_sum_is_at_least_perfect_overlap_everywhere(model_id, device_id):
    # Σ max(cᵢ, mᵢ) ≥ max(Σ cᵢ, Σ mᵢ) for any non-negative cᵢ, mᵢ: the per-kernel time can never
    # undercut the perfect-overlap bound, for any model, batch, context or attention variant.
    m, d = get_model(model_id), get_device(device_id)
    b = np.array([1.0, 7.0, 64.0, 1000.0])
    for att in ("fused", "unfused"):
        s = kernels.decode(m, d, b, 4096.0, attention=att)
        assert np.all(np.asarray(s.time_s) >= np.asarray(s.time_perfect_overlap_s) * (1 - 1e-12))
        p = kernels.prefill(m, d, 512.0, 1, attention=att)
        assert p.time_s >= p.time_perfect_overlap_s * (1 - 1e-12)


@given(k=st.integers(1, 16), ctx=st.integers(1, 1 << 17))
@settings(max_examples=30)
def test_verify_pass_sum_at_least_overlap(k, ctx):
    v = kernels.extend(get_model("llama-3.1-8b"), get_device("h100-sxm5"), k + 1, ctx)
    assert v.time_s >= v.time_perfect_overlap_s * (1 - 1e-12)


# ----------------------------------------------------------------------------- remembered steps ----
def test_a_step_asked_again_is_the_same_object_and_a_sweep_is_computed_afresh():
    m, d = get_model("llama-3.1-8b"), get_device(H100)
    first = decode(m, d, 8, 4096)
    assert decode(m, d, 8, 4096) is first  # the same call: the kept step
    assert decode(m, d, 8, 4095) is not first and prefill(m, d, 4096, 8) is not first
    sweep = np.array([1.0, 8.0])
    assert decode(m, d, sweep, 4096) is not decode(m, d, sweep, 4096)  # an array cannot be keyed
    # 8 sequences at 4096 cached tokens: the kept step equals one computed with nothing kept
    kernels.forget_steps()
    again = decode(m, d, 8, 4096)
    assert again is not first and again.time_s == first.time_s and again.flops == first.flops


def test_a_refused_call_keeps_nothing_and_another_device_object_is_not_taken_for_the_registrys():
    m, d = get_model("llama-3.1-8b"), get_device(H100)
    with pytest.raises(InputError):
        decode(m, d, 0, 4096)
    assert all(call[3:5] != ((int, 0), (int, 4096)) for call in kernels._STEPS)
    # An edited copy of the device (half the bandwidth): same name, another object, another step.
    import dataclasses
    slower = dataclasses.replace(d, memory_bandwidth_bytes_per_s=d.memory_bandwidth_bytes_per_s / 2)
    assert decode(m, slower, 1, 1).time_s > decode(m, d, 1, 1).time_s


def test_at_most_steps_kept_are_held(monkeypatch):
    monkeypatch.setattr(kernels, "STEPS_KEPT", 3)
    m, d = get_model("llama-3.1-8b"), get_device(H100)
    steps = [decode(m, d, b, 1) for b in (1, 2, 3, 4)]
    assert len(kernels._STEPS) == 3
    assert decode(m, d, 4, 1) is steps[-1] and decode(m, d, 1, 1) is not steps[0]  # the oldest went first
