"""The one base of every generated table: cells rendered from Quantities, rows as a Markdown table
or, for the registry-wide tables, as a sortable HTML table.

A cell is a roofline Quantity: either rendered through `tokens.render_value` (its own provenance
popover) or, in a column whose header names the unit, as a bare number (`Table.value`) that the
table's note explains. Both are recorded in numbers.json like any other token.
"""

from __future__ import annotations

from dataclasses import dataclass

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
        registry-wide tables: a popover per cell made each device cost ~40 popovers, issue 18).
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


def html_table(columns: list[Column], rows: list[list], label: str) -> Raw:
    """A sortable table (each cell its HTML, or (HTML, the exact value it sorts by)) as one raw HTML block: Python-Markdown passes it through untouched (no
    inline parsing of thousands of cells), Material wraps it in its scrolling container (the CSS
    keeps the header and the first column in view), and tablesort.js sorts it when a header's
    button is pressed. Cells are markup the site made: text from a file is escaped before it
    comes here. `label` names the table for screen readers.
    """
    head = "".join(
        f'<th scope="col"{"" if c.numeric else " data-rl-text"}><button type="button" class="rl-sort">{c.header}'
        + f'<span class="rl-unit">{c.unit}</span></button></th>' for c in columns)  # (the sort arrow follows the unit)
    body = []
    for row in rows:
        cells = []
        for c, cell in zip(columns, row):
            html, key = (cell, None) if isinstance(cell, str) else cell
            sort = f' data-v="{key!r}"' if key is not None else ""
            cells.append(f"<td{sort}>{html}</td>" if not c.numeric else f'<td class="rl-r"{sort}>{html}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    # One line per row and no blank line inside: Markdown reads the whole block as raw HTML.
    return Raw(f'<table data-rl-sort aria-label="{label}">\n<thead><tr>{head}</tr></thead>\n<tbody>\n'
               + "\n".join(body) + "\n</tbody>\n</table>")


#: The devices a teaching page's per-device table shows (one or two of each kind a reader is likely
#: to hold): those pages make a point across the range, and the hardware reference lists every
#: device once. A table costs then the same with 29 devices in the registry or 14,000 (issue 18).
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
