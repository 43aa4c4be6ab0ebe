"""Static checks over a built site folder: what each page loads, where its links point, what it weighs.

Used by the quality-gate tests (tests/site/test_quality.py) and by `make bench`. Generic over
whatever the built site contains: it parses every HTML, CSS, JS and SVG file it finds.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tools.server import TEXT_SUFFIXES, served_bytes

# <link rel=...> values that make a browser fetch the href.
LOADED_RELS = {"stylesheet", "icon", "shortcut", "apple-touch-icon", "apple-touch-icon-precomposed",
               "mask-icon", "preload", "prefetch", "modulepreload", "preconnect", "dns-prefetch",
               "manifest", "prerender"}
# (tag, attribute) pairs the browser fetches; "*" matches any tag.
LOADED_ATTRS = {("script", "src"), ("img", "src"), ("img", "srcset"), ("source", "src"),
                ("source", "srcset"), ("video", "src"), ("video", "poster"), ("audio", "src"),
                ("track", "src"), ("iframe", "src"), ("frame", "src"), ("embed", "src"),
                ("object", "data"), ("input", "src"), ("image", "href"), ("image", "xlink:href"),
                ("use", "href"), ("use", "xlink:href"), ("feimage", "href"), ("feimage", "xlink:href"),
                ("body", "background")}
LINK_ATTRS = {"href", "src", "srcset", "poster", "data", "xlink:href", "background"}
CSS_URL = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)|@import\s+(['"])(.*?)\3""", re.S)
# A JS call or assignment that loads its (literal) argument; the URL is captured.
_Q = r"""["'`]"""
JS_LOAD = re.compile(
    rf"""(?:\bfetch|\bimportScripts|\bimport|\bsendBeacon|\bEventSource|\bWebSocket|\bWorker|\bSharedWorker|\bloadScript)\s*\(\s*{_Q}([^"'`\s]+)"""
    rf"""|\.open\s*\(\s*{_Q}[A-Za-z]+{_Q}\s*,\s*{_Q}([^"'`\s]+)"""
    rf"""|\.(?:src|href)\s*=\s*{_Q}([^"'`\s]+)"""
    rf"""|\b(?:import|export)(?=[\s{{*])[^;'"`]*?\bfrom\s*{_Q}([^"'`\s]+)"""  # minified: import{a}from"./b.js"
    rf"""|\bimport\s*{_Q}([^"'`\s]+)""")  # a module imported for its effects
# A string literal in an inline script naming a local asset (Material's search worker in __config).
JS_ASSET_LITERAL = re.compile(r"""["']([^"'\s]+\.(?:js|css|woff2?|svg|png|jpe?g|webp|json))["']""")


@dataclass(frozen=True)
class Ref:
    """One URL found in a built file: where, in which tag/attribute, and whether a browser loads it."""

    file: str  # path relative to the site root
    tag: str
    attr: str
    url: str
    loaded: bool


class _Parser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.refs: list[tuple[str, str, str, bool]] = []
        self.ids: set[str] = set()
        self.styles: list[str] = []
        self.scripts: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        a = {k.lower(): (v or "") for k, v in attrs}
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        rels = set(a.get("rel", "").lower().split())
        for attr, value in a.items():
            if attr in LINK_ATTRS and value:
                loaded = (tag, attr) in LOADED_ATTRS or (tag == "link" and attr == "href" and bool(rels & LOADED_RELS))
                urls = [u.strip().split()[0] for u in value.split(",") if u.strip()] if attr == "srcset" else [value.strip()]
                self.refs += [(tag, attr, u, loaded) for u in urls]
        if a.get("style"):
            self.styles.append(a["style"])
        if tag == "meta" and a.get("http-equiv", "").lower() == "refresh" and "url=" in a.get("content", "").lower():
            self.refs.append(("meta", "content", a["content"].split("=", 1)[1].strip(), True))
        if tag in ("style", "script") and not a.get("src"):
            self._in = tag

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in == "style":
            self.styles.append(data)
        elif self._in == "script":
            self.scripts.append(data)


@dataclass(frozen=True)
class ParsedFile:
    """The references and anchor targets of one built file."""

    refs: tuple[Ref, ...]
    ids: frozenset[str]


def css_urls(css: str) -> list[str]:
    """Every url(...) and @import target in a stylesheet."""
    return [m.group(2) or m.group(4) for m in CSS_URL.finditer(css) if (m.group(2) or m.group(4))]


def js_loaded_urls(js: str) -> list[str]:
    """Literal URLs a script hands to fetch, XHR, import, workers, beacons or a src/href assignment."""
    return list(_js_loaded_urls(js))


@lru_cache(maxsize=256)  # every page loads the same few scripts: each is read once per run, not once per page
def _js_loaded_urls(js: str) -> tuple[str, ...]:
    return tuple(next(g for g in m.groups() if g) for m in JS_LOAD.finditer(js))


def parse_file(site_dir: Path, rel: str) -> ParsedFile:
    """The references (and ids, for HTML) in one built file, classified as loaded or not."""
    st = (site_dir / rel).stat()
    return _parse_file(site_dir / rel, rel, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=4096)  # keyed by the file's time and size: the link, origin and weight checks read each page
