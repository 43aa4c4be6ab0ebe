"""The calculator in Debian Chromium: package values, URL state, bad input, keyboard, themes, kernel dots.

Every expected number comes from `roofline.calculator_view.calculate` (the package), never from the page.
The time of one recompute and redraw is measured by `make bench` (tools/bench_calculator.py), not here.
"""

from __future__ import annotations

import json
import math
import urllib.parse

import pytest

from roofline import format as fmt
from roofline.calculator_view import calculate, custom_device, custom_model, registry_json
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model
from tests.conftest import ROOT
from tests.support.browser import PHONE

pytestmark = pytest.mark.browser

REL = 1e-9
TEXT = {"arithmetic_intensity": fmt.intensity, "ridge_point": fmt.intensity, "peak_flop_per_s": fmt.flop_per_s,
        "time_s": fmt.seconds, "time_perfect_overlap_s": fmt.seconds, "tokens_per_s": fmt.tokens_per_s, "tokens_per_s_per_sequence": fmt.tokens_per_s,
        "kv_resident_bytes": fmt.nbytes, "memory_required_bytes": fmt.nbytes, "flops": lambda v: fmt.si(v, "FLOP"),
        "bytes": fmt.nbytes}
BAD_WORDS = ("NaN", "Infinity", "undefined", "null")


def open_calc(page, query: str = ""):
    page.goto(f"{page.base_url}/calculator/{query}")
    page.wait_for_selector(".rl-calc[data-rl-ready]")
    return page.locator(".rl-calc")


def field(page, key: str, config: int = 0):
    return page.locator(".rl-calc .rl-calc-config").nth(config).locator(f"[name={key}]")


def message(page, key: str, config: int = 0) -> str:
    ctl = field(page, key, config)
    msg_id = ctl.get_attribute("aria-describedby")
    return page.locator(f"[id='{msg_id}']").inner_text().strip()


def message_saying(page, key: str, words: str, config: int = 0) -> str:
    """The field's message once it says `words`, or as it is after 5 s. A layout field's first value
    other than 1 loads the many-chips code first (many.js, on demand), then checks the value: its
    message comes a module load later."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    ctl = field(page, key, config)
    box = f"[id='{ctl.get_attribute('aria-describedby')}']"
    try:
        page.wait_for_function("([box, words]) => document.querySelector(box).textContent.includes(words)",
                               arg=[box, words], timeout=5000)
    except PlaywrightTimeout:  # (the caller's assertion says what the message said instead)
        pass
    return message(page, key, config)


# A column's result cells, {output: {text, value}}: read by `outputs` and inside SET_FIELDS_AND_READ.
CELLS = """(root, cfg) => Object.fromEntries([...document.querySelectorAll(`${root} td[data-config="${cfg}"]`)]
    .map((td) => [td.dataset.output, {text: td.textContent, value: td.dataset.value}]))"""


def outputs(page, config: str = "a", root: str = ".rl-calc") -> dict:
    return page.evaluate(f"([root, cfg]) => ({CELLS})(root, cfg)", [root, config])


def check_against_package(shown: dict, expected: dict):
    """Every numeric cell equals the package value within 1e-9, and reads as format.py prints it."""
    compared = 0
    for key, cell in shown.items():
        want = expected[key]
        if isinstance(want, bool):
            assert cell["value"] == str(want).lower(), key
        elif want is None:
            assert cell["value"] == "", key
        elif isinstance(want, str):
            assert cell["value"] == want, key
        else:
            got = float(cell["value"])
            assert math.isclose(got, want, rel_tol=REL, abs_tol=0 if want else 1e-300), (key, got, want)
            compared += 1
        if key in TEXT and want is not None and (expected["fits"] or key not in ("time_s", "time_perfect_overlap_s", "tokens_per_s",
                                                                         "tokens_per_s_per_sequence")):
            assert cell["text"] == TEXT[key](want), (key, cell["text"], TEXT[key](want))
    assert compared >= 10


def no_bad_words(page):
    text = page.evaluate("() => [...document.querySelectorAll('.rl-calc, .rl-calc-mini')].map((e) => e.innerText).join(' ')")
    for word in BAD_WORDS:
        assert word not in text, f"{word!r} on the page"
    svg = page.locator(".rl-calc .rl-calc-chart").inner_html()
    assert "NaN" not in svg and "Infinity" not in svg


def chart_html(page) -> str:
    return page.locator(".rl-calc .rl-calc-chart").inner_html()


# ------------------------------------------------------------------------------------------
def test_defaults_and_changes_match_the_package(page):
    open_calc(page)
    d = registry_json()["defaults"]
    dev, model = get_device(d["hardware"]), get_model(d["model"])
    check_against_package(outputs(page, "a"), calculate(dev, model, "decode", d["batch"], d["context_len"]))
    check_against_package(outputs(page, "b"), calculate(dev, model, "decode", d["compare_batch"], d["context_len"]))

    field(page, "hw").select_option("a100-sxm4-80gb")
    field(page, "model").select_option("mixtral-8x7b")
    field(page, "phase").select_option("prefill")
    field(page, "batch").fill("4")
    field(page, "prompt").fill("2048")
    field(page, "wd").select_option("int4-g128")
    field(page, "kvd").select_option("fp8")
    field(page, "attn").select_option("unfused")
    expected = calculate(get_device("a100-sxm4-80gb"), get_model("mixtral-8x7b"), "prefill", 4, 2048, "int4-g128", "fp8",
                         "bf16", "unfused")
    check_against_package(outputs(page, "a"), expected)
    assert outputs(page, "a")["time_to_first_token_s"]["text"] == fmt.seconds(expected["time_s"])

    # A custom device (prefilled from the A100 when chosen) and a bare parameter count.
    field(page, "hw").select_option("custom")
    assert field(page, "bw").input_value() == "2.039"
    field(page, "peak").fill("400")
    field(page, "bw").fill("1.5")
    field(page, "mem").fill("48")
    field(page, "model").select_option("custom")
    field(page, "params").fill("13")
    field(page, "phase").select_option("decode")
    field(page, "ctx").fill("8192")
    expected = calculate(custom_device(400e12, 1.5e12, 48e9), custom_model(13e9), "decode", 4, 8192,
                         "int4-g128", "fp8", "bf16", "unfused")
    check_against_package(outputs(page, "a"), expected)
    no_bad_words(page)
    assert [u for u in page.requests_seen if not u.startswith(page.base_url)] == []


def test_a_link_restores_the_view(page):
    query = ("?hw=custom&peak=989.4&bw=3.35&mem=80&model=llama-3.1-70b&phase=decode&batch=16&ctx=8192&wd=int4-g64&kvd=fp8"
             "&act=fp16&attn=unfused"
             "&b_hw=b200&b_model=custom&b_params=8&b_phase=prefill&b_batch=2&b_prompt=4096&b_wd=bf16&b_kvd=bf16")
    open_calc(page, query)
    assert field(page, "hw").input_value() == "custom" and field(page, "peak").input_value() == "989.4"
    assert field(page, "batch", 1).input_value() == "2"
    assert field(page, "wd").input_value() == "int4-g64" and field(page, "attn").input_value() == "unfused"
    check_against_package(outputs(page, "a"), calculate(custom_device(989.4e12, 3.35e12, 80e9), get_model("llama-3.1-70b"),
                                                        "decode", 16, 8192, "int4-g64", "fp8", "fp16", "unfused"))
    check_against_package(outputs(page, "b"), calculate(get_device("b200"), custom_model(8e9), "prefill", 2, 4096))

    # Editing writes the view back into the address; that address reproduces it in a fresh tab.
    field(page, "batch").fill("7")
    page.wait_for_function("new URLSearchParams(location.search).get('batch') === '7'")
    url = page.url
    tab = page.context.new_page()
    try:
        tab.goto(url)
        tab.wait_for_selector(".rl-calc[data-rl-ready]")
        assert tab.locator(".rl-calc .rl-calc-config").nth(0).locator("[name=batch]").input_value() == "7"
        a_before = outputs(page, "a")
        a_after = tab.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.rl-calc td[data-config="a"]')]
                                 .map((td) => [td.dataset.output, {text: td.textContent, value: td.dataset.value}]))""")
        assert a_after == a_before
    finally:
        tab.close()


