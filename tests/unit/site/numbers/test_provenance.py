"""The provenance popover a number token renders: what it says, and markup that survives a paragraph."""

from __future__ import annotations

import re

import markdown as md
import pytest
from bs4 import BeautifulSoup

from roofline.registry.hardware import get_device
from roofline.quantities import Input, Quantity, Source
from roofline_site.html.bundle import SITE_SCRIPTS
from roofline_site.numbers.tokens import expand, render_value
from tests.conftest import ROOT

PHRASING = {"span", "strong", "b", "em", "a", "abbr", "code", "sub", "sup", "small", "template"}


def soup(markup: str, *, opened: bool = True) -> BeautifulSoup:
    """Parsed markup; `opened` moves each popover's body out of its <template>, as provenance.js does
    (CSS selectors, like the browser's, do not look inside a template)."""
    return BeautifulSoup(re.sub(r"</?template>", "", markup) if opened else markup, "html.parser")


def test_a_ridge_token_shows_its_formula_inputs_and_datasheet():
    html = expand('The ridge is {{ ridge("h100-sxm5") }} here.', "index.md")
    num = soup(html).select_one(".rl-num")
    prov = num.select_one(".rl-prov")
    d = get_device("h100-sxm5")
    assert num.contents[0] == "295 FLOP/byte"  # 989.4e12 / 3.35e12 = 295.34
    assert num["aria-describedby"] == prov["id"] and num["tabindex"] == "0"
    assert prov.select_one(".rl-prov-formula").get_text() == "ridge = dense peak FLOP/s ÷ memory bandwidth"
    inputs = {r.select_one(".rl-prov-in-label").get_text(): (r.b.get_text(), float(r["data-rl-input"]))
              for r in prov.select(".rl-prov-in")}
    assert inputs == {f"{d.name} dense bf16 peak": ("989.4 TFLOP/s", 989.4e12),
                      f"{d.name} memory bandwidth": ("3.35 TB/s", 3.35e12)}
    # one shared datasheet, linked once
    assert [a["href"] for a in prov.select("a.rl-prov-src")] == [d.source_url]
    assert prov.select_one(".rl-prov-value").get_text() == "= 295.3 FLOP/byte"
    # The unrounded value rides in the popover (fetched on demand), not on the number every reader
    # downloads: 989.4e12 / 3.35e12 = 295.343283582...
    assert not num.has_attr("data-rl-value")
    assert float(prov.select_one(".rl-prov-label")["data-rl-value"]) == pytest.approx(989.4e12 / 3.35e12, rel=1e-15)


def test_popover_holds_only_phrasing_elements_so_the_paragraph_stays_whole():
    html = md.markdown(expand('Decode takes {{ decode("llama-3.1-8b", "h100-sxm5").time }} per step, then more.', "p.md"))
    prov = soup(html).select_one(".rl-prov")
    assert {t.name for t in prov.find_all(True)} <= PHRASING
    assert html.count("<p>") == 1 and html.rstrip().endswith("then more.</p>")


def test_popover_body_is_inert_until_the_script_fills_it():
    # Hundreds of hidden popovers per page cost Lighthouse's mobile run a third of a second of
    # blocking time; in a <template> they are parsed but never styled, laid out or walked.
    prov = soup(expand('Ridge: {{ ridge("h100-sxm5") }}.', "p.md"), opened=False).select_one(".rl-prov")
    assert [c.name for c in prov.children] == ["template"]
    assert prov.template.find(class_="rl-prov-label") and prov.template.find("a", class_="rl-prov-src")


def test_markdown_syntax_in_labels_stays_literal():
    q = Quantity(2.0, "", "head_dim *twice* [sic] `x`", "a_b × c_d", (Input("n_kv", 8.0, "", Source("T_1 *", "https://e.x/a_b")),))
    text, _ = render_value(q, plain=False, ident="rl-p-test-1")
    html = md.markdown(f"Value {text} end.")
    prov = soup(html).select_one(".rl-prov")
    assert prov.select_one(".rl-prov-label").get_text() == "head_dim *twice* [sic] `x`"
    assert prov.select_one(".rl-prov-formula").get_text() == "a_b × c_d"
    assert prov.select_one("a")["href"] == "https://e.x/a_b" and prov.select_one("a").get_text() == "T_1 *"
    assert not soup(html).find(["em", "code"])


def test_a_chosen_example_says_it_has_no_registry_inputs():
    prov = soup(expand('A prompt of {{ example("prompt_len") }} tokens.', "p.md")).select_one(".rl-prov")
    assert "No registry inputs" in prov.get_text() and not prov.select(".rl-prov-in")


def test_ids_are_unique_per_page_distinct_across_pages_and_stable():
    page = 'A {{ bandwidth("h100-sxm5") }} and {{ bandwidth("h100-sxm5") }} and {{ ridge("h100-sxm5") }}.'
    ids = [s["id"] for s in soup(expand(page, "a.md")).select(".rl-prov")]
    assert len(set(ids)) == 3
    assert ids == [s["id"] for s in soup(expand(page, "a.md")).select(".rl-prov")], "same page, same ids"
    assert not set(ids) & {s["id"] for s in soup(expand(page, "b.md")).select(".rl-prov")}


