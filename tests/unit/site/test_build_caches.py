"""What a build keeps between builds, so a rebuild redoes only what changed: the same output as computing afresh, and never a stale value."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from roofline_site import derived
from roofline_site.html import slim


def _site(root: Path, page: str) -> tuple[Path, dict[str, Path]]:
    """A built site of one page and one theme stylesheet (`theme/assets/stylesheets/main.css`)."""
    site = root / "site"
    (site / "assets" / "stylesheets").mkdir(parents=True, exist_ok=True)
    (site / "index.html").write_text(page, encoding="utf-8")
    theme = root / "theme" / "assets" / "stylesheets" / "main.css"
    theme.parent.mkdir(parents=True, exist_ok=True)
    theme.write_text(".a{color:red}.b{color:blue}", encoding="utf-8")
    (site / "assets" / "stylesheets" / "main.css").write_text(theme.read_text(), encoding="utf-8")
    return site, {"assets/stylesheets/main.css": theme}


def _purged(site: Path) -> str:
    return (site / "assets" / "stylesheets" / "main.css").read_text(encoding="utf-8")


def test_slim_cache_gives_what_a_fresh_purge_gives_and_follows_an_edit(tmp_path):
    cache = tmp_path / "cache"
    # By hand: the page uses class "a" only, so the purge keeps `.a{color:red}` and drops `.b`.
    site, theme = _site(tmp_path / "one", '<p class="a">x</p>')
    slim.slim_site(site, theme, cache)
    assert _purged(site) == ".a{color:red}"
    stored = sorted(p.name for p in cache.glob("*.json"))
    assert len(stored) == 2  # by the texts and by the names
    site, theme = _site(tmp_path / "one", '<p class="a">x</p>')  # the same site again: read from the cache
    slim.slim_site(site, theme, cache)
    assert _purged(site) == ".a{color:red}" and sorted(p.name for p in cache.glob("*.json")) == stored
    # An edit that adds no name: a new text key, the same names key (three files), the same sheet.
    site, theme = _site(tmp_path / "one", '<p class="a">y</p>')
    slim.slim_site(site, theme, cache)
    assert _purged(site) == ".a{color:red}" and len(list(cache.glob("*.json"))) == 3
    # An edit that uses class "b" too must not get the stored sheet: both rules stay.
    site, theme = _site(tmp_path / "one", '<p class="a b">y</p>')
    slim.slim_site(site, theme, cache)
    assert _purged(site) == ".a{color:red}.b{color:blue}"


def test_a_pages_names_are_read_once_across_builds_and_again_when_it_changes(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    site, theme = _site(tmp_path / "one", '<p class="a">x</p>')
    (site / "other.html").write_text('<p class="b">z</p>', encoding="utf-8")
    slim.slim_site(site, theme, cache)
    assert _purged(site) == ".a{color:red}.b{color:blue}"
    # The next build, a fresh process: index.html edited (its text and the sheet's text key are new), other.html
    # as it was. Only the edited page is read; the purge is what reading both gives (by hand: "b" dropped).
    monkeypatch.setattr(slim, "_NAMES", {})
    site, theme = _site(tmp_path / "one", '<p class="a">y</p>')
    (site / "other.html").write_text('<p class="a">z</p>', encoding="utf-8")  # (edited too: "b" gone)
    slim.slim_site(site, theme, cache)
    assert _purged(site) == ".a{color:red}" and slim._NAMES_READ["count"] == 2
    monkeypatch.setattr(slim, "_NAMES", {})
    site, theme = _site(tmp_path / "one", '<p class="a b">w</p>')
    (site / "other.html").write_text('<p class="a">z</p>', encoding="utf-8")
    slim.slim_site(site, theme, cache)
    assert _purged(site) == ".a{color:red}.b{color:blue}" and slim._NAMES_READ["count"] == 1
    # A kept file that is junk: every page is read, and the purge is as fresh.
    (cache / slim.NAMES_FILE).write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(slim, "_NAMES", {})
    site, theme = _site(tmp_path / "one", '<p class="a">v</p>')
    slim.slim_site(site, theme, cache)
    assert _purged(site) == ".a{color:red}" and slim._NAMES_READ["count"] == 2


def test_names_are_taken_only_where_white_space_leads_them():
    # By hand: `data-id`, `data-class` and `x-data-md-color-...` are other attributes, whose values name no id,
    # class or palette entry; a tab or a line break before `id`, `class` or `data-md-color-` leads them as a space does.
    page = ('<p data-id="no" data-class="nope" x-data-md-color-scheme="slate">'
            '<p\tid="yes" class="c1\tc2">\n<i\ndata-md-color-primary="indigo"></i>')
    classes, ids, attributes, _, palette = slim._names_in(page, True, "test-only")
    assert (sorted(classes), sorted(ids), sorted(palette)) == (["c1", "c2"], ["yes"], ["data-md-color-primary=indigo"])
    assert {"data-id", "data-class", "x-data-md-color-scheme", "id", "class", "data-md-color-primary"} <= attributes


@pytest.fixture
def derived_cache(tmp_path, monkeypatch):
    """`derived` storing in `tmp_path`, with a key the test sets (`key["now"]`)."""
    key = {"now": "k1"}
    monkeypatch.setattr(derived, "CACHE", tmp_path / "derived")
    monkeypatch.setattr(derived, "cache_key", lambda: key["now"])
    monkeypatch.delenv("ROOFLINE_FIGURE_CACHE", raising=False)
    derived._last.clear()
    yield key
    derived._last.clear()
    derived._build.update(key=None, loaded={}, values={})
    derived._pages.update(entries=None, changed=False)


def test_derived_values_are_reused_for_the_same_key_only(derived_cache):
    calls = []

    def compute():
        calls.append(1)
        return f"value {len(calls)}"

    derived.begin_build()
    assert derived.memo(("x",), compute) == "value 1"
    derived.end_build()
    assert (derived.CACHE / "k1.pickle").is_file()
    derived._last.clear()  # a new process: read from the file
    derived.begin_build()
    assert derived.memo(("x",), compute) == "value 1" and len(calls) == 1
    derived.end_build()
    derived_cache["now"] = "k2"  # a spec or package edit: a new key, computed again
    derived.begin_build()
    assert derived.memo(("x",), compute) == "value 2" and len(calls) == 2


def test_a_cold_build_computes_every_derived_value(derived_cache, monkeypatch):
    monkeypatch.setenv("ROOFLINE_FIGURE_CACHE", "0")
    calls = []
    for _ in range(2):
        derived.begin_build()
        derived.memo(("x",), lambda: calls.append(1))
        derived.end_build()
    assert len(calls) == 2 and not derived.CACHE.exists()


def test_an_unreadable_derived_cache_is_computed_not_an_error(derived_cache):
    derived.CACHE.mkdir(parents=True)
    (derived.CACHE / "k1.pickle").write_bytes(b"\x80\x05truncated")
    derived.begin_build()
    assert derived.memo(("x",), lambda: "fresh") == "fresh"


def test_a_keyed_step_keeps_its_latest_entries_and_outlives_a_new_key(derived_cache):
    derived.begin_build()
    assert derived.keyed(("page",), "v1", lambda: "one") == "one"
    derived.end_build()
    derived._last.clear()  # a new process
    derived.begin_build()
    assert derived.keyed(("page",), "v1", lambda: "never computed") == "one"
    # The page edited three times: each edit is computed and stored, and the oldest falls out (a page
    # edited a hundred times under mkdocs serve keeps ENTRIES_PER_PAGE entries).
    for i in (2, 3, 4):
        assert derived.keyed(("page",), f"v{i}", lambda i=i: f"edit {i}") == f"edit {i}"
    derived.end_build()
    derived._last.clear()
    derived_cache["now"] = "k2"  # a spec edited: a step's own key says whether it read the spec
    derived.begin_build()
    assert derived.lookup(("page",), "v4") == (True, "edit 4") and derived.lookup(("page",), "v2") == (True, "edit 2")
    assert derived.lookup(("page",), "v1") == (False, None)


def test_a_stored_step_is_the_value_as_it_was_stored_and_a_bad_one_is_computed_again(derived_cache):
    derived.begin_build()
    value = {"blocks": ["a"]}
    derived.remember(("page",), "v1", value)
    value["blocks"].append("changed after it was stored")
    found, got = derived.lookup(("page",), "v1")
    assert found and got == {"blocks": ["a"]}
    got["blocks"].append("changed by the caller")
    assert derived.lookup(("page",), "v1") == (True, {"blocks": ["a"]})
    # A value that cannot be pickled is not stored; one that cannot be unpickled, or one a store kept
    # as an object (not pickled on its own), is a miss: the step runs.
    derived.remember(("page",), "v2", lambda: None)
    assert derived.lookup(("page",), "v2") == (False, None)
    derived._pages["entries"][("page",)]["v3"] = b"not a pickle"
    derived._pages["entries"][("page",)]["v4"] = "an object, not its pickle"
    assert derived.lookup(("page",), "v3") == (False, None) and derived.lookup(("page",), "v4") == (False, None)
    assert derived.keyed(("page",), "v3", lambda: "computed") == "computed"
    assert derived.lookup(("page",), "v3") == (True, "computed")


def test_a_serve_rebuild_stores_the_pages_when_the_process_ends(derived_cache, monkeypatch):
    at_exit = []
    monkeypatch.setattr(derived.atexit, "register", at_exit.append)
    monkeypatch.setitem(derived._exit_write, "target", None)
    store = derived._pages_file()
    derived.begin_build()  # the process's first build writes the store at once
    derived.keyed(("page",), "v1", lambda: "one")
    derived.end_build()
    first = store.read_bytes()
    derived.begin_build()  # a page edited under `mkdocs serve`: kept in memory, written at exit
    derived.keyed(("page",), "v2", lambda: "two")
    derived.end_build()
    assert store.read_bytes() == first and len(at_exit) == 1
    at_exit[0]()
    derived._last.clear()  # a new process reads what was written at exit
    derived.begin_build()
    assert derived.lookup(("page",), "v2") == (True, "two") and derived.lookup(("page",), "v1") == (True, "one")


class _Page:
    """What on_page_markdown reads of a MkDocs page."""

    def __init__(self, uri: str, bindings: dict | None = None):
        self.file = type("F", (), {"src_uri": uri})()
        self.meta = {"bindings": bindings} if bindings else {}
        self.url = uri.removesuffix(".md") + "/"


def _render_page(markdown: str, uri: str = "p.md", bindings: dict | None = None):
    """One page through the numbers hook as a build runs it: (Markdown out, records, held popovers)."""
    from roofline_site.hooks import numbers_hook
    from roofline_site.numbers.tokens import defer_popovers

    numbers_hook._popovers.clear()
    defer_popovers(numbers_hook._popovers)  # as on_pre_build does
    try:
        out = numbers_hook.on_page_markdown(markdown, page=_Page(uri, bindings), config={}, files=None)
    finally:
        defer_popovers(None)
    return out, [(r.expr, r.text) for r in numbers_hook._records[uri]], dict(numbers_hook._popovers)


def test_a_pages_tokens_are_reused_only_when_nothing_they_read_changed(derived_cache, monkeypatch):
    from roofline_site.hooks import numbers_hook
    from roofline_site.numbers import tokens

    calls = []
    real_expand = numbers_hook.expand
    monkeypatch.setattr(numbers_hook, "expand", lambda *a, **k: calls.append(1) or real_expand(*a, **k))
    page = "Batch {{ example('batch_mid') }} at {{ example('medium_context') }} tokens.\n"
    derived.begin_build()
    start = tokens.next_fresh_id()
    fresh = _render_page(page)
    derived.end_build()
    assert len(calls) == 1 and len(fresh[1]) == 2 and len(fresh[2]) == 2  # two numbers, two popovers held
    derived._last.clear()  # a new process, the same files: reused, with its records and popovers
    derived.begin_build()
    tokens._next_id[0] = start
    assert _render_page(page) == fresh and len(calls) == 1
    # Each thing the tokens read makes them render again: the page's text, its bindings, the package
    # and registry (derived's key), the site glue (glue_key), and the first fresh id it would get.
    edited = page.replace("tokens.", "tokens per sequence.")
    assert _render_page(edited)[0] != fresh[0] and len(calls) == 2
    tokens._next_id[0] = start
    assert _render_page(page) == fresh and len(calls) == 2  # back as it was: still stored beside the edit
    bound = "Batch {{ b }}.\n"  # the same text, another binding: another number (another page here)
    batch = _render_page(bound, "q.md", bindings={"b": "example('batch_mid')"})
    assert _render_page(bound, "q.md", bindings={"b": "example('medium_context')"})[1] != batch[1]
    assert len(calls) == 4
    tokens._next_id[0] = start + 7
    _render_page(page)
    assert len(calls) == 5
    monkeypatch.setattr(derived, "glue_key", lambda: "other glue")
    _render_page(page)
    assert len(calls) == 6
    derived.end_build()
    derived_cache["now"] = "k2"  # the package or registry edited
    derived.begin_build()
    _render_page(page)
    assert len(calls) == 7


def test_a_reused_page_leaves_fresh_ids_where_rendering_would(derived_cache):
    # A table's numbers take ids from one count shared by the build's pages ("rl-p-x<n>"); a page reused
    # must move the count on as rendering it did, or the next page would repeat its ids.
    from roofline_site.numbers import tokens

    page = "{{ table('sol') }}\n"
    derived.begin_build()
    start = tokens.next_fresh_id()
    _render_page(page, "t.md")
    after = tokens.next_fresh_id()
    derived.end_build()
    derived._last.clear()
    derived.begin_build()
    tokens._next_id[0] = start
    _render_page(page, "t.md")
    assert after > start and tokens.next_fresh_id() == after


def test_a_stored_markdown_copy_is_used_for_the_same_html_only(derived_cache, monkeypatch):
    from roofline_site.html.markdown_copy import CopyWriter

    derived.begin_build()
    writer = CopyWriter()
    writer.submit("a.md", article_html_of("Alpha text."))
    assert writer.results() == {"a.md": "# A\n\nAlpha text.\n"}
    derived.end_build()
    derived._last.clear()
    derived.begin_build()

    def no_pool(cls):
        raise AssertionError("a stored copy must not be converted again")

    monkeypatch.setattr(CopyWriter, "_pool", classmethod(no_pool))
    writer = CopyWriter()
    writer.submit("a.md", article_html_of("Alpha text."))
    assert writer.results() == {"a.md": "# A\n\nAlpha text.\n"}
    with pytest.raises(AssertionError, match="converted again"):
        writer.submit("a.md", article_html_of("Alpha, edited."))


def article_html_of(text: str) -> str:
    from roofline_site.html.markdown_copy import article_html

    return article_html(f"<p>{text}</p>", "A")


def test_a_pages_content_passes_are_reused_for_the_same_content_only(derived_cache, monkeypatch):
    from roofline_site.hooks import numbers_hook

    calls = []
    real = numbers_hook.phone_layout
    monkeypatch.setattr(numbers_hook, "phone_layout", lambda html: calls.append(1) or real(html))
    page = _Page("p.md")
    content = "<p>Ridge <b>295</b></p>"
    derived.begin_build()
    fresh = numbers_hook.on_page_content(content, page=page, config={}, files=None)
    derived.end_build()
    derived._last.clear()
    derived.begin_build()
    assert numbers_hook.on_page_content(content, page=page, config={}, files=None) == fresh and len(calls) == 1
    numbers_hook.on_page_content(content.replace("295", "296"), page=page, config={}, files=None)
    assert len(calls) == 2
    monkeypatch.setattr(derived, "glue_key", lambda: "other glue")
    numbers_hook.on_page_content(content, page=page, config={}, files=None)
    assert len(calls) == 3


def test_a_pages_glossary_annotation_follows_an_edited_entry(derived_cache, tmp_path, monkeypatch):
    # The annotation reads the page and the glossary: an entry given a new name must mark that name
    # on the next build, never the annotation the last build stored for the same page.
    import shutil

    from roofline_site.glossary import entries as gmod
    from roofline_site.hooks import glossary_hook

    folder = tmp_path / "glossary"
    shutil.copytree(gmod.glossary_dir(), folder)
    monkeypatch.setenv("ROOFLINE_GLOSSARY", str(folder))
    monkeypatch.setattr(glossary_hook, "_state", {"glossary": None, "key": ""})
    page, content = _Page("p.md"), "<p>Roofs and ridgelines.</p>"

    def build() -> frozenset:
        derived.begin_build()
        glossary_hook.on_config(type("C", (), {"plugins": {"redirects": type("R", (), {"config": {"redirect_maps": {}}})()}})())
        mentioned = glossary_hook._annotate(content, glossary_hook._glossary(), page, None).mentioned
        derived.end_build()
        derived._last.clear()  # a new process
        return mentioned

    assert build() == frozenset()  # "ridge" is a name of the ridge point's entry, "ridgelines" is not
    entry = next(folder.glob("*/ridge-point.md"))
    text = entry.read_text(encoding="utf-8")
    entry.write_text(text.replace("aliases: [", "aliases: [ridgelines, ", 1), encoding="utf-8")
    assert build() == frozenset({"ridge-point"})


def _mkdocs_pages(root: Path, pages: dict[str, str]):
    """A MkDocs config, its Files and Pages for `pages` ({src_uri: Markdown}), read but not rendered."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import File, Files
    from mkdocs.structure.pages import Page

    docs = root / "docs"
    for uri, text in pages.items():
        (docs / uri).parent.mkdir(parents=True, exist_ok=True)
        (docs / uri).write_text(text, encoding="utf-8")
    (root / "mkdocs.yml").write_text("site_name: T\nmarkdown_extensions:\n  - attr_list\n  - toc:\n      permalink: true\n",
                                     encoding="utf-8")
    config = load_config(str(root / "mkdocs.yml"))
    files = Files([File(uri, str(docs), str(root / "site"), True) for uri in pages])
    out = {}
    for f in files:
        page = Page(None, f, config)
        page.read_source(config)
        out[f.src_uri] = page
    return config, files, out