def test_a_link_with_unknown_ids_says_so(page):
    open_calc(page, "?hw=h900-imaginary&model=<script>alert(1)</script>&batch=3")
    assert field(page, "hw").input_value() == registry_json()["defaults"]["hardware"]
    assert "does not list" in message(page, "hw")
    assert "<script>alert(1)</script>" in message(page, "model")  # shown as text, not markup
    assert page.locator(".rl-calc script").count() == 0
    no_bad_words(page)


def test_a_link_with_junk_formats_says_so_in_one_sentence(page):
    open_calc(page, "?wd=nf3&act=<b>x</b>&kvd=fp64&attn=flash&batch=3")
    d = registry_json()["defaults"]
    for key, want in (("wd", d["weight_format"]), ("act", d["activation"]), ("kvd", d["kv_dtype"]), ("attn", d["attention"])):
        assert field(page, key).input_value() == want, key
        assert "not one this calculator knows" in message(page, key), key
    assert page.locator(".rl-calc b").count() == 0
    check_against_package(outputs(page, "a"), calculate(get_device(d["hardware"]), get_model(d["model"]), "decode", 3,
                                                        d["context_len"]))
    no_bad_words(page)


def test_every_kernel_is_a_named_dot_on_the_chart(page):
    open_calc(page)
    d = registry_json()["defaults"]
    expected = calculate(get_device(d["hardware"]), get_model(d["model"]), "decode", d["batch"], d["context_len"])
    with_flops = [op["name"] for op in expected["ops"] if op["flops"] > 0]  # the embedding copy has no FLOPs
    dots = page.locator(".rl-calc .rl-calc-kpoint")
    assert dots.count() == len(with_flops) >= 10
    names = [n.split(":")[0] for n in dots.evaluate_all("gs => gs.map((g) => g.dataset.name)")]
    assert names == with_flops
    dots.nth(2).dispatch_event("click")
    label = page.locator(".rl-calc .rl-calc-klabel")
    assert label.text_content().startswith(with_flops[2]) and label.get_attribute("visibility") == "visible"
    assert float(label.evaluate("t => getComputedStyle(t).fontSize").rstrip("px")) >= 12
    # The kernel table lists the same kernels, then their sum and the perfect-overlap bound.
    rows = page.locator(".rl-calc-kernels tbody th").all_inner_texts()
    assert rows[:len(expected["ops"])] == [op["name"] for op in expected["ops"]]
    assert rows[-2:] == ["Step (sum of kernels)", "Perfect overlap (lower bound)"]


