"""The sortable registry tables in Chromium, on a phone (390×844, touch) and a laptop (1280×900).

The page never scrolls sideways, the first column stays in view while a wide table scrolls sideways,
and a header's button sorts the rows (a click, or Enter from the keyboard; on a phone, from the row
of buttons above the cards), with aria-sort saying which way. Every table of every page reading whole:
tests/site/test_tables_whole.py.
"""

from __future__ import annotations

import pytest
from tests.support.browser import LAPTOP, PHONE

PAGES = ("hardware", "memory-bandwidth", "ridge-point", "real-systems", "real-systems-runs")

# The column's exact values (data-v) in row order; a dash has none.
COLUMN_VALUES = """(i) => Array.from(document.querySelector('table[data-rl-sort]').tBodies[0].rows,
                     r => r.cells[i].getAttribute('data-v')).filter(v => v !== null).map(Number)"""


@pytest.fixture(params=[("phone", PHONE), ("laptop", LAPTOP)], ids=["390x844", "1280x900"])
def tab(request, chromium, served_site):
    tabs = chromium.tabs(**request.param[1])
    yield tabs.new_page()
    tabs.close()


@pytest.mark.parametrize("page", PAGES)
def test_the_page_never_scrolls_sideways_and_the_table_scrolls_inside_its_container(tab, served_site, page):
    tab.goto(f"{served_site}/{page}/", wait_until="load")
    tab.wait_for_selector(".md-typeset__scrollwrap table[data-rl-sort]")  # Material wraps it once loaded
    widths = tab.evaluate("""() => ({page: document.documentElement.scrollWidth, view: window.innerWidth,
        wrap: document.querySelector('table[data-rl-sort]').closest('.md-typeset__scrollwrap').getBoundingClientRect().right})""")
    assert widths["page"] <= widths["view"], f"{page} is {widths['page']} px wide in a {widths['view']} px window"
    assert widths["wrap"] <= widths["view"] + 1


def test_the_speed_of_light_table_fits_its_column_on_a_laptop(chromium, served_site):
    tabs = chromium.tabs(**LAPTOP)
    try:
        tab = tabs.new_page()
        tab.goto(f"{served_site}/memory-bandwidth/", wait_until="load")
        tab.wait_for_selector(".md-typeset__scrollwrap table[data-rl-sort]")
        fit = tab.evaluate("""() => { const t = document.querySelector('table[data-rl-sort]');
            const w = t.closest('.md-typeset__scrollwrap');
            return {table: t.scrollWidth, room: w.clientWidth, height: t.getBoundingClientRect().height}; }""")
        assert fit["table"] <= fit["room"], f"the table is {fit['table']} px wide in {fit['room']} px"
        assert fit["height"] < 900, f"the table is {fit['height']} px tall"
    finally:
        tabs.close()


def test_the_first_column_stays_in_view_while_a_wide_table_scrolls_sideways(chromium, served_site):
    """The measure page's machines table (nine columns) fits its column until the reader asks for every
    column; then it scrolls sideways at 1280 px, and scrolled, its first column (the row's name) stays at
    the box's edge."""
    tabs = chromium.tabs(**LAPTOP)
    try:
        tab = tabs.new_page()
        tab.goto(f"{served_site}/measure/", wait_until="load")
        tab.wait_for_selector(".md-typeset__scrollwrap table")
        tab.locator(".rl-fold-toggle input").first.check()
        pos = tab.evaluate("""() => { const w = [...document.querySelectorAll('.md-typeset__scrollwrap')]
              .find(w => w.scrollWidth > w.clientWidth + 1);
            if (!w) return null;
            w.scrollIntoView(); w.scrollLeft = 200;
            const first = w.querySelector('tbody tr').cells[0].getBoundingClientRect(), box = w.getBoundingClientRect();
            return {scrolled: w.scrollLeft, first: first.left, left: box.left}; }""")
        assert pos, "no table on the measure page scrolls sideways at 1280 px: this test would prove nothing"
        assert pos["scrolled"] > 0
        assert abs(pos["first"] - pos["left"]) <= 2, f"the first column scrolled away: {pos}"
    finally:
        tabs.close()


