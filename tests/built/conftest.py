"""Fixtures over the built site: one strict build per test session, a local server, a browser.

Browser tests use Debian's Chromium through Playwright (never `playwright install`).
Without /usr/bin/chromium they are skipped with a reason, unless ROOFLINE_REQUIRE_BROWSER=1
(set by .ci/run), which turns the skip into a failure.
"""

from __future__ import annotations

import functools
import http.server
import os
import socketserver
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("ROOFLINE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def build_site(dest: Path, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    """A strict mkdocs build of this checkout into `dest`."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true", **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)],
                          cwd=ROOT, env=env, capture_output=True, text=True)


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory) -> Path:
    """The site, built once per session with `mkdocs build --strict`."""
    dest = tmp_path_factory.mktemp("site") / "site"
    proc = build_site(dest)
    if proc.returncode != 0:
        pytest.fail(f"strict build failed:\n{proc.stderr[-4000:]}", pytrace=False)
    return dest


@pytest.fixture(scope="session")
def site_pages(site_dir) -> dict[str, str]:
    """{path relative to site/: html} for every built HTML page."""
    return {p.relative_to(site_dir).as_posix(): p.read_text(encoding="utf-8") for p in site_dir.rglob("*.html")}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def served_site(site_dir):
    """Base URL of the built site served on 127.0.0.1 (a free port)."""
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
    socketserver.TCPServer.allow_reuse_address = True
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _require_browser():
    if not Path(CHROMIUM).exists():
        reason = f"Debian chromium not found at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("ROOFLINE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required here (ROOFLINE_REQUIRE_BROWSER=1) but {reason}", pytrace=False)
        pytest.skip(reason)


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """A headless Debian Chromium driven by Playwright, with a fresh profile."""
    _require_browser()
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 900})
        yield ctx
        ctx.close()


@pytest.fixture
def page(browser, served_site):
    """A fresh tab; records every request so tests can assert nothing left localhost."""
    tab = browser.new_page()
    tab.requests_seen = []
    tab.on("request", lambda r: tab.requests_seen.append(r.url))
    tab.base_url = served_site
    yield tab
    tab.close()
