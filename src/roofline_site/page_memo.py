"""Three steps MkDocs and Material run on every page, kept between builds, so a rebuild redoes only what changed.

* `Page.render`, the Markdown-to-HTML conversion: Python-Markdown, its extensions and the executed
  examples (markdown-exec). It is a pure function of the page's Markdown (after the token hooks),
  its place, the other files its links resolve against, the Markdown settings, and, for the
  executed examples, the package and registry (derived's key) and the site glue
  (derived.glue_key). A page whose key matches what the last build stored gets that build's
  HTML, table of contents, title and anchors, exactly as rendering sets them.
* Material's search indexing (`SearchIndex.add_entry_from_context`), which parses each page's
  HTML with Python's HTMLParser: a pure function of the page's final content, URL, title, table of
  contents and search settings. A page keyed alike gets the entries the last build made.

* The theme's template, which writes the whole page around its content (Jinja): a pure function of
  the page (its content, table of contents, title, metadata, URLs), the navigation (every page's title
  and URL, in order), the configuration, the theme's templates (Material's version, this site's
  overrides) and the site glue. A page keyed alike gets the HTML the last build wrote.

On a warm build they were about 1.5 s, 0.7 s and 0.9 s of CPU, producing what the last build
produced. `install()` wraps all three; any page whose key differs is rendered, indexed or written and stored.
All three read a page's numbers as text they keep as it is: each runs on the page with each value as a hole
(`html.values.without_values`), keyed by that, and the values go back into what it made, so a spec edit that
changes only a page's numbers converts, indexes and writes it from the store.

A stored render comes from a build that finished (derived stores at the end of a build), so
under --strict it logged no warning; the link and anchor checks across pages still run, since
they read what each page stores. Outside a build, or on a cold one (ROOFLINE_FIGURE_CACHE=0),
pages are rendered as MkDocs renders them.
"""

from __future__ import annotations

import hashlib
import logging
import re
from contextlib import contextmanager
from pathlib import Path

from jinja2 import Template
from material.plugins.search.plugin import SearchIndex
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc

from roofline_site import derived
from roofline_site.front_matter import strings_in
from roofline_site.html.values import holds_hole, with_values, without_values

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")  # a function's repr: the same settings in every process
EXECUTED = re.compile(r"\bexec\s*=")  # a fence markdown-exec runs (any spelling of its option: when in doubt, keyed)
_per_build: dict[str, tuple[object, str]] = {}  # what -> (the build's object it was taken from, its digest)


def _once_per_build(what: str, of: object, digest) -> str:
    """`digest()`, worked out once for the object `of` (this build's Files or navigation, held so that
    its id is not reused while kept): the next build brings new objects, and it is worked out again."""
    held = _per_build.get(what)
    if held is None or held[0] is not of:
        held = _per_build[what] = (of, digest())
    return held[1]


def _settings(config) -> str:
    """What of the config shapes a conversion: extensions and their settings, URL style, link checks."""
    parts = (config["markdown_extensions"], config["mdx_configs"], config["use_directory_urls"],
             config["validation"], config.get("site_url"))
    return _ADDRESS.sub("", repr(parts))


def _listing(files) -> str:
    """A digest of every file's source and URL: links and anchors resolve against them."""
    return _once_per_build("files", files, lambda: derived.digest(
        "\n".join(f"{f.src_uri}\t{f.dest_uri}\t{f.url}" for f in sorted(files, key=lambda f: f.src_uri))))


def _stored(page: Page) -> tuple:
    """What rendering set on `page`, in a form that outlives this build's File objects."""
    links = {f.src_uri: dict(anchors) for f, anchors in (page.links_to_anchors or {}).items()}
    toc = [_toc_tokens(item) for item in page.toc]
    return page.content, toc, page._title_from_render, set(page.present_anchor_ids or ()), links


def _toc_tokens(item) -> dict:
    """A table-of-contents item as Python-Markdown's toc_tokens, from which MkDocs builds it."""
    return {"level": item.level, "id": item.id, "name": item.title, "children": [_toc_tokens(c) for c in item.children]}


def _restore(page: Page, stored: tuple, files) -> None:
    content, toc, title, anchors, links = stored
    page.content, page.toc, page._title_from_render = content, get_toc(toc), title
    page.present_anchor_ids = set(anchors)
    if logging.getLogger("mkdocs.structure.pages").getEffectiveLevel() > logging.DEBUG:
        targets = {src: files.get_file_from_path(src) for src in links}
        page.links_to_anchors = {targets[src]: dict(a) for src, a in links.items() if targets[src] is not None}


_original = Page.render


def render(self: Page, config, files) -> None:
    """Page.render, or what the last build's render of the same page set (see the module)."""
    if self.markdown is None:
        return _original(self, config, files)
    # An executed example reads the package and the registry; plain Markdown reads neither.
    executed = EXECUTED.search(self.markdown)
    examples = derived.build_key() if executed else ""
    # A number's value is text Python-Markdown writes as it reads it (html/values.py): the page is converted
    # with each value a hole, and a page whose numbers alone changed takes its conversion from the store. Not
    # a page that executes examples (its code could read what the tokens wrote), nor one whose headings hold a
    # value (their anchors are made from their text): it is converted as it is, and kept so.
    holed, values = without_values(self.markdown) if not executed else (self.markdown, [])

    def key_of(markdown: str) -> str:
        return derived.digest(derived.glue_key(), examples, _settings(config), _listing(files), self.file.src_uri,
                              self.url, markdown)

    key = key_of(holed)
    found, stored = derived.lookup(("page render", self.file.src_uri), key)
    if found and stored == _WHOLE:
        key = key_of(self.markdown)
        found, stored = derived.lookup(("page render", self.file.src_uri), key)
        values = []
    if found:
        _restore(self, stored, files)
        self.content = with_values(self.content, values, once=False)
        return None
    if values:
        with _set(self, "markdown", holed):
            _original(self, config, files)
        made = _stored(self)
        # (none in a heading, whose anchor is made from its text, nor in the contents, title, anchors or links)
        if not any(holds_hole(h) for h in _HEADING.findall(self.content or "")) and \
                not any(holds_hole(text) for text in strings_in(made[1:])):
            derived.remember(("page render", self.file.src_uri), key, made)
            self.content = with_values(self.content, values, once=False)
            return None
        derived.remember(("page render", self.file.src_uri), key, _WHOLE)
        key = key_of(self.markdown)
    _original(self, config, files)
    derived.remember(("page render", self.file.src_uri), key, _stored(self))
    return None


