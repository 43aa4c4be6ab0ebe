"""Figures as a reader sees them: legible on a phone, no colliding labels, one variant per scheme,
no layout shift as they load.

Measured in Chromium on the built site: the font sizes of the SVG a 390 px phone actually loads,
scaled by the width it is displayed at, every pair of text boxes in every figure variant (a dark one
that differs from its light one in colour alone, by its light one's boxes), and each figure's box
before and after its SVG arrives.
"""

from __future__ import annotations

import re

import pytest
from tests.support.browser import LAPTOP, PHONE, READY

pytestmark = [pytest.mark.browser, pytest.mark.site]

MIN_TEXT_PX = 11
MAX_SVG_BYTES = 40_000

# For each figure on the page: the SVG the browser chose (currentSrc), its smallest font-size in SVG
# units and its viewBox width, and the width the image is displayed at.
SMALLEST_TEXT = """async () => {
  const out = [];
  for (const img of document.querySelectorAll('.rl-fig img')) {
    if (!img.getClientRects().length) continue;  // the other scheme's picture
    img.loading = 'eager';  // lazy images load when scrolled to: load it now
    await img.decode().catch(() => null);
    if (!img.currentSrc) { out.push({src: img.src, px: 0, unloaded: true}); continue; }
    const svg = new DOMParser().parseFromString(await (await fetch(img.currentSrc)).text(), 'image/svg+xml');
    const sizes = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim())
      .map(t => parseFloat((t.getAttribute('style') || '').match(/font-size:\\s*([\\d.]+)px/)?.[1] || '10'));
    const box = svg.documentElement.getAttribute('viewBox');
    if (!box) { out.push({src: img.currentSrc, px: 0, unloaded: true}); continue; }
    const vb = box.split(/\\s+/).map(Number);
    out.push({src: img.currentSrc.split('/').pop(), px: Math.min(...sizes) * img.clientWidth / vb[2]});
  }
  return out;
}"""

OVERLAPS = """() => {
  const boxes = [...document.querySelectorAll('text')].filter(t => t.textContent.trim()).map(t => {
    const r = t.getBoundingClientRect(); return {s: t.textContent.trim().slice(0, 40), l: r.left, t: r.top, r: r.right, b: r.bottom}; });
  const hits = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], c = boxes[j];
    if (Math.min(a.r, c.r) - Math.max(a.l, c.l) > 1 && Math.min(a.b, c.b) - Math.max(a.t, c.t) > 1) hits.push(`'${a.s}' on '${c.s}'`);
  }
  return hits;
}"""


# Every text box against every drawn line (curves, roofs, guides, leader lines and arrows: stroked
# paths outside the axes' ticks and grid, the legends' own handles and the marker definitions), sampled
# every pixel along each path. A box is shrunk by 2 px each side: a line that only grazes the font's
# line box (the descent under a digit, about a seventh of its height) does not cross the glyphs.
TEXT_ON_LINES = """() => {
  const inset = 2;
  const boxes = [...document.querySelectorAll('text')].filter(t => t.textContent.trim()).map(t => {
    const r = t.getBoundingClientRect();
    return {s: t.textContent.trim().slice(0, 40), l: r.left + inset, t: r.top + inset, r: r.right - inset, b: r.bottom - inset};
  });
  const drawn = [...document.querySelectorAll('path')].filter(p => {
    if (p.closest('defs, [id^="matplotlib.axis"], [id^="legend"]')) return false;
    const cs = getComputedStyle(p);
    return cs.stroke !== 'none' && parseFloat(cs.strokeOpacity) > 0.35 && parseFloat(cs.strokeWidth) > 0
      && parseFloat(cs.opacity) > 0.35;
  });
  const hits = new Set();
  for (const p of drawn) {
    const m = p.getScreenCTM(), n = p.getTotalLength(), name = (p.closest('g[id]') || {}).id || 'a path';
    for (let d = 0; d <= n; d += 1) {
      const q = p.getPointAtLength(d), x = m.a * q.x + m.c * q.y + m.e, y = m.b * q.x + m.d * q.y + m.f;
      for (const b of boxes) if (x > b.l && x < b.r && y > b.t && y < b.b) hits.add(`'${b.s}' crossed by ${name}`);
    }
  }
  return [...hits];
}"""