def test_a_layout_adds_collectives_and_the_link_roof(page):
    # Llama 3.1 70B over eight H100s (TP8): the CLI's `roofline decode ... --tp 8 --ops`.
    open_calc(page, "?model=llama-3.1-70b&batch=1&ctx=1024&tp=8")
    expected = calculate(get_device("h100-sxm5"), get_model("llama-3.1-70b"), "decode", 1, 1024, tp=8)
    check_against_package(outputs(page, "a"), expected)
    assert field(page, "dev").input_value() == "8"
    rows = page.locator(".rl-calc-kernels tbody th").all_inner_texts()
    assert {"embed_all_reduce", "attn_all_reduce", "mlp_all_reduce", "logits_all_gather"} <= set(rows)
    assert page.locator(".rl-calc .rl-calc-linkroof").count() == 1
    assert "link ridge" in chart_html(page)
    assert "On 8 devices (TP8)" in page.locator(".rl-calc .rl-calc-summary").inner_text()

    # The Devices field picks the engine's layout (roofline decode --devices N): 4 H100s run TP4; 16 do not fit one
    # NVLink domain of 8, and the field says so in the CLI's words while the view keeps TP8.
    field(page, "dev").fill("4")
    assert (field(page, "tp").input_value(), field(page, "pp").input_value()) == ("4", "1")
    check_against_package(outputs(page, "a"), calculate(get_device("h100-sxm5"), get_model("llama-3.1-70b"), "decode", 1,
                                                        1024, tp=4))
    # 16 H100s are two 8-GPU nodes: TP stays inside one NVLink domain, with two pipeline stages across the network
    # (roofline decode --devices 16); an A100, with no network recorded, refuses them in the CLI's words.
    field(page, "dev").fill("16")
    assert (field(page, "tp").input_value(), field(page, "pp").input_value()) == ("8", "2")
    field(page, "hw").select_option("a100-sxm4-80gb")
    assert "spans 16 devices but one" in message(page, "tp") and "no scale-out network" in message(page, "tp")


LAYOUT_REFUSALS = [
    # (link, field, words of the CLI's sentence)
    ("?model=llama-3.1-8b&tp=3", "tp", "does not divide"),
    ("?model=llama-3.1-8b&tp=16", "tp", "scale-up domain"),
    ("?model=llama-3.1-8b&ep=2", "ep", "is dense"),
    ("?model=mixtral-8x7b&tp=2&ep=2", "ep", "combine it with TP 1"),
    ("?hw=custom&peak=100&bw=1&mem=80&model=llama-3.1-8b&tp=2", "tp", "needs a link between devices"),
    ("?model=llama-3.1-8b&pp=0", "pp", "at least 1"),
    ("?model=llama-3.1-8b&tp=x", "tp", "must be a number"),
]


@pytest.mark.parametrize("query, key, words", LAYOUT_REFUSALS, ids=[q for q, _, _ in LAYOUT_REFUSALS])
def test_a_layout_no_engine_runs_gets_one_sentence(page, query, key, words):
    open_calc(page, query)
    assert words in message(page, key)
    assert field(page, key).get_attribute("aria-invalid") == "true"
    no_bad_words(page)


def test_a_configuration_that_does_not_fit_says_so_in_one_sentence(page):
    open_calc(page, "?model=llama-3.1-70b&batch=1&ctx=1024")
    summary = page.locator(".rl-calc .rl-calc-summary").inner_text()
    assert "Does not fit" in summary and "not even one sequence fits with 1,024 tokens cached" in summary
    assert outputs(page, "a")["time_s"]["text"] == "does not fit"


BAD_INPUTS = [
    # (config, setup selections, field, typed, words the message must contain)
    (0, {}, "batch", "", "Enter a value"),
    (0, {}, "batch", "-3", "cannot be negative"),
    (0, {}, "batch", "0", "at least 1"),
    (0, {}, "batch", "abc", "must be a number"),
    (0, {}, "batch", "2.5", "whole number"),
    (0, {}, "batch", "1e30", "at most"),
    (0, {}, "batch", "<img src=x onerror=alert(1)>", "must be a number"),
    (0, {}, "ctx", "-1", "cannot be negative"),
    (0, {}, "ctx", "0", "at least 1"),
    (0, {}, "ctx", "1e400", "at most"),
    (0, {"phase": "prefill"}, "prompt", "0", "at least 1"),
    (0, {"hw": "custom"}, "bw", "0", "at least"),
    (0, {"hw": "custom"}, "peak", "", "Enter a value"),
    (0, {"hw": "custom"}, "mem", "-80", "cannot be negative"),
    (0, {"hw": "custom"}, "peak", "1e40", "at most"),
    (0, {"model": "custom"}, "params", "0", "at least"),
    (0, {"model": "custom"}, "params", "x8", "must be a number"),
    (1, {}, "batch", "NaN", "must be a number"),
    # The Devices field once gave no message (0x4 read as 4; "" got the CLI's "--devices must be").
    (0, {}, "dev", "abc", "Devices must be a number"),
    (0, {}, "dev", "1.5", "whole number"),
    (0, {}, "dev", "Infinity", "must be a number"),
    (0, {}, "dev", "1e400", "at most"),
    (0, {}, "dev", "0x4", "must be a number"),
    (0, {}, "dev", "", "Enter a value for devices"),
    # ... and a context past the model's maximum (Llama 2: 4,096 positions) was answered.
    (0, {"model": "llama-2-7b"}, "ctx", "100000", "at most 4,096 tokens for Llama 2 7B"),
]


# Every field of both configurations, as [["config:name", element], ...] (the file and paste boxes have no
# name: a case never fills them).
FIELD_LIST = """[...document.querySelectorAll('.rl-calc .rl-calc-config')].flatMap((cfg, c) =>
    [...cfg.querySelectorAll('select[name], input[name]:not([type=hidden])')].map((e) => [`${c}:${e.name}`, e]))"""
# {"config:name": value} of every field.
FIELDS = f"() => Object.fromEntries({FIELD_LIST}.map(([key, e]) => [key, e.value]))"
# Put every field back to `first`, selections before the fields they show, as a reader would by hand:
# each change a `change` or `input` event of its own, so the calculator recomputes as it does for a reader.
RESTORE = """(first) => {
  const fields = FIELD_LIST;
  fields.sort(([, a], [, b]) => (a.tagName === 'SELECT' ? 0 : 1) - (b.tagName === 'SELECT' ? 0 : 1));
  for (const [key, e] of fields) {
    if (e.value === first[key]) continue;
    e.value = first[key];
    e.dispatchEvent(new Event(e.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true }));
  }
}""".replace("FIELD_LIST", FIELD_LIST)


