"""A figure as another process rendered it, for the determinism checks."""

from __future__ import annotations

from roofline_site import figure_cache
from roofline_site.paths import ROOT


def second_render(name: str) -> bytes:
    """Figure `name`'s wide light SVG, rendered a second time.

    Where a build has rendered it from these exact inputs (the figure cache, roofline_site.figure_cache:
    the package, the figure modules, the registry entries it read, the measurements, matplotlib's
    version), that render is taken: it came from another interpreter, so it also catches output that depends on
    the process (a hash seed, an id counter). Otherwise the figure is rendered again here.
    """
    from figures_gen import VARIANTS, module, render

    store = figure_cache.FigureStore(ROOT / ".cache" / "figures", figure_cache.code_key())
    cached = store.lookup(name, module(name).NAME, VARIANTS)
    return cached[0][""] if cached is not None else render(name)[0]
