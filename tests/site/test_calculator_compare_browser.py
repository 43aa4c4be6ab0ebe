"""The Serving mode's device comparison in Debian Chromium: the package's numbers (`roofline compare`
through roofline.calculator_view.compare_setup), a cost by hand from the page's own cells, the link round
trip, junk in the link and bad input (one sentence beside the field each), loading on demand, and a phone
at 390 px.

Expected numbers come from the package or from arithmetic on datasheet-free identities stated in the
comments, never from the page's own output.
"""

from __future__ import annotations

import math

import pytest

from roofline import format as fmt
from roofline.calculator_view import compare_break_even, compare_setup
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model
from tests.support.browser import PHONE

pytestmark = pytest.mark.browser

BAD_WORDS = ("NaN", "Infinity", "undefined", "null", "Traceback")
# The Serving page's question: Llama 3.1 8B at 128 in / 2,048 out under a 20 ms TPOT, H200 against B200 at $6.
QUESTION = "mode=serve&s_model=llama-3.1-8b&s_in=128&s_out=2048&s_tpot=20&ca_hw=h200-sxm&cb_hw=b200&cb_usd=6"


def open_compare(page, query: str):
    page.goto(f"{page.base_url}/calculator/?{query}")
    page.wait_for_selector(".rl-calc[data-rl-ready]")
    page.wait_for_selector(".rl-calc-scompare[data-rl-ready] td[data-output=ceiling]")


def field(page, setup: str, key: str):
    return page.locator(f".rl-calc-cmp [id$='-c{setup}-{key}']")


def message(page, setup: str, key: str) -> str:
    msg_id = field(page, setup, key).get_attribute("aria-describedby")
    return page.locator(f"[id='{msg_id}']").inner_text().strip()


