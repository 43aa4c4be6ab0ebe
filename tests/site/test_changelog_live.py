"""The changelog ends at the live numbers, so no old figure reads as current: its newest value for each quoted
number is the one the site prints today. `make changelog` regenerates the unreleased section
(numbers_diff against the tree that recorded the last release); when it is stale, this fails."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from roofline_site.release.changelog import load, load_unreleased

pytestmark = pytest.mark.site


def _page(row_page: str) -> str:
    """A changelog row's source path as numbers.json names the page: docs/decode.md -> decode.md, glossary/hardware/hbm.md -> glossary/<slug>.md."""
    if row_page.startswith("docs/"):
        return row_page[len("docs/"):]
    if row_page.startswith("glossary/"):
        return "glossary/" + row_page.rsplit("/", 1)[-1]
    return row_page


@pytest.fixture(scope="module")
def live(site_dir):
    by_expr, by_label = defaultdict(set), defaultdict(set)
    for r in json.loads((site_dir / "numbers.json").read_text(encoding="utf-8")):
        by_expr[(r["page"], r["expr"])].add(r["text"])
        by_label[(r["page"], r["label"])].add(r["text"])
    return by_expr, by_label


def test_the_unreleased_sections_values_are_the_live_ones(live):
    by_expr, _ = live
    unreleased = load_unreleased()
    assert unreleased is not None, "no unreleased section: run `make changelog`"
    stale = [f"{c.page}: {c.expr.split(' -> ')[-1]} says {c.new!r}, the site prints {sorted(by_expr[key])}"
             for c in unreleased.changes if c.kind == "number"
             for key in [(_page(c.page), c.expr.split(" -> ")[-1])] if key in by_expr and c.new not in by_expr[key]]
    assert stale == [], "the changelog's unreleased section is stale; run `make changelog`:\n" + "\n".join(stale[:15])


def test_the_last_releases_values_are_live_unless_the_unreleased_section_moves_them(live):
    # The case: v0.2.0 says "446 tokens/s" where the page prints 417; the unreleased section
    # must carry that change, or the changelog would end at a number the site no longer shows.
    _, by_label = live
    unreleased = load_unreleased()
    moved = {(_page(c.page), c.label) for c in (unreleased.changes if unreleased else ())}
    last = load()[-1]
    stale = [f"{c.page}: {c.label}: v{last.version} says {c.new!r}, the site prints {sorted(by_label[key])}"
             for c in last.changes if c.kind == "number"
             for key in [(_page(c.page), c.label)]
             if key not in moved and key in by_label and c.new not in by_label[key]]
    assert stale == [], "the changelog does not end at the live numbers; run `make changelog`:\n" + "\n".join(stale[:15])


def test_the_changelog_page_shows_the_unreleased_section_first(site_pages):
    page = site_pages["changelog/index.html"]
    assert "Unreleased" in page and page.index("Unreleased") < page.index("v0.2.0")
