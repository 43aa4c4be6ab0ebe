"""The figure files of a build, which fill in while the pages render.

The gen-files script (gen/figures.py) starts the figures (from the cache, or rendering in worker
processes) and hands them over with `begin`; the figures hook then, for the same build:

* `add_files` (on_files) lists every figure file with MkDocs at once, so a page's figure markup finds it;
* `wait_for` (on_page_markdown) stops the build at the first figure already failed, and makes a page
  that quotes a figure wait for that one alone, so the error is the render's own one line;
  reading a file's bytes (the markup reads each SVG's size) waits for that figure too;
* `publish` (on_post_build, before the site is swapped in) waits for the rest, checks the render
  counts, stores the cache (every figure in) and writes every file;
* `abandon` (on_build_error) cancels what has not started.

Pages that quote no figure (most of them) never wait. MkDocs copies static files before it writes
the pages, so a figure file is written by `publish`, not by MkDocs' copy.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File

_build: dict = {"figures": None, "files": []}

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

    def copy_file(self, dirty: bool = False) -> None:
        """Nothing yet: MkDocs copies before the pages render, and `publish` writes every figure file."""


def begin(figures) -> None:
    """This build's figures (gen/figures.py's `Figures`): what the rest of this module serves."""
    abandon()  # (a `mkdocs serve` build that failed before publishing)
    _build.update(figures=figures, files=[])


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
            _build["files"].append(f)
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


def wait_for(markdown: str) -> None:
    """Raise the first failure among the figures done so far; wait for each figure `markdown` quotes."""
    figures = _build["figures"]
    if figures is None:
        return
    figures.raise_failed()
    for name in quoted(markdown):
        if name in figures.stems:  # (an unknown name is the figure token's to refuse)
            figures.files(figures.stems[name])


def publish() -> None:
    """Wait for every figure, check and cache them (gen/figures.py), and write every figure file."""
    figures, files = _build["figures"], _build["files"]
    if figures is None:
        return
    try:
        figures.finish()
        for f in files:
            target = Path(f.abs_dest_path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(f.content_bytes)
    finally:
        abandon()


def abandon() -> None:
    """Stop this build's figures (a failed build): what has not started is not rendered."""
    figures = _build["figures"]
    _build.update(figures=None, files=[])
    if figures is not None:
        figures.close()
