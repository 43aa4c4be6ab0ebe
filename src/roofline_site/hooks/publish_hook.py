"""MkDocs hooks for machines and search engines: page descriptions, Markdown copies, llms.txt,
robots.txt and a byte-for-byte reproducible sitemap.

- Every page gets a `<meta name="description">`: front matter `description`, else `summary`
  (glossary entries), else the first paragraph of the page, shortened.
- Every page gets a Markdown copy beside its HTML (`ridge-point/index.md` next to
  `ridge-point/index.html`), converted from the rendered article, so numbers, executed blocks
  and generated tables appear as the reader sees them.
- `llms.txt` at the site root lists every page, grouped as in the nav, with its description and
  a link to its Markdown copy (https://llmstxt.org/).
- `sitemap.xml` drops `<lastmod>` (today's date would change the tree every day) unless
  SOURCE_DATE_EPOCH pins it, and `sitemap.xml.gz` is rewritten with a fixed gzip mtime.
"""

from __future__ import annotations

import gzip
import html as _html
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from roofline_site import serve_state
from roofline_site.glossary.pages import EDIT_MARKER
from roofline_site.html import escape as esc
from roofline_site.html.description import derived_description, shorten
from roofline_site.html.markdown_copy import CopyWriter, article_html, markdown_path


@dataclass(frozen=True)
class PageEntry:
    """What llms.txt says about one page."""

    title: str
    markdown_path: str  # relative to the site root, e.g. "ridge-point/index.md"
    description: str


_entries = serve_state.page_results("llms-txt")  # src_uri -> PageEntry, kept across a dirty serve's builds
_pending: dict[str, tuple[str, PageEntry]] = {}  # src_uri -> (copy path, entry), until its copy is back
_copies = CopyWriter()
_submitted: dict[str, str] = {}  # src_uri -> the content its copy was started from
# What Material's search plugin removes from page.content after indexing it (material/plugins/search/
# plugin.py, on_page_context). Should it remove more, the copy is started again from the final content.
MATERIAL_SEARCH_ATTRIBUTES = re.compile(r"\s?data-search-\w+=\"[^\"]+\"")
_nav = None
_current_source = ""  # the page being rendered, named in warnings that do not name it themselves


class _NamePage(logging.Filter):
    """Prefix a markdown-exec warning (a raising block) with the page it came from."""

    def filter(self, record):
        if (_current_source and record.name.startswith("mkdocs.plugins.markdown_exec")
                and not getattr(record, "roofline_page", False)):
            record.msg, record.args = f"{_current_source}: {record.getMessage()}", ()
            record.roofline_page = True
        return True


@event_priority(90)  # early: after the build hook's fork, before the figures start (the server boots meanwhile)
def on_config(config, **kwargs):
    _copies.start_server()
    handlers = logging.getLogger("mkdocs").handlers
    for handler in handlers:
        if not any(isinstance(f, _NamePage) for f in handler.filters):
            handler.addFilter(_NamePage())
    return config


def on_page_markdown(markdown, page, config, files, **kwargs):
    global _current_source
    src = page.file.abs_src_path or ""
    root = os.path.dirname(config["config_file_path"] or "")
    inside = src and root and os.path.commonpath([src, root]) == root
    _current_source = os.path.relpath(src, root) if inside else page.file.src_uri
    return markdown


def on_pre_build(config, **kwargs):
    global _nav
    _pending.clear()
    _submitted.clear()
    _nav = None


def on_nav(nav, config, files, **kwargs):
    global _nav
    _nav = nav
    _entries.keep_only(f.src_uri for f in files.documentation_pages())
    return nav


@event_priority(-100)  # last: the copy is made from the content every other hook has finished
def on_page_content(html, page, config, files, **kwargs):
    meta = page.meta
    description = meta.get("description")
    if not description:
        description = shorten(str(meta["summary"])) if meta.get("summary") else derived_description(html)
    if description:
        # The theme writes meta.description into an attribute unescaped, and a summary or a
        # first paragraph can quote a file: escaped here, read back as text for llms.txt.
        meta["description"] = esc.attr(description)
    # Start the Markdown copy now, while MkDocs renders the other pages (see markdown_copy), from the
    # content as it will be once Material's search has indexed it and dropped its data-search-*
    # attributes; were it started from this content, nearly every page would be converted twice.
    # A glossary entry's copy waits for on_page_context, where the glossary fills its "Mentioned in".
    if EDIT_MARKER not in html:
        final = MATERIAL_SEARCH_ATTRIBUTES.sub("", html)
        _copies.submit(page.file.src_uri, article_html(final, page.title or config["site_name"]))
        _submitted[page.file.src_uri] = final
    return html


