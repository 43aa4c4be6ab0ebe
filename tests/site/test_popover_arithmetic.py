"""Every number's popover reproduces it: the one-line arithmetic, read back as printed, gives the
number as shown, so a reader can check it. The parser below is the test's own, not roofline.format's."""

from __future__ import annotations

import html
import re
from decimal import Decimal

import pytest

from tests.support.site_helpers import page_popovers

pytestmark = pytest.mark.site

NUM = re.compile(r'<span class="rl-num"[^>]*>(.*?)<span class="rl-prov" id="([\w-]+)"', re.S)
ARITH = re.compile(r'<span class="rl-prov-arith">(.*?)</span>')
LABEL = re.compile(r'<strong class="rl-prov-label"[^>]*>(.*?)</strong>')
# Units as the site prints them, to the power of ten (or two) each stands for.
SCALE = {"": 1, "×": 1, "tokens/s": 1, "FLOP/byte": 1, "%": Decimal("0.01"), "GiB": 2**30, "$": 1,
         "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12, "TOP/s": 10**12}
PREFIX = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15,
          "m": Decimal("1e-3"), "µ": Decimal("1e-6"), "n": Decimal("1e-9")}


def read(text: str) -> tuple[Decimal, Decimal]:
    """A printed number as (value, half a unit of its last significant digit), both in base units."""
    m = re.fullmatch(r"(\$?)(-?[\d,]*\.?\d+)\s*(\S*)", text.strip())
    assert m, f"not a number: {text!r}"
    digits, unit = m.group(2).replace(",", ""), m.group(3) or m.group(1)  # "$1.50": dollars
    if unit in SCALE:
        scale = Decimal(SCALE[unit])
    else:
        base = next(b for b in ("FLOP/s", "B/s", "FLOP", "B", "s", "W", "J") if unit.endswith(b))
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


def every_popover(site_dir, site_pages):
    """(page, number as shown, popover label, arithmetic line or None) for every number of the site:
    the body read from the page's provenance.json."""
    for page, text in site_pages.items():
        bodies = page_popovers(site_dir, page)
        for m in NUM.finditer(text):
            body = bodies[m.group(2)]
            arith, label = ARITH.search(body), LABEL.search(body)
            yield (page, html.unescape(m.group(1)).strip(), html.unescape(label.group(1)) if label else "",
                   html.unescape(arith.group(1)) if arith else None)


def popovers(site_dir, site_pages):
    for page, shown, _, line in every_popover(site_dir, site_pages):
        if line is not None:
            yield page, shown, line


# Kinds of computed number whose popover must carry its arithmetic, by the start
# of the popover's label. Each is one division, product or sum of values the package has at hand.
# Left out on purpose: values found by a search (critical batch, crossover prompt, largest batch that
# fits: no one line gives a smallest-n), sums over every kernel of a step (the serving TPOT and engine
# step), medians, and values read from a datasheet, a config or a measurement.
MUST_CARRY_A_LINE = {
    "a layout's tokens/s": r"^decode tokens/s (per sequence|, whole batch|per device): ",
    "a layout's step time with collectives": r"^decode step time: .* on (TP|PP|EP)",
    "a layout's collective time": r"^collective time per stage: ",
    "a layout's speed of light": r"^speed of light: ",
    "one collective's time": r"^(all-reduce|all-gather|reduce-scatter) of .*: (time|transfer time)$",
    "a link's bandwidth and ridge": r" (bandwidth per direction|link ridge point)",
    "serving throughput": r"^(output|prompt) tokens/s(, all devices| per device| per user)",
    "serving TTFT and request latency": r"^(time to first token|request latency): ",
    "serving cost": r"^\$ per million",
    "published ÷ ceiling": r"^published as a share of the (ceiling|expected figure): ",
    "derated figures": r"^derated speed-of-light|derated bandwidth$",
    "playbook speed-ups and gains": r"^(speed-up|throughput gain|attention speed-up|step speed-up|stalled ÷ normal)",
    "playbook intensities": r"^(intensity|decode intensity|prefill intensity|fused attention intensity) ",
    "playbook tokens/s": r"^(tokens/s|plain decode tokens/s|speculative tokens/s|tokens/s at)",
    "KV bytes per token and per sequence": r"^(KV-cache bytes per token|KV cache of one)",
    "a single matmul's FLOPs and bytes": r"^(FLOPs of|bytes moved by) \(",
    "energy per token": r"^energy per token",
}


def test_the_parser_reads_what_the_site_prints():
    # By hand: 3.35 TB/s is 3.35e12 B/s, to ±0.005e12; "8,830" carries three figures, so ±5.
    assert read("3.35 TB/s") == (Decimal("3.35e12"), Decimal("0.005e12"))
    assert read("8,830 tokens/s") == (Decimal(8830), Decimal(5))
    assert read("$1.25") == (Decimal("1.25"), Decimal("0.005"))  # dollars, to the cent
    assert read("700 W") == (Decimal(700), Decimal(50)) and read("3.1 J")[0] == Decimal("3.1")  # "700": one figure
    assert evaluate("3.35 TB/s ÷ 15 GB") == Decimal("3.35e12") / Decimal("15e9")  # 223.33...
    assert evaluate("(2 + 2) × 3") == 12


def test_every_popovers_arithmetic_gives_its_number_as_shown(site_dir, site_pages):
    lines = list(popovers(site_dir, site_pages))
    # 402 of the built site's 1,451 numbers carried a line when only some kinds had one.
    assert len(lines) > 600, "popovers with an arithmetic line are missing"
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


def test_every_kind_that_must_carry_a_line_does(site_dir, site_pages):
    seen, missing = dict.fromkeys(MUST_CARRY_A_LINE, 0), []
    for page, shown, label, line in every_popover(site_dir, site_pages):
        for kind, pattern in MUST_CARRY_A_LINE.items():
            if re.search(pattern, label):
                seen[kind] += 1
                if line is None:
                    missing.append(f"{page}: {shown} ({kind}: {label[:120]})")
    # Every kind is on some page, so the list cannot go stale and pass by matching nothing.
    assert [k for k, n in seen.items() if n == 0] == [], "kinds no page shows any more"
    assert missing == [], "popovers without their arithmetic:\n" + "\n".join(missing[:20])


def test_a_link_popover_halves_the_vendors_two_way_figure(site_dir, site_pages):
    # NVIDIA's H100 SXM5 datasheet gives NVLink 4 at 900 GB/s per GPU, both directions together;
    # one direction is half of it: 900 ÷ 2 = 450 GB/s.
    lines = {line for page, _, line in popovers(site_dir, site_pages) if page == "many-chips/index.html"}
    assert "900 GB/s ÷ 2 = 450 GB/s" in lines


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