def figure_pages(site_pages) -> list[str]:
    return sorted(p.removesuffix("index.html") for p, html in site_pages.items() if 'class="rl-fig"' in html)


# For each shown figure: the height the page reserved before its SVG loaded, and after; the aspect
# ratio the markup declares for the variant the browser chose (the <source> it matched where that
# declares a size, else the <img>), and the one the SVG has. A lazy image far down the page has not loaded at first: its box
# then comes from the declared width and height alone.
BOXES = """() => [...document.querySelectorAll('.rl-fig img')].filter(i => i.getClientRects().length)
  .map(i => ({i: [...document.images].indexOf(i), h: i.getBoundingClientRect().height, loaded: i.complete && i.naturalWidth > 0}))"""
DECLARED = """async (before) => {
  const out = [];
  for (const b of before) {
    const img = document.images[b.i];
    img.loading = 'eager';
    await img.decode().catch(() => null);
    const src = img.currentSrc;
    const source = [...img.parentElement.querySelectorAll('source')]
      .find(s => new URL(s.getAttribute('srcset'), document.baseURI).href === src);
    const chosen = source && source.hasAttribute('width') ? source : img;  // as the browser falls back
    const r = img.getBoundingClientRect();
    out.push({src: src.split('/').pop(), was_loaded: b.loaded, before: b.h, after: r.height,
              declared: chosen.getAttribute('width') / chosen.getAttribute('height'),
              natural: img.naturalWidth / img.naturalHeight, shown: r.width / r.height});
  }
  return out;
}"""


def _visit_figure_pages(chromium, served_site, site_pages, context: dict, *, boxes: bool, text: bool) -> dict:
    """{url: {"declared": DECLARED's list, "smallest": SMALLEST_TEXT's list}} for every figure page,
    each loaded once in tabs opened with `context`'s options.

    `boxes` measures each figure's box from domcontentloaded, before anything forces an image to
    load (BOXES, then DECLARED, which loads them); `text` then waits for the load event and the page's
    scripts, as a visit for the text check alone would, and reads the smallest text. So one visit serves both checks
    with each measured as if alone: the move check before any image was forced, the text check
    on a loaded page."""
    tabs = chromium.tabs(**context, first_visit=boxes)  # the move check measures boxes before the figures arrive
    try:
        tab = tabs.new_page()
        visits = {}
        for url in figure_pages(site_pages):
            tab.goto(f"{served_site}/{url}", wait_until="domcontentloaded" if boxes else "load")
            visits[url] = {}
            if boxes:
                visits[url]["declared"] = tab.evaluate(DECLARED, tab.evaluate(BOXES))
            if text:
                tab.wait_for_load_state("load")
                # and the page's scripts, which the loader starts after the first paint, so possibly after
                # the load event: Material's bundle, as it starts, sets each relative src again as its
                # absolute URL (`t[r]=t[r]`), which can restart an image the check is decoding (once, in a
                # full make test, a phone's figure was read with no source)
                tab.wait_for_function(READY)
                visits[url]["smallest"] = tab.evaluate(SMALLEST_TEXT)
        return visits
    finally:
        tabs.close()


