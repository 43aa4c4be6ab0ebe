"""Generated tables: Markdown tables built from the registry, never typed.

Each cell is a roofline Quantity rendered through `tokens.render_value`, so it keeps its
provenance popover, and is recorded in numbers.json like any other token. Pages call
them through the `table` token name that hooks.py registers, on a line of their own:
`{{ table("ridge") }}`, `{{ table("sol", weight_dtype="fp8") }}`. Add a table by writing
a function `(page, records, **kw) -> Raw` and listing it in TABLES.

NOTE (core-pages engineer): an earlier version of this file, written at the same time by
another engineer, was overwritten by mistake at 00:29; its tables must be re-added to
TABLES. The `table(name, page, records, **kw)` entry point that hooks.py calls is kept.
"""

from __future__ import annotations

from roofline_site.numbers.tokens import Raw, Rendered, render_value


def _escape_cell(text: str) -> str:
    # A literal pipe would end the Markdown cell; newlines would end the row.
    return text.replace("|", "&#124;").replace("\n", " ")


class _Table:
    """Collects rows of rendered cells for one generated table on one page."""

    def __init__(self, page: str, records: list | None, expr: str, sentence: str):
        self.page, self.records, self.expr, self.sentence = page, records, expr, sentence

    def cell(self, value) -> str:
        text, q = render_value(value, plain=False)
        if self.records is not None and q is not None:
            self.records.append(Rendered(self.page, self.expr, q.text(), q.label, q.formula,
                                         [(i.label, i.text(), i.source.url if i.source else "") for i in q.inputs],
                                         self.sentence))
        return _escape_cell(text)


def _markdown(header: list[str], rows: list[list[str]], align: list[str]) -> Raw:
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return Raw("\n".join(lines))


def ridge_table(page: str = "", records: list | None = None) -> Raw:
    """Every registry device: its 16-bit dense peak, memory bandwidth and ridge point."""
    from roofline.registry.hardware import devices
    from roofline.quantities import bandwidth, peak, ridge

    t = _Table(page, records, "table('ridge')", "ridge point of every registry device")
    rows = []
    for d in devices().values():
        dtype = d.sixteen_bit_dtype
        # Peak and bandwidth to four figures, as datasheets print them; the ridge to three.
        rows.append([_escape_cell(d.name), dtype, t.cell(peak(d.id, dtype).sig(4)), t.cell(bandwidth(d.id).sig(4)),
                     t.cell(ridge(d.id, dtype))])
    return _markdown(["Device", "dtype", "Dense peak", "Memory bandwidth", "Ridge point"], rows,
                     ["l", "l", "r", "r", "r"])


def sol_table(page: str = "", records: list | None = None, weight_dtype: str = "bf16") -> Raw:
    """Speed-of-light batch-1 decode tokens/s for every registry model on every registry device.

    A cell ends in "†" where the model's weights alone exceed the device's memory capacity.
    """
    from roofline.registry.hardware import devices
    from roofline.registry.models import models
    from roofline.model.inference import weight_bytes_resident
    from roofline.quantities import bandwidth, sol

    t = _Table(page, records, f"table('sol', weight_dtype={weight_dtype!r})", "speed-of-light decode tokens/s")
    ms = list(models().values())

    def cell(m, d) -> str:
        # The ceiling ignores capacity; mark where the weights alone do not fit in the device's memory.
        fits = weight_bytes_resident(m, weight_dtype) <= d.memory_capacity_bytes
        return t.cell(sol(m.id, d.id, weight_dtype)) + ("" if fits else " †")

    rows = [[_escape_cell(d.name), t.cell(bandwidth(d.id).sig(4)), *(cell(m, d) for m in ms)]
            for d in devices().values()]
    return _markdown(["Device", "Bandwidth", *(_escape_cell(m.name) for m in ms)], rows,
                     ["l", "r", *("r" for _ in ms)])


#: Every generated table, by the name pages use in `{{ table("name") }}`.
TABLES = {
    "ridge": ridge_table,
    "sol": sol_table,
}

# Measurement tables (docs/measure.md, docs/real-systems.md) live in their own module.
from roofline_site.numbers.measured_tables import TABLES as _MEASURED_TABLES  # noqa: E402

TABLES.update(_MEASURED_TABLES)

# Prefill, batching and hardware-reference tables live in their own module too.
from roofline_site.numbers.reference_tables import TABLES as _REFERENCE_TABLES  # noqa: E402

TABLES.update(_REFERENCE_TABLES)


def table(name: str, page: str = "", records: list | None = None, **kw) -> Raw:
    """The generated table `name` for `page`, its cells recorded in `records`."""
    try:
        fn = TABLES[name]
    except KeyError:
        raise KeyError(f"unknown table {name!r}; known: {', '.join(TABLES)}") from None
    return fn(page, records, **kw)
