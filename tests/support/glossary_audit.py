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

import tomllib
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT
from tests.support.content_audit import digest, sentence_with  # noqa: F401 (one reader of sentences)

AUDIT = ROOT / "tests" / "glossary_audit.toml"


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


def shown(entry, token: str) -> str:
    """The text `token` renders on the entry's page (its bindings in scope)."""
    from roofline.quantities import NAMESPACE
    from roofline_site.numbers.bindings import bind
    from roofline_site.numbers.tokens import evaluate

    bindings = dict(entry.bindings)
    names = {**NAMESPACE, **bind(bindings, entry.path, dict(NAMESPACE), evaluate).values} if bindings else dict(NAMESPACE)
    value = evaluate(token, names)
    return value.text() if hasattr(value, "text") else str(value)
