"""The sortable registry tables in Chromium, on a phone (390×844, touch) and a laptop (1280×900).

The page never scrolls sideways, the first column stays in view while a wide table scrolls sideways,
and a header's button sorts the rows (a click, or Enter from the keyboard; on a phone, from the row
of buttons above the cards), with aria-sort saying which way. Every table of every page reading whole:
tests/site/test_tables_whole.py.
"""

from __future__ import annotations

import pytest
from tests.support.browser import LAPTOP, PHONE

PAGES = ("hardware", "memory-bandwidth", "ridge-point", "real-systems")

# The column's exact values (data-v) in row order; a dash has none.
COLUMN_VALUES = """(i) => Array.from(document.querySelector('table[data-rl-sort]').tBodies[0].rows,
                     r => r.cells[i].getAttribute('data-v')).filter(v => v !== null).map(Number)"""


@pytest.fixture(params=[("phone", PHONE), ("laptop", LAPTOP)], ids=["390x844", "1280x900"])
def tab(request, chromium, served_site):
    ctx = chromium.new_context(**request.param[1])
    yield ctx.new_page()
    ctx.close()


@pytest.mark.parametrize("page", PAGES)
def test_the_page_never_scrolls_sideways_and_the_table_scrolls_inside_its_container(tab, served_site, page):
    tab.goto(f"{served_site}/{page}/", wait_until="load")
    tab.wait_for_selector(".md-typeset__scrollwrap table[data-rl-sort]")  # Material wraps it once loaded
    widths = tab.evaluate("""() => ({page: document.documentElement.scrollWidth, view: window.innerWidth,
        wrap: document.querySelector('table[data-rl-sort]').closest('.md-typeset__scrollwrap').getBoundingClientRect().right})""")
    assert widths["page"] <= widths["view"], f"{page} is {widths['page']} px wide in a {widths['view']} px window"
    assert widths["wrap"] <= widths["view"] + 1


def test_the_speed_of_light_table_fits_its_column_on_a_laptop(chromium, served_site):
    ctx = chromium.new_context(**LAPTOP)
    try:
        tab = ctx.new_page()
        tab.goto(f"{served_site}/memory-bandwidth/", wait_until="load")
        tab.wait_for_selector(".md-typeset__scrollwrap table[data-rl-sort]")
        fit = tab.evaluate("""() => { const t = document.querySelector('table[data-rl-sort]');
            const w = t.closest('.md-typeset__scrollwrap');
            return {table: t.scrollWidth, room: w.clientWidth, height: t.getBoundingClientRect().height}; }""")
        assert fit["table"] <= fit["room"], f"the table is {fit['table']} px wide in {fit['room']} px"
        assert fit["height"] < 900, f"the table is {fit['height']} px tall"
    finally:
        ctx.close()


def test_the_first_column_stays_in_view_while_a_wide_table_scrolls_sideways(chromium, served_site):
    """The measure page's machines table (nine columns) scrolls sideways at 1280 px: scrolled, its first
    column (the row's name) stays at the box's edge."""
    ctx = chromium.new_context(**LAPTOP)
    try:
        tab = ctx.new_page()
        tab.goto(f"{served_site}/measure/", wait_until="load")
        tab.wait_for_selector(".md-typeset__scrollwrap table")
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
        ctx.close()


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
