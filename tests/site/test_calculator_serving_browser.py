"""The calculator's Serving mode in Debian Chromium: a hand-derived TPOT, the package's numbers,
the link round trip, junk in the link, bad input and a target nothing meets (one sentence beside
the field each), and a phone at 390 px with touch.

The hand-derived case is derived from datasheet values in its comment; the other expected numbers
come from `roofline.calculator_view.serving` (the package), never from the page.
"""

from __future__ import annotations

import math

import pytest

from roofline import format as fmt
from roofline.calculator_view import registry_json, serving
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model
from tests.support.browser import PHONE

pytestmark = pytest.mark.browser

BAD_WORDS = ("NaN", "Infinity", "undefined", "null", "Traceback")


def open_serve(page, query: str = ""):
    page.goto(f"{page.base_url}/calculator/?mode=serve{'&' + query if query else ''}")
    page.wait_for_selector(".rl-calc[data-rl-ready]")
    page.wait_for_selector(".rl-calc-serve:not([hidden]) .rl-calc-fchart polyline")


def field(page, key: str):
    return page.locator(f".rl-calc-serve [name={key}]")


def message(page, key: str) -> str:
    msg_id = field(page, key).get_attribute("aria-describedby")
    return page.locator(f"[id='{msg_id}']").inner_text().strip()


