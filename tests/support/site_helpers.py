"""Helpers shared by the built-site tests: a spec edit, a page's visible text, keyboard travel."""

from __future__ import annotations

import re

import pytest

H100_BANDWIDTH = "memory_bandwidth_TB_per_s = 3.35"


def with_h100_bandwidth(registry_text: str, new_bandwidth: str) -> str:
    """hardware.toml's text with the H100 SXM5's memory bandwidth (TB/s) set to `new_bandwidth`."""
    block = registry_text.index('id = "h100-sxm5"')
    end = registry_text.index("[[device]]", block)
    h100 = registry_text[block:end]
    assert h100.count(H100_BANDWIDTH) == 1, "the H100 SXM5 entry no longer reads 3.35 TB/s; update this test"
    return (registry_text[:block] + h100.replace(H100_BANDWIDTH, f"memory_bandwidth_TB_per_s = {new_bandwidth}")
            + registry_text[end:])


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
