"""The seeds' numbers, reproduced by the package. Each expected value cites where it comes from."""

import pytest

from roofline.registry.hardware import get_device
from roofline.model.kernels import decode, prefill, speed_of_light_tokens_per_s
from roofline.model.ops import matmul_cost, matmul_cost_seed_convention
from roofline.registry.models import Model, get_model
from roofline.model.roofs import attainable_flop_per_s, device_ridge_point


def test_h100_ridge_is_295():
    # Seed 001: 989e12 / 3.35e12 -> "295 FLOP/byte". H100 whitepaper v1.04 dense BF16 989.4:
    # 989.4 / 3.35 = 295.34.
    assert round(device_ridge_point(get_device("h100-sxm5"))) == 295
    assert device_ridge_point(get_device("h100-sxm5")) == pytest.approx(989.4 / 3.35)


@pytest.mark.parametrize("device_id, expected", [
    ("a100-sxm4-80gb", 153),  # seed 001 "around 153": 312 / 2.039 = 153.0 (A100 80GB SXM4 datasheet)
    ("a100-sxm4-40gb", 201),  # 312 / 1.555 = 200.6 (A100 40GB, Ampere whitepaper)
    ("tpu-v4", 229),          # seed 003 "about 229": 275 / 1.2 = 229.2 (Cloud TPU v4 docs)
])
def test_other_seed_ridges(device_id, expected):
    assert round(device_ridge_point(get_device(device_id))) == expected


def test_seed_matvec_in_its_own_convention():
    # Seed 000: (3×2)·(2×1) in fp16: 3 outputs × (2 multiplies + 1 add) = 9 FLOPs;
    # 8 input numbers × 2 bytes = 16 bytes; 9 / 16 = 0.5625.
    c = matmul_cost_seed_convention(3, 1, 2, "fp16")
    assert (c.flops, c.bytes, c.arithmetic_intensity) == (9, 16, 0.5625)


def test_seed_matvec_in_site_convention():
    # 2·m·n·k = 2·3·1·2 = 12 FLOPs; (6 + 2 + 3) elements × 2 bytes = 22 bytes -> 12/22.
    c = matmul_cost(3, 1, 2, "fp16")
    assert (c.flops, c.bytes) == (12, 22)
    assert c.arithmetic_intensity == pytest.approx(12 / 22)


def test_squaring_a_1000_matrix():
    # Seed 000 exercise. 2·n³ = 2e9 FLOPs; 3·n² fp16 elements = 6e6 bytes -> 333.3 FLOP/byte.
    # (Reading only the input once, as the seed counts bytes: 2e9 / 2e6 = 1000.)
    assert matmul_cost(1000, 1000, 1000, "fp16").arithmetic_intensity == pytest.approx(1000 / 3)


def test_h100_attainable_at_intensity_1():
    # Seed 001: attainable_tflops(1) -> 3.35 TFLOP/s: min(989.4e12, 3.35e12 × 1).
    h = get_device("h100-sxm5")
    assert attainable_flop_per_s(1, h.peak_flop_per_s(), h.memory_bandwidth_bytes_per_s) == pytest.approx(3.35e12)


def test_h100_attainable_at_295_is_just_below_peak():
    # Seed 001 says "989 TFLOPS (right at the ridge)" at 295; the ridge is 295.34, so the
    # bandwidth roof still binds: 3.35e12 × 295 = 988.25e12.
    h = get_device("h100-sxm5")
    assert attainable_flop_per_s(295, h.peak_flop_per_s(), h.memory_bandwidth_bytes_per_s) == pytest.approx(988.25e12)


def test_8b_decode_on_h100():
    # Seed 001: 8e9 params × 2 bytes = 16e9 bytes; 16e9 / 3.35e12 = 4.776 ms -> 209.4 tokens/s.
    s = decode(Model.from_param_count(8e9), get_device("h100-sxm5"))  # batch 1, one token cached
    assert s.bytes == 16e9
    assert s.time_s == pytest.approx(16e9 / 3.35e12)
    assert round(s.time_s * 1e3, 2) == 4.78
    assert round(s.tokens_per_s) == 209
    assert s.bound == "memory-bound"


def test_30b_streams_60_gb():
    # Seed 000: "a 30B model ... 60GB of weights in fp16" and "~60B floating point operations".
    s = decode(Model.from_param_count(30e9), get_device("h100-sxm5"))
    assert s.weight_bytes == 60e9
    assert s.flops == 60e9
    assert s.arithmetic_intensity == pytest.approx(1.0)


def test_batch1_decode_intensity_is_about_one_for_a_real_model():
    # 2 FLOPs per 2-byte weight; KV cache and activations add a little traffic.
    s = decode(get_model("llama-3.1-8b"), get_device("h100-sxm5"))  # batch 1, one token cached
    assert 0.95 < s.arithmetic_intensity < 1.0


@pytest.mark.parametrize("batch", [1, 8, 64])
def test_weight_matmul_intensity_is_about_batch(batch):
    # (B×4096)·(4096×4096) bf16: 2·B·4096² / (2·(4096² + 2·4096·B)) = B / (1 + 2B/4096) ≈ B.
    c = matmul_cost(batch, 4096, 4096, "bf16")
    assert c.arithmetic_intensity == pytest.approx(batch / (1 + 2 * batch / 4096))
    assert c.arithmetic_intensity == pytest.approx(batch, rel=0.04)


@pytest.mark.parametrize("prompt", [4, 16, 64])
def test_prefill_intensity_is_about_prompt_length(prompt):
    # For a bare dense model (weights only), prefill intensity = 2·P·T / (2·P) = T exactly.
    s = prefill(Model.from_param_count(8e9), get_device("h100-sxm5"), prompt)
    assert s.arithmetic_intensity == pytest.approx(prompt)
    # A real model adds activation and KV traffic, and its output head (525,336,576 of its
    # 7,504,658,432 matmul weights, 7 %) is read whole for the last position only, so its
    # intensity sits below 0.93·T + 1 (the layer matmuls' share of the weight bytes, times T).
    r = prefill(get_model("llama-3.1-8b"), get_device("h100-sxm5"), prompt)
    assert 0.85 * prompt < r.arithmetic_intensity < 0.93 * prompt + 1


def test_512_token_prefill_is_compute_bound_on_h100():
    # Seed 001: "A 512-token prompt gives AI ≈ 512 > 295 -> compute-bound".
    assert prefill(get_model("llama-3.1-8b"), get_device("h100-sxm5"), 512).bound == "compute-bound"


def test_speed_of_light_matches_reference_table():
    # hardware-specs-notes.md §3: SOL = bandwidth / (2 × params): 8B on H100 -> 209; 70B on H200 -> 34.3.
    assert speed_of_light_tokens_per_s(Model.from_param_count(8e9), get_device("h100-sxm5")) == pytest.approx(209.375)
    assert speed_of_light_tokens_per_s(Model.from_param_count(70e9), get_device("h200-sxm")) == pytest.approx(4.8e12 / 140e9)
