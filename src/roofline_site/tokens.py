"""Number tokens: `{{ expr }}` in Markdown, evaluated in `roofline.quantities.NAMESPACE`.

A token must evaluate to a Quantity (rendered through roofline.format, with a
provenance popover), a string (a name or a word such as "memory-bound"), or the
empty string a `claim(...)` returns. A bare number is refused: it would be a
number with no provenance. Fenced code and inline code are left alone.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

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


def _namespace():
    from roofline.quantities import NAMESPACE  # imported late: `mkdocs serve` reloads roofline

    return NAMESPACE


def _popover(q) -> str:
    rows = []
    for i in q.inputs:
        src = ""
        if i.source is not None:
            src = (f' <a href="{html.escape(i.source.url)}" rel="noopener">'
                   f'{html.escape(i.source.title)}</a>')
        rows.append(f"<li>{html.escape(i.label)}: <b>{html.escape(i.text())}</b>{src}</li>")
    inputs = f"<ul>{''.join(rows)}</ul>" if rows else ""
    return (f'<span class="rl-prov" role="tooltip"><strong>{html.escape(q.label)}</strong>'
            f'<em>{html.escape(q.formula)}</em>{inputs}</span>')


def render_value(value, *, plain: bool) -> tuple[str, object]:
    from roofline.quantities import Quantity

    if isinstance(value, Quantity):
        text = html.escape(value.text())
        if plain:
            return text, value
        return (f'<span class="rl-num" tabindex="0" data-rl-value="{value.value!r}">{text}'
                f"{_popover(value)}</span>"), value
    if isinstance(value, Raw):
        return str(value), None
    if isinstance(value, str):
        return html.escape(value), None
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


def expand(markdown: str, page: str, records: list[Rendered] | None = None,
           extra: dict | None = None) -> str:
    """Replace every token outside code; raise TokenError naming `page` on the first failure.

    `extra` adds site-only names (such as `figure`) to the token namespace.
    """
    namespace = {**_namespace(), **(extra or {})}
    protected = _protected_spans(markdown)
    out, last = [], 0
    for m in TOKEN.finditer(markdown):
        if any(a <= m.start() < b for a, b in protected):
            continue
        expr = m.group(1).strip()
        line_start = markdown.rfind("\n", 0, m.start()) + 1
        line = markdown[line_start:m.start()]
        plain = line.lstrip().startswith("#") or "![" in line[line.rfind("]") + 1:] or 'alt="' in line
        line_no = markdown.count("\n", 0, m.start()) + 1
        try:
            value = eval(compile(expr, f"<token in {page}>", "eval"), {"__builtins__": {}}, dict(namespace))
            text, q = render_value(value, plain=plain)
        except Exception as err:  # noqa: BLE001 — any failure is reported against the page
            raise TokenError(f"{page}:{line_no}: token {{{{ {expr} }}}}: {err}") from None
        if records is not None and q is not None:
            records.append(Rendered(page, expr, q.text(), q.label, q.formula,
                                    [(i.label, i.text(), i.source.url if i.source else "") for i in q.inputs],
                                    _sentence(markdown, m.start(), m.end())))
        out.append(markdown[last:m.start()])
        out.append(text)
        last = m.end()
    out.append(markdown[last:])
    return "".join(out)
