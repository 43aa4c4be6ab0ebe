"""What a page does as it starts (Lighthouse's total blocking time): the palette toggle runs
from our inline script, not from Material's palette component; stylesheet URLs are absolute before
Material's bundle runs; code blocks are set up as they scroll into view.

Why each: in a trace of the playbook, Material's start-up task restyled the whole page five times —
the palette component (colours set again, two <meta>s written, the header's style read: three) and
instant navigation setting every stylesheet's href to its absolute URL (the sheets parsed again: one)
— and the DOMContentLoaded task forced a layout per code block (copy button inserted, width read).
"""

from __future__ import annotations

import re

import pytest

from tests.support.browser import PHONE

BUNDLE = "**/assets/javascripts/bundle.*.min.js"
SCHEME = "document.body.dataset.mdColorScheme"


def _no_bundle(tabs):
    """Material's bundle never arrives: what the page does then is ours alone."""
    tabs.route(BUNDLE, lambda route: route.abort())


def test_no_page_mounts_materials_palette_component(site_pages):
    for path, html in site_pages.items():
        if "md-header__option" not in html:
            continue  # the 404 page and redirect stubs have no header toggle
        assert 'data-md-component="palette"' not in html, f"{path}: Material's palette component is mounted"
        form = re.search(r'<form class="md-header__option">.*?</form>\s*<script>(.*?)</script>', html, re.S)
        assert form and "__palette" in form.group(1), f"{path}: the toggle's inline script does not follow its form"


@pytest.mark.parametrize("scheme,first,other", [("dark", "slate", "default"), ("light", "default", "slate")])
def test_palette_follows_the_system_then_the_toggle_without_materials_bundle(chromium, served_site, scheme, first, other):
    tabs = chromium.tabs(color_scheme=scheme, **PHONE)
    _no_bundle(tabs)
    page = tabs.new_page()
    try:
        page.goto(f"{served_site}/playbook/")
        assert page.evaluate(SCHEME) == first  # nothing stored yet: the reader's system scheme
        # Material's slate sets `color-scheme: dark` on the body only; our rule carries it to the canvas.
        assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == ("dark" if first == "slate" else "normal")
        shown = page.locator("form.md-header__option label:not([hidden])")
        assert shown.count() == 1  # one toggle button: the one that switches to the other scheme
        shown.click()
        assert page.evaluate(SCHEME) == other
        page.reload()
        assert page.evaluate(SCHEME) == other  # the stored choice wins over the system scheme
        page.focus("form.md-header__option input:nth-of-type(1)")
        page.keyboard.press("Enter")  # Enter on an option switches, as in Material
        assert page.evaluate(SCHEME) == first
    finally:
        tabs.close()


@pytest.mark.parametrize("junk", ['{}', '"dark"', '{"index": 0.5}', '{"index": -1}', '{"index": "1"}'])
def test_a_stored_palette_that_is_no_choice_leaves_the_system_scheme(chromium, served_site, junk):
    # Storage a reader edited, or another version of the site wrote: no error, and a dark system stays dark.
    tabs = chromium.tabs(color_scheme="dark", **PHONE)
    page = tabs.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{served_site}/playbook/")
        page.evaluate("(junk) => localStorage.setItem(__md_scope.pathname + '.__palette', junk)", junk)
        page.reload()
        assert page.evaluate(SCHEME) == "slate" and errors == []
    finally:
        tabs.close()


def test_palette_choice_survives_instant_navigation(chromium, served_site):
    tabs = chromium.tabs(color_scheme="light", **PHONE)
    page = tabs.new_page()
    try:
        page.goto(f"{served_site}/playbook/")
        page.wait_for_function("!!window.location$")
        page.locator("form.md-header__option label:not([hidden])").click()
        assert page.evaluate(SCHEME) == "slate"
        page.evaluate("window.__sameDocument = true")
        # Material's instant navigation, as a link starts it (on the test server a click loads a new page:
        # its sitemap matches the host, not the port; see tests/site/test_tables_browser.py)
        page.evaluate("(path) => window.location$.next(new URL(path, location.href))", "../batching/")
        page.wait_for_function("document.title.startsWith('Batching')")
        assert page.evaluate("window.__sameDocument === true"), "the link reloaded the page"
        assert page.evaluate(SCHEME) == "slate"
        page.locator("form.md-header__option label:not([hidden])").click()
        assert page.evaluate(SCHEME) == "default"
    finally:
        tabs.close()


def test_stylesheet_urls_are_absolute_before_materials_bundle_runs(chromium, served_site):
    """Material's instant navigation sets every relative href to its absolute URL as it starts; on a
    stylesheet's <link> that reloads and reparses the sheet and restyles the page. Already absolute,
    Material leaves it: its test is the regex below (bundle: `/^(?:[a-z]+:)?\\/\\//i`)."""
    tabs = chromium.tabs(**PHONE)
    _no_bundle(tabs)
    page = tabs.new_page()
    try:
        for path in ("playbook/", "glossary/ridge-point/"):
            page.goto(f"{served_site}/{path}")
            hrefs = page.evaluate("[...document.querySelectorAll('link[rel=stylesheet]')].map(l => l.getAttribute('href'))")
            assert len(hrefs) >= 3 and all(re.match(r"(?:[a-z]+:)?//", h, re.I) for h in hrefs), hrefs
            # and every sheet still applies: each one loaded, with its rules
            assert page.evaluate("[...document.styleSheets].filter(s => s.href).every(s => s.cssRules.length > 0)")
            assert page.evaluate("document.styleSheets.length") >= len(hrefs)
    finally:
        tabs.close()


