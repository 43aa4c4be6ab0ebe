"""MkDocs hooks: number tokens in every page, a fresh `roofline` whenever its sources change."""

from __future__ import annotations

import html

import json
import sys
from dataclasses import fields
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from roofline_site import derived, page_memo, pending_figures, serve_state
from roofline_site.html import escape as esc
from roofline_site.html.reading import results_first, search_quiet
from roofline_site.html.repository import install_block, repository_link
from roofline_site.html.values import non_finite_text, with_values, without_values
from roofline_site.release.changelog import changelog as _changelog
from roofline_site.numbers.table_base import TABLE_TAG, phone_layout
from roofline_site.numbers.tables import table as _table
from roofline_site.numbers.tokens import (PROVENANCE_FILE, Raw, Rendered, TokenError, defer_popovers, expand,
                                          next_fresh_id, popovers_on_demand, skip_fresh_ids_to)

from roofline_site.paths import ROOT
_records = serve_state.page_results("numbers")  # page -> its rendered numbers (numbers.json)
_popovers: dict[str, str] = {}  # number id -> its provenance popover, held until the page is written


def on_startup(command, dirty, **kwargs):
    serve_state.on_startup(command, dirty)


def on_pre_build(config, **kwargs):
    # `mkdocs serve` keeps modules between rebuilds: drop roofline so spec and code edits show.
    serve_state.begin_build(Path(config["config_file_path"] or ROOT / "mkdocs.yml").parent)
    if serve_state.modules_may_be_stale():
        for name in [n for n in sys.modules if n == "roofline" or n.startswith("roofline.")
                     or n.startswith("figures_gen")]:
            del sys.modules[name]
    _popovers.clear()
    defer_popovers(_popovers)
    derived.begin_build()
    page_memo.install()  # a page converted or indexed alike by the last build is taken from it


def on_build_error(error, **kwargs):
    serve_state.on_build_error()


def on_files(files, config, **kwargs):
    pages = files.documentation_pages()
    _records.keep_only(f.src_uri for f in pages)
    serve_state.force_full(pages)  # a dirty serve whose registry or package changed renders every page
    return files


def on_serve(server, config, builder, **kwargs):
    serve_state.guard_server(server)  # a failed rebuild: the last good site with the error, never a hang
    serve_state.poll_faster(server, config)  # before the watches below: they go on the new observer
    for folder in ("src/roofline", "glossary", "figures_gen"):  # measurements: measurement_hooks
        server.watch(str(ROOT / folder))
    for spec in serve_state.registry_paths()[:2]:  # also when ROOFLINE_HARDWARE / _MODELS point elsewhere
        if not spec.is_relative_to(ROOT / "src" / "roofline"):
            server.watch(str(spec))
    return server


def figure_block(name: str, page_url: str, files) -> Raw:
    """HTML for a figure: the SVG with its alt text, the caption, and a link to its CSV.

    Written as HTML, not Markdown, so that text a figure quotes from the registry is never read
    as Markdown; `page_url` is the page's URL (links are relative to where it is served); `files`
    holds the generated SVGs, whose aspect ratios the markup declares (None outside a build).
    """
    from mkdocs.utils import get_relative_url

    from figures_gen import module

    mod = module(name)
    base = get_relative_url("figures/", page_url).rstrip("/") or "."
    try:
        alt, caption = derived.figure_texts(name, mod)
    except Exception as err:  # noqa: BLE001 — named, with the figure, on one line
        raise TokenError(f"figure {name!r} (figures_gen/{name}.py): {type(err).__name__}: {err}") from None
    # Alt text and caption quote registry names: escaped here, once; no Markdown pass reads them.
    src = esc.attr(f"{base}/{mod.NAME}")
    # Four variants (figures_gen.VARIANTS): the narrow ones below 720 px, where their text is at least
    # 11 px as displayed; the dark ones under Material's slate scheme (roofline.css shows one picture).
    # Each variant declares its own width and height (the narrow ones are taller than the wide), so
    # the browser reserves the box the SVG will fill and nothing below it moves as it loads.
    narrow = "(max-width: 44.9375em)"

    def size(suffix: str) -> str:
        if files is None:  # numbers-diff renders the tokens without a build: no SVGs, no page shipped
            return ""
        f = files.get_file_from_path(f"figures/{mod.NAME}{suffix}.svg")
        if f is None:
            raise TokenError(f"figure {name!r}: figures/{mod.NAME}{suffix}.svg was not generated")
        return pending_figures.size_attributes(f)  # (filled in when the page is written, if still rendering)

    def picture(scheme: str, dark: str) -> str:
        return (f'<picture class="rl-fig-{scheme}">'
                f'<source media="{narrow}" srcset="{src}-narrow{dark}.svg" {size("-narrow" + dark)}>'
                f'<img alt="{esc.attr(alt)}" {size(dark)} loading="lazy" src="{src}{dark}.svg" />'
                f'</picture>')

    return Raw(
        f'<figure class="rl-fig">\n'
        f'{picture("light", "")}{picture("dark", "-dark")}\n\n'
        f'<figcaption>{esc.text(caption)} <a href="{src}.csv">Data (CSV)</a></figcaption>\n'
        f"</figure>"
    )


