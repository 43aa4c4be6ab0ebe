"""A page's front matter: known keys of their types, no key twice, no alias bomb, no control bytes."""

from __future__ import annotations

import time

import pytest

from roofline_site.front_matter import page_problem


@pytest.mark.parametrize("front,said", [
    ("title: [7, 8]", "field 'title' must be text, got a list"),
    ("titel: Roofline", "field 'titel' is not a front-matter field (did you mean 'title'?)"),
    ("title: A\ntitle: B", "field 'title' is given twice"),
    ('description: "a\\0b"', "control character U+0000"),
    ("description: \"\\u202eevil\"", "control character U+202E"),
])
def test_a_front_matter_no_page_can_publish_is_refused(front, said):
    assert said in page_problem(f"---\n{front}\n---\n# Page\n")


def test_an_alias_bomb_is_refused_at_once():
    # Nine levels of nine aliases: about 387 million strings if expanded; refused before any is.
    lines = ['a0: &a0 ["lol"]'] + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    start = time.monotonic()
    problem = page_problem("---\n" + "\n".join(lines) + "\ndescription: *a9\n---\n")
    assert "anchor or alias" in problem and time.monotonic() - start < 2


def test_the_pages_own_front_matter_passes():
    assert page_problem("---\nsearch:\n  boost: 2\nhide: [toc]\nbindings: {a: b}\n---\n# Page\n") is None
    assert page_problem("# No front matter\n") is None
