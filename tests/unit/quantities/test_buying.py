"""Which GPU to buy, as the Serving page's tokens give it: Llama 3.1 8B on the H200 SXM and the B200,
I 128, O 2,048, bf16, under a TPOT target of 30 ms. Expected values are derived by hand below or read
from the price registry's cited source, never copied from the code's output."""

from __future__ import annotations

import pytest

from roofline.errors import InputError
from roofline.quantities import NAMESPACE

buy, buy_break_even, buy_price = NAMESPACE["buy"], NAMESPACE["buy_break_even"], NAMESPACE["buy_price"]
W = ("llama-3.1-8b", 128, 2048)
TPOT = 0.030


def _buy(hw, what="output_tokens_per_s_per_device", figure="ceiling", **kw):
    model, i, o = W
    return buy(model, hw, i, o, what, figure, tpot_s=TPOT, **kw)


def test_registry_prices_as_published():
    # packet.ai, "GPU Pricing Models Compared 2026", read 2026-06: H200 SXM $2.25, B200 $3.75 an hour on demand.
    assert float(buy_price("h200-sxm")) == 2.25 and float(buy_price("b200")) == 3.75
    assert buy_price("b200", "date_read") == "2026-06" and buy_price("b200", "provider") == "packet.ai"


def test_cost_per_million_at_a_readers_price():
    # $3.60 an hour is $0.001 a second; a million tokens at T tokens/s take 10⁶ ÷ T seconds:
    # $0.001 × 10⁶ ÷ T = 1,000 ÷ T dollars per million output tokens.
    for figure in ("ceiling", "expected"):
        tps = float(_buy("b200", figure=figure))
        usd = float(_buy("b200", "usd_per_million_output_tokens", figure, price=3.6))
        assert usd == pytest.approx(1000.0 / tps, rel=1e-12)


def test_cost_at_the_registry_price_and_its_source():
    # $2.25 ÷ (T × 3,600) × 10⁶ = 625 ÷ T dollars per million on the H200 at its registry price.
    q = _buy("h200-sxm", "usd_per_million_output_tokens", "expected")
    assert float(q) == pytest.approx(625.0 / float(_buy("h200-sxm", figure="expected")), rel=1e-12)
    assert any(i.source and "packet.ai" in i.source.url and "2026-06" in i.label for i in q.inputs)
    assert q.arithmetic_line().endswith(q.text())


def test_break_even_costs_the_same_per_token():
    # At the break-even share r of the B200's price, the H200 costs r·p ÷ T_h and the B200 p ÷ T_b per
    # token-second; r = T_h ÷ T_b makes them equal, whatever p.
    for figure in ("ceiling", "expected"):
        r = float(buy_break_even(W[0], "h200-sxm", "b200", W[1], W[2], figure, tpot_s=TPOT))
        cheap_h = float(_buy("h200-sxm", "usd_per_million_output_tokens", figure, price=r * 3.75))
        b = float(_buy("b200", "usd_per_million_output_tokens", figure, price=3.75))
        assert cheap_h == pytest.approx(b, rel=1e-9)


def test_ceiling_break_even_below_the_h200s_best_roof_share():
    # The B200 holds more memory (180 GB against 141 GB), so the H200's best point fits it too, and every
    # kernel there runs at least 7.7 ÷ 4.8 = 1.60× (memory) or 2,250 ÷ 989.4 = 2.27× (dense bf16) faster:
    # the B200's best rate is at least 1.60× the H200's, so the H200's break-even share is at most
    # 4.8 ÷ 7.7 = 0.623 of the B200's price.
    r = float(buy_break_even(W[0], "h200-sxm", "b200", W[1], W[2], "ceiling", tpot_s=TPOT))
    assert 0 < r <= 4.8 / 7.7


def test_ceiling_below_the_compute_roof_and_expected_below_the_ceiling():
    # Each output token costs at least 2 × 8.03 billion FLOP of weight matmuls, so one H200 at its dense
    # bf16 peak makes at most 989.4 T ÷ 16.06 G = 61,600 tokens/s.
    assert float(_buy("h200-sxm")) <= 989.4e12 / (2 * 8.03e9)
    for hw in ("h200-sxm", "b200"):
        assert float(_buy(hw, figure="expected")) <= float(_buy(hw))


def test_labels_name_device_format_and_figure():
    for figure in ("ceiling", "expected"):
        label = _buy("b200", figure=figure).label
        assert "B200" in label and "bf16" in label and "TPOT ≤ 30 ms" in label and figure in label


def test_unmet_target_is_refused_with_a_sentence():
    # One step reads all 16.06 GB of bf16 weights: split over the widest layout, eight H200s at 4.8 TB/s,
    # that alone takes 16.06 G ÷ 8 ÷ 4.8 T = 0.418 ms, above a TPOT of 0.3 ms.
    model, i, o = W
    text = buy(model, "h200-sxm", i, o, "refusal", tpot_s=0.0003)
    assert isinstance(text, str) and text
    with pytest.raises(InputError, match="H200"):
        buy(model, "h200-sxm", i, o, "output_tokens_per_s_per_device", tpot_s=0.0003)


@pytest.mark.parametrize("kw, words", [
    (dict(figure="best"), "figure must be ceiling or expected"),
    (dict(what="tokens"), "buy: what must be one of"),
])
def test_bad_input_names_what(kw, words):
    args = dict(what="output_tokens_per_s_per_device", figure="ceiling") | kw
    with pytest.raises(InputError, match=words):
        buy(W[0], "b200", W[1], W[2], args["what"], args["figure"])
    with pytest.raises(InputError, match="buy_price: what"):
        buy_price("b200", "colour")
