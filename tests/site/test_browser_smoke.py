"""The site opens in Debian Chromium with no request leaving localhost, and a number's provenance opens on focus;
the warm browser profiles the tests share keep no test's storage for the next."""

import pytest

from tests.support.site_helpers import wait_for_popover

pytestmark = pytest.mark.browser


def test_home_page_offline_and_provenance_on_focus(page):
    page.goto(page.base_url + "/")
    num = page.locator(".rl-num").first
    prov = num.locator(".rl-prov")
    assert not prov.is_visible()
    num.focus()
    assert prov.is_visible()
    wait_for_popover(page)  # the body arrives from the page's provenance.json (same origin)
    assert "datasheet" in prov.inner_text() or "ridge" in prov.inner_text()
    foreign = [u for u in page.requests_seen if not u.startswith(page.base_url)]
    assert foreign == []


def test_each_tests_tabs_start_as_a_fresh_context_did(chromium, served_site):
    """The warm profiles (tests/support/browser.py) keep caches, never what a test stored: a palette
    choice or a cookie left by one test would change what the next one sees."""
    first = chromium.tabs(color_scheme="dark", has_touch=True, is_mobile=True, viewport={"width": 390, "height": 844})
    tab = first.new_page()
    tab.goto(f"{served_site}/")
    tab.evaluate("() => { localStorage.setItem('left-by-a-test', '1'); document.cookie = 'left=1'; }")
    seen = tab.evaluate("() => [innerWidth, matchMedia('(prefers-color-scheme: dark)').matches, matchMedia('(pointer: coarse)').matches]")
    assert seen == [390, True, True]
    first.close()
    assert tab.is_closed()
    second = chromium.tabs(has_touch=True, is_mobile=True, viewport={"width": 400, "height": 700})
    try:
        tab = second.new_page()
        tab.goto(f"{served_site}/")
        seen = tab.evaluate("() => [localStorage.getItem('left-by-a-test'), document.cookie, innerWidth, "
                            "matchMedia('(prefers-color-scheme: dark)').matches]")
        assert seen == [None, "", 400, False]
    finally:
        second.close()
