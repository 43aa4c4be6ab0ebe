"""The site opens in Debian Chromium with no request leaving localhost, and a number's provenance opens on focus."""

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
