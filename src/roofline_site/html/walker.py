"""The one HTML walker and the one skip list: which parts of a built page are prose, and which prose stays as written.

Three jobs read a rendered page: the glossary puts hover cards on terms (glossary/annotate.py), the
description takes the first paragraph (html/description.py) and the Markdown copy keeps the page's
text (html/markdown_copy.py). All three walk the HTML here, against two skip lists defined once:

- `NOT_PROSE`: elements that are not the page's text: scripts, templates, hidden elements, popovers
  and hover cards (role="tooltip"), number provenance, permalinks, edit and feedback buttons, code
  line numbers. Descriptions and Markdown copies leave them out.
- `AS_WRITTEN`: `NOT_PROSE` plus prose no glossary card may go into: code, links, headings, form
  controls, abbreviations, math, figures (svg), number spans, existing cards, admonition titles and
  anything an author marked `data-glossary="off"`.

The walker is a regex tokenizer over the source string, not a tree: a job that rewrites the page
(the glossary) keeps every byte it does not touch, and a page with hundreds of popovers is walked in
one pass. Tags close the nearest open element of their name (a stray end tag is ignored), void
elements and `<x/>` open nothing, and script and style bodies are one token.
"""

from __future__ import annotations

import html as _html
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, NamedTuple

#: Elements that never hold content.
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                  "wbr"})

# A tag may hold ">" inside a quoted attribute value; a comment, declaration or script/style body is one token.
_TOKEN = re.compile(r"""<!--.*?-->|<![^>]*>|<\?[^>]*>|<(script|style)\b.*?</\1\s*>"""
                    r"""|</?[a-zA-Z](?:[^>"']|"[^"]*"|'[^']*')*>""", re.S | re.I)
_TAG_NAME = re.compile(r"<\s*(/?)\s*([a-zA-Z][\w:-]*)")
_SPACE = re.compile(r"\s")
_ATTR = re.compile(r"""([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?""")

TEXT, OPEN, CLOSE, OTHER = "text", "open", "close", "other"


def attributes(tag: str) -> dict[str, str]:
    """The attributes of one start tag, values unescaped ('' for a bare attribute such as `hidden`).

    >>> attributes('<a class="x y" href=\\'a?b&amp;c\\' hidden>')
    {'class': 'x y', 'href': 'a?b&c', 'hidden': ''}
    """
    name = _TAG_NAME.match(tag)
    body = tag[name.end() if name else 1:].rstrip(">").rstrip("/")
    out: dict[str, str] = {}
    for m in _ATTR.finditer(body):
        key = m.group(1).lower()
        if key not in out:  # the first of a repeated attribute wins, as in a browser
            value = m.group(2) if m.group(2) is not None else m.group(3) if m.group(3) is not None else m.group(4)
            out[key] = _html.unescape(value or "")
    return out


@dataclass(frozen=True)
class SkipList:
    """Which elements a walk leaves out, with everything inside them."""

    tags: frozenset[str] = frozenset()
    classes: frozenset[str] = frozenset()       # on any element
    link_classes: frozenset[str] = frozenset()  # on <a> only
    attrs: frozenset[str] = frozenset()         # present at all (`hidden`)
    roles: frozenset[str] = frozenset()
    off: frozenset[str] = frozenset()           # attributes whose value "off" opts an element out

    def __or__(self, other: "SkipList") -> "SkipList":
        return SkipList(*(getattr(self, f) | getattr(other, f) for f in
                          ("tags", "classes", "link_classes", "attrs", "roles", "off")))

    def skips(self, name: str, tag: str) -> bool:
        """Whether the element `name` opened by the start tag `tag` is left out."""
        if name in self.tags:
            return True
        if not (self.classes or self.link_classes or self.attrs or self.roles or self.off):
            return False  # a list of tags only (or none): no attributes to read
        if not _SPACE.search(tag):
            return False  # no attributes (most tags of a page)
        if "&" not in tag:  # (an entity could spell a name: such a tag is read whole)
            low = tag.lower()
            if not any(n in low for n in _names_looked_for(self)):
                return False  # none of the names it reads is in the tag
        attrs = attributes(tag)
        classes = set(attrs.get("class", "").split())
        return bool(classes & self.classes or (name == "a" and classes & self.link_classes)
                    or self.attrs & attrs.keys() or attrs.get("role") in self.roles
                    or any(attrs.get(a, "").strip().lower() == "off" for a in self.off))


