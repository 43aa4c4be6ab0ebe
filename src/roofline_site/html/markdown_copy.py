"""Markdown copies of built pages (`ridge-point/index.md` beside `ridge-point/index.html`).

Converted from the rendered article, so numbers, executed blocks and generated tables read as
the reader sees them. The conversion (BeautifulSoup + markdownify) is the slowest step of a
page, and nothing else in the build needs its result, so `CopyWriter` runs it in a worker
process while MkDocs renders the next pages: on two cores it costs no wall time.
"""

from __future__ import annotations

import atexit
import hashlib
import multiprocessing
import posixpath
import re
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from roofline_site.html.values import with_values, without_values
from roofline_site.html.walker import CLOSE, NOT_PROSE, OPEN, walk


_COPY_SYNTAX = re.compile(r"([\[\]<>`|])")
# A sortable table's header is a button (table_base.html_table), and buttons are not prose: its
# name and unit are taken out of the button first, or the copy's header row would be empty.
_SORT_BUTTON = re.compile(r'<button type="button" class="rl-sort">(.*?)<span class="rl-unit">(.*?)</span></button>', re.S)


def header_text(page_html: str) -> str:
    """Sortable tables' header buttons as plain header text, the unit in brackets.

    >>> header_text('<th><button type="button" class="rl-sort">Bandwidth<span class="rl-unit">TB/s</span></button></th>')
    '<th>Bandwidth (TB/s)</th>'
    """
    return _SORT_BUTTON.sub(lambda m: f"{m.group(1)} ({m.group(2)})" if m.group(2).strip() else m.group(1), page_html)


_BACKTICKS = re.compile(r"`+")


def _literal(text: str) -> str:
    """Text inside Markdown syntax (an image's alt, a link's title): brackets, tags, code, pipes and quotes
    backslash-escaped, so a name such as `[x](javascript:y)` or `<script>` stays text in the copy."""
    return re.sub(r"([\\\[\]<>`|\"*_])", r"\\\1", " ".join(str(text).split()))


def _is_site_or_web_link(href: str) -> bool:
    """An href the copy may keep: http(s), or a path within the site (no other scheme: javascript:, data:)."""
    scheme = re.match(r"\s*([a-zA-Z][a-zA-Z0-9+.-]*):", href or "")
    return scheme is None or scheme.group(1).lower() in ("http", "https")


_DESTINATION_UNSAFE = re.compile(r"[\s()<>\"'`\\\[\]{}|^\x00-\x1f\x7f]")


_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9\\])_|_(?![A-Za-z0-9])")


def destination(href: str) -> str:
    """`href` as a Markdown link destination: every character that could end it or start new syntax
    percent-encoded, so an address holding `)` stays one link, never two.

    >>> destination("https://x.example/a)[pwn](javascript:alert(1)")
    'https://x.example/a%29%5Bpwn%5D%28javascript:alert%281%29'
    """
    return _DESTINATION_UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8")), href)


def _converter():
    """HTML -> Markdown for the page copies: fenced code with its language, ATX headings.

    Imported here: bs4 and markdownify load only in the worker, not in the build itself.
    """
    from markdownify import MarkdownConverter

    def language(el) -> str:
        for node in (el, el.parent, el.parent.parent if el.parent else None):
            for cls in (node.get("class") or []) if node is not None else []:
                if cls.startswith("language-"):
                    return cls.removeprefix("language-")
        return ""

    class Converter(MarkdownConverter):
        def escape(self, text, parent_tags):
            # Text a page shows may quote a file ("[x](javascript:..)", "<b>", a name "*em*"): in the
            # copy it stays text, never a link, a tag or emphasis. Asterisks are escaped (markdownify),
            # underscores where they could open or close emphasis: inside a word (lm_head) they cannot.
            text = super().escape(text, parent_tags)
            if "_noformat" in parent_tags:
                return text
            return _EDGE_UNDERSCORE.sub(r"\\_", _COPY_SYNTAX.sub(r"\\\1", text))

        def convert_img(self, el, text, parent_tags):
            # The alt text of a figure names devices and models from the spec files: literal, as in the page.
            alt, src = _literal(el.attrs.get("alt") or ""), el.attrs.get("src") or ""
            if not _is_site_or_web_link(src):
                return alt
            title = el.attrs.get("title")
            title_part = f' "{_literal(title)}"' if title else ""
            return f"![{alt}]({destination(src)}{title_part})"

        def convert_a(self, el, text, parent_tags):
            href = el.get("href") or ""
            if not _is_site_or_web_link(href):
                return text  # the label alone, as escape.link publishes a refused address
            el = el.__copy__()
            el["href"] = destination(href)
            if el.get("title"):  # markdownify escapes its quotes; the rest of the syntax is escaped here
                el["title"] = _literal(el["title"].replace('"', "'"))
            return super().convert_a(el, text, parent_tags)

        def convert_pre(self, el, text, parent_tags):
            # A fence longer than any run of backticks in the block: "```" in executed output cannot close it.
            out = super().convert_pre(el, text, parent_tags)
            longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
            if longest < 3:
                return out
            fence = "`" * (longest + 1)
            head, body = out.split("```", 1)
            body, tail = body.rsplit("```", 1)
            return f"{head}{fence}{body}{fence}{tail}"

    return Converter(heading_style="ATX", bullets="-", code_language_callback=language,
                     escape_underscores=False, escape_asterisks=True, sup_symbol="^")


