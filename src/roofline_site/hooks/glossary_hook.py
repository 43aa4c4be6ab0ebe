"""MkDocs hooks for the glossary: hover cards on every page, "Mentioned in" lists, redirects.

Order within one build (MkDocs 1.6): on_config loads and checks the entries and feeds old
slugs to mkdocs-redirects; the gen-files script writes glossary/<slug>.md; on_files keeps
entry pages out of the nav check; on_page_content annotates each page's HTML and records
which entries it mentions or links; MkDocs renders every page's content before it renders
any template, so on_page_context can then fill each entry's "Mentioned in" from that record.
Cards and backlinks come from one pass over the same HTML, so they cannot disagree.
"""

from __future__ import annotations

import html
import json
from dataclasses import replace
from pathlib import Path
from urllib.parse import urljoin

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import InclusionLevel
from mkdocs.utils import get_relative_url

from roofline_site import derived, serve_state
from roofline_site.html.values import with_values, without_values

INDEX = "glossary/index.md"
_state: dict = {"glossary": None, "key": ""}
# page src_uri -> (title, url, slugs it mentions or links); kept across the builds of a dirty serve
_mentions = serve_state.page_results("glossary-mentions")


def _glossary():
    return _state["glossary"]


def entry_slug(src_uri: str) -> str | None:
    """The slug of a generated entry page (glossary/<slug>.md), else None."""
    if src_uri.startswith("glossary/") and src_uri.count("/") == 1 and src_uri != INDEX and src_uri.endswith(".md"):
        return src_uri[len("glossary/"):-3]
    return None


def on_config(config, **kwargs):
    import importlib

    from roofline_site.glossary import annotate, entries as gmod, matching, pages, records

    for module in (records, matching, annotate, pages, gmod):  # lowest first: each reload sees the new layer below
        importlib.reload(module)  # `mkdocs serve`: pick up edits to the matcher itself
    try:
        g = gmod.load_glossary()
    except gmod.GlossaryError as err:
        raise PluginError(str(err)) from None
    _state["glossary"] = g
    # What a page's annotation reads besides the page: the entries as loaded and the matcher's code,
    # which `mkdocs serve` reloads above (so hashed at every build, unlike derived.glue_key).
    code = "".join(Path(m.__file__).read_text(encoding="utf-8") for m in (records, matching, annotate, pages, gmod))
    _state["key"] = derived.digest(repr(g.entries), repr(g.redirects), code)
    redirects = config.plugins.get("redirects")
    if g.redirects:
        if redirects is None:
            raise PluginError("glossary/_redirects.yml needs the 'redirects' plugin in mkdocs.yml plugins")
        maps = redirects.config["redirect_maps"]
        for old, new in g.redirects.items():
            maps[f"glossary/{old}.md"] = f"glossary/{new}.md"
    return config


def on_files(files, config, **kwargs):
    pages = files.documentation_pages()
    _mentions.keep_only(f.src_uri for f in pages)
    # Entry pages are reached from the glossary index and from every mention, not the nav.
    for f in pages:
        if entry_slug(f.src_uri):
            f.inclusion = InclusionLevel.NOT_IN_NAV
    _skip_unchanged_entries(pages)
    return files


def _skip_unchanged_entries(pages) -> None:
    """In a dirty serve, render an entry page again only when its text or its "Mentioned in" list changed.

    Its list is read when MkDocs reaches the entry, so every other page must come first: the
    generated entries are added after docs/, and if that ever changes they simply always render.
    """
    generated = [i for i, f in enumerate(pages) if f.src_uri == INDEX or entry_slug(f.src_uri)]
    if not generated or generated[0] != len(pages) - len(generated):
        return
    for f in pages[generated[0]:]:
        slug = entry_slug(f.src_uri)
        serve_state.render_when_changed(f, (lambda s=slug: _mentioned_by(s)) if slug else (lambda: None))


def _mentioned_by(slug: str) -> frozenset:
    """(src_uri, title, url) of every page that mentions or links the entry `slug`."""
    return frozenset((src, title, url) for src, (title, url, slugs) in _mentions.items() if slug in slugs)