def test_a_header_sorts_the_rows_both_ways_by_click_and_by_keyboard(tab, served_site):
    tab.goto(f"{served_site}/hardware/", wait_until="load")
    tab.wait_for_selector(".md-typeset__scrollwrap table[data-rl-sort]")
    headers = tab.locator("table[data-rl-sort] thead th")
    index = next(i for i in range(headers.count()) if headers.nth(i).inner_text().startswith("Bandwidth"))
    th, button = headers.nth(index), headers.nth(index).locator("button")
    before = tab.evaluate(COLUMN_VALUES, index)
    assert before != sorted(before), "the registry order is already sorted: the test would prove nothing"
    button.click()
    assert th.get_attribute("aria-sort") == "ascending"
    assert tab.evaluate(COLUMN_VALUES, index) == sorted(before)
    button.focus()
    tab.keyboard.press("Enter")
    assert th.get_attribute("aria-sort") == "descending"
    assert tab.evaluate(COLUMN_VALUES, index) == sorted(before, reverse=True)
    assert headers.nth(0).get_attribute("aria-sort") is None  # only the sorted column says so
    # A column with dashes (no published fp4 peak) keeps them last in both directions.
    fp4 = next(i for i in range(headers.count()) if "fp4" in headers.nth(i).inner_text())
    for _ in range(2):
        headers.nth(fp4).locator("button").click()
        cells = tab.evaluate("""(i) => Array.from(document.querySelector('table[data-rl-sort]').tBodies[0].rows,
                                r => r.cells[i].getAttribute('data-v') !== null)""", fp4)
        assert cells == sorted(cells, reverse=True), "a dash sorted among the numbers"


def test_the_calculators_kernel_table_is_one_card_per_kernel_on_a_phone(chromium, served_site):
    """At 390 px the calculator's kernel-by-kernel table scrolled sideways (a 30rem minimum width): it is
    now the site's phone cards, each value under its column's name, and nothing scrolls sideways."""
    tabs = chromium.tabs(**PHONE)
    try:
        tab = tabs.new_page()
        tab.goto(f"{served_site}/calculator/", wait_until="load")
        tab.wait_for_selector(".rl-calc[data-rl-ready] .rl-calc-kernels tbody tr td", state="attached")
        got = tab.evaluate("""() => { const t = document.querySelector('.rl-calc-kernels');
            const heads = [...t.tHead.rows[0].cells].map(c => c.textContent.trim());
            const wrongLabels = [...t.tBodies[0].rows].flatMap(r => [...r.cells].slice(1)
                .filter((c, i) => c.getAttribute('data-label') !== heads[i + 1]).map(c => r.cells[0].textContent));
            const wrap = t.closest('.rl-calc-table-wrap'), cell = t.tBodies[0].rows[0].cells[4];
            return {rows: t.tBodies[0].rows.length, wrongLabels, scroll: wrap.scrollWidth, room: wrap.clientWidth,
                    page: document.documentElement.scrollWidth, view: window.innerWidth,
                    label: getComputedStyle(cell, '::before').content, headShown: getComputedStyle(t.tHead).display}; }""")
        assert got["rows"] > 5, "the kernel table has no kernels: this test would prove nothing"
        assert got["wrongLabels"] == [], "cells whose data-label is not their column's name"
        assert got["scroll"] <= got["room"] + 1, f"the kernel table scrolls sideways: {got['scroll']} px in {got['room']}"
        assert got["page"] <= got["view"], f"the page is {got['page']} px wide in a {got['view']} px window"
        assert got["label"] == '"Time"' and got["headShown"] == "none", "a card shows each value under its column's name"
    finally:
        tabs.close()