def _rendered(page) -> tuple:
    return (page.content, str(page.toc), page.title, sorted(page.present_anchor_ids),
            {f.src_uri: a for f, a in (page.links_to_anchors or {}).items()})


def test_a_stored_page_render_sets_what_rendering_sets_and_follows_an_edit(derived_cache, tmp_path, monkeypatch):
    from mkdocs.structure.pages import Page

    from roofline_site import page_memo

    monkeypatch.setattr(Page, "render", Page.render)  # undone after the test
    monkeypatch.setattr(page_memo.SearchIndex, "add_entry_from_context", page_memo.SearchIndex.add_entry_from_context)
    monkeypatch.setattr(page_memo.Template, "render", page_memo.Template.render)
    pages = {"a.md": "# Alpha\n\n## Ridge {#ridge}\n\nSee [b](b.md#roof).\n", "b.md": "# Beta\n\n## Roof {#roof}\n"}
    config, files, fresh = _mkdocs_pages(tmp_path / "one", pages)
    for page in fresh.values():
        page.render(config, files)  # MkDocs' own
    page_memo.install()
    calls = []
    real = page_memo._original
    monkeypatch.setattr(page_memo, "_original", lambda *a: calls.append(1) or real(*a))
    derived.begin_build()
    config, files, first = _mkdocs_pages(tmp_path / "one", pages)
    for page in first.values():
        page.render(config, files)
    derived.end_build()
    derived._last.clear()  # a new process: every page from the stored renders
    derived.begin_build()
    config, files, second = _mkdocs_pages(tmp_path / "one", pages)
    for page in second.values():
        page.render(config, files)
    assert len(calls) == 2
    for uri in pages:
        assert _rendered(second[uri]) == _rendered(fresh[uri])
    # By hand: a's link to b's anchor is recorded for MkDocs' check across pages; b holds "roof".
    assert _rendered(second["a.md"])[4]["b.md"] == {"roof": "b.md#roof"} and "roof" in second["b.md"].present_anchor_ids
    # An edited page is rendered again; so is a page whose link targets changed (a file added).
    config, files, third = _mkdocs_pages(tmp_path / "one", {**pages, "a.md": pages["a.md"] + "\nMore.\n"})
    third["a.md"].render(config, files)
    assert "More." in third["a.md"].content and len(calls) == 3
    config, files, fourth = _mkdocs_pages(tmp_path / "one", {**pages, "c.md": "# C\n"})
    fourth["b.md"].render(config, files)
    assert len(calls) == 4


