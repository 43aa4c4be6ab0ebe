"""The strict build: every page present, every token rendered, no unexecuted fence."""

import json


def test_no_unexecuted_exec_fences(site_pages):
    offenders = [p for p, html in site_pages.items() if 'exec="on"' in html or "exec=&quot;on&quot;" in html]
    assert offenders == []


def test_no_unrendered_tokens(site_pages):
    import re

    for path, html in site_pages.items():
        prose = re.sub(r"<(pre|code)\b.*?</\1>", "", html, flags=re.S)
        assert "{{" not in prose, f"a token survived into {path}"


def test_numbers_manifest_lists_rendered_numbers(site_dir, site_pages):
    records = json.loads((site_dir / "numbers.json").read_text())
    assert records, "no token rendered anywhere"
    with_popover = [r for r in records if not r["plain"]]
    assert sum(html.count('class="rl-num"') for html in site_pages.values()) == len(with_popover)


def test_nothing_says_nan(site_pages):
    import re

    for path, html in site_pages.items():
        text = re.sub(r"<(script|style)\b.*?</\1>|<[^>]+>", " ", html, flags=re.S)
        # "Infinity Fabric" is AMD's interconnect, a name; a bare Infinity is a broken number.
        assert not re.search(r"\b(NaN|undefined)\b|\bInfinity\b(?! Fabric)", text), path
