"""Hover cards on a rendered page: the first mention of each term per section wrapped, its card added."""

from __future__ import annotations

import html as _html
import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from roofline_site.glossary.matching import find_mentions
from roofline_site.glossary.records import Entry, Glossary
from roofline_site.html import escape as esc
from roofline_site.html.walker import AS_WRITTEN, OPEN, OTHER, TEXT, walk


# What a card may never go into (code, links, headings, number spans, existing cards, opt-outs...)
# is html/walker.py's AS_WRITTEN, the one skip list the descriptions and Markdown copies share.
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


@dataclass(frozen=True)
class Annotated:
    html: str
    mentioned: frozenset  # slugs that got a card on this page
    linked: frozenset     # slugs this page links to by hand (before annotation)


def resolve_glossary_link(href: str, page_url: str, glossary: Glossary) -> str | None:
    """The slug a link (its href as the browser reads it) points to from the page at `page_url`, or None."""
    href = href.split("#", 1)[0].split("?", 1)[0]
    if not href or re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I) or href.startswith("//"):
        return None
    path = urlsplit(urljoin("http://site/" + page_url, href)).path
    m = re.fullmatch(r"/?glossary/([a-z0-9-]+)(?:/|/index\.html|\.html|\.md)?", path.lstrip("/"))
    if m and m.group(1) in glossary.by_slug:
        return m.group(1)
    return None


def card_html(entry: Entry, href: str) -> str:
    """The hover card of one entry: term, category, the one-sentence summary, a link."""
    e = esc.text
    return (f'<span class="gl-card" role="tooltip" id="gl-card-{entry.slug}" hidden>'
            f'<span class="gl-card-head"><strong class="gl-card-term">{e(entry.term)}</strong> '
            f'<span class="gl-card-cat">{e(entry.category_label)}</span></span>'
            f'<span class="gl-card-summary">{e(entry.summary)}</span>'
            f'<a class="gl-card-link" href="{esc.attr(href)}">Open the glossary entry</a></span>')


# On demand, to keep each page's download small: a built page ships its terms without their cards; the cards go into one JSON
# per page (CARDS_FILE, beside its index.html, {slug: the card's inner HTML}) that glossary.js fetches
# when a reader first points at, focuses or taps a term. The cards were the heaviest page's largest
# part after Material's script, sent whether a reader opened one or not.
CARDS_FILE = "cards.json"
_CARDS = re.compile(r'\n?<div class="gl-cards" hidden data-search-exclude>(.*?)</div>', re.S)
_CARD = re.compile(r'<span class="gl-card" role="tooltip" id="gl-card-([a-z0-9-]+)" hidden>(.*?)</span>'
                   r'(?=<span class="gl-card" role="tooltip"|$)', re.S)


def cards_on_demand(html: str) -> tuple[str, dict[str, str]]:
    r"""The page without its cards, and {slug: card inner HTML} of those cards, in page order.

    >>> cards_on_demand('<p><span class="gl-ref" data-gl="a">A</span></p>\n<div class="gl-cards" hidden data-search-exclude>'
    ...                 '<span class="gl-card" role="tooltip" id="gl-card-a" hidden><span>A</span></span>'
    ...                 '<span class="gl-card" role="tooltip" id="gl-card-b" hidden><span>B</span></span></div>')
    ('<p><span class="gl-ref" data-gl="a">A</span></p>', {'a': '<span>A</span>', 'b': '<span>B</span>'})
    """
    m = _CARDS.search(html)
    if not m:
        return html, {}
    return html[:m.start()] + html[m.end():], dict(_CARD.findall(m.group(1)))


def annotate_html(html: str, glossary: Glossary, page_url: str, href_for, exclude: frozenset = frozenset()) -> Annotated:
    """Wrap the first mention of each term in each section (in prose outside AS_WRITTEN); the
    first on the page is a link to the entry, later sections' a focusable span.

    `href_for(slug)` gives the link from this page to the entry; `exclude` holds slugs not to
    annotate (an entry's own page). The cards go once per term at the end of the content.
    """
    linked: set[str] = set()
    seen: list[str] = []
    in_section: set[str] = set()  # slugs already marked since the last heading
    out = []
    for token in walk(html, AS_WRITTEN):
        chunk = token.html
        if token.kind != TEXT or token.skipped:
            if token.name in HEADINGS and token.kind == OPEN:
                in_section = set()  # a heading opens a new section: terms are marked again after it
            elif token.name == "a" and token.kind in (OPEN, OTHER) and (href := token.attrs().get("href")):
                if (slug := resolve_glossary_link(href, page_url, glossary)):
                    linked.add(slug)
            out.append(chunk)
            continue
        last = 0
        for mention in find_mentions(chunk, glossary):
            if mention.slug in exclude or mention.slug in in_section:
                continue  # quiet until asked: one mark per term per section
            text = chunk[mention.start:mention.end]
            slug = mention.slug
            in_section.add(slug)
            if slug not in seen:
                seen.append(slug)
                trigger = (f'<a class="gl-term" href="{_html.escape(href_for(slug))}" '
                           f'aria-describedby="gl-card-{slug}">{text}</a>')
            else:
                trigger = f'<span class="gl-term" tabindex="0" aria-describedby="gl-card-{slug}">{text}</span>'
            out.append(chunk[last:mention.start])
            out.append(f'<span class="gl-ref" data-gl="{slug}">{trigger}</span>')
            last = mention.end
        out.append(chunk[last:])
    if seen:
        by_slug = glossary.by_slug
        cards = "".join(card_html(by_slug[s], href_for(s)) for s in seen)
        out.append(f'\n<div class="gl-cards" hidden data-search-exclude>{cards}</div>')
    return Annotated("".join(out), frozenset(seen), frozenset(linked))
