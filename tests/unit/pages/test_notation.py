"""One symbol per quantity across the site, so a reader learns each symbol once.

The notation table on Conventions lists each symbol once; every symbol a page's math uses must be
in it. Symbols are read from the math the same way on both sides, so a page that brings back \\(B\\)
for a batch or \\(R\\) for a ridge fails here until the table (and so every page) agrees.
"""

from __future__ import annotations

import re

import pytest
from tests.conftest import ROOT

MATH = re.compile(r"\$\$(.*?)\$\$|\\\((.*?)\\\)", re.S)


def symbols(latex: str) -> set[str]:
    """The symbols in a piece of math: a letter with its subscript and a star ("P_peak", "b*", "t_0")."""
    s = re.sub(r"_\\text\{([^}]*)\}", lambda m: "_" + m.group(1).replace(" ", ""), latex)
    s = re.sub(r"_\{(?:\\text\{)?([^{}]*)\}?\}", lambda m: "_" + re.sub(r"\W", "", m.group(1)), s)
    s = s.replace("^{*}", "*").replace("^*", "*")
    s = re.sub(r"\\text\{[^}]*\}|\\begin\{\w+\}\{\w*\}|\\end\{\w+\}|\\[A-Za-z]+", " ", s)
    s = re.sub(r"(?<![A-Za-z0-9*])_\w+", " ", s)  # a subscript left on a word that was removed
    # What is left is symbols and their products ("2mnk" is m, n and k): every letter is one.
    return {m.group(0) for m in re.finditer(r"[A-Za-z](?:_[A-Za-z0-9]+)?\*?", s)}


def _math(text: str) -> str:
    text = re.sub(r"^(```|~~~).*?^\1\s*$", "", text, flags=re.S | re.M)
    return " ".join((m.group(1) or m.group(2)) for m in MATH.finditer(text))


def notation() -> dict[str, str]:
    page = (ROOT / "docs" / "conventions.md").read_text(encoding="utf-8")
    section = page[page.index("## Notation"):]
    section = section[: section.index("\n## ", 4)]
    out: dict[str, str] = {}
    for row in re.findall(r"^\| (\\\(.*?) \| (.*?) \|", section, re.M):
        for sym in symbols(" ".join(m.group(2) for m in MATH.finditer(row[0]))):
            assert sym not in out, f"{sym} is listed twice in the notation table"
            out[sym] = row[1]
    return out


def test_the_symbol_reader_reads_what_pages_write():
    # By hand: the ridge formula uses the ridge, the peak and the bandwidth; the critical batch
    # formula the critical batch, the ridge and the bytes per weight.
    assert symbols(r"I^{*} = \frac{P_\text{peak}}{B}") == {"I*", "P_peak", "B"}
    assert symbols(r"b^{*} = \left\lceil \frac{I^{*} s}{2} \right\rceil") == {"b*", "I*", "s"}
    assert symbols(r"t_0 + n_\text{steps}\,t_\text{step}") == {"t_0", "n_steps", "t_step"}
    assert symbols(r"\text{FLOPs} = 2mnk") == {"m", "n", "k"}


def test_the_table_separates_batch_from_bandwidth_and_the_other_pairs():
    table = notation()
    assert "bandwidth" in table["B"] and "batch" in table["b"]
    assert "parameters" in table["P"] and "stages" in table["n_pp"]
    assert "bytes per weight" in table["s"] and "ring steps" in table["n_steps"]
    assert "tokens cached" in table["L"] and "layers" in table["n_layers"]


@pytest.mark.parametrize("path", sorted([*ROOT.glob("docs/*.md"), *ROOT.glob("glossary/**/*.md")]),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_symbol_a_page_uses_is_in_the_notation_table(path):
    unknown = sorted(symbols(_math(path.read_text(encoding="utf-8"))) - set(notation()))
    assert unknown == [], f"symbols not in the notation table on Conventions: {unknown}"


@pytest.mark.parametrize("page, not_here", [
    ("docs/batching.md", {"B", "B*", "R"}),            # the batch is b, the ridge I*
    ("glossary/performance-model/critical-batch-size.md", {"B"}),
    ("docs/many-chips.md", {"s", "P", "L"}),           # ring steps n_steps, stages n_pp, layers n_layers
    ("docs/prefill.md", {"R"}), ("docs/hardware.md", {"R"}),
])
def test_the_pages_that_once_reused_a_symbol_no_longer_do(page, not_here):
    assert symbols(_math((ROOT / page).read_text(encoding="utf-8"))) & not_here == set()