def test_stored_search_entries_are_those_materials_index_makes(derived_cache, tmp_path, monkeypatch):
    from mkdocs.structure.pages import Page

    from roofline_site import page_memo

    monkeypatch.setattr(Page, "render", Page.render)
    monkeypatch.setattr(page_memo.SearchIndex, "add_entry_from_context", page_memo.SearchIndex.add_entry_from_context)
    monkeypatch.setattr(page_memo.Template, "render", page_memo.Template.render)
    config, files, pages = _mkdocs_pages(tmp_path / "one", {"a.md": "# Alpha\n\nRoof text.\n\n## Ridge\n\nRidge text.\n"})
    page = pages["a.md"]
    page.render(config, files)
    fresh = page_memo.SearchIndex()
    fresh.add_entry_from_context(page)  # Material's own
    # By hand: one entry per section, the h2's located by its toc id.
    assert [e["location"] for e in fresh.entries] == ["a/", "a/#ridge"]
    page_memo.install()
    for _ in range(2):
        derived.begin_build()
        index = page_memo.SearchIndex()
        index.add_entry_from_context(page)
        assert index.entries == fresh.entries
        derived.end_build()
        derived._last.clear()
    page.content = page.content.replace("Ridge text.", "Edited.")
    derived.begin_build()
    index = page_memo.SearchIndex()
    index.add_entry_from_context(page)
    assert index.entries[-1]["text"] == "<p>Edited.</p>"


