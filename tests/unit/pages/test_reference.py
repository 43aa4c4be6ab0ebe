"""The prefill, batching, hardware-reference and conventions pages.

Exercise answers must be tokens equal to values derived by hand from datasheet and config.json
numbers (the arithmetic in a comment, kernel-model steps in tests/support/hand_values.py), never
from the package; the figures these pages add must plot what the package computes;
`kernels.crossover_prompt_len` is checked against hand derivations. Figure and table checks recompute
from the low-level `roofline` functions by a different route (brute-force sweeps instead of the
package's bisection), never read back from the token layer the pages use.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pytest

from tests.conftest import ROOT
from tests.support.exercise_blocks import exercise_tests
from tests.support.figures import second_render
from tests.support.hand_values import WEIGHTS_READ_PER_TOKEN, llama_8b_decode, llama_8b_prefill, step_time_s, totals
from roofline.errors import InputError
from roofline.examples import example
from roofline.registry.hardware import devices, get_device
from roofline.model import kernels
from roofline.model.formats import Formats
from roofline.registry.models import Model, get_model

PAGES = ("prefill.md", "batching.md", "hardware.md", "conventions.md")
FIGURES = ("prefill_intensity", "batch_sweep", "hardware_map")



def _h100():
    return get_device("h100-sxm5")


def _l8b():
    return get_model("llama-3.1-8b")


def _ridge(d) -> float:
    return d.peak_flop_per_s(d.sixteen_bit_dtype) / d.memory_bandwidth_bytes_per_s


def _first_prompt_reaching_ridge(model, device, max_len: int = 8192) -> int:
    """Brute force: every prompt length 1…max_len in one sweep, the first at or above the ridge."""
    t = np.arange(1, max_len + 1)
    ai = np.asarray(kernels.prefill(model, device, t).arithmetic_intensity)
    return int(t[np.argmax(ai >= _ridge(device))])


# H100 SXM5 (whitepaper): 989.4 TFLOP/s dense bf16, 67 fp32 (the vector units), 3.35 TB/s.
_H100_PEAK, _H100_VECTOR, _H100_BW = 989.4e12, 67e12, 3.35e12


def _hand_first_prompt_reaching(ridge: float, max_len: int = 8192) -> int:
    """The first prompt whose hand-derived Llama 3.1 8B prefill intensity reaches `ridge`.

    From tests/support/hand_values.py: FLOPs(n) = 13,960,888,320·n + 264,704·n(n + 1) + 1,050,673,152
    (twice the 6,979,321,856 layer weights plus norms, adds and SiLU per token; attention
    517 FLOPs per score × 32 heads × 32 layers × n(n + 1)/2 pairs; the head on one position);
    bytes(n) = 10,518,528·n + 15,010,114,048 (activations, K and V per token; weights, head once).
    """
    for n in range(1, max_len + 1):
        flops, nbytes = totals(llama_8b_prefill(n))
        if flops / nbytes >= ridge:
            return n
    raise AssertionError(f"no prompt up to {max_len} reaches {ridge}")


#: (page, the start of a question's title) -> the value its answer must contain.
EXPECTED = {
    # TPU v6e: 918 TFLOP/s bf16 over 1.638 TB/s = 560.44; intensity 560.32 at 1009 tokens, 560.66 at 1010.
    ("prefill.md", "At what prompt length does a Llama-3.1-8B prefill reach the TPU v6e"): lambda: (
        _hand_first_prompt_reaching(918e12 / 1.638e12)),
    # Weights only, fp8: 2 FLOPs per weight per token over 1 byte per weight -> 2 × 512 = 1024.
    ("prefill.md", "What is the prefill intensity of the weights-only model with fp8"): lambda: 1024.0,
    # 32,768 tokens: qkv, attention, o_proj, gate_up and down are compute-bound, 741,629,266,755,584
    # FLOPs ÷ 989.4 TFLOP/s = 0.7496 s; norms, adds, SiLU, the embedding and the one-position head are
    # memory-bound, 178,218,871,296 B ÷ 3.35 TB/s = 0.0532 s; 0.8028 s in all.
    ("prefill.md", "What is the time to first token"): lambda: (
        step_time_s(llama_8b_prefill(32768), _H100_PEAK, _H100_VECTOR, _H100_BW)),
    # Weights only (the sources' definition), bf16: intensity B; B200 ridge 2250 / 7.7 = 292.2 -> 293.
    ("batching.md", "What is the critical batch of Llama-3.1-8B on the B200"): lambda: 293.0,
    # fp8 weights × fp8 activations: each matmul against the roof it runs on. The fp8 layer matmuls
    # do 2·B FLOPs per one-byte weight: 2·B ≥ fp8 ridge 1978.9 / 3.35 = 590.72 -> B ≥ 295.36; the
    # bf16 head does B per byte against the bf16 ridge 989.4 / 3.35 = 295.34. Both: 296. (Pooling the
    # head's bytes with the fp8 matmuls' against the fp8 ridge gave 317.)
    ("batching.md", "What is the critical batch with fp8 weights and fp8 activations"): lambda: 296.0,
    # Batch 64 at 4096 cached tokens: 50,059,714,560 bytes, every kernel below its ridge (the matmuls
    # at about 64 FLOP/byte, attention about 4), so 64 tokens per 50,059,714,560 B ÷ 3.35 TB/s = 4283/s.
    ("batching.md", "What whole-batch throughput"): lambda: (
        64 / step_time_s(llama_8b_decode(64, 4096), _H100_PEAK, _H100_VECTOR, _H100_BW)),
    # Gaudi 3 whitepaper: 1835 TFLOP/s bf16 at 1750 MHz; at the 1600 MHz shipping clock
    # 1835 × 1600 / 1750 = 1677.7 TFLOP/s (recorded to 0.1), over 3.7 TB/s = 453.4 FLOP/byte.
    ("hardware.md", "What is the ridge of the Intel Gaudi 3"): lambda: 1677.7 / 3.7,
    # MI355X 8.0 TB/s over H100 SXM5 3.35 TB/s.
    ("hardware.md", "How many times the H100 SXM5's memory bandwidth"): lambda: 8.0 / 3.35,
    ("hardware.md", "How fast, at most, can one L4"): lambda: (
        # L4: 300 GB/s; every matmul weight, the norm vectors (32·2·4096 + 4096) and one embedding row, in bf16
        300e9
        / (WEIGHTS_READ_PER_TOKEN["llama-3.1-8b"] * 2 + (32 * 2 * 4096 + 4096) * 2 + 4096 * 2)),
    # Cloud TPU7x docs: 192 GiB = 192 × 2**30 bytes = 206.2 GB.
    ("conventions.md", "What does the TPU7x's memory capacity"): lambda: 192 * 2**30,
    # Seed 000: 3 outputs × (2 multiplies + 1 add) = 9 FLOPs over 8 fp16 inputs = 16 bytes.
    ("conventions.md", "What is the intensity of the introduction's matrix-vector"): lambda: 9 / 16,
    # Sparse bf16 = 2 × 989.4 TFLOP/s; over 3.35 TB/s = 590.69 FLOP/byte.
    ("conventions.md", "What ridge would you get for the H100 SXM5 from its sparse"): lambda: 2 * 989.4 / 3.35,
}

test_every_page_has_checked_exercises, test_exercise_answer_is_a_token_equal_to_the_hand_value = (
    exercise_tests(PAGES, EXPECTED))


# ------------------------------------------------------------------ crossover_prompt_len ---
def _bare():
    return Model.from_param_count(example("bare_params"))


@pytest.mark.parametrize("weight_format, activation, batch, device_id, expected", [
    # Weights only, bf16: intensity = 2·P·T / (2·P) = T. H100 SXM5 ridge 989.4/3.35 = 295.34 -> T = 296.
    ("bf16", "bf16", 1, "h100-sxm5", 296),
    # fp8 weights × fp8 activations run at the fp8 peak: ridge 1978.9/3.35 = 590.72; intensity 2T -> T = 296.
    ("fp8", "fp8", 1, "h100-sxm5", 296),
    # int8 weights with bf16 activations are dequantized and run at the bf16 peak: ridge 295.34; intensity
    # 2T ÷ (1 + 2/4096 per-channel scale bytes) -> T = 148 (147.74 up).
    ("int8", "bf16", 1, "h100-sxm5", 148),
    # Four prompts at once share the weight read: intensity 4T; 295.34 / 4 = 73.84 -> T = 74.
    ("bf16", "bf16", 4, "h100-sxm5", 74),
    # M2 Ultra: 27.2 / 0.8 = 34 exactly; reaching the ridge counts, so T = 34.
    ("bf16", "bf16", 1, "m2-ultra", 34),
])
def test_crossover_prompt_len_by_hand(weight_format, activation, batch, device_id, expected):
    f = Formats.of(weight_format, activation)
    assert kernels.crossover_prompt_len(_bare(), get_device(device_id), batch, f) == expected


@pytest.mark.parametrize("device_id", ["h100-sxm5", "a100-sxm4-80gb", "tpu-v6e", "m4-max"])
def test_crossover_of_a_real_model_is_the_first_prompt_at_the_ridge(device_id):
    d, m = get_device(device_id), _l8b()
    t = kernels.crossover_prompt_len(m, d)
    ai = lambda n: kernels.prefill(m, d, n).arithmetic_intensity  # noqa: E731
    assert ai(t) >= _ridge(d) > ai(t - 1)
    # Activations and KV writes cost bytes: a real model needs at least the weights-only prompt.
    assert t >= kernels.crossover_prompt_len(_bare(), d)


def test_crossover_none_and_bad_input():
    assert kernels.crossover_prompt_len(_l8b(), get_device("tpu-v6e"), max_len=100) is None  # 100 < 560 at most
    with pytest.raises(InputError, match="batch"):
        kernels.crossover_prompt_len(_l8b(), _h100(), batch=0)


def test_capacity_as_quoted():
    from roofline.quantities import capacity, capacity_quoted

    # Cloud TPU v4 docs: 32 GiB = 32 × 2**30 = 34,359,738,368 bytes = 34.4 GB.
    assert capacity_quoted("tpu-v4").text() == "32 GiB"
    assert capacity("tpu-v4").text() == "34.4 GB"
    assert capacity_quoted("h100-sxm5").text() == "80 GB"


# ------------------------------------------------------------------ tables ----------------
def _html_rows(markup: str) -> list[str]:
    return [ln for ln in markup.splitlines() if ln.startswith("<tr><td")]


@pytest.mark.parametrize("name", ["prefill-crossover", "critical-batches"])
def test_teaching_tables_show_a_device_of_each_kind_and_record_every_number(name):
    from roofline_site.numbers.table_base import TEACHING_DEVICES
    from roofline_site.numbers.tables import table

    records: list = []
    md = table(name, "x.md", records)
    rows = _html_rows(md)
    # Units in the headers, never repeated in a cell (the reading issue): the ridge column's unit once.
    assert md.count("FLOP/byte</span></button>") == 1 and "FLOP/byte</td>" not in md
    # The teaching pages show the listed devices the registry holds, not the whole registry.
    assert len(rows) == len([i for i in TEACHING_DEVICES if i in devices()]) < len(devices())
    assert {d.kind for d in devices().values() if d.id in TEACHING_DEVICES} >= {"gpu", "tpu", "soc", "cpu"}
    assert sum(r.count('class="rl-num"') for r in rows) == len(records) > 0


def test_teaching_tables_fall_back_to_every_device_of_a_registry_of_ones_own():
    from roofline_site.numbers.table_base import teaching_devices

    assert [d.id for d in teaching_devices(["nope"])] == list(devices())
    assert [d.id for d in teaching_devices(["l4", "h100-sxm5"])] == ["h100-sxm5", "l4"]  # registry order


def test_hardware_table_one_row_per_device_units_in_headers_not_cells():
    from roofline_site.numbers.tables import table

    records: list = []
    markup = table("hardware", "x.md", records)
    rows = _html_rows(markup)
    assert len(rows) == len(devices())
    head = markup.split("<thead>", 1)[1].split("</thead>", 1)[0]
    for unit in ("GB", "TB/s", "TFLOP/s", "TOP/s", "FLOP/byte"):
        assert f'<span class="rl-unit">{unit}</span>' in head
    text = re.sub(r'<span class="rl-prov".*?</template></span>', "", "".join(rows))
    text = re.sub(r"<[^>]+>", " ", text)
    # No unit and no registry id in a cell (a GiB figure beside the GB one is the one exception).
    assert not re.search(r"\b(TB/s|TFLOP/s|TOP/s|FLOP/byte)\b", text)
    assert not any(f" {d.id} " in f" {text} " for d in devices().values() if "-" in d.id)
    h100 = next(r for r in rows if f">{get_device('h100-sxm5').name}</a>" in r)
    # H100 SXM5 datasheet: 80 GB, 3.35 TB/s, 989.4 TFLOP/s dense bf16 (1,979 with sparsity, halved),
    # ridge 989.4e12 / 3.35e12 = 295.3 FLOP/byte, shown to three figures.
    for shown in (">80<", ">3.35<", ">989.4<", ">295<"):
        assert shown in h100, shown
    assert 'data-v="3350000000000.0"' in h100  # sorts by the exact value
    tpu = next(r for r in rows if f">{get_device('tpu-v4').name}</a>" in r)
    assert ">34.36 (32 GiB)<" in tpu  # Cloud TPU v4: 32 GiB = 34,359,738,368 bytes
    # Usable memory keeps its popover (its own source); every other cell is a bare, recorded number.
    usable = sum(1 for d in devices().values() if d.usable_memory_bytes)
    assert "".join(rows).count('class="rl-num"') == usable
    assert len([r for r in records if not r.plain]) == usable
    # capacity, bandwidth and ridge per device, each published peak, each usable figure
    peaks = sum(len(d.dense_peak_flop_per_s) for d in devices().values())
    assert len(records) == 3 * len(devices()) + peaks + usable


def test_hardware_notes_are_literal_text_for_readers():
    from roofline_site.numbers.tables import table

    md = table("hardware-notes", "x.md", [])
    a100 = next(ln for ln in md.splitlines() if f"<strong>{get_device('a100-sxm4-40gb').name}</strong>" in ln)
    assert "624&#42; (&#42;with sparsity)" in a100  # no emphasis from the datasheet's asterisks (entities: literal)
    assert "312&#124;624" in a100                    # nor a cell split at its pipe
    assert "source_url" not in md and "corrected" not in md  # maintainers' clauses stay in the TOML
    assert all(d.source_url in table("hardware") for d in devices().values())


def test_sortable_table_markup_is_one_raw_html_block():
    from roofline_site.numbers.table_base import Column, html_table

    out = html_table([Column("Name", numeric=False), Column("Speed", "tokens/s")],
                     [["a &amp; b", ("12", 12.5)], ["c", ("—", None)]], "Demo")
    assert "\n\n" not in out  # a blank line would end Markdown's raw HTML block
    assert out.startswith('<table data-rl-sort aria-label="Demo">')
    assert ('<th scope="col" data-rl-text data-label="Name"><button type="button" class="rl-sort">Name'
            '<span class="rl-unit"></span></button></th>') in out
    assert 'data-label="Speed (tokens/s)"' in out  # a phone's card labels each value with it
    assert '<span class="rl-unit">tokens/s</span>' in out
    assert '<td class="rl-r" data-v="12.5">12</td>' in out and '<td class="rl-r">—</td>' in out


# ------------------------------------------------------------------ figures ---------------
@pytest.fixture(scope="module")
def rendered():
    from figures_gen import module, render

    return {name: (module(name), *render(name)) for name in FIGURES}


def _csv(text: str) -> tuple[list[str], list[list[str]]]:
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


def test_figures_are_registered():
    from figures_gen import FIGURES as ALL

    assert set(FIGURES) <= set(ALL)


@pytest.mark.parametrize("name", FIGURES)
def test_figure_alt_text_size_and_determinism(name, rendered):
    mod, svg, _ = rendered[name]
    assert len(mod.alt()) > 80 and mod.caption().strip(), f"{name} needs alt text and a caption"
    assert len(svg) <= 40_000, f"{name}.svg is {len(svg)} bytes"
    assert second_render(name) == svg, f"{name}.svg differs between two renders"


def test_prefill_intensity_csv(rendered):
    header, rows = _csv(rendered["prefill_intensity"][2])
    from figures_gen.prefill_intensity import DEVICES

    t = np.array([int(r[0]) for r in rows])
    assert t[0] == 1 and t[-1] == example("long_context") and np.all(np.diff(t) > 0)
    model_ai = np.asarray(kernels.prefill(_l8b(), _h100(), t).arithmetic_intensity)
    for i, r in enumerate(rows):
        assert float(r[1]) == pytest.approx(t[i], rel=1e-5)          # weights only, bf16: intensity = T
        assert float(r[2]) == pytest.approx(model_ai[i], rel=1e-5)
        for j, dev_id in enumerate(DEVICES):
            assert float(r[3 + j]) == pytest.approx(_ridge(get_device(dev_id)), rel=1e-5)
    assert header[3:] == [f"ridge_{d}_flop_per_byte" for d in DEVICES]


def test_batch_sweep_csv(rendered):
    header, rows = _csv(rendered["batch_sweep"][2])
    d, m = _h100(), _l8b()
    b = np.array([int(r[0]) for r in rows])
    ctx = example("medium_context")
    s = kernels.decode(m, d, b, ctx)
    kv_token = 2 * m.n_layers * m.kv_heads * m.head_dim * 2                  # K and V, bf16
    assert header[1:4] == ["mlp_matmul_intensity_flop_per_byte", "attention_intensity_flop_per_byte",
                           "whole_step_intensity_flop_per_byte"]
    for i, r in enumerate(rows):
        # gate/up: 2·B·4096·28672 FLOPs over 4096·28672·2 weight bytes + B·(4096 + 28672)·2 activation bytes
        flops = 2 * b[i] * 4096 * 28672 * 32
        nbytes = 32 * (4096 * 28672 * 2 + b[i] * (4096 + 28672) * 2)
        assert float(r[1]) == pytest.approx(flops / nbytes, rel=1e-5)
        # attention: (4·128 + 5)·32 FLOPs per position over K and V (2·1024·2 B) per position, plus Q in and out
        pos = ctx + 1
        assert float(r[2]) == pytest.approx(517 * 32 * pos / (2 * 1024 * 2 * pos + 2 * 4096 * 2), rel=1e-5)
        fits = m.total_params * 2 + b[i] * (ctx + 1) * kv_token <= d.usable_memory_bytes
        if r[4] == "True":
            assert fits                                  # the model adds activations and a reserve: never looser
        assert float(r[5]) >= float(r[6])                # sum of kernels >= perfect overlap
        assert float(r[7]) == pytest.approx(b[i] / float(r[5]), rel=1e-5)
        assert float(r[8]) == pytest.approx(989.4 / 3.35, rel=1e-5)            # H100 SXM5 ridge


def test_hardware_map_csv(rendered):
    _, rows = _csv(rendered["hardware_map"][2])
    assert [r[0] for r in rows] == list(devices())
    for r in rows:
        d = get_device(r[0])
        peak = d.peak_flop_per_s(d.sixteen_bit_dtype)
        assert r[1] == d.kind
        assert float(r[2]) == pytest.approx(d.memory_bandwidth_bytes_per_s, rel=1e-5)
        assert float(r[3]) == pytest.approx(peak, rel=1e-5)
        assert float(r[4]) == pytest.approx(peak / d.memory_bandwidth_bytes_per_s, rel=1e-5)


def test_a_device_the_weights_do_not_fit_says_so_instead_of_a_zero_batch():
    from roofline_site.numbers.reference_tables import critical_batches_table

    # Llama 3.1 70B in bf16: 70.6e9 weights × 2 B ≈ 141 GB, against the L4's 24 GB: no sequence fits.
    md = critical_batches_table("x.md", [], model="llama-3.1-70b", device_ids=["l4"])
    row = next(ln for ln in _html_rows(md) if ">NVIDIA L4<" in ln)
    assert ">weights alone do not fit</td>" in row and 'data-rl-value="0' not in row
