"""roofline.model.playbook: each optimization as a move on the roofline, its figures and its page.

Expected values are derived by hand in the comments, from the registry's datasheet
numbers (H100 SXM5: 989.4 TFLOP/s dense bf16, 1978.9 fp8, 67 fp32 (the vector units),
3.35 TB/s, 80 GB; nvidia-smi's 81,559 MiB = 85,520,809,984 B usable) and the models'
config.json fields; never copied from the code's output. Steps are the per-kernel model's:
a step's time is the sum of its kernels' roofline times.
"""

from __future__ import annotations

import csv
import io
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline.model import kernels
from roofline.model import playbook as pb
from roofline.model.point import RooflinePoint
from roofline.errors import InputError
from roofline.examples import example
from roofline.registry.hardware import get_device
from roofline.registry.models import Model, get_model
from tests.conftest import ROOT
from tests.support.figures import second_render

H100_PEAK, H100_FP8, H100_FP32, H100_BW = 989.4e12, 1978.9e12, 67e12, 3.35e12
H100_USABLE = 81_559 * 2**20        # 85,520,809,984 B (nvidia-smi)
RESERVE = 2 * 2**30                 # the runtime reserve, 2 GiB


@pytest.fixture(scope="module")
def h100():
    return get_device("h100-sxm5")


@pytest.fixture(scope="module")
def bare8b():
    return Model.from_param_count(8e9)  # 8e9 weights, no KV cache, no activations


# ---------------------------------------------------------------- the point -----------------
def test_point_is_the_roofline():
    # 1.6e10 FLOPs over 1.6e10 bytes: intensity 1; memory time 1.6e10 / 3.35e12 = 4.7761 ms
    # beats compute time 1.6e10 / 989.4e12 = 16.2 µs, so it is memory-bound at 3.35 TFLOP/s.
    p = RooflinePoint("x", flops=1.6e10, weight_bytes=1.6e10, peak_flop_per_s=H100_PEAK, bandwidth_bytes_per_s=H100_BW)
    assert p.arithmetic_intensity == 1.0
    assert p.time_s == pytest.approx(4.7761e-3, rel=1e-4)
    assert p.attained_flop_per_s == pytest.approx(3.35e12)
    assert p.bound == "memory-bound"
    assert p.ridge_point == pytest.approx(295.343, rel=1e-5)  # 989.4 / 3.35


def test_one_point_type():
    # The playbook, the kernel model and ops share one point type, so they cannot disagree: no other class
    # recomputes intensity, time and bound.
    from roofline.model import ops

    assert kernels.RooflinePoint is RooflinePoint
    assert isinstance(ops.matmul_cost(2, 2, 2), RooflinePoint)
    assert isinstance(pb.fusion(2, 16, get_device("h100-sxm5")).after, RooflinePoint)
    assert not hasattr(pb, "point_of") and not hasattr(ops, "OpCost")


# ---------------------------------------------------------------- quantization ---------------
def test_quantization_bare_model(h100, bare8b):
    # Bare 8e9 weights: bytes per weight 2, 1, 1 (+ one scale and zero point for the whole row,
    # negligible), and int4-g128 0.5 + 2.5/128 = 0.51953125; FLOPs 2 × 8e9 = 1.6e10, so
    # intensity = 2 ÷ bytes per weight = 1, 2, 2, 3.8496; tokens/s = 3.35e12 ÷ bytes =
    # 209.375, 418.75, 418.75, 806.015. fp8 × fp8 runs at the fp8 peak; int8/int4 are weight-only (bf16).
    q = pb.quantization(bare8b, h100)
    assert [lv.weight_dtype for lv in q.levels] == ["bf16", "fp8", "int8", "int4-g128"]
    assert [lv.weight_bytes_per_token for lv in q.levels] == pytest.approx([16e9, 8e9, 8e9, 4.15625e9], rel=1e-9)
    assert [lv.point.arithmetic_intensity for lv in q.levels] == pytest.approx([1, 2, 2, 2 / 0.51953125])
    assert [lv.tokens_per_s for lv in q.levels] == pytest.approx([209.375, 418.75, 418.75, 3.35e12 / 4.15625e9])
    assert [lv.compute_dtype for lv in q.levels] == ["bf16", "fp8", "bf16", "bf16"]
    assert q.level("fp8").point.peak_flop_per_s == H100_FP8
    assert q.before.name == "bf16 weights" and q.after.name == "int4-g128 weights"


