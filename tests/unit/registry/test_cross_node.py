"""Published results across nodes: read as published, each below its ceiling, bad rows refused in one line."""

import re

import pytest
from tests.conftest import ROOT

from roofline.errors import SpecError
from roofline.model.cross_node import ceiling, share_of_ceiling
from roofline.registry import measurements
from roofline.registry.measurements import cross_node_results

SRC = ROOT / "src" / "roofline" / "data" / "measurements.toml"


def test_results_as_published():
    rows = cross_node_results()
    assert set(rows) == {"deepseek-h800-decode", "deepseek-h800-prefill", "sglang-h100-decode", "sglang-h100-prefill",
                         "sglang-gb200-decode"}
    # DeepSeek: ~14.8k output tokens/s per H800 node of 8 = 1,850 per GPU; ~73.7k input (hits included) = 9,212.5
    assert rows["deepseek-h800-decode"].tokens_per_s_per_device == 1850
    assert rows["deepseek-h800-prefill"].tokens_per_s_per_device == 9212.5
    assert rows["deepseek-h800-prefill"].cache_hit_rate == 0.563  # 342B of 608B input tokens
    # DeepSeek's decode unit: 18 nodes, EP144 with 32 redundant experts = (256 + 32) / 144 = 2 per GPU
    d = rows["deepseek-h800-decode"]
    assert d.devices == 144 and (256 + d.redundant_experts) // d.ep == 2
    # SGLang on GB200: 7,583 per GPU, 12 trays of 4 = 48 GPUs
    g = rows["sglang-gb200-decode"]
    assert g.devices == 48 and g.tokens_per_s_per_device == 7583
    assert all(r.source_url.startswith("https://") for r in rows.values())


@pytest.mark.parametrize("ident", sorted(cross_node_results()))
def test_no_published_result_is_above_its_ceiling(ident):
    r = cross_node_results()[ident]
    c = ceiling(r)
    assert c.batch > 0
    assert r.tokens_per_s_per_device < c.tokens_per_s_per_device
    assert 0 < share_of_ceiling(r) < 1


def _edit(text, ident, old, new):
    start = text.index(f'id = "{ident}"')
    end = text.find("[[", start)
    end = len(text) if end == -1 else end
    block = text[start:end]
    assert old in block
    return text[:start] + block.replace(old, new, 1) + text[end:]


@pytest.mark.parametrize("old, new, message", [
    ('phase = "decode"', 'phase = "verify"', "field 'phase' must be one of decode, prefill"),
    ("ep = 144", "ep = 140", "field 'ep' must span the unit's 18 × 8 devices, got 140"),
    ("cache_hit_rate = 0\n", "cache_hit_rate = 0.5\n", "field 'cache_hit_rate' must be below 1"),
    ('device = "h800-sxm"', 'device = "mi300x"', "field 'device' has no scale-out network"),
    ("tokens_per_s_per_node = 14800", "tokens_per_s_per_node = -1", "field 'tokens_per_s_per_node' must be positive"),
])
def test_bad_rows_refused_in_one_line(tmp_path, monkeypatch, old, new, message):
    f = tmp_path / "measurements.toml"
    f.write_text(_edit(SRC.read_text(encoding="utf-8"), "deepseek-h800-decode", old, new), encoding="utf-8")
    monkeypatch.setenv("ROOFLINE_MEASUREMENTS", str(f))
    measurements.REGISTRY.cache_clear()
    try:
        with pytest.raises(SpecError, match=re.escape(message)) as err:
            cross_node_results()
        assert "measurements.toml: deepseek-h800-decode:" in str(err.value) and "\n" not in str(err.value)
    finally:
        measurements.REGISTRY.cache_clear()
