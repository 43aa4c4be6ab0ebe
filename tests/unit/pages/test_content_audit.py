"""The content audit holds: every checked claim still reads as it was checked, at the number it was
checked at, and every explainer page has claims in it (tests/content_audit.toml)."""

from __future__ import annotations

import pytest

from tests.support.content_audit import digest, entries, sentence_with, shown
from tests.conftest import ROOT

DOCS = ROOT / "docs"
ENTRIES = entries()


def _id(e) -> str:
    return f"{e.page}:{e.anchor[:30]}"


@pytest.mark.parametrize("entry", ENTRIES, ids=_id)
def test_a_checked_sentence_reads_as_it_was_checked(entry):
    text = (DOCS / entry.page).read_text(encoding="utf-8")
    sentence = sentence_with(text, entry.anchor)
    assert sentence, f"{entry.page}: no sentence holds {entry.anchor!r}; re-check the claim ({entry.claim}) and re-anchor it"
    assert digest(sentence) == entry.sentence, (
        f"{entry.page}: the checked sentence changed ({entry.claim}). Re-check it against: {entry.check}\n"
        f"then set sentence = \"{digest(sentence)}\" in tests/content_audit.toml. It now reads: {sentence}")


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.token], ids=_id)
def test_a_checked_number_is_the_number_that_was_checked(entry):
    now = shown(entry.page, entry.token)
    assert now == entry.shown, (
        f"{entry.page}: {entry.token} now renders {now!r}, checked at {entry.shown!r} ({entry.claim}). "
        f"Re-check it against: {entry.check}; then set shown = {now!r}.")


def test_every_explainer_page_has_checked_claims():
    pages = {p.name for p in DOCS.glob("*.md")}
    counts = {p: sum(e.page == p for e in ENTRIES) for p in pages}
    # Each page has at least one checked claim; the explainer pages, which carry the numbers, two or more.
    assert all(n >= 1 for n in counts.values()), {p: n for p, n in counts.items() if n < 1}
    explainers = pages - {"changelog.md", "serving.md", "measure.md"}
    assert all(counts[p] >= 2 for p in explainers), {p: counts[p] for p in explainers if counts[p] < 2}
    assert len(ENTRIES) >= 50


def test_every_entry_says_how_it_was_checked_and_its_verdict():
    for e in ENTRIES:
        assert e.claim and e.check, _id(e)
        assert e.verdict == "correct" or e.verdict.startswith("corrected"), f"{_id(e)}: verdict {e.verdict!r}"
        assert bool(e.token) == bool(e.shown), f"{_id(e)}: a token needs the text it rendered when checked"


def test_an_edited_sentence_or_number_is_flagged():
    # The check can fail: one word changed in a checked sentence gives another digest, and the anchor
    # of a sentence split in two finds only its own half.
    md = "Intro.\n\nThe ridge is {{ ridge(hw) }} on the H100. Next sentence.\n"
    one = sentence_with(md, "The ridge is")
    assert one == "The ridge is {{ ridge(hw) }} on the H100."
    assert digest(one) != digest(sentence_with(md.replace("on the H100", "on an H100"), "The ridge is"))
    assert sentence_with(md, "no such phrase") == ""