def test_quantization_mxfp4(h100):
    # OCP MX v1.0: 32 E2M1 elements (4 bits each) share one E8M0 scale (8 bits): 4 + 8/32 = 4.25
    # bits = 0.53125 bytes per weight. Llama 3.1 8B's layer matmuls 6,979,321,856 × 0.53125 =
    # 3,707,764,736 B; head bf16 1,050,673,152 B; norms and one embedding row 540,672 B.
    # No FP4 tensor cores on the H100: dequantized, multiplied in bf16.
    q = pb.quantization(get_model("llama-3.1-8b"), h100, ("bf16", "mxfp4"))
    assert q.level("mxfp4").weight_bytes_per_token == 3_707_764_736 + 1_050_673_152 + 540_672
    assert q.level("mxfp4").compute_dtype == "bf16"


def test_quantization_llama_weight_bytes(h100):
    # Llama 3.1 8B matmul weights: total 8,030,261,248 minus the embedding table (looked up, not
    # multiplied) 128,256 × 4,096 = 525,336,576 and the norm vectors (elementwise, not matmuls)
    # 32 · 2 · 4,096 + 4,096 = 266,240 → 7,504,658,432; × 2 bytes in bf16 = 15,009,316,864.
    # A step also reads the norm vectors (266,240 × 2 = 532,480 B) and one embedding row (8,192 B).
    # int4-g128: layer matmuls 6,979,321,856 × 0.51953125 = 3,625,975,808 B, head kept bf16
    # 1,050,673,152 B, plus the same 540,672 B.
    q = pb.quantization(get_model("llama-3.1-8b"), h100, ("bf16", "int4-g128"))
    assert q.level("bf16").weight_bytes_per_token == 15_009_316_864 + 532_480 + 8_192
    assert q.level("int4-g128").weight_bytes_per_token == 3_625_975_808 + 1_050_673_152 + 540_672
    with pytest.raises(InputError, match="no quantization level 'fp8'"):
        q.level("fp8")


def test_quantization_rejects_unknown_dtype(h100, bare8b):
    with pytest.raises(InputError, match="unknown weight format 'int3'"):
        pb.quantization(bare8b, h100, ("bf16", "int3"))


# ---------------------------------------------------------------- speculative decoding -------
def test_expected_accepted_tokens_hand_values():
    # (1 − 0.8^5) / (1 − 0.8) = (1 − 0.32768) / 0.2 = 3.3616; a = 0.6: (1 − 0.07776) / 0.4 = 2.3056
    assert pb.expected_accepted_tokens(4, 0.8) == pytest.approx(3.3616)
    assert pb.expected_accepted_tokens(4, 0.6) == pytest.approx(2.3056)
    assert pb.expected_accepted_tokens(4, 1.0) == 5.0   # every draft accepted, plus the verify's own token
    assert pb.expected_accepted_tokens(4, 0.0) == 1.0   # nothing accepted: the verify token only
    assert pb.expected_accepted_tokens(0, 0.5) == 1.0


@given(k=st.integers(0, 16), a=st.floats(0, 1))
def test_expected_accepted_tokens_is_a_geometric_sum(k, a):
    # 1 + a + a² + … + a^k, between 1 and k + 1
    e = pb.expected_accepted_tokens(k, a)
    assert e == pytest.approx(sum(a**i for i in range(k + 1)), rel=1e-9)
    assert 1.0 - 1e-12 <= e <= k + 1 + 1e-12