@pytest.fixture(scope="module")
def calc_tab(browser, served_site):
    """One calculator tab for every bad-input case, with what it first showed: a case puts the fields back
    (and checks that the view is the first one again) instead of loading the page again, which was most of
    what a case cost (25 loads of the calculator)."""
    tab = browser.new_page()
    tab.base_url = served_site
    open_calc(tab)
    first = {"fields": tab.evaluate(FIELDS), "chart": chart_html(tab), "a": outputs(tab, "a"), "b": outputs(tab, "b")}
    yield tab, first
    tab.close()


def back_to_first_view(tab, first: dict) -> None:
    """Every field as the page first showed it, and the same results and chart (else the case would not
    start where it says)."""
    tab.evaluate(RESTORE, first["fields"])
    assert tab.evaluate(FIELDS) == first["fields"]
    assert (outputs(tab, "a"), outputs(tab, "b"), chart_html(tab)) == (first["a"], first["b"], first["chart"]), \
        "putting the fields back did not give the first view"
    assert tab.locator(".rl-calc [aria-invalid]").count() == 0


@pytest.mark.parametrize("config, setup, key, typed, words", BAD_INPUTS,
                         ids=[f"{k}={t!r}" for _, _, k, t, _ in BAD_INPUTS])
def test_bad_input_shows_a_message_and_keeps_the_last_valid_state(calc_tab, config, setup, key, typed, words):
    page, first = calc_tab
    back_to_first_view(page, first)
    for k, v in setup.items():
        field(page, k, config).select_option(v)
    page.wait_for_timeout(50)
    before_chart, before = chart_html(page), outputs(page, "ab"[config])
    field(page, key, config).fill(typed)
    assert words in message_saying(page, key, words, config)
    assert field(page, key, config).get_attribute("aria-invalid") == "true"
    assert chart_html(page) == before_chart, "the chart must keep the last valid state"
    after = outputs(page, "ab"[config])
    assert {k: v["value"] for k, v in after.items()} == {k: v["value"] for k, v in before.items()}
    assert page.locator(".rl-calc img").count() == 0
    summary = page.locator(".rl-calc .rl-calc-summary").inner_text()
    assert "last valid result" in summary
    no_bad_words(page)
    # Fixing the field clears the message.
    good = {"batch": "2", "ctx": "10", "prompt": "10", "bw": "1", "peak": "100", "mem": "10", "params": "7",
            "dev": "1"}[key]
    field(page, key, config).fill(good)
    assert message(page, key, config) == "" or "optional" in message(page, key, config)
    assert field(page, key, config).get_attribute("aria-invalid") is None


def test_keyboard_only(page):
    open_calc(page)
    page.locator("body").focus()
    labels = []
    for _ in range(120):  # Tab through the page until the first calculator field has focus
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.closest('.rl-calc') !== null"):
            break
    for _ in range(9):
        # A field's label, or the text of the "Compare" summary that unfolds configuration B.
        labels.append(page.evaluate("""document.activeElement.tagName === 'SUMMARY' ? document.activeElement.textContent
            : document.activeElement.labels && document.activeElement.labels[0] ? document.activeElement.labels[0].textContent : ''"""))
        page.keyboard.press("Tab")
    # The mode switch comes first (one Tab stop for its radio group: arrows move inside it), then Device.
    assert labels[0].strip().startswith("One step") and labels[1].startswith("Device") and all(labels), labels
    # Device: focus it with the keyboard and step to the next option with the arrow key.
    hw = field(page, "hw")
    hw.focus()
    first = hw.input_value()
    page.keyboard.press("ArrowDown")
    assert hw.input_value() != first
    # Batch: select all and type.
    field(page, "batch").focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("32")
    expected = calculate(get_device(hw.input_value()), get_model("llama-3.1-8b"), "decode", 32,
                         registry_json()["defaults"]["context_len"])
    check_against_package(outputs(page, "a"), expected)
    # The focused field shows a visible focus ring.
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("none", "")
    live = page.locator(".rl-calc [aria-live]")
    assert live.count() == 1 and "memory-bound" in live.inner_text() or "compute-bound" in live.inner_text()


def test_light_and_dark_screenshots(page, tmp_path):
    colors = {}
    for scheme, palette in (("light", "default"), ("dark", "slate")):
        page.emulate_media(color_scheme=scheme)
        open_calc(page)
        if page.evaluate("document.body.dataset.mdColorScheme") != palette:  # a stored choice wins: use the toggle
            page.evaluate(f"document.querySelector(\"input[data-md-color-scheme='{palette}']\").click()")
            page.wait_for_function(f"document.body.dataset.mdColorScheme === '{palette}'")
        page.wait_for_function("document.querySelector('link[data-rl-calc-css]') && [...document.styleSheets].some(s => s.href && s.href.includes('calculator.css'))")
        assert page.evaluate("document.body.dataset.mdColorScheme") == palette
        shot = tmp_path / f"calculator-{scheme}.png"
        page.locator(".rl-calc").screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000
        colors[scheme] = page.evaluate("""() => {
            const cell = document.querySelector('.rl-calc td[data-config="a"]');
            const tick = document.querySelector('.rl-calc-chart .rl-calc-grid text');
            return [getComputedStyle(cell).color, getComputedStyle(tick).fill, getComputedStyle(document.querySelector('.rl-calc [name=batch]')).backgroundColor];
        }""")
        no_bad_words(page)
    assert colors["light"][0] != colors["dark"][0] and colors["light"][1] != colors["dark"][1]
    assert colors["light"][2] != colors["dark"][2]
    page.evaluate("document.querySelector(\"input[data-md-color-scheme='default']\").click()")  # leave it light
    page.emulate_media(color_scheme="light")
    print(f"screenshots: {tmp_path}")


