"""Values a reader must never see on a page: NaN and infinity in the rendered text."""

from __future__ import annotations

import re

# A non-finite value as Python, numpy or JSON print it, standing alone (not inside a word, a
# string literal such as float("nan") in shown source, or a hyphenated term).
_NON_FINITE = re.compile(r"""(?<![\w.'"-])-?(nan|inf|infinity)(?![\w'"-])(?!\s+Fabric)""", re.I)  # AMD's Infinity Fabric is a name
_NOT_SHOWN = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)


def non_finite_text(html: str) -> str | None:
    """The first NaN or infinity a reader would see in a page's text, with a little context; None if none."""
    if not _NON_FINITE.search(html):  # fast path: every visible hit also matches the raw markup
        return None
    from html import unescape

    text = unescape(re.sub(r"<[^>]+>", " ", _NOT_SHOWN.sub(" ", html)))
    m = _NON_FINITE.search(text)
    if not m:
        return None
    return " ".join(text[max(0, m.start() - 40):m.end() + 20].split())