def edit_url(config, repo_path: str | None) -> str | None:
    """A generated page's edit link: the file it is made from (`repo_path`, from the repository root).

    edit_uri points into docs/ and the entries live beside it, in glossary/.
    """
    if not (config.repo_url and config.edit_uri and repo_path):
        return None
    return urljoin(urljoin(config.repo_url.rstrip("/") + "/", config.edit_uri), f"../{repo_path}")


def on_page_content(html_text, page, config, files, **kwargs):
    g = _glossary()
    src = page.file.src_uri
    own = entry_slug(src)
    if g is not None and (own or src == INDEX):  # generated: MkDocs' own edit link would point into docs/
        page.edit_url = edit_url(config, g.by_slug[own].path if own in g.by_slug else None)
    if g is None or src == INDEX:
        return html_text
    result = _annotate(html_text, g, page, own)
    _mentions[src] = (page.title or src, page.url, (result.mentioned | result.linked) - {own})
    return result.html


@event_priority(-100)  # last: every other hook has seen the page with its cards
def on_post_page(output, page, config, **kwargs):
    # The cards ship apart: the page's cards.json, fetched by glossary.js when a reader first reaches for a term.
    from roofline_site.glossary.annotate import CARDS_FILE, cards_on_demand

    output, cards = cards_on_demand(output)
    if cards:
        target = Path(config["site_dir"]) / Path(page.file.dest_path).parent / CARDS_FILE
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(cards, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    return output


def _annotate(html_text, g, page, own):
    """The page annotated (roofline_site.glossary.annotate), or what the last build annotated from the same
    content, URL and glossary (a pure function of them: about half a second of a warm build)."""
    from roofline_site.glossary.entries import annotate_html

    # A number is never marked (html/walker.py's AS_WRITTEN): the page is annotated with each number's value
    # a hole (html/values.py), and a page whose numbers alone changed takes its marks from the store.
    holed, values = without_values(html_text)
    key = derived.digest(_state["key"], holed, page.url, own or "")
    result = derived.keyed(("page glossary", page.file.src_uri), key, lambda: annotate_html(
        holed, g, page.url, lambda slug: get_relative_url(f"glossary/{slug}/", page.url),
        exclude=frozenset({own}) if own else frozenset()))
    return replace(result, html=with_values(result.html, values, once=False)) if values else result


def mentioned_in_html(slug: str, page_url: str) -> str:
    """The "Mentioned in" list of one entry: explainer pages first, then other entries, by title."""
    pages = _mentioned_by(slug)
    if not pages:
        return '<p class="gl-none">No page on the site mentions this term yet.</p>'
    groups = []
    for label, in_glossary in (("Explainer pages", False), ("Other glossary entries", True)):
        rows = sorted((title, url) for src, title, url in pages if src.startswith("glossary/") == in_glossary)
        if rows:
            items = "".join(f'<li><a href="{html.escape(get_relative_url(url, page_url))}">{html.escape(title)}</a></li>'
                            for title, url in rows)
            groups.append(f'<p class="gl-mentioned-group">{label}</p><ul class="gl-mentioned-list">{items}</ul>')
    return "".join(groups)


@event_priority(50)  # before the search plugin indexes page.content
def on_page_context(context, page, config, nav, **kwargs):
    slug = entry_slug(page.file.src_uri)
    if slug and page.content:
        from roofline_site.glossary.entries import EDIT_MARKER

        edit = (f'<a class="gl-edit" href="{html.escape(page.edit_url)}" rel="noopener">Edit this entry</a>'
                if page.edit_url else "")
        page.content = page.content.replace(EDIT_MARKER, edit)
        marker = f'<div class="gl-mentioned" data-gl-mentioned="{slug}"></div>'
        page.content = page.content.replace(
            marker, f'<div class="gl-mentioned" data-gl-mentioned="{slug}">{mentioned_in_html(slug, page.url)}</div>')
    return context