def test_numbers_in_headings_and_alt_text_are_plain():
    assert expand('# Ridge {{ ridge("h100-sxm5") }}', "p.md") == "# Ridge 295 FLOP/byte"


def test_script_and_styles_agree_on_the_state_classes():
    js = (ROOT / "docs" / "assets" / "provenance.js").read_text()
    css = (ROOT / "docs" / "assets" / "roofline.css").read_text()
    for cls in ("rl-open", "rl-filled", "rl-compact", "rl-up"):
        assert cls in js and f".{cls}" in css, cls
    # Every page loads it, joined with our other scripts into assets/site.js, which mkdocs.yml names.
    assert "provenance.js" in SITE_SCRIPTS
    assert re.search(r"^extra_javascript:\n(?:  .*\n)*  - assets/site\.js$", (ROOT / "mkdocs.yml").read_text(), re.M)


@pytest.mark.parametrize("bad", ["1.5", "True"])
def test_a_bare_number_token_is_refused(bad):
    from roofline_site.numbers.tokens import TokenError

    with pytest.raises(TokenError, match="p.md:1"):
        expand(f"x {{{{ {bad} }}}}", "p.md")


def test_an_arithmetic_line_reproduces_its_number_or_is_refused():
    from roofline.errors import InputError
    from roofline.quantities.core import Quantity, Term

    # By hand: 3.35e12 B/s ÷ 15.0e9 B = 223.3 tokens/s, printed "223".
    ok = Quantity(3.35e12 / 15.0e9, "tokens/s", "speed of light", "", arithmetic=(Term(3.35e12, "B/s"), "÷", Term(15.0e9, "B")))
    assert ok.arithmetic_line() == "3.35 TB/s ÷ 15 GB = 223 tokens/s"
    # 8.03e9 parameters × 2 bytes = 16.06 GB gives 208.6, not 223: a line that cannot give its number is refused.
    wrong = Quantity(3.35e12 / 15.0e9, "tokens/s", "speed of light", "", arithmetic=(Term(3.35e12, "B/s"), "÷", Term(16.06e9, "B")))
    with pytest.raises(InputError, match="does not give 223"):
        wrong.arithmetic_line()
    # A line on a rounding tie: a TP8 step at 7,572 tokens/s (printed whole at every precision) ÷ 8
    # devices = 946.5, which a reader rounds to 947; the value itself, 7,572.48 ÷ 8 = 946.56, shows 947.
    # Python's round-half-even would print 946, so only an exact tie is let through, not a wrong formula.
    tie = Quantity(7572.48 / 8, "tokens/s", "per device", "", arithmetic=(Term(7572.0, "tokens/s"), "÷", Term(8.0)))
    assert tie.arithmetic_line() == "7,572 tokens/s ÷ 8 = 947 tokens/s"
    off = Quantity(950.0, "tokens/s", "per device", "", arithmetic=(Term(7572.0, "tokens/s"), "÷", Term(8.0)))
    with pytest.raises(InputError, match="does not give 950"):
        off.arithmetic_line()


def test_popovers_show_only_the_inputs_that_enter_the_number():
    from roofline.quantities import NAMESPACE as ns

    step = ns["decode"]("llama-3.1-8b", "h100-sxm5", 64, 1024)
    labels = lambda q: " ".join(i.label for i in q.inputs)  # noqa: E731
    assert "bandwidth" not in labels(step.intensity) and "peak" not in labels(step.intensity)
    assert "time per step" in labels(step.tokens_per_s)  # Batching's tokens/s names its step time
    assert step.tokens_per_s.arithmetic_line().startswith("64 ÷ ")


def test_a_built_page_carries_its_popovers_empty_and_their_bodies_apart():
    # Page weight: the page keeps the number and an empty popover (id, role, aria link intact); the body
    # (label, formula, inputs, sources) goes to the page's provenance.json, keyed by the popover's id.
    from roofline_site.numbers.tokens import TokenError, defer_popovers, popovers_on_demand

    store: dict[str, str] = {}
    defer_popovers(store)
    try:
        page = expand('Ridge: {{ ridge("h100-sxm5") }}.', "p.md")
    finally:
        defer_popovers(None)
    built, bodies = popovers_on_demand(page, store)
    prov = soup(built, opened=False).select_one(".rl-num > .rl-prov")
    assert prov is not None and prov.get_text() == "" and not prov.find(True), "the popover ships with a body"
    assert prov["role"] == "tooltip" and prov.parent["aria-describedby"] == prov["id"]
    assert list(bodies) == [prov["id"]]
    body = BeautifulSoup(bodies[prov["id"]], "html.parser")
    assert body.select_one(".rl-prov-label").get_text().startswith("ridge point")
    assert body.select_one("a.rl-prov-src")["href"] == get_device("h100-sxm5").source_url
    assert "template" not in bodies[prov["id"]]
    with pytest.raises(TokenError, match="never rendered"):
        popovers_on_demand('<span data-rl-prov="rl-p-missing"></span>', {})
