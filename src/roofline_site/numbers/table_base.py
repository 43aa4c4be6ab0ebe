"""The one base of every generated table: cells rendered from Quantities, rows as a Markdown table
or, for the registry-wide tables, as a sortable HTML table.

A cell is a roofline Quantity: either rendered through `tokens.render_value` (its own provenance
popover) or, in a column whose header names the unit, as a bare number (`Table.value`) that the
table's note explains. Both are recorded in numbers.json like any other token.
"""

from __future__ import annotations

import html as _html
import re
from dataclasses import dataclass, field

from roofline_site.html.walker import CLOSE, OPEN, TEXT, SkipList, walk
from roofline_site.numbers.tokens import Raw, Rendered, render_value


def escape_cell(text: str) -> str:
    """Markup the site made (a rendered number) as one Markdown cell: no pipe, no newline.

    Text from a file never comes here raw: it goes through `roofline_site.html.escape.text` first.
    """
    # A literal pipe would end the Markdown cell; newlines would end the row.
    return text.replace("|", "&#124;").replace("\n", " ")


class Table:
    """Collects rows of rendered cells for one generated table on one page."""

    def __init__(self, page: str, records: list | None, expr: str, sentence: str):
        self.page, self.records, self.expr, self.sentence = page, records, expr, sentence

    def _record(self, q, plain: bool) -> None:
        if self.records is not None and q is not None:
            self.records.append(Rendered(self.page, self.expr, q.text(), q.label, q.formula,
                                         [(i.label, i.text(), i.source.url if i.source else "") for i in q.inputs],
                                         self.sentence, plain))

    def cell(self, value) -> str:
        text, q = render_value(value, plain=False)
        self._record(q, False)
        return escape_cell(text)

    def value(self, q, scale: float = 1.0, digits: int = 3, *, popover: bool = False) -> tuple[str, float]:
        """`q` as a number in a column whose header names the unit (`q` ÷ `scale`, to `digits`
        figures), with the exact value it sorts by. With `popover`, the number has its own provenance
        popover; without, it is bare and the table's note says how the column is computed (the
        registry-wide tables: a popover per cell made each device cost ~40 popovers, so the build grew with the registry).
        Recorded in numbers.json either way."""
        from roofline.format import sig  # late: `mkdocs serve` reloads roofline

        shown = sig(float(q) / scale, digits)
        self._record(q, not popover)
        return (render_value(q, plain=False, shown=shown)[0] if popover else shown), float(q)


def markdown_table(header: list[str], rows: list[list[str]], align: list[str]) -> Raw:
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return Raw("\n".join(lines))


@dataclass(frozen=True)
class Column:
    """One column of a sortable table: its header (our own markup), its unit (in the header only,
    never repeated in a cell), and whether it sorts as numbers."""

    header: str
    unit: str = ""
    numeric: bool = True
    #: A column that explains a row rather than naming or answering it (a source, a format, a layout):
    #: folded away until the reader asks for every column, so the table fits its page column.
    secondary: bool = False


