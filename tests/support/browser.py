"""The site build and the browser the site tests and `make bench` share.

Browser tests use Debian's Chromium through Playwright (never `playwright install`).
Without /usr/bin/chromium they are skipped with a reason, unless ROOFLINE_REQUIRE_BROWSER=1
(set by .ci/run), which turns the skip into a failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from tests.conftest import ROOT

CHROMIUM = os.environ.get("ROOFLINE_CHROMIUM", "/usr/bin/chromium")
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
    return f"Debian chromium not found at {CHROMIUM} (apt-get install chromium)"
