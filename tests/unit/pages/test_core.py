"""The core explainer pages: exercise answers are tokens equal to values derived by hand, and
every figure of these pages plots exactly what the package computes.

Exercise answers are derived by hand from datasheet and config.json numbers (the arithmetic in a
comment, kernel-model steps in tests/support/hand_values.py), never from the package, so a wrong
package fails here. Figure checks recompute from the low-level `roofline` functions, never from
the token layer the pages use.
"""

from __future__ import annotations

import csv
import io
import math
import re

import numpy as np
import pytest

from tests.support.exercise_blocks import exercise_tests
from tests.support.figures import second_render
from tests.support.hand_values import WEIGHTS_READ_PER_TOKEN, llama_8b_decode, step_time_s, totals
from roofline.examples import example
from roofline.registry.hardware import devices, get_device
from roofline.model.accounting import kv_bytes_per_token
from roofline.model.kernels import speed_of_light_tokens_per_s
from roofline.model.ops import matmul_cost, matmul_cost_seed_convention
from roofline.registry.models import get_model, models
from roofline.model.roofs import (
    device_ridge_point, ridge_point, sparse_peak_flop_per_s,
)

PAGES = ("index.md", "arithmetic-intensity.md", "ridge-point.md", "memory-bandwidth.md", "decode.md")
FIGURES = ("h100_roofline", "intensity_line", "ridge_overlay", "sol_bandwidth", "kv_context")



# ------------------------------------------------------------------ exercises -------------
def _h100():
    return get_device("h100-sxm5")


def _l8b():
    return get_model("llama-3.1-8b")


def _kdec(m, d, batch=1, context=1):
    """A decode step on the kernel model; pages' decode tokens default to one cached token."""
    from roofline.model.kernels import decode
    return decode(m, d, batch, context)


def _kpre(m, d, prompt):
    from roofline.model.kernels import prefill as kprefill
    return kprefill(m, d, prompt)


def _sq(dtype="bf16", seed=False):
    n = int(example("square_n"))
    return (matmul_cost_seed_convention if seed else matmul_cost)(n, n, n, dtype)


# Batch-1 decode of Llama 3.1 8B with one cached token (tests/support/hand_values.py, kernel by
# kernel): 15,012,620,288 FLOPs over 15,020,763,648 bytes, every kernel below its ridge.
_B1_FLOPS, _B1_BYTES = totals(llama_8b_decode(1, 1))
# H100 SXM5 (whitepaper): 989.4 TFLOP/s dense bf16, 67 fp32 (the vector units), 3.35 TB/s.
_H100_PEAK, _H100_VECTOR, _H100_BW = 989.4e12, 67e12, 3.35e12

