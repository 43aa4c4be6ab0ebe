"""The table of published results across nodes (real-systems.md): each per GPU beside its ceiling.

Registered in `tables.TABLES` as "measured-cross-node"; every number is a roofline Quantity rendered
through `table_base.Table.cell`, so it keeps its provenance popover.
"""

from __future__ import annotations

from roofline_site.html.escape import link as esc_link, text as esc_text
from roofline_site.numbers.table_base import Column, Table as _Table, html_table
from roofline_site.numbers.tokens import Raw


def cross_node_table(page: str = "", records: list | None = None) -> Raw:
    """One row per [[cross_node]] entry: system and phase, published ÷ ceiling first, then the figures."""
    from roofline.quantities import cross_node_ceiling, cross_node_hit_rate, cross_node_published, cross_node_share
    from roofline.registry.measurements import cross_node_results

    t = _Table(page, records, "table('measured-cross-node')", "published cross-node results against their ceilings")
    results = list(cross_node_results().values())
    rows = [[esc_text(f"{r.system.split(' (')[0]}, {r.phase}"), t.cell(cross_node_share(r.id)),
             t.cell(cross_node_published(r.id)), t.cell(cross_node_ceiling(r.id)),
             esc_text(f"{r.nodes} × {r.node_devices} {r.device.name}"), esc_text(r.layout_name),
             esc_text(f"{r.weight_format}/{r.activation_format}/{r.kv_format}"), t.cell(cross_node_hit_rate(r.id)),
             esc_link(r.date, r.source_url)] for r in results]
    notes = [f"**{esc_text(r.system)}, {r.phase}**: {esc_text(r.note)}."
             + (f" Not stated by the source: {esc_text(', '.join(r.assumed))}." if r.assumed else "")
             for r in results]
    # The result, its share and the two figures identify and answer a row; how it was run folds away
    # until asked, so the table fits its page column.
    table = html_table([Column("Result", numeric=False), Column("Published ÷ ceiling"), Column("Published per GPU"),
                        Column("Ceiling per GPU"), Column("Nodes", numeric=False, secondary=True),
                        Column("Layout", numeric=False, secondary=True),
                        Column("Weights/activations/KV", numeric=False, secondary=True),
                        Column("Cache hit rate", secondary=True), Column("Source", numeric=False, secondary=True)],
                       rows, "Published cross-node results against their ceilings")
    return Raw(str(table) + "\n\n" + "\n".join(f"- {n}" for n in notes))


TABLES = {"measured-cross-node": cross_node_table}