def test_compact_version_embedded_in_a_page(page):
    # A page embeds it as CONTRIBUTING.md says: an element with the class rl-calc-mini and its data attributes.
    open_calc(page)
    page.evaluate("""() => { const div = document.createElement('div'); div.className = 'rl-calc-mini';
        Object.assign(div.dataset, {hw: 'a100-sxm4-80gb', model: 'mixtral-8x7b', phase: 'decode'});
        document.querySelector('article').appendChild(div);
        return import(new URL('../assets/calculator/ui.js?embed', location.href).href); }""")
    page.wait_for_selector(".rl-calc-mini[data-rl-ready]")
    mini = page.locator(".rl-calc-mini")
    expected = calculate(get_device("a100-sxm4-80gb"), get_model("mixtral-8x7b"), "decode", 1,
                         registry_json()["defaults"]["context_len"])
    shown = outputs(page, "a", ".rl-calc-mini")
    assert set(shown) >= {"bound", "time_s", "tokens_per_s", "fits", "max_batch_that_fits"}
    for key in ("time_s", "tokens_per_s"):
        assert math.isclose(float(shown[key]["value"]), expected[key], rel_tol=REL)
    page.wait_for_function("location.search.includes('hw=')")
    url_before = page.url
    mini.locator("[name=batch]").fill("16")
    expected = calculate(get_device("a100-sxm4-80gb"), get_model("mixtral-8x7b"), "decode", 16,
                         registry_json()["defaults"]["context_len"])
    shown = outputs(page, "a", ".rl-calc-mini")
    assert math.isclose(float(shown["tokens_per_s"]["value"]), expected["tokens_per_s"], rel_tol=REL)
    page.wait_for_timeout(300)
    assert page.url == url_before, "the compact version must not touch the address bar"
    href = mini.locator(".rl-calc-link").get_attribute("href")
    assert "batch=16" in href and "model=mixtral-8x7b" in href and "/calculator/" in href


def test_instant_navigation_initialises_the_calculator(page):
    # Material's instant navigation, as a link starts it (on the test server a click loads a new page: its
    # sitemap matches the host, not the port). Opened on the calculator itself, whose module runs before
    # Material's bundle, then away and back: the calculator is built again, in the same document.
    open_calc(page)
    page.evaluate("() => { window.__sameDocument = true; }")
    for path, ready in (("../", "h1#the-roofline-model"), ("../calculator/", ".rl-calc[data-rl-ready]")):
        page.evaluate("(path) => window.location$.next(new URL(path, location.href))", path)
        page.wait_for_selector(ready, timeout=15_000)
    assert page.evaluate("() => window.__sameDocument === true"), "a new page loaded: no instant navigation tested"
    assert page.locator(".rl-calc .rl-calc-results td").count() > 10
    no_bad_words(page)


@pytest.mark.site
def test_registry_json_in_the_site_is_the_package_export(site_dir):
    built = json.loads((site_dir / "calculator" / "registry.json").read_text(encoding="utf-8"))
    more = json.loads((site_dir / "calculator" / "registry_more.json").read_text(encoding="utf-8"))
    # The step mode's file goes without what only the on-demand scripts read (page weight) ...
    assert "serving" not in built["constants"] and "families" not in built["config_reader"]
    # ... and the two, merged one level deep as config.js's completeRegistry merges them, are the export.
    for key, part in more.items():
        built[key].update(part)
    assert built == json.loads(json.dumps(registry_json()))


def test_the_page_does_not_jump_when_the_calculator_appears(page):
    # Lighthouse measured a layout shift of 0.40 here (the text below jumped 2,500 px on a phone
    # when the script built the form); "good" is under 0.1 (web.dev/cls).
    page.set_viewport_size({"width": 412, "height": 823})
    page.add_init_script("""window.__cls = 0; new PerformanceObserver(list => { for (const e of list.getEntries())
        if (!e.hadRecentInput) window.__cls += e.value; }).observe({type: 'layout-shift', buffered: true});""")
    page.goto(page.base_url + "/calculator/")
    page.wait_for_selector(".rl-calc[data-rl-ready]", timeout=15_000)
    page.wait_for_timeout(500)
    assert page.evaluate("window.__cls") < 0.1


def test_the_readers_share_of_the_registry_that_does_not_load_gets_one_sentence(page):
    # The reader's tables (families, model types) come with it in registry_more.json, not in the registry
    # every reader downloads (page weight). Gone when a config is pasted: one sentence beside the field and no
    # result from a model it could not read; the next paste tries again and reads the config.
    text = (ROOT / "tests" / "fixtures" / "configs" / "gpt-oss-20b.json").read_text()
    page.route("**/registry_more.json", lambda route: route.abort())
    open_calc(page)
    field(page, "model").select_option("config")
    area = page.locator(".rl-calc .rl-calc-config").nth(0).locator(".rl-calc-cfgtext")
    area.fill(text)
    page.wait_for_function("() => document.querySelector('.rl-calc').innerText.includes('reader did not load')")
    assert message(page, "cfg") == ("The config.json reader did not load; paste the config again or reload the page "
                                    "to try again.")
    assert page.locator(".rl-calc[data-rl-reader]").count() == 0
    page.unroute("**/registry_more.json")
    area.fill(text + "\n")
    page.wait_for_selector(".rl-calc[data-rl-reader]")
    page.wait_for_function("new URLSearchParams(location.search).get('model') === 'config'")
    assert "did not load" not in message(page, "cfg")
    assert "n_experts:32" in urllib.parse.unquote(page.url)  # gpt-oss-20b's 32 experts, read from the config