def test_a_long_tables_header_stays_in_view_while_the_page_scrolls_through_it(chromium, served_site):
    """Without the old 85vh box, a long table's header row scrolled away with the page. Scrolled to its
    middle row at 1280 × 900, the header row sits right under Material's header, on top, and no row is
    clipped (the table box is as tall as the table)."""
    tabs = chromium.tabs(**LAPTOP)
    try:
        tab = tabs.new_page()
        tab.goto(f"{served_site}/hardware/", wait_until="load")  # every device: about two windows tall
        tab.wait_for_selector(".md-typeset__scrollwrap[data-rl-sticky-head] table thead th")
        got = tab.evaluate("""() => new Promise(done => {
            const box = document.querySelector('.md-typeset__scrollwrap[data-rl-sticky-head]'), t = box.querySelector('table');
            const rows = t.tBodies[0].rows, mid = rows[Math.floor(rows.length / 2)];
            window.scrollTo(0, mid.getBoundingClientRect().top + window.scrollY - window.innerHeight / 2);
            requestAnimationFrame(() => requestAnimationFrame(() => {
              const th = t.tHead.rows[0].cells[1], r = th.getBoundingClientRect();
              const bar = document.querySelector('.md-header').getBoundingClientRect();
              const onTop = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
              done({head: r.top, bar: bar.bottom, tableTop: t.getBoundingClientRect().top, onTop: th.contains(onTop),
                    boxHeight: box.getBoundingClientRect().height, tableHeight: t.getBoundingClientRect().height,
                    rows: rows.length, window: window.innerHeight});
            }));
        })""")
        assert got["tableHeight"] > got["window"], f"the table fits the window ({got['rows']} rows): nothing to prove"
        assert got["tableTop"] < got["bar"], "the page did not scroll past the table's top"
        assert abs(got["head"] - got["bar"]) <= 2, f"the header row is at {got['head']:.0f} px, Material's ends at {got['bar']:.0f}"
        assert got["onTop"], "something covers the header row"
        assert got["boxHeight"] >= got["tableHeight"] - 1, "the table box clips rows"
    finally:
        tabs.close()



# Material's instant navigation, as a link starts it: its clicks go through only for addresses in the
# sitemap, whose host it matches but not its port, so on the test server a click loads a new page.
INSTANT = "(path) => window.location$.next(new URL(path, location.href))"
STICKY = ".md-typeset__scrollwrap[data-rl-sticky-head] table[data-rl-sort] thead th"


def test_a_table_page_reached_by_instant_navigation_sorts_and_keeps_its_header(chromium, served_site):
    """The table scripts load only on pages with a table (overrides/main.html), inside what instant navigation
    swaps. A reader who starts on the calculator (no table of ours: neither script loads) and goes to the
    hardware reference gets a sortable table whose header row stays in view; so does one who comes back to it
    after a page without a table (tablehead.js measures again on every swap)."""
    tabs = chromium.tabs(**LAPTOP)
    try:
        tab = tabs.new_page()
        tab.goto(f"{served_site}/calculator/", wait_until="networkidle")
        loaded = "() => performance.getEntriesByType('resource').map(e => e.name).filter(n => /table(sort|head)\\.js/.test(n))"
        assert tab.evaluate(loaded) == [], "a page without a table loads the table scripts"
        tab.evaluate("() => { window.__sameDocument = true; }")
        for path in ("../hardware/", "../calculator/", "../hardware/"):
            tab.evaluate(INSTANT, path)
            tab.wait_for_selector(STICKY if "hardware" in path else ".rl-calc[data-rl-ready]")
        assert tab.evaluate("() => window.__sameDocument === true"), "a new page loaded: no instant navigation tested"
        assert len(tab.evaluate(loaded)) >= 2
        th = tab.locator("table[data-rl-sort] thead th").nth(1)
        th.locator("button").click()
        assert th.get_attribute("aria-sort") == "ascending"
        # Opened on the hardware reference itself, tablehead.js runs before Material's bundle: it still
        # measures the table again when the reader comes back to it.
        tab = tabs.new_page()
        tab.goto(f"{served_site}/hardware/", wait_until="networkidle")
        tab.wait_for_selector(STICKY)
        for path in ("../calculator/", "../hardware/"):
            tab.evaluate(INSTANT, path)
            tab.wait_for_selector(STICKY if "hardware" in path else ".rl-calc[data-rl-ready]")
    finally:
        tabs.close()
