"""The prose an author edits reads as prose: token markup is short and sparse on every page.

The measure, per page (docs/*.md and glossary entries):
- a token's length is its expression: the characters between `{{` and `}}`, trimmed, as a reader
  counts them; the braces are the fixed quote every number needs, as `**`
  is to bold. Tokens inside code are not tokens;
- markup share = the characters of the page's token expressions ÷ the characters of its body. The
  body is the file after its front matter, code blocks included (as an author sees a page).
  Front-matter `bindings:` are not counted: they are declarations an author reads once, like an
  import block, and keeping them out of the sentences is the point of them.
Targets: no token over 120 characters; under 15 % markup on every page; tokens average
under 35 characters on a teaching page (docs/).
"""

from __future__ import annotations

import pytest
from mkdocs.utils.meta import get_data

from roofline_site.numbers.tokens import token_matches
from tests.conftest import ROOT

MAX_TOKEN_CHARS = 120
MAX_MARKUP_SHARE = 0.15
MAX_AVERAGE_CHARS = 35

def pages() -> list[str]:
    docs = sorted(p for p in (ROOT / "docs").glob("*.md") if "{{" in p.read_text(encoding="utf-8"))
    glossary = sorted(p for p in (ROOT / "glossary").glob("*/*.md") if "{{" in p.read_text(encoding="utf-8"))
    return [p.relative_to(ROOT).as_posix() for p in docs + glossary]


def measure(text: str) -> dict:
    """Token count, longest and average token, and markup share of one page's source."""
    body, _ = get_data(text)
    lengths = [len(m.group(1).strip()) for m in token_matches(body)]
    return {"tokens": len(lengths), "longest": max(lengths, default=0),
            "average": sum(lengths) / len(lengths) if lengths else 0.0,
            "share": sum(lengths) / len(body) if body else 0.0}


def failures(path: str, m: dict) -> list[str]:
    out = []
    if m["longest"] > MAX_TOKEN_CHARS:
        out.append(f"a token of {m['longest']} characters inside its braces (at most {MAX_TOKEN_CHARS})")
    if m["share"] > MAX_MARKUP_SHARE:
        out.append(f"{m['share']:.1%} markup (at most {MAX_MARKUP_SHARE:.0%})")
    if path.startswith("docs/") and m["average"] >= MAX_AVERAGE_CHARS:
        out.append(f"tokens average {m['average']:.1f} characters (under {MAX_AVERAGE_CHARS})")
    return out


def test_the_measure_counts_what_an_author_reads():
    # A 100-character body (7 + 9 + 4 + 22 + 1 + 57) with two tokens, "{{ ctx }}" and "{{ mid.tokens_per_s }}":
    # expressions of 3 and 16 characters, so 19 % markup, average 9.5, longest 16; front matter counts for nothing.
    body = "Decode {{ ctx }} at {{ mid.tokens_per_s }}." + "x" * 57
    assert len(body) == 100
    m = measure("---\nbindings:\n  ctx: example('medium_context')\n---\n" + body)
    assert (m["tokens"], m["longest"], m["average"], m["share"]) == (2, 16, 9.5, 0.19)
    assert failures("docs/p.md", m) == ["19.0% markup (at most 15%)"]
    assert measure("Code `{{ not a token }}` only.")["tokens"] == 0


@pytest.mark.parametrize("path", pages())
def test_page_markup_meets_the_targets(path):
    m = measure((ROOT / path).read_text(encoding="utf-8"))
    found = failures(path, m)
    assert not found, f"{path}: {'; '.join(found)} (name workloads once in front-matter bindings)"