_NUMBERS_PAGE = ('<h1 id="alpha">Alpha</h1>\n<p>At <span class="rl-num" tabindex="0">3.35 TB/s<span data-rl-prov="p-1">'
                 '</span></span> a step takes <span class="rl-num" tabindex="0">4.8 ms<span data-rl-prov="p-2"></span></span>.</p>')


def test_a_page_whose_numbers_alone_changed_takes_its_search_entries_and_html_from_the_store(
        derived_cache, tmp_path, monkeypatch):
    from types import SimpleNamespace

    from jinja2 import Template

    from roofline_site import page_memo

    monkeypatch.setattr(page_memo.SearchIndex, "add_entry_from_context", page_memo.SearchIndex.add_entry_from_context)
    monkeypatch.setattr(page_memo.Template, "render", page_memo.Template.render)
    config, files, pages = _mkdocs_pages(tmp_path / "one", {"a.md": "# Alpha\n"})
    page = pages["a.md"]
    page.content = _NUMBERS_PAGE
    template = Template("{{ config.site_name }}|{{ page.content }}")
    context = {"page": page, "nav": SimpleNamespace(items=[]), "config": config, "base_url": "..", "extra_css": [],
               "extra_javascript": []}
    page_memo.install()
    indexed, rendered = [], []
    real_index, real_render = page_memo._original_index, page_memo._original_template_render
    monkeypatch.setattr(page_memo, "_original_index", lambda index, pg: indexed.append(1) or real_index(index, pg))
    monkeypatch.setattr(page_memo, "_original_template_render", lambda *a: rendered.append(1) or real_render(*a))
    derived.begin_build()
    first = page_memo.SearchIndex()
    first.add_entry_from_context(page)
    assert template.render(context) == "T|" + _NUMBERS_PAGE  # by hand: the template writes the content as it is
    # By hand: Material's indexer keeps the paragraph's text, the numbers' values in it.
    assert first.entries[0]["text"] == "<p>At 3.35 TB/s a step takes 4.8 ms.</p>"
    derived.end_build()
    derived._last.clear()
    # A new process after a spec edit: the same page with two new values. Neither step runs again, and what
    # each gives is what it gives the edited page run afresh (Material's index and the template, unwrapped).
    edited = _NUMBERS_PAGE.replace("3.35 TB/s", "4.1 TB/s").replace("4.8 ms", "3.9 ms")
    page.content = edited
    derived.begin_build()
    index = page_memo.SearchIndex()
    index.add_entry_from_context(page)
    html = template.render(context)
    assert len(indexed) == 1 and len(rendered) == 1
    assert index.entries[0]["text"] == "<p>At 4.1 TB/s a step takes 3.9 ms.</p>" and html == "T|" + edited
    fresh = page_memo.SearchIndex()
    real_index(fresh, page)
    assert index.entries == fresh.entries and html == real_render(template, context)
    # A value that is not plain (an entity) keeps the page as it is: both steps run on it.
    page.content = edited.replace("3.9 ms", "&#36;2")
    index = page_memo.SearchIndex()
    index.add_entry_from_context(page)
    assert template.render(context).endswith("&#36;2<span data-rl-prov=\"p-2\"></span></span>.</p>")
    assert len(indexed) == 2 and len(rendered) == 2 and index.entries[0]["text"].endswith("$2.</p>")