@event_priority(-100)  # after the glossary fills an entry's "Mentioned in" list
def on_page_context(context, page, config, nav, **kwargs):
    src = page.file.src_uri
    if page.content is not None and page.content is not _submitted.get(src) and page.content != _submitted.get(src):
        _copies.submit(src, article_html(page.content, page.title or config["site_name"]))  # changed since
    _submitted.pop(src, None)
    md_rel = markdown_path(page.file.dest_uri)
    _pending[src] = (md_rel, PageEntry(page.title or "", md_rel,
                                       _html.unescape(page.meta.get("description") or "")
                                       or config.get("site_description") or ""))
    return context


def write_copies(site_dir: Path) -> None:
    """Write every page's Markdown copy and record it for llms.txt (pages with no article get none)."""
    try:
        copies = _copies.results()
    except RuntimeError as err:
        raise PluginError(str(err)) from None
    for src_uri, md in sorted(copies.items()):
        md_rel, entry = _pending[src_uri]
        if md:
            dest = site_dir / md_rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(md, encoding="utf-8")
            # No <link rel="alternate"> to the copy: Material's instant navigation treats every
            # alternate as a language version and fetches sitemap.xml beside it (a 404 per page).
            _entries[src_uri] = entry
    _pending.clear()


def _nav_sections(nav) -> list[tuple[str, list[str]]]:
    """[(section title, [src_uri, ...])] in nav order; top-level pages form the first section."""
    sections: list[tuple[str, list[str]]] = [("Start here", [])]

    def pages_in(items) -> list[str]:
        out = []
        for item in items:
            if getattr(item, "is_page", False):
                out.append(item.file.src_uri)
            elif getattr(item, "children", None):
                out.extend(pages_in(item.children))
        return out

    for item in (nav.items if nav else []):
        if getattr(item, "is_page", False):
            sections[0][1].append(item.file.src_uri)
        elif getattr(item, "children", None):
            sections.append((item.title, pages_in(item.children)))
    return [s for s in sections if s[1]]


def llms_txt(site_name: str, site_description: str, sections: list[tuple[str, list[str]]],
             entries: dict[str, PageEntry]) -> str:
    """The llms.txt text: title, summary, and one linked line per page, grouped by section."""
    lines = [f"# {site_name}", "", f"> {site_description}", "",
             "Every page below has a Markdown copy (the link). Numbers in it were computed at build "
             "time from the sourced spec registry, exactly as the HTML page shows them.", ""]
    listed: set[str] = set()
    rest = [uri for uri in sorted(entries) if not any(uri in uris for _, uris in sections)]
    groups = list(sections)
    glossary = [u for u in rest if u.startswith("glossary/")]
    other = [u for u in rest if not u.startswith("glossary/")]
    if glossary:
        groups.append(("Glossary", glossary))
    if other:
        groups.append(("Other pages", other))
    for title, uris in groups:
        rows = []
        for uri in uris:
            entry = entries.get(uri)
            if entry is None or uri in listed:
                continue
            listed.add(uri)
            rows.append(f"- [{esc.markdown(entry.title)}]({entry.markdown_path})"
                        + (f": {esc.markdown(entry.description)}" if entry.description else ""))
        if rows:
            lines += [f"## {title}", "", *rows, ""]
    return "\n".join(lines)


def deterministic_sitemap(site_dir: Path) -> None:
    """Drop unpinned <lastmod> dates from sitemap.xml and rewrite the .gz with a fixed mtime."""
    xml_path = site_dir / "sitemap.xml"
    if not xml_path.exists():
        return
    xml = xml_path.read_text(encoding="utf-8")
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is None:
        xml = re.sub(r"\s*<lastmod>[^<]*</lastmod>", "", xml)
        xml_path.write_text(xml, encoding="utf-8")
    mtime = int(epoch) if epoch else 0
    (site_dir / "sitemap.xml.gz").write_bytes(gzip.compress(xml.encode("utf-8"), mtime=mtime))


@event_priority(60)  # before the figures' publish (50), which waits for the last renders: none of this reads a page
def on_post_build(config, **kwargs):
    site_dir = Path(config["site_dir"])
    write_copies(site_dir)
    sections = _nav_sections(_nav)
    text = llms_txt(config["site_name"], config.get("site_description") or "", sections, _entries)
    (site_dir / "llms.txt").write_text(text, encoding="utf-8")
    robots = site_dir / "robots.txt"
    if not robots.exists():
        site_url = config.get("site_url") or ""
        sitemap = f"\nSitemap: {site_url}sitemap.xml\n" if site_url else ""
        robots.write_text(f"User-agent: *\nAllow: /\n{sitemap}", encoding="utf-8")
    deterministic_sitemap(site_dir)
