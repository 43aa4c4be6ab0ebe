"""Number tokens: `{{ expr }}` in Markdown, evaluated in `roofline.quantities.NAMESPACE`.

A token must evaluate to a Quantity (rendered through roofline.format, with a
provenance popover), a string (a name or a word such as "memory-bound"), or the
empty string a `claim(...)` returns. A bare number is refused: it would be a
number with no provenance. Fenced code and inline code are left alone.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from roofline_site.html import escape as esc

TOKEN = re.compile(r"\{\{(.+?)\}\}", re.S)
FENCE = re.compile(r"^( {0,8})(`{3,}|~{3,})", re.M)
INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1", re.S)


class Raw(str):
    """Markup produced by the site glue itself (a figure block): inserted as is, not escaped."""


class TokenError(Exception):
    """One token failed: the message names the page, the token and the reason."""


@dataclass
class Rendered:
    page: str
    expr: str
    text: str
    label: str = ""
    formula: str = ""
    inputs: list = field(default_factory=list)
    sentence: str = ""
    plain: bool = False  # rendered as bare text (heading, alt text): no popover on the page


def _namespace():
    from roofline.quantities import NAMESPACE  # imported late: `mkdocs serve` reloads roofline

    return NAMESPACE


#: A literal Python will not convert (more than sys.get_int_max_str_digits() digits, 4,300 by default).
_HUGE_NUMBER = re.compile(r"[0-9_]{4301,}")


def evaluate(expr: str, namespace: dict | None = None, where: str = "<token>"):
    """The value of one token's expression: `roofline.quantities.NAMESPACE` (or `namespace`), no builtins.

    The one evaluator of tokens: the page hook, the numbers diff and the exercise checks all call it.
    """
    names = _namespace() if namespace is None else namespace
    if _HUGE_NUMBER.search(expr):  # compile() would answer with a paragraph about sys.set_int_max_str_digits
        raise ValueError("holds a number of thousands of digits; no token or binding needs one")
    return eval(compile(expr, where, "eval"), {"__builtins__": {}}, dict(names))  # noqa: S307 — the repo's own pages


# Numbers outside a token (table cells) take the next id of the build; a page's tokens are reused
# between builds only with the same first id (numbers_hook), so ids stay unique when reused.
_next_id = [1]


def next_fresh_id() -> int:
    """The id the next number outside a token will get."""
    return _next_id[0]


def skip_fresh_ids_to(n: int) -> None:
    """Continue fresh ids at `n` (after a page's tokens were reused, as rendering them would have)."""
    _next_id[0] = max(_next_id[0], n)


def _fresh_id() -> str:
    _next_id[0] += 1
    return f"rl-p-x{_next_id[0] - 1}"

# While a build runs, popovers wait in this store and the page carries a comment in their place:
# Markdown, the glossary pass, search indexing and the Markdown copies then skip about half of
# each page's bytes. `popovers_on_demand` puts them back, empty, as the last step of each page.
_deferred: dict[str, str] | None = None
# The slot is an empty element, not an HTML comment: Python-Markdown looks, for every comment inside
# an open inline tag, for its closing tag in the rest of the paragraph, and a registry table is one
# paragraph, so comments made the build quadratic in the number of devices.
POPOVER_SLOT = re.compile(r'<span data-rl-prov="([\w-]+)"></span>')


def _text(s: str) -> str:
    # Labels, formulas and source titles come from the registry: literal in HTML and in Markdown
    # (a label such as "head_dim" or a source title survives as typed).
    return esc.text(s)


def _popover(q, ident: str) -> str:
    """The provenance of `q` as inline markup: label, exact value, arithmetic line, formula in words, inputs, sources.

    The label carries the value unrounded (data-rl-value, as Python's repr): a check reads it there,
    in the popover a reader fetches on demand, not on every number of the page (page weight).

    Only phrasing elements (span, strong, b, a, template): the popover sits inside a paragraph, and
    a block element such as <ul> there would make the browser close the paragraph early.
    """
    from roofline.format import render

    exact = render(q.value, q.unit, max(q.digits, 4))
    value = f' <span class="rl-prov-value">= {_text(exact)}</span>' if exact != q.text() else ""
    formula = f' <span class="rl-prov-formula">{_text(q.formula)}</span>' if q.formula else ""
    # The arithmetic with the values that enter it, as printed: a reader can redo it on a calculator.
    line = q.arithmetic_line()
    arith = f' <span class="rl-prov-arith">{_text(line)}</span>' if line else ""
    rows, sources = [], []
    for i in q.inputs:
        raw = i.value if isinstance(i.value, str) else repr(float(i.value))
        rows.append(f'<span class="rl-prov-in" data-rl-input="{esc.attr(raw)}" data-rl-unit="{esc.attr(i.unit)}">'
                    f'<span class="rl-prov-in-label">{_text(i.label)}</span>: <b>{_text(i.text())}</b></span> ')
        if i.source is not None and i.source not in sources:
            sources.append(i.source)
    if rows:
        inputs = f' <span class="rl-prov-head">Inputs</span> <span class="rl-prov-inputs">{"".join(rows)}</span>'
    else:
        inputs = ' <span class="rl-prov-none">No registry inputs: a value chosen for the example.</span>'
    links = " ".join(f'<a class="rl-prov-src" href="{esc.url(s.url)}" rel="noopener">{_text(s.title)}</a>'
                     if esc.is_web_url(s.url) else _text(s.title) for s in sources)
    srcs = f' <span class="rl-prov-head">Sources</span> <span class="rl-prov-sources">{links}</span>' if links else ""
    # The body sits in a <template>: inert until provenance.js moves it into the popover, so a page
    # with hundreds of numbers does not carry thousands of hidden elements through style and scripts.
    return (f'<span class="rl-prov" id="{ident}" role="tooltip" data-search-exclude><template>'
            f'<strong class="rl-prov-label" data-rl-value="{q.value!r}">{_text(q.label)}</strong>{value}{arith}{formula}{inputs}{srcs}</template></span>')


def defer_popovers(store: dict[str, str] | None) -> None:
    """Hold popovers in `store` (id -> markup) and leave a slot in the page; None renders them inline."""
    global _deferred
    _deferred = store


# On demand, to keep each page's download small: a built page carries each popover empty, and its body goes into one JSON per
# page (PROVENANCE_FILE, beside the page's index.html) that provenance.js fetches when a reader first
# reaches for a number. The bodies were 60 % of the heaviest page's HTML, sent whether read or not.
PROVENANCE_FILE = "provenance.json"
_TEMPLATE_OPEN, _TEMPLATE_CLOSE = "<template>", "</template></span>"


def popovers_on_demand(html_text: str, store: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The page with each held popover left empty, and {id: body} of those popovers, in page order.

    A slot with no popover is a bug, so it raises.
    """
    bodies: dict[str, str] = {}

    def empty(m: re.Match) -> str:
        ident = m.group(1)
        try:
            markup = store[ident]
        except KeyError:
            raise TokenError(f"a number's provenance popover {ident!r} was never rendered") from None
        shell, _, rest = markup.partition(_TEMPLATE_OPEN)
        bodies[ident] = rest.removesuffix(_TEMPLATE_CLOSE)
        return shell + "</span>"

    if "<span data-rl-prov=" not in html_text:
        return html_text, bodies
    return POPOVER_SLOT.sub(empty, html_text), bodies


def _popover_or_slot(q, ident: str) -> str:
    markup = _popover(q, ident)
    if _deferred is None:
        return markup
    _deferred[ident] = markup
    return f'<span data-rl-prov="{ident}"></span>'


def number_id(page: str, index: int) -> str:
    """A stable id for the `index`-th number of `page`, unique across pages (a hover card may quote another page)."""
    return f"rl-p-{hashlib.sha1(page.encode()).hexdigest()[:6]}-{index}"


def render_value(value, *, plain: bool, ident: str | None = None, shown: str | None = None) -> tuple[str, object]:
    """HTML for a token's value and the Quantity behind it (None for names and figures).

    A Quantity becomes a focusable number whose popover (`ident`, else a fresh id) describes it;
    with `plain` (headings, alt text) only its text. `shown` replaces the text shown (a table cell
    whose column header names the unit); the popover still gives the value with its unit.
    """
    from roofline.quantities import Quantity

    if isinstance(value, Quantity):
        text = esc.text(value.text() if shown is None else shown)
        if plain:
            return text, value
        ident = ident or _fresh_id()
        return (f'<span class="rl-num" tabindex="0" aria-describedby="{ident}">'
                f"{text}{_popover_or_slot(value, ident)}</span>"), value
    if isinstance(value, Raw):
        return str(value), None
    if isinstance(value, str):
        return esc.text(value), None  # a name from a spec file: literal, never Markdown or HTML
    if isinstance(value, bool):
        raise TypeError("evaluated to True/False; wrap a condition in claim(condition, 'statement')")
    if isinstance(value, (int, float)):
        raise TypeError("evaluated to a bare number with no unit or provenance; return a Quantity "
                        "(for example example('name') or ratio(a, b))")
    raise TypeError(f"evaluated to a {type(value).__name__}, not a Quantity or a string")


def _protected_spans(markdown: str) -> list[tuple[int, int]]:
    """Character ranges of fenced code blocks and inline code, where tokens are not expanded."""
    spans, pos = [], 0
    while True:
        m = FENCE.search(markdown, pos)
        if not m:
            break
        closing = re.compile(rf"^ {{0,8}}{re.escape(m.group(2)[0])}{{{len(m.group(2))},}}\s*$", re.M)
        end = closing.search(markdown, m.end())
        stop = end.end() if end else len(markdown)
        spans.append((m.start(), stop))
        pos = stop
    outside = []
    last = 0
    for a, b in spans:
        outside.append((last, a))
        last = b
    outside.append((last, len(markdown)))
    for a, b in outside:
        for m in INLINE_CODE.finditer(markdown, a, b):
            spans.append((m.start(), m.end()))
    return sorted(spans)


def _sentence(markdown: str, start: int, end: int) -> str:
    a = max(markdown.rfind(". ", 0, start), markdown.rfind("\n\n", 0, start), -1) + 1
    b_candidates = [i for i in (markdown.find(". ", end), markdown.find("\n\n", end)) if i != -1]
    b = min(b_candidates) + 1 if b_candidates else len(markdown)
    return " ".join(markdown[a:b].split())


def _tokens(markdown: str, protected: list[tuple[int, int]]):
    """Every token outside code; a `{{` inside code never swallows a real token after it."""
    pos = 0
    while (m := TOKEN.search(markdown, pos)) is not None:
        inside = next((b for a, b in protected if a <= m.start() < b), None)
        if inside is None:
            yield m
            pos = m.end()
        else:
            pos = max(inside, m.start() + 1)


def _check_closed(markdown: str, page: str, protected: list[tuple[int, int]]) -> None:
    """Raise TokenError for a `{{` outside code that no `}}` closes before the next `{{` or the paragraph's end.

    Unclosed, a token would be published as literal braces, or would swallow the prose up to the
    next token's braces.
    """
    for m in re.finditer(r"\{\{", markdown):
        if any(a <= m.start() < b for a, b in protected):
            continue
        if m.start() > 0 and markdown[m.start() - 1] == "{":
            continue  # the second brace of "{{{": the first pair is the token
        rest = markdown[m.end():]
        close, reopen, para = rest.find("}}"), rest.find("{{"), rest.find("\n\n")
        if close == -1 or -1 < reopen < close or -1 < para < close:
            line_no = markdown.count("\n", 0, m.start()) + 1
            stop = m.end() + para if para != -1 else len(markdown)
            snippet = " ".join(markdown[m.start():min(m.start() + 40, stop)].split())
            raise TokenError(f"{page}:{line_no}: token '{snippet}' is never closed with '}}}}'")


def token_matches(markdown: str) -> list:
    """Every token outside code, as regex matches (the page-markup measure reads them)."""
    return list(_tokens(markdown, _protected_spans(markdown)))


def expand(markdown: str, page: str, records: list[Rendered] | None = None,
           extra: dict | None = None, bindings: dict | None = None) -> str:
    """Replace every token outside code; raise TokenError naming `page` on the first failure.

    `extra` adds site-only names (such as `figure`) to the token namespace; `bindings` is the
    page's front-matter mapping of name -> expression (numbers/bindings.py).
    """
    from roofline_site.numbers.bindings import BindingError, bind, check_all_used, spelled_out

    namespace = {**_namespace(), **(extra or {})}
    try:
        bound = bind(bindings, page, namespace, evaluate)
    except BindingError as err:
        raise TokenError(str(err)) from None
    namespace.update(bound.values)
    protected = _protected_spans(markdown)
    _check_closed(markdown, page, protected)
    matches = list(_tokens(markdown, protected))
    # Records quote each number's expression and sentence with the bindings spelled out.
    spelled, spans, used = spelled_out(markdown, matches, bound)
    out, last, numbers = [], 0, 0
    for m, span in zip(matches, spans):
        expr = m.group(1).strip()
        line_start = markdown.rfind("\n", 0, m.start()) + 1
        line = markdown[line_start:m.start()]
        plain = line.lstrip().startswith("#") or "![" in line[line.rfind("]") + 1:] or 'alt="' in line
        line_no = markdown.count("\n", 0, m.start()) + 1
        try:
            value = evaluate(expr, namespace, f"<token in {page}>")
            numbers += 1
            text, q = render_value(value, plain=plain, ident=number_id(page, numbers))
        except Exception as err:  # noqa: BLE001 — any failure is reported against the page
            raise TokenError(f"{page}:{line_no}: token {{{{ {expr} }}}}: {err}{bound.hint(err)}") from None
        if records is not None and q is not None:
            records.append(Rendered(page, bound.resolve(expr), q.text(), q.label, q.formula,
                                    [(i.label, i.text(), i.source.url if i.source else "") for i in q.inputs],
                                    _sentence(spelled, *span), plain))
        out.append(markdown[last:m.start()])
        out.append(text)
        last = m.end()
    out.append(markdown[last:])
    try:
        check_all_used(bound, used)
    except BindingError as err:
        raise TokenError(str(err)) from None
    return "".join(out)
