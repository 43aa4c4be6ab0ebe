"""Reading the site as its readers meet it: a 390×844 phone with touch and a 1280×900 laptop, light
and dark. Every page is walked once per size and scheme (one tab each): cards and
number popovers stay inside the viewport and clear of the tapped word on a phone (opened by a tap
there, by keyboard focus on the laptop: the same placement as a hover, without its delay), the page
never scrolls sideways at 390 px, and a pointer that only passes opens nothing.

The same walk checks, on the pages it loads anyway, that every table and formula reads whole (at
both sizes) and that reading makes no request to another origin and raises no script error (gate 1):
a page load is most of what a browser test costs here, and each of those checks loaded every page
again.

Sampling: on every page a few glossary terms and numbers spread from top to bottom are opened (all of
them would take minutes; the placement code is the same for each, and the spread catches the
edges: first and last lines, left and right columns).

How a page is reached: on the phone, a reader who opened one glossary entry from a chat taps on to the
next, so after the first entry of its half of the walk each entry (bar one with a table or a formula,
loaded whole for the table check) is reached by Material's instant navigation from the page before,
which swaps the page in without loading it; every other page, and every page on the laptop, is loaded
whole. Each way, every check above runs on the page as it arrived. The test server serves the sitemap
with the local address, as Pages serves it with its own: instant navigation acts only on the addresses
it names (and a test that served the published one never saw a tap go where the published site sent it).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from tests.support.browser import LAPTOP, PHONE
from tests.support.site_helpers import (LOCAL_SCHEMES, POPOVER_LOADING, pages_a_reader_clicks_through,
                                        wait_for_popover)

pytestmark = [pytest.mark.browser, pytest.mark.site]

SIZES = {"390": PHONE, "1280": LAPTOP}
PER_PAGE = 4  # terms and numbers opened per page (spread evenly)
PER_ENTRY = 1  # per glossary entry page: short pages, one template

# One JS function waits for the popover and measures it, so the walk costs one round trip per element:
# it waits, frame by frame, until no open popover is loading its body (provenance.json, fetched on
# first use; it is placed again in the same task that fills it), as site_helpers.wait_for_popover does.
MEASURE = """async ([sel, i]) => {
  const start = performance.now();
  while (document.querySelector('POPOVER_LOADING')) {
    if (performance.now() - start > 10000) return {shown: false, loading: true};
    await new Promise((frame) => requestAnimationFrame(frame));
  }
  const el = document.querySelectorAll(sel)[i];
  const open = el.classList.contains('rl-num') ? el.querySelector('.rl-prov')
             : document.querySelector('.gl-card:not([hidden])');
  if (!open || getComputedStyle(open).display === 'none') return {shown: false};
  const b = open.getBoundingClientRect(), w = el.getBoundingClientRect();
  return {shown: true, box: [b.left, b.top, b.right, b.bottom], word: [w.left, w.top, w.right, w.bottom],
          vw: document.documentElement.clientWidth, vh: window.innerHeight,
          fixed: getComputedStyle(open).position === 'fixed'};
}""".replace("POPOVER_LOADING", POPOVER_LOADING)


# Every table and formula on a page, read whole? One round trip per page; the rules:
# - No table box hides rows: no element between a table and the article clips it up and down (the old
#   85vh box hid 1,409 px of the ridge table's rows on a phone).
# - No page scrolls sideways, and no formula is wider than its box.
# - On a phone a table marked for cards (three or more columns) is as wide as its column: its rows are
#   cards, each value labelled with its column's name.
# - The first column, the one kept in view, is the row's name, never a row number.
TABLES_WHOLE = """() => {
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


def content_urls(site_pages) -> list[str]:
    return sorted(p.removesuffix("index.html") for p, html in site_pages.items()
                  if p.endswith("index.html") and "md-content__inner" in html)


# Material's instant navigation, as a tap on a link starts it: the address pushed, then `location$` (what
# Material's own click handler does). It resolves, with the new page's path, once the page is swapped in
# (its canonical link names it) and every `document$` subscriber, ours included, has run; with null if
# that takes over 10 s. A whole page load on the way ends the evaluation, which fails the walk.
INSTANT = """(url) => new Promise((resolve) => {
  const path = new URL(url).pathname;
  let first = true;
  const sub = window.document$.subscribe(() => {
    if (first) { first = false; return; }
    const canonical = document.querySelector('link[rel=canonical]');
    if (!canonical || !new URL(canonical.href).pathname.endsWith(path)) return;
    sub.unsubscribe();
    setTimeout(() => resolve(path), 0);
  });
  setTimeout(() => resolve(null), 10000);
  history.pushState(null, '', url);
  window.location$.next(new URL(url));
})"""


def is_entry(url: str) -> bool:
    return url.startswith("glossary/") and url != "glossary/"


def spread(n: int, k: int) -> list[int]:
    """k indices spread evenly over range(n), first and last included."""
    if n <= k:
        return list(range(n))
    if k == 1:
        return [n // 2]
    return sorted({round(j * (n - 1) / (k - 1)) for j in range(k)})


def walk(tabs, base: str, urls: list[str], touch: bool, tables: set[str],
         tables_only: tuple[str, ...] = ()) -> dict:
    """Open a spread of terms and numbers on every page of `urls`; on those in `tables`, and on
    `tables_only` (loaded for that alone), check that tables and formulas read whole. Return the
    problems found, by kind, with every request to another origin and every script error."""
    problems = {"outside": [], "covers": [], "unopened": [], "overflow": [], "tables": [], "foreign": [], "errors": []}
    tab = tabs.new_page()
    at = {"url": ""}
    tab.on("request", lambda r: None if r.url.startswith(base) or r.url.startswith(LOCAL_SCHEMES)
           else problems["foreign"].append(f"{at['url'] or '/'}: {r.url}"))
    tab.on("pageerror", lambda e: problems["errors"].append(f"{at['url'] or '/'}: {e}"))
    previous = ""
    for url in [*urls, *tables_only]:
        at["url"] = url
        if touch and is_entry(url) and is_entry(previous) and url not in tables:  # (tables_only are in tables)
            reached = tab.evaluate(INSTANT, f"{base}/{url}")
            if reached != urlsplit(f"{base}/{url}").path:
                problems["errors"].append(f"{url}: instant navigation from {previous} reached {reached}")
                tab.goto(f"{base}/{url}", wait_until="load")
        else:
            tab.goto(f"{base}/{url}", wait_until="load")
        previous = url
        if url in tables:
            problems["tables"] += [f"{url or '/'}: {p}" for p in tab.evaluate(TABLES_WHOLE)]
        if url not in urls:
            continue
        # Lazy figures load as they are scrolled to and move the text below them: load them first.
        tab.evaluate("Promise.all([...document.images].map(i => { i.loading = 'eager'; return i.decode().catch(() => 0); }))")
        width = tab.evaluate("document.documentElement.scrollWidth")
        if touch and width > 390:
            problems["overflow"].append(f"{url or '/'}: {width} px wide")
        for sel in ("article .gl-ref .gl-term", "article .rl-num"):
            visible = tab.evaluate(f"""() => [...document.querySelectorAll('{sel}')]
                .map((e, i) => e.getClientRects().length && !e.closest('details:not([open]), .gl-card, .rl-prov, .md-typeset__table, .rl-scroll') ? i : -1)
                .filter(i => i >= 0)""")
            for i in [visible[j] for j in spread(len(visible), PER_ENTRY if url.startswith("glossary/") else PER_PAGE)]:
                # To the middle of the screen (not under the sticky header), then the middle of its first
                # line box: a term that wraps has nothing at its box's centre. On the laptop keyboard
                # focus opens it at once, through the same placement as a hover. (One round trip: a
                # Playwright locator per element cost a third of the walk.)
                x, y = tab.evaluate("""([sel, i, focus]) => { const e = document.querySelectorAll(sel)[i];
                    e.scrollIntoView({block: 'center', behavior: 'instant'});
                    const r = e.getClientRects()[0]; if (focus) e.focus();
                    return [r.left + r.width / 2, r.top + r.height / 2]; }""", [sel, i, not touch])
                if touch:
                    tab.touchscreen.tap(x, y)
                m = tab.evaluate(MEASURE, [sel, i])  # once its body, if a number's, has come and it is placed again
                what = f"{url or '/'} {sel.split()[-1]} #{i}"
                if m.get("loading"):
                    problems["unopened"].append(f"{what}: its body was still loading after 10 s")
                elif not m["shown"]:
                    hit = tab.evaluate(f"(() => {{ const e = document.elementFromPoint({x}, {y}); return e ? e.outerHTML.slice(0, 80) : null; }})()")
                    problems["unopened"].append(f"{what} at ({x:.0f}, {y:.0f}) on {hit}")
                else:
                    left, top, right, bottom = m["box"]
                    if left < 0 or top < 0 or right > m["vw"] + 0.5 or bottom > m["vh"] + 0.5:
                        problems["outside"].append(f"{what}: box {[round(v) for v in m['box']]} in {m['vw']}×{m['vh']}")
                    wl, wt, wr, wb = m["word"]
                    if m["fixed"] and wb > top and wt < bottom and wr > left and wl < right:
                        problems["covers"].append(f"{what}: the sheet covers the tapped word")
                tab.keyboard.press("Escape")
    tab.wait_for_load_state("networkidle")  # what the last page still fetches
    tab.close()
    return problems


@pytest.fixture(scope="module", params=[("390", "light"), ("390", "dark"), ("1280", "light"), ("1280", "dark")],
                ids=lambda p: f"{p[0]}-{p[1]}")
def walked(request, chromium, served_site, site_pages):
    size, scheme = request.param
    every = content_urls(site_pages)
    urls = every
    if size == "1280":  # glossary entries share one short template: a third of them on the laptop
        entries = [u for u in urls if is_entry(u)]
        urls = [u for u in urls if u not in entries] + entries[::3]
    # Light and dark share the geometry: each scheme walks half the pages, together all of them; the
    # pages with a table or a formula the laptop's third of the glossary leaves out are loaded for
    # that check alone, in the scheme their place in the whole list gives them.
    tables = set(pages_with_tables_or_formulas(site_pages))
    half = set(every[0::2] if scheme == "light" else every[1::2])
    walked_urls = urls[0::2] if scheme == "light" else urls[1::2]
    tables_only = tuple(u for u in every if u in tables and u in half and u not in urls)
    mine = set(walked_urls) | set(tables_only)
    tabs = chromium.tabs(color_scheme=scheme, **SIZES[size])
    try:
        problems = walk(tabs, served_site, walked_urls, touch=size == "390", tables=tables,
                        tables_only=tables_only)
        return size, problems, mine
    finally:
        tabs.close()


def test_cards_and_popovers_open_inside_the_viewport(walked):
    size, problems, _ = walked
    assert not problems["unopened"], f"at {size} px these did not open: {problems['unopened'][:10]}"
    assert not problems["outside"], f"at {size} px these left the viewport: {problems['outside'][:10]}"


def test_a_bottom_sheet_never_covers_the_tapped_word(walked):
    size, problems, _ = walked
    assert not problems["covers"], problems["covers"][:10]


def test_no_page_scrolls_sideways_on_a_phone(walked):
    size, problems, _ = walked
    assert not problems["overflow"], f"pages wider than the 390 px screen: {problems['overflow']}"


def test_every_table_and_formula_reads_whole(walked, site_pages):
    size, problems, visited = walked
    tables = pages_with_tables_or_formulas(site_pages)
    assert len(tables) >= 10, f"only {len(tables)} pages with a table or a formula: the walk would prove little"
    assert visited & set(tables), "this part of the walk loaded no page with a table or a formula"
    assert not problems["tables"], f"at {size} px:\n" + "\n".join(problems["tables"])


def test_reading_every_page_stays_on_localhost(walked, site_pages):
    size, problems, visited = walked
    clicked = {p.removesuffix("index.html") for p in pages_a_reader_clicks_through(site_pages)}
    assert len(clicked) >= 3 and visited & clicked, "this part of the walk loaded none of the pages a reader clicks through"
    assert problems["foreign"] == [], f"at {size} px, requests to another origin: {problems['foreign'][:10]}"
    assert problems["errors"] == [], f"at {size} px, script errors: {problems['errors'][:10]}"


def test_a_pointer_that_only_passes_opens_nothing(chromium, served_site):
    tabs = chromium.tabs(**LAPTOP)
    try:
        tab = tabs.new_page()
        tab.goto(f"{served_site}/batching/", wait_until="load")
        box = tab.locator("article p").nth(2).bounding_box()
        # Sweep across three lines of prose at a reading pointer's pace: 40 ms per step.
        for line in range(3):
            y = box["y"] + 8 + line * 20
            for x in range(int(box["x"]), int(box["x"] + box["width"]), 60):
                tab.mouse.move(x, y)
                tab.wait_for_timeout(40)
        tab.mouse.move(1, 1)
        shown = tab.evaluate("""() => document.querySelectorAll('.gl-card:not([hidden]), .rl-num.rl-open').length""")
        assert shown == 0, f"{shown} cards or popovers opened while the pointer only passed"
    finally:
        tabs.close()


def test_a_number_first_shows_value_formula_and_one_source_then_more(chromium, served_site):
    tabs = chromium.tabs(**LAPTOP)
    try:
        tab = tabs.new_page()
        tab.goto(f"{served_site}/hardware/", wait_until="load")
        num = tab.locator("article .rl-num").first
        num.click()
        prov = num.locator(".rl-prov")
        assert prov.is_visible()
        wait_for_popover(tab)
        assert prov.locator(".rl-prov-label").is_visible()
        assert not prov.locator(".rl-prov-inputs").is_visible()
        assert prov.locator(".rl-prov-src:visible").count() <= 1
        prov.locator(".rl-prov-more").click()
        assert prov.locator(".rl-prov-inputs").is_visible()
        assert "inputs" in prov.inner_text().lower()
    finally:
        tabs.close()


def test_touch_readers_are_told_to_tap(chromium, served_site):
    tabs = chromium.tabs(**PHONE)
    try:
        tab = tabs.new_page()
        tab.goto(f"{served_site}/", wait_until="load")
        text = tab.locator("article").inner_text()
        assert "tap one" in text and not re.search(r"\bhover\b", text, re.I)
    finally:
        tabs.close()


def test_calculator_result_stays_in_view_after_editing_batch_on_a_phone(chromium, served_site):
    tabs = chromium.tabs(**PHONE)
    try:
        tab = tabs.new_page()
        tab.goto(f"{served_site}/calculator/", wait_until="load")
        tab.wait_for_selector(".rl-calc[data-rl-ready]")
        batch = tab.locator(".rl-calc .rl-calc-config").nth(0).locator("[name=batch]")
        batch.scroll_into_view_if_needed()
        batch.fill("32")
        tab.wait_for_function("document.querySelector('.rl-calc-bar').textContent.includes('per step')")
        box = tab.evaluate("""() => { const r = document.querySelector('.rl-calc-bar').getBoundingClientRect();
            return [r.top, r.bottom, window.innerHeight]; }""")
        assert 0 <= box[0] and box[1] <= box[2] + 0.5, f"the result bar is off screen: {box}"
        # B is folded behind "Compare" on a phone; the chart's text is at least 12 px.
        assert not tab.locator(".rl-calc-compare").evaluate("d => d.open")
        smallest = tab.evaluate("""() => Math.min(...[...document.querySelectorAll('.rl-calc-chart text')].map(t => {
            const svg = t.ownerSVGElement; const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return parseFloat(getComputedStyle(t).fontSize) * k; }))""")
        assert smallest >= 12 - 0.3, f"calculator chart text {smallest:.1f} px on a phone"
    finally:
        tabs.close()
