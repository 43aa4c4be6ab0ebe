"""Shared by the page tests: the `??? question` exercise blocks of a docs page and their answer tokens."""

from __future__ import annotations

import re
from pathlib import Path

from test_prose_numerals import bare_numerals  # noqa: F401  (re-exported for the page tests)

ROOT = Path(__file__).resolve().parents[1]
QUESTION = re.compile(r'^\?\?\?\+? question "([^"]*)"\n((?:(?:    .*)?\n)+)', re.M)
TOKEN = re.compile(r"\{\{(.+?)\}\}", re.S)


def exercises(page: str) -> list[tuple[str, str]]:
    """(title, answer body) of every `??? question` block on docs/<page>."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8") + "\n"
    return [(m.group(1), m.group(2)) for m in QUESTION.finditer(text)]


def evaluate(expr: str):
    """Evaluate one answer token the way the site's token hook does."""
    from roofline.quantities import NAMESPACE

    return eval(compile(expr, "<answer token>", "eval"), {"__builtins__": {}}, dict(NAMESPACE))
