"""Generated tables of the expected figure (real-systems.md): the published kernel rows it is fitted
to, the fitted efficiency per kernel class, its validation against published serving runs per group,
and its worst misses. Registered in `tables.TABLES` as "kernel-efficiency", "efficiency-fits",
"expected-validation" and "expected-worst".
"""

from __future__ import annotations

from roofline_site.html.escape import link as esc_link, text as esc_text
from roofline_site.numbers.table_base import Column, Table as _Table, html_table, markdown_table
from roofline_site.numbers.tokens import Raw

_GROUP_WORDS = {"source": "Source", "engine": "Engine", "format": "Weight format", "family": "Model family",
                "device": "Device"}


def _shape(r) -> str:
    if r.kernel in ("matmul", "grouped_matmul"):
        g = f"{r.groups} × " if r.groups > 1 else ""
        return f"{g}{r.m} × {r.n} × {r.k}"
    return r.shape


def kernel_table(page: str = "", records: list | None = None) -> "object":
    """Every [[kernel]] row with an efficiency: class, library and source, where it ran, shape, efficiency."""
    from roofline.model import efficiency
    from roofline.quantities import kernel_row_efficiency

    t = _Table(page, records, "table('kernel-efficiency')", "published kernel rows the expected figure is fitted to")
    rows = []
    for r in efficiency.kernel_measurements():
        if r.kernel not in efficiency.FITTED:
            continue
        where = esc_text(r.measured_on or r.device.name) + (" †" if r.measured_on else "")
        # bare numbers (a popover per cell would make this long table the page's heaviest part); the note says how
        # kernel, shape, format and device name the row: together they are distinct (a phone's card title)
        name = f"{esc_text(r.kernel.replace('_', ' '))}, {esc_text(_shape(r))}, {esc_text(r.dtype)}, {where}"
        rows.append([name, t.value(kernel_row_efficiency(r.id), 0.01, 2), esc_text(r.library.split(" (")[0])])
    table = html_table([Column("Kernel, shape (groups × M × N × K) or size, format, ran on", numeric=False),
                        Column("Efficiency", "%"), Column("Source", numeric=False, secondary=True)], rows,
                       "Published kernel rows and their efficiency against the roofline")
    note = ("Efficiency: a matmul's roofline time on the registry device (FLOPs ÷ dense peak or bytes moved ÷ "
            "bandwidth, whichever is longer; operands in the row's format, a BF16 output) ÷ the time the measured "
            "FLOP/s give; prefill attention's measured FLOP/s ÷ the dense peak; decode attention's measured "
            "bandwidth ÷ the spec bandwidth.")
    sources = {}
    for r in efficiency.kernel_measurements():
        sources.setdefault(r.source_url, (r.source_title, r.software, 0))
        title, software, n = sources[r.source_url]
        sources[r.source_url] = (title, software, n + 1)
    lines = [f"- {esc_link(title, url)}: {n} rows. Software: {esc_text(software)}."
             for url, (title, software, n) in sources.items()]
    return Raw(str(table) + "\n\n" + note + "\n\n" + "\n".join(lines))


def fits_table(page: str = "", records: list | None = None):
    """One row per kernel class: what its efficiency varies with, the efficiency at the smallest and
    largest measured size, and how many rows it was fitted to."""
    from roofline.model import efficiency
    from roofline.quantities import kernel_efficiency

    t = _Table(page, records, "table('efficiency-fits')", "the expected figure's efficiency per kernel class")
    rows = []
    for kind, f in efficiency.fits().items():
        rows.append([esc_text(kind.replace("_", " ")), esc_text(efficiency.SIZE_WORDS[kind]),
                     t.cell(kernel_efficiency(kind, f.size_min)), t.cell(kernel_efficiency(kind, f.size_max)),
                     f"{f.size_min:,.0f} to {f.size_max:,.0f}", str(f.rows)])
    return markdown_table(["Kernel class", "Varies with", "Efficiency at the smallest size", "At the largest",
                           "Measured sizes", "Rows"], rows, ["l", "l", "r", "r", "r", "r"])


def validation_table(page: str = "", records: list | None = None):
    """Published ÷ expected per group (all runs first): runs, median ratio, within ±25 % and ±50 %, error."""
    from roofline.model import validation
    from roofline.quantities import expected_validation as ev

    t = _Table(page, records, "table('expected-validation')", "the expected figure against published serving runs")
    rows = []

    def add(name: str, by, group):
        rows.append([name, t.value(ev("count", by, group), digits=3), t.value(ev("median_ratio", by, group), digits=2),
                     t.value(ev("within_25", by, group), 0.01, 2), t.value(ev("within_50", by, group), 0.01, 2),
                     t.value(ev("geo_mean_error", by, group), digits=3)])

    add("All runs", None, None)
    for by in validation.GROUPS:
        for group in validation.by_group(by):
            add(f"{_GROUP_WORDS[by]}: {esc_text(group)}", by, group)
    return html_table([Column("Runs", numeric=False), Column("Count"), Column("Median published ÷ expected", "×"),
                       Column("Within ±25 %", "%"), Column("Within ±50 %", "%"),
                       Column("Geometric-mean error", "×")], rows,
                      "The expected figure against published serving runs, per group")


def worst_table(page: str = "", records: list | None = None):
    """The five runs furthest from their expected figure, and the model's known gap behind each."""
    from roofline.model import validation
    from roofline.quantities import serving_run_expected, serving_run_expected_share, serving_run_published

    t = _Table(page, records, "table('expected-worst')", "the expected figure's worst misses")
    rows = []
    for c in validation.worst(5):
        r = c.run
        rows.append([esc_text(f"{r.model_name}, {r.devices} × {r.measured_on or r.device.name}, "
                              f"{r.input_tokens}/{r.output_tokens}, {r.engine}"),
                     t.cell(serving_run_expected_share(r.id)), t.cell(serving_run_published(r.id)),
                     t.cell(serving_run_expected(r.id)), esc_text(validation.miss_reason(c))])
    return markdown_table(["Run (in/out tokens, engine)", "Published ÷ expected", "Published per device",
                           "Expected per device", "The gap most likely behind it"], rows, ["l", "r", "r", "r", "l"])


TABLES = {
    "kernel-efficiency": kernel_table,
    "efficiency-fits": fits_table,
    "expected-validation": validation_table,
    "expected-worst": worst_table,
}
