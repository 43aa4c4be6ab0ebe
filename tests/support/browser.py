"""The site build and the browser the site tests and `make bench` share.

Browser tests use Debian's Chromium through Playwright (never `playwright install`): its headless
shell (package chromium-headless-shell, the same Blink without the desktop browser around it) where it
is installed, else the full browser. Without either they are skipped with a reason, unless
ROOFLINE_REQUIRE_BROWSER=1 (set by .ci/run), which turns the skip into a failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit
from tests.conftest import ROOT

# The headless shell is what Playwright itself runs headless: a quarter less CPU for the same pages
# (the reading walk at 390 px: 68 CPU-s of Chromium against 90, mostly the desktop browser process
# and its zygote). Lighthouse (tools/bench.py) keeps the full browser, as readers run it.
SHELL, FULL = Path("/usr/bin/chromium-headless-shell"), Path("/usr/bin/chromium")
CHROMIUM = os.environ.get("ROOFLINE_CHROMIUM") or str(SHELL if SHELL.exists() else FULL)
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# The two sizes the site is read at (Playwright context options): a phone with touch, where many
# readers open a link pasted in a chat, and a laptop.
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
LAPTOP = {"viewport": {"width": 1280, "height": 900}}


def build_site(dest: Path, env_extra: dict | None = None, root: Path = ROOT) -> subprocess.CompletedProcess:
    """A strict mkdocs build of the project at `root` into `dest`."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true", **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)],
                          cwd=root, env=env, capture_output=True, text=True)


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None when Chromium is installed."""
    if Path(CHROMIUM).exists():
        return None
    return f"Debian chromium not found at {CHROMIUM} (apt-get install chromium-headless-shell chromium)"


class Tabs:
    """Tabs at one size, touch and colour scheme: what a fresh Playwright context gave a test (its own
    viewport, scheme, routes, init scripts, cookies and storage), opened on a warm profile.

    Routes and init scripts apply to the tabs opened after them. `first_visit` turns the HTTP cache
    off in its tabs, for the checks of what a page does as it arrives (layout shift, figures filling
    their boxes): a reader's first visit has nothing cached.
    """

    def __init__(self, context, viewport: dict | None, color_scheme: str, first_visit: bool):
        self._context, self._viewport, self._scheme, self._first_visit = context, viewport, color_scheme, first_visit
        self._pages, self._routes, self._scripts, self._origins = [], [], [], set()

    def route(self, url, handler) -> None:
        self._routes.append((url, handler))

    def add_init_script(self, script: str) -> None:
        self._scripts.append(script)

    def new_page(self):
        page = when_ready(self._context.new_page())
        self._pages.append(page)
        page.on("framenavigated", lambda frame: self._origins.add(_origin(frame.url)))
        page.set_viewport_size(self._viewport or DEFAULT_VIEWPORT)
        page.emulate_media(color_scheme=self._scheme)
        if self._first_visit:
            page.context.new_cdp_session(page).send("Network.setCacheDisabled", {"cacheDisabled": True})
        for url, handler in self._routes:
            page.route(url, handler)
        for script in self._scripts:
            page.add_init_script(script)
        return page

    def close(self) -> None:
        """Close its tabs, then forget what they stored, so the next tabs start as a fresh context did."""
        for page in self._pages:
            if not page.is_closed():
                page.close()
        _forget(self._context, self._origins - {None})


# The site's scripts start once a page's first paint is on screen (overrides/partials/scripts.js); on
# a local server that can come after the load event. A page is set up, as a reader who taps it finds it,
# once they have run; a page without the loader (a redirect stub, another site) is ready on load.
READY = "() => !window.__rlLoad || window.__rlReady === true"


def when_ready(page):
    """`page`, whose goto and reload return once the page's scripts have run (when they waited for the
    load event or the network going idle, as a test that then acts on the page does)."""
    def waiting(navigate):
        def go(*args, **kwargs):
            response = navigate(*args, **kwargs)
            if kwargs.get("wait_until", "load") in ("load", "networkidle"):
                page.wait_for_function(READY)
            return response
        return go

    page.goto, page.reload = waiting(page.goto), waiting(page.reload)
    return page


def _origin(url: str) -> str | None:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else None


# Playwright's viewport for a context opened without one.
DEFAULT_VIEWPORT = {"width": 1280, "height": 720}
# What a test's tabs may leave behind that the next test's would read (never the HTTP or code cache).
STORED = "cookies,local_storage,indexeddb,cache_storage,service_workers,file_systems"


class WarmChromium:
    """The Chromium of one test worker, on a profile that keeps its caches between tests.

    A fresh Playwright context is an incognito profile: it has no V8 code cache, so every new tab
    compiled Material's bundle and our scripts again, about half of what loading a page cost (1.07
    against 0.54 CPU-seconds for a glossary entry in a new tab, on this machine). Tests ask for
    `tabs(...)` with the options they gave `new_context`; each touch/mobile setting gets one
    persistent profile, launched on first use, and a Tabs' viewport and scheme are set on each of
    its pages.
    """

    def __init__(self, playwright, profiles: Path):
        self._playwright, self._profiles = playwright, profiles
        self._contexts: dict[tuple[bool, bool], object] = {}

    def tabs(self, *, viewport: dict | None = None, has_touch: bool = False, is_mobile: bool = False,
             color_scheme: str = "light", first_visit: bool = False) -> Tabs:
        key = (has_touch, is_mobile)
        if key not in self._contexts:
            self._contexts[key] = self._playwright.chromium.launch_persistent_context(
                self._profiles / f"touch{int(has_touch)}-mobile{int(is_mobile)}", executable_path=CHROMIUM,
                headless=True, args=CHROMIUM_FLAGS, viewport=LAPTOP["viewport"], has_touch=has_touch,
                is_mobile=is_mobile)
        return Tabs(self._contexts[key], viewport, color_scheme, first_visit)

    def close(self) -> None:
        for context in self._contexts.values():
            context.close()


def _forget(context, origins: set[str]) -> None:
    """Clear the cookies, and each origin's storage, of a persistent profile."""
    context.clear_cookies()
    if not origins:
        return
    keeper = context.pages[0] if context.pages else context.new_page()
    cdp = context.new_cdp_session(keeper)
    for origin in sorted(origins):
        cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": STORED})
    cdp.detach()
