"""The glossary audit (tests/glossary_audit.toml): a hand-checked claim of every glossary entry, held to
the sentence and the number that were checked.

Each row names its entry (slug), an anchor (a phrase of the sentence as the entry's Markdown writes it,
tokens included; "summary" checks the definition), what the sentence claims, how it was checked
(arithmetic from datasheet or config figures, or the source) and the verdict. `sentence` is a digest
of the whole sentence as written: an edit that changes it flags the claim for re-checking. Where the
claim rests on a number, `token` is the expression the entry renders and `shown` the text it rendered
when checked: a change of spec or model that moves the number flags it too.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

AUDIT = ROOT / "tests" / "glossary_audit.toml"

_TOKEN = re.compile(r"\{\{.*?\}\}", re.S)
_BLOCK = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*|]\s|\d+\.\s|#))")
_END = re.compile(r"(?<=[.!?])\s+(?=[A-Za-z\[*(\"'\x00])")


@dataclass(frozen=True)
class Row:
    entry: str
    anchor: str
    claim: str
    check: str
    verdict: str
    sentence: str
    token: str = ""
    shown: str = ""


def rows(path: Path = AUDIT) -> list[Row]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [Row(**row) for row in data["claim"]]


def sentence_with(text: str, anchor: str) -> str:
    """The sentence of `text` (an entry's body, tokens kept as written) that holds `anchor`; '' if none."""
    tokens: list[str] = []

    def hide(m):
        tokens.append(m.group(0))
        return f"\x00{len(tokens) - 1}\x01"

    for block in _BLOCK.split(_TOKEN.sub(hide, text)):
        for sentence in _END.split(" ".join(block.split())):
            whole = re.sub(r"\x00(\d+)\x01", lambda m: tokens[int(m.group(1))], sentence)
            if anchor in whole:
                return whole
    return ""


def digest(sentence: str) -> str:
    """A short fingerprint of a sentence as written (whitespace folded)."""
    return hashlib.sha256(" ".join(sentence.split()).encode("utf-8")).hexdigest()[:12]


def shown(entry, token: str) -> str:
    """The text `token` renders on the entry's page (its bindings in scope)."""
    from roofline.quantities import NAMESPACE
    from roofline_site.numbers.bindings import bind
    from roofline_site.numbers.tokens import evaluate

    bindings = dict(entry.bindings)
    names = {**NAMESPACE, **bind(bindings, entry.path, dict(NAMESPACE), evaluate).values} if bindings else dict(NAMESPACE)
    value = evaluate(token, names)
    return value.text() if hasattr(value, "text") else str(value)