def _number(value: str, ident: str) -> str:
    return f'<span class="rl-num" tabindex="0">{value}<span data-rl-prov="{ident}"></span></span>'


def test_a_page_whose_numbers_alone_changed_is_not_converted_again_unless_a_heading_holds_one(
        derived_cache, tmp_path, monkeypatch):
    from mkdocs.structure.pages import Page

    from roofline_site import page_memo

    monkeypatch.setattr(Page, "render", Page.render)
    monkeypatch.setattr(page_memo.SearchIndex, "add_entry_from_context", page_memo.SearchIndex.add_entry_from_context)
    monkeypatch.setattr(page_memo.Template, "render", page_memo.Template.render)
    body = f"# Alpha\n\n## Roofs\n\nAt {_number('3.35 TB/s', 'p-1')} a step takes {_number('4.8 ms', 'p-2')}.\n"
    heading = f"# Beta\n\n## At {_number('3.35 TB/s', 'p-3')}\n\nText.\n"
    config, files, pages = _mkdocs_pages(tmp_path / "one", {"a.md": body, "b.md": heading})
    page_memo.install()
    calls = []
    real = page_memo._original
    monkeypatch.setattr(page_memo, "_original", lambda page, *a: calls.append(page.file.src_uri) or real(page, *a))

    def converted(markdown: dict[str, str]) -> dict[str, tuple]:
        """Each page rendered through the store, beside MkDocs' own rendering of the same Markdown."""
        out = {}
        _, other_files, own = _mkdocs_pages(tmp_path / "own", markdown)
        for uri, text in markdown.items():
            page = pages[uri]
            page.markdown = text
            page.render(config, files)
            real(own[uri], config, other_files)  # MkDocs' own, the reference
            out[uri] = (_rendered(page)[:3], _rendered(own[uri])[:3])
        return out

    derived.begin_build()
    first = converted({"a.md": body, "b.md": heading})
    assert all(mine == own for mine, own in first.values())
    derived.end_build()
    derived._last.clear()
    # By hand: a.md is converted once, with its values as holes; b.md's heading holds a value, so it is
    # converted with holes, found to be, and converted as it is: twice.
    assert calls.count("a.md") == 1 and calls.count("b.md") == 2
    calls.clear()
    edit = {"a.md": body.replace("3.35 TB/s", "4.1 TB/s").replace("4.8 ms", "3.9 ms"),
            "b.md": heading.replace("3.35 TB/s", "4.1 TB/s")}
    derived.begin_build()  # a new process after a spec edit
    second = converted(edit)
    assert all(mine == own for mine, own in second.values())
    assert "4.1 TB/s" in second["a.md"][0][0] and "3.9 ms" in second["a.md"][0][0]
    # a.md from the store; b.md, kept as a page converted whole, converted once (its text is new).
    assert calls == ["b.md"]


