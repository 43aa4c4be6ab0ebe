"""A page's one-line description: front matter, else the glossary summary, else its first paragraph."""

from __future__ import annotations

import html as _html

from roofline_site.html.walker import CLOSE, NOT_PROSE, OPEN, TEXT, walk

DESCRIPTION_MAX_CHARS = 160


def shorten(text: str, limit: int = DESCRIPTION_MAX_CHARS) -> str:
    """`text` on one line, cut at a sentence or word boundary to at most `limit` characters.

    >>> shorten("One two. Three four five.", 16), shorten("One. Two three four.", 12)
    ('One two.', 'One. Two…')
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    sentence_end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("! "))
    if sentence_end >= limit // 3:
        return cut[:sentence_end + 1]
    return cut[:cut.rfind(" ")].rstrip(",;:") + "…"


def paragraphs(content_html: str) -> list[str]:
    """The prose of each top-level <p> of a fragment, in order, on one line (what NOT_PROSE skips left out).

    >>> paragraphs('<p>Ridge <span role="tooltip">popover</span>point &amp; more</p><div><p>inner</p></div>')
    ['Ridge point & more']
    """
    out: list[str] = []
    text: list[str] | None = None  # the open top-level paragraph's text
    for token in walk(content_html, NOT_PROSE):
        if token.depth != 1 and text is None:
            continue
        if token.kind == OPEN and token.name == "p" and token.depth == 1:
            text = []
        elif token.kind == CLOSE and token.name == "p" and token.depth == 1 and text is not None:
            out.append(" ".join(_html.unescape("".join(text)).split()))
            text = None
        elif token.kind == TEXT and text is not None and not token.skipped:
            text.append(token.html)
    return out


def derived_description(content_html: str) -> str:
    """The first top-level paragraph of a page's content of 20 characters or more, shortened ('' if none)."""
    # Only the opening of the page can hold its first paragraphs: walk just that.
    cut = -1
    for _ in range(4):
        nxt = content_html.find("</p>", cut + 1)
        if nxt == -1:
            break
        cut = nxt
    head = content_html if cut == -1 else content_html[:cut + 4]
    return next((shorten(text) for text in paragraphs(head) if len(text) >= 20), "")