def article_markdown(page_html: str) -> str:
    """The article of a built Material page as Markdown, '' if the page has no article."""
    return article_markdown_from(page_html, {})[0]


def article_markdown_from(page_html: str, known: dict[str, str]) -> tuple[str, dict[str, str]]:
    """(the article of a built page as Markdown, {digest of each block of it: its Markdown}), taking the
    Markdown of a block from `known` (an earlier build's blocks of the page) where its HTML is the same.

    A block is a child of the article (a paragraph, a table, a figure): markdownify converts each one
    alone, then joins them as it joins an element's children, so a page converted by blocks reads as
    one converted whole. A block is keyed with its numbers' values as holes (`html.values.without_values`),
    put back after: a spec edit that changes a paragraph's numbers alone converts none of it again, and one
    that changes more (a figure's alt text, a table's sort values) converts those blocks only.
    """
    head, blocks = article_blocks(page_html)
    if head is None:
        return "", {}
    converter, mine, parts = None, {}, []
    for block in blocks:
        holed, values = without_values(block)
        key = hashlib.blake2b(holed.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        if key not in mine:
            if key in known:
                mine[key] = known[key]
            else:
                converter = converter or _converter()
                mine[key] = _block_markdown(converter, head, holed)
        md = with_values(mine[key], values)
        if md is None:  # (a conversion that moved, dropped or repeated a value: the block converted as it is)
            converter = converter or _converter()
            md = _block_markdown(converter, head, block)
        parts.append(md)
    md = _joined(parts)
    return re.sub(r"\n{3,}", "\n\n", md).strip() + "\n", mine


def article_blocks(page_html: str) -> tuple[str | None, list[str]]:
    r"""(the article's start tag, its children as HTML, each whole), what is not prose left out; (None, [])
    for a page without an article.

    What is not prose goes before BeautifulSoup parses anything: the popovers are most of a page's
    markup, and parsing them only to drop them was most of this step's time.

    >>> article_blocks('<main><article class="a"><p>x<span role="tooltip">t</span></p>\n<hr><ul><li>y</li></ul></article></main>')
    ('<article class="a">', ['<p>x</p>', '\n', '<hr>', '<ul><li>y</li></ul>'])
    """
    head, depth, blocks, block = None, 0, [], []
    for t in walk(header_text(article_slice(page_html)), NOT_PROSE):
        if t.skipped:
            continue
        if head is None:
            if t.kind == OPEN and t.name == "article":
                head, depth = t.html, t.depth
            continue
        if t.kind == CLOSE and t.name == "article" and t.depth == depth:
            break
        block.append(t.html)
        if t.depth == depth + 1 and t.kind == CLOSE or t.depth == depth and t.kind != CLOSE:
            blocks.append("".join(block))
            block = []
    if block:
        blocks.append("".join(block))
    return head, blocks


def _block_markdown(converter, head: str, block: str) -> str:
    """One child of the article as markdownify converts it inside the article (`head`, its start tag)."""
    from bs4 import BeautifulSoup

    return converter.convert_soup(BeautifulSoup(f"{head}{block}</article>", "html.parser").article)


# markdownify's join of an element's children: the newlines where two meet are the larger of the two
# sides', at most two.
_EDGE_NEWLINES = re.compile(r"^(\n*)((?:.*[^\n])?)(\n*)$", re.S)


def _joined(parts) -> str:
    """The Markdown of an element's children joined as markdownify joins them (its process_tag).

    >>> _joined(["\\n\\n# A\\n\\n", "\\nx\\n", "", "y"])
    '\\n\\n# A\\n\\nx\\ny'
    """
    out = [""]
    for part in parts:
        if not part:
            continue
        leading, content, trailing = _EDGE_NEWLINES.match(part).groups()
        if out[-1] and leading:
            leading = "\n" * min(2, max(len(out.pop()), len(leading)))
        out.extend([leading, content, trailing])
    return "".join(out)


def markdown_path(dest_uri: str) -> str:
    """Where a page's Markdown copy goes: beside its HTML, same stem.

    >>> markdown_path("ridge-point/index.html")
    'ridge-point/index.md'
    """
    return posixpath.splitext(dest_uri)[0] + ".md"


def article_html(content_html: str, title: str) -> str:
    """The prose of a page's article as Material lays it out: its content, under an h1 if it has none."""
    import html

    heading = "" if "<h1" in content_html else f"<h1>{html.escape(title)}</h1>\n"
    return f'<article class="md-content__inner md-typeset">{heading}{content_html}</article>'


def article_slice(page_html: str) -> str:
    """Only the page's `<article>` (articles do not nest), or the whole page if it has none."""
    start, end = page_html.find("<article"), page_html.rfind("</article>")
    return page_html[start:end + len("</article>")] if start != -1 and end != -1 else page_html


class CopyWriter:
    """Converts pages to Markdown in one worker process; `results()` waits for all of them.

    The worker comes from a forkserver (not fork): `mkdocs serve` runs threads, and forking a
    threaded process can copy a held lock into the child. If the worker cannot start or dies
    (a host program that re-runs itself when imported, say), the pages are converted here instead.
    """

    _executor: ProcessPoolExecutor | None = None  # shared by every build of a `mkdocs serve` session

    def __init__(self):
        # key -> (html, digest, the stored copy or the worker's future or None, the last build's blocks)
        self._pending: dict[str, tuple[str, str, Future | str | None, dict[str, str]]] = {}

    @classmethod
    def _pool(cls) -> ProcessPoolExecutor:
        if cls._executor is None:
            cls._executor = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("forkserver"))
            atexit.unregister(cls.close)  # one registration, however many pools a serve session makes
            atexit.register(cls.close)
        return cls._executor

    @classmethod
    def start_server(cls) -> None:
        """Start the forkserver the worker comes from, without waiting for it: it boots (a fresh
        interpreter importing MkDocs, about a third of a second) while the build reads its configuration,
        so the first page's copy does not wait for it. Harmless where it already runs."""
        try:
            from multiprocessing import forkserver

            forkserver.ensure_running()
        except (ImportError, OSError, ValueError, RuntimeError, AttributeError):  # (a host without one: the pages convert here)
            pass

    @classmethod
    def close(cls) -> None:
        """Stop the worker (at the latest as the interpreter exits, before it tears its modules down: an
        executor still held by the class then is collected among the ruins, and its clean-up printed
        "Exception ignored in ... weakref_cb" at the end of a test run)."""
        executor, cls._executor = cls._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    def submit(self, key: str, page_html: str) -> None:
        """Start converting `page_html` (a whole page or an article); a later submit under `key` wins.

        A page whose HTML the last build converted alike takes that copy (roofline_site.derived): the
        conversion is a pure function of the HTML and the site glue's code.
        """
        from roofline_site import derived

        digest = derived.digest(derived.glue_key(), page_html)
        found, md = derived.lookup(("page copy", key), digest)
        if found:
            self._pending[key] = (page_html, digest, md, {})
            return
        # An edited page: the blocks it shares with its copy in the last build are taken from there.
        known = derived.lookup(("page copy blocks", key), derived.glue_key())[1] or {}
        try:
            future = self._pool().submit(article_markdown_from, page_html, known)
        except (BrokenProcessPool, RuntimeError, OSError):
            type(self)._executor, future = None, None
        self._pending[key] = (page_html, digest, future, known)

    @classmethod
    def _converted(cls, key: str, page_html: str, known: dict[str, str], pending: Future | None) -> tuple:
        """(Markdown, blocks) of one page: the worker's, or made here where it has none."""
        try:
            try:
                return pending.result() if pending is not None else article_markdown_from(page_html, known)
            except BrokenProcessPool:
                cls._executor = None
                return article_markdown_from(page_html, known)
        except Exception as err:  # noqa: BLE001 — re-raised with the page named
            raise RuntimeError(f"{key}: the Markdown copy failed: {err}") from None

    def results(self) -> dict[str, str]:
        """{key: Markdown} for every submitted page; a failed conversion raises naming its page."""
        from roofline_site import derived

        out = {}
        # The copies the worker has not started are made here, the last first, while it makes the others:
        # the pages are done, and this process would otherwise wait with its core idle.
        made_here = {}
        for key in reversed(list(self._pending)):
            page_html, _, pending, known = self._pending[key]
            if isinstance(pending, Future) and pending.cancel():
                made_here[key] = self._converted(key, page_html, known, None)
        for key, (page_html, digest, pending, known) in self._pending.items():
            if isinstance(pending, str):  # the stored copy
                out[key] = pending
                continue
            md, blocks = made_here[key] if key in made_here else self._converted(key, page_html, known, pending)
            out[key] = md
            derived.remember(("page copy", key), digest, md)
            derived.remember(("page copy blocks", key), derived.glue_key(), blocks)
        self._pending.clear()
        return out