def test_code_blocks_are_set_up_as_they_scroll_into_view(chromium, served_site):
    tabs = chromium.tabs(**PHONE)
    page = tabs.new_page()
    try:
        page.goto(f"{served_site}/playbook/")
        page.wait_for_load_state("load")
        blocks = page.locator("article .highlight:not(details .highlight)")
        last = blocks.count() - 1
        assert last >= 2
        has_copy = "i => !!document.querySelectorAll('article .highlight:not(details .highlight)')[i].querySelector('.md-code__button')"
        assert not page.evaluate(has_copy, last), "a code block far below the fold was set up at load"
        blocks.nth(last).scroll_into_view_if_needed()
        page.wait_for_function(has_copy, arg=last)  # Material's copy button, once the block is in view
    finally:
        tabs.close()


def test_the_header_does_not_shift_as_the_page_starts(chromium, served_site):
    """Our inline palette script runs inside the header, before the search button is parsed: a frame drawn
    there showed the toggle, then moved it as the button came (a layout shift Lighthouse counted, 0.0008
    on every page). The toggle is shown once the header is whole."""
    tabs = chromium.tabs(**PHONE, first_visit=True)
    tabs.add_init_script("""window.__shifts = [];
        new PerformanceObserver(list => { for (const e of list.getEntries()) for (const s of e.sources)
            if (s.node && s.node.closest && s.node.closest('.md-header')) window.__shifts.push(s.node.className || s.node.nodeName);
        }).observe({type: 'layout-shift', buffered: true});""")
    page = tabs.new_page()
    try:
        for path in ("", "hardware/", "glossary/ridge-point/"):
            page.goto(f"{served_site}/{path}")
            page.wait_for_load_state("load")
            page.wait_for_function("document.documentElement.classList.contains('js') && !!window.location$")
            page.wait_for_timeout(500)  # the bundle's first frames
            assert page.evaluate("window.__shifts") == [], f"{path}: the header moved as the page started"
    finally:
        tabs.close()


# When Material's bundle ran (its last statements publish its streams on window, document$ first), and
# when the page's first frame was drawn: the first animation-frame callback runs in it, and no frame is
# drawn while the stylesheets the first paint waits for are loading. And every page Material's document$
# gives, counted from the start: started twice (by the loader's DOMContentLoaded and by a Material that no
# longer waits for it), it would give the page twice.
STARTUP_TIMES = """(() => { let value; window.__pagesGiven = 0;
    Object.defineProperty(window, "document$", {configurable: true, get() { return value; },
        set(v) { value = v; window.__bundleRanAt = performance.now(); v.subscribe(() => window.__pagesGiven++); }});
    requestAnimationFrame(() => { window.__firstFrameAt = performance.now(); }); })()"""


def test_the_scripts_are_asked_for_and_run_after_the_first_frame_and_material_still_starts(chromium, served_site):
    """A deferred script runs once the document is parsed, which on a short page came before the first
    frame: Material's bundle held the first paint for its start-up, and Lighthouse's simulated phone,
    which counts every script fetched before the largest paint, put that paint about half a second later
    (1.58 against 1.06 s on a glossary entry; the calculator's module, asked for at high priority, put
    its first paint at 1.25 s against 0.91). The scripts are now asked for, and run, after the first
    contentful paint is on screen (overrides/partials/scripts.js): asked for after the first frame but
    before that paint's entry, a script that ended before it was still counted (the calculator's first
    paint 1.09 s in three runs of eight). Material, which starts on DOMContentLoaded, is told the
    document is ready once they have run, and starts, once: its document$ gives the page one time, and a
    table page's scripts sort its table. Before the loader, the bundle was requested as the page was
    parsed, before any frame."""
    tabs = chromium.tabs(**PHONE, first_visit=True)
    tabs.add_init_script(STARTUP_TIMES)
    page = tabs.new_page()
    try:
        for path in ("", "calculator/", "glossary/ridge-point/", "hardware/"):
            page.goto(f"{served_site}/{path}")
            frame, painted, scripts, ran = page.evaluate("""() => [window.__firstFrameAt,
                performance.getEntriesByName("first-contentful-paint")[0].startTime,
                performance.getEntriesByType("resource").filter(r => r.initiatorType === "script")
                    .map(r => [r.name.split("/").pop(), r.startTime]),
                window.__bundleRanAt]""")
            asked = dict(scripts)
            bundle = next(name for name in asked if name.startswith("bundle."))
            assert "site.js" in asked and (path != "calculator/" or "ui.js" in asked), f"{path}: {asked}"
            early = {name: at for name, at in asked.items() if at <= max(frame, painted)}
            assert not early, f"{path}: asked for before the first frame ({frame} ms) or paint ({painted} ms): {early}"
            assert asked[bundle] < ran, f"{path}: bundle asked for at {asked[bundle]} ms, run at {ran} ms"
            assert page.evaluate("new Promise(r => window.document$.subscribe(d => r(d === document)))"), \
                f"{path}: Material's document$ never gave the page"
            page.wait_for_timeout(200)
            assert page.evaluate("window.__pagesGiven") == 1, f"{path}: Material started more than once"
        th = page.locator("table[data-rl-sort] thead th").first  # the hardware page's table scripts ran:
        th.locator("button").click()                             # its header sorts the rows
        assert th.get_attribute("aria-sort") == "ascending"
    finally:
        tabs.close()
