"""Screenshots of every built page at a phone and a desktop size, light and dark, for review.

Usage: python -m tools.screenshots [SITE_DIR] [OUT_DIR] [--pages decode/,batching/] [--full]
(`make screenshots` builds the site first and writes screenshots/, which git ignores.)
Each file is <page>-<width>-<scheme>.png; the phone size emulates touch. Offline: the site is
served from 127.0.0.1 and Debian's Chromium (/usr/bin/chromium) renders it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.support.browser import CHROMIUM, CHROMIUM_FLAGS, LAPTOP, PHONE  # the tests' browser and sizes
from tools.server import serve  # the one static server, shared with the tests

#: (name, Playwright context options): a phone a reader opens a pasted link on, and a laptop.
SIZES = ((str(PHONE["viewport"]["width"]), PHONE), (str(LAPTOP["viewport"]["width"]), LAPTOP))
SCHEMES = ("light", "dark")


def page_urls(site: Path) -> list[str]:
    """Every content page of the built site, as a site-relative URL ('' for the home page)."""
    out = []
    for p in sorted(site.rglob("index.html")):
        text = p.read_text(encoding="utf-8", errors="replace")
        if "md-content__inner" not in text:  # redirect stubs
            continue
        out.append(p.parent.relative_to(site).as_posix().removeprefix("."))
    return [u + "/" if u else "" for u in out]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", nargs="?", default="site")
    ap.add_argument("out", nargs="?", default="screenshots")
    ap.add_argument("--pages", default="", help="comma-separated page URLs (default: every page)")
    ap.add_argument("--full", action="store_true", help="the whole page, not only the first screen")
    args = ap.parse_args(argv)
    site, out = Path(args.site), Path(args.out)
    if not (site / "index.html").exists():
        print(f"error: no built site at {site}/ (run `make site` first)", file=sys.stderr)
        return 2
    if not Path(CHROMIUM).exists():
        print(f"error: Chromium not found at {CHROMIUM} (apt-get install chromium)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    urls = [u.strip() for u in args.pages.split(",") if u.strip()] or page_urls(site)
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    with serve(site, local_sitemap=True) as base_url:
        base = base_url.rstrip("/")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
            for size, options in SIZES:
                for scheme in SCHEMES:
                    ctx = browser.new_context(**options, color_scheme=scheme, device_scale_factor=1)
                    tab = ctx.new_page()
                    for url in urls:
                        tab.goto(f"{base}/{url}", wait_until="load")
                        name = (url.strip("/").replace("/", "_") or "home")
                        tab.screenshot(path=str(out / f"{name}-{size}-{scheme}.png"), full_page=args.full)
                        count += 1
                    ctx.close()
            browser.close()
    print(f"wrote {count} screenshots of {len(urls)} pages into {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
