"""Generated tables of the prefill, batching and hardware-reference pages.

Every number is a roofline Quantity, recorded in numbers.json: with its own provenance popover
(`table_base.Table.cell`) in the teaching pages' tables, which show a device of each kind, and as
a bare number in a column that names its unit (`Table.value`) in the hardware reference, which
lists every device once. Names, notes and links come from the registry. Registered in
`tables.TABLES` as "prefill-crossover", "critical-batches", "hardware" and "hardware-notes".
"""

from __future__ import annotations

import re

from roofline_site.html.escape import link as esc_link, text as esc_text
from roofline_site.numbers.table_base import Column, Table as _Table, html_table, teaching_devices
from roofline_site.numbers.tokens import Raw

NOT_FIT = "†"
NEVER = "never reaches the ridge"
UNFIT = "‡"  # marks a critical batch that does not fit in memory
NO_ROOM = "weights alone do not fit"  # a largest batch of zero sequences, said in words
DASH = "—"  # no such figure: sorts last
WHOLE_MEMORY = "§"  # marks a largest batch that counts all of a shared memory as the model's
#: Device kinds whose memory capacity is shared with a host or is a socket's maximum, not a card's own:
#: the largest batch that fits them assumes the whole of it holds the model and its cache.
SHARED_MEMORY_KINDS = {
    "soc": "a system-on-chip's unified memory, shared with its CPU and operating system",
    "cpu": "a CPU socket's maximum memory, which few servers install",
}


def _link(text: str, url: str) -> str:
    return esc_link(text, url)


def prefill_crossover_table(page: str = "", records: list | None = None, model: str = "llama-3.1-8b",
                            device_ids: list[str] | None = None) -> Raw:
    """Per teaching device (`device_ids`, default TEACHING_DEVICES): 16-bit ridge, the prompt length
    at which prefill reaches it, time to first token."""
    from roofline.registry.models import get_model
    from roofline.quantities import crossover_prompt, example, prefill, ridge

    t = _Table(page, records, f"table('prefill-crossover', model={model!r})",
                  "prompt length at which prefill reaches the ridge, per device")
    bare, prompt = example("bare_params"), example("prompt_len")
    rows = []
    for d in teaching_devices(device_ids):
        pre = prefill(model, d.id, prompt)
        ttft = t.value(pre.ttft, 1e-3, popover=True) if pre.fits else f"{NOT_FIT} does not fit"
        rows.append([esc_text(d.name), t.value(ridge(d.id, d.sixteen_bit_dtype), popover=True),
                     t.value(crossover_prompt(bare, d.id), popover=True),
                     t.value(crossover_prompt(model, d.id), popover=True), ttft])
    name = esc_text(get_model(model).name)
    return html_table([Column("Device", numeric=False), Column("Ridge (dense 16-bit)", "FLOP/byte"),
                       Column("Crossover, weights only", "tokens"), Column(f"Crossover, {name}", "tokens"),
                       Column(f"Time to first token, {prompt.text()}-token prompt", "ms")],
                      rows, f"Prefill crossover per device, {name}")


def critical_batches_table(page: str = "", records: list | None = None, model: str = "llama-3.1-8b",
                           context: str = "medium_context", device_ids: list[str] | None = None) -> Raw:
    """Per teaching device (`device_ids`, default TEACHING_DEVICES): the critical batch (weight matmuls
    reach the ridge), the largest batch that fits and the whole-step crossing at a named context."""
    from roofline.quantities import (critical_batch, example, max_batch, ridge, whole_step_crossing,
                                     whole_step_reaches_ridge)

    t = _Table(page, records, f"table('critical-batches', model={model!r}, context={context!r})",
                  "critical batch per device")
    ctx = example(context)
    rows, any_unfit, shared = [], False, []
    for d in teaching_devices(device_ids):
        crit = critical_batch(model, d.id)
        wall = max_batch(model, d.id, ctx)
        cross = (t.value(whole_step_crossing(model, d.id, ctx), popover=True)
                 if whole_step_reaches_ridge(model, d.id, ctx) else NEVER)
        unfit = float(crit) > float(wall)
        any_unfit |= unfit
        crit_text, crit_exact = t.value(crit, popover=True)
        crit_cell = (crit_text + (f" {UNFIT}" if unfit else ""), crit_exact)
        wall_cell = t.value(wall, popover=True) if float(wall) >= 1 else (NO_ROOM, None)
        if d.kind in SHARED_MEMORY_KINDS:
            wall_cell = (f"{wall_cell[0]} {WHOLE_MEMORY}", wall_cell[1])
            shared.append(d)
        rows.append([esc_text(d.name), t.value(ridge(d.id, d.sixteen_bit_dtype), popover=True), crit_cell,
                     wall_cell, cross])
    table = html_table([Column("Device", numeric=False), Column("Ridge (dense 16-bit)", "FLOP/byte"),
                        Column("Critical batch (weight matmuls)", "sequences"),
                        Column(f"Largest batch that fits, {ctx.text()} tokens cached", "sequences"),
                        Column(f"Whole-step crossing, {ctx.text()} tokens cached", "sequences")],
                       rows, "Critical batch per device")
    notes = []
    if any_unfit:
        notes.append(f"{UNFIT} More sequences than fit at that context: memory runs out before the "
                     "weight matmuls reach the ridge.")
    if shared:
        kinds = sorted({d.kind for d in shared})
        what = "; ".join(f"{', '.join(esc_text(d.name) for d in shared if d.kind == k)}: all of "
                         f"{SHARED_MEMORY_KINDS[k]}" for k in kinds)
        notes.append(f"{WHOLE_MEMORY} Counts the whole memory capacity as the model's ({what}). "
                     "A real machine leaves less, so fewer sequences fit.")
    return Raw("\n\n".join([str(table), *notes])) if notes else table


