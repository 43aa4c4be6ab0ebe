"""Reading the site as its readers meet it: a 390×844 phone with touch and a 1280×900 laptop, light
and dark. Every page is walked once per size and scheme (one browser, one context each): cards and
number popovers stay inside the viewport and clear of the tapped word on a phone (opened by a tap
there, by keyboard focus on the laptop: the same placement as a hover, without its delay), the page
never scrolls sideways at 390 px, and a pointer that only passes opens nothing.

Sampling: on every page a few glossary terms and numbers spread from top to bottom are opened (all of
them would take minutes; the placement code is the same for each, and the spread catches the
edges: first and last lines, left and right columns).
"""

from __future__ import annotations

import re

import pytest
from tests.support.browser import LAPTOP, PHONE
from tests.support.site_helpers import wait_for_popover

pytestmark = [pytest.mark.browser, pytest.mark.site]

SIZES = {"390": PHONE, "1280": LAPTOP}
PER_PAGE = 4  # terms and numbers opened per page (spread evenly)
PER_ENTRY = 1  # per glossary entry page: short pages, one template

# One JS function waits for the popover and measures it, so the walk costs one round trip per element:
# it waits, frame by frame, until no open popover is loading its body (provenance.json, fetched on
# first use; it is placed again in the same task that fills it), as site_helpers.wait_for_popover does.
MEASURE = """async ([sel, i]) => {
  const start = performance.now();
  while (document.querySelector('.rl-num.rl-open .rl-prov.rl-loading')) {
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
}"""


def content_urls(site_pages) -> list[str]:
    return sorted(p.removesuffix("index.html") for p, html in site_pages.items()
                  if p.endswith("index.html") and "md-content__inner" in html)


def spread(n: int, k: int) -> list[int]:
    """k indices spread evenly over range(n), first and last included."""
    if n <= k:
        return list(range(n))
    if k == 1:
        return [n // 2]
    return sorted({round(j * (n - 1) / (k - 1)) for j in range(k)})


def walk(context, base: str, urls: list[str], touch: bool) -> dict:
    """Open a spread of terms and numbers on every page; return the problems found, by kind."""
    problems = {"outside": [], "covers": [], "unopened": [], "overflow": []}
    tab = context.new_page()
    for url in urls:
        tab.goto(f"{base}/{url}", wait_until="load")
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
    tab.close()
    return problems


@pytest.fixture(scope="module", params=[("390", "light"), ("390", "dark"), ("1280", "light"), ("1280", "dark")],
                ids=lambda p: f"{p[0]}-{p[1]}")
def walked(request, chromium, served_site, site_pages):
    size, scheme = request.param
    urls = content_urls(site_pages)
    if size == "1280":  # glossary entries share one short template: a third of them on the laptop
        entries = [u for u in urls if u.startswith("glossary/") and u != "glossary/"]
        urls = [u for u in urls if u not in entries] + entries[::3]
    # Light and dark share the geometry: each scheme walks half the pages, together all of them.
    urls = urls[0::2] if scheme == "light" else urls[1::2]
    ctx = chromium.new_context(color_scheme=scheme, **SIZES[size])
    try:
        return size, walk(ctx, served_site, urls, touch=size == "390")
    finally:
        ctx.close()


def test_cards_and_popovers_open_inside_the_viewport(walked):
    size, problems = walked
    assert not problems["unopened"], f"at {size} px these did not open: {problems['unopened'][:10]}"
    assert not problems["outside"], f"at {size} px these left the viewport: {problems['outside'][:10]}"


def test_a_bottom_sheet_never_covers_the_tapped_word(walked):
    size, problems = walked
    assert not problems["covers"], problems["covers"][:10]


def test_no_page_scrolls_sideways_on_a_phone(walked):
    size, problems = walked
    assert not problems["overflow"], f"pages wider than the 390 px screen: {problems['overflow']}"


def test_a_pointer_that_only_passes_opens_nothing(chromium, served_site):
    ctx = chromium.new_context(**LAPTOP)
    try:
        tab = ctx.new_page()
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
        ctx.close()


def test_a_number_first_shows_value_formula_and_one_source_then_more(chromium, served_site):
    ctx = chromium.new_context(**LAPTOP)
    try:
        tab = ctx.new_page()
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
        ctx.close()


def test_touch_readers_are_told_to_tap(chromium, served_site):
    ctx = chromium.new_context(**PHONE)
    try:
        tab = ctx.new_page()
        tab.goto(f"{served_site}/", wait_until="load")
        text = tab.locator("article").inner_text()
        assert "tap one" in text and not re.search(r"\bhover\b", text, re.I)
    finally:
        ctx.close()


def test_calculator_result_stays_in_view_after_editing_batch_on_a_phone(chromium, served_site):
    ctx = chromium.new_context(**PHONE)
    try:
        tab = ctx.new_page()
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
        ctx.close()