@pytest.mark.parametrize("k, a", [(-1, 0.5), (2.5, 0.5), (4, 1.5), (4, -0.1), (4, float("nan"))])
def test_expected_accepted_tokens_rejects_bad_input(k, a):
    with pytest.raises(InputError):
        pb.expected_accepted_tokens(k, a)


def test_speculative_bare_model(h100, bare8b):
    # Verify pass of k + 1 = 5 tokens: FLOPs 5 × 1.6e10 = 8e10 over the same 16e9 weight bytes:
    # intensity 5; memory time 16e9 / 3.35e12 = 4.7761 ms ≫ compute 8e10 / 989.4e12 = 80.9 µs,
    # so the pass takes as long as plain decode and the speed-up is the expected 3.3616 tokens.
    s = pb.speculative(bare8b, h100, 4, 0.8)
    assert s.before.arithmetic_intensity == pytest.approx(1.0)
    assert s.after.arithmetic_intensity == pytest.approx(5.0)
    assert s.after.time_s == pytest.approx(s.before.time_s)
    assert s.speedup == pytest.approx(3.3616)
    assert s.tokens_per_s == pytest.approx(3.3616 * 209.375)
    # A draft token costing 5% of a target step: 4 drafts add 0.2 steps → 3.3616 / 1.2 = 2.80133
    assert pb.speculative(bare8b, h100, 4, 0.8, draft_cost_fraction=0.05).speedup == pytest.approx(2.801333, rel=1e-6)


def test_speculative_reads_one_kv_cache(h100):
    # One sequence verifying 5 tokens over 4,096 cached reads K and V of the 4,101 positions once
    # per layer: 4,101 × 32 layers × (2 · 8 KV heads · 128 · 2 bytes = 4,096) = 537,526,272 B, and
    # writes 5 entries × 131,072 B = 655,360 B.
    # Causal scores: token i of the 5 attends to 4,096 + i positions: Σ = 5 · 4,099 = 20,495 per
    # layer and head; × 32 layers × 32 heads = 20,986,880 scores at (2 · (128 + 128) + 5) = 517
    # FLOPs each = 10,850,216,960 FLOPs. The head runs on all 5 positions: 2 · 5 · 4,096 · 128,256
    # = 5,253,365,760 FLOPs.
    m = get_model("llama-3.1-8b")
    s = pb.speculative(m, h100, 4, 0.8, context_len=4096)
    assert s.after.kv_bytes == 537_526_272 + 655_360
    ops = {k.name: k for k in s.after.ops}
    assert ops["attention"].flops == 10_850_216_960
    assert ops["lm_head"].flops == 5_253_365_760
    assert s.after.batch == 1 and s.after.tokens_per_sequence == 5


# ---------------------------------------------------------------- operator fusion ------------
def test_fusion_hand_values(h100):
    # 4 ops over 2^21 bf16 values, 1 FLOP each: FLOPs 4 · 2^21 = 8,388,608.
    # Unfused: 4 × (read + write) × 2^21 × 2 B = 2^25 = 33,554,432 B → 0.25 FLOP/byte.
    # Fused: (read + write) × 2^21 × 2 B = 2^23 = 8,388,608 B → 1 FLOP/byte.
    # Both memory-bound under the vector roof (fp32 67e12 / 3.35e12 = ridge 20):
    # 2^25 / 3.35e12 = 10.016 µs against 2^23 / 3.35e12 = 2.504 µs.
    f = pb.fusion(4, 2**21, h100)
    assert (f.before.flops, f.before.bytes, f.after.bytes) == (8_388_608, 33_554_432, 8_388_608)
    assert (f.before.arithmetic_intensity, f.after.arithmetic_intensity) == (0.25, 1.0)
    assert f.after.peak_flop_per_s == H100_FP32 and f.after.ridge_point == pytest.approx(20.0)
    assert f.before.time_s == pytest.approx(10.016e-6, rel=1e-4)
    assert f.speedup == pytest.approx(4.0)