def on_page_markdown(markdown, page, config, files, **kwargs):
    uri = page.file.src_uri
    records = _records[uri] = []
    if markdown.startswith("---\n") and "\nbindings:" in markdown.split("\n---", 1)[0]:
        # MkDocs leaves front matter it cannot read as YAML in the page, silently.
        raise PluginError(f"{uri}: the front matter is not valid YAML, so its bindings cannot be read "
                          "(quote an expression that contains ': ' or starts with a quote)")
    repo_url, bindings = config.get("repo_url") or "", page.meta.get("bindings")
    # A page's tokens are a pure function of its Markdown, the package and registry (derived's build key),
    # the site glue and its data, its URL, the repository link, and the first fresh id it gets: a build
    # reuses what an earlier build rendered from the same (about two seconds of a warm build), and leaves
    # behind what rendering would have: the page's records, its held popovers, the next fresh id.
    key = derived.digest(derived.build_key(), derived.glue_key(), markdown, page.url, repr(bindings), repo_url,
                         str(next_fresh_id()))
    found, stored = derived.lookup(("page tokens", uri), key)
    if found:
        out, kept, popovers, next_id = stored
        records.extend(kept)
        _popovers.update(popovers)
        skip_fresh_ids_to(next_id)
        return out
    held = set(_popovers)
    try:
        out = expand(markdown, uri, records, {"figure": lambda name: figure_block(name, page.url, files),
                                              "table": lambda name, **kw: _table(name, uri, records, **kw),
                                              "changelog": _changelog,
                                              "repository": lambda: repository_link(repo_url),
                                              "install": lambda: install_block(repo_url)},
                     bindings=bindings)
    except TokenError as err:
        raise PluginError(str(err)) from None
    derived.remember(("page tokens", uri), key,
                     (out, list(records), {k: v for k, v in _popovers.items() if k not in held}, next_fresh_id()))
    return out


def on_page_content(html, page, config, files, **kwargs):
    # The passes read a number's value as text they keep (html/values.py): they run on the page with each
    # value a hole, so a page whose numbers alone changed takes them from the store. Not a page with a table:
    # phone_layout marks a column by the length of its cells' text.
    holed, values = without_values(html) if not TABLE_TAG.search(html) else (html, [])

    def passes():
        # Number tokens cannot render NaN, but an executed block can print one: never ship it.
        # (Checked on the content alone: popovers are still deferred, and the theme adds no values;
        # a value set apart is never one: without_values keeps a page with one whole.)
        if (seen := non_finite_text(holed)) is not None:
            raise PluginError(f"{page.file.src_uri}: a non-finite value would show on the page: '{seen}'")
        return search_quiet(phone_layout(results_first(holed)))

    # Pure functions of the content and the site glue: a warm build reuses what the last one made.
    done = derived.keyed(("page content", page.file.src_uri), derived.digest(derived.glue_key(), holed), passes)
    return with_values(done, values, once=False)


@event_priority(-100)  # last: every other hook has seen the page without its popovers
def on_post_page(output, page, config, **kwargs):
    # Each popover ships empty; its body goes into the page's provenance.json, fetched on first use.
    try:
        output, bodies = popovers_on_demand(output, _popovers)
    except TokenError as err:
        raise PluginError(f"{page.file.src_uri}: {err}") from None
    target = Path(config["site_dir"]) / Path(page.file.dest_path).parent / PROVENANCE_FILE
    if bodies:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(bodies, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    return output


# After every hook that stores derived values (publish's Markdown copies, at 60), before the figures'
# publish (50), which waits for their last renders: this runs while they draw. (A build that fails
# after it has stored only pure results; serve_state forgets what it settled on a failed build.)
@event_priority(55)
def on_post_build(config, **kwargs):
    derived.end_build()
    serve_state.settle_rendered()  # generated pages' keys as the pages were written (an entry's "Mentioned in")
    # Every rendered number with its provenance: read by the tests and by numbers-diff.
    out = Path(config["site_dir"]) / "numbers.json"
    # Shallow: a record's fields are strings, flags and a list of (label, text, url) tuples, which
    # JSON writes as is; dataclasses.asdict deep-copied every one (8 ms per registry device).
    names = [f.name for f in fields(Rendered)]
    rows = [{n: getattr(r, n) for n in names} for page_records in _records.values() for r in page_records]
    out.write_text(esc.json_data(rows), encoding="utf-8")  # spec text in it stays data, never markup