@pytest.fixture(scope="module")
def phone_light_visits(chromium, served_site, site_pages) -> dict:
    """Every figure page at 390 px in the light scheme, visited once for both the text and the move check."""
    return _visit_figure_pages(chromium, served_site, site_pages, dict(**PHONE, color_scheme="light"), boxes=True, text=True)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_figure_text_is_at_least_11_px_on_a_phone(request, chromium, served_site, site_pages, scheme):
    if scheme == "light":
        visits = request.getfixturevalue("phone_light_visits")
    else:
        visits = _visit_figure_pages(chromium, served_site, site_pages, dict(**PHONE, color_scheme=scheme),
                                     boxes=False, text=True)
    small, seen = [], 0
    for url, visit in visits.items():
        for fig in visit["smallest"]:
            seen += 1
            assert ("-dark" in fig["src"]) == (scheme == "dark"), f"{url}: {fig['src']} under the {scheme} scheme"
            assert "-narrow" in fig["src"], f"{url}: the phone got the wide {fig['src']}"
            assert not fig.get("unloaded"), f"{url}: {fig['src']} did not load as an SVG"
            if fig["px"] < MIN_TEXT_PX:
                small.append(f"{url}: {fig['src']} {fig['px']:.1f} px")
    assert seen, "no figure found on any page"
    assert not small, f"figure text under {MIN_TEXT_PX} px at 390 px: {small}"


@pytest.mark.parametrize("size", ["390", "1280"])
def test_figures_do_not_move_the_page_as_they_load(request, chromium, served_site, site_pages, size):
    """The box reserved for a figure is the box it fills: each variant declares its own aspect ratio.

    (A narrow variant declared at the wide one's 700 × 420 grows by up to four times its reserved
    height when it arrives, pushing down whatever the reader was reading.)"""
    width = int(size)
    if width == PHONE["viewport"]["width"]:  # the phone in the default (light) scheme: the text check's visit
        visits = request.getfixturevalue("phone_light_visits")
    else:
        visits = _visit_figure_pages(chromium, served_site, site_pages, LAPTOP, boxes=True, text=False)
    wrong, moved, seen, unloaded = [], [], 0, 0
    for url, visit in visits.items():
        for fig in visit["declared"]:
            seen += 1
            what = f"{url}: {fig['src']}"
            assert ("-narrow" in fig["src"]) == (width == 390), f"{what} at {width} px"
            if abs(fig["declared"] / fig["natural"] - 1) > 0.01 or abs(fig["shown"] / fig["natural"] - 1) > 0.01:
                wrong.append(f"{what}: declared {fig['declared']:.3f}, SVG {fig['natural']:.3f}, shown {fig['shown']:.3f}")
            if not fig["was_loaded"]:
                unloaded += 1
                if abs(fig["after"] - fig["before"]) > 1:
                    moved.append(f"{what}: reserved {fig['before']:.0f} px, filled {fig['after']:.0f} px")
    assert seen, "no figure found on any page"
    assert not wrong, f"aspect ratios at {width} px (width ÷ height): {wrong}"
    assert not moved, f"figures that moved the page as they loaded at {width} px: {moved}"
    assert unloaded, "every figure had loaded before it was measured: nothing measured the reserved box"


def without_colours(svg: bytes) -> bytes:
    """An SVG's text with every fill and stroke colour blanked, and the dark variant's root fill dropped:
    equal for a dark variant and its light one when they differ in colour alone (figures_gen/_dark.py)."""
    svg = re.sub(rb'<svg fill="#[0-9a-fA-F]{6}"', b"<svg", svg, count=1)
    return re.sub(rb'\b(fill|stroke)(:\s*|=")#[0-9a-fA-F]{6}\b', rb"\1\2#", svg)


@pytest.fixture(scope="module")
def figure_text_hits(chromium, served_site, site_dir) -> dict[str, dict[str, list[str]]]:
    """{svg name: {"overlaps": [...], "crossings": [...]}} for every figure variant, both checks run on
    each SVG opened (they read the same text boxes). A dark variant that differs from its light one in
    colour alone has every text box and stroked path where the light one has them (neither check reads a
    colour), so it takes the light one's result; any other dark variant is opened too."""
    svgs = sorted((site_dir / "figures").glob("*.svg"), key=lambda svg: (svg.stem.endswith("-dark"), svg.name))
    assert len(svgs) >= 4 * 10, "expected four variants of every figure"
    tabs = chromium.tabs()
    try:
        tab = tabs.new_page()
        hits = {}
        for svg in svgs:
            light = svg.with_name(svg.name.replace("-dark.svg", ".svg"))
            if light != svg and light.name in hits and without_colours(svg.read_bytes()) == without_colours(light.read_bytes()):
                hits[svg.name] = hits[light.name]
                continue
            tab.goto(f"{served_site}/figures/{svg.name}", wait_until="load")
            hits[svg.name] = {"overlaps": tab.evaluate(OVERLAPS), "crossings": tab.evaluate(TEXT_ON_LINES)}
        return hits
    finally:
        tabs.close()


