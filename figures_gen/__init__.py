"""Build-time figures. One module per figure; every plotted value comes from `roofline`.

A figure module defines:

    NAME: str                      file stem: figures/<NAME>.svg and figures/<NAME>.csv
    def data() -> Table            the plotted data (written beside the SVG as CSV)
    def draw(fig, table) -> None   draw on a matplotlib Figure from that table only
    def alt() -> str               alt text, built from roofline quantities (no typed numbers)
    def caption() -> str           one or two sentences under the figure
    NARROW_SIZE_IN (optional)      the phone variant's size, where the default does not fit
    USES_RUN_CEILINGS (optional)   True where data() reads every published run's ceiling (a build computes them once)

Every figure is shown in four variants (VARIANTS: wide or narrow, light or dark) from the same
draw(): each layout is rendered once, light, and its dark variant is mapped from that SVG's colours.
The helpers, one concern each:

    _registry   FIGURES and `module(name)`
    _table      Table: the plotted data and its CSV
    _style      the shared style: sizes, fonts, colours, ticks
    _narrow     the phone layout: larger text, wrapped labels, legends below, fitted width
    _labels     point labels placed where they collide with nothing, and the key under a figure
    _dark       the dark variant, mapped from the light SVG's text
    _render     rendering: every variant, the render count, the SVG's display size
    _ticks_once each axis' ticks worked out once per matplotlib layout pass (a third of a render)
    _text_metrics each string measured and each text laid out once per process, not at every pass;
                what one process measured handed to the next (fonts_key, measured_here, keep_measured)

`render(name)` gives the wide light SVG and the CSV; `figure_files(name)` every variant and the CSV,
what the site build (src/roofline_site/gen/figures.py) publishes, so the tests compare like with like.
"""

from __future__ import annotations

from figures_gen._dark import DARK_BG, DARK_FG, dark_svg
from figures_gen._labels import key_labels, point_labels
from figures_gen._narrow import narrow
from figures_gen._registry import FIGURES, module
from figures_gen._render import (DISPLAY_WIDTH_PX, MAX_RENDERS, RENDERS, VARIANTS, display_size, figure_files,
                                 figure_files_counted, render, render_variants, warm_up)
from figures_gen._style import FIG_SIZE_IN, MIN_TICKS, NARROW_MIN_FONT, NARROW_SIZE_IN, log_ticks, shown_ticks
from figures_gen._table import Table
from figures_gen._text_metrics import fonts_key, keep_measured, measured_here

__all__ = ["DARK_BG", "DARK_FG", "DISPLAY_WIDTH_PX", "FIGURES", "FIG_SIZE_IN", "MAX_RENDERS", "MIN_TICKS",
           "NARROW_MIN_FONT", "NARROW_SIZE_IN", "RENDERS", "Table", "VARIANTS", "dark_svg", "display_size",
           "figure_files", "figure_files_counted", "key_labels", "log_ticks", "module", "narrow", "point_labels",
           "render", "render_variants", "shown_ticks", "warm_up"]
