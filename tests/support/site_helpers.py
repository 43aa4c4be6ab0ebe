"""Helpers shared by the built-site tests: a spec edit, a page's visible text, keyboard travel,
popovers opened from each page's provenance.json, glossary cards from its cards.json."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tools.scale_registry import with_h100_bandwidth  # noqa: F401 — the tests' spec edit


def visible_text(html: str) -> str:
    """A page's text without tags or number popovers (popovers hold the inputs, not the result)."""
    html = re.sub(r'<span class="rl-prov".*?</span></span>', "</span>", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def tab_until(page, css_class: str, what: str, limit: int = 200) -> None:
    """Press Tab until the focused element has `css_class`; fail naming `what` if it never does."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement.classList.contains('{css_class}')"):
            return
    pytest.fail(f"Tab never reached {what}")


# A built page carries each number's popover empty: <span class="rl-prov" id="..." ...></span>.
EMPTY_POPOVER = re.compile(r'(<span class="rl-prov" id="([\w-]+)"[^>]*>)</span>')


def page_popovers(site_dir: Path, page: str) -> dict[str, str]:
    """{popover id: body HTML} from the provenance.json beside `page` ({} where there is none)."""
    path = (site_dir / page).parent / "provenance.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def page_cards(site_dir: Path, page: str) -> dict[str, str]:
    """{term slug: card body HTML} from the cards.json beside `page` ({} where there is none)."""
    path = (site_dir / page).parent / "cards.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def opened(html: str, bodies: dict[str, str], page: str = "page", cards: dict[str, str] | None = None) -> str:
    """The page as a reader finds it with every popover opened: each body from provenance.json in its
    popover, as provenance.js puts it there. A popover whose body is missing fails the test. `cards`
    (from cards.json) go back at the end of the article, each in its card, as glossary.js makes them."""
    missing = [m.group(2) for m in EMPTY_POPOVER.finditer(html) if m.group(2) not in bodies]
    assert not missing, f"{page}: popovers with no body in provenance.json: {missing[:5]}"
    html = EMPTY_POPOVER.sub(lambda m: m.group(1) + bodies[m.group(2)] + "</span>", html)
    if cards:
        spans = "".join(f'<span class="gl-card" role="tooltip" id="gl-card-{slug}" hidden>{body}</span>'
                        for slug, body in cards.items())
        assert html.count("</article>") == 1, f"{page}: cards need the one article to go into"
        html = html.replace("</article>", f'<div class="gl-cards" hidden data-search-exclude>{spans}</div></article>')
    return html


#: An open number popover whose body (provenance.json, fetched on first use) has not come yet.
POPOVER_LOADING = ".rl-num.rl-open .rl-prov.rl-loading"


def wait_for_popover(tab) -> None:
    """Wait until no open popover is still loading its body."""
    tab.wait_for_function(f"!document.querySelector('{POPOVER_LOADING}')", timeout=10_000)


#: Request schemes that never leave the machine.
LOCAL_SCHEMES = ("data:", "blob:", "about:", "chrome-extension:")


def pages_a_reader_clicks_through(site_pages) -> list[str]:
    """Home, every top-level page, and the first glossary entry (paths of built HTML files)."""
    top = sorted(p for p in site_pages if p.count("/") == 1 and p.endswith("/index.html")
                 and not p.startswith("glossary/"))
    glossary = sorted(p for p in site_pages if p.startswith("glossary/") and p.count("/") == 2)
    return ["index.html", *top, *glossary[:1]]