def test_your_model_from_a_pasted_or_dropped_config(page):
    # A config.json read in the browser, the same numbers as the package, a link that
    # carries the parsed fields (never the file), a bad config refused beside the field.
    from roofline.configs import read_config

    fixtures = ROOT / "tests" / "fixtures" / "configs"
    open_calc(page)
    # The reader (config.js) loads when "your config" is chosen, not before (page weight).
    reader = lambda: [u for u in page.requests_seen if u.split("?")[0].endswith("/calculator/config.js")]  # noqa: E731
    assert reader() == []
    field(page, "model").select_option("config")
    page.wait_for_selector(".rl-calc[data-rl-reader]")
    assert len(reader()) == 1
    area = page.locator(".rl-calc .rl-calc-config").nth(0).locator(".rl-calc-cfgtext")
    area.fill((fixtures / "gpt-oss-20b.json").read_text())
    field(page, "ctx").fill("8192")
    m = read_config(fixtures / "gpt-oss-20b.json")
    dev = get_device(registry_json()["defaults"]["hardware"])
    # The weight select starts at the checkpoint's own format: gpt-oss's quantization_config says MXFP4,
    # and transformers converts only the experts (modules_to_not_convert lists attention, router, head).
    expected = calculate(dev, m, "decode", 1, 8192, "mxfp4", weight_scope="experts")
    check_against_package(outputs(page, "a"), expected)
    before = outputs(page, "a")

    # A bad config: one sentence beside the field, the last valid view kept.
    area.fill('{"model_type": "phi3"}')
    assert message(page, "cfg").startswith("config.json: field 'model_type' is 'phi3', not a family the reader knows")
    assert {k: v["value"] for k, v in outputs(page, "a").items()} == {k: v["value"] for k, v in before.items()}
    area.fill("{not json")
    assert message(page, "cfg").startswith("config.json: not JSON (")

    # The address carries the parsed fields, not the file; a fresh tab shows the same numbers. The address
    # is written 150 ms after the last input (url.js), and "model=config" was in it since the paste: wait
    # until it holds the view the link names (with the context typed since), or the tab opened an older one.
    page.wait_for_function("() => location.search === new URL(document.querySelector('.rl-calc .rl-calc-link').href).search")
    url = page.url
    assert "model_type" not in url and "cfg=" in url
    tab = page.context.new_page()
    try:
        tab.goto(url)
        tab.wait_for_selector(".rl-calc[data-rl-ready]")
        got = tab.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.rl-calc td[data-config="a"]')]
            .map((td) => [td.dataset.output, td.dataset.value]))""")
        assert got == {k: v["value"] for k, v in before.items()}
    finally:
        tab.close()

    # A dropped (chosen) file is read in the page: DeepSeek-V3's MLA cache, as the package counts it.
    page.locator(".rl-calc .rl-calc-config").nth(0).locator(".rl-calc-cfgfile").set_input_files(
        str(fixtures / "deepseek-v3.json"))
    page.wait_for_function("""() => document.querySelector('.rl-calc td[data-config="a"][data-output="kv_resident_bytes"]')
        .dataset.value !== '""" + before["kv_resident_bytes"]["value"] + "'")
    # DeepSeek-V3's quantization_config: fp8 e4m3 with weight_block_size [128, 128], every linear layer
    expected = calculate(dev, read_config(fixtures / "deepseek-v3.json"), "decode", 1, 8192, "fp8-b128")
    check_against_package(outputs(page, "a"), expected)
    no_bad_words(page)
    assert [u for u in page.requests_seen if not u.startswith(page.base_url)] == []


def test_the_collective_latency_field_is_validated_carried_in_the_link_and_named(page):
    # The view, Llama 3.1 70B on TP8 H100s at 4,096 cached tokens, with an NCCL ring's latency:
    # 161 all-reduces × (6.05 + 14 × 1.975 µs) + one all-gather × (6.05 + 7 × 1.975 µs) = 5.45 ms of
    # latency in a 10.7 ms step, so latency, not the link's bandwidth, binds.
    open_calc(page, "?model=llama-3.1-70b&batch=1&ctx=4096&tp=8&lat=ring")
    ring = calculate(get_device("h100-sxm5"), get_model("llama-3.1-70b"), "decode", 1, 4096, tp=8, latency="ring")
    check_against_package(outputs(page, "a"), ring)
    assert outputs(page, "a")["bound"]["text"] == "collective latency-bound"
    assert "A link: latency binds" in chart_html(page)  # the hollow link point says what binds
    assert "NCCL ring (expected)" in page.locator(".rl-calc .rl-calc-summary").inner_text()
    # Junk in the custom field: one sentence beside it, the last valid result kept.
    field(page, "lat").select_option("custom")
    field(page, "latus").fill("fast")
    assert message(page, "latus") == "Latency per collective must be a number, such as 1."
    field(page, "latus").fill("10")
    check_against_package(outputs(page, "a"), calculate(get_device("h100-sxm5"), get_model("llama-3.1-70b"), "decode", 1,
                                                        4096, tp=8, latency=10e-6))
    assert "lat=custom&latus=10" in page.locator(".rl-calc .rl-calc-link").get_attribute("href")
    open_calc(page, "?model=llama-3.1-70b&ctx=4096&tp=8&lat=nccl")
    assert "not floor, ring or custom" in message(page, "lat")


# Layouts the speed of light must stay above: (model, fields). Batch 1 and 64, TP, PP, EP and a mix,
# each at the floor, the ring and a zero latency (a zero latency is the fastest any layout can run).
SOL_GRID = [(m, {"batch": b, "tp": tp, "pp": pp, "ep": ep, "lat": lat})
            for m, layouts in (("llama-3.1-70b", [(2, 1, 1), (4, 1, 1), (8, 1, 1), (1, 2, 1), (4, 2, 1), (1, 8, 1)]),
                               ("llama-3.1-8b", [(1, 1, 1), (2, 1, 1), (8, 1, 1), (1, 4, 1)]),
                               ("mixtral-8x7b", [(1, 1, 2), (1, 1, 8), (1, 2, 4)]))
            for tp, pp, ep in layouts for b in (1, 64) for lat in ("floor", "ring", "custom")]