@given(n=st.integers(1, 80), elements=st.integers(1, 1 << 30))
def test_fusion_multiplies_intensity_by_n(n, elements):
    # Fused intensity n / 4 FLOP/byte stays at or under the H100 vector ridge (20) for n ≤ 80: time ÷ n exactly.
    f = pb.fusion(n, elements, get_device("h100-sxm5"))
    assert f.after.arithmetic_intensity == pytest.approx(n * f.before.arithmetic_intensity)
    assert f.speedup == pytest.approx(n)


# ---------------------------------------------------------------- paged KV cache -------------
def test_paged_kv_hand_values(h100):
    # Llama 3.1 8B in bf16: 8,030,261,248 × 2 = 16,060,522,496 B of weights; usable 85,520,809,984
    # − that − the 2 GiB reserve (2,147,483,648) = 67,312,803,840 B free. KV per token 131,072 B.
    # Contiguous at 32,768 tokens: 4,294,967,296 B each → ⌊15.67⌋ = 15 sequences.
    # Paged at 4,096 tokens (256 blocks of 16): 536,870,912 B each → ⌊125.38⌋ = 125 sequences.
    p = pb.paged_kv(get_model("llama-3.1-8b"), h100, 32768, 4096)
    assert p.free_bytes == H100_USABLE - 16_060_522_496 - RESERVE == 67_312_803_840
    assert (p.contiguous_reserved_bytes, p.paged_reserved_bytes) == (4_294_967_296, 536_870_912)
    assert (p.contiguous_batch, p.paged_batch) == (15, 125)
    assert p.contiguous_waste == pytest.approx(0.875)  # 1 − 4,096 / 32,768
    assert (p.before.batch, p.after.batch, p.after.context_len) == (15, 125, 4095)
    assert p.after.arithmetic_intensity > p.before.arithmetic_intensity
    # 4,097 tokens need 257 blocks: the partial last block is reserved whole.
    assert pb.paged_kv(get_model("llama-3.1-8b"), h100, 32768, 4097).paged_reserved_bytes == 257 * 16 * 131072


@given(max_len=st.integers(1, 131072), frac=st.floats(0.001, 1))
@settings(max_examples=40)
def test_paging_never_fits_fewer(max_len, frac):
    # Holds whenever the actual length in whole blocks is within the maximum (a reservation rounded
    # up to a block can exceed a maximum shorter than one block).
    actual = max(2, int(max_len * frac))
    max_len = max(max_len, 2)
    p = pb.paged_kv(get_model("llama-3.1-8b"), get_device("h100-sxm5"), max_len, actual)
    if math.ceil(actual / 16) * 16 <= max_len:
        assert p.paged_batch >= p.contiguous_batch
    assert p.paged_reserved_bytes >= actual * 131072


def test_paged_kv_errors(h100, bare8b):
    with pytest.raises(InputError, match="cannot exceed the maximum length"):
        pb.paged_kv(get_model("llama-3.1-8b"), h100, 4096, 8192)
    with pytest.raises(InputError, match="no KV cache"):
        pb.paged_kv(bare8b, h100, 4096, 1024)


# ---------------------------------------------------------------- mixture of experts ---------
def test_mixture_of_experts_hand_values(h100):
    # Mixtral 8x7B per layer: attention 2·4096² + 2·4096·1024 = 41,943,040; one expert
    # 3·4096·14,336 = 176,160,768; router 4096·8 = 32,768. A step reads the matmul weights and the
    # output head (32,000 × 4,096 = 131,072,000), not the embedding table (a lookup):
    # top-2: 32 · (41,943,040 + 2 · 176,160,768 + 32,768) + 131,072,000 = 12,748,587,008;
    # all 8 experts: 32 · (41,943,040 + 8 · 176,160,768 + 32,768) + 131,072,000 = 46,571,454,464.
    # × 2 bytes, plus what every step reads besides: the norm vectors (32 · 2 · 4,096 + 4,096) × 2
    # = 532,480 B and one embedding row 8,192 B = 540,672 B.
    e = pb.mixture_of_experts(get_model("mixtral-8x7b"), h100, 4)
    assert e.total_bytes_per_token == 93_142_908_928 + 540_672
    assert e.active_bytes_per_token == 25_497_174_016 + 540_672
    assert e.experts_touched == pytest.approx(5.46875)  # 8 · (1 − (6/8)^4) = 8 · (1 − 0.31640625)
    assert e.before.arithmetic_intensity == pytest.approx(1.0, rel=1e-3)
    assert e.after.arithmetic_intensity < e.dense_after.arithmetic_intensity


