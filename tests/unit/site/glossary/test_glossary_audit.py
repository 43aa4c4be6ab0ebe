"""The glossary audit holds: every entry has a hand-checked claim, and each checked claim still reads as
it was checked, at the number it was checked at (tests/glossary_audit.toml)."""

from __future__ import annotations

import pytest

from roofline_site.glossary.entries import load_glossary
from tests.support.glossary_audit import digest, rows, sentence_with, shown

ROWS = rows()
GLOSSARY = load_glossary()


def _id(row) -> str:
    return f"{row.entry}:{(row.anchor or 'definition')[:30]}"


def _sentence(row) -> str:
    entry = GLOSSARY.get(row.entry)
    return sentence_with(entry.summary, entry.summary[:30]) if not row.anchor else sentence_with(entry.body, row.anchor)


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_a_checked_sentence_reads_as_it_was_checked(row):
    assert row.entry in GLOSSARY.by_slug, f"{row.entry}: no such entry; drop or move the row"
    sentence = _sentence(row)
    assert sentence, f"{row.entry}: no sentence holds {row.anchor!r}; re-check the claim ({row.claim}) and re-anchor it"
    assert digest(sentence) == row.sentence, (
        f"{row.entry}: the checked sentence changed ({row.claim}). Re-check it against: {row.check}\n"
        f"then set sentence = \"{digest(sentence)}\" in tests/glossary_audit.toml. It now reads: {sentence}")


@pytest.mark.parametrize("row", [r for r in ROWS if r.token], ids=_id)
def test_a_checked_number_is_the_number_that_was_checked(row):
    now = shown(GLOSSARY.get(row.entry), row.token)
    assert now == row.shown, (
        f"{row.entry}: {row.token} now renders {now!r}, checked at {row.shown!r} ({row.claim}). "
        f"Re-check it against: {row.check}; then set shown = {now!r}.")


def test_every_entry_has_a_checked_claim():
    assert sorted(set(GLOSSARY.by_slug) - {r.entry for r in ROWS}) == []
    # Where an entry shows numbers, the audit checks one of them.
    with_numbers = {e.slug for e in GLOSSARY.entries if "{{" in e.body}
    checked_numbers = {r.entry for r in ROWS if r.token}
    assert len(checked_numbers & with_numbers) >= 0.75 * len(with_numbers)


def test_every_row_says_how_it_was_checked_and_its_verdict():
    for r in ROWS:
        assert r.claim and r.check, _id(r)
        assert r.verdict == "correct" or r.verdict.startswith("corrected: "), f"{_id(r)}: verdict {r.verdict!r}"
        assert bool(r.token) == bool(r.shown), f"{_id(r)}: a token needs the text it rendered when checked"


def test_an_edited_sentence_is_flagged():
    # One word changed in a checked sentence gives another digest; a missing anchor finds nothing.
    body = "Intro.\n\nThe ridge is {{ ridge(hw) }} on the H100. Next sentence.\n"
    one = sentence_with(body, "The ridge is")
    assert one == "The ridge is {{ ridge(hw) }} on the H100."
    assert digest(one) != digest(sentence_with(body.replace("on the H100", "on an H100"), "The ridge is"))
    assert sentence_with(body, "no such phrase") == ""