#: (page, the start of a question's title) -> the value its answer must contain.
EXPECTED = {
    # H100 whitepaper, PCIe column: 756 TFLOP/s dense bf16 over 2.0 TB/s = 378 FLOP/byte.
    ("index.md", "Where is the ridge of the H100 PCIe"): lambda: 756e12 / 2.0e12,
    # Memory-bound, so the step takes bytes ÷ bandwidth: share = FLOPs ÷ (bytes ÷ 3.35 TB/s) ÷ 989.4
    # TFLOP/s = 0.99946 × 3.35 / 989.4 = 0.338 %.
    ("index.md", "What share of the H100 SXM5's peak"): lambda: _B1_FLOPS / (_B1_BYTES / _H100_BW) / _H100_PEAK,
    # Batch 64, one cached token: 960,807,698,432 FLOPs over 15,708,364,800 bytes = 61.17 FLOP/byte,
    # below the ridge (295.3), so the roofline gives 3.35 TB/s × 61.17 = 204.9 TFLOP/s.
    ("index.md", "What does the H100 SXM5's roofline give"): lambda: (
        _H100_BW * (lambda f, b: f / b)(*totals(llama_8b_decode(64, 1)))),
    # n × n squared in fp16: 2n³ FLOPs over 3n² values × 2 bytes = n / 3, with n = 1000.
    ("arithmetic-intensity.md", "What is the arithmetic intensity of squaring"): lambda: 2 * 1000**3 / (3 * 1000**2 * 2),
    # (3×2)·(2×1) in fp8: 2·3·2·1 = 12 FLOPs over 6 + 2 + 3 = 11 one-byte values.
    ("arithmetic-intensity.md", "What is the site-convention intensity"): lambda: 12 / 11,
    # The ridge 989.4 / 3.35 = 295.34 over the batch-1 intensity 0.99946: 295.5 times.
    ("arithmetic-intensity.md", "How far below the H100 SXM5's ridge"): lambda: (
        (_H100_PEAK / _H100_BW) / (_B1_FLOPS / _B1_BYTES)),
    # H200 SXM: the H100's 989.4 TFLOP/s over 4.8 TB/s = 206.125.
    ("ridge-point.md", "What is the H200 SXM's ridge"): lambda: 989.4e12 / 4.8e12,
    # 2:4 sparsity doubles the dense peak: 2 × 312e12 / 2.039e12 = 306.0 FLOP/byte.
    ("ridge-point.md", "What ridge would you compute for the larger-memory A100"): lambda: 2 * 312e12 / 2.039e12,
    # Cloud TPU docs: 197 TFLOP/s bf16 over 819 GB/s = 240.5.
    ("ridge-point.md", "What is the TPU v5e's ridge"): lambda: 197e12 / 0.819e12,
    # The same bytes per token on both: the bandwidth ratio, B200 7.7 TB/s over A100 80GB 2.039 TB/s.
    ("memory-bandwidth.md", "How much faster is batch-1 decode"): lambda: 7.7e12 / 2.039e12,
    # MI300X 5.3 TB/s. The speed of light reads every matmul weight plus the norm vectors
    # (80·2·8192 + 8192) and one embedding row (8192), all bf16.
    ("memory-bandwidth.md", "What is the speed of light of Llama-3.1-70B"): lambda: (
        5.3e12 / (WEIGHTS_READ_PER_TOKEN["llama-3.1-70b"] * 2 + (80 * 2 * 8192 + 8192) * 2 + 8192 * 2)),
    # int8 with per-output-channel fp16 scales and int8 zero points (3 bytes per output row): layer
    # matmuls 6,979,321,856 B + 3 × 32 × (6144 + 4096 + 28672 + 4096) = 4,128,768 B; the head stays
    # bf16, 525,336,576 × 2; one embedding row 8,192 B; norms 532,480 B. H100 SXM5: 3.35 TB/s.
    ("memory-bandwidth.md", "What does storing Llama-3.1-8B's weights in int8"): lambda: (
        _H100_BW / (6_979_321_856 + 4_128_768 + 525_336_576 * 2 + 8_192 + 532_480)),
    # 32,768 cached tokens: 19,315,599,872 bytes (the KV read grows to 32·32,769·1024·2·2), every
    # kernel still memory-bound, so bytes ÷ 3.35 TB/s = 5.77 ms.
    ("decode.md", "How long does one batch-1 decode step"): lambda: (
        step_time_s(llama_8b_decode(1, 32768), _H100_PEAK, _H100_VECTOR, _H100_BW)),
    # fp8 weights: 2 FLOPs per weight over 1 byte per weight = 2 FLOP/byte.
    ("decode.md", "What is the intensity of batch-1 decode of the bare model"): lambda: 2.0,
    # batch × (context + 1 positions read, + 1 entry written) × 2·layers·kv_heads·head_dim·2 bytes
    ("decode.md", "How many bytes of KV cache"): lambda: 64 * (4096 + 2) * 2 * 32 * 8 * 128 * 2,
}


def test_the_hand_derived_steps_are_memory_bound_where_the_answers_say():
    # The answers above divide bytes by bandwidth: true only where no kernel reaches its ridge.
    for kernels in (llama_8b_decode(1, 1), llama_8b_decode(64, 1), llama_8b_decode(1, 32768)):
        _, nbytes = totals(kernels)
        assert step_time_s(kernels, _H100_PEAK, _H100_VECTOR, _H100_BW) == pytest.approx(nbytes / _H100_BW, rel=1e-12)
    assert totals(llama_8b_decode(64, 1)) == (960_807_698_432, 15_708_364_800)
    assert totals(llama_8b_decode(1, 32768))[1] == 19_315_599_872


