"""Every table and every formula on every page reads whole, on a phone (390×844, touch) and a laptop
(1280×900), in Chromium.

- No table box hides rows: no element between a table and the article clips it up and down (the old
  85vh box hid 1,409 px of the ridge table's rows on a phone).
- No page scrolls sideways, and no formula is wider than its box.
- On a phone a table marked for cards (three or more columns) is as wide as its column: its rows are
  cards, each value labelled with its column's name.
- The first column, the one kept in view, is the row's name, never a row number.
"""

from __future__ import annotations

import pytest
from tests.support.browser import LAPTOP, PHONE

pytestmark = [pytest.mark.browser, pytest.mark.site]

# One round trip per page: what a reader cannot see whole.
MEASURE = """() => {
  const article = document.querySelector('article');
  const problems = [];
  const name = t => (t.tHead ? t.tHead.textContent : t.rows[0].textContent).trim().replace(/\\s+/g, ' ').slice(0, 40);
  document.querySelectorAll('article table').forEach(t => {
    if (!t.getClientRects().length || t.closest('details:not([open]), [hidden], .rl-prov, .gl-card')) return;
    for (let e = t; e && e !== article; e = e.parentElement) {
      const oy = getComputedStyle(e).overflowY;
      if (oy !== 'visible' && e.scrollHeight > e.clientHeight + 1)
        problems.push(`'${name(t)}': a ${e.clientHeight} px box hides ${e.scrollHeight - e.clientHeight} px of rows`);
    }
    const wrap = t.closest('.md-typeset__scrollwrap') || t.parentElement;
    if (innerWidth < 720 && t.hasAttribute('data-rl-cards') && wrap.scrollWidth > wrap.clientWidth + 1)
      problems.push(`'${name(t)}': cards ${wrap.scrollWidth} px wide in ${wrap.clientWidth} px`);
    if (innerWidth < 720 && t.tHead && t.tHead.rows[0].cells.length >= 3 && !t.hasAttribute('data-rl-cards'))
      problems.push(`'${name(t)}': ${t.tHead.rows[0].cells.length} columns on a phone, not cards`);
    const body = t.tBodies[0];
    if (body && body.rows.length && t.tHead) {
      const unlabelled = [...body.rows[0].cells].slice(1).filter(c => !c.getAttribute('data-label')).length;
      if (unlabelled) problems.push(`'${name(t)}': ${unlabelled} cells of the first row without their column's name`);
      // A row number is no name: the first column counting 1, 2, 3 ... (the old "#" column).
      const firsts = [...body.rows].map(r => r.cells[0] ? r.cells[0].textContent.trim() : '');
      if (firsts.length > 1 && firsts.every((f, i) => f === String(i + 1)))
        problems.push(`'${name(t)}': its first column, kept in view, is the row number, not the row's name`);
    }
  });
  document.querySelectorAll('article .rl-math').forEach(m => {
    if (m.scrollWidth > m.clientWidth + 1)
      problems.push(`formula '${m.textContent.slice(0, 30)}' is ${m.scrollWidth} px wide in ${m.clientWidth} px`);
  });
  if (document.documentElement.scrollWidth > innerWidth)
    problems.push(`the page is ${document.documentElement.scrollWidth} px wide in ${innerWidth} px`);
  return problems;
}"""


def pages_with_tables_or_formulas(site_pages) -> list[str]:
    return sorted(p.removesuffix("index.html") for p, html in site_pages.items()
                  if p.endswith("index.html") and "md-content__inner" in html
                  and ("<table" in html or 'class="rl-math"' in html))


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390x844", "1280x900"])
def test_every_table_and_formula_reads_whole(chromium, served_site, site_pages, size):
    urls = pages_with_tables_or_formulas(site_pages)
    assert len(urls) >= 10, f"only {len(urls)} pages with a table or a formula: the walk would prove little"
    ctx = chromium.new_context(**size)
    try:
        tab = ctx.new_page()
        problems = []
        for url in urls:
            tab.goto(f"{served_site}/{url}", wait_until="load")
            problems += [f"{url or '/'}: {p}" for p in tab.evaluate(MEASURE)]
        assert not problems, "\n".join(problems)
    finally:
        ctx.close()


def test_the_hardware_reference_fits_a_laptop_whole(chromium, served_site):
    """Twelve columns, every device: on a laptop the page gives the table the contents column, so the
    whole table is on screen without scrolling sideways (it was 1,346 px in a 720 px column)."""
    ctx = chromium.new_context(**LAPTOP)
    try:
        tab = ctx.new_page()
        tab.goto(f"{served_site}/hardware/", wait_until="load")
        tab.wait_for_selector(".md-typeset__scrollwrap table[data-rl-wide]")
        fit = tab.evaluate("""() => { const w = document.querySelector('table[data-rl-wide]').closest('.md-typeset__scrollwrap');
            return {table: w.scrollWidth, room: w.clientWidth}; }""")
        assert fit["table"] <= fit["room"] + 1, f"the table is {fit['table']} px wide in {fit['room']} px"
    finally:
        ctx.close()


def test_a_phone_sorts_the_cards_from_the_buttons_above_them(chromium, served_site):
    ctx = chromium.new_context(**PHONE)
    try:
        tab = ctx.new_page()
        tab.goto(f"{served_site}/ridge-point/", wait_until="load")
        button = tab.locator("table[data-rl-cards][data-rl-sort] thead th button", has_text="Ridge point")
        assert button.is_visible(), "the sort buttons are hidden on a phone"
        values = """() => Array.from(document.querySelector('table[data-rl-sort]').tBodies[0].rows,
                    r => Number(r.cells[1].getAttribute('data-v')))"""
        before = tab.evaluate(values)
        assert before != sorted(before), "the registry order is already sorted: the test would prove nothing"
        button.tap()
        assert tab.evaluate(values) == sorted(before)
    finally:
        ctx.close()
