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
    ("description: \"\\u202eevil\"", "field 'description' holds the control character U+202E"),
    ("search:\n  boost: 2\ntitle: A \u202eB", "field 'title' (line 4) holds the control character U+202E"),
    # A title is one line of llms.txt and of the Markdown copies: a break in it would forge the next line.
    ('title: "A\\n# forged"', "field 'title' holds a line break (U+000A)"),
    ("description: |\n  a\n  b", "field 'description' holds a line break"),
    # Python converts no integer of more than 4,300 digits: a bare ValueError otherwise.
    ("description: 1" + "0" * 4400, "field 'description' (line 2) holds a number of thousands of digits"),
    ("hide: [toc]\nsearch: {boost: 1" + "0" * 4400 + "}", "field 'search' (line 3) holds a number of thousands"),
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
    # A long plain value folds into one line; an expression may span lines.
    assert page_problem("---\ndescription: a long\n  sentence\nbindings: {a: \"f(1,\\n 2)\"}\n---\n# Page\n") is None
    assert page_problem("# No front matter\n") is None
