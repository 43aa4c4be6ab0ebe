"""No number in prose is typed by hand (CONTRIBUTING.md, "Standards every change keeps").

Scans docs/ and glossary/ Markdown (body and front-matter summary) and the string
literals of every figure's alt() and caption(), outside fenced code, inline code,
math, tokens, HTML tags, link targets and comments. Any digit left over must be part
of an allowlisted name (product, dtype, model, memory type, standard). The allowlist
holds names only: a quantity never belongs in it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from tests.conftest import ROOT


#: Names that contain digits. Each is a proper name or a format, never a quantity.
ALLOWED_NAMES = [
    r"DeepSeek-V[23]", r"DeepSeek-R1", r"Gemma[- ]?[23]([- ]\d+B)?", r"gpt-oss(-\d+b)?", r"Llama[- ]?4",
    r"Qwen\d(\.\d)?[- ]\d+B(-A\d+B)?", r"config\.json",
    r"H100", r"H200", r"H800", r"A100", r"A800", r"B200", r"GB200", r"NVL72", r"L40S", r"L4", r"RTX\s?[45]090",
    r"MI250X", r"MI300[AX]", r"MI325X", r"MI35[05]X", r"TPU\s?v[4-7][ep]?", r"v[4-7][ep]?\b", r"TPU7x",
    r"Gaudi\s?[23]", r"M[1-4]\s(Ultra|Max|Pro)", r"EPYC\s9654", r"Xeon(\sPlatinum)?\s8480\+?", r"SXM[45]?", r"NVLink\s?[45]?",
    r"HBM[23][eE]?", r"GDDR[67]X?", r"LPDDR5X?", r"DDR[45]", r"PCIe(\s?Gen\s?[3-6])?", r"Gen[3-6]",
    r"[bB][fF]16", r"[fF][pP](4|8|16|32|64)", r"[iI][nN][tT](4|8)", r"MXFP[48]", r"NVFP4", r"E4M3", r"E5M2", r"E2M1", r"W[48]A(8|16)",
    r"Llama[- ]?[23](\.[123])?[- ]?\d+[bB]", r"Llama[- ]?[23](\.[123])?", r"Mistral[- ]7B", r"Mixtral[- ]8x7B",
    r"GPT-[234]o?", r"Qwen\d?(\.\d)?", r"2:4", r"[bB]atch-1", r"top-[12k]", r"x86(-64)?", r"AVX-?512", r"AMX",
    r"v\d+(\.\d+)+", r"H100's", r"3D", r"2D", r"1D", r"L[123]\s(cache)", r"404", r"llms\.txt", r"SwiGLU",
]
ALLOWED = re.compile("|".join(f"(?:{n})" for n in ALLOWED_NAMES))

STRIP = [
    re.compile(r"^(```|~~~).*?^\1\s*$", re.S | re.M),        # fenced code
    re.compile(r"<!--.*?-->", re.S),                          # comments
    re.compile(r"\{\{.*?\}\}", re.S),                          # tokens
    re.compile(r"\$\$.*?\$\$", re.S), re.compile(r"\$[^$\n]+\$"), re.compile(r"\\\(.*?\\\)", re.S),  # math
    re.compile(r"(`+).+?\1", re.S),                            # inline code
    re.compile(r"\]\([^)]*\)"),                                # link targets
    re.compile(r"<[^>]+>"),                                    # HTML tags and their attributes
    re.compile(r"^\s*(\d+\.|[-*])\s", re.M),                   # list markers
    re.compile(r"\[\^[^\]]+\]"),                               # footnote markers
    re.compile(r"\{[#.][^}]*\}"),                              # attr_list
]


def bare_numerals(text: str) -> list[tuple[int, str]]:
    """(line, snippet) for every digit in `text` outside code, math, tokens and allowlisted names."""
    masked = text
    for pattern in STRIP:
        masked = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), masked)
    masked = ALLOWED.sub(lambda m: " " * len(m.group(0)), masked)
    hits = []
    for m in re.finditer(r"\d+", masked):
        line = masked.count("\n", 0, m.start()) + 1
        src_line = text.splitlines()[line - 1]
        hits.append((line, src_line.strip()[:120]))
    return hits


def _split_front_matter(text: str) -> tuple[str, str]:
    if text.startswith("---\n"):
        end = text.index("\n---", 4)
        return text[4:end], text[end + 4:]
    return "", text


def prose_files() -> list[Path]:
    return sorted([*ROOT.glob("docs/**/*.md"), *ROOT.glob("glossary/**/*.md")])


@pytest.mark.parametrize("path", prose_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_bare_numerals_in_prose(path):
    front, body = _split_front_matter(path.read_text(encoding="utf-8"))
    offset = front.count("\n") + 2 if front else 0
    hits = [(line + offset, s) for line, s in bare_numerals(body)]
    for field in ("summary", "term"):
        m = re.search(rf"^{field}:\s*(.*)$", front, re.M)
        if m:
            hits += [(front[:m.start()].count("\n") + 2, s) for _, s in bare_numerals(m.group(1))]
    assert not hits, "typed numbers (use a token):\n" + "\n".join(f"  {path.name}:{l}: {s}" for l, s in hits)


def _figure_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in ("alt", "caption")):
        for node in ast.walk(fn):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.append((node.lineno, node.value))
    return out


@pytest.mark.parametrize("path", sorted((ROOT / "figures_gen").glob("[!_]*.py")), ids=lambda p: p.name)
def test_no_bare_numerals_in_figure_alt_and_captions(path):
    literals = _figure_literals(path)
    assert literals, f"{path.name} has no alt()/caption() text"
    hits = [(line, s) for line, s in literals if bare_numerals(s)]
    assert not hits, "typed numbers in alt text or caption:\n" + "\n".join(f"  {path.name}:{l}: {s!r}" for l, s in hits)


@pytest.mark.parametrize("text, expected", [
    ("The ridge is 295 FLOP/byte.", 1),
    ("The ridge is {{ ridge('h100-sxm5') }} on the H100.", 0),
    ("An 8B model in FP16 on an A100 with HBM2e.", 1),   # "8B" is a quantity, not a name
    ("Llama-3.1-8B on a TPU v4 in bf16.", 0),
    ("```python\nx = 295\n```\nno numbers here", 0),
    ("inline `295` and math $2mnk$ are exempt", 0),
    ("[a link](https://example.com/v1.04/295)", 0),
])
def test_scanner_itself(text, expected):
    assert len(bare_numerals(text)) == expected
