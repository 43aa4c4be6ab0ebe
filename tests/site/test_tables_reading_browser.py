"""Every table on every explainer page reads at the two sizes the site is read at.

At 1280×900 no table is wider than its column unless the reader asked for more columns (its secondary
columns fold behind a checkbox), so the columns that name and answer a row are never clipped. At
390×844 a table of three or more columns is one card per row, titled by the row's first cell: within a
table, no two cards share a title.
"""

from __future__ import annotations

import pytest
from tests.conftest import ROOT
from tests.support.browser import LAPTOP, PHONE

DOCS = ROOT / "docs"
PAGES = sorted(p.stem for p in DOCS.glob("*.md") if p.stem != "index") + [""]

# For each table: how wide it is against the box it scrolls in, and each row's first cell as shown.
TABLES = """() => Array.from(document.querySelectorAll('article table'), t => {
    const box = t.closest('.md-typeset__scrollwrap') || t.parentElement;
    const named = t.getAttribute('aria-label') || (t.tHead ? t.tHead.innerText : '').replace(/\\s+/g, ' ').slice(0, 60);
    const titles = t.tBodies[0] ? Array.from(t.tBodies[0].rows, r => r.cells[0] ? r.cells[0].innerText.trim() : '') : [];
    return {name: named, width: t.scrollWidth, room: box.clientWidth, cards: t.hasAttribute('data-rl-cards'), titles};
})"""


@pytest.fixture(scope="module")
def laptop(chromium):
    tabs = chromium.tabs(**LAPTOP)
    yield tabs.new_page()
    tabs.close()


@pytest.fixture(scope="module")
def phone(chromium):
    tabs = chromium.tabs(**PHONE)
    yield tabs.new_page()
    tabs.close()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p or "index")
def test_no_table_is_wider_than_its_column_on_a_laptop(laptop, served_site, page):
    laptop.goto(f"{served_site}/{page}/", wait_until="load")
    wide = [(t["name"], t["width"], t["room"]) for t in laptop.evaluate(TABLES) if t["width"] > t["room"] + 1]
    assert not wide, f"/{page}/: tables wider than their column at 1280 px (name, width, room): {wide}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p or "index")
def test_card_titles_within_a_table_are_distinct_on_a_phone(phone, served_site, page):
    phone.goto(f"{served_site}/{page}/", wait_until="load")
    for t in phone.evaluate(TABLES):
        if not t["cards"]:
            continue
        seen = [x for x in t["titles"] if x]
        repeated = sorted({x for x in seen if seen.count(x) > 1})
        assert not repeated, f"/{page}/ {t['name']!r}: cards share a title: {repeated[:5]}"


def test_asking_for_every_column_shows_them_and_the_names_stay_in_view(laptop, served_site):
    laptop.goto(f"{served_site}/real-systems/", wait_until="load")
    fold = laptop.locator(".rl-fold").first
    hidden = fold.locator("th.rl-more").first
    assert not hidden.is_visible(), "a secondary column shows before it is asked for"
    fold.locator(".rl-fold-toggle input").check()
    assert hidden.is_visible(), "ticking the box does not show the secondary columns"
