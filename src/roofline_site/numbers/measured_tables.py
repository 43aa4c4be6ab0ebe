"""Generated tables of measurements: published ones (real-systems.md) and measure JSON files (measure.md).

Every number is a roofline Quantity rendered through `table_base.Table.cell`, so it keeps its
provenance popover and lands in numbers.json. Registered in `tables.TABLES` as
"measured-bandwidth", "measured-gemm", "measured-decode", "measured-serving" and "measured-machines".
"""

from __future__ import annotations

from roofline_site.numbers.table_base import Column, Table as _Table, html_table
from roofline_site.html.escape import link as esc_link, text as esc_text
from roofline_site.numbers.table_base import markdown_table as _markdown
from roofline_site.numbers.tokens import Raw


def _num(t, q) -> tuple[str, float]:
    """A number with its own popover, sorting by its exact value (the unit stays in the cell: these
    tables mix units within a column, as their rows measure different things)."""
    return t.cell(q), float(q)


def _source_link(p) -> str:
    return esc_link(f"{p.tool}, {p.date}", p.source_url)


def _run_on(p) -> str:
    """The chip it ran on, marked † where a registry device stands in for it."""
    return esc_text(p.measured_on) + " †" if p.measured_on else esc_text(p.device.name)


def _name(i: int, p, model: str = "") -> str:
    """A row's name, its first column (kept in view as a wide table scrolls): the note's number, the chip
    it ran on and, where the row is one model's run, the model."""
    return f"{i}. {_run_on(p)}" + (f", {model}" if model else "")


def rows_details(summary: str, body: str) -> str:
    """`body` in a closed <details> under a table: what a reader opens when they want every row or note."""
    return f'<details class="rl-rows">\n<summary>{summary}</summary>\n{body}\n</details>'


def _with_notes(table: Raw, entries) -> Raw:
    """The table, then one note per row (numbered as the rows' names are), folded under it: what was
    measured, with which software, and any stand-in."""
    items = []
    for p in entries:
        where = p.measured_on or p.device.name
        model = f", {p.model_name}" if p.model_id else ""
        shape = f", best shape {p.shape}" if p.shape and p.shape[0].isdigit() else ""
        text = f"{p.what}{shape}. Software: {p.software}."
        if p.mapping:
            text += f" † {p.mapping}"
        items.append(f"<li><strong>{esc_text(p.tool)}, {esc_text(where)}{esc_text(model)}</strong>: {esc_text(text)}</li>")
    notes = rows_details(f"What each of the {len(items)} rows measured, and with which software",
                         "<ol>\n" + "\n".join(items) + "\n</ol>")
    return Raw(str(table) + "\n\n" + notes)


def bandwidth_table(page: str = "", records: list | None = None) -> Raw:
    """Sustained bandwidth: spec, derated (spec × median measured share), measured, measured ÷ spec."""
    from roofline.registry.measurements import of_kind
    from roofline.quantities import bandwidth, derated_bandwidth, measured, measured_share

    t = _Table(page, records, "table('measured-bandwidth')", "published sustained bandwidth against spec")
    entries = of_kind("bandwidth")
    # The row's name first, the share (the page's answer) second, then what it is computed from.
    rows = [[_name(i, p), _num(t, measured_share(p.id)), _num(t, measured(p.id)), _num(t, bandwidth(p.device_id).sig(4)),
             _num(t, derated_bandwidth(p.device_id)), esc_text(p.device.name), _source_link(p)]
            for i, p in enumerate(entries, 1)]
    return _with_notes(html_table([Column("Measured on", numeric=False), Column("Measured ÷ spec"), Column("Measured"),
                                   Column("Spec"), Column("Derated", secondary=True),
                                   Column("Compared with", numeric=False, secondary=True),
                                   Column("Source", numeric=False, secondary=True)],
                                  rows, "Published sustained bandwidth against spec"), entries)


def gemm_table(page: str = "", records: list | None = None) -> Raw:
    """Large-GEMM throughput (MAMF): dense peak at the dtype, measured, measured ÷ peak."""
    from roofline.registry.measurements import of_kind
    from roofline.quantities import measured, measured_share, peak

    t = _Table(page, records, "table('measured-gemm')", "published large-GEMM throughput against the dense peak")
    entries = of_kind("gemm")
    rows = [[_name(i, p), _num(t, measured_share(p.id)), _num(t, measured(p.id)), _num(t, peak(p.device_id, p.dtype).sig(4)),
             esc_text(p.dtype), _source_link(p)] for i, p in enumerate(entries, 1)]
    return _with_notes(html_table([Column("Device", numeric=False), Column("Measured ÷ peak"), Column("Measured"),
                                   Column("Dense peak"), Column("dtype", numeric=False),
                                   Column("Source", numeric=False, secondary=True)],
                                  rows, "Published large-GEMM throughput against the dense peak"), entries)


