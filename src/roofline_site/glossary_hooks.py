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

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import InclusionLevel
from mkdocs.utils import get_relative_url

INDEX = "glossary/index.md"
_state: dict = {"glossary": None, "mentions": {}}  # mentions: slug -> {page src_uri: (title, url)}


def _glossary():
    return _state["glossary"]


def entry_slug(src_uri: str) -> str | None:
    """The slug of a generated entry page (glossary/<slug>.md), else None."""
    if src_uri.startswith("glossary/") and src_uri.count("/") == 1 and src_uri != INDEX and src_uri.endswith(".md"):
        return src_uri[len("glossary/"):-3]
    return None


def on_config(config, **kwargs):
    import importlib

    from roofline_site import glossary as gmod

    importlib.reload(gmod)  # `mkdocs serve`: pick up edits to the matcher itself
    try:
        g = gmod.load_glossary()
    except gmod.GlossaryError as err:
        raise PluginError(str(err)) from None
    _state["glossary"] = g
    redirects = config.plugins.get("redirects")
    if g.redirects:
        if redirects is None:
            raise PluginError("glossary/_redirects.yml needs the 'redirects' plugin in mkdocs.yml plugins")
        maps = redirects.config["redirect_maps"]
        for old, new in g.redirects.items():
            maps[f"glossary/{old}.md"] = f"glossary/{new}.md"
    return config


def on_pre_build(config, **kwargs):
    _state["mentions"] = {}


def on_files(files, config, **kwargs):
    # Entry pages are reached from the glossary index and from every mention, not the nav.
    for f in files.documentation_pages():
        if entry_slug(f.src_uri):
            f.inclusion = InclusionLevel.NOT_IN_NAV
    return files


def on_page_content(html_text, page, config, files, **kwargs):
    g = _glossary()
    src = page.file.src_uri
    if g is None or src == INDEX:
        return html_text
    own = entry_slug(src)
    result = _annotate(html_text, g, page, own)
    for slug in (result.mentioned | result.linked) - {own}:
        _state["mentions"].setdefault(slug, {})[src] = (page.title or src, page.url)
    return result.html


def _annotate(html_text, g, page, own):
    from roofline_site.glossary import annotate_html

    return annotate_html(html_text, g, page.url, lambda slug: get_relative_url(f"glossary/{slug}/", page.url),
                         exclude=frozenset({own}) if own else frozenset())


def mentioned_in_html(slug: str, page_url: str) -> str:
    """The "Mentioned in" list of one entry: explainer pages first, then other entries, by title."""
    pages = _state["mentions"].get(slug, {})
    if not pages:
        return '<p class="gl-none">No page on the site mentions this term yet.</p>'
    groups = []
    for label, in_glossary in (("Explainer pages", False), ("Other glossary entries", True)):
        rows = sorted((title, url) for src, (title, url) in pages.items() if src.startswith("glossary/") == in_glossary)
        if rows:
            items = "".join(f'<li><a href="{html.escape(get_relative_url(url, page_url))}">{html.escape(title)}</a></li>'
                            for title, url in rows)
            groups.append(f'<p class="gl-mentioned-group">{label}</p><ul class="gl-mentioned-list">{items}</ul>')
    return "".join(groups)


@event_priority(50)  # before the search plugin indexes page.content
def on_page_context(context, page, config, nav, **kwargs):
    slug = entry_slug(page.file.src_uri)
    if slug and page.content:
        from roofline_site.glossary import EDIT_MARKER

        edit = (f'<a class="gl-edit" href="{html.escape(page.edit_url)}" rel="noopener">Edit this entry</a>'
                if page.edit_url else "")
        page.content = page.content.replace(EDIT_MARKER, edit)
        marker = f'<div class="gl-mentioned" data-gl-mentioned="{slug}"></div>'
        page.content = page.content.replace(
            marker, f'<div class="gl-mentioned" data-gl-mentioned="{slug}">{mentioned_in_html(slug, page.url)}</div>')
    return context
