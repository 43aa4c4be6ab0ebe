"""Every glossary entry earns its place on an explainer page, and every term of art a page uses has an entry.

The pages are read from their Markdown: code, tokens, math, HTML, links, headings and admonition
titles are removed first (no hover card goes into them), so what is left is the prose the card
matcher sees. tests/site/test_glossary_site.py checks the same on the built HTML.
"""

from __future__ import annotations

import re

import pytest

from roofline_site.glossary.coverage import NOT_TERMS, TERMS_OF_ART, undefined_terms, unmentioned
from roofline_site.glossary.entries import CATEGORIES, CATEGORY_INTROS, load_glossary
from tests.unit.pages.test_prose_numerals import STRIP
from tests.conftest import ROOT

MIN_ENTRIES = 90  # the breadth of peers' glossaries (Modal's GPU Glossary has about 90)

# Beyond the numerals test's STRIP: what the glossary pass skips as well.
NOT_CARDED = [
    re.compile(r"^#{1,6}\s.*$", re.M),                         # headings
    re.compile(r"\[[^\]]*\]\([^)]*\)"),                         # links, with their text
    re.compile(r"<summary>.*?</summary>", re.S),                # collapsible titles in HTML
    re.compile(r'<span data-glossary="off">.*?</span>', re.S),  # an author's opt-out
]
TITLES = re.compile(r"^\s*(!!!|\?\?\?\+?)\s.*$", re.M)      # admonition and collapsible titles


def prose(markdown: str) -> str:
    """The text of a page that hover cards may go into, same length as the source."""
    if markdown.startswith("---\n"):
        markdown = " " * (markdown.index("\n---", 4) + 4) + markdown[markdown.index("\n---", 4) + 4:]
    for pattern in [*NOT_CARDED, *STRIP, TITLES]:
        markdown = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), markdown)
    return markdown


@pytest.fixture(scope="module")
def glossary():
    return load_glossary()


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return {p.name: prose(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "docs").glob("*.md"))}


def test_the_glossary_has_at_least_ninety_entries(glossary):
    assert len(glossary.entries) >= MIN_ENTRIES


def test_every_category_has_a_one_sentence_introduction():
    assert set(CATEGORY_INTROS) == set(CATEGORIES)
    for cat, intro in CATEGORY_INTROS.items():
        assert intro.endswith(".") and ". " not in intro and len(intro.split()) >= 8, cat


def test_every_entry_is_mentioned_on_an_explainer_page_or_in_another_entry(glossary, pages):
    # An entry earns its place on a page that uses the term, or, for a term an engineer looks up
    # that no page needs yet (warp, top-p), in another entry that a reader reaches from a card.
    texts = [*pages.values()]
    missing = [slug for slug in unmentioned(glossary, texts)
               if not any(f"]({slug}.md" in e.body or slug in _mentioned_in(glossary, e.body)
                          for e in glossary.entries if e.slug != slug)]
    assert not missing, f"entries no page or other entry mentions (add a sentence where the term fits): {missing}"


def _mentioned_in(glossary, body: str) -> set[str]:
    from roofline_site.glossary.entries import find_mentions

    return {m.slug for m in find_mentions(re.sub(r"\{\{.*?\}\}", "", body), glossary)}


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "docs").glob("*.md")))
def test_every_term_of_art_on_a_page_has_an_entry(glossary, pages, name):
    found = undefined_terms(glossary, pages[name])
    assert not found, (f"{name} uses {sorted(found)} with no glossary entry or alias: add one, or, for a proper "
                       "name or unit, a line in coverage.NOT_TERMS")


# ---- the checks themselves can fail ------------------------------------------------------------
def test_an_unmentioned_entry_is_reported(glossary):
    # Only "ridge point" is mentioned: every other entry is reported, and the ridge point is not.
    missing = unmentioned(glossary, ["Find the ridge point first."])
    assert "ridge-point" not in missing and "decode" in missing and len(missing) == len(glossary.entries) - 1


@pytest.mark.parametrize("text, expected", [
    ("The XYZQ scheduler and the FooBar cache.", {"XYZQ", "FooBar"}),   # unknown acronym and CamelCase name
    ("NVIDIA and AMD ship CUDA and ROCm; sizes in GB.", set()),          # proper names and units
    ("GQA, the KV cache and the ridge point.", set()),                   # glossary names and aliases
    ("The H100 runs FP8.", set()),                                       # names with digits are products or formats
    ("The pareto frontier of a new design.", set()),                     # an alias in lower case still matches
])
def test_undefined_terms_finds_capitalised_words_no_entry_names(glossary, text, expected):
    assert undefined_terms(glossary, text) == expected


def test_a_listed_term_of_art_without_an_entry_is_reported(glossary):
    # Drop the goodput entry: the same sentence now names a term of art nobody defines.
    from dataclasses import replace

    from roofline_site.glossary.matching import compile_matcher

    entries = tuple(e for e in glossary.entries if e.slug != "goodput")
    matcher, groups = compile_matcher(entries)
    fewer = replace(glossary, entries=entries, matcher=matcher, group_slug=groups)
    assert undefined_terms(glossary, "Goodput counts requests on time.") == set()
    assert undefined_terms(fewer, "Goodput counts requests on time.") == {"goodput"}


def test_not_terms_holds_no_glossary_name(glossary):
    names = {n for e in glossary.entries for n in e.names}
    assert not NOT_TERMS & names
    assert all(t == t.strip() and t for t in TERMS_OF_ART)