def cells(page) -> dict:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.rl-calc-serve td[data-output]')]
        .map((td) => [td.dataset.output, {text: td.textContent, value: td.dataset.value}]))""")


def no_bad_words(page):
    text = page.locator(".rl-calc-serve").inner_text() + page.locator(".rl-calc-serve .rl-calc-fchart").inner_html()
    for word in BAD_WORDS:
        assert word not in text, f"{word!r} on the page"


def test_a_tpot_where_the_weights_dominate_matches_the_datasheet(page):
    # Llama 3.1 8B on one H100 SXM5 in BF16, one request in flight, I = 16, O = 64. A request spends
    # ⌈16 ÷ 8192⌉ + 63 = 64 steps in the engine, so the average step carries 63/64 decode tokens and
    # 16/64 prompt tokens: about one token. Every weight matmul then reads its weights once and is
    # bandwidth-bound, and the step reads every weight but the embedding table (a lookup reads one row):
    #   8,030,261,248 parameters (Meta's model card) − 128,256 × 4,096 embedding = 7,504,924,672
    #   × 2 bytes (BF16) = 15.0098 GB ÷ 3.35 TB/s (H100 SXM5 datasheet) = 4.4805 ms.
    # The KV cache read (≈48 positions × 128 KiB) and the activations add well under 1 %.
    open_serve(page, "s_model=llama-3.1-8b&s_hw=h100-sxm5&s_in=16&s_out=64&s_conc=1&s_wd=bf16")
    c = cells(page)
    weights_only_s = 7_504_924_672 * 2 / 3.35e12
    tpot = float(c["tpot_s"]["value"])
    assert 1.0 <= tpot / weights_only_s <= 1.01, (tpot, weights_only_s)
    assert c["limited_by"]["text"].startswith("memory bandwidth")
    assert math.isclose(float(c["output_tokens_per_s_per_user"]["value"]), 1 / tpot, rel_tol=1e-12)
    assert "(floor)" in page.locator(".rl-calc-serve tr[data-row=tpot_s] th").inner_text()  # a bound on a time
    assert c["layout"]["text"] == "1 device (1 device)"
    no_bad_words(page)


def test_ttft_contains_the_prompts_own_prefill(page):
    # Llama 3.1 8B on one H100 SXM5 in BF16, one request in flight, I = 1,024, O = 256: its first token
    # comes after its own prompt's prefill, whose weight matmuls alone are 2 × 7,504,924,672 parameters
    # (less the embedding table) × 1,024 tokens = 1.537e13 FLOPs ÷ 989.4e12 FLOP/s (H100 SXM5 dense BF16,
    # datasheet) = 15.5 ms. An average engine step (about one token) would give some 4.5 ms instead.
    open_serve(page, "s_model=llama-3.1-8b&s_hw=h100-sxm5&s_in=1024&s_out=256&s_conc=1&s_wd=bf16")
    c = cells(page)
    matmuls_s = 2 * 7_504_924_672 * 1024 / 989.4e12
    ttft, prefill = float(c["ttft_s"]["value"]), float(c["prefill_s"]["value"])
    assert ttft >= prefill >= matmuls_s, (ttft, prefill, matmuls_s)
    assert math.isclose(ttft, prefill, rel_tol=1e-12)  # alone: no wait, no other request's decodes
    # the prompt's steps are rare (one in 256): the p50 TPOT is a step of decodes only
    assert float(c["tpot_p50_s"]["value"]) == float(c["decode_step_s"]["value"])
    assert "prefill alone" in page.locator(".rl-calc-serve .rl-calc-ssummary").inner_text()
    no_bad_words(page)


def test_the_chosen_point_and_frontier_are_the_packages(page):
    open_serve(page, "s_model=llama-3.1-70b&s_in=1024&s_out=256&s_wd=fp8&s_act=fp8&s_kvd=fp8&s_price=2.5&s_tpot=30")
    want = serving(get_device("h100-sxm5"), get_model("llama-3.1-70b"), 1024, 256, "fp8", "fp8", "fp8",
                   usd_per_device_hour=2.5, tpot_s=0.03)
    best, c = want["best"], cells(page)
    for key in ("ttft_s", "tpot_s", "output_tokens_per_s_per_device", "usd_per_million_output_tokens", "memory_cap"):
        assert math.isclose(float(c[key]["value"]), best[key], rel_tol=1e-9), key
    assert c["layout"]["value"] == best["layout"]
    assert c["tpot_s"]["text"] == fmt.seconds(best["tpot_s"])
    # one label for a point everywhere: the package's binding limit, in its words, with what relaxing it gains
    assert c["limited_by"]["value"] == best["limited_by"] and c["limited_by"]["text"] == best["limited_by_meaning"]
    assert best["limited_by_meaning"] in page.locator(".rl-calc-serve .rl-calc-ssummary").inner_text()
    # one line per layout on the chart, the envelope drawn, the chosen point ringed and named
    layouts = {p["layout"] for p in want["frontier"]}
    assert page.locator(".rl-calc-serve .rl-calc-fline[data-layout]").count() == len(layouts)
    assert page.locator(".rl-calc-serve .rl-calc-fenvdot").count() == sum(p["on_envelope"] for p in want["frontier"])
    assert f"best: {best['layout']}" in page.locator(".rl-calc-serve .rl-calc-fmark text").text_content()
    assumed = page.locator(".rl-calc-serve .rl-calc-assume").inner_text()
    assert "prefill chunk of 8,192" in assumed and "ceiling" in assumed and "Expected" in assumed
    no_bad_words(page)


def test_a_link_restores_the_serving_view(page):
    open_serve(page, "s_model=mixtral-8x7b&s_hw=h200-sxm&s_in=2048&s_out=128&s_conc=64&s_ep=4&s_dp=2&s_price=3")
    assert field(page, "dev").input_value() == "8"
    field(page, "out").fill("300")
    page.wait_for_function("new URLSearchParams(location.search).get('s_out') === '300'")
    params = page.evaluate("Object.fromEntries(new URLSearchParams(location.search))")
    assert params["mode"] == "serve" and params["s_ep"] == "4" and params["s_dp"] == "2" and params["s_conc"] == "64"
    before = cells(page)
    tab = page.context.new_page()
    try:
        tab.goto(page.url)
        tab.wait_for_selector(".rl-calc-serve:not([hidden]) .rl-calc-fchart polyline")
        assert cells(tab) == before
    finally:
        tab.close()
    want = serving(get_device("h200-sxm"), get_model("mixtral-8x7b"), 2048, 300, concurrency=64, ep=4, dp=2,
                   usd_per_device_hour=3.0)["point"]
    assert math.isclose(float(before["output_tokens_per_s"]["value"]), want["output_tokens_per_s"], rel_tol=1e-9)


def test_the_expected_figure_is_the_packages_with_the_engines_overhead(page):
    # One request of Llama 3.1 8B on one H100 SXM5 in BF16 under vLLM's defaults: every step pays vLLM's
    # 4 ms of host work the GPU waits for (the bubble its multi-step scheduling RFC measured), so a decode
    # step expected is at least its floor plus 4 ms and the expected tokens/s per device at most
    # 1 ÷ (TPOT floor + 4 ms); the page's figure is the package's.
    open_serve(page, "s_model=llama-3.1-8b&s_hw=h100-sxm5&s_in=1024&s_out=256&s_conc=1&s_wd=bf16&s_eng=vllm")
    want = serving(get_device("h100-sxm5"), get_model("llama-3.1-8b"), 1024, 256, concurrency=1, engine="vllm")["point"]
    c = cells(page)
    shown = float(c["expected_output_tokens_per_s_per_device"]["value"])
    assert math.isclose(shown, want["expected_output_tokens_per_s_per_device"], rel_tol=1e-9)
    assert shown <= 1 / (float(c["tpot_s"]["value"]) + 0.004)
    label = page.locator(".rl-calc-serve tr[data-row=expected_output_tokens_per_s_per_device] th").inner_text()
    assert "published efficiency" in label and "estimate" in label
    assumed = page.locator(".rl-calc-serve .rl-calc-assume").inner_text()
    assert "vLLM's per-step overhead (4 ms)" in assumed and "derated" not in assumed
    no_bad_words(page)

def test_junk_in_the_link_gets_one_sentence_beside_the_field(page):
    page.goto(f"{page.base_url}/calculator/?mode=serve&s_in=<img src=x onerror=alert(1)>&s_hw=<b>h900</b>&s_conc=1e400")
    page.wait_for_selector(".rl-calc[data-rl-ready]")
    assert "must be a number" in message(page, "in")
    assert "does not list" in message(page, "hw") and "<b>h900</b>" in message(page, "hw")  # text, not markup
    assert "at most" in message(page, "conc")
    assert page.locator(".rl-calc-serve b, .rl-calc-serve img").count() == 0
    page.goto(f"{page.base_url}/calculator/?mode=<i>x</i>")
    page.wait_for_selector(".rl-calc[data-rl-ready]")
    assert "is not step or serve" in page.locator(".rl-calc-modes .rl-calc-msg").inner_text()
    assert page.locator(".rl-calc-modes i").count() == 0


BAD = [
    # (link, field, words of the sentence beside it)
    ("s_in=0", "in", "at least 1"),
    ("s_in=1.5", "in", "whole number"),
    ("s_out=1", "out", "at least 2"),
    ("s_out=-4", "out", "cannot be negative"),
    ("s_in=1e12", "in", "at most"),
    ("s_conc=2.5", "conc", "whole number"),
    ("s_conc=0", "conc", "at least 1"),
    ("s_price=0", "price", "at least 0.01"),  # a cent a device-hour: below it a cost per token means nothing
    ("s_price=5000", "price", "at most"),
    ("s_ttft=-1", "ttft", "cannot be negative"),
    ("s_wd=mxfp4&s_act=fp4", "act", "has no published fp4 peak"),           # FP4 on an H100
    ("s_model=llama-3.1-70b&s_conc=1", "dev", "does not fit one device"),   # a layout that does not fit
    ("s_model=llama-3.1-8b&s_conc=4&s_tp=3", "tp", "does not divide"),
    ("s_cap=0", "cap", "at least 1"),                                       # the engine's cap on requests in flight
    ("s_cap=2.5", "cap", "whole number"),
    ("s_scope=some", "scope", "Choose which layouts the frontier spans"),
    ("s_scope=set&s_model=llama-3.1-70b", "dev", "fits none of the layouts asked (1 device)"),  # held: it must fit
    ("s_tpot=30&s_tpotp=p95", "tpotp", "Choose a percentile from the list"),  # mean, p50, p90 and p99 only
    ("s_ttftp=<b>x</b>", "ttftp", "Choose a percentile from the list"),
    ("s_dis=maybe", "dis", "Choose where prefill and decode run from the list"),
    ("s_spec=eagle&s_acc=0", "acc", "greater than 0"),                     # acceptance in (0, 1]
    ("s_spec=eagle&s_acc=1.5", "acc", "at most 1"),
    ("s_spec=eagle&s_k=0", "k", "at least 1"),                             # draft lengths of one and more
    ("s_spec=eagle&s_k=2.5", "k", "whole number"),
    ("s_spec=eagle&s_k=40", "k", "at most 16"),
    ("s_spec=draft", "acc", "is needed with a draft model"),
    ("s_spec=warp", "spec", "Choose a decoding from the list"),
    ("s_eng=tgi", "eng", "Choose an engine's defaults from the list"),
    ("s_kvm=paged&s_blk=0", "blk", "at least 1"),
    ("s_conc=1&s_dp=2", "conc", "Concurrency 1 is below DP 2: each replica needs at least one request"),
    ("s_in=100000&s_chunk=10", "chunk", "Max prompt tokens per engine step must be at least 25 for a prompt of 100,000 tokens"),
    # two 8-GPU nodes: the step mode's Nodes field goes there, the Serving mode says it stays within one domain
    ("s_model=llama-3.1-70b&s_tp=8&s_pp=2&s_scope=set", "dev", "the Serving mode stays within one domain"),
]


@pytest.mark.parametrize("query, key, words", BAD, ids=[q for q, _, _ in BAD])
def test_bad_input_gets_one_sentence_beside_the_field(page, query, key, words):
    page.goto(f"{page.base_url}/calculator/?mode=serve&{query}")
    page.wait_for_selector(".rl-calc[data-rl-ready]")
    text = message(page, key)
    assert words in text, text
    assert text.count(". ") == 0 and text.endswith("."), text  # one sentence
    assert "--" not in text, text  # the reader's words, never the command line's
    assert field(page, key).get_attribute("aria-invalid") == "true"
    no_bad_words(page)


def test_typing_a_bad_value_keeps_the_last_valid_result(page):
    open_serve(page)
    before = cells(page)["tpot_s"]["text"]
    field(page, "in").fill("abc")
    assert "must be a number" in message(page, "in")
    assert cells(page)["tpot_s"]["text"] == before
    assert "rl-calc-stale" in page.locator(".rl-calc-serve td[data-output=tpot_s]").get_attribute("class")
    field(page, "in").fill("2048")
    assert message(page, "in") == ""


def test_a_target_nothing_meets_names_the_limit_out_of_reach(page):
    # 70B on H100s: no layout within one NVLink domain of eight reaches a 2 ms TPOT.
    open_serve(page, "s_model=llama-3.1-70b&s_wd=fp8&s_act=fp8&s_kvd=fp8&s_tpot=2")
    text = message(page, "tpot")
    assert text.startswith("Nothing meets a TPOT of 2 ms at p99: the shortest TPOT at p99 is"), text
    assert "within 8 devices" in text and text.endswith(".")
    assert message(page, "ttft") == ""
    assert page.locator(".rl-calc-serve .rl-calc-fchart polyline").count() > 1  # the frontier stays
    no_bad_words(page)


def test_devices_and_tp_typed_hold_the_frontier_to_that_layout(page):
    # Devices 8 with TP 8 and no concurrency: the reader asks for TP8's frontier, so every line on the chart
    # and the point named are TP8 on eight devices, and the sentence beside the layout says so.
    open_serve(page, "s_model=llama-3.1-70b&s_wd=fp8&s_act=fp8&s_kvd=fp8")
    assert field(page, "scope").input_value() == "all"
    field(page, "dev").fill("8")
    field(page, "tp").fill("8")
    page.wait_for_function("new URLSearchParams(location.search).get('s_tp') === '8'")
    assert field(page, "scope").input_value() == "set"
    assert page.locator(".rl-calc-serve .rl-calc-fline[data-layout]").evaluate_all("ls => ls.map((l) => l.dataset.layout)") == ["TP8"]
    c = cells(page)
    assert c["layout"]["text"] == "TP8 (8 devices)"
    note = page.locator(".rl-calc-serve [data-key=scope] .rl-calc-wdnote").inner_text()
    assert note == "The frontier spans TP8 alone (8 devices).", note
    want = serving(get_device("h100-sxm5"), get_model("llama-3.1-70b"), 1024, 256, "fp8", "fp8", "fp8", tp=8, layouts="set")
    top = max(want["frontier"], key=lambda p: p["output_tokens_per_s_per_device"])
    assert math.isclose(float(c["output_tokens_per_s_per_device"]["value"]), top["output_tokens_per_s_per_device"], rel_tol=1e-9)
    # Back to every layout: the typed TP8 is then said to be set aside, in the reader's words.
    field(page, "scope").select_option("all")
    page.wait_for_function("document.querySelectorAll('.rl-calc-serve .rl-calc-fline[data-layout]').length > 1")
    note = page.locator(".rl-calc-serve [data-key=scope] .rl-calc-wdnote").inner_text()
    assert note.startswith("The layout below is set aside") and "“only the layout below”" in note and "TP8" in note, note
    assert "--" not in note
    no_bad_words(page)


def test_the_chart_keeps_its_best_point_inside_with_a_tick_above_and_draws_the_target(page):
    # A 30 ms TPOT target on the mean asks for 1 ÷ 0.030 = 33.3 tokens/s per user on the chart's axis (1 ÷ mean
    # TPOT): the dashed line stands there, the best point's ring and label lie inside the plot, a labelled tick
    # of the y axis lies above the ring, and the legend shows the ring, the circled points and the dashed line.
    open_serve(page, "s_model=llama-3.1-70b&s_wd=fp8&s_act=fp8&s_kvd=fp8&s_tpot=30&s_tpotp=mean")
    geo = page.evaluate("""() => {
        const svg = document.querySelector('.rl-calc-serve .rl-calc-fchart');
        const box = (e) => { const b = e.getBBox(); return {x: b.x, y: b.y, width: b.width, height: b.height}; };
        const grid = [...svg.querySelectorAll('.rl-calc-grid line')].map((l) => [l.getAttribute('x1'), l.getAttribute('x2'),
          l.getAttribute('y1'), l.getAttribute('y2')].map(Number));
        const horizontal = grid.filter(([x1, x2, y1, y2]) => y1 === y2).map(([, , y]) => y);
        const vertical = grid.filter(([x1, x2]) => x1 === x2);
        const ring = svg.querySelector('.rl-calc-fmark circle');
        const label = svg.querySelector('.rl-calc-fmark text');
        const t = svg.querySelector('.rl-calc-ftarget line');
        return {ringY: Number(ring.getAttribute('cy')), ringX: Number(ring.getAttribute('cx')), label: box(label),
          top: Math.min(...horizontal), bottom: Math.max(...horizontal), left: Math.min(...vertical.map((v) => v[0])),
          right: Math.max(...vertical.map((v) => v[0])), hs: horizontal, targetX: t && Number(t.getAttribute('x1')),
          targetText: svg.querySelector('.rl-calc-ftarget text').textContent};
    }""")
    assert geo["top"] < geo["label"]["y"] and geo["label"]["y"] + geo["label"]["height"] < geo["bottom"]
    assert geo["left"] <= geo["label"]["x"] and geo["label"]["x"] + geo["label"]["width"] <= geo["right"] + 0.5
    assert any(y < geo["ringY"] - 7 for y in geo["hs"])  # a gridline with its tick label above the ring
    assert geo["left"] < geo["targetX"] < geo["right"] and geo["targetText"] == "TPOT target 30 ms"
    legend = page.locator(".rl-calc-serve .rl-calc-legend").inner_text()
    assert "the best under your targets" in legend and "meets a TPOT of 30 ms on the mean" in legend, legend
    assert page.locator(".rl-calc-serve .rl-calc-legend circle.rl-calc-fring").count() == 1
    assert page.locator(".rl-calc-serve .rl-calc-fchart path.rl-calc-fok").count() == 1
    # Judged at p99 the target is no line on a mean axis: the points meeting it are circled instead.
    field(page, "tpotp").select_option("p99")
    page.wait_for_function("!document.querySelector('.rl-calc-serve .rl-calc-ftarget')")
    assert "meets a TPOT of 30 ms at p99" in page.locator(".rl-calc-serve .rl-calc-legend").inner_text()
    assert page.locator(".rl-calc-serve .rl-calc-fchart path.rl-calc-fok").count() == 1


def test_speculation_raises_the_per_user_ceiling_by_the_tokens_a_pass(page):
    # EAGLE's defaults: 4 drafted tokens each accepted with 0.8, so a pass keeps (1 − 0.8^5) ÷ 0.2 = 3.3616
    # tokens; one request in flight sees only passes of decodes, so tokens/s per user = 3.3616 ÷ the pass.
    open_serve(page, "s_model=llama-3.1-8b&s_conc=1")
    assert "plain decoding" in page.locator(".rl-calc-serve .rl-calc-ssummary").inner_text()
    assert field(page, "k").is_hidden()
    field(page, "spec").select_option("eagle")
    page.wait_for_function("new URLSearchParams(location.search).get('s_spec') === 'eagle'")
    assert field(page, "k").is_visible() and field(page, "acc").is_visible()
    c = cells(page)
    per_user, step = float(c["output_tokens_per_s_per_user"]["value"]), float(c["decode_step_s"]["value"])
    assert per_user * step == pytest.approx(3.3616, rel=1e-9)
    assert ("speculative decoding (eagle, 4 drafted tokens a pass, acceptance 0.8: 3.36 tokens a pass)"
            in page.locator(".rl-calc-serve .rl-calc-ssummary").inner_text())
    want = serving(get_device("h100-sxm5"), get_model("llama-3.1-8b"), 1024, 256, concurrency=1, speculation="eagle")
    assert math.isclose(per_user, want["point"]["output_tokens_per_s_per_user"], rel_tol=1e-9)
    no_bad_words(page)


def test_separate_pools_are_the_packages_and_drawn_beside(page):
    # Prefill and decode on separate pools: the most per device among the package's disaggregated points, in
    # the sentence under the co-located one, and their envelope drawn as a line of its own.
    open_serve(page, "s_model=llama-3.1-8b&s_in=1024&s_out=256&s_dis=yes")
    want = serving(get_device("h100-sxm5"), get_model("llama-3.1-8b"), 1024, 256, disaggregated=True)["disaggregated"]
    top = max(want, key=lambda p: (p["output_tokens_per_s_per_device"], -p["devices"]))
    text = page.locator(".rl-calc-serve .rl-calc-sdis").inner_text()
    assert text.startswith("Disaggregated, the most per device: prefill on " + top["prefill_layout"]), text
    assert fmt.tokens_per_s(top["output_tokens_per_s_per_device"]) in text and fmt.seconds(top["ttft_s"]) in text
    assert page.locator(".rl-calc-serve .rl-calc-fchart polyline.rl-calc-fdis").count() == 1
    assert "separate pools" in page.locator(".rl-calc-serve .rl-calc-legend").inner_text()
    # Pools that cannot be formed (every layout asked has data-parallel replicas): one sentence beside the
    # field, in the reader's words, and the co-located results stand.
    page.goto(f"{page.base_url}/calculator/?mode=serve&s_model=llama-3.1-8b&s_dis=yes&s_scope=set&s_dp=2")
    page.wait_for_selector(".rl-calc-serve:not([hidden]) .rl-calc-fchart polyline")
    msg = message(page, "dis")
    assert msg.startswith("No layout asked holds a prefill pool") and "without DP" in msg and "--" not in msg, msg
    assert page.locator(".rl-calc-serve .rl-calc-fchart polyline.rl-calc-fdis").count() == 0
    assert "rl-calc-stale" not in (page.locator(".rl-calc-serve td[data-output=tpot_s]").get_attribute("class") or "")
    no_bad_words(page)


def test_a_phone_at_390_px_with_touch(chromium, served_site):
    tabs = chromium.tabs(**PHONE)
    tab = tabs.new_page()
    try:
        tab.goto(f"{served_site}/calculator/?mode=serve&s_model=llama-3.1-70b&s_tpot=30&s_price=2")
        tab.wait_for_selector(".rl-calc-serve:not([hidden]) .rl-calc-fchart polyline")
        width = PHONE["viewport"]["width"]
        assert tab.evaluate("document.documentElement.scrollWidth") <= width
        # nothing inside the Serving section reaches past the screen's edge
        right = tab.evaluate("""() => Math.max(...[...document.querySelectorAll('.rl-calc-serve *')]
            .filter((e) => e.getClientRects().length && !e.closest('.rl-calc-table-wrap'))
            .map((e) => e.getBoundingClientRect().right))""")
        assert right <= width + 0.5, right
        # the chart is drawn at its width, not shrunk: its text at least 11 px as shown
        sizes = tab.evaluate("""() => { const svg = document.querySelector('.rl-calc-serve .rl-calc-fchart');
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale); }""")
        assert sizes and min(sizes) >= 11, min(sizes)
        # the chosen point's label stays inside the chart
        box = tab.locator(".rl-calc-serve .rl-calc-fmark text").bounding_box()
        chart = tab.locator(".rl-calc-serve .rl-calc-fchart").bounding_box()
        assert box["x"] >= chart["x"] - 0.5 and box["x"] + box["width"] <= chart["x"] + chart["width"] + 0.5
        # the mode switch takes a tap
        tab.locator("label[for$='-mode-step']").tap()
        assert tab.locator(".rl-calc-serve").is_hidden() and tab.locator(".rl-calc-step").is_visible()
    finally:
        tabs.close()


def test_the_registry_gives_the_serving_fields_their_limits():
    reg = registry_json()
    # O ≥ 2 (TPOT needs a second token); a price of at least a cent a device-hour, the cent itself allowed
    assert reg["limits"]["output_tokens"]["min"] == 2
    assert reg["limits"]["usd_per_device_hour"]["min"] == 0.01 and reg["limits"]["usd_per_device_hour"]["min_inclusive"] is True


SERVE_MODULES = ("serve_ui.js", "serving.js", "mixed.js", "serve_state.js", "frontier_chart.js")


def serve_requests(page) -> list[str]:
    return [u for u in page.requests_seen if u.rsplit("/", 1)[-1].split("?")[0] in SERVE_MODULES]


def test_serving_modules_load_when_a_reader_switches_to_the_mode(page):
    # A reader who stays with one step never downloads the Serving mode's five modules (the page's
    # weight counts what that reader downloads); the switch loads them and draws the
    # frontier, and the link it writes restores the mode in a new tab.
    page.goto(f"{page.base_url}/calculator/", wait_until="networkidle")
    page.wait_for_selector(".rl-calc[data-rl-ready]")
    assert serve_requests(page) == []
    # Nor its stylesheet or its share of the registry (the frontier's bounds, the derates).
    alongside = lambda: sorted(u.rsplit("/", 1)[-1] for u in page.requests_seen  # noqa: E731
                               if u.endswith(("/serve.css", "/registry_more.json")))
    assert alongside() == []
    assert page.locator(".rl-calc-serve").count() == 0
    page.locator(".rl-calc-modes input[value=serve]").check()
    page.wait_for_selector(".rl-calc-serve:not([hidden]) .rl-calc-fchart polyline")
    assert sorted(u.rsplit("/", 1)[-1] for u in serve_requests(page)) == sorted(SERVE_MODULES)
    assert alongside() == ["registry_more.json", "serve.css"]
    # serve.css applies: the envelope is drawn as its rule says (5 px wide, a third opaque), not as SVG's default.
    assert page.evaluate("getComputedStyle(document.querySelector('.rl-calc-fenvelope')).strokeWidth") == "5px"
    assert page.locator(".rl-calc-serve-wait").is_hidden()
    field(page, "out").fill("300")
    page.wait_for_function("new URLSearchParams(location.search).get('s_out') === '300'")
    before = cells(page)
    tab = page.context.new_page()
    tab.requests_seen = []
    tab.on("request", lambda r: tab.requests_seen.append(r.url))
    try:
        tab.goto(page.url)
        tab.wait_for_selector(".rl-calc-serve:not([hidden]) .rl-calc-fchart polyline")
        assert cells(tab) == before and len(serve_requests(tab)) == len(SERVE_MODULES)
    finally:
        tab.close()


@pytest.mark.parametrize("part", ["serve_ui.js", "serve.css", "registry_more.json"])
def test_serving_modules_that_do_not_load_get_one_sentence(page, part):
    # The connection gone when the reader switches, for its scripts, its stylesheet or its share of the
    # registry: one sentence where the section would be (never a section without its rules or data), the
    # step's view kept a click away; the next switch tries again and succeeds.
    page.route(f"**/{part}", lambda route: route.abort())
    page.goto(f"{page.base_url}/calculator/")
    page.wait_for_selector(".rl-calc[data-rl-ready]")
    page.locator(".rl-calc-modes input[value=serve]").check()
    wait = page.locator(".rl-calc-serve-wait.rl-calc-failed")
    wait.wait_for(state="visible")
    assert wait.inner_text().strip() == "The Serving mode did not load; switch again or reload the page to try again."
    assert page.locator(".rl-calc-serve").count() == 0
    page.unroute(f"**/{part}")
    page.locator(".rl-calc-modes input[value=step]").check()
    assert page.locator(".rl-calc-step").is_visible() and wait.is_hidden()
    page.locator(".rl-calc-modes input[value=serve]").check()
    page.wait_for_selector(".rl-calc-serve:not([hidden]) .rl-calc-fchart polyline")
    assert page.locator(".rl-calc-serve-wait").is_hidden()
