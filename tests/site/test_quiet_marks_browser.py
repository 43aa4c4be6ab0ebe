"""On a phone (390×844, touch) a line carries at most one kind of mark: glossary terms a faint dotted
underline, numbers none until tapped; a tap still opens a number's provenance and a term's card."""

from __future__ import annotations

import pytest
from tests.support.browser import PHONE

PAGES = ("decode", "batching", "many-chips")

#: Every marked term and number in the article: its underline line, style and colour at rest.
MARKS = """() => Array.from(document.querySelectorAll('article .gl-term, article .rl-num'), el => {
    const s = getComputedStyle(el);
    return {kind: el.classList.contains('rl-num') ? 'number' : 'term', link: el.tagName === 'A',
            line: s.textDecorationLine, style: s.textDecorationStyle, top: Math.round(el.getBoundingClientRect().top)};
})"""


@pytest.fixture
def phone(chromium):
    tabs = chromium.tabs(**PHONE)
    yield tabs.new_page()
    tabs.close()


@pytest.mark.parametrize("page", PAGES)
def test_a_phone_shows_one_kind_of_mark_and_numbers_none(phone, served_site, page):
    phone.goto(f"{served_site}/{page}/", wait_until="load")
    marks = phone.evaluate(MARKS)
    numbers = [m for m in marks if m["kind"] == "number"]
    terms = [m for m in marks if m["kind"] == "term"]
    assert numbers and terms, f"{page} has no numbers or no terms to check"
    assert all(m["line"] == "none" for m in numbers), "a number is underlined at rest on a phone"
    kinds = {(m["line"], m["style"]) for m in marks if m["line"] != "none"}
    assert len(kinds) <= 1, f"{page}: {len(kinds)} kinds of underline on a phone: {kinds}"
    assert ("underline", "dashed") not in kinds, "the laptop's dashed term underline on a phone"


def test_a_tap_still_opens_a_number_and_a_term(phone, served_site):
    phone.goto(f"{served_site}/decode/", wait_until="load")
    number = phone.locator("article .rl-num").first
    number.scroll_into_view_if_needed()
    number.tap()
    phone.wait_for_function("() => document.querySelector('article .rl-num.rl-open') !== null", timeout=5000)
    phone.keyboard.press("Escape")
    term = phone.locator("article span.gl-term").first
    term.scroll_into_view_if_needed()
    term.tap()
    phone.wait_for_function("""() => Array.from(document.querySelectorAll('.gl-card'))
        .some(c => !c.hidden && c.getBoundingClientRect().height > 0)""", timeout=5000)
