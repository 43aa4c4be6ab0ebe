"""Text from files and links, made safe where it enters a page: one helper for every boundary.

Strings from a spec file, a measurement file, a config file, the glossary front matter or a
URL are data, never markup: `text` makes them literal in HTML *and* in Markdown (a label
`[link](javascript:alert(5))` shows as typed, never as a link), `attr` makes them safe inside
an attribute value, and `url` lets through only http(s) addresses. `terminal` does the same
for the CLI: no escape sequence from a file reaches a terminal.

>>> text('<b>x</b> [a](javascript:1)')
'&lt;b&gt;x&lt;/b&gt; &#91;a&#93;(javascript:1)'
"""

from __future__ import annotations

import html as _html
import re
import unicodedata
from urllib.parse import urlsplit

# Characters Markdown (with this site's extensions: attr_list, abbr, footnotes, arithmatex,
# tables) reads as syntax anywhere in a line; written as numeric entities they show as typed.
_MARKDOWN = {c: f"&#{ord(c)};" for c in "\\`*_[]{}|$"}
# One pass, so no entity is escaped twice: HTML's five, then Markdown's syntax.
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
_LITERAL = str.maketrans({**_MARKDOWN, **_HTML})
# C0/C1 controls (escape sequences, backspace, bell) and the bidirectional overrides that can
# make a line read differently from the bytes it holds.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Line breaks and ordinary spaces only: the formatter's no-break and thin spaces are kept.
_SPACE = re.compile("[\t\n\r\v\f \u2028\u2029]+")


class UnsafeURL(ValueError):
    """A URL whose scheme is not http or https (javascript:, data:, a relative path...)."""


def plain(value: object) -> str:
    """`value` as one line of text: controls removed, every run of whitespace a single space.

    >>> plain("a\\x1b[2Jb\\n c")
    'a[2Jb c'
    """
    return _SPACE.sub(" ", _CONTROL.sub("", str(value))).strip(" ")


def text(value: object) -> str:
    """`value` as literal HTML and Markdown text: escaped, Markdown syntax as entities, one line.

    >>> text("*x* <i>")
    '&#42;x&#42; &lt;i&gt;'
    """
    return plain(value).translate(_LITERAL)


def markdown(value: object) -> str:
    """`value` as literal text in a Markdown *file* (llms.txt): syntax backslash-escaped, one line.

    >>> markdown("[a](javascript:1) <b>")
    '\\\\[a\\\\](javascript:1) \\\\<b\\\\>'
    """
    return re.sub(r"([\\`*_\[\]{}<>|#!$~^])", r"\\\1", plain(value))


def attr(value: object) -> str:
    """`value` inside a double-quoted HTML attribute.

    >>> attr('a" onload="x')
    'a&quot; onload=&quot;x'
    """
    return _html.escape(plain(value), quote=True)


def is_web_url(value: object) -> bool:
    """True for an absolute http(s) URL with a host and no spaces or controls.

    >>> is_web_url("javascript:alert(1)"), is_web_url("https://example.com/a")
    (False, True)
    """
    if not isinstance(value, str) or re.search(r"\s", value) or _CONTROL.search(value):
        return False
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def url(value: object) -> str:
    """`value` for an href attribute, only if it is an absolute http(s) URL; else UnsafeURL.

    >>> url("https://example.com/?a=1&b=2")
    'https://example.com/?a=1&amp;b=2'
    """
    if not is_web_url(value):
        raise UnsafeURL(f"refused link {plain(value)[:80]!r}: only http:// and https:// sources are published")
    # A pipe or backtick in an href would still split a Markdown table cell: entities keep it whole.
    return _html.escape(str(value), quote=True).replace("|", "&#124;").replace("`", "&#96;")


def link(label: object, address: object) -> str:
    """An `<a>` to an http(s) source with a literal label; a refused address gives the label alone.

    >>> link("A [b]", "https://x.org")
    '<a href="https://x.org" rel="noopener">A &#91;b&#93;</a>'
    """
    try:
        href = url(address)
    except UnsafeURL:
        return text(label)
    return f'<a href="{href}" rel="noopener">{text(label)}</a>'


def terminal(value: object) -> str:
    """`value` for a terminal: controls and escape sequences removed, nothing else changed.

    >>> terminal("ok\\x1b[2J\\rroofline: error: forged")
    'ok[2Jroofline: error: forged'
    """
    return "".join(ch for ch in _CONTROL.sub("", str(value))
                   if ch in "\n\t" or unicodedata.category(ch) not in ("Cc",))


def json_data(value: object) -> str:
    """`value` as compact JSON that holds no markup: `<`, `>` and `&` inside strings written as
    \\u escapes. The data parse back the same; a file that quotes a spec field ("<script>") never
    holds the markup itself, whoever serves or opens it.

    >>> json_data({"name": "<b>&"})
    '{"name":"\\\\u003cb\\\\u003e\\\\u0026"}'
    """
    import json

    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    # (three C-level replaces: a translate table walks every character in Python's slower path, 0.17 s
    # against 0.01 s for the 2.5 MB numbers.json)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