# One case in one round trip: each field set as typing or choosing sets it (its value, then the
# `input` event, and `change` for a choice, which is what Playwright's fill and select_option send),
# in a reader's order; then every field's message and column a's cells, read after the last change.
SET_FIELDS_AND_READ = """([changes, keys]) => {
  const form = document.querySelector('.rl-calc .rl-calc-config');
  const at = (key) => form.querySelector(`[name=${key}]`);
  for (const [key, value] of changes) {
    const el = at(key);
    el.value = String(value);
    el.dispatchEvent(new Event('input', {bubbles: true}));
    if (el.tagName === 'SELECT') el.dispatchEvent(new Event('change', {bubbles: true}));
  }
  const messages = Object.fromEntries(keys.map((key) =>
    [key, document.getElementById(at(key).getAttribute('aria-describedby')).innerText.trim()]));
  return {messages, outputs: (CELLS)('.rl-calc', 'a')};
}""".replace("CELLS", CELLS)


def test_no_layout_reports_more_tokens_per_second_than_the_speed_of_light_beside_it(page):
    # One page load, the fields changed in place as a reader changes them (a reload per layout cost
    # 78 page loads, and a Playwright call per field 0.5 s a case); every case is read after its last field changed.
    open_calc(page, "?ctx=4096")
    checked = 0
    for model, values in SOL_GRID:
        changes = [("model", model), *((key, values[key]) for key in ("batch", "tp", "pp", "ep")), ("lat", values["lat"])]
        if values["lat"] == "custom":
            changes.append(("latus", 0))
        shown = page.evaluate(SET_FIELDS_AND_READ, [changes, ["batch", "tp", "pp", "ep", "lat"]])
        case = (model, values)
        assert all(text == "" for text in shown["messages"].values()), (case, shown["messages"])
        out = shown["outputs"]
        if out["fits"]["value"] != "true":
            continue
        sol, seq = float(out["speed_of_light_tokens_per_s"]["value"]), float(out["tokens_per_s_per_sequence"]["value"])
        assert seq <= sol, (case, seq, sol)
        if out["expected_tokens_per_s_per_sequence"]["value"]:
            assert float(out["expected_tokens_per_s_per_sequence"]["value"]) <= seq, case  # the ring is slower
        checked += 1
    assert checked >= 60


def test_awq_and_gptq_configs_run_in_their_own_format(page):
    # Quantized checkpoints: Llama-3.1-8B at batch 1, one token cached, on the H100 (3.35 TB/s). By hand:
    # linear weights 32 · (2·4096·4096 + 2·4096·1024 + 3·4096·14336) = 6.979e9; int4 g128 (AWQ and GPTQ:
    # 0.5 B + a 2-byte fp16 scale and a 0.5-byte packed zero per 128 weights) = 0.5195 B each: 3.626 GB;
    # the output head 128256·4096 stays bf16: 1.051 GB; norms and one embedding row ~0.5 MB.
    # 4.677 GB a step, against 2 · (6.979e9 + 0.525e9) = 15.01 GB in bf16: 15.01 / 4.677 = 3.21×.
    fixtures = ROOT / "tests" / "fixtures" / "configs"
    open_calc(page)
    field(page, "model").select_option("config")
    page.wait_for_selector(".rl-calc[data-rl-reader]")  # the config reader, loaded on this choice
    field(page, "ctx").fill("1")
    area = page.locator(".rl-calc .rl-calc-config").nth(0).locator(".rl-calc-cfgtext")
    note = page.locator(".rl-calc .rl-calc-config").nth(0).locator(".rl-calc-wdnote")
    echo = page.locator(".rl-calc .rl-calc-config").nth(0).locator(".rl-calc-cfgecho")
    for name in ("llama-3.1-8b-awq.json", "llama-3.1-8b-gptq.json"):
        field(page, "wd").select_option("checkpoint")
        area.fill((fixtures / name).read_text())
        quantized = outputs(page, "a")
        assert float(quantized["weight_bytes"]["value"]) == pytest.approx(4.677e9, rel=2e-3), name
        assert "INT4-G128" in note.inner_text() and "read from config.json" in note.inner_text()
        said = echo.inner_text()
        for words in ("32 layers", "32 heads, 8 KV heads, head size 128", "8.03 billion parameters", "GQA attention",
                      "INT4-G128", "read from config.json"):
            assert words in said, (words, said)
        page.wait_for_function("(new URLSearchParams(location.search).get('cfg') || '').includes('weight_format:int4')")
        field(page, "wd").select_option("bf16")
        plain = outputs(page, "a")
        assert float(plain["weight_bytes"]["value"]) == pytest.approx(15.01e9, rel=2e-3)
        assert "chosen here" in note.inner_text()
        ratio = float(quantized["tokens_per_s"]["value"]) / float(plain["tokens_per_s"]["value"])
        assert 3.0 < ratio < 3.4, (name, ratio)

    # A method the package cannot honour: one sentence beside the field, never bf16.
    field(page, "wd").select_option("checkpoint")
    area.fill((fixtures / "broken-quant-method.json").read_text())
    msg = message(page, "cfg")
    assert "'bitsandbytes', not a format the reader knows" in msg and msg.count(". ") == 0
    no_bad_words(page)


def test_nvfp4_runs_at_the_fp4_peak_on_blackwell_and_is_refused_beside_activations_elsewhere(page):
    # NVFP4 weights with FP4 activations compute at the FP4 peak; the H100 publishes none.
    open_calc(page)
    field(page, "wd").select_option("nvfp4")
    field(page, "act").select_option("fp4")
    assert "has no published fp4 peak" in message(page, "act")
    field(page, "hw").select_option("b200")
    assert message(page, "act") == ""
    shown = outputs(page, "a")
    assert shown["compute_dtype"]["value"] == "fp4" and shown["weight_format"]["value"] == "nvfp4"
    assert float(shown["peak_flop_per_s"]["value"]) == get_device("b200").peak_flop_per_s("fp4")


