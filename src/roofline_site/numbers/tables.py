"""Generated tables: Markdown tables built from the registry, never typed.

Pages call them through the `table` token name on a line of their own:
`{{ table("ridge") }}`, `{{ table("sol", weight_dtype="fp8") }}`. Each table is a function
`(page, records, **kw) -> Raw` over the shared base in `table_base.py`, listed in its
module's TABLES; this module only gathers them.
"""

from __future__ import annotations

from roofline_site.numbers import core_tables, cross_node_table, expected_tables, measured_tables, reference_tables
from roofline_site.numbers.tokens import Raw

#: Every generated table, by the name pages use in `{{ table("name") }}`.
TABLES = {**core_tables.TABLES, **measured_tables.TABLES, **reference_tables.TABLES, **cross_node_table.TABLES,
          **expected_tables.TABLES}


def table(name: str, page: str = "", records: list | None = None, **kw) -> Raw:
    """The generated table `name` for `page`, its cells recorded in `records`."""
    try:
        fn = TABLES[name]
    except KeyError:
        raise KeyError(f"unknown table {name!r}; known: {', '.join(TABLES)}") from None
    return fn(page, records, **kw)
