"""Gate 1 in a real browser: hovering a glossary card, searching and using the calculator make no
request to any other origin, and raise no script error. Reading every page is checked on the reading
walk (tests/site/test_reading.py), which visits them all at two sizes.

Generic over the built site: each interaction runs only if its feature is on the page.
"""

from __future__ import annotations

import re

import pytest

from tests.support.site_helpers import LOCAL_SCHEMES, pages_a_reader_clicks_through

pytestmark = pytest.mark.browser


def _foreign(page) -> list[str]:
    return [u for u in page.requests_seen if not u.startswith(page.base_url) and not u.startswith(LOCAL_SCHEMES)]


@pytest.fixture
def errors(page):
    seen: list[str] = []
    page.on("pageerror", lambda exc: seen.append(str(exc)))
    return seen


def test_hovering_a_glossary_card_stays_on_localhost(page, site_pages, errors):
    with_terms = [p for p in pages_a_reader_clicks_through(site_pages) if 'class="gl-ref' in site_pages[p]]
    if not with_terms:
        pytest.skip("no glossary term is linked on any page yet")
    page.goto(page.base_url + "/" + with_terms[0].removesuffix("index.html"), wait_until="networkidle")
    ref = page.locator(".gl-ref").first
    ref.scroll_into_view_if_needed()
    ref.hover()
    card = page.locator(".gl-ref .gl-card, [id^=gl-card-]:not([hidden])").first
    card.wait_for(state="visible", timeout=5000)
    page.wait_for_load_state("networkidle")
    assert _foreign(page) == []
    assert errors == []


def test_search_finds_a_page_and_stays_on_localhost(page, errors):
    page.goto(page.base_url + "/", wait_until="networkidle")
    # Material's search worker (12 KB) and the search index (about 110 KB gzip) wait for a reader who
    # opens search (the config block of src/roofline_site/overrides/main.html holds both).
    material_worker = lambda: [u for u in page.requests_seen if "/javascripts/workers/search." in u]  # noqa: E731
    index = lambda: [u for u in page.requests_seen if u.endswith("/search/search_index.json")]  # noqa: E731
    assert material_worker() == [], "Material's search worker loaded before anyone opened search"
    assert index() == [], "the search index loaded before anyone opened search"
    box = page.locator("input.md-search__input")
    if not box.is_visible():  # narrow screens hide the box behind the header's search button
        page.locator("label.md-header__button[for=__search]").first.click()
    box.click()
    box.press_sequentially("ridge", delay=80)  # key events, as a reader types
    results = page.locator(".md-search-result__item")
    results.first.wait_for(state="visible", timeout=45000)  # the worker indexes the site first
    assert results.count() >= 1
    assert len(material_worker()) == 1, page.requests_seen
    assert len(index()) == 1, page.requests_seen
    results.first.locator("a").first.click()
    page.wait_for_load_state("networkidle")
    assert _foreign(page) == []
    assert errors == []


def test_a_page_opened_from_a_search_result_marks_the_terms(page, errors):
    # search.highlight reads the index's separator to mark `?h=` terms, so a page opened with `?h=`
    # loads the index at once (main.html holds it back only on other pages).
    page.goto(page.base_url + "/ridge-point/?h=ridge", wait_until="load")
    page.locator("article mark[data-md-highlight]").first.wait_for(state="attached", timeout=10000)
    assert [u for u in page.requests_seen if u.endswith("/search/search_index.json")] != []
    assert errors == []


def test_using_the_calculator_stays_on_localhost(page, site_pages, errors):
    if "calculator/index.html" not in site_pages:
        pytest.skip("no calculator page")
    page.goto(page.base_url + "/calculator/", wait_until="networkidle")
    root = page.locator(".rl-calc")
    inputs = root.locator("input:not([type=checkbox]):not([type=radio]):not([type=hidden]):visible")
    if root.count() == 0 or inputs.count() == 0:
        pytest.skip("the calculator has no input yet")
    inputs.first.fill("")
    inputs.first.type("2")
    page.keyboard.press("Tab")
    for select in root.locator("select:visible").all()[:2]:
        options = select.locator("option").all()
        if len(options) > 1:
            select.select_option(index=len(options) - 1)
    page.wait_for_load_state("networkidle")
    text = root.inner_text()
    assert not re.search(r"\b(NaN|undefined|Infinity)\b", text), text[:500]
    assert _foreign(page) == []
    assert errors == []
