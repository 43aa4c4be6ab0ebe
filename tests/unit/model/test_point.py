"""One roofline point type, mxfp4, kernels.extend, and the step-time ordering on every registry pair.

Expected values derived by hand in the comments (registry datasheet numbers: H100 SXM5 989.4
TFLOP/s dense fp16/bf16, 3.35 TB/s; B200 2,250 TFLOP/s bf16 and 9,000 fp4 dense, 7.7 TB/s),
never copied from the code's output.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofline.errors import InputError
from roofline.model import kernels, ops
from roofline.model.formats import Formats, parse_weight_format
from roofline.model.point import RooflinePoint
from roofline.registry.hardware import devices, get_device
from roofline.registry.models import Model, get_model, models


# ------------------------------------------------------------------ the point ---------------
def test_matmul_cost_is_a_point_under_the_device_roofs():
    # (4096×4096)·(4096×4096) fp16: 2·4096³ = 137,438,953,472 FLOPs; three 4096² fp16 matrices
    # = 3 · 16,777,216 · 2 = 100,663,296 B; intensity 1,365.33 > ridge 989.4 / 3.35 = 295.34, so
    # compute-bound at 137,438,953,472 / 989.4e12 = 138.911 µs.
    c = ops.matmul_cost(4096, 4096, 4096, "fp16", get_device("h100-sxm5"))
    assert isinstance(c, RooflinePoint)
    assert (c.flops, c.bytes) == (137_438_953_472, 100_663_296)
    assert c.bound == "compute-bound"
    assert c.time_s == pytest.approx(137_438_953_472 / 989.4e12)
    assert c.ridge_point == pytest.approx(989.4 / 3.35)


# ------------------------------------------------------------------ mxfp4 -------------------
def test_mxfp4_bytes_per_weight_from_the_ocp_spec():
    # OCP MX v1.0: a block of 32 E2M1 elements (4 bits) shares one E8M0 scale (8 bits):
    # (32 · 4 + 8) / 32 = 4.25 bits = 0.53125 bytes; no zero point.
    f = parse_weight_format("mxfp4")
    assert (f.element, f.group_size, f.zero_points, f.scale_bytes) == ("fp4", 32, False, 1.0)
    assert f.bytes_per_weight() == 0.53125


def test_mxfp4_bare_model_bytes_per_token():
    # 8e9 weights × 0.53125 B = 4.25e9 B
    assert kernels.weight_bytes_per_token(Model.from_param_count(8e9), "mxfp4") == 4.25e9


def test_mxfp4_runs_dequantized_on_the_h100_and_natively_on_the_b200():
    m = Model.from_param_count(8e9)
    # H100: no fp4 tensor cores; mxfp4 weights with bf16 activations run at the bf16 peak.
    h = kernels.decode(m, get_device("h100-sxm5"), 1, 1, Formats.of("mxfp4"))
    assert h.matmul_dtype == "bf16" and h.peak_flop_per_s == 989.4e12
    # B200 with fp4 activations: the fp4 peak, 9,000 TFLOP/s dense (144 PF sparse per 8 GPUs ÷ 8 ÷ 2).
    b = kernels.decode(m, get_device("b200"), 1, 1, Formats.of("mxfp4", "fp4"))
    assert b.matmul_dtype == "fp4" and b.peak_flop_per_s == 9000e12
    # With bf16 activations the B200 dequantizes too.
    assert kernels.decode(m, get_device("b200"), 1, 1, Formats.of("mxfp4")).matmul_dtype == "bf16"
    with pytest.raises(InputError, match="no published fp4 peak"):
        kernels.decode(m, get_device("h100-sxm5"), 1, 1, Formats.of("mxfp4", "fp4"))


def test_mxfp4_head_stays_bf16():
    # gpt-oss keeps its embedding and head in bf16: Llama 3.1 8B's head 128,256 × 4,096 × 2 B.
    s = kernels.decode(get_model("llama-3.1-8b"), get_device("h100-sxm5"), 1, 1, Formats.of("mxfp4"))
    head = next(k for k in s.ops if k.name == "lm_head")
    assert head.weight_bytes == 128_256 * 4_096 * 2


def test_cli_accepts_mxfp4_and_refuses_fp4_without_a_peak(capsys):
    from roofline.cli import main

    assert main(["decode", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--weight-format", "mxfp4",
                 "--json"]) == 0
    capsys.readouterr()
    assert main(["decode", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--weight-format", "mxfp4",
                 "--activation-dtype", "fp4"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "fp4" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


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
@settings(deadline=None, max_examples=30)
def test_verify_pass_sum_at_least_overlap(k, ctx):
    v = kernels.extend(get_model("llama-3.1-8b"), get_device("h100-sxm5"), k + 1, ctx)
    assert v.time_s >= v.time_perfect_overlap_s * (1 - 1e-12)
