"""Every number's popover reproduces it: the one-line arithmetic, read back as printed, gives the
number as shown (item 7 of issue 22). The parser below is the test's own, not roofline.format's."""

from __future__ import annotations

import html
import re
from decimal import Decimal

import pytest

from tests.support.site_helpers import page_popovers

pytestmark = pytest.mark.site

NUM = re.compile(r'<span class="rl-num"[^>]*>(.*?)<span class="rl-prov" id="([\w-]+)"', re.S)
ARITH = re.compile(r'<span class="rl-prov-arith">(.*?)</span>')
# Units as the site prints them, to the power of ten (or two) each stands for.
SCALE = {"": 1, "×": 1, "tokens/s": 1, "FLOP/byte": 1, "%": Decimal("0.01"), "GiB": 2**30,
         "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12, "TOP/s": 10**12}
PREFIX = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15,
          "m": Decimal("1e-3"), "µ": Decimal("1e-6"), "n": Decimal("1e-9")}


def read(text: str) -> tuple[Decimal, Decimal]:
    """A printed number as (value, half a unit of its last significant digit), both in base units."""
    m = re.fullmatch(r"(-?[\d,]*\.?\d+)\s*(\S*)", text.strip())
    assert m, f"not a number: {text!r}"
    digits, unit = m.group(1).replace(",", ""), m.group(2)
    if unit in SCALE:
        scale = Decimal(SCALE[unit])
    else:
        base = next(b for b in ("FLOP/s", "B/s", "FLOP", "B", "s") if unit.endswith(b))
        scale = Decimal(PREFIX[unit[: -len(base)]])
    # "8,830" was printed to three figures (trailing zeros of a whole number are not significant);
    # "0.999" and "4.48" to their last decimal.
    if "." in digits:
        step = Decimal(1).scaleb(-len(digits.split(".")[1]))
    else:
        stripped = digits.lstrip("-").rstrip("0") or "0"
        step = Decimal(1).scaleb(len(digits.lstrip("-")) - len(stripped))
    return Decimal(digits) * scale, step / 2 * scale


def evaluate(left: str) -> Decimal:
    out, operand = [], []
    ops = {"×": "*", "÷": "/", "+": "+", "−": "-", "(": "(", ")": ")"}
    for part in left.replace("(", " ( ").replace(")", " ) ").split() + ["+"]:
        if part in ops:
            if operand:
                out.append(f"Decimal('{read(' '.join(operand))[0]}')")
                operand = []
            out.append(ops[part])
        else:
            operand.append(part)
    return eval(" ".join(out[:-1]), {"Decimal": Decimal})  # noqa: S307 — the test's own string


def popovers(site_dir, site_pages):
    """(page, number as shown, its popover's arithmetic line): the body read from the page's provenance.json."""
    for page, text in site_pages.items():
        bodies = page_popovers(site_dir, page)
        for m in NUM.finditer(text):
            arith = ARITH.search(bodies[m.group(2)])
            if arith:
                yield page, html.unescape(m.group(1)).strip(), html.unescape(arith.group(1))


def test_the_parser_reads_what_the_site_prints():
    # By hand: 3.35 TB/s is 3.35e12 B/s, to ±0.005e12; "8,830" carries three figures, so ±5.
    assert read("3.35 TB/s") == (Decimal("3.35e12"), Decimal("0.005e12"))
    assert read("8,830 tokens/s") == (Decimal(8830), Decimal(5))
    assert evaluate("3.35 TB/s ÷ 15 GB") == Decimal("3.35e12") / Decimal("15e9")  # 223.33...
    assert evaluate("(2 + 2) × 3") == 12


def test_every_popovers_arithmetic_gives_its_number_as_shown(site_dir, site_pages):
    lines = list(popovers(site_dir, site_pages))
    assert len(lines) > 200, "popovers with an arithmetic line are missing"
    wrong = []
    for page, shown, line in lines:
        left, _, right = line.rpartition(" = ")
        value, half = read(right)
        got = evaluate(left)
        if abs(got - value) > half * Decimal("1.000001"):
            wrong.append(f"{page}: {line} (the left side gives {got:.6g})")
        number = re.match(r"-?[\d,]*\.?\d+", shown)
        if number and not right.startswith(number.group(0)):
            wrong.append(f"{page}: the page shows {shown!r}, its arithmetic ends {right!r}")
    assert wrong == [], "\n".join(wrong[:20])


def test_the_speed_of_light_popover_names_the_bytes_a_step_reads(opened_pages):
    # Start here's speed of light: bandwidth ÷ the weight bytes a batch-1 step reads. With 8.03
    # billion parameters × 2 bytes (16.06 GB) it would give 208.6 tokens/s, not the 223 shown: the
    # embedding table (128,256 × 4,096 × 2 bytes = 1.05 GB) is not read, 16.06 − 1.05 = 15.0 GB.
    page = opened_pages["start-here/index.html"]
    assert "3.35 TB/s ÷ 15 GB = 223 tokens/s" in page
    assert "the embedding table itself is not read" in page


def test_an_intensity_popover_lists_no_peak_or_bandwidth(site_dir):
    # An intensity is FLOPs ÷ bytes: the device's roofs do not enter it, so its popover lists neither.
    body = next(b for b in page_popovers(site_dir, "start-here/index.html").values()
                if "whole-step arithmetic intensity" in b)
    assert "memory bandwidth" not in body and "dense bf16 peak" not in body
