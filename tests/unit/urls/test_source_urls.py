"""Source URLs: refused at their reader when they could break a link, and escaped in every Markdown copy."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from roofline.errors import SpecError
from roofline.registry.hardware import devices
from roofline_site.glossary.entries import parse_entry
from roofline_site.glossary.records import GlossaryError
from roofline_site.html.markdown_copy import article_markdown
from tests.conftest import ROOT

H100_URL = 'source_url = "https://www.nvidia.com/en-us/data-center/h100/"'
HOSTILE_URLS = {
    "paren": "https://x.example/a)[pwn](javascript:alert(20)",
    "quote and angle": 'https://x.example/a"><img src=x onerror=alert(1)>',
    "space": "https://x.example/a b",
    "bidi": "https://x.example/\u202ecod.exe",
    "not https": "javascript:alert(1)",
}


@pytest.mark.parametrize("url", HOSTILE_URLS.values(), ids=HOSTILE_URLS.keys())
def test_a_spec_source_url_that_breaks_a_link_is_refused_in_one_line(spec_copy, run_cli, url):
    spec_copy("hardware.toml", lambda t: t.replace(H100_URL, "source_url = " + json.dumps(url), 1))
    with pytest.raises(SpecError, match="h100-sxm5: field 'source_url'"):
        devices()
    code, out, err = run_cli("hardware")
    assert code == 2 and out == "" and err.count("\n") == 1 and "source_url" in err, err


@pytest.mark.parametrize("url", HOSTILE_URLS.values(), ids=HOSTILE_URLS.keys())
def test_a_glossary_source_url_that_breaks_a_link_is_refused(tmp_path, url):
    src = ROOT / "glossary" / "hardware" / "hbm.md"
    entry = tmp_path / "glossary" / "hardware" / "hbm.md"
    entry.parent.mkdir(parents=True)
    text = src.read_text(encoding="utf-8")
    text, n = re.subn(r"url: \"?https://[^\s\"}]+\"?", lambda m: "url: '" + url.replace("'", "''") + "'", text, count=1)
    assert n == 1
    entry.write_text(text, encoding="utf-8")
    # Matched by name: a site test's hook may have reloaded the glossary modules, and with them the class.
    with pytest.raises(Exception) as err:
        parse_entry(entry, tmp_path)
    assert type(err.value).__name__ == GlossaryError.__name__
    said = str(err.value)
    assert said.startswith("glossary/hardware/hbm.md") and ("source 1's url" in said or "U+202E" in said), said


def test_a_link_destination_with_a_paren_stays_one_link_in_the_markdown_copy():
    page = ('<article class="md-content__inner"><p><a href="https://x.example/a)[pwn](javascript:alert(20)">spec</a>'
            ' <a href="https://x.example/&quot;&gt;&lt;b&gt;">two</a></p></article>')
    md = article_markdown(page)
    # By hand: the `)` `[` `]` `(` of the address are percent-encoded, so the copy has exactly two
    # links and neither destination holds a `javascript:` link of its own.
    assert "](javascript:" not in md and "[pwn]" not in md
    assert len(re.findall(r"\]\(", md)) == 2
    assert '"' not in md and "<b>" not in md