def test_a_dark_variant_differs_from_its_light_one_in_colour_alone(site_dir):
    # Else the label checks above open it on its own: this says whether they may take the light one's result.
    from figures_gen._dark import dark_svg

    light = (site_dir / "figures" / "h100-roofline.svg").read_bytes()
    dark = (site_dir / "figures" / "h100-roofline-dark.svg").read_bytes()
    assert dark == dark_svg(light) and without_colours(dark) == without_colours(light)
    moved = light.replace(b"<text ", b'<text dx="3" ', 1)
    assert moved != light and without_colours(dark_svg(moved)) != without_colours(light)


def test_no_two_labels_overlap_in_any_figure(figure_text_hits):
    collisions = [f"{name}: {hit}" for name, found in figure_text_hits.items() for hit in found["overlaps"]]
    assert not collisions, "\n".join(collisions[:20])


def test_no_label_crosses_a_drawn_line_in_any_figure(figure_text_hits):
    """Leader lines, roofs, curves and guides pass beside a label, never through it, where
    it would hide a word (a leader across a label, a ridge through a legend)."""
    crossed = [f"{name}: {hit}" for name, found in figure_text_hits.items() for hit in found["crossings"]]
    assert not crossed, "\n".join(crossed[:20])


def test_the_line_check_sees_a_crossing_and_passes_a_near_miss(chromium):
    # By hand: the label's box spans about x 10-70, y 28-42 (font 12 px, baseline 40). A line at y 35
    # runs through its middle; a line at y 60 passes 18 px below it; a grid line (inside an axis group)
    # and a legend's own handle through the text are not drawn lines of the plot.
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><g id="text_1"><text x="10" y="40" '
           'style="font-size: 12px">ridge label</text></g><g id="line2d_1"><path d="M 0 {y} L 200 {y}" '
           'style="fill: none; stroke: #000; stroke-width: 1"/></g><g id="matplotlib.axis_1"><path d="M 0 35 L 200 35" '
           'style="stroke: #000"/></g><g id="legend_1"><path d="M 0 36 L 200 36" style="stroke: #000"/></g></svg>')
    tabs = chromium.tabs()
    try:
        tab = tabs.new_page()
        tab.set_content(svg.format(y=35))
        assert tab.evaluate(TEXT_ON_LINES) == ["'ridge label' crossed by line2d_1"]
        tab.set_content(svg.format(y=60))
        assert tab.evaluate(TEXT_ON_LINES) == []
    finally:
        tabs.close()


def test_every_figure_variant_is_small(site_dir):
    big = [f"{p.name}: {p.stat().st_size} bytes" for p in (site_dir / "figures").glob("*.svg")
           if p.stat().st_size > MAX_SVG_BYTES]
    assert not big, big


# Tick labels of one axis in a matplotlib SVG (text kept as <text>): each tick is a <g id="xtick_N"> or
# <g id="ytick_N"> inside a <g id="matplotlib.axis_K">.
_SVG = "{http://www.w3.org/2000/svg}"
_NUMBER = re.compile(r"[−\-]?[\d.,]+(?:[×e][\d−\-]+)?\s*[%kMGT]?")


def _axes_tick_labels(svg: bytes) -> list[tuple[str, list[str]]]:
    import xml.etree.ElementTree as ET

    out = []
    for g in ET.fromstring(svg).iter(f"{_SVG}g"):
        if g.get("id", "").startswith("matplotlib.axis"):
            ticks = [t for t in g.iter(f"{_SVG}g") if re.fullmatch(r"[xy]tick_\d+", t.get("id", ""))]
            labels = ["".join("".join(x.itertext()) for x in t.iter(f"{_SVG}text")).strip() for t in ticks]
            out.append((g.get("id"), [lab for lab in labels if lab]))
    return out


