"""Build-time figures. One module per figure; every plotted value comes from `roofline`.

A figure module defines:

    NAME: str                      file stem: figures/<NAME>.svg and figures/<NAME>.csv
    def data() -> Table            the plotted data (written beside the SVG as CSV)
    def draw(fig, table) -> None   draw on a matplotlib Figure from that table only
    def alt() -> str               alt text, built from roofline quantities (no typed numbers)
    def caption() -> str           one or two sentences under the figure

`render(name)` gives the SVG bytes and CSV text; the same call backs the site build
(src/roofline_site/gen_figures.py) and the tests, so the tests compare like with like.
"""

from __future__ import annotations

import csv
import importlib
import io
from dataclasses import dataclass
from typing import Sequence

#: Every figure, by module name, in the order they are built.
FIGURES: tuple[str, ...] = (
    "h100_roofline",
    "intensity_line",
    "ridge_overlay",
    "sol_bandwidth",
    "kv_context",
    "prefill_intensity",
    "batch_sweep",
    "hardware_map",
    # playbook (docs/playbook.md): one figure per move
    "playbook_quantization",
    "playbook_speculative",
    "playbook_fusion",
    "playbook_paged",
    "playbook_moe",
    "playbook_tp",
    "playbook_disagg",
    # many chips (docs/many-chips.md)
    "many_chips_tp",
    # measurements (docs/measure.md, docs/real-systems.md)
    "measured_roofline",
    "real_vs_sol",
)

FIG_SIZE_IN = (7.0, 4.2)


@dataclass(frozen=True)
class Table:
    """Columns (with units in their names) and rows of the plotted data."""

    columns: tuple[str, ...]
    rows: tuple[tuple, ...]

    def column(self, name: str) -> list:
        i = self.columns.index(name)
        return [r[i] for r in self.rows]

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for row in self.rows:
            w.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in row])
        return buf.getvalue()


def module(name: str):
    if name not in FIGURES:
        raise KeyError(f"unknown figure '{name}'; known: {', '.join(FIGURES)}")
    return importlib.import_module(f"figures_gen.{name}")


def _style():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "svg.hashsalt": "roofline",      # stable element ids: byte-identical SVG across builds
        "svg.fonttype": "none",          # text as text: small files, the page's own font
        "font.family": "sans-serif",
        "font.size": 10,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "figure.dpi": 100,
    })
    return plt


def render(name: str) -> tuple[bytes, str]:
    """(SVG bytes, CSV text) of one figure, deterministic."""
    plt = _style()
    mod = module(name)
    table = mod.data()
    fig = plt.figure(figsize=FIG_SIZE_IN)
    try:
        mod.draw(fig, table)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, transparent=False)
    finally:
        plt.close(fig)
    return buf.getvalue(), table.to_csv()


def log_ticks(ax, axis: str, values: Sequence[float]) -> None:
    """Plain-number tick labels on a log axis (1, 10, 100 ...) rather than 10^k."""
    from matplotlib.ticker import FuncFormatter

    fmt = FuncFormatter(lambda v, _: f"{v:g}")
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(fmt)