def test_a_spec_edit_renders_again_only_the_pages_that_execute_examples(derived_cache, tmp_path, monkeypatch):
    from mkdocs.structure.pages import Page

    from roofline_site import page_memo

    monkeypatch.setattr(Page, "render", Page.render)
    monkeypatch.setattr(page_memo.SearchIndex, "add_entry_from_context", page_memo.SearchIndex.add_entry_from_context)
    monkeypatch.setattr(page_memo.Template, "render", page_memo.Template.render)
    page_memo.install()
    calls = []
    real = page_memo._original
    monkeypatch.setattr(page_memo, "_original", lambda page, *a: calls.append(page.file.src_uri) or real(page, *a))
    pages = {"plain.md": "# Plain\n\nNo example here.\n", "run.md": '# Run\n\n```python exec="on"\nprint(1)\n```\n'}
    for key in ("k1", "k1", "k2"):  # a build, the same files again, then the registry edited
        derived_cache["now"] = key
        derived.begin_build()
        config, files, built = _mkdocs_pages(tmp_path / "one", pages)
        for page in built.values():
            page.render(config, files)
        derived.end_build()
        derived._last.clear()
    # By hand: the first build renders both; the second neither; the edit only the page that runs code.
    assert calls == ["plain.md", "run.md", "run.md"]


