"""Generated tables of the prefill, batching and hardware-reference pages.

Every number is a roofline Quantity rendered through `table_base.Table.cell` (provenance
popover, numbers.json entry); names, notes and links come from the registry. Registered
in `tables.TABLES` as "prefill-crossover", "critical-batches", "hardware-specs",
"hardware-peaks" and "hardware-notes".
"""

from __future__ import annotations

import re

from roofline_site.numbers.table_base import Table as _Table
from roofline_site.html.escape import link as esc_link, text as esc_text
from roofline_site.numbers.table_base import markdown_table as _markdown
from roofline_site.numbers.tokens import Raw

NOT_FIT = "†"
NEVER = "never reaches the ridge"
UNFIT = "‡"  # marks a critical batch that does not fit in memory


def _link(text: str, url: str) -> str:
    return esc_link(text, url)


def prefill_crossover_table(page: str = "", records: list | None = None, model: str = "llama-3.1-8b") -> Raw:
    """Per device: 16-bit ridge, the prompt length at which prefill reaches it, time to first token."""
    from roofline.registry.hardware import devices
    from roofline.registry.models import get_model
    from roofline.quantities import crossover_prompt, example, prefill, ridge

    t = _Table(page, records, f"table('prefill-crossover', model={model!r})",
                  "prompt length at which prefill reaches the ridge, per device")
    bare, prompt = example("bare_params"), example("prompt_len")
    rows = []
    for d in devices().values():
        pre = prefill(model, d.id, prompt)
        ttft = t.cell(pre.ttft) if pre.fits else f"{NOT_FIT} does not fit"
        rows.append([esc_text(d.name), t.cell(ridge(d.id, d.sixteen_bit_dtype)),
                     t.cell(crossover_prompt(bare, d.id)), t.cell(crossover_prompt(model, d.id)), ttft])
    name = esc_text(get_model(model).name)
    return _markdown(["Device", "Ridge (dense 16-bit)", "Crossover, weights only", f"Crossover, {name}",
                         f"Time to first token, {prompt.text()}-token prompt"], rows, ["l", "r", "r", "r", "r"])


def critical_batches_table(page: str = "", records: list | None = None, model: str = "llama-3.1-8b",
                           context: str = "medium_context") -> Raw:
    """Per device: the critical batch (weight matmuls reach the ridge), the memory wall and the
    whole-step crossing at a named context."""
    from roofline.registry.hardware import devices
    from roofline.quantities import (critical_batch, example, max_batch, ridge, whole_step_crossing,
                                     whole_step_reaches_ridge)

    t = _Table(page, records, f"table('critical-batches', model={model!r}, context={context!r})",
                  "critical batch per device")
    ctx = example(context)
    rows = []
    for d in devices().values():
        crit = critical_batch(model, d.id)
        wall = max_batch(model, d.id, ctx)
        cross = (t.cell(whole_step_crossing(model, d.id, ctx)) if whole_step_reaches_ridge(model, d.id, ctx)
                 else NEVER)
        crit_cell = t.cell(crit) + ("" if float(crit) <= float(wall) else f" {UNFIT}")
        rows.append([esc_text(d.name), t.cell(ridge(d.id, d.sixteen_bit_dtype)), crit_cell,
                     t.cell(wall), cross])
    table = _markdown(["Device", "Ridge (dense 16-bit)", "Critical batch (weight matmuls)",
                          f"Largest batch that fits, {ctx.text()} tokens cached",
                          f"Whole-step crossing, {ctx.text()} tokens cached"], rows, ["l", "r", "r", "r", "r"])
    if any(UNFIT in cell for row in rows for cell in row):
        table = Raw(f"{table}\n\n{UNFIT} More sequences than fit at that context: memory runs out before the "
                    "weight matmuls reach the ridge.")
    return table


def hardware_specs_table(page: str = "", records: list | None = None) -> Raw:
    """Every device: source link, id, vendor, memory type, capacity as the vendor quotes it, bandwidth, ridge."""
    from roofline.registry.hardware import devices
    from roofline.quantities import bandwidth, capacity_quoted, ridge, usable_memory

    t = _Table(page, records, "table('hardware-specs')", "registry device specifications")
    # Usable memory: what the runtime reports (nvidia-smi) where a source publishes it; a dash
    # where only the vendor's figure is known (the model then uses that figure).
    rows = [[_link(d.name, d.source_url), f"<code>{esc_text(d.id)}</code>", esc_text(d.vendor), esc_text(d.memory_type),
             t.cell(capacity_quoted(d.id)), t.cell(usable_memory(d.id).sig(4)) if d.usable_memory_bytes else "—",
             t.cell(bandwidth(d.id).sig(4)), t.cell(ridge(d.id, d.sixteen_bit_dtype))]
            for d in devices().values()]
    return _markdown(["Device (source)", "id", "Vendor", "Memory", "Capacity (vendor)", "Usable (runtime)",
                      "Bandwidth", "Ridge (dense 16-bit)"], rows, ["l", "l", "l", "l", "r", "r", "r", "r"])


def hardware_peaks_table(page: str = "", records: list | None = None) -> Raw:
    """Every device: the dense peak at each format it publishes; '—' where it publishes none."""
    from roofline.model.dtypes import PEAK_DTYPES
    from roofline.registry.hardware import devices
    from roofline.quantities import peak

    t = _Table(page, records, "table('hardware-peaks')", "dense peak per format")
    rows = [[esc_text(d.name),
             *(t.cell(peak(d.id, dt).sig(4)) if dt in d.dense_peak_flop_per_s else "—" for dt in PEAK_DTYPES)]
            for d in devices().values()]
    return _markdown(["Device", *PEAK_DTYPES], rows, ["l", *("r" for _ in PEAK_DTYPES)])


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
    """Every device: how its values were read or derived, its source, confidence and the date checked."""
    from roofline.registry.hardware import devices

    rows = [[esc_text(d.name), _md_text(reader_note(d.note)), _link(d.source_title, d.source_url),
             esc_text(d.confidence), d.checked.isoformat()] for d in devices().values()]
    return _markdown(["Device", "Note", "Source", "Confidence", "Checked"], rows, ["l", "l", "l", "l", "l"])


TABLES = {
    "prefill-crossover": prefill_crossover_table,
    "critical-batches": critical_batches_table,
    "hardware-specs": hardware_specs_table,
    "hardware-peaks": hardware_peaks_table,
    "hardware-notes": hardware_notes_table,
}


def _md_text(text: str) -> str:
    """Registry prose as literal text: no emphasis from a datasheet's '312|624* (*with sparsity)'."""
    return esc_text(text)
