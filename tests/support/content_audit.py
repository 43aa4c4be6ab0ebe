"""The content audit (tests/content_audit.toml): every checked claim of an explainer page, held to the
sentence and the number that were checked.

Each entry names its page, an anchor (a phrase of the sentence as the Markdown writes it, tokens
included), what the sentence claims, how it was checked (the arithmetic from datasheet or config
figures, or the source) and the verdict. `sentence` is a digest of the whole sentence as written:
when an edit changes the sentence, the digest no longer matches and the claim is flagged for
re-checking. Where the claim rests on a number, `token` is the expression the page renders and
`shown` the text it rendered when checked: a change of spec or model that moves the number flags it too.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

AUDIT = ROOT / "tests" / "content_audit.toml"

_FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)
_TOKEN = re.compile(r"\{\{.*?\}\}", re.S)
_BLOCK = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*|]\s|\d+\.\s|\?\?\?|!!!|#))")
_END = re.compile(r"(?<=[.!?])\s+(?=[A-Za-z\[*(\"'\x00])")


@dataclass(frozen=True)
class Entry:
    page: str
    anchor: str
    claim: str
    check: str
    verdict: str
    sentence: str
    token: str = ""
    shown: str = ""


def entries(path: Path = AUDIT) -> list[Entry]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [Entry(**row) for row in data["claim"]]


def sentence_with(markdown: str, anchor: str) -> str:
    """The sentence of `markdown` (front matter left out, tokens kept as written) that holds `anchor`;
    '' when none does. Sentences end at ., ! or ? before a capital, a link or a token; a paragraph,
    a list item, a table row, a heading or an admonition title also ends one. The glossary audit
    reads its entries with it too."""
    body = _FRONT.sub("", markdown)
    tokens: list[str] = []

    def hide(m):
        tokens.append(m.group(0))
        return f"\x00{len(tokens) - 1}\x01"

    hidden = _TOKEN.sub(hide, body)
    for block in _BLOCK.split(hidden):
        for sentence in _END.split(" ".join(block.split())):
            text = re.sub(r"\x00(\d+)\x01", lambda m: tokens[int(m.group(1))], sentence)
            if anchor in text:
                return text
    return ""


def digest(sentence: str) -> str:
    """A short fingerprint of a sentence as written (whitespace folded)."""
    return hashlib.sha256(" ".join(sentence.split()).encode("utf-8")).hexdigest()[:12]


def shown(page: str, token: str) -> str:
    """The text `token` renders on `page` (its bindings in scope)."""
    from roofline_site.numbers.tokens import evaluate
    from tests.support.exercise_blocks import page_namespace

    value = evaluate(token, page_namespace(page))
    return value.text() if hasattr(value, "text") else str(value)