def cells(page) -> dict:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.rl-calc-cmp td[data-output]')]
        .map((td) => [td.dataset.config + '/' + td.dataset.output, {text: td.textContent, value: td.dataset.value}]))""")


def no_bad_words(page):
    text = page.locator(".rl-calc-scompare").inner_text()
    for word in BAD_WORDS:
        assert word not in text, f"{word!r} on the page"


def test_the_comparison_is_the_packages(page):
    open_compare(page, QUESTION)
    model = get_model("llama-3.1-8b")
    a = compare_setup(get_device("h200-sxm"), model, 128, 2048, tpot_s=0.02)
    b = compare_setup(get_device("b200"), model, 128, 2048, tpot_s=0.02, usd_per_device_hour=6.0)
    c = cells(page)
    for key, s in (("a", a), ("b", b)):
        for which in ("ceiling", "expected"):
            assert math.isclose(float(c[f"{key}/{which}"]["value"]), s[which]["output_tokens_per_s_per_device"], rel_tol=1e-9)
            assert c[f"{key}/{which}"]["text"].startswith(fmt.tokens_per_s(s[which]["output_tokens_per_s_per_device"]))
            assert math.isclose(float(c[f"{key}/usd_{which}"]["value"]), s[f"usd_per_million_output_tokens_{which}"],
                                rel_tol=1e-9)
    assert "(yours)" in c["b/price"]["text"] and "read 20" in c["a/price"]["text"]  # the registry's, with its month
    ratio = compare_break_even(a, b)
    verdict = page.locator(".rl-calc-cmpverdict").inner_text()
    assert f"{fmt.sig(ratio['expected'])}× B's (expected; {fmt.sig(ratio['ceiling'])}× at the ceiling)" in verdict
    no_bad_words(page)


def test_cost_and_break_even_follow_from_the_cells_by_hand(page):
    # $ per million output tokens = price per device-hour ÷ (tokens/s per device × 3,600 s) × 10⁶, and the
    # break-even price ratio is A's tokens/s per device ÷ B's: checked on the page's own cells, so the page's
    # arithmetic between its numbers is held without the package.
    open_compare(page, QUESTION)
    c = cells(page)
    for key in "ab":
        price, tps = float(c[f"{key}/price"]["value"]), float(c[f"{key}/expected"]["value"])
        assert math.isclose(float(c[f"{key}/usd_expected"]["value"]), price / (tps * 3600) * 1e6, rel_tol=1e-12)
    ratio = float(c["a/expected"]["value"]) / float(c["b/expected"]["value"])
    assert f"{fmt.sig(ratio)}× B's" in page.locator(".rl-calc-cmpverdict").inner_text()


def test_a_link_restores_the_comparison(page):
    open_compare(page, QUESTION)
    field(page, "a", "n").fill("2")
    page.wait_for_function("new URLSearchParams(location.search).get('ca_n') === '2'")
    params = page.evaluate("Object.fromEntries(new URLSearchParams(location.search))")
    assert params["ca_hw"] == "h200-sxm" and params["cb_hw"] == "b200" and params["cb_usd"] == "6"
    before = cells(page)
    tab = page.context.new_page()
    try:
        tab.goto(page.url)
        tab.wait_for_selector(".rl-calc-scompare[data-rl-ready] td[data-output=ceiling]")
        assert cells(tab) == before
    finally:
        tab.close()
    # closing the comparison drops its keys from the link
    page.locator(".rl-calc-scompare > summary").click()
    page.wait_for_function("!new URLSearchParams(location.search).has('ca_hw')")


def test_junk_in_the_link_gets_one_sentence_beside_the_field(page):
    open_compare(page, "mode=serve&ca_hw=<b>h900</b>&ca_n=abc&cb_usd=-3")
    assert "does not list" in message(page, "a", "hw") and "<b>h900</b>" in message(page, "a", "hw")  # text, not markup
    assert "must be a number" in message(page, "a", "n")
    assert "cannot be negative" in message(page, "b", "usd")
    assert page.locator(".rl-calc-scompare b").count() == 0
    no_bad_words(page)


BAD = [
    # (link, setup, field, words of the sentence beside it)
    ("cb_n=0", "b", "n", "at least 1"),
    ("cb_n=2.5", "b", "n", "whole number"),
    ("ca_usd=0", "a", "usd", "at least 0.01"),
    ("ca_usd=5000", "a", "usd", "at most"),
    ("s_model=llama-3.1-70b&ca_hw=h100-sxm5&ca_n=1", "a", "n", "No layout within 1 NVIDIA H100"),  # 70B on one H100
]


@pytest.mark.parametrize("query, setup, key, words", BAD, ids=[q for q, _, _, _ in BAD])
def test_bad_input_gets_one_sentence_beside_the_field(page, query, setup, key, words):
    open_compare(page, f"mode=serve&{query}")
    assert words in message(page, setup, key), message(page, setup, key)
    assert page.locator(".rl-calc-cmpverdict").inner_text().startswith(f"Setup {setup.upper()}: ")
    no_bad_words(page)


def test_the_comparison_loads_when_a_reader_opens_it(page):
    # The Serving mode alone never downloads the comparison's two modules; opening it loads them.
    page.goto(f"{page.base_url}/calculator/?mode=serve", wait_until="networkidle")
    page.wait_for_selector(".rl-calc-serve:not([hidden]) .rl-calc-fchart polyline")
    loaded = lambda: sorted(u.rsplit("/", 1)[-1] for u in page.requests_seen  # noqa: E731
                            if u.endswith(("/compare.js", "/compare_ui.js")))
    assert loaded() == []
    page.locator(".rl-calc-scompare > summary").click()
    page.wait_for_selector(".rl-calc-scompare[data-rl-ready] td[data-output=ceiling]")
    assert loaded() == ["compare.js", "compare_ui.js"]
    page.wait_for_function("new URLSearchParams(location.search).get('ca_hw') === 'h200-sxm'")


def test_a_phone_at_390_px(chromium, served_site):
    tabs = chromium.tabs(**PHONE)
    tab = tabs.new_page()
    try:
        tab.goto(f"{served_site}/calculator/?{QUESTION}")
        tab.wait_for_selector(".rl-calc-scompare[data-rl-ready] td[data-output=ceiling]")
        width = PHONE["viewport"]["width"]
        assert tab.evaluate("document.documentElement.scrollWidth") <= width
        # the setups, the table and its cells inside the screen
        right = tab.evaluate("""() => Math.max(...[...document.querySelectorAll('.rl-calc-scompare *')]
            .filter((e) => e.getClientRects().length).map((e) => e.getBoundingClientRect().right))""")
        assert right <= width + 0.5, right
        # the two setups one above the other
        a, b = (tab.locator(".rl-calc-cmpform fieldset").nth(i).bounding_box() for i in (0, 1))
        assert b["y"] >= a["y"] + a["height"] - 0.5
    finally:
        tabs.close()