test_every_page_has_checked_exercises, test_exercise_answer_is_a_token_equal_to_the_hand_value = (
    exercise_tests(PAGES, EXPECTED))


# ------------------------------------------------------------------ package additions ------
def test_sparse_peak_is_twice_dense():
    # NVIDIA's H100 page prints "1,979 TFLOPS*" (with sparsity) beside the whitepaper's 989.4 dense.
    assert sparse_peak_flop_per_s(989.4e12) == pytest.approx(1978.8e12)
    # 1978.8e12 / 3.35e12 = 590.69 FLOP/byte: the sparse ridge quoted as 591.
    assert ridge_point(sparse_peak_flop_per_s(989.4e12), 3.35e12) == pytest.approx(590.69, abs=0.01)


def test_rounded_and_every_device_helpers():
    from roofline.quantities import bound_on_every_device, ratio, ridge, rounded

    assert float(rounded(ridge("h100-sxm5"))) == 295.0        # 295.34 to three figures
    assert float(rounded(ratio(ridge("h100-sxm5"), ridge("h100-sxm5")), 2)) == 1.0
    assert bound_on_every_device("memory-bound", "decode", "llama-3.1-8b")
    # TPU v6e: 918 / 1.638 = 560 FLOP/byte, above a 512-token prefill's intensity, so not everywhere.
    assert not bound_on_every_device("compute-bound", "prefill", "llama-3.1-8b", 512)
    with pytest.raises(Exception, match="phase"):
        bound_on_every_device("memory-bound", "training", "llama-3.1-8b")


def test_generated_tables_cover_the_registry_with_provenance():
    from roofline_site.numbers.table_base import TEACHING_DEVICES
    from roofline_site.numbers.tables import table

    records: list = []
    ridge_html = table("ridge", "ridge-point.md", records)
    rows = [line for line in ridge_html.splitlines() if line.startswith("<tr><td")]
    assert len(rows) == len(devices())
    assert len(records) == 3 * len(devices())            # peak, bandwidth and ridge per device, recorded
    h100 = next(r for r in rows if r.startswith(f"<tr><td>{get_device('h100-sxm5').name}</td>"))
    assert f'data-v="{device_ridge_point(get_device("h100-sxm5"))!r}"' in h100
    assert ">295<" in h100 and "FLOP/byte" not in h100   # 989.4 / 3.35 = 295.3; the unit is in the header
    sol_records: list = []
    sol_html = table("sol", "memory-bandwidth.md", sol_records, model_ids=["llama-3.1-8b"])
    sol_rows = [ln for ln in sol_html.splitlines() if ln.startswith("<tr><td")]
    assert len(sol_rows) == len([i for i in TEACHING_DEVICES if i in devices()])
    assert "tokens/s" not in "".join(re.sub(r'<span class="rl-prov".*?</template></span>', "", r) for r in sol_rows)
    assert all(r.count('class="rl-num"') == 2 for r in sol_rows)  # bandwidth and the model: each with a popover
    with pytest.raises(KeyError, match="unknown table"):
        table("nope")


# ------------------------------------------------------------------ figures ---------------
@pytest.fixture(scope="module")
def rendered():
    from figures_gen import module, render

    return {name: (module(name), *render(name)) for name in FIGURES}


def _csv_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))[1:]


def _close(a, b) -> bool:
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-5)
    except ValueError:
        return str(a) == str(b)


def _assert_csv(text: str, expected_rows: list[tuple]) -> None:
    rows = _csv_rows(text)
    assert len(rows) == len(expected_rows)
    for got, want in zip(rows, expected_rows):
        assert len(got) == len(want) and all(_close(g, w) for g, w in zip(got, want)), (got, want)


def _expected_h100_roofline():
    d = _h100()
    ai = np.logspace(-1, 5, 145)  # six decades, 24 points each, as the figure's data
    return [(x, min(d.peak_flop_per_s(), d.memory_bandwidth_bytes_per_s * x)) for x in ai]