def test_mixture_of_experts_rejects_dense(h100):
    with pytest.raises(InputError, match="is dense"):
        pb.mixture_of_experts(get_model("llama-3.1-8b"), h100, 4)


# ---------------------------------------------------------------- tensor parallelism ---------
def test_tensor_parallel_llama_70b(h100):
    # Llama 3.1 70B: 70,553,706,496 parameters (80 layers of 855,654,400 + 2 × 128,256 × 8,192 + 8,192)
    # → 141,107,412,992 B in bf16. Decode with one token cached holds two positions of KV
    # (2 × 2·80·8·128·2 = 655,360 B). Activations at batch 1: the residual stream 8,192 × 2 =
    # 16,384 B plus the largest kernel's inputs and outputs, the head's 8,192 × 2 + 128,256 × 2 =
    # 272,896 B: 289,280 B. Total 141,108,357,632 B. One H100 (85,520,809,984 B usable, 2 GiB
    # reserved) cannot hold it; ⌈141,108,357,632 / 83,373,326,336⌉ = 2 can.
    tp = pb.tensor_parallel(get_model("llama-3.1-70b"), h100, 8)
    assert tp.memory_required_bytes == 141_107_412_992 + 655_360 + 289_280
    assert not tp.fits_one_device and tp.fits
    assert tp.min_devices_to_fit == 2
    assert tp.memory_per_device_bytes == pytest.approx(141_108_357_632 / 8 + RESERVE)
    assert tp.aggregate_bandwidth_bytes_per_s == pytest.approx(8 * 3.35e12)
    # The all-reduces over NVLink cost time the ideal leaves out.
    assert tp.time_with_collectives_s > tp.after.time_s


def test_tensor_parallel_bare_model(h100):
    # 80e9 bf16 weights: 160e9 B / 3.35e12 = 47.761 ms on one device, 5.970 ms on 8.
    tp = pb.tensor_parallel(Model.from_param_count(80e9), h100, 8)
    assert tp.before.time_s == pytest.approx(47.761e-3, rel=1e-4)
    assert tp.after.time_s == pytest.approx(5.970e-3, rel=1e-3)


@given(n=st.integers(1, 64))
@settings(max_examples=20)
def test_tensor_parallel_divides_time_not_intensity(n):
    # Each kernel's compute and memory time both fall by N on N-fold roofs, so their sum does.
    tp = pb.tensor_parallel(get_model("llama-3.1-70b"), get_device("h100-sxm5"), n)
    assert tp.speedup == pytest.approx(n)
    assert tp.after.arithmetic_intensity == tp.before.arithmetic_intensity


# ---------------------------------------------------------------- disaggregation -------------
def test_disaggregation_bare_model(h100, bare8b):
    # Prefill of 512 tokens: 2 · 8e9 · 512 = 8.192e12 FLOPs over 16e9 B → intensity 512 > 295:
    # compute-bound, 8.192e12 / 989.4e12 = 8.2797 ms to first token.
    # Decode batch 64: 1.024e12 FLOPs over 16e9 B → intensity 64: memory-bound, 4.7761 ms.
    # Back to back on one GPU: 13.0558 ms, 2.7336 × a normal decode step.
    g = pb.disaggregation(bare8b, h100, 512, 64)
    assert g.prefill.arithmetic_intensity == pytest.approx(512)
    assert g.decode.arithmetic_intensity == pytest.approx(64)
    assert (g.prefill.bound, g.decode.bound) == ("compute-bound", "memory-bound")
    assert g.time_to_first_token_s == pytest.approx(8.2797e-3, rel=1e-4)
    assert g.stalled_decode_step_s == pytest.approx(13.0558e-3, rel=1e-4)
    assert g.stall_ratio == pytest.approx(2.7336, rel=1e-4)
    assert g.kv_transfer_bytes == 0  # a bare model has no KV cache