#: Stored under a page's key with holes when one landed where its value cannot go back (a heading): converted whole.
_WHOLE = ("converted whole",)
_HEADING = re.compile(r"<h[1-6]\b.*?</h[1-6]\s*>", re.S | re.I)


_original_index = SearchIndex.add_entry_from_context


def add_entry_from_context(self: SearchIndex, page) -> None:
    """SearchIndex.add_entry_from_context, or the entries the last build made from the same page, its
    numbers' values put back (a page whose numbers alone changed is not parsed again). Material's indexer
    keeps each piece of text as it reads it, or leaves it out: indexed with holes, the values go back in
    whatever entry holds them (`with_values`)."""
    meta = {k: page.meta.get(k) for k in ("search", "tags", "title")}
    holed, values = _holed(page)
    key = derived.digest(_ADDRESS.sub("", repr((self.config, meta, page.title, page.url, str(page.toc)))),
                         derived.glue_key(), holed)  # (the glue key holds Material's version)
    found, entries = derived.lookup(("page search", page.file.src_uri), key)
    if not found:
        before = len(self.entries)
        with _set(page, "content", holed):
            _original_index(self, page)
        entries = self.entries[before:]
        del self.entries[before:]
        derived.remember(("page search", page.file.src_uri), key, [dict(e) for e in entries])
    self.entries.extend({k: with_values(v, values, once=False) if isinstance(v, str) else v for k, v in e.items()}
                        for e in entries)


_original_template_render = Template.render


def _nav_items(items) -> list:
    """Every navigation item's kind, title and URL, in order (what a page's navigation shows)."""
    out = []
    for item in items or ():
        children = getattr(item, "children", None)
        out.append((type(item).__name__, item.title, getattr(item, "url", None),
                    _nav_items(children) if children else None))
    return out


def _site_key(context) -> str:
    """A digest of what every page's template reads beside the page: the navigation, the configuration
    (less the folder this build writes to) and this site's template overrides."""
    nav, config = context.get("nav"), context.get("config")

    def digest() -> str:
        settings = {k: v for k, v in (config or {}).items() if k != "site_dir"}
        custom = Path(config["theme"].custom_dir) if config is not None and config["theme"].custom_dir else None
        # (read as every key's input is: derived.input_bytes, capped, a file it cannot read hashed by its reason)
        overrides = sorted((p.relative_to(custom).as_posix(), hashlib.sha256(derived.input_bytes(p)).hexdigest())
                           for p in custom.rglob("*") if p.is_file()) if custom is not None and custom.is_dir() else []
        return derived.digest(_ADDRESS.sub("", repr(sorted(settings.items(), key=lambda kv: kv[0]))),
                              repr(_nav_items(getattr(nav, "items", None))), repr(overrides))

    return _once_per_build("site", nav, digest)


def template_render(self: Template, *args, **kwargs) -> str:
    """Template.render, or the HTML the last build's render of the same page wrote (see the module)."""
    context = args[0] if len(args) == 1 and not kwargs and isinstance(args[0], dict) else None
    page = context.get("page") if context is not None else None
    if not isinstance(page, Page) or page.content is None or context.get("nav") is None:
        return _original_template_render(self, *args, **kwargs)
    holed, values = _holed(page)
    key = derived.digest(derived.glue_key(), self.name or "", _site_key(context), page.file.src_uri, page.url,
                         repr((page.canonical_url, page.edit_url, page.title, page.is_homepage, page.meta)),
                         repr((context.get("base_url"), context.get("extra_css"), context.get("extra_javascript"))),
                         str(page.toc), holed)
    found, html = derived.lookup(("page html", page.file.src_uri), key)
    if not found:
        with _set(page, "content", holed):  # (the template inserts the content as it is: its holes, each where it was)
            html = _original_template_render(self, *args, **kwargs)
        derived.remember(("page html", page.file.src_uri), key, html)
    return with_values(html, values, once=False)


def _holed(page: Page) -> tuple[str, list[str]]:
    """The page's content with its numbers' values as holes, and the values (`html.values.without_values`),
    worked out once per content."""
    content = page.content or ""
    held = getattr(page, "_rl_holed", None)
    if held is None or held[0] is not content:
        held = (content, *without_values(content))
        page._rl_holed = held
    return held[1], held[2]


@contextmanager
def _set(page: Page, name: str, value: str):
    """`page.<name>` is `value` inside the block (its Markdown or content with holes), and what it was again after."""
    real = getattr(page, name)
    setattr(page, name, value)
    try:
        yield
    finally:
        setattr(page, name, real)


def install() -> None:
    """Wrap the three steps for this process (idempotent)."""
    Page.render = render
    SearchIndex.add_entry_from_context = add_entry_from_context
    Template.render = template_render
