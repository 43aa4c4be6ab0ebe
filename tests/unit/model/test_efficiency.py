"""The expected step: kernel efficiencies fitted to published kernel rows, the per-step overhead, the
bound it must respect (never faster than the ceiling), and its independence from serving runs.
Expected values are derived by hand in the comments."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from roofline.errors import InputError, SpecError
from roofline.model import efficiency, kernels, parallel, validation
from roofline.model.formats import Formats
from roofline.model.parallel import Layout
from roofline.model.point import RooflinePoint
from roofline.registry import measurements
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model
from tests.conftest import ROOT

TEXT = (ROOT / "src" / "roofline" / "data" / "measurements.toml").read_text()
H100, H200, MI300X = get_device("h100-sxm5"), get_device("h200-sxm"), get_device("mi300x")
L8, L70, QWEN = get_model("llama-3.1-8b"), get_model("llama-3.1-70b"), get_model("qwen3-235b-a22b")


def _work(model, decode_requests, context, prefill_tokens=0.0):
    """A mixed step: `decode_requests` decoding at `context` cached tokens and one prompt chunk of
    `prefill_tokens` starting from an empty cache."""
    L = model.n_layers
    d = float(decode_requests)
    p = float(prefill_tokens)
    return kernels.MixedWork(decode_tokens=d, decode_positions=d * L * context, prefill_tokens=p,
                             prefill_positions=L * p, prefill_pairs=L * p * (p + 1) / 2,
                             head_tokens=d + (1.0 if p else 0.0), requests=d + (1.0 if p else 0.0),
                             kv_positions=d * L * context + L * p)


def test_one_kernel_from_a_two_point_table_by_hand():
    # Two rows: efficiency 0.5 at M = 64 and 0.8 at M = 4096. The least-squares line through two
    # points passes through both; M = 512 is their geometric midpoint (√(64 · 4096) = 512), so
    # the efficiency there is halfway: 0.65.
    f = efficiency.fit([(64, 0.5), (4096, 0.8)])
    eta, outside = f.at(512)
    assert eta == pytest.approx(0.65, rel=1e-12) and not outside
    # A memory-bound kernel reading 3.35 MB on 3.35 TB/s takes 1 µs at its roofline, 1 ÷ 0.65 µs expected.
    op = RooflinePoint("down_proj", weight_bytes=3.35e6, peak_flop_per_s=1e15, bandwidth_bytes_per_s=3.35e12)
    assert efficiency.kernel_time_s(op, eta) == pytest.approx(1e-6 / 0.65, rel=1e-12)


def test_a_published_row_efficiency_by_hand():
    # DeepGEMM M 4096, N 7168, K 16384 at 1,426 TFLOPS on the H800: compute-bound, so its efficiency
    # is 1426 ÷ the H100 SXM5's dense FP8 peak of 1978.9 = 0.7206.
    row = next(r for r in measurements.kernel_measurements("matmul") if (r.m, r.n, r.k) == (4096, 7168, 16384))
    assert efficiency.row_efficiency(row) == pytest.approx(1426 / 1978.9, rel=1e-9)
    # An NVFP4 row on the B200, M 1: 2 · 6144 · 4096 FLOPs at 3.562 TFLOP/s take 14.13 µs; it moves
    # (4096 + 6144 · 4096) × (0.5 + 1/16) B in and 6144 × 2 B out = 14,170,112 B, 1.840 µs at the
    # registry's 7.7 TB/s: efficiency 1.840 ÷ 14.13 = 0.1302.
    row = next(r for r in measurements.kernel_measurements("matmul")
               if r.device_id == "b200" and (r.m, r.n, r.k) == (1, 6144, 4096))
    moved = (4096 + 6144 * 4096) * (0.5 + 1 / 16) + 6144 * 2
    assert efficiency.row_efficiency(row) == pytest.approx((moved / 7.7e12) / (2 * 6144 * 4096 / 3.562e12), rel=1e-9)
    assert efficiency.row_efficiency(row) == pytest.approx(0.1302, abs=5e-5)


def test_a_kernel_runs_at_its_own_device_and_formats_rows_first():
    # The H200 has FP8 matmul rows of its own; the B200 has none in FP8 (its rows are FP4 and BF16), so every
    # device's FP8 rows are used and the step says so.
    assert efficiency.fit_for("matmul", "h200-sxm", "fp8")[1] == ""
    fit, note = efficiency.fit_for("matmul", "b200", "fp8")
    assert note == "matmul: no fp8 rows measured on b200; fp8 rows of other devices used"
    assert fit.rows == len([r for r in measurements.kernel_measurements("matmul") if r.dtype == "fp8"])


def test_the_mi300x_runs_its_matmuls_at_amds_published_gemm_efficiency():
    # AMD's Max-Achievable FLOPs table: 1,273 TFLOP/s FP8 at M 4096, N 3648, K 32896 on the MI300X. That GEMM
    # is compute-bound (2·4096·3648·32896 FLOP = 983 TFLOP take 376 µs at the 2,614.9 TFLOP/s FP8 peak; its
    # 285 MB take 54 µs at 5.3 TB/s), so its efficiency is 1,273 ÷ 2,614.9 = 0.4868, and with one size the
    # line is flat at it: every M runs there, outside the measured size, with a notice.
    fit, note = efficiency.fit_for("matmul", "mi300x", "fp8")
    assert note == "" and fit.rows == 1
    assert fit.at(4096)[0] == pytest.approx(1273 / 2614.9, rel=1e-9)
    assert fit.at(64) == (pytest.approx(1273 / 2614.9, rel=1e-9), True)


def test_interpolation_is_monotone_and_clamps_with_a_notice():
    for kind, f in efficiency.fits().items():
        grid = np.geomspace(f.size_min, f.size_max, 50)
        eta = np.asarray(f.at(grid)[0])
        steps = np.diff(eta)
        assert (steps >= -1e-15).all() or (steps <= 1e-15).all(), kind
        assert (eta > 0).all() and (eta <= 1).all()
        # Below and above the measured sizes: the efficiency at the nearest measured size, flagged.
        below, out_below = f.at(f.size_min / 10)
        above, out_above = f.at(f.size_max * 10)
        assert out_below and out_above
        assert below == f.at(f.size_min)[0] and above == f.at(f.size_max)[0]
    # The smallest decode attention measured reads 16.8 MB of KV cache in one layer (batch 8 at 1,024
    # positions, 2 KB each). Batch 1 at 128 positions of Llama 3.1 8B in BF16 reads 128 × 2 × 8 × 128 × 2 B
    # = 0.52 MB a layer: below the measured sizes, and the step says so.
    step = efficiency.expected_mixed(L8, H100, _work(L8, 1, 127))
    assert any(n.startswith("attention decode: KV bytes read per layer outside the measured") for n in step.notices)


@pytest.mark.parametrize("model,device,layout", [(L8, H100, Layout()), (L70, H200, Layout(tp=2)),
                                                 (L70, H100, Layout(pp=2)), (QWEN, H200, Layout(ep=8)),
                                                 (L70, MI300X, Layout(tp=8))])
def test_expected_is_never_below_the_ceiling_over_a_grid(model, device, layout):
    f8 = Formats.of("fp8", "fp8", "fp8")
    for batch in (1, 8, 64, 512):
        for context in (128, 4096):
            for chunk in (0, 512, 8192):
                w = _work(model, batch, context, chunk)
                ceiling = parallel.mixed(model, device, w, f8, "fused", layout)
                expected = efficiency.expected_mixed(model, device, w, f8, "fused", layout)
                assert float(ceiling.time_s) <= float(expected.time_s)
                assert float(expected.ceiling.time_s) == float(ceiling.time_s)


def test_the_overhead_adds_once_per_step():
    # vLLM's row: 4 ms a step; TensorRT-LLM's overlap scheduler: 0. The difference is 4 ms whatever
    # the layout: a pipeline of two stages pays it once, not once per stage.
    assert efficiency.step_overhead_s("vLLM") == pytest.approx(4e-3)
    assert efficiency.step_overhead_s("TensorRT-LLM") == 0.0
    for layout in (Layout(), Layout(pp=2), Layout(tp=4)):
        w = _work(L70, 16, 2048, 512)
        a = efficiency.expected_mixed(L70, H100, w, layout=layout, engine="vLLM")
        b = efficiency.expected_mixed(L70, H100, w, layout=layout, engine="TensorRT-LLM")
        assert float(a.time_s) - float(b.time_s) == pytest.approx(4e-3, rel=1e-9)


def test_an_unknown_engine_is_one_sentence():
    with pytest.raises(InputError, match=r"^--engine: no per-step overhead is recorded for 'Ollama'; known: "):
        efficiency.step_overhead_s("Ollama")


def test_validation_statistics_by_hand_on_three_runs():
    # Ratios 1.0, 0.8 and 0.5: median 0.8; within ±25 % (0.75 to 1.25): 1.0 and 0.8, two of three;
    # within ±50 % (0.5 to 1.5): all three; geometric-mean error exp((|ln 1| + |ln 0.8| + |ln 0.5|) ÷ 3)
    # = exp((0 + 0.22314 + 0.69315) ÷ 3) = exp(0.30543) = 1.35721.
    s = validation.stats([1.0, 0.8, 0.5])
    assert s.median_ratio == 0.8
    assert s.within_25 == pytest.approx(2 / 3)
    assert s.within_50 == 1.0
    assert s.geo_mean_error == pytest.approx(1.35721, rel=1e-5)
    assert not s.meets_targets


def test_no_serving_result_is_read_by_the_expected_model(tmp_path, monkeypatch):
    # Halve every published serving figure: the kernel fits and an expected step stay exactly the same,
    # while the validation ratios (which only judge the model) halve.
    w = _work(L70, 64, 2048, 1024)
    before_fits = efficiency.fits()
    before = float(efficiency.expected_mixed(L70, H100, w, layout=Layout(tp=2)).time_s)
    before_ratio = validation.overall().median_ratio

    def halve(m):
        return f"{m.group(1)} = {float(m.group(2)) / 2!r}\n"

    changed = re.sub(r"(output_tokens_per_s_(?:total|per_device)) = ([0-9.]+)\n", halve, TEXT)
    assert changed != TEXT
    path = tmp_path / "measurements.toml"
    path.write_text(changed)
    monkeypatch.setenv("ROOFLINE_MEASUREMENTS", str(path))
    try:
        assert efficiency.fits() == before_fits
        assert float(efficiency.expected_mixed(L70, H100, w, layout=Layout(tp=2)).time_s) == before
        assert validation.overall().median_ratio == pytest.approx(before_ratio / 2, rel=1e-9)
    finally:
        monkeypatch.delenv("ROOFLINE_MEASUREMENTS")
        measurements.REGISTRY.cache_clear()


def test_a_bad_kernel_row_names_its_field(tmp_path, monkeypatch):
    bad = TEXT.replace('kernel = "attention_decode"', 'kernel = "attention_decod"', 1)
    path = tmp_path / "measurements.toml"
    path.write_text(bad)
    monkeypatch.setenv("ROOFLINE_MEASUREMENTS", str(path))
    try:
        with pytest.raises(SpecError, match=r"flashmla-h800-decode: field 'kernel' must be one of matmul, "):
            measurements.kernel_measurements()
    finally:
        monkeypatch.delenv("ROOFLINE_MEASUREMENTS")
        measurements.REGISTRY.cache_clear()


def test_every_expected_serving_figure_is_under_its_ceiling():
    report = validation.report()
    assert report["expected_above_ceiling"] == [] and report["runs_above_ceiling"] == []
    assert math.isfinite(report["overall"]["geo_mean_error"])


def test_deepseek_on_the_mi300x_takes_other_devices_mla_and_expert_rows_and_says_why():
    # dstack's MI300X images (February 2025) predate AMD's AITER kernels (first shipped in a
    # 12 March 2025 image), and AMD published only AITER's speedups, never a kernel's speed: the
    # registry holds no MI300X row for MLA decode (BF16 cache) or grouped FP8 matmuls, so both come
    # from other devices with a notice, and the miss reason names the gap. The H200 run's does not.
    from roofline.registry.measurements import get_serving

    assert efficiency.fit_for("attention_decode", "mi300x", "bf16")[1].startswith(
        "attention decode: no bf16 rows measured on mi300x")
    assert efficiency.fit_for("grouped_matmul", "mi300x", "fp8")[1].startswith(
        "grouped matmul: no fp8 rows measured on mi300x")
    from roofline.model.serving_runs import ceiling

    amd = validation.miss_reason(ceiling(get_serving("dstack-sglang-mi300x-deepseek-r1-3200-800")))
    nvidia = validation.miss_reason(ceiling(get_serving("dstack-sglang-h200-sxm-deepseek-r1-3200-800")))
    assert "AITER" in amd and "AITER" not in nvidia and "FlashMLA" in nvidia