def html_table(columns: list[Column], rows: list[list], label: str, *, wide: bool = False) -> Raw:
    """A sortable table (each cell its HTML, or (HTML, the exact value it sorts by)) as one raw HTML block: Python-Markdown passes it through untouched (no
    inline parsing of thousands of cells), Material wraps it in its scrolling container (the CSS
    keeps the header and the first column in view), and tablesort.js sorts it when a header's
    button is pressed. Cells are markup the site made: text from a file is escaped before it
    comes here. `label` names the table for screen readers. A `wide` table (a reference of a dozen
    columns) gets tighter cells (tables.css); its first column is the row's name, kept in view.
    """
    more = ' class="rl-more"'
    head = "".join(
        f'<th scope="col"{more if c.secondary else ""}{"" if c.numeric else " data-rl-text"} data-label="{_label(c)}">'
        + f'<button type="button" class="rl-sort">{c.header}<span class="rl-unit">{c.unit}</span></button></th>'
        for c in columns)  # (the sort arrow follows the unit)
    body = []
    for row in rows:
        cells = []
        for c, cell in zip(columns, row):
            html, key = (cell, None) if isinstance(cell, str) else cell
            sort = f' data-v="{key!r}"' if key is not None else ""
            classes = " ".join(x for x in ("rl-r" if c.numeric else "", "rl-more" if c.secondary else "") if x)
            attrs = f' class="{classes}"' if classes else ""
            cells.append(f"<td{attrs}{sort}>{html}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    # One line per row and no blank line inside: Markdown reads the whole block as raw HTML.
    table = (f'<table data-rl-sort{" data-rl-wide" if wide else ""} aria-label="{label}">\n<thead><tr>{head}</tr></thead>\n'
             "<tbody>\n" + "\n".join(body) + "\n</tbody>\n</table>")
    folded = [c for c in columns if c.secondary]
    if not folded:
        return Raw(table)
    # The secondary columns fold away (tables.css) until the box is ticked: no script, and a reader
    # without CSS sees every column.
    names = ", ".join(_TAGS.sub("", c.header) for c in folded)
    return Raw(f'<div class="rl-fold">\n<label class="rl-fold-toggle"><input type="checkbox"> Show every column '
               f'(adds {names})</label>\n{table}\n</div>')


def _label(c: Column) -> str:
    """The header as a phone's card labels a value with it: "Bandwidth (TB/s)" (attribute-escaped)."""
    text = _TAGS.sub("", c.header)
    return _html.escape(f"{_html.unescape(text)} ({c.unit})" if c.unit else _html.unescape(text), quote=True)


# ---- The phone layout of every table on a page, generated or written in Markdown ----------------------

#: A table this many columns wide or wider reads as cards on a phone (tables.css, under 720 px): one card
#: per row, the row's name on top and each value under its column's name. Two columns fit 358 px; three
#: already overflow it wherever one holds code or a long value (measured: the playbook's, the changelog's).
CARDS_FROM_COLUMNS = 3
#: A column whose cells run longer than this (characters shown) spans the card's width instead of
#: sharing a line with its neighbours.
LONG_CELL_CHARS = 22

_TAGS = re.compile(r"<[^>]*>")
# What a reader never sees in a cell: popover bodies (shipped in templates) and scripts.
_UNSEEN = SkipList(tags=frozenset({"template", "script", "style"}), classes=frozenset({"rl-prov"}),
                   attrs=frozenset({"hidden"}), roles=frozenset({"tooltip"}))


@dataclass
class _Open:
    """A table being read: where its start tag is in the output, its headers, and its body cells."""

    at: int
    boxed: bool = False  # wrapped here in Material's boxes (a table without a class of its own)
    headers: list[str] = field(default_factory=list)
    cells: list[tuple[int, int]] = field(default_factory=list)  # (output index of <td>, column)
    longest: dict[int, int] = field(default_factory=dict)       # column -> characters of its longest cell
    column: int = -1
    cell: tuple[str, int, list[str]] | None = None              # (th or td, output index, text) while inside one


#: A table's start tag: a page without one is given back by phone_layout as it was.
TABLE_TAG = re.compile(r"<table", re.I)
_BOXES_OPEN = '<div class="md-typeset__scrollwrap"><div class="md-typeset__table">'
_BOXES_CLOSE = "</div></div>"


def phone_layout(page_html: str) -> str:
    """Every table of a rendered page, ready for a phone: each body cell carries its column's header as
    `data-label` (a card shows it above the value), a column of long text is marked `data-rl-long` (it
    spans the card), and a table of CARDS_FROM_COLUMNS or more columns is marked `data-rl-cards`.

    A header's own `data-label` (html_table's, with the unit) wins over its text.

    Each table without a class also arrives in the two boxes Material's bundle would put it in as it
    starts (`md-typeset__scrollwrap`, `md-typeset__table`), with the class `rl-table` that tells the
    bundle it has nothing to do: moving a table into them there restyles and lays out the whole table
    again inside the bundle's start-up task (blocking time, as Lighthouse counts it).
    tables.css gives `rl-table` the look Material gives a table without a class.

    >>> laid = phone_layout('<table><thead><tr><th>a</th><th>b</th><th>c</th><th>d</th></tr></thead>'
    ...                     '<tbody><tr><td>x</td><td>1</td><td>2</td><td>3</td></tr></tbody></table>')
    >>> laid[:105]
    '<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table class="rl-table" data-rl-cards>'
    >>> laid[176:]
    '<tr><td>x</td><td data-label="b">1</td><td data-label="c">2</td><td data-label="d">3</td></tr></tbody></table></div></div>'
    """
    if not TABLE_TAG.search(page_html):
        return page_html  # (most glossary entries): the walk would give every byte back as it was
    out: list[str] = []
    tables: list[_Open] = []
    for t in walk(page_html, _UNSEEN):
        out.append(t.html)
        top = tables[-1] if tables else None
        if t.kind == OPEN and t.name == "table":
            tables.append(_Open(len(out) - 1, boxed="class" not in t.attrs()))
            if tables[-1].boxed:
                out[-1] = _BOXES_OPEN + out[-1][:-1].rstrip("/").rstrip() + ' class="rl-table">'  # before the marks
        elif top is None:
            continue
        elif t.kind == OPEN and t.name == "tr":
            top.column = -1
        elif t.kind == OPEN and t.name in ("th", "td") and top.cell is None:
            top.column += 1
            top.cell = (t.name, len(out) - 1, [t.attrs().get("data-label", "")] if t.name == "th" else [])
        elif t.kind == CLOSE and t.name in ("th", "td") and top.cell is not None and top.cell[0] == t.name:
            kind, index, text = top.cell
            shown = " ".join("".join(text).split())
            if kind == "th":
                top.headers.append(_html.escape(_html.unescape(text[0] or shown), quote=True))
            else:
                top.cells.append((index, top.column))
                top.longest[top.column] = max(top.longest.get(top.column, 0), len(_html.unescape(shown)))
            top.cell = None
        elif t.kind == CLOSE and t.name == "table":
            tables.pop()
            _mark(out, top)
            if top.boxed:
                out.append(_BOXES_CLOSE)
        elif t.kind == TEXT and top.cell is not None and not t.skipped:
            top.cell[2].append(t.html)
    return "".join(out)


def _mark(out: list[str], table: _Open) -> None:
    """Write the labels and marks of one table read by `phone_layout` into its start tags in `out`."""
    for index, column in table.cells:
        tag = out[index]
        extra = f' data-label="{table.headers[column]}"' if column < len(table.headers) and column else ""
        if column and table.longest.get(column, 0) > LONG_CELL_CHARS:
            extra += " data-rl-long"
        out[index] = tag[:-1] + extra + ">"  # at the end: the tag's own attributes keep their place
    if len(table.headers) >= CARDS_FROM_COLUMNS:
        out[table.at] = out[table.at][:-1] + " data-rl-cards>"


#: The devices a teaching page's per-device table shows (one or two of each kind a reader is likely
#: to hold): those pages make a point across the range, and the hardware reference lists every
#: device once. A table costs then the same with 29 devices in the registry or 14,000, so the build does not grow with the registry.
TEACHING_DEVICES = ("l4", "rtx-4090", "a100-sxm4-80gb", "h100-sxm5", "h200-sxm", "b200", "mi300x",
                    "tpu-v6e", "gaudi3", "m4-max", "epyc-9654")


def teaching_devices(ids: list[str] | None = None) -> list:
    """The registry devices `ids` names (default TEACHING_DEVICES) that the registry holds, in its
    order; every device where the registry holds none of them (a registry of one's own)."""
    from roofline.registry.hardware import devices

    registry = devices()
    wanted = set(ids or TEACHING_DEVICES)
    chosen = [d for d in registry.values() if d.id in wanted]
    return chosen or list(registry.values())