def decode_table(page: str = "", records: list | None = None) -> Raw:
    """Batch-1 decode: speed of light at spec and derated bandwidth, measured, measured ÷ speed of light."""
    from roofline.registry.measurements import of_kind
    from roofline.quantities import derated_sol, measured, measured_share, sol

    t = _Table(page, records, "table('measured-decode')", "published batch-1 decode against the speed of light")
    entries = of_kind("decode")
    rows = [[_name(i, p, esc_text(p.model_name) + (" †" if p.measured_model else "")), _num(t, measured_share(p.id)),
             _num(t, measured(p.id)), _num(t, sol(p.model_id, p.device_id, p.dtype)),
             _num(t, derated_sol(p.model_id, p.device_id, p.dtype)), esc_text(p.dtype), _source_link(p)]
            for i, p in enumerate(entries, 1)]
    return _with_notes(html_table([Column("Device, model", numeric=False), Column("Measured ÷ speed of light"),
                                   Column("Measured"), Column("Speed of light"), Column("Derated", secondary=True),
                                   Column("Weights", numeric=False, secondary=True),
                                   Column("Source", numeric=False, secondary=True)],
                                  rows, "Published batch-1 decode against the speed of light"), entries)


def collective_table(page: str = "", records: list | None = None) -> Raw:
    """NCCL bus bandwidth against the link's per-direction bandwidth."""
    from roofline.registry.measurements import of_kind
    from roofline.quantities import link_bandwidth, measured, measured_share

    t = _Table(page, records, "table('measured-collective')", "published NCCL bus bandwidth against the link")
    entries = of_kind("collective")
    rows = [[_name(i, p), _num(t, measured_share(p.id)), _num(t, measured(p.id)), _num(t, link_bandwidth(p.device_id)),
             esc_text(p.device.interconnect.link), esc_text(f"{p.collective}, {p.devices} devices, {p.algorithm}"),
             _source_link(p)] for i, p in enumerate(entries, 1)]
    return _with_notes(html_table([Column("Device", numeric=False), Column("Measured ÷ link"),
                                   Column("Measured bus bandwidth"), Column("Link, one direction"),
                                   Column("Link", numeric=False, secondary=True),
                                   Column("Collective", numeric=False, secondary=True),
                                   Column("Source", numeric=False, secondary=True)],
                                  rows, "Published NCCL bus bandwidth against the link"), entries)


def parallel_decode_table(page: str = "", records: list | None = None) -> Raw:
    """Multi-device batch-1 decode against the tensor-parallel ceiling (kernels plus collectives)."""
    from roofline.registry.measurements import of_kind
    from roofline.quantities import measured, measured_share, tp_ceiling

    t = _Table(page, records, "table('measured-parallel-decode')",
               "published tensor-parallel batch-1 decode against the package's ceiling")
    entries = of_kind("parallel_decode")
    rows = [[_name(i, p, esc_text(p.model_name)), _num(t, measured_share(p.id)), _num(t, measured(p.id)),
             _num(t, tp_ceiling(p.model_id, p.device_id, p.devices, p.context_tokens, p.dtype)),
             _num(t, tp_ceiling(p.model_id, p.device_id, p.devices, p.context_tokens, p.dtype, latency="ring")),
             f"TP{p.devices}", esc_text(p.dtype), _source_link(p)] for i, p in enumerate(entries, 1)]
    return _with_notes(html_table([Column("Devices, model", numeric=False), Column("Measured ÷ ceiling"),
                                   Column("Measured"), Column("Ceiling (latency floor)"),
                                   Column("Expected (single-channel ring latency)", secondary=True),
                                   Column("Layout", numeric=False, secondary=True),
                                   Column("Weights", numeric=False, secondary=True),
                                   Column("Source", numeric=False, secondary=True)],
                                  rows, "Published tensor-parallel batch-1 decode against the ceiling"), entries)


#: Marks in the serving table: a stand-in model or device, and a field the source leaves unstated.
STAND_IN, ASSUMED = "†", "‡"


def _serving_formats(run) -> str:
    """Weights/activations/KV, each marked ‡ where the source does not state it."""
    def one(field: str) -> str:
        return esc_text(getattr(run, field)) + (ASSUMED if field in run.assumed else "")
    return "/".join(one(f) for f in ("weight_format", "activation_format", "kv_format"))


