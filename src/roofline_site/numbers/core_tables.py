"""Generated tables of the registry itself: every device's ridge point, models' speeds of light.

Registered in `tables.TABLES` as "ridge", "sol" and "config-fields" (the config reader's keys per family).
"""

from __future__ import annotations

from roofline_site.numbers.table_base import Column, Table as _Table, html_table, teaching_devices
from roofline_site.html.escape import text as esc_text
from roofline_site.numbers.table_base import escape_cell as _escape_cell  # our own markup: only pipes and newlines
from roofline_site.numbers.table_base import markdown_table as _markdown
from roofline_site.numbers.tokens import Raw


def ridge_table(page: str = "", records: list | None = None) -> Raw:
    """Every registry device: its 16-bit dense peak, memory bandwidth and ridge point, sortable.

    Bare numbers in the units the headers name (the page says how the ridge is computed; the
    hardware reference links each device's source), so a registry of thousands stays cheap.
    """
    from roofline.registry.hardware import devices
    from roofline.quantities import bandwidth, peak, ridge

    t = _Table(page, records, "table('ridge')", "ridge point of every registry device")
    rows = []
    for d in devices().values():
        dtype = d.sixteen_bit_dtype
        # Peak and bandwidth to four figures, as datasheets print them; the ridge to three.
        # The ridge, the page's answer, next to the device's name; then what it is computed from.
        rows.append([esc_text(d.name), t.value(ridge(d.id, dtype)), t.value(peak(d.id, dtype), 1e12, 4),
                     t.value(bandwidth(d.id), 1e12, 4), dtype])
    return html_table([Column("Device", numeric=False), Column("Ridge point", "FLOP/byte"),
                       Column("Dense peak", "TFLOP/s"), Column("Bandwidth", "TB/s"), Column("Format", numeric=False)],
                      rows, "Ridge point of every registry device")


def sol_table(page: str = "", records: list | None = None, weight_dtype: str = "bf16",
              model_ids: list[str] | None = None, device_ids: list[str] | None = None) -> Raw:
    """Speed-of-light batch-1 decode tokens/s of `model_ids` (default all) on the teaching devices
    (`device_ids`, default TEACHING_DEVICES), each number with its popover, tokens/s in the headers.

    A cell ends in "†" where the model's weights alone, as the checkpoint stores them, exceed the
    device's usable memory (the runtime's figure where sourced, else the vendor's capacity).
    """
    from roofline.registry.models import models
    from roofline.model.formats import Formats
    from roofline.model.kernels import usable_memory_bytes, weights_resident_bytes
    from roofline.quantities import bandwidth, sol

    t = _Table(page, records, f"table('sol', weight_dtype={weight_dtype!r})", "speed-of-light decode tokens/s")
    registry = models()
    ms = [registry[i] for i in model_ids] if model_ids else list(registry.values())

    def cell(m, d):
        # The ceiling ignores capacity; mark where the weights alone do not fit in the device's memory.
        fits = weights_resident_bytes(m, Formats.of(weight_dtype)) <= usable_memory_bytes(d)
        text, exact = t.value(sol(m.id, d.id, weight_dtype), popover=True)
        return (text + ("" if fits else " †"), exact)

    rows = [[esc_text(d.name), t.value(bandwidth(d.id), 1e12, 4, popover=True), *(cell(m, d) for m in ms)]
            for d in teaching_devices(device_ids)]
    return html_table([Column("Device", numeric=False), Column("Bandwidth", "TB/s"),
                       *(Column(esc_text(m.name), "tokens/s") for m in ms)],
                      rows, f"Speed-of-light batch-1 decode, {weight_dtype} weights")


def config_fields_table(page: str = "", records: list | None = None) -> Raw:
    """Per family, a heading line and a table: each config.json key the reader takes (the row's name),
    the Model field it feeds, and its default.

    Rendered from `roofline.configs.field_table()`, the reader's own rows, so it cannot drift. One table
    per family, not one of 150 rows with the family in a mostly empty first column: each row is named by
    its key, and three columns read whole on a phone.
    """
    from roofline.configs import field_table

    families: dict[tuple[str, str], list[list[str]]] = {}
    for r in field_table():
        # A nested key may break after its dot ("text_config." then the key), so the column stays narrow.
        key = (f"<code>{'.<wbr>'.join(esc_text(part) for part in (r['where'] + r['key']).split('.'))}</code>"
               if r["key"] else f"(modeling code: {esc_text(r['feeds'])})")  # named by what it sets: titles stay distinct
        families.setdefault((r["family"], r["model_types"]), []).append(
            [_escape_cell(key), _escape_cell(r["feeds"]), _escape_cell(r["default"])])
    return Raw("\n\n".join(f"**{esc_text(family)}** (`{model_types}`)\n\n"
                           + _markdown(["Config key", "What it sets", "If absent"], rows, ["l", "l", "l"])
                           for (family, model_types), rows in families.items()))


#: The tables this module adds, by the name pages use in `{{ table("name") }}`.
TABLES = {
    "ridge": ridge_table,
    "sol": sol_table,
    "config-fields": config_fields_table,
}
