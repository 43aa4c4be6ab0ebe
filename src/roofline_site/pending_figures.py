"""The figure files of a build, which fill in while the pages render.

The gen-files script (gen/figures.py) starts the figures (from the cache, or rendering in worker
processes) and hands them over with `begin`; the figures hook then, for the same build:

* `add_files` (on_files) lists every figure file with MkDocs at once, so a page's figure markup finds it;
* `raise_failed` (on_page_markdown) stops the build at the first page after a figure failed, with
  the render's own one line;
* `texts` (the figure markup) gives a figure's alt text and caption where its render is done or cached;
* `size_attributes` (the figure markup) gives an SVG's width and height, or, while that figure is
  still rendering, a marker that `sizes_in` (on_post_page) replaces if it is in by then; a page
  whose figures are still rendering is written with its markers and noted, and never waits: the
  pages after it render while the figures do (a page that waited would hold every later page, and
  the build would end with this process working alone);
* `publish` (on_post_build, before the site is swapped in and before anything reads the pages
  whole) waits for the rest, checks the render counts, stores the cache (every figure in), writes
  every file and fills in the sizes of the pages noted;
* `abandon` (on_build_error) cancels what has not started.

MkDocs copies static files before it writes the pages, so a figure file is written by `publish`,
not by MkDocs' copy.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

_build: dict = {"figures": None, "files": {}, "unsized": {}}  # unsized: page file -> its source (sizes_in)
# Where a page's figure markup declares the size of an SVG still rendering (sizes_in fills it in).
_MARK = "data-rl-pending-size"
_MARKED = re.compile(_MARK + r'="([^"]+)"')

# `{{ figure("h100_roofline") }}` in a page's Markdown (numbers_hook renders the token).
_QUOTED = re.compile(r"""\bfigure\(\s*["']([A-Za-z0-9_]+)["']""")


class FigureFile(File):
    """A figure's SVG or CSV under figures/: its bytes are the render's, waited for when first read."""

    def __init__(self, src_uri: str, stem: str, part: str, figures, config):
        super().__init__(src_uri, src_dir=None, dest_dir=config["site_dir"],
                         use_directory_urls=config["use_directory_urls"])
        self.generated_by = "roofline_site.pending_figures"
        self._stem, self._part, self._figures = stem, part, figures

    @property
    def content_bytes(self) -> bytes:
        svgs, csv_text = self._figures.files(self._stem)
        return csv_text.encode() if self._part == ".csv" else svgs[self._part]

    @property
    def content_string(self) -> str:
        return self.content_bytes.decode("utf-8")

    def is_modified(self) -> bool:
        return True

    def ready(self) -> bool:
        """Whether its figure is in (reading it then waits for nothing)."""
        return self._figures.ready(self._stem)

    def copy_file(self, dirty: bool = False) -> None:
        """Nothing yet: MkDocs copies before the pages render, and `publish` writes every figure file."""


def started() -> bool:
    """Whether this build's figures have begun (`begin`), and are not yet published or abandoned."""
    return _build["figures"] is not None


def begin(figures) -> None:
    """This build's figures (gen/figures.py's `Figures`): what the rest of this module serves."""
    abandon()  # (a `mkdocs serve` build that failed before publishing)
    _build.update(figures=figures, files={}, unsized={})


def add_files(files, config):
    """Every figure file, listed with MkDocs' files (none when no figures were started)."""
    figures = _build["figures"]
    if figures is None:
        return files
    for stem in figures.stems.values():
        for part in [*figures.variants, ".csv"]:
            name = f"figures/{stem}{part}" if part == ".csv" else f"figures/{stem}{part}.svg"
            f = FigureFile(name, stem, part, figures, config)
            files.append(f)
            _build["files"][name] = f
    return files


def quoted(markdown: str) -> list[str]:
    """The figures a page's Markdown quotes, in order, each once.

    >>> quoted('Text {{ figure("h100_roofline") }} and {{ figure( "kv_context" ) }}, {{ figure("h100_roofline") }}')
    ['h100_roofline', 'kv_context']
    """
    return list(dict.fromkeys(_QUOTED.findall(markdown)))


def page_order(docs: Path) -> list[Path]:
    """The Markdown files under `docs` in the order MkDocs reads them: a folder's index first, then its
    other pages by name, then its subfolders (gen-files' order, which MkDocs keeps)."""
    def key(path: Path) -> tuple:
        parts = path.relative_to(docs).parts
        return tuple(("0" if path.stem == "index" else "1") + p if i == len(parts) - 1 else "2" + p
                     for i, p in enumerate(parts))
    return sorted(docs.rglob("*.md"), key=key)


def texts(name: str) -> tuple[str, str] | None:
    """Figure `name`'s (alt text, caption) from this build's figures (the cache, or its finished render),
    waiting for nothing; None outside a build or where they hold none yet."""
    figures = _build["figures"]
    return None if figures is None else figures.texts(name)


def raise_failed() -> None:
    """The build error of the first figure that has failed by now, if any (waits for none)."""
    if _build["figures"] is not None:
        _build["figures"].raise_failed()


def size_attributes(f: File) -> str:
    """`width=".." height=".."` to declare for the SVG `f` (figures_gen.display_size); for a figure still
    rendering, a marker that `sizes_in` replaces with them."""
    if isinstance(f, FigureFile) and not f.ready():
        return f'{_MARK}="{html.escape(f.src_uri)}"'
    return _size(f.content_bytes)


def _size(svg: bytes) -> str:
    from figures_gen import display_size

    w, h = display_size(svg)
    return f'width="{w}" height="{h}"'


def sizes_in(page_html: str, page: str, written_to: Path | None = None) -> str:
    """`page_html` with every size `size_attributes` left pending filled in. Where one of its figures is
    still rendering and the page will be written to `written_to`, the page keeps its markers and
    `publish` fills them in the file; without `written_to`, this waits for those figures."""
    if _MARK not in page_html:
        return page_html
    if written_to is not None and _build["figures"] is not None and not all(
            f.ready() for f in map(_build["files"].get, map(html.unescape, _MARKED.findall(page_html)))
            if isinstance(f, FigureFile)):
        _build["unsized"][written_to] = page
        return page_html

    def size(m: re.Match) -> str:
        f = _build["files"].get(html.unescape(m.group(1)))
        if f is None:  # (a marker a page wrote itself: not ours to fill)
            return m.group(0)
        try:
            return _size(f.content_bytes)
        except ValueError as err:
            raise PluginError(f"{page}: figure {f.src_uri}: {err}") from None
    return _MARKED.sub(size, page_html)


def publish() -> None:
    """Wait for every figure, check and cache them (gen/figures.py), and write every figure file."""
    figures, files = _build["figures"], _build["files"]
    if figures is None:
        return
    try:
        figures.finish()
        for f in files.values():
            target = Path(f.abs_dest_path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(f.content_bytes)
        for target, page in _build["unsized"].items():  # every figure is in: nothing waits
            target.write_text(sizes_in(target.read_text(encoding="utf-8"), page), encoding="utf-8")
    finally:
        abandon()


def abandon() -> None:
    """Stop this build's figures (a failed build): what has not started is not rendered."""
    figures = _build["figures"]
    _build.update(figures=None, files={}, unsized={})
    if figures is not None:
        figures.close()
