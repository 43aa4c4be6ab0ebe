"""Numbers on a built page: the values a reader must never see (NaN and infinity in the rendered text), and
each number's value set apart from the page around it.

A spec edit changes a page's numbers and nothing else on most of the pages it touches. The steps that
read a number's value as opaque text (the Markdown conversion, the content passes, the glossary marks,
the search entries, the theme's template, the Markdown copy) each run on the page with every value
replaced by a numbered hole (`without_values`), and the values are put back in what it made
(`with_values`): a page whose holes read as before takes that step's stored result, whatever its
numbers now are.
"""

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


# A number's value: the text the number's span opens with (numbers/tokens.py writes the span).
_NUMBER_VALUE = re.compile(r'(<span class="rl-num"[^>]*>)([^<]*)')
# A value every such step writes as it is: no character HTML escapes or Markdown reads (&, <, >, quotes,
# backslash, *, _, brackets, backquotes, pipes, the $ of inline math), no white space a step collapses or
# trims. (A dollar amount is written &#36;: it keeps its page whole.)
_PLAIN_VALUE = re.compile("[0-9A-Za-z.,%/:()~+\\- \u00a0\u202f\u2009\u00b0\u00b5\u00b7\u00d7\u2248\u2212\u2013\u2264\u2265]+")
_HOLE_OPEN, _HOLE_CLOSE = "\ue000", "\ue001"  # (private-use characters; a text that holds one gets no holes)
_HOLE = re.compile(f"{_HOLE_OPEN}(\\d+){_HOLE_CLOSE}")


def holds_hole(text: str) -> bool:
    """Whether `text` holds a hole's character (a step that put a hole where its value cannot go back).

    >>> holds_hole("At \ue0000\ue001."), holds_hole("At 4.1 TB/s.")
    (True, False)
    """
    return _HOLE_OPEN in text or _HOLE_CLOSE in text


def without_values(html: str) -> tuple[str, list[str]]:
    """(`html` with each number's value replaced by a numbered hole, the values), or (`html`, []) where
    it has no number, a value is not plain (`_PLAIN_VALUE`, no white space at its ends, no NaN or
    infinity), or it holds a hole's character already.

    >>> without_values('<p>At <span class="rl-num" tabindex="0">4.1 TB/s<span data-rl-prov="x"></span></span>.</p>')
    ('<p>At <span class="rl-num" tabindex="0">\ue0000\ue001<span data-rl-prov="x"></span></span>.</p>', ['4.1 TB/s'])
    >>> without_values('<span class="rl-num">&#36;2</span>')[1]  # an entity: the page keeps its values
    []
    """
    if "rl-num" not in html or holds_hole(html):
        return html, []
    values: list[str] = []

    def hole(m: re.Match) -> str:
        values.append(m.group(2))
        return f"{m.group(1)}{_HOLE_OPEN}{len(values) - 1}{_HOLE_CLOSE}"

    holed = _NUMBER_VALUE.sub(hole, html)
    # (nor a value the non-finite check would find: a step checking the page with holes must see it)
    if not all(_PLAIN_VALUE.fullmatch(v) and v == v.strip() and not _NON_FINITE.search(v) for v in values):
        return html, []
    return holed, values


def with_values(text: str, values: list[str], *, once: bool = True) -> str | None:
    """What a step made of a page's holes (`without_values`) with the values put back; None where a hole is
    missing or repeated and `once` (a step that may drop, move or compare a value, such as markdownify, which
    writes a link whose text is its address in another form: the caller runs it on the page as it is). A
    step that writes each piece of text as it reads it, or not at all, takes `once=False`: every place a
    hole is, its value goes.

    >>> with_values("At \ue0000\ue001 and \ue0001\ue001.", ["4.1 TB/s", "2"])
    'At 4.1 TB/s and 2.'
    >>> with_values("At \ue0000\ue001 and \ue0000\ue001.", ["4.1 TB/s"]) is None
    True
    >>> with_values("Nothing of it.", ["4.1 TB/s"], once=False)
    'Nothing of it.'
    """
    if not values:
        return text
    # (one pass over the text, not one per value: a page holds hundreds of numbers)
    if once and sorted(int(i) for i in _HOLE.findall(text)) != list(range(len(values))):
        return None
    return _HOLE.sub(lambda m: values[int(m.group(1))], text)
