"""Compile hints, to shorten a page's start-up: the scripts every page runs as it starts are marked for eager compilation.

V8 compiles a function lazily, on the main thread, the first time it is called, unless the script's
first line is the magic comment `//# allFunctionsCalledOnLoad` (Chrome 136 and later; to other engines
it is a comment). Then every function in it is compiled on the background thread that streams the
script in. Material's bundle calls most of its functions as it starts (its components mount on every
page), so under Lighthouse's fourfold CPU slowdown its evaluation fell from 105-126 ms to 74-101 ms
and its start-up from 59-131 ms to 41-63 ms (traces of home and a glossary entry, two runs each),
and the median blocking time of four pages from 25-59 ms to 0-17 ms (four interleaved runs each).

Only scripts that run whole on load are marked: Material's bundle on every page and the calculator's
step mode on its page. The search worker and the small scripts stay lazy (a script under V8's
streaming threshold would compile on the main thread anyway). The comment is one line added at the
top, so the bundle's source map gains one empty line to keep pointing at the right columns.
"""

from __future__ import annotations

import re
from pathlib import Path

from roofline_site.paths import theme_file

HINT = "//# allFunctionsCalledOnLoad\n"
_MAPPINGS = re.compile(r'("mappings"\s*:\s*")')


def hinted(js: str) -> str:
    """`js` with the compile hint as its first line (once).

    >>> hinted("a();")
    '//# allFunctionsCalledOnLoad\\na();'
    >>> hinted(hinted("a();")) == hinted("a();")
    True
    """
    return js if js.startswith(HINT) else HINT + js


def shifted_map(source_map: str) -> str:
    """A version 3 source map moved one generated line down: its mappings start with one empty line
    (a ";"), the line the hint takes. A map without mappings is refused, not passed on unchanged.

    >>> shifted_map('{"version": 3, "names": [], "mappings": "AAAA;AACA"}')
    '{"version": 3, "names": [], "mappings": ";AAAA;AACA"}'
    >>> shifted_map('{"version": 3}')
    Traceback (most recent call last):
    ValueError: a source map without "mappings": cannot move it below the compile hint
    """
    moved, found = _MAPPINGS.subn(r"\1;", source_map, count=1)
    if not found:
        raise ValueError('a source map without "mappings": cannot move it below the compile hint')
    return moved


def hint_material_bundle(site_dir: Path, theme_dirs: list[str]) -> None:
    """Mark Material's bundle in `site_dir` for eager compilation, written from the theme's own copy and
    its map, so a dirty rebuild that kept the built one marks it once."""
    for bundle in sorted((site_dir / "assets" / "javascripts").glob("bundle.*.min.js")):
        rel = bundle.relative_to(site_dir).as_posix()
        source = theme_file(theme_dirs, rel)
        if source is None:
            continue  # not Material's: leave it as built
        bundle.write_text(hinted(source.read_text(encoding="utf-8")), encoding="utf-8")
        source_map = theme_file(theme_dirs, rel + ".map")
        if source_map is not None:
            Path(str(bundle) + ".map").write_text(shifted_map(source_map.read_text(encoding="utf-8")), encoding="utf-8")


def hint_scripts(site_dir: Path, ours: tuple[str, ...]) -> None:
    """Mark each of `ours` (paths in `site_dir`, already minified: rjsmin drops comments) for eager
    compilation."""
    for rel in ours:
        script = site_dir / rel
        if script.is_file():
            script.write_text(hinted(script.read_text(encoding="utf-8")), encoding="utf-8")