def _expected_intensity_line():
    d, m = _h100(), _l8b()
    sm, sk, sn = (int(example(k)) for k in ("seed_m", "seed_k", "seed_n"))
    values = [
        sm * sn * (2 * sk - 1) / ((sm * sk + sk * sn) * 2),            # seed convention, fp16
        _kdec(m, d).arithmetic_intensity,
        _kdec(m, d, example("batch_mid")).arithmetic_intensity,
        d.peak_flop_per_s() / d.memory_bandwidth_bytes_per_s,
        _sq().arithmetic_intensity,
        _kpre(m, d, example("prompt_len")).arithmetic_intensity,
    ]
    return sorted(values)


def _expected_ridge_overlay():
    from figures_gen.ridge_overlay import DEVICES, HI, LO

    rows = []
    for dev_id in DEVICES:
        d = get_device(dev_id)
        peak, bw = d.peak_flop_per_s("bf16"), d.memory_bandwidth_bytes_per_s
        for x in sorted({LO, peak / bw, HI}):
            rows.append((dev_id, d.name, x, min(peak, bw * x)))
    return rows


def _expected_sol_bandwidth():
    rows = []
    for model_id in ("llama-3.1-8b", "llama-3.1-70b"):
        m = get_model(model_id)
        for d in devices().values():
            # weights (every one, bf16) + the 2 GiB runtime reserve must fit the usable memory;
            # one sequence's KV cache and activations are a few MB, far below any gap here
            fits = m.total_params * 2 + 2 * 2**30 <= (d.usable_memory_bytes or d.memory_capacity_bytes)
            # a step reads every matmul weight, the norm vectors (2 per layer + 1) and one embedding row
            extra = (2 * m.n_layers + 1) * m.hidden_size + m.hidden_size
            rows.append((model_id, d.id, d.memory_bandwidth_bytes_per_s,
                         d.memory_bandwidth_bytes_per_s / ((WEIGHTS_READ_PER_TOKEN[model_id] + extra) * 2),
                         "yes" if fits else "no"))
    return rows


def _expected_kv_context():
    m = _l8b()
    per_token = 2 * m.n_layers * m.kv_heads * m.head_dim * 2     # K and V, bf16
    return [(b, c, b * (c + 1) * per_token)
            for b in (1, 8, int(example("batch_mid"))) for c in (2 ** np.arange(7, 18)).tolist()]


def test_figure_list_registers_these_figures():
    from figures_gen import FIGURES as ALL

    assert set(FIGURES) <= set(ALL)


@pytest.mark.parametrize("name", FIGURES)
def test_figure_alt_text_svg_size_and_determinism(name, rendered):
    mod, svg, _ = rendered[name]
    alt = mod.alt()
    assert len(alt) > 80 and mod.caption().strip(), f"{name} needs alt text and a caption"
    assert len(svg) <= 40_000, f"{name}.svg is {len(svg)} bytes"
    assert second_render(name) == svg, f"{name}.svg differs between two renders"


def test_h100_roofline_csv(rendered):
    _assert_csv(rendered["h100_roofline"][2], _expected_h100_roofline())


def test_intensity_line_csv(rendered):
    rows = _csv_rows(rendered["intensity_line"][2])
    got = [float(r[2]) for r in rows]
    want = _expected_intensity_line()
    assert len(got) == len(want) and all(math.isclose(g, w, rel_tol=1e-5) for g, w in zip(got, want))
    assert [r[0] for r in rows].count("ridge") == 1


def test_ridge_overlay_csv(rendered):
    _assert_csv(rendered["ridge_overlay"][2], _expected_ridge_overlay())


def test_sol_bandwidth_csv(rendered):
    _assert_csv(rendered["sol_bandwidth"][2], _expected_sol_bandwidth())
    assert kv_bytes_per_token(_l8b()) > 0 and speed_of_light_tokens_per_s(_l8b(), _h100()) > 0


def test_kv_context_csv(rendered):
    _assert_csv(rendered["kv_context"][2], _expected_kv_context())


def test_registry_models_listed_in_sol_table_header():
    from roofline_site.numbers.tables import table

    header = table("sol").split("</thead>", 1)[0]
    assert all(m.name in header for m in models().values())