def test_a_rebuild_collapses_only_the_pages_written_since(tmp_path, monkeypatch):
    # Under `mkdocs serve --dirty` a rebuild writes only the pages it rendered again: those are collapsed
    # afresh, the others read as left. Time stamps are set apart by hand (a second each), as a rebuild's are.
    site, theme = _site(tmp_path / "serve", '<div>\n    <p class="a">x</p>\n</div>')
    other = site / "other.html"
    other.write_text('<div>\n    <p class="b">y</p>\n</div>', encoding="utf-8")
    monkeypatch.setattr(slim, "_COLLAPSED", {})
    seen = []
    collapse = slim.collapse_indentation
    monkeypatch.setattr(slim, "collapse_indentation", lambda html: seen.append(html) or collapse(html))
    slim.slim_site(site, theme)
    assert len(seen) == 2 and other.read_text(encoding="utf-8") == '<div>\n<p class="b">y</p>\n</div>'
    seen.clear()
    slim.slim_site(site, theme)  # nothing written since: nothing collapsed again, both classes still kept
    assert seen == [] and _purged(site) == ".a{color:red}.b{color:blue}"
    other.write_text('<div>\n    <p class="a">y</p>\n</div>', encoding="utf-8")  # the page rendered again
    stamp = other.stat().st_mtime_ns + 1_000_000_000
    os.utime(other, ns=(stamp, stamp))
    slim.slim_site(site, theme)
    assert seen == ['<div>\n    <p class="a">y</p>\n</div>']
    assert other.read_text(encoding="utf-8") == '<div>\n<p class="a">y</p>\n</div>' and _purged(site) == ".a{color:red}"


