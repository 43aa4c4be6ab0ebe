"""Generated tables of the registry itself: every device's ridge point, every model's speed of light.

Registered in `tables.TABLES` as "ridge", "sol" and "config-fields" (the config reader's keys per family).
"""

from __future__ import annotations

from roofline_site.numbers.table_base import Table as _Table
from roofline_site.html.escape import text as esc_text
from roofline_site.numbers.table_base import escape_cell as _escape_cell  # our own markup: only pipes and newlines
from roofline_site.numbers.table_base import markdown_table as _markdown
from roofline_site.numbers.tokens import Raw


def ridge_table(page: str = "", records: list | None = None) -> Raw:
    """Every registry device: its 16-bit dense peak, memory bandwidth and ridge point."""
    from roofline.registry.hardware import devices
    from roofline.quantities import bandwidth, peak, ridge

    t = _Table(page, records, "table('ridge')", "ridge point of every registry device")
    rows = []
    for d in devices().values():
        dtype = d.sixteen_bit_dtype
        # Peak and bandwidth to four figures, as datasheets print them; the ridge to three.
        rows.append([esc_text(d.name), dtype, t.cell(peak(d.id, dtype).sig(4)), t.cell(bandwidth(d.id).sig(4)),
                     t.cell(ridge(d.id, dtype))])
    return _markdown(["Device", "dtype", "Dense peak", "Memory bandwidth", "Ridge point"], rows,
                     ["l", "l", "r", "r", "r"])


def sol_table(page: str = "", records: list | None = None, weight_dtype: str = "bf16",
              model_ids: list[str] | None = None) -> Raw:
    """Speed-of-light batch-1 decode tokens/s for registry models (`model_ids`, default all) on every device.

    A cell ends in "†" where the model's weights alone, as the checkpoint stores them, exceed the
    device's usable memory (the runtime's figure where sourced, else the vendor's capacity).
    """
    from roofline.registry.hardware import devices
    from roofline.registry.models import models
    from roofline.model.formats import Formats
    from roofline.model.kernels import usable_memory_bytes, weights_resident_bytes
    from roofline.quantities import bandwidth, sol

    t = _Table(page, records, f"table('sol', weight_dtype={weight_dtype!r})", "speed-of-light decode tokens/s")
    registry = models()
    ms = [registry[i] for i in model_ids] if model_ids else list(registry.values())

    def cell(m, d) -> str:
        # The ceiling ignores capacity; mark where the weights alone do not fit in the device's memory.
        fits = weights_resident_bytes(m, Formats.of(weight_dtype)) <= usable_memory_bytes(d)
        return t.cell(sol(m.id, d.id, weight_dtype)) + ("" if fits else " †")

    rows = [[esc_text(d.name), t.cell(bandwidth(d.id).sig(4)), *(cell(m, d) for m in ms)]
            for d in devices().values()]
    return _markdown(["Device", "Bandwidth", *(esc_text(m.name) for m in ms)], rows,
                     ["l", "r", *("r" for _ in ms)])


def config_fields_table(page: str = "", records: list | None = None) -> Raw:
    """Per family: each config.json key the reader takes, the Model field it feeds, and its default.

    Rendered from `roofline.configs.field_table()`, the reader's own rows, so it cannot drift.
    """
    from roofline.configs import field_table

    rows, last = [], None
    for r in field_table():
        family = f"{r['family']} (`{r['model_types']}`)" if r["family"] != last else ""
        last = r["family"]
        key = f"`{r['where']}{r['key']}`" if r["key"] else "(modeling code)"
        rows.append([_escape_cell(family), _escape_cell(key), _escape_cell(r["feeds"]), _escape_cell(r["default"])])
    return _markdown(["Family (model_type)", "Config key", "What it sets", "If absent"], rows, ["l", "l", "l", "l"])


#: The tables this module adds, by the name pages use in `{{ table("name") }}`.
TABLES = {
    "ridge": ridge_table,
    "sol": sol_table,
    "config-fields": config_fields_table,
}