def _serving_requests(run) -> str:
    if run.scenario == "offline":
        return "all queued" + (f", cap {run.max_concurrency}" if run.max_concurrency else "")
    return ("batch " if run.scenario == "static batch" else "") + str(run.concurrency)


def serving_run_title(run, with_engine: bool = False) -> str:
    """A run's name as its row's first cell and its card's title on a phone: the model, the devices, the
    tokens in and out and the requests in flight; with the engine where two runs share all of those (one
    publisher ran the same point on two engines)."""
    model = esc_text(run.model_name) + (STAND_IN if run.measured_model else "")
    where = esc_text(run.measured_on or run.device.name) + (STAND_IN if run.measured_on else "")
    requests = _serving_requests(run)
    load = requests if not requests[0].isdigit() else f"{requests} in flight"
    engine = f" ({esc_text(run.engine)})" if with_engine else ""
    return f"{model} on {run.devices} × {where}: {run.input_tokens} in, {run.output_tokens} out, {esc_text(load)}{engine}"


def serving_run_titles(runs) -> list[str]:
    """Each run's title, the engine added to those that would otherwise share one."""
    bare = [serving_run_title(r) for r in runs]
    return [serving_run_title(r, with_engine=bare.count(b) > 1) for r, b in zip(runs, bare)]


def _serving_summary(t, runs) -> Raw:
    """One row per engine, model and weight format: how many runs, and their median, lowest and highest
    published ÷ ceiling. The page reads from this; every run is one click below it."""
    from roofline.quantities import serving_runs_stat

    groups: dict[tuple[str, str, str], list] = {}
    for r in runs:
        groups.setdefault((r.engine, r.model_id, r.weight_format), []).append(r)
    rows = []
    for (engine, model_id, fmt), rs in groups.items():
        stat = lambda which: t.value(serving_runs_stat(which, engine, model=model_id, weight_format=fmt),  # noqa: E731
                                     0.01, 2, popover=True)
        rows.append([f"{esc_text(engine)}, {esc_text(rs[0].model_name)}, {esc_text(fmt)} weights",
                     (str(len(rs)), float(len(rs))), stat("median"), stat("min"), stat("max")])
    return html_table([Column("Engine, model, weights", numeric=False), Column("Runs"),
                       Column("Median published ÷ ceiling", "%"), Column("Lowest", "%", secondary=True),
                       Column("Highest", "%", secondary=True)],
                      rows, "Published serving runs per engine, model and weight format")


