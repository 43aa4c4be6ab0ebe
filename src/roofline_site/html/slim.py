"""Lighter stylesheets and scripts for every page, since each byte is a reader's download: Material's CSS without the rules no page can use,
our CSS and JavaScript minified.

Material ships one stylesheet for every feature it has (versions, annotations, tabs, blog, a dozen
admonition icons as data URIs): 23 KB gzip on every page, most of it never matched here. After the
build, `purge` keeps a selector only if each class, id and attribute it requires appears somewhere a
browser could meet it: a class, id or attribute in a built page, or a word in a built script (which
covers what Material's JavaScript adds: search results, tooltips, the palette). What a `:not()`,
`:is()`, `:where()` or `:has()` holds is never required, so such selectors are kept as they are.
A custom property no remaining rule, script or page reads is dropped with its value.

Our scripts (docs/assets, the calculator's modules among them) are written for a reader, with long
comments; only the built copies in site/ are minified (rjsmin), so the parity grid under node keeps
testing the sources, and the browser tests test what a reader downloads.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import rjsmin

_FUNCTIONAL = re.compile(r":(?:not|is|where|has|matches|-webkit-any|-moz-any)\(")
_ATTRIBUTE = re.compile(r"\[\s*([\w:-]+)[^\]]*\]")
_CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
_ID = re.compile(r"#(-?[_a-zA-Z][\w-]*)")
# Material's palette: its stylesheet styles every colour it offers ([data-md-color-primary=red] and 40 more),
# and only the ones mkdocs.yml names can match. Material sets these attributes from its palette inputs'
# data attributes (and a reader's stored choice of one of them), all in every page's markup: a value no page
# gives one of them cannot occur.
_PALETTE_VALUE = re.compile(r"""\[\s*(data-md-color-[\w-]+)\s*=\s*["']?([\w-]+)["']?\s*\]""")


@dataclass(frozen=True)
class Used:
    """What the built site can match: names in its pages' markup, words in its scripts."""

    classes: frozenset[str]
    ids: frozenset[str]
    attributes: frozenset[str]
    words: frozenset[str]  # every word of every script, custom properties (--x) included
    palette: frozenset[str] = frozenset()  # "attribute=value" of each data-md-color-* a page gives


# (digest of a page's or script's text, is a page) -> its names: `mkdocs serve` re-reads every page after each
# edit, and all but the edited one are as they were; a spec edit changes a few pages' numbers (the pages' are
# kept between builds too: `load_page_names`). Holds the texts of the last `used_names` call only.
_NAMES: dict[tuple[str, bool], tuple[frozenset, frozenset, frozenset, frozenset, frozenset]] = {}
_NAMES_READ: dict = {"count": 0}  # names worked out by reading a text since the last `load_page_names`


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


_PALETTE_IN_PAGE = re.compile(r"""(data-md-color-[\w-]+)=["']([\w-]+)["']""")
_ID_IN_PAGE = re.compile(r"""id=["']([^"']+)["']""")
_START_TAG = re.compile(r"<[a-zA-Z][^<>]*>")
_ATTRIBUTE_NAME = re.compile(r"\s([a-zA-Z][\w:-]*)")


def _after_space(pattern: re.Pattern, text: str):
    """The matches of `pattern` in `text` that follow white space: what a pattern led by \\s finds, found by
    the literal that starts `pattern` (searched for directly, not tried at every character)."""
    return (m for m in pattern.finditer(text) if m.start() and text[m.start() - 1].isspace())


def _names_in(text: str, page: bool, digest: str) -> tuple[frozenset, frozenset, frozenset, frozenset, frozenset]:
    """(classes, ids, attribute names, words, palette values) of one page (HTML) or, with `page` false, one
    script's words; `digest` is the text's (`_digest`)."""
    key = (digest, page)
    if (known := _NAMES.get(key)) is not None:
        return known
    _NAMES_READ["count"] += 1
    classes, ids, attributes, words, palette = set(), set(), set(), set(), set()
    if page:
        palette.update(f"{m.group(1)}={m.group(2)}" for m in _after_space(_PALETTE_IN_PAGE, text))
        for m in re.finditer(r"""\sclass=["']([^"']*)["']""", text):
            classes.update(m.group(1).split())
        ids.update(m.group(1) for m in _after_space(_ID_IN_PAGE, text))
        # Every attribute name of every distinct start tag, in one pass over the tags joined by line breaks
        # (a name cannot run across one: a tag ends with ">").
        tags = "\n".join(set(_START_TAG.findall(text)))
        attributes.update(map(str.lower, _ATTRIBUTE_NAME.findall(tags)))
        words.update(re.findall(r"--[\w-]+", text))  # custom properties set in style attributes
    else:
        words.update(re.findall(r"[\w-]+", text))
    known = _NAMES[key] = (frozenset(classes), frozenset(ids), frozenset(attributes), frozenset(words),
                           frozenset(palette))
    return known


#: The file in the slim cache that keeps each built page's names, by a digest of the page's text (in a
#: folder of its own: the purged sheets beside it are pruned by age).
NAMES_FILE = "names/pages.json"


def load_page_names(cache: Path | None) -> None:
    """Take the names of the pages an earlier build read (`store_page_names`): a page whose text is the
    same is not read again. A file that cannot be read is no error: the pages are read."""
    _NAMES_READ["count"] = 0
    if cache is None:
        return
    from roofline.readfile import read_capped

    try:
        kept = json.loads(read_capped(cache / NAMES_FILE, 256 * 1024 * 1024, "cache file"))
    except Exception:  # noqa: BLE001 — none yet, unreadable or not JSON: the pages are read
        return
    if isinstance(kept, dict):
        for digest, names in kept.items():
            if isinstance(names, list) and len(names) == 5 and all(isinstance(n, list) for n in names):
                _NAMES.setdefault((digest, True), tuple(frozenset(map(str, n)) for n in names))


def store_page_names(cache: Path | None) -> None:
    """Keep every page's names `used_names` holds now, where a page was read since `load_page_names`."""
    if cache is None or not _NAMES_READ["count"]:
        return
    from roofline.atomic import atomic_write_text

    pages = {digest: [sorted(n) for n in names] for (digest, page), names in _NAMES.items() if page}
    try:
        (cache / NAMES_FILE).parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(cache / NAMES_FILE, json.dumps(pages, separators=(",", ":")))
    except OSError:
        pass


def used_names(pages: list[str], scripts: list[str]) -> Used:
    """The classes, ids and attribute names in `pages` (HTML) and the words of `scripts` (JS).

    >>> u = used_names(['<p class="a b" id="c" data-x="1" data-md-color-primary="indigo">'], ['el.classList.add("md-d")'])
    >>> sorted(u.classes), sorted(u.ids), "data-x" in u.attributes, "md-d" in u.words, sorted(u.palette)
    (['a', 'b'], ['c'], True, True, ['data-md-color-primary=indigo'])
    """
    classes, ids, attributes, words, palette = set(), set(), set(), set(), set()
    current = {(t, True): _digest(t) for t in pages} | {(t, False): _digest(t) for t in scripts}
    for html in pages:
        c, i, a, w, v = _names_in(html, True, current[html, True])
        classes |= c
        ids |= i
        attributes |= a
        words |= w
        palette |= v
    for js in scripts:
        words |= _names_in(js, False, current[js, False])[3]
    kept = {(digest, page) for (_, page), digest in current.items()}
    for gone in [k for k in _NAMES if k not in kept]:
        del _NAMES[gone]
    return Used(frozenset(classes), frozenset(ids), frozenset(attributes), frozenset(words), frozenset(palette))


def _scan(text: str, i: int, opens: str, closes: str, stop: str) -> int:
    """The index of the first character of `stop` from `i` that is outside strings and outside what
    `opens` and `closes` nest (len(text) if none). The one scanner for a rule's prelude, its body and
    a list's items."""
    depth, quote, n = 0, None, len(text)
    while i < n:
        c = text[i]
        if quote:
            i += c == "\\"  # an escaped character cannot close the string
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif depth == 0 and c in stop:
            return i
        elif c in opens:
            depth += 1
        elif c in closes:
            depth -= 1
        i += 1
    return n


def _split(text: str, sep: str) -> list[str]:
    """`text` split at `sep` outside brackets, parentheses and strings."""
    parts, start = [], 0
    while True:
        i = _scan(text, start, "([", ")]", sep)
        parts.append(text[start:i])
        if i >= len(text):
            return parts
        start = i + 1


def _blocks(css: str) -> list[tuple[str, str | None]]:
    """A stylesheet's top-level items as (prelude, body): body None for a statement such as @charset."""
    out, i, n = [], 0, len(css)
    while i < n:
        j = _scan(css, i, "(", ")", ";{")  # the prelude ends at `;` (a statement) or `{` (a block)
        if j >= n or css[j] == ";":
            if css[i:j].strip():
                out.append((css[i:j], None))
            i = j + 1
            continue
        k = _scan(css, j + 1, "{", "}", "}")  # the body ends at the `}` its nested blocks leave unmatched
        out.append((css[i:j], css[j + 1:k]))
        i = k + 1
    return out


def _outside_functions(selector: str) -> str:
    """`selector` without what its functional pseudo-classes (:not(), :is(), ...) hold."""
    text, i = "", 0
    while m := _FUNCTIONAL.search(selector, i):
        text += selector[i:m.start()]
        depth, k = 1, m.end()
        while k < len(selector) and depth:
            depth += {"(": 1, ")": -1}.get(selector[k], 0)
            k += 1
        i = k
    return text + selector[i:]


def _required(selector: str) -> tuple[set[str], set[str], set[str]]:
    """The classes, ids and attribute names a selector cannot match without (functional pseudo-classes skipped)."""
    text = _outside_functions(selector)
    attributes = {a.lower() for a in _ATTRIBUTE.findall(text)}
    text = _ATTRIBUTE.sub(" ", text)
    return set(_CLASS.findall(text)), set(_ID.findall(text)), attributes


def _camel(attribute: str) -> str:
    """data-md-state -> mdState, as a script reaches it through `dataset`."""
    head, *rest = attribute.removeprefix("data-").split("-")
    return head + "".join(p.title() for p in rest)


def can_match(selector: str, used: Used) -> bool:
    """False when the selector requires a class, id or attribute the site never has, or a palette colour no
    page offers.

    >>> u = used_names(['<body data-md-color-primary="indigo">'], [])
    >>> can_match("[data-md-color-primary=indigo] a", u), can_match("[data-md-color-primary=red]", u)
    (True, False)
    >>> can_match(":not([data-md-color-primary=red])", u)  # what a :not() holds is never required
    True
    """
    classes, ids, attributes = _required(selector)
    return (all(c in used.classes or c in used.words for c in classes)
            and all(i in used.ids or i in used.words for i in ids)
            and all(a in used.attributes or a in used.words or _camel(a) in used.words for a in attributes)
            and all(f"{a}={v}" in used.palette for a, v in _PALETTE_VALUE.findall(_outside_functions(selector))))


def purge(css: str, used: Used, elsewhere: str = "") -> str:
    """`css` without the selectors that cannot match on this site, then without the custom properties
    that neither it, `elsewhere` (the site's other stylesheets) nor a script or page reads.

    >>> u = used_names(['<p class="a">'], [])
    >>> purge(".a{color:red}.b,.a .c{x:1}.a:not(.b){y:2}@media print{.b{z:3}}", u)
    '.a{color:red}.a:not(.b){y:2}'
    >>> purge(":root{--kept:1;--gone:url(x);--theirs:2}.a{color:var(--kept)}", u, ".b{color:var(--theirs)}")
    ':root{--kept:1;--theirs:2}.a{color:var(--kept)}'
    """
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    kept = _rules(css, used)
    others = set(re.findall(r"var\(\s*(--[\w-]+)", elsewhere)) | {w for w in used.words if w.startswith("--")}
    for _ in range(3):  # a property read only by a dropped property goes on the next pass
        pruned = _properties(kept, others | set(re.findall(r"var\(\s*(--[\w-]+)", kept)))
        if pruned == kept:
            break
        kept = pruned
    return kept


def _walk(css: str, rule) -> str:
    """`css` with each style rule replaced by `rule(selectors, body)` ('' drops it), inside conditional group
    rules too (a group left empty goes); statements and other at-rules (@keyframes, @font-face, @page) kept whole."""
    out = []
    for prelude, body in _blocks(css):
        head = prelude.strip()
        if body is None:
            out.append(head + ";")
        elif head.startswith(("@media", "@supports", "@layer", "@container")):
            inner = _walk(body, rule)
            if inner:
                out.append(f"{head}{{{inner}}}")
        elif head.startswith("@"):
            out.append(f"{head}{{{body}}}")
        else:
            out.append(rule(head, body))
    return "".join(out)


def _rules(css: str, used: Used) -> str:
    """`css` without the selectors that cannot match (a rule left with none goes)."""
    def keep(head: str, body: str) -> str:
        selectors = [s for s in _split(head, ",") if can_match(s, used)]
        return f"{','.join(selectors)}{{{body}}}" if selectors else ""
    return _walk(css, keep)


def _properties(css: str, read: set[str]) -> str:
    """`css` without the custom properties nothing in `read` reads (a rule left with no declaration goes)."""
    def keep(head: str, body: str) -> str:
        decls = [d for d in _split(body, ";")
                 if not (d.strip().startswith("--") and d.split(":", 1)[0].strip() not in read)]
        return f"{head}{{{';'.join(decls)}}}" if any(d.strip() for d in decls) else ""
    return _walk(css, keep)


def minify_css(css: str) -> str:
    """Our stylesheets without comments and spare whitespace (never inside strings: ours have none that matter).

    >>> minify_css("a > b { color: red; }  /* why */\\n.c , .d{margin:calc(1px + 2px)}")
    'a > b{color: red}.c,.d{margin:calc(1px + 2px)}'
    """
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\s+", " ", css)
    css = re.sub(r"\s*([{};,])\s*", r"\1", css)
    return css.replace(";}", "}").strip()


def minify_js(js: str) -> str:
    r"""`js` without its comments and spare whitespace; a `/*! ... */` comment (a licence) is kept.

    >>> minify_js('import { a } from "./a.js";  // why\nconst b = a + 1; /* note */ export { b };\n')
    'import{a}from"./a.js";const b=a+1;export{b};'
    """
    return rjsmin.jsmin(js, keep_bang_comments=True)


# Where white space is drawn as written: left alone by collapse_indentation.
_AS_WRITTEN = re.compile(r"<(pre|textarea|script|style|code)\b.*?</\1\s*>", re.S | re.I)
_INDENTATION = re.compile(r"[ \t]*\n[ \t\r\n]*")  # not \s: a no-break space is drawn


def collapse_indentation(html: str) -> str:
    r"""`html` with every run of white space that holds a line break cut to the line break: Material's
    templates indent each line, and a browser draws such a run as one space anyway (about
    0.6 KB gzip a page). Inside <pre>, <textarea>, <script>, <style> and <code> nothing changes.

    >>> collapse_indentation('<div>\n    <a href="#x">\n      Skip  </a>\n\n  </div><pre>  a\n    b</pre>\n  <code>x\n  y</code>')
    '<div>\n<a href="#x">\nSkip  </a>\n</div><pre>  a\n    b</pre>\n<code>x\n  y</code>'
    """
    out, last = [], 0
    for m in _AS_WRITTEN.finditer(html):
        out += [_INDENTATION.sub("\n", html[last:m.start()]), m.group()]
        last = m.end()
    out.append(_INDENTATION.sub("\n", html[last:]))
    return "".join(out)


def features_off(used: Used, off: tuple[tuple[str, str], ...]) -> Used:
    """`used` without the script words that name a feature the site leaves off: `off` holds (class-name
    prefix, a page class that turns the feature on anyway, or ""). Material's bundle names the classes of
    every feature it has (annotations, the version selector, tags) but makes them only when one is on;
    a class a page itself has is kept whatever `off` says.

    >>> u = used_names(['<p class="md-version-x">'], ["md-version__list md-tag md-typeset"])
    >>> sorted(features_off(u, (("md-version", ""), ("md-tag", ""))).words)
    ['md-typeset']
    >>> can_match(".md-version-x", features_off(u, (("md-version", ""),)))  # in a page: kept
    True
    >>> "md-tag" in features_off(used_names(['<pre class="annotate">'], ["md-tag"]), (("md-tag", "annotate"),)).words
    True
    """
    prefixes = tuple(prefix for prefix, trigger in off if not (trigger and trigger in used.classes))
    words = frozenset(w for w in used.words if not w.startswith(prefixes)) if prefixes else used.words
    return Used(used.classes, used.ids, used.attributes, words, used.palette)


def slim_site(site_dir: Path, theme_css: dict[str, Path], cache: Path | None = None,
              off: tuple[tuple[str, str], ...] = ()) -> None:
    """Purge Material's stylesheets in `site_dir` (from `theme_css`: site path -> the theme's own copy, so a
    dirty rebuild purges afresh) against every built page and script, minify our own stylesheets and scripts,
    and collapse every page's indentation. `off`: the features the site leaves off (see features_off).

    With `cache` (a folder), the purged sheets are kept there under a hash of everything the purge
    reads (pages, scripts, the theme's sheets, ours, this module's code): a build whose pages did
    not change takes them from there instead of reading every page's names again.
    """
    pages = [_collapsed_page(path) for path in site_dir.rglob("*.html")]
    # Ours minified first, so the purge's key reads the same text whether MkDocs copied a sheet afresh
    # (a clean build) or left last build's minified one (a dirty rebuild under `mkdocs serve`: the
    # purge ran again on its first edit, 80 ms). Minifying minified text changes nothing.
    for css in (site_dir / "assets").rglob("*.css"):
        if not css.name.endswith(".min.css") and css.relative_to(site_dir).as_posix() not in theme_css:
            css.write_text(minify_css(css.read_text(encoding="utf-8")), encoding="utf-8")
    for js in (site_dir / "assets").rglob("*.js"):  # Material's own (assets/javascripts) are minified already
        if not js.name.endswith(".min.js") and "javascripts" not in js.relative_to(site_dir).parts:
            js.write_text(minify_js(js.read_text(encoding="utf-8")), encoding="utf-8")
    scripts = [p.read_text(encoding="utf-8", errors="replace") for p in site_dir.rglob("*.js")]
    sources = {rel: source.read_text(encoding="utf-8") for rel, source in theme_css.items()}
    ours = [p.read_text(encoding="utf-8") for p in site_dir.rglob("*.css") if p.relative_to(site_dir).as_posix() not in sources]
    # Two keys: the texts themselves (a build whose pages are as before reads no page's names), then
    # the names they use (a page edited under `mkdocs serve` rarely adds a class, id or attribute).
    ours_and_off = [*ours, repr(off)]  # what the site leaves off changes the purge too
    by_text = cache / f"{_purge_key(pages, scripts, sources, ours_and_off)}.json" if cache is not None else None
    purged = _read_purged(by_text)
    if purged is None:
        load_page_names(cache)
        used = features_off(used_names(pages, scripts), off)
        store_page_names(cache)
        by_names = cache / f"{_purge_key(*_sorted_names(used), sources, ours_and_off)}.json" if cache is not None else None
        purged = _read_purged(by_names)
        if purged is None:
            purged = {}
            for rel, css in sources.items():  # a property one sheet sets may be read in another (palette, ours)
                elsewhere = "".join(ours) + "".join(c for r, c in sources.items() if r != rel)
                purged[rel] = purge(css, used, elsewhere)
            _store_purged(by_names, purged)
        _store_purged(by_text, purged)
    for rel, css in purged.items():
        (site_dir / rel).write_text(css if rel.endswith(".min.css") else minify_css(css), encoding="utf-8")


# The pages this process collapsed, as it left them: path -> (mtime_ns, size). A rebuild under `mkdocs
# serve --dirty` writes only the pages it rendered again; the others are read, not collapsed again (44 ms
# of each rebuild's 0.45 s, where an edit must show within a second). A page written since, by MkDocs or anyone, has another stamp.
_COLLAPSED: dict[str, tuple[int, int]] = {}


def _collapsed_page(path: Path) -> str:
    """The text of the built page at `path`, its indentation collapsed (written back where that changed it)."""
    stat = path.stat()  # before reading: a page written in between is collapsed again next time
    html = path.read_text(encoding="utf-8", errors="replace")
    if _COLLAPSED.get(str(path)) == (stat.st_mtime_ns, stat.st_size):
        return html
    slim = collapse_indentation(html)
    if slim != html:
        path.write_text(slim, encoding="utf-8")
        stat = path.stat()
    _COLLAPSED[str(path)] = (stat.st_mtime_ns, stat.st_size)
    return slim


def _sorted_names(used: Used) -> tuple[list[str], list[str]]:
    """`used` as two lists of text for `_purge_key`: its classes, ids and attribute names, and its words."""
    return ([" ".join(sorted(used.classes)), " ".join(sorted(used.ids)), " ".join(sorted(used.attributes))],
            [" ".join(sorted(used.words))])


def _purge_key(pages: list[str], scripts: list[str], sources: dict[str, str], ours: list[str]) -> str:
    """A hash of everything `purge` reads in `slim_site` (the pages and scripts, or the names in them),
    and of this module's code."""
    h = hashlib.sha256(Path(__file__).read_bytes())
    for group in (pages, scripts, [f"{rel}\0{css}" for rel, css in sources.items()], ours):
        h.update(f"\0group {len(group)}".encode())
        for text in group:
            h.update(f"\0{len(text)}\0".encode())
            h.update(text.encode("utf-8", errors="replace"))
    return h.hexdigest()[:24]


PURGES_KEPT = 8  # two per build: by the texts and by the names


def _read_purged(target: Path | None) -> dict[str, str] | None:
    try:
        return json.loads(target.read_text(encoding="utf-8")) if target is not None else None
    except (OSError, ValueError):
        return None  # none stored yet, or unreadable: purge afresh


def _store_purged(target: Path | None, purged: dict[str, str]) -> None:
    """Keep the purged sheets (written whole, then renamed); the last few builds' only. Failing is no error."""
    if target is None:
        return
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(purged), encoding="utf-8")
        tmp.replace(target)
        for old in sorted(target.parent.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[PURGES_KEPT:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
    finally:
        try:  # on a read-only .cache the unlink itself fails: it is no error either
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