def test_layouts_of_several_devices_load_when_a_reader_asks_for_them(page):
    # A reader on one device never downloads many.js (the collectives, the layout checks, the shards): the page's
    # weight counts what that reader downloads. Typing 8 devices loads it once and gives the package's TP8.
    many = lambda: [u for u in page.requests_seen if u.split("?")[0].endswith("/calculator/many.js")]  # noqa: E731
    page.goto(f"{page.base_url}/calculator/", wait_until="networkidle")
    page.wait_for_selector(".rl-calc[data-rl-ready]")
    assert many() == []
    field(page, "dev").fill("8")
    page.wait_for_function("new URLSearchParams(location.search).get('tp') === '8'")
    assert len(many()) == 1
    check_against_package(outputs(page, "a"), calculate(get_device("h100-sxm5"), get_model("llama-3.1-8b"), "decode", 1,
                                                        4096, tp=8))


def test_layouts_that_do_not_load_get_one_sentence(page):
    # The connection gone when a reader asks for several devices: one sentence beside Devices and no result for
    # them; asking again once it is back loads the layouts.
    page.route("**/many.js", lambda route: route.abort())
    open_calc(page)
    field(page, "dev").fill("2")
    page.wait_for_function("() => document.querySelector('.rl-calc').innerText.includes('did not load')")
    assert message(page, "dev") == ("The model of layouts over several devices did not load; change the devices again or "
                                    "reload the page to try again.")
    no_bad_words(page)
    page.unroute("**/many.js")
    field(page, "dev").fill("4")
    page.wait_for_function("new URLSearchParams(location.search).get('tp') === '4'")
    assert message(page, "dev") == ""


def test_nodes_beyond_one_domain_show_the_networks_share(page):
    # DeepSeek-V3 over four 8-GPU H100 nodes (roofline decode --nodes 4): expert parallelism over all 32 GPUs, its
    # all-to-all split between NVLink and the network; the page's numbers are the package's, and the network's
    # share of the step is its time carrying bytes across nodes over the step's time.
    open_calc(page, "?model=deepseek-v3&batch=256&ctx=2000&nodes=4")
    assert (field(page, "ep").input_value(), field(page, "dev").input_value()) == ("32", "32")
    # in its checkpoint's format, as the page starts: FP8 in 128 × 128 blocks over every linear layer
    expected = calculate(get_device("h100-sxm5"), get_model("deepseek-v3"), "decode", 256, 2000, "fp8-b128", nodes=4)
    shown = outputs(page, "a")
    assert shown["layout"]["value"] == expected["layout"] == "EP32"
    for key in ("time_s", "collective_time_s", "network_share", "tokens_per_s_per_device"):
        assert math.isclose(float(shown[key]["value"]), expected[key], rel_tol=REL), key
    assert shown["network_share"]["text"] == f"{fmt.sig(100 * expected['network_share'])}%"
    summary = page.locator(".rl-calc .rl-calc-summary").inner_text()
    assert f"the network carries {fmt.nbytes(expected['network_bytes'])} per device" in summary
    assert "network's floor" in shown["collective_latency"]["text"]
    # typing two nodes picks EP16 and the link carries it; within one domain nothing crosses nodes
    field(page, "nodes").fill("2")
    page.wait_for_function("new URLSearchParams(location.search).get('nodes') === '2'")
    assert field(page, "ep").input_value() == "16"
    assert new_params(page)["ep"] == "16"
    field(page, "nodes").fill("")
    field(page, "ep").fill("8")
    page.wait_for_function("new URLSearchParams(location.search).get('ep') === '8'")
    assert outputs(page, "a")["network_share"]["text"] == "none: nothing crosses nodes"
    no_bad_words(page)


def new_params(page) -> dict:
    return page.evaluate("Object.fromEntries(new URLSearchParams(location.search))")


NODE_REFUSALS = [
    # (link, words of the sentence beside Nodes)
    ("?model=deepseek-v3&nodes=0", "at least 1"),
    ("?model=deepseek-v3&nodes=2.5", "whole number"),
    ("?model=deepseek-v3&nodes=<b>x</b>", "must be a number"),
    ("?model=deepseek-v3&nodes=1e9", "at most"),
    ("?hw=a100-sxm4-80gb&model=llama-3.1-70b&nodes=2", "no scale-out network"),          # no network recorded
    ("?model=deepseek-v3&nodes=3", "which 24 does not divide"),                          # 256 experts on 24 ranks
    ("?model=llama-3.1-70b&tp=8&nodes=2", "hold 16 devices but TP8 uses 8"),             # a layout short of the nodes
]


@pytest.mark.parametrize("query, words", NODE_REFUSALS, ids=[q for q, _ in NODE_REFUSALS])
def test_a_bad_node_count_gets_one_sentence_beside_the_field(page, query, words):
    open_calc(page, query)
    assert words in message(page, "nodes"), message(page, "nodes")
    assert field(page, "nodes").get_attribute("aria-invalid") == "true"
    assert page.locator(".rl-calc b").count() == 0
    no_bad_words(page)


def test_nodes_on_a_phone_at_390_px(chromium, served_site):
    tabs = chromium.tabs(**PHONE)
    tab = tabs.new_page()
    try:
        tab.goto(f"{served_site}/calculator/?model=deepseek-v3&batch=256&ctx=2000&nodes=4")
        tab.wait_for_selector(".rl-calc[data-rl-ready]")
        width = PHONE["viewport"]["width"]
        assert tab.evaluate("document.documentElement.scrollWidth") <= width
        box = tab.locator(".rl-calc .rl-calc-config").nth(0).locator("[name=nodes]").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5
    finally:
        tabs.close()
