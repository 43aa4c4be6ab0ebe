"""The reading experience's markup, without a build or a browser: the declared size of a figure, the
one popover placement both scripts share, and what the search index is kept from."""

from __future__ import annotations

import re

import pytest

from figures_gen import display_size
from roofline_site.html.bundle import SITE_SCRIPTS
from roofline_site.html.reading import search_quiet
from tests.conftest import ROOT

ASSETS = ROOT / "docs" / "assets"


# ---------------------------------------------------------------- figure sizes -------------
def test_a_wide_figure_is_declared_at_its_own_aspect_ratio():
    # matplotlib's 7 × 4.2 inch figure at 72 units per inch: viewBox 504 × 302.4; at 700 px wide
    # that is 700 × 302.4 ÷ 504 = 420 px tall.
    svg = b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="504pt" height="302.4pt" viewBox="0 0 504 302.4">'
    assert display_size(svg) == (700, 420)


def test_a_tall_narrow_figure_is_declared_taller():
    # A phone variant 347.5 units wide and 693.6 tall: 700 × 693.6 ÷ 347.5 = 1397.2, so 1397 px.
    svg = b'<svg height="693.6pt" viewBox="0 0 347.5 693.6" width="347.5pt">'
    assert display_size(svg) == (700, 1397)


@pytest.mark.parametrize("svg", [b"<svg width='10' height='10'>", b'<svg viewBox="0 0 0 10">', b"<p>"])
def test_an_svg_without_a_usable_viewbox_is_refused(svg):
    with pytest.raises(ValueError, match="viewBox"):
        display_size(svg)


# ---------------------------------------------------------------- popover placement --------
def test_cards_and_number_popovers_share_one_placement():
    shared = (ASSETS / "popover.js").read_text()
    assert "getBoundingClientRect" in shared and "window.rlPopover" in shared
    for name, up in (("glossary.js", "gl-up"), ("provenance.js", "rl-up")):
        js = (ASSETS / name).read_text()
        # Each script hands its box to the shared code and measures no viewport of its own.
        assert f'P.place(' in js and f'"{up}"' in js, name
        for own in ("innerHeight", "clientWidth", "scrollBy", "function headerBottom", "function unpad"):
            assert own not in js, f"{name} still does its own placement ({own})"


def test_the_shared_placement_loads_before_the_scripts_that_use_it():
    # Every page loads assets/site.js (mkdocs.yml): our scripts joined in SITE_SCRIPTS's order.
    block = re.search(r"^extra_javascript:\n((?:  .*\n)+)", (ROOT / "mkdocs.yml").read_text(), re.M).group(1)
    order = [line.split("#")[0].strip(" -\n") for line in block.splitlines() if line.split("#")[0].strip()]
    assert order == ["assets/site.js"]
    assert SITE_SCRIPTS.index("popover.js") < SITE_SCRIPTS.index("glossary.js")
    assert SITE_SCRIPTS.index("popover.js") < SITE_SCRIPTS.index("provenance.js")


# ---------------------------------------------------------------- search index -------------
def test_search_keeps_a_table_by_its_first_column_only():
    html = ('<table><thead><tr><th>chip</th><th>ridge</th></tr></thead>'
            '<tbody><tr><td>H100</td><td class="x">295</td><td>3.35</td></tr></tbody></table>')
    out = search_quiet(html)
    assert '<th>chip</th>' in out and '<td>H100</td>' in out
    assert out.count('data-search-exclude="1"') == 3
    assert '<td data-search-exclude="1" class="x">295</td>' in out


def test_search_leaves_code_and_executed_output_out():
    html = ('<div class="highlight rl-result"><pre><span></span><code>batch 296</code></pre></div><p>prose</p>'
            '<div class="language-sh highlight"><pre class="x"><span></span><code>roofline ridge h100-sxm5</code></pre></div>')
    out = search_quiet(html)
    assert '<pre data-search-exclude="1"><span>' in out and '<pre data-search-exclude="1" class="x">' in out
    assert search_quiet("<p>prose <code>x</code></p>") == "<p>prose <code>x</code></p>"  # inline code stays
