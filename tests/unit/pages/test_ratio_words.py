"""Every ratio word in prose sits on a checked claim, so no "twice" or "half" outlives its numbers.

"Doubles", "halves", "twice", "triples" say a number. A page writes one through the token
`ratio_word(word, new, old, within)`, which fails the build when new ÷ old is not that factor;
left bare in prose (docs/, glossary/ bodies and summaries, figure captions and alt text), the
word could say 2× beside a 1.87× table, as "int8 halves the bytes, so the ceiling doubles" did.
"""

from __future__ import annotations

import re

import pytest

from roofline.errors import InputError
from roofline.quantities import NAMESPACE
from tests.unit.pages.test_prose_numerals import ROOT, STRIP, _figure_literals, _split_front_matter, prose_files

WORDS = re.compile(r"\b(doubl(?:e|es|ed|ing)|twice|halv(?:e|es|ed|ing)|half|tripl(?:e|es|ed|ing)|thrice|"
                   r"quadrupl(?:e|es|ed))\b", re.I)
#: Uses that count events, not compare two numbers: all-reduces happen twice per layer.
COUNTS = re.compile(r"twice (per layer|over NVLink)|all-reduce[^.]*twice", re.I)


def bare_ratio_words(text: str) -> list[str]:
    masked = text
    for pattern in STRIP:
        masked = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), masked)
    masked = COUNTS.sub(lambda m: " " * len(m.group(0)), masked)
    return [f"{masked.count(chr(10), 0, m.start()) + 1}: …{text[max(m.start() - 40, 0):m.end() + 30]}…".replace("\n", " ")
            for m in WORDS.finditer(masked)]


@pytest.mark.parametrize("path", prose_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_ratio_word_in_prose_is_a_checked_claim(path):
    front, body = _split_front_matter(path.read_text(encoding="utf-8"))
    summary = re.search(r"^summary:\s*(.*)$", front, re.M)
    hits = bare_ratio_words(body) + (bare_ratio_words(summary.group(1)) if summary else [])
    assert not hits, "ratio words not on a claim (use ratio_word(...)):\n" + "\n".join(hits)


@pytest.mark.parametrize("path", sorted((ROOT / "figures_gen").glob("[!_]*.py")), ids=lambda p: p.name)
def test_no_ratio_word_in_figure_alt_and_captions(path):
    hits = [(line, s) for line, s in _figure_literals(path) if bare_ratio_words(s)]
    assert not hits, f"ratio words in {path.name}'s alt text or caption: {hits}"


def test_the_scanner_sees_a_bare_word_and_not_a_token_or_a_count():
    assert bare_ratio_words("so the ceiling doubles: 417 against 223")
    assert not bare_ratio_words('the ceiling {{ ratio_word("doubles", a, b) }}')
    assert not bare_ratio_words("they all-reduce the activations twice per layer")


def test_a_ratio_word_holds_only_within_its_tolerance():
    rw, sol = NAMESPACE["ratio_word"], NAMESPACE["sol"]
    int8, bf16 = sol("llama-3.1-8b", "h100-sxm5", "int8"), sol("llama-3.1-8b", "h100-sxm5")
    # By hand: int8 weights are 1 byte + a 2-byte scale per output channel, the head and norms stay
    # 16-bit, so the bytes fall by less than half: 417 / 223 = 1.87, 6.5 % short of "doubles".
    with pytest.raises(InputError, match=r"'doubles' says 2× but the ratio is 1\.8"):
        rw("doubles", int8, bf16)
    assert rw("doubles", int8, bf16, within=0.07) == "doubles"
    # The H100 SXM5's fp8 peak is exactly twice its bf16 peak (1,979 against 989.4 TFLOP/s dense).
    assert rw("twice", NAMESPACE["peak"]("h100-sxm5", "fp8"), NAMESPACE["peak"]("h100-sxm5"), 0.001) == "twice"
