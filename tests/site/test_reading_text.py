"""What a reader reads on the built site: no build vocabulary, no maintainer notes, results before code.

Checked on the built HTML with the standard library, outside code (a code block may name a package
function; prose may not use the word).
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.site

NOT_TEXT = re.compile(r"<(script|style|pre|code|template|svg)\b.*?</\1>", re.S | re.I)
# What a reader can read, popovers included (`opened_pages`: each body from the page's provenance.json).
NOT_READ = re.compile(r"<(script|style|pre|code|svg)\b.*?</\1>", re.S | re.I)


def page_text(html: str, hidden: re.Pattern = NOT_TEXT) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", hidden.sub(" ", html)))


def test_no_page_says_seed(opened_pages):
    hits = [f"{path}: …{m.group(0)}…" for path, html in opened_pages.items() if path.endswith(".html")
            for m in re.finditer(r".{0,40}\bseeds?\b.{0,40}", page_text(html, NOT_READ), re.I)]
    assert not hits, hits[:10]


def test_hardware_notes_are_for_readers(site_pages):
    text = page_text(site_pages["hardware/index.html"])
    # Both maintainer lines the review found, by their words (hardware.toml keeps them).
    assert "Old source_url" not in text and "corrected 80" not in text
    assert "sparsity" in text, "the reader's part of the notes is gone too"


def test_executed_results_come_before_their_folded_code(site_pages):
    html = site_pages["decode/index.html"]
    result = html.index('class="highlight rl-result"')
    code = html.index('<details class="rl-code" data-search-exclude><summary>Show code</summary>')
    assert result < code
