"""A figure as another process rendered it, for the determinism checks."""

from __future__ import annotations

from roofline_site import derived
from roofline_site.paths import ROOT


def second_render(name: str) -> bytes:
    """Figure `name`'s wide light SVG, rendered a second time.

    Where a build has rendered it from these exact inputs (the figure cache under derived's key:
    the package, the figure modules, the registry, the measurements, matplotlib's version), that
    render is taken: it came from another interpreter, so it also catches output that depends on
    the process (a hash seed, an id counter). Otherwise the figure is rendered again here.
    """
    from figures_gen import module, render

    cached = ROOT / ".cache" / "figures" / derived.cache_key() / f"{module(name).NAME}.svg"
    try:
        return cached.read_bytes()
    except OSError:
        return render(name)[0]
