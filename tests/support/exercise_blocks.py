"""Shared by the page tests: the `??? question` exercise blocks of a docs page and their answer tokens."""

from __future__ import annotations

import re

from roofline_site.numbers.bindings import bind
from roofline_site.numbers.tokens import TOKEN, evaluate
from tests.unit.pages.test_prose_numerals import bare_numerals  # noqa: F401  (re-exported for the page tests)
from tests.conftest import ROOT

QUESTION = re.compile(r'^\?\?\?\+? question "([^"]*)"\n((?:(?:    .*)?\n)+)', re.M)


def exercises(page: str) -> list[tuple[str, str]]:
    """(title, answer body) of every `??? question` block on docs/<page>."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8") + "\n"
    return [(m.group(1), m.group(2)) for m in QUESTION.finditer(text)]


def assert_every_exercise_is_checked(page: str, expected: dict) -> None:
    """docs/<page> has at least two exercises, and each has exactly one expected value in `expected`."""
    found = exercises(page)
    assert len(found) >= 2, f"{page} needs exercises"
    for title, _ in found:
        keys = [k for k in expected if k[0] == page and title.startswith(k[1])]
        assert len(keys) == 1, f"{page}: no expected value for the exercise {title!r}"


def assert_answer_matches(key: tuple[str, str], expected_value: float) -> None:
    """The exercise (page, title start) has no typed number, and one of its answer tokens equals `expected_value`."""
    import math

    page, start = key
    matches = [(t, body) for t, body in exercises(page) if t.startswith(start)]
    assert len(matches) == 1, f"{page}: exercise {start!r} not found"
    title, body = matches[0]
    assert not bare_numerals(title), f"typed number in the question {title!r}"
    assert not bare_numerals(body), f"typed number in the answer to {title!r}"
    namespace = page_namespace(page)
    values = [float(v.value) for v in (evaluate(e.strip(), namespace) for e in TOKEN.findall(body))
              if hasattr(v, "value") and hasattr(v, "unit")]
    assert values, f"the answer to {title!r} has no number token"
    assert any(math.isclose(v, expected_value, rel_tol=1e-9) for v in values), (
        f"{page}: answer to {title!r} shows {values}, the package computes {expected_value}")


def page_namespace(page: str) -> dict:
    """The token namespace of docs/<page>, with the bindings its front matter declares."""
    from mkdocs.utils.meta import get_data

    from roofline.quantities import NAMESPACE

    _, meta = get_data((ROOT / "docs" / page).read_text(encoding="utf-8"))
    return {**NAMESPACE, **bind(meta.get("bindings"), page, dict(NAMESPACE), evaluate).values}


def exercise_tests(pages: tuple[str, ...], expected: dict):
    """The two tests a page-test module runs over its pages' exercises, as (every page checked, each answer).

    Bind both at module level so pytest collects them:
    `test_every_page_has_checked_exercises, test_exercise_answer_is_a_token_equal_to_the_hand_value = exercise_tests(...)`.
    """
    import pytest

    @pytest.mark.parametrize("page", pages)
    def test_every_page_has_checked_exercises(page):
        assert_every_exercise_is_checked(page, expected)

    @pytest.mark.parametrize("key", sorted(expected), ids=lambda k: f"{k[0]}:{k[1][:30]}")
    def test_exercise_answer_is_a_token_equal_to_the_hand_value(key):
        assert_answer_matches(key, float(expected[key]()))

    return test_every_page_has_checked_exercises, test_exercise_answer_is_a_token_equal_to_the_hand_value
