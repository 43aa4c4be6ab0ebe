"""Fixtures over the built site: one strict build per test session, a local server, a browser.

The build and browser set-up live in tests/support/browser.py, shared with `make bench`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.browser import LAPTOP, WarmChromium, browser_missing
from tests.support.session_site import build_once
from tools.server import serve
from tests.conftest import ROOT



@pytest.fixture(scope="session")
def site_dir(tmp_path_factory, worker_id) -> Path:
    """The site, built once per session with `mkdocs build --strict` (tests/support/session_site.py).

    Under pytest-xdist the controller starts the build as the run begins, into the run's shared
    temporary folder; every worker waits on its lock and reads the same tree (or its failure).
    """
    shared = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    dest, failed = build_once(shared)
    if failed.exists():
        pytest.fail(f"strict build failed:\n{failed.read_text()}", pytrace=False)
    return dest


@pytest.fixture(scope="session")
def site_pages(site_dir) -> dict[str, str]:
    """{path relative to site/: html} for every built HTML page."""
    return {p.relative_to(site_dir).as_posix(): p.read_text(encoding="utf-8") for p in site_dir.rglob("*.html")}


@pytest.fixture(scope="session")
def opened_pages(site_dir, site_pages) -> dict[str, str]:
    """{path: html} with every number's popover opened (its body read from the page's provenance.json)
    and its glossary cards in place (from its cards.json)."""
    from tests.support.site_helpers import opened, page_cards, page_popovers

    return {path: opened(html, page_popovers(site_dir, path), path, page_cards(site_dir, path))
            for path, html in site_pages.items()}


@pytest.fixture(scope="session")
def served_site(site_dir):
    """Base URL (no trailing slash) of the built site served on 127.0.0.1 by tools/server.py, its
    sitemap naming this address as Pages's names its own (so Material navigates instantly, as there)."""
    with serve(site_dir, local_sitemap=True) as base:
        yield base.rstrip("/")


def _require_browser():
    if reason := browser_missing():
        if os.environ.get("ROOFLINE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required here (ROOFLINE_REQUIRE_BROWSER=1) but {reason}", pytrace=False)
        pytest.skip(reason)


@pytest.fixture(scope="session")
def playwright_session():
    """The one Playwright driver of the session (a second sync driver in one process is refused)."""
    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(chromium):
    """The session's tabs at laptop size, shared by the tests that take `page`."""
    tabs = chromium.tabs(viewport=LAPTOP["viewport"])
    yield tabs
    tabs.close()


@pytest.fixture
def page(browser, served_site):
    """A fresh tab; records every request so tests can assert nothing left localhost."""
    tab = browser.new_page()
    tab.requests_seen = []
    tab.on("request", lambda r: tab.requests_seen.append(r.url))
    tab.base_url = served_site
    yield tab
    tab.close()


@pytest.fixture(scope="session")
def chromium(playwright_session, tmp_path_factory):
    """The headless Debian Chromium of a test worker, on warm profiles (tests/support/browser.py):
    each test (or the session's `browser`) opens its own tabs (viewport, touch, colour scheme)."""
    warm = WarmChromium(playwright_session, tmp_path_factory.mktemp("chromium-profiles"))
    yield warm
    warm.close()