def serving_table(page: str = "", records: list | None = None, part: str = "both") -> Raw:
    """Published serving runs against the serving model's ceiling and expected figure, per device, sortable.

    `part` "summary" or "every" gives one of the two parts alone, so a page can keep the summary and
    another the long table; "both" gives both.

    First a summary, one row per engine, model and weight format. Then, folded in a <details>, one row per
    [[serving]] entry: the run (model, devices, tokens in and out, requests in flight: its name), published
    ÷ ceiling with its provenance popover, output tokens/s per device published and the ceiling; then,
    folded until asked, expected, engine and date, layout, formats, tokens in/out, requests in flight and
    the source. Below it: the marks, and each source with its runs.
    """
    from roofline.model.serving_runs import ceiling
    from roofline.registry.measurements import serving_measurements
    from roofline.quantities import (serving_run_ceiling, serving_run_expected, serving_run_published,
                                     serving_run_share)

    if part not in ("both", "summary", "every"):
        raise ValueError(f"table('measured-serving', part={part!r}): part must be \"both\", \"summary\" or \"every\".")
    t = _Table(page, records, "table('measured-serving')", "published serving runs against the serving ceiling")
    runs = list(serving_measurements().values())
    if part == "summary":
        return Raw(_serving_summary(t, runs))
    rows = []
    for r, title in zip(runs, serving_run_titles(runs)):
        # Where the source states no layout, the layout shown is the one the ceiling took (the best).
        layout = (esc_text(ceiling(r).point.layout_name) + ASSUMED) if "layout" in r.assumed else esc_text(r.layout_name)
        published = serving_run_published(r.id)
        # The row's name first (kept in view), the headline ratio second (the site's table rule).
        rows.append([title, t.value(serving_run_share(r.id), 0.01, 2, popover=True),
                     t.value(published, digits=published.digits), t.value(serving_run_ceiling(r.id), digits=3),
                     t.value(serving_run_expected(r.id), digits=3), esc_text(f"{r.engine}, {r.date}"),
                     layout, _serving_formats(r), (f"{r.input_tokens}/{r.output_tokens}", float(r.input_tokens)),
                     (_serving_requests(r), float(r.concurrency or 0)), esc_link(r.engine, r.source_url)])
    table = html_table([Column("Run", numeric=False), Column("Published ÷ ceiling", "%"),
                        Column("Published", "tokens/s per device"), Column("Ceiling", "tokens/s per device"),
                        Column("Expected", "tokens/s per device", secondary=True),
                        Column("Engine, date", numeric=False, secondary=True),
                        Column("Layout", numeric=False, secondary=True),
                        Column("Weights/activations/KV", numeric=False, secondary=True),
                        Column("In/out", "tokens", secondary=True), Column("Requests in flight", secondary=True),
                        Column("Source", numeric=False, secondary=True)], rows,
                       "Published serving runs against the serving ceiling")
    sources: dict[str, list] = {}
    for r in runs:
        sources.setdefault(r.source_url, []).append(r)
    lines = [f"{STAND_IN} A registry model or device stands in for the one the run used: "
             + "; ".join(sorted({esc_text(r.mapping) for r in runs if r.mapping})),
             f"{ASSUMED} Not stated by the source; the ceiling takes the most generous choice (FP8 activations "
             "and KV cache; for the layout, the best layout of the same device count, which the Layout column shows)."]
    for url, rs in sources.items():
        r = rs[0]
        lines.append(f"{esc_link(r.source_title, url)}: {len(rs)} runs. Software: {esc_text(r.software)}"
                     + ("".join(sorted({f"; {esc_text(x.software)}" for x in rs if x.software != r.software})))
                     + f". Date: {esc_text(r.date)}.")
    notes = "<ul>\n" + "\n".join(f"<li>{line}</li>" for line in lines) + "\n</ul>"
    if part == "every":
        return Raw(f"{table}\n{notes}")
    every = rows_details(f"Every run, one row each ({len(runs)} runs), with the marks and sources", f"{table}\n{notes}")
    return Raw(f"{_serving_summary(t, runs)}\n\n{every}")


def machines_table(page: str = "", records: list | None = None) -> Raw:
    """Every measurement file in measurements/: its machine and its medians (best in the popover label)."""
    from roofline.registry.machine import site_measurements
    from roofline.quantities import machine, machine_ridge

    t = _Table(page, records, "table('measured-machines')", "measurement files in measurements/")
    rows = []
    for m in site_measurements():
        src = m.source.split("/")[-1]
        # The machine, then what it answers (triad, fp32 GEMM, their ridge); what it was and the rest fold away.
        rows.append([esc_text(m.label), _num(t, machine("triad", source=src)), _num(t, machine("fp32", source=src)),
                     _num(t, machine_ridge(source=src)), _num(t, machine("copy", source=src)),
                     _num(t, machine("fp64", source=src)), f"<code>{esc_text(m.source)}</code>", esc_text(m.cpu_model),
                     esc_text(m.blas)])
    return html_table([Column("Machine", numeric=False), Column("Triad"), Column("fp32 GEMM"),
                       Column("Ridge (fp32 ÷ triad)"), Column("Copy", secondary=True),
                       Column("fp64 GEMM", secondary=True), Column("File", numeric=False, secondary=True),
                       Column("CPU", numeric=False, secondary=True), Column("BLAS", numeric=False, secondary=True)],
                      rows, "Measurement files in measurements/")


def kernels_table(page: str = "", records: list | None = None) -> Raw:
    """The example measurement kernel by kernel: median, best, repetitions."""
    from roofline.registry.machine import example_measurement
    from roofline.quantities import machine, machine_reps

    t = _Table(page, records, "table('measured-kernels')", "the example measurement, kernel by kernel")
    m = example_measurement()
    names = {"copy": "STREAM copy", "triad": "STREAM triad", "fp64": "fp64 GEMM", "fp32": "fp32 GEMM"}
    rows = [[names[k], t.cell(machine(k)), t.cell(machine(k, "best")), t.cell(machine_reps(k))] for k in names]
    return _markdown([f"Kernel ({esc_text(m.label)})", "Median", "Best", "Repetitions"], rows, ["l", "r", "r", "r"])


TABLES = {
    "measured-bandwidth": bandwidth_table,
    "measured-gemm": gemm_table,
    "measured-decode": decode_table,
    "measured-collective": collective_table,
    "measured-parallel-decode": parallel_decode_table,
    "measured-serving": serving_table,
    "measured-machines": machines_table,
    "measured-kernels": kernels_table,
}