def _parse_file(path: Path, rel: str, mtime_ns: int, size: int) -> ParsedFile:
    suffix = path.suffix.lower()
    text = path.read_text(encoding="utf-8", errors="replace")
    refs: list[Ref] = []
    ids: set[str] = set()
    if suffix in (".html", ".svg"):
        p = _Parser()
        p.feed(text)
        ids = p.ids
        refs += [Ref(rel, t, a, u, loaded) for t, a, u, loaded in p.refs]
        refs += [Ref(rel, "style", "url", u, True) for s in p.styles for u in css_urls(s)]
        for script in p.scripts:
            refs += [Ref(rel, "script", "load", u, True) for u in js_loaded_urls(script)]
            refs += [Ref(rel, "script", "asset", u, True) for u in JS_ASSET_LITERAL.findall(script)
                     if not is_external(u)]
    elif suffix == ".css":
        refs += [Ref(rel, "css", "url", u, True) for u in css_urls(text)]
    elif suffix in (".js", ".mjs"):
        refs += [Ref(rel, "js", "load", u, True) for u in js_loaded_urls(text)]
    return ParsedFile(tuple(refs), frozenset(ids))


def is_external(url: str) -> bool:
    """True if the URL names another origin (a scheme with a host, or a protocol-relative //host)."""
    parts = urlsplit(url.strip())
    return bool(parts.netloc) or (bool(parts.scheme) and parts.scheme not in ("data", "blob", "about"))


def is_other_origin(url: str, site_url: str = "") -> bool:
    """True if loading `url` would contact a host other than the site's own (relative URLs never do)."""
    u = url.strip()
    if not is_external(u):
        return False
    parts = urlsplit(u)
    if parts.scheme in ("data", "blob", "about", "javascript", "mailto", "tel"):
        return False
    return not (site_url and u.startswith(site_url))


def resolve(page_rel: str, url: str, site_url: str = "") -> tuple[str, str] | None:
    """(file path relative to the site root, fragment) a URL in `page_rel` points to; None if off-site.

    >>> resolve("ridge-point/index.html", "../decode/#prefill")
    ('decode/index.html', 'prefill')
    """
    u = url.strip()
    if not u or u.startswith(("mailto:", "tel:", "javascript:", "data:", "blob:", "about:")):
        return None
    if site_url and u.startswith(site_url):
        u = "/" + u[len(site_url):]
        base_path = "/"
    else:
        base_path = urlsplit(site_url).path or "/" if site_url else "/"
        if is_external(u):
            return None
    parts = urlsplit(u)
    path, fragment = unquote(parts.path), unquote(parts.fragment)
    if not path:
        return page_rel, fragment
    if path.startswith("/"):
        if not path.startswith(base_path):
            return ("<outside " + base_path + ">" + path, fragment)
        target = path[len(base_path):]
    else:
        target = posixpath.join(posixpath.dirname(page_rel), path)
    trailing = target.endswith("/") or target == ""
    target = posixpath.normpath(target) if target else "."
    if trailing or target == ".":
        target = posixpath.join(target, "index.html") if target != "." else "index.html"
    return target.removeprefix("./"), fragment


