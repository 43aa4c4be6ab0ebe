"""Figures' captions and alt text (figures_gen): each names its SKU, dtype and dense or sparse, and
every decode number states its batch and context where the reader meets it."""

from __future__ import annotations

import re

import pytest

import figures_gen
from tests.conftest import ROOT

DECODE = re.compile(r"\bdecode\b", re.I)


@pytest.mark.parametrize("name", figures_gen.FIGURES)
def test_a_decode_figure_states_batch_and_context_in_its_alt_text_and_caption(name):
    mod = figures_gen.module(name)
    for part in ("alt", "caption"):
        text = getattr(mod, part)()
        if DECODE.search(text):
            assert re.search(r"\bbatch", text, re.I), f"{name}.{part}() names no batch: {text[:160]}"
            assert re.search(r"cached|context|no KV cache", text, re.I), f"{name}.{part}() names no context: {text[:160]}"


def test_the_number_lines_decode_labels_name_their_context():
    # The case: "decode, batch 64 — 61.2 FLOP/byte" with one token cached (at 4,096 it is 22).
    labels = [label for kind, label, _ in figures_gen.module("intensity_line")._points() if kind == "decode"]
    assert labels and all("batch" in label and "cached" in label for label in labels), labels


def test_batchings_worked_example_and_figure_use_one_workload():
    page = (ROOT / "docs" / "batching.md").read_text(encoding="utf-8")
    example = page[page.index("## Worked example"):page.index("## The latency")]
    figure_context = re.search(r'ctx = example\("(\w+)"\)', (ROOT / "figures_gen" / "batch_sweep.py").read_text())
    assert f'ctx = example("{figure_context.group(1)}")' in example


def test_figure_captions_say_sku_dtype_dense_and_context():
    # The review found captions that left out the device, the dtype, dense vs sparse, or (for
    # decode) the context: "Decode uses 0.34% of peak compute", "At batch 1, 8 GPUs give 3.21× ...".
    import importlib

    from roofline.registry.hardware import get_device

    h100, h200 = get_device("h100-sxm5").name, get_device("h200-sxm").name
    expect = {"batch_sweep": (h100, "bf16", "dense", "tokens cached"),
              "h100_roofline": (h100, "bf16", "dense", "token cached"),
              "intensity_line": (h100, "bf16", "dense", "token cached"),
              "many_chips_tp": (h200, "bf16", "dense", "tokens cached"),
              "many_chips_nodes": (h200, "fp8", "dense", "tokens cached"),
              "prefill_intensity": (h100, "bf16", "dense"),
              "hardware_map": ("bf16", "dense"),
              "serving_frontier": (h100, "fp8", "dense", "ceilings", "1024 prompt and 256 output tokens")}
    for name, words in expect.items():
        caption = importlib.import_module(f"figures_gen.{name}").caption()
        for word in words:
            assert word in caption, (name, word, caption)