def hardware_table(page: str = "", records: list | None = None) -> Raw:
    """The hardware reference: one row per device, every number in the unit its column names.

    Capacity in GB (with the vendor's GiB figure beside it where the vendor quotes GiB), usable
    memory where a runtime figure is sourced (a popover per cell: it has its own source), bandwidth,
    the dense peak at each format (TOP/s for int8), and the 16-bit ridge. The other cells are bare
    numbers: the device links the vendor document they come from, and the page says how the
    derived column is computed.
    """
    from roofline.model.dtypes import PEAK_DTYPES
    from roofline.registry.hardware import devices
    from roofline.quantities import bandwidth, capacity, capacity_quoted, peak, ridge, usable_memory

    t = _Table(page, records, "table('hardware')", "registry device specifications")
    columns = [Column("Device", numeric=False), Column("Memory", numeric=False), Column("Capacity", "GB"),
               Column("Usable", "GB"), Column("Bandwidth", "TB/s"),
               *(Column(f"Dense {dt}", "TOP/s" if dt == "int8" else "TFLOP/s") for dt in PEAK_DTYPES),
               Column("Ridge, 16-bit", "FLOP/byte")]
    rows = []
    for d in devices().values():
        text, gb = t.value(capacity(d.id), 1e9, 4)
        if d.capacity_unit == "GiB":  # as the vendor quotes it, beside the GB every other row uses
            text += f" ({esc_text(capacity_quoted(d.id).text())})"
        # Usable memory has a source of its own (nvidia-smi's total): its cells keep their popover.
        usable = t.value(usable_memory(d.id), 1e9, 4, popover=True) if d.usable_memory_bytes else (DASH, None)
        peaks = [t.value(peak(d.id, dt), 1e12, 4) if dt in d.dense_peak_flop_per_s else (DASH, None)
                 for dt in PEAK_DTYPES]
        rows.append([_link(d.name, d.source_url), esc_text(d.memory_type), (text, gb), usable,
                     t.value(bandwidth(d.id), 1e12, 4), *peaks, t.value(ridge(d.id, d.sixteen_bit_dtype))])
    return html_table(columns, rows, "Every registry device", wide=True)


#: A clause of a registry note meant for whoever maintains the registry, not for a reader: edit history
#: ("Old source_url was ...", "replaced with ...", "fp32 corrected 80 -> 75"). It stays in the TOML.
_MAINTAINER_CLAUSE = re.compile(r"source_url|\bcorrected\b|\breplaced with\b|\bTODO\b|\bFIXME\b", re.I)


def reader_note(note: str) -> str:
    """A registry note without its maintainer clauses (sentences, or "; " parts, that record edits).

    >>> reader_note("sparsity halved; 80 GB. Old source_url was a redirect; replaced with the whitepaper")
    'sparsity halved; 80 GB.'
    """
    kept = []
    for sentence in re.split(r"(?<=\.)\s+", note.strip()):
        parts = [p for p in sentence.split("; ") if not _MAINTAINER_CLAUSE.search(p)]
        if parts:
            kept.append("; ".join(parts))
    return " ".join(kept)


def hardware_notes_table(page: str = "", records: list | None = None) -> Raw:
    """How each device's values were read or derived, for readers: one item per device with a note
    left once the maintainers' clauses are gone, with its source, the confidence and the date checked."""
    from roofline.registry.hardware import devices

    items = [f"<li><strong>{esc_text(d.name)}</strong>: {esc_text(note)} "
             f"<span class=\"rl-note-src\">({_link(d.source_title, d.source_url)}; confidence "
             f"{esc_text(d.confidence)}; checked {d.checked.isoformat()})</span></li>"
             for d in devices().values() if (note := reader_note(d.note))]
    return Raw('<ul class="rl-notes">\n' + "\n".join(items) + "\n</ul>")


TABLES = {
    "prefill-crossover": prefill_crossover_table,
    "critical-batches": critical_batches_table,
    "hardware": hardware_table,
    "hardware-notes": hardware_notes_table,
}