def test_disaggregation_kv_transfer(h100):
    # 512 prompt tokens × 131,072 B (Llama 3.1 8B, bf16) = 67,108,864 B
    assert pb.disaggregation(get_model("llama-3.1-8b"), h100, 512, 64).kv_transfer_bytes == 67_108_864


# ---------------------------------------------------------------- figures -------------------
FIGS = ("playbook_quantization", "playbook_speculative", "playbook_fusion", "playbook_paged",
        "playbook_moe", "playbook_tp", "playbook_disagg")


def _row(flops, nbytes, time_s, peak, bw):
    return [float(flops), float(nbytes), flops / nbytes, flops / time_s, float(time_s), peak, bw]


def _step_row(s):
    """A step from the kernel model directly: whole-step FLOPs and bytes, the sum of kernel times."""
    return _row(float(s.flops), float(s.bytes), float(s.time_s), s.device.peak_flop_per_s(s.matmul_dtype),
                s.device.memory_bandwidth_bytes_per_s)


def _expected_rows(name):
    """Each figure's points recomputed from the kernel model directly, not through playbook."""
    from roofline.model.formats import Formats

    d = get_device("h100-sxm5")
    m8, ctx = get_model("llama-3.1-8b"), int(example("medium_context"))
    if name == "playbook_quantization":
        steps = [kernels.decode(m8, d, 1, 1, Formats.of(w, "fp8" if w == "fp8" else "bf16"))
                 for w in ("bf16", "fp8", "int8", "int4-g128")]
        return [_step_row(s) for s in steps]
    if name == "playbook_speculative":
        k = int(example("spec_draft_tokens"))
        return [_step_row(kernels.decode(m8, d, 1, ctx)), _step_row(kernels.extend(m8, d, k + 1, ctx))]
    if name == "playbook_fusion":
        n, e = example("fusion_ops"), example("fusion_elements")
        # n ops over e bf16 values: n·e FLOPs; 2·e·2 bytes per pass; memory-bound at 3.35e12 B/s
        return [_row(n * e, n * 2 * e * 2, n * 2 * e * 2 / H100_BW, H100_FP32, H100_BW),
                _row(n * e, 2 * e * 2, 2 * e * 2 / H100_BW, H100_FP32, H100_BW),
                _step_row(kernels.prefill(m8, d, ctx, 1, attention="unfused")),
                _step_row(kernels.prefill(m8, d, ctx, 1, attention="fused"))]
    if name == "playbook_paged":
        mx, act = int(example("long_context")), int(example("medium_context"))
        kv = 2 * 32 * 8 * 128 * 2
        free = H100_USABLE - m8.total_params * 2 - RESERVE
        b1, b2 = int(free // (mx * kv)), int(free // (math.ceil(act / 16) * 16 * kv))
        return [_step_row(kernels.decode(m8, d, b, act - 1)) for b in (b1, b2)]
    if name == "playbook_moe":
        mx, b, d = get_model("mixtral-8x7b"), int(example("batch_mid")), get_device("h200-sxm")
        return [_step_row(kernels.decode(mx, d, 1, 1)), _step_row(kernels.decode(mx, d, b, 1)),
                # the dense comparison reads what batch-1 Mixtral's matmuls read: 12,748,587,008 weights
                # (see test_mixture_of_experts_hand_values)
                _step_row(kernels.decode(Model.from_param_count(12_748_587_008), d, b, 1))]
    if name == "playbook_tp":
        n, s = int(example("tp_degree")), kernels.decode(get_model("llama-3.1-70b"), d, 1, 1)
        one = _step_row(s)
        # N-fold roofs: every kernel's time ÷ N
        return [one, _row(one[0], one[1], one[4] / n, n * one[5], n * one[6])]
    if name == "playbook_disagg":
        return [_step_row(kernels.prefill(m8, d, example("prompt_len"))),
                _step_row(kernels.decode(m8, d, example("batch_mid"), ctx))]
    raise KeyError(name)


@pytest.mark.parametrize("name", FIGS)
def test_figure_csv_matches_package(name):
    from figures_gen import module

    rows = list(csv.reader(io.StringIO(module(name).data().to_csv())))
    header, body = rows[0], rows[1:]
    assert header[2:] == ["flops", "bytes", "arithmetic_intensity_flop_per_byte", "attained_flop_per_s",
                          "time_s", "peak_flop_per_s", "bandwidth_bytes_per_s"]
    expected = _expected_rows(name)
    assert len(body) == len(expected)
    for got, want in zip(body, expected):
        assert [float(v) for v in got[2:]] == pytest.approx(want, rel=1e-5), got[1]


@pytest.mark.parametrize("name", FIGS)
def test_figure_renders_small_deterministic_with_alt(name):
    from figures_gen import module, render

    svg, csv_text = render(name)
    assert len(svg) <= 40_000, f"{name}: {len(svg)} bytes of SVG"
    assert second_render(name) == svg, f"{name}.svg differs between two renders"
    assert csv_text == module(name).data().to_csv()
    mod = module(name)
    assert len(mod.alt()) > 80 and mod.caption()


def test_figures_registered():
    from figures_gen import FIGURES

    assert set(FIGS) <= set(FIGURES)
    assert not (set(p.stem for p in (ROOT / "figures_gen").glob("playbook_*.py")) - set(FIGS))


# ---------------------------------------------------------------- the page ------------------
def test_page_tokens_and_claims_evaluate():
    """Every token and claim on docs/playbook.md evaluates (the build would fail otherwise)."""
    from roofline_site.numbers.tokens import expand

    from mkdocs.utils.meta import get_data

    body, meta = get_data((ROOT / "docs" / "playbook.md").read_text(encoding="utf-8"))
    records = []
    used = []
    expand(body, "playbook.md", records, {"figure": lambda n: used.append(n) or ""}, bindings=meta["bindings"])
    assert len(records) > 40
    assert set(FIGS) <= set(used), "every playbook figure appears on the page"


def test_page_answers_are_package_values():
    """Exercise answers: recomputed here from the package directly."""
    from roofline.quantities import NAMESPACE as ns

    ev = lambda expr: eval(expr, {"__builtins__": {}}, dict(ns))  # noqa: E731
    # int4-g128 Llama 3.1 70B: layer matmuls 80 × (8192·12288 + 8192·8192 + 3·8192·28672) =
    # 68,451,041,280 weights × 0.51953125 B = 35,562,455,040 B; embedding and head kept bf16,
    # 2 × 128,256 × 8,192 × 2 = 4,202,692,608 B; norms (80·2·8192 + 8192) × 2 = 2,637,824 B.
    assert float(ev('weights_size("llama-3.1-70b", "int4")')) == 35_562_455_040 + 4_202_692_608 + 2_637_824
    # fp8 70B: 70.55 GB of weights (+ two KV positions, activations and the 2 GiB reserve) fits
    # one H100's 85.5 GB usable.
    assert float(ev('tensor_parallel("llama-3.1-70b", "h100-sxm5", 1, "fp8").min_devices')) == 1
    # the weaker draft: (1 − 0.6^5) / 0.4 = 2.3056
    assert float(ev('accepted_tokens(example("spec_draft_tokens"), example("spec_acceptance_low"))')) == pytest.approx(2.3056)


def test_docstring_examples_run():
    """The one-line examples in roofline.model.playbook's docstrings are true."""
    import doctest

    result = doctest.testmod(pb, extraglobs={"get_model": get_model, "get_device": get_device, "Model": Model},
                             optionflags=doctest.ELLIPSIS, report=False)
    assert result.attempted >= 9 and result.failed == 0, result
