"""The one base of every generated table: cells rendered from Quantities, rows as a Markdown table.

Each cell is a roofline Quantity rendered through `tokens.render_value`, so it keeps its
provenance popover and is recorded in numbers.json like any other token.
"""

from __future__ import annotations

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

    def cell(self, value) -> str:
        text, q = render_value(value, plain=False)
        if self.records is not None and q is not None:
            self.records.append(Rendered(self.page, self.expr, q.text(), q.label, q.formula,
                                         [(i.label, i.text(), i.source.url if i.source else "") for i in q.inputs],
                                         self.sentence))
        return escape_cell(text)


def markdown_table(header: list[str], rows: list[list[str]], align: list[str]) -> Raw:
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return Raw("\n".join(lines))
