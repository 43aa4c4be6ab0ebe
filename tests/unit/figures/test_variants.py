"""Figures rendered once per layout: the dark variants mapped from the light SVG, the renders counted.

The dark mapping's expected colours are derived by hand from its rule (comments); the render count
is checked on a real figure here and on a whole cold build in tests/site/test_gates_reproducible.py.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from figures_gen import DARK_BG, DARK_FG, RENDERS, dark_svg, render_variants
from figures_gen._dark import dark_colour
from tests.conftest import ROOT


@pytest.mark.parametrize("prop, light, dark", [
    ("fill", "ffffff", DARK_BG),     # a white face (background, text box, hollow marker): the background
    ("fill", "f5f5f5", DARK_BG),     # luminance 0.961 > 0.95: still a background
    ("stroke", "000000", DARK_FG),   # black text, spines and ticks: the foreground
    ("stroke", "ffffff", "#ffffff"),  # a white line stays (luminance >= 0.55: readable on the dark)
    ("stroke", "b0b0b0", "#b0b0b0"),  # the grid: luminance 0.690 >= 0.55, kept
    # Okabe-Ito blue (0, 114, 178)/255 = (0, 0.447, 0.698): luminance 0.7152*0.447 + 0.0722*0.698
    # = 0.370; a hue (max - min = 0.698 > 0.15), so mixed towards white by min(0.75, 0.55 - 0.370 + 0.25)
    # = 0.430: (0.430, 0.685, 0.828) = (110, 175, 211) = #6eafd3.
    ("fill", "0072b2", "#6eafd3"),
    # the label grey #424242 = 66/255 = 0.259 on each channel: a grey, so mixed by 1 - 0.259 - 0.12 = 0.621:
    # 0.259 + 0.741 * 0.621 = 0.719 -> 183 = #b7b7b7.
    ("fill", "424242", "#b7b7b7"),
])
def test_dark_colour_follows_the_rule(prop, light, dark):
    assert dark_colour(prop, light) == dark


def test_dark_svg_maps_styles_and_attributes_and_names_the_default_fill():
    light = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
             b'<path style="fill: #ffffff; stroke: #000000; stroke-width: 0.8"/>'
             b'<pattern><path fill="#0072b2" stroke="#000000"/></pattern><text>black by default</text>'
             b'<text style="fill: #0072b2">a device named fill: #000000</text></svg>')
    assert dark_svg(light) == (
        b'<svg fill="#e2e4e9" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
        b'<path style="fill: #1e2129; stroke: #e2e4e9; stroke-width: 0.8"/>'
        b'<pattern><path fill="#6eafd3" stroke="#e2e4e9"/></pattern><text>black by default</text>'
        b'<text style="fill: #6eafd3">a device named fill: #000000</text></svg>')


def test_each_layout_of_a_figure_is_rendered_once_and_its_dark_variant_mapped():
    name = "playbook_paged"
    before = RENDERS[name]
    svgs = render_variants(name)
    assert RENDERS[name] - before == 2  # the wide layout and the narrow one
    assert svgs["-dark"] == dark_svg(svgs[""]) and svgs["-narrow-dark"] == dark_svg(svgs["-narrow"])
    assert svgs[""] != svgs["-narrow"]


def _gen_script(monkeypatch):
    """src/roofline_site/gen/figures.py loaded as a library, rendering nothing at import."""
    monkeypatch.setitem(sys.modules, "mkdocs_gen_files", type(sys)("mkdocs_gen_files"))
    spec = importlib.util.spec_from_file_location("gen_figures_counted", ROOT / "src/roofline_site/gen/figures.py")
    gen = importlib.util.module_from_spec(spec)
    monkeypatch.setenv("ROOFLINE_FIGURE_CACHE", "0")
    monkeypatch.setattr("figures_gen.FIGURES", [])
    spec.loader.exec_module(gen)
    return gen


def test_a_figure_rendered_a_third_time_fails_the_build_and_the_counts_are_written(monkeypatch, tmp_path):
    from mkdocs.exceptions import PluginError

    gen = _gen_script(monkeypatch)
    counts = tmp_path / "renders.json"
    monkeypatch.setenv("ROOFLINE_FIGURE_RENDERS", str(counts))
    monkeypatch.setattr(gen, "RENDERS", {"ridge_overlay": 2, "kv_context": 3})
    with pytest.raises(PluginError) as err:
        gen._check_renders()
    assert str(err.value) == ("figure module figures_gen/kv_context.py was rendered 3 times in one build "
                              "(at most 2: the wide and the narrow layout)")
    assert counts.read_text() == '{"kv_context": 3, "ridge_overlay": 2}'
    monkeypatch.setattr(gen, "RENDERS", {"ridge_overlay": 2})
    gen._check_renders()  # two is the most, and allowed


def test_a_figure_failing_in_a_worker_process_is_named_in_one_line(monkeypatch):
    """The build's pool (two workers, forked so the stand-in below reaches them): the failing figure is
    named with its error on one line, as when figures rendered in the build's own process."""
    from mkdocs.exceptions import PluginError

    import figures_gen._render

    gen = _gen_script(monkeypatch)
    monkeypatch.setenv("ROOFLINE_FIGURE_WORKERS", "2")
    monkeypatch.setattr(gen.threading, "active_count", lambda: 1)  # fork: the workers see the stand-in

    def stand_in(name):
        if name == "kv_context":
            raise ZeroDivisionError("division by zero")
        return {"": b"<svg/>"}, "x,y\n1,2\n"

    monkeypatch.setattr(figures_gen._render, "figure_files", stand_in)
    assert gen.render_all(["ridge_overlay", "h100_roofline"]) == {
        name: ({"": b"<svg/>"}, "x,y\n1,2\n") for name in ("ridge_overlay", "h100_roofline")}
    with pytest.raises(PluginError) as err:
        gen.render_all(["ridge_overlay", "kv_context"])
    assert str(err.value) == "figure module figures_gen/kv_context.py failed: ZeroDivisionError: division by zero"
