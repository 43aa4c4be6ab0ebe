"""Which GPU to buy: cost per million tokens and the break-even price ratio by hand, the comparison
at the ceiling and at the expected figure, the prices registry, and `roofline compare`."""

from __future__ import annotations

import json

import pytest

from roofline.errors import InputError, SpecError
from roofline.model import compare as cmp, serving
from roofline.model.formats import Formats
from roofline.registry import prices
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model
from tests.conftest import ROOT

L8 = get_model("llama-3.1-8b")
H200, B200 = get_device("h200-sxm"), get_device("b200")
FP8 = Formats.of("fp8", "fp8", "fp8")


def test_cost_per_million_tokens_by_hand():
    # $2.25 a device-hour at 20,000 tokens/s per device: 72 million tokens an hour, so $2.25 ÷ 72 = $0.03125 a million.
    assert cmp.usd_per_million_tokens(2.25, 20_000.0) == pytest.approx(0.03125, rel=1e-12)


def test_break_even_price_ratio_by_hand():
    # Device A does 30,000 tokens/s per device and B 12,000: at prices p_A and p_B a token costs p_A ÷ 30,000
    # and p_B ÷ 12,000, equal when p_A ÷ p_B = 30,000 ÷ 12,000 = 2.5. At $5 against $2 (ratio 2.5) they tie:
    # $5 ÷ (30,000 × 3,600) × 10⁶ = $0.046296 = $2 ÷ (12,000 × 3,600) × 10⁶.
    assert cmp.break_even_price_ratio(30_000.0, 12_000.0) == pytest.approx(2.5)
    assert cmp.usd_per_million_tokens(5.0, 30_000.0) == pytest.approx(cmp.usd_per_million_tokens(2.0, 12_000.0))
    with pytest.raises(InputError, match="positive"):
        cmp.break_even_price_ratio(0.0, 1.0)


def test_the_comparison_reports_ceiling_and_expected_with_their_costs():
    wl = serving.Workload(128, 2048, formats=FP8)
    choices = cmp.compare(L8, [H200, B200], wl, max_devices=1, prices={"h200-sxm": 3.0})
    h200, b200 = choices
    for c in choices:
        assert c.expected.output_tokens_per_s_per_device <= c.ceiling.output_tokens_per_s_per_device
        assert c.usd_per_million("expected") >= c.usd_per_million("ceiling")
    assert h200.usd_per_device_hour == 3.0 and h200.price is None          # the reader's price
    assert b200.price is not None and b200.usd_per_device_hour == b200.price.usd_per_device_hour
    pair = cmp.break_even(choices, "expected")[0]
    assert pair["price_ratio"] == pytest.approx(h200.expected.output_tokens_per_s_per_device
                                                / b200.expected.output_tokens_per_s_per_device)


def test_the_expected_best_is_judged_on_its_own_percentile():
    # A TPOT target judged at p99 must read the expected step mix's p99, not the ceiling's. Each expected step
    # is never faster than its ceiling step, so where the expected figure holds the ceiling's requests every
    # expected TPOT percentile is at or above the ceiling's (with fewer requests the mix itself changes); and
    # the expected best under a 15 ms p99 TPOT meets it at its own p99.
    wl = serving.Workload(128, 2048)
    points = serving.frontier(L8, H200, wl, layouts=None)
    same = [p for p in points if p.expected_slots == min(p.concurrency, p.memory_cap)]
    assert len(same) > len(points) // 2
    for p in same:
        v = cmp.expected_view(p)
        assert v.tpot_p99_s >= p.tpot_p99_s * (1 - 1e-9) and v.tpot_p50_s >= p.tpot_p50_s * (1 - 1e-9)
        assert v.ttft_s >= p.prefill_s * (1 - 1e-9)
    # kernels below their roofs make the expected steps slower, so its percentiles move up, not stay put
    assert any(cmp.expected_view(p).tpot_p99_s > 1.01 * p.tpot_p99_s for p in same)
    (choice,) = cmp.compare(L8, [H200], wl, tpot_s=0.015, max_devices=1)
    assert choice.expected is not None and choice.expected.tpot_p99_s <= 0.015


def test_an_unmet_target_is_a_sentence_per_device():
    wl = serving.Workload(128, 2048, formats=FP8)
    (c,) = cmp.compare(L8, [H200], wl, tpot_s=1e-4, max_devices=1)
    assert c.ceiling is None and c.unmet_ceiling.startswith("nothing meets a TPOT of")
    assert c.expected is None and c.unmet_expected.startswith("nothing meets a TPOT of")


def test_every_registry_price_is_sourced_and_dated():
    for p in prices.prices():
        assert p.source_url.startswith("https://") and p.date_read[:2] == "20" and p.usd_per_device_hour > 0
    assert prices.default_price("h200-sxm").kind == "on-demand"


def test_a_bad_price_row_names_its_field(tmp_path, monkeypatch):
    text = (ROOT / "src" / "roofline" / "data" / "prices.toml").read_text().replace('kind = "on-demand"',
                                                                                   'kind = "spot"', 1)
    path = tmp_path / "prices.toml"
    path.write_text(text)
    monkeypatch.setenv("ROOFLINE_PRICES", str(path))
    try:
        with pytest.raises(SpecError, match=r"packet-h200-on-demand: field 'kind' must be one of on-demand, reserved"):
            prices.prices()
    finally:
        monkeypatch.delenv("ROOFLINE_PRICES")
        prices.REGISTRY.cache_clear()


def test_compare_cli_json_and_bad_price(run_cli):
    code, out, _ = run_cli("compare", "--model", "llama-3.1-8b", "--hardware", "h200-sxm,b200", "--input-tokens",
                           "128", "--output-tokens", "2048", "--weight-format", "fp8", "--activation-dtype", "fp8",
                           "--kv-dtype", "fp8", "--devices", "1", "--json")
    assert code == 0
    data = json.loads(out)
    assert [d["hardware"] for d in data["devices"]] == ["h200-sxm", "b200"]
    d = data["devices"][0]
    assert d["usd_per_million_output_tokens_expected"] >= d["usd_per_million_output_tokens_ceiling"]
    assert {p["figure"] for p in data["break_even"]} == {"ceiling", "expected"}
    code, _, err = run_cli("compare", "--model", "llama-3.1-8b", "--hardware", "h200-sxm", "--input-tokens", "128",
                           "--output-tokens", "2048", "--price", "h200-sxm=-1")
    assert code == 2 and err.strip().startswith("roofline: error: --price must read DEVICE=USD")