def site_files(site_dir: Path) -> list[str]:
    """Every file of the built site, relative and sorted."""
    return sorted(p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*") if p.is_file())


def transfer_bytes(path: Path) -> int:
    """Bytes on the wire: gzip-compressed for text (as GitHub Pages serves it), raw for binaries."""
    st = path.stat()
    # The test server's own bytes (compressed once per file's time and size: every page shares the
    # theme's bundle), so the weight counted is the weight served.
    return len(served_bytes(str(path), st.st_mtime_ns, st.st_size, path.suffix.lower() in TEXT_SUFFIXES))


# What search loads when a reader opens it, not before (overrides/main.html holds both): the index, and
# Material's worker, the one file in its workers folder. Path prefixes, relative to the site root.
ON_SEARCH = ("search/search_index.json", "assets/javascripts/workers/")


def page_resources(site_dir: Path, page_rel: str, site_url: str = "",
                   exclude: tuple[str, ...] = ON_SEARCH) -> list[str]:
    """The page and every local file it loads, following stylesheets' url()s (each file once), but
    for those under the prefixes `exclude`."""
    seen: list[str] = []
    queue = [page_rel]
    while queue:
        rel = queue.pop(0)
        if rel in seen or rel.startswith(exclude) or not (site_dir / rel).is_file():
            continue
        seen.append(rel)
        if Path(rel).suffix.lower() not in (".html", ".css"):
            continue
        for ref in parse_file(site_dir, rel).refs:
            if not ref.loaded or ref.tag in ("js",):
                continue
            target = resolve(rel, ref.url, site_url)
            if target and target[0] != rel:
                queue.append(target[0])
    return seen


def page_weight(site_dir: Path, page_rel: str, site_url: str = "") -> int:
    """Transferred bytes to show one page: its HTML plus every asset it loads (not search's: ON_SEARCH)."""
    return sum(transfer_bytes(site_dir / r) for r in page_resources(site_dir, page_rel, site_url))


# --- what a reader downloads ---------------------------------------------------------------------

# A script's own relative URL: `new URL("./calculator.css", import.meta.url)` (or an alias of it).
JS_RELATIVE_URL = re.compile(r"""\bnew URL\(\s*["'`]([^"'`\s$]+)["'`]\s*,""")
# A module loaded on demand (`import("./serve_ui.js")`): when a reader asks for what it does.
JS_DYNAMIC_IMPORT = re.compile(r"""\bimport\s*\(\s*["'`]([^"'`\s]+)""")


class _Alternatives(HTMLParser):
    """Loaded images grouped by what a reader sees one of: a <figure>'s pictures (light and dark,
    wide and narrow) are alternatives, and so are the sources of a <picture> outside a figure."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.groups: dict[str, list[str]] = {}
        self._figure: list[int] = []
        self._picture: list[int] = []
        self._n = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("figure", "picture"):
            self._n += 1
            (self._figure if tag == "figure" else self._picture).append(self._n)
            return
        if tag not in ("img", "source") or not self._picture:
            return
        key = f"figure-{self._figure[0]}" if self._figure else f"picture-{self._picture[-1]}"
        for attr, value in attrs:
            if attr in ("src", "srcset") and value:
                urls = [u.strip().split()[0] for u in value.split(",") if u.strip()] if attr == "srcset" else [value]
                self.groups.setdefault(key, []).extend(urls)

    def handle_endtag(self, tag):
        stack = self._figure if tag == "figure" else self._picture if tag == "picture" else None
        if stack:
            stack.pop()


@dataclass(frozen=True)
class Download:
    """What a reader who scrolls a whole page downloads: its HTML, every stylesheet and script it
    loads (with their imports and url()s), every other file it loads, and each figure in one
    variant (the largest: a reader sees one of light or dark, wide or narrow). Bytes as transferred."""

    html_bytes: int
    css_bytes: int
    js_bytes: int
    figure_bytes: int
    other_bytes: int
    files: tuple[str, ...]

    @property
    def total_bytes(self) -> int:
        return self.html_bytes + self.css_bytes + self.js_bytes + self.figure_bytes + self.other_bytes


def page_download(site_dir: Path, page_rel: str, site_url: str = "",
                  exclude: tuple[str, ...] = ON_SEARCH, on_demand: bool = False) -> Download:
    """The bytes a reader who scrolls the whole page downloads (see Download); no server needed.

    Not counted: each page's provenance.json (fetched when a reader opens a number) and cards.json (when
    a reader opens a glossary term's card); what search loads (ON_SEARCH: the index and Material's worker,
    which main.html holds until a reader opens search); modules a
    script loads on demand with `import("...")` (the calculator's Serving mode: serve_ui.js and what it
    imports, loaded when a reader switches to it or opens a link that does), unless `on_demand`, which
    counts them as a reader who opens them downloads them.
    """
    html = (site_dir / page_rel).read_text(encoding="utf-8", errors="replace")
    alt = _Alternatives()
    alt.feed(html)
    in_groups = {resolve(page_rel, u, site_url) for urls in alt.groups.values() for u in urls}
    figures = 0
    for urls in alt.groups.values():
        sizes = [transfer_bytes(site_dir / t[0]) for u in urls if (t := resolve(page_rel, u, site_url))
                 and (site_dir / t[0]).is_file()]
        figures += max(sizes, default=0)
    seen: list[str] = [page_rel]
    queue = [(page_rel, ref) for ref in parse_file(site_dir, page_rel).refs
             if ref.loaded and resolve(page_rel, ref.url, site_url) not in in_groups]
    while queue:
        base, ref = queue.pop(0)
        target = resolve(base, ref.url, site_url)
        if not target or target[0] in seen or target[0].startswith(exclude) or not (site_dir / target[0]).is_file():
            continue
        rel = target[0]
        seen.append(rel)
        suffix = Path(rel).suffix.lower()
        if suffix == ".css":
            queue += [(rel, r) for r in parse_file(site_dir, rel).refs if r.loaded]
        elif suffix in (".js", ".mjs"):
            text = (site_dir / rel).read_text(encoding="utf-8", errors="replace")
            later = set() if on_demand else set(JS_DYNAMIC_IMPORT.findall(text))
            queue += [(rel, Ref(rel, "js", "load", u, True))
                      for u in js_loaded_urls(text) + JS_RELATIVE_URL.findall(text)
                      if u.startswith((".", "/")) and u not in later]
    by_kind = {"css": 0, "js": 0, "other": 0}
    for rel in seen[1:]:
        suffix = Path(rel).suffix.lower()
        kind = "css" if suffix == ".css" else "js" if suffix in (".js", ".mjs") else "other"
        by_kind[kind] += transfer_bytes(site_dir / rel)
    return Download(transfer_bytes(site_dir / page_rel), by_kind["css"], by_kind["js"], figures,
                    by_kind["other"], tuple(seen))