@lru_cache(maxsize=None)
def _names_looked_for(skip: SkipList) -> tuple[str, ...]:
    """Every class and attribute name `skip` reads, in lower case: a tag whose lower-cased text holds none
    of them is not left out, found without reading its attributes (most tags with attributes, on every page)."""
    names = skip.classes | skip.link_classes | skip.attrs | skip.off | ({"role"} if skip.roles else set())
    return tuple(sorted(n.lower() for n in names))


NOT_PROSE = SkipList(
    tags=frozenset({"script", "style", "template", "noscript", "button"}),
    # rl-if-touch: the touch wording of a phrase written twice (rl-if-hover beside it); a copy keeps one.
    # rl-fold-toggle: the checkbox that shows a table's folded columns, a control and not the page's text.
    classes=frozenset({"rl-prov", "md-source-file", "md-feedback", "linenos", "rl-if-touch", "rl-fold-toggle"}),
    link_classes=frozenset({"headerlink", "md-content__button"}),
    attrs=frozenset({"hidden"}),
    roles=frozenset({"tooltip"}),
)

AS_WRITTEN = NOT_PROSE | SkipList(
    tags=frozenset({"code", "pre", "a", "h1", "h2", "h3", "h4", "h5", "h6", "kbd", "samp", "label", "select",
                    "option", "textarea", "title", "abbr", "summary", "dt", "svg", "math"}),
    classes=frozenset({"rl-num", "arithmatex", "headerlink", "gl-ref", "gl-card", "gl-cards", "admonition-title",
                       "gl-meta", "gl-mentioned", "gl-index"}),
    off=frozenset({"data-glossary"}),
)


class Token(NamedTuple):
    """One stretch of the source: text, a start tag, an end tag, or anything else (comment, void tag, script).

    A tuple, not a dataclass: a page is tens of thousands of tokens and the glossary walks every page.
    """

    source: str
    start: int
    end: int
    kind: str      # TEXT, OPEN, CLOSE or OTHER
    name: str      # the tag's lower-case name; "" for text and comments
    depth: int     # elements open around it; an OPEN and its CLOSE count their own element
    skipped: bool  # inside an element the skip list leaves out, or one itself

    @property
    def html(self) -> str:
        return self.source[self.start:self.end]

    def attrs(self) -> dict[str, str]:
        """A start or void tag's attributes (see `attributes`); {} for anything else."""
        return attributes(self.html) if self.kind in (OPEN, OTHER) and self.name else {}


def walk(source: str, skip: SkipList) -> Iterator[Token]:
    """Every stretch of `source` in order, each marked with its depth and whether `skip` leaves it out."""
    stack: list[tuple[str, bool]] = []  # (name, skipped) of each open element
    inside = False                      # whether the innermost open element is left out
    pos = 0
    tag_name, skips = _TAG_NAME.match, skip.skips
    for m in _TOKEN.finditer(source):
        start, end = m.span()
        if start > pos:
            yield Token(source, pos, start, TEXT, "", len(stack), inside)
        pos = end
        tag = m.group(0)
        t = tag_name(tag) if tag[1] not in "!?" else None
        if t is None:
            yield Token(source, start, end, OTHER, "", len(stack), inside)
            continue
        name = t.group(2).lower()
        if t.group(1):  # an end tag closes the nearest open element of its name and all inside it
            for i in range(len(stack) - 1, -1, -1):
                if stack[i][0] == name:
                    yield Token(source, start, end, CLOSE, name, i + 1, stack[i][1])
                    del stack[i:]
                    inside = bool(stack) and stack[-1][1]
                    break
            else:
                yield Token(source, start, end, OTHER, name, len(stack), inside)
            continue
        skipped = inside or skips(name, tag)
        if m.group(1) or name in VOID or tag[-2] == "/":  # script/style body, void element, <x/>
            yield Token(source, start, end, OTHER, name, len(stack), skipped)
        else:
            stack.append((name, skipped))
            inside = skipped
            yield Token(source, start, end, OPEN, name, len(stack), skipped)
    if pos < len(source):
        yield Token(source, pos, len(source), TEXT, "", len(stack), inside)


def without(source: str, skip: SkipList) -> str:
    """`source` with every element `skip` leaves out removed, contents and all; every other byte kept.

    >>> without('<p>ridge <span role="tooltip">popover</span>point<button>x</button></p>', NOT_PROSE)
    '<p>ridge point</p>'
    """
    return "".join(t.html for t in walk(source, skip) if not t.skipped)