def test_tick_label_reading_sees_a_short_axis():
    """The reader above on a hand-made axis of two labels, so the test below can fail."""
    svg = (b'<svg xmlns="http://www.w3.org/2000/svg"><g id="matplotlib.axis_1"><g id="xtick_1"><text>1</text></g>'
           b'<g id="xtick_2"><text>10</text></g><g id="xtick_3"></g></g></svg>')
    assert _axes_tick_labels(svg) == [("matplotlib.axis_1", ["1", "10"])]


def test_every_figure_variant_names_its_curves_and_labels_three_ticks_per_numeric_axis(site_dir):
    """No legend entry or label says matplotlib's '_child…' placeholder (the batching figure's did, in
    all four variants), and every axis whose tick labels are numbers shows at least three of them (the
    batching figure's throughput axis showed one; log axes of under two decades showed two)."""
    svgs = sorted((site_dir / "figures").glob("*.svg"))
    assert len(svgs) >= 4 * 10, "expected four variants of every figure"
    problems = []
    for svg in svgs:
        data = svg.read_bytes()
        if b"_child" in data:
            problems.append(f"{svg.name}: a text says _child")
        for axis, labels in _axes_tick_labels(data):
            if labels and all(_NUMBER.fullmatch(lab) for lab in labels) and len(labels) < 3:
                problems.append(f"{svg.name} {axis}: ticks {labels}")
    assert not problems, "\n".join(problems)


def _texts(svg: bytes, *, ticks: bool) -> list[str]:
    """Every text of a figure in document order (tick labels only with `ticks`), whitespace collapsed."""
    import xml.etree.ElementTree as ET

    out: list[str] = []

    def visit(el, in_tick: bool) -> None:
        in_tick = in_tick or bool(re.fullmatch(r"[xy]tick_\d+", el.get("id", "")))
        if el.tag == f"{_SVG}text":
            text = " ".join("".join(el.itertext()).split())
            if text and (ticks or not in_tick):
                out.append(text)
            return
        for child in el:
            visit(child, in_tick)

    visit(ET.fromstring(svg), False)
    return out


_KEY_NUMBER = re.compile(r"^\d+\s+")  # "3  H100 SXM5 80GB": a label listed under the figure by number


def test_a_narrow_variant_keeps_every_label_of_the_wide_one(site_dir):
    """Each label of a wide figure (its words, wrapped or not, beside its point or listed under the
    figure) is in the narrow one: the narrow prefill-intensity figure lost every device name, the
    narrow hardware map H200, GB200, H100 PCIe and NVL, EPYC, Xeon and TPU7x."""
    svgs = sorted(p for p in (site_dir / "figures").glob("*.svg") if "-narrow" not in p.name and "-dark" not in p.name)
    assert len(svgs) >= 10
    missing = []
    for wide in svgs:
        narrow = "".join(_texts(wide.with_name(f"{wide.stem}-narrow.svg").read_bytes(), ticks=True)).replace(" ", "")
        for text in _texts(wide.read_bytes(), ticks=False):
            words = _KEY_NUMBER.sub("", text).replace(" ", "")
            if re.search(r"[A-Za-z]", words) and words not in narrow:
                missing.append(f"{wide.stem}: '{text}'")
    assert not missing, "\n".join(missing)


def test_the_label_comparison_sees_a_dropped_label():
    wide = b'<svg xmlns="http://www.w3.org/2000/svg"><text>H200 SXM</text><g id="xtick_1"><text>10</text></g></svg>'
    narrow = b'<svg xmlns="http://www.w3.org/2000/svg"><text>4  H100</text></svg>'
    assert _texts(wide, ticks=False) == ["H200 SXM"]
    assert "H200SXM" not in "".join(_texts(narrow, ticks=True)).replace(" ", "")