def test_a_stored_page_html_is_the_templates_and_follows_the_page_the_navigation_and_the_settings(
        derived_cache, tmp_path, monkeypatch):
    from types import SimpleNamespace

    from jinja2 import Template

    from roofline_site import page_memo

    monkeypatch.setattr(page_memo.Template, "render", page_memo.Template.render)
    config, files, pages = _mkdocs_pages(tmp_path / "one", {"a.md": "# Alpha\n\nRoof text.\n"})
    page = pages["a.md"]
    page.content = "<p>Roof text.</p>"
    template = Template("{{ config.site_name }}|{% for i in nav.items %}{{ i.title }} {% endfor %}|{{ page.content }}")
    nav = SimpleNamespace(items=[SimpleNamespace(title="Alpha", url="a/")])
    context = {"page": page, "nav": nav, "config": config, "base_url": "..", "extra_css": [], "extra_javascript": []}
    expected = "T|Alpha |<p>Roof text.</p>"  # by hand, from the template above
    page_memo.install()
    calls = []
    real = page_memo._original_template_render
    monkeypatch.setattr(page_memo, "_original_template_render", lambda *a: calls.append(1) or real(*a))
    for _ in range(2):  # a build, then a new process: the second takes the stored HTML
        derived.begin_build()
        assert template.render(context) == expected
        derived.end_build()
        derived._last.clear()
    assert len(calls) == 1
    derived.begin_build()
    nav.items[0].title = "Alpha, renamed"  # another page's title in the navigation
    nav = context["nav"] = SimpleNamespace(items=nav.items)  # (a new build's navigation)
    assert template.render(context) == "T|Alpha, renamed |<p>Roof text.</p>" and len(calls) == 2
    page.content = "<p>Edited.</p>"
    assert template.render(context).endswith("<p>Edited.</p>") and len(calls) == 3
    config["site_name"] = "U"
    context["nav"] = SimpleNamespace(items=nav.items)
    assert template.render(context).startswith("U|") and len(calls) == 4
    assert Template("{{ x }}").render({"x": 1}) == "1" and len(calls) == 5  # not a page: rendered as always
