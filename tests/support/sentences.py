"""Prose sentences of a page's Markdown, for checks on how they read (length, wording).

Tokens count as one word each (a token renders as one number or name); code, math, comments,
tables, link targets and HTML tags are not prose. A list item, a heading, an admonition title
and a paragraph are each split on their own.
"""

from __future__ import annotations

import re

_FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)
_DROP = [
    re.compile(r"^(```|~~~).*?^\1\s*$", re.S | re.M),   # fenced code
    re.compile(r"<!--.*?-->", re.S),                     # comments
    re.compile(r"\$\$.*?\$\$", re.S), re.compile(r"\\\(.*?\\\)", re.S),  # math
    re.compile(r"(`+).+?\1", re.S),                      # inline code: one word
    re.compile(r"<[^>]+>"),                              # HTML tags
]
_BLOCK_START = re.compile(r"^\s*(?:[-*]\s|\d+\.\s|#{1,6}\s|!!!|\?\?\?)")
_TITLE = re.compile(r"^\s*(?:#{1,6}\s|!!!|\?\?\?)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Za-z\[*(\"'])")
_WORD = re.compile(r"[\w'’.,:%×÷/-]*\w")


def prose_blocks(markdown: str) -> list[str]:
    """The page's paragraphs, list items, headings and admonition titles, each on one line."""
    text = _FRONT.sub("", markdown)
    # A token glued to the next sentence ("{{ claim }}The") is a build-time claim: it renders nothing.
    text = re.sub(r"\{\{(?:(?!\}\}).)*\}\}(?=[A-Z])", " ", text, flags=re.S)
    text = re.sub(r"\{\{.*?\}\}", " X ", text, flags=re.S)
    for pattern in _DROP:
        text = pattern.sub(" X ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    blocks, current = [], []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("|"):
            blocks.append(" ".join(current)); current = []
            continue
        if _BLOCK_START.match(line):
            blocks.append(" ".join(current)); current = []
        current.append(line.strip())
        if _TITLE.match(line):  # a heading or an admonition's title is a block of its own
            blocks.append(" ".join(current)); current = []
    blocks.append(" ".join(current))
    return [" ".join(b.split()) for b in blocks if b.strip()]


def sentences(markdown: str) -> list[str]:
    """Every prose sentence of the page."""
    return [s for block in prose_blocks(markdown) for s in _SENTENCE_END.split(block) if s.strip()]


def word_count(sentence: str) -> int:
    """Words as a reader counts them: a token, a number or a hyphenated name is one word."""
    return len(_WORD.findall(sentence))
