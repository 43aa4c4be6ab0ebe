"""Serving tokens print at the precision their inputs carry: a count whole, a ratio at three figures."""

from __future__ import annotations

from roofline.quantities import NAMESPACE


def test_a_ratio_of_pool_sizes_prints_three_figures_not_six():
    # Prefill devices per decode device is a ratio of two rates, each from three-figure datasheet peaks:
    # printed to six figures it claimed a precision ("2.09404") its inputs do not have.
    q = NAMESPACE["svc_disagg"]("chat70")
    assert q.digits == 3
    assert len(q.text().replace(".", "").lstrip("0")) <= 3


def test_a_published_rate_divided_by_devices_keeps_the_published_precision():
    from roofline.format import render
    from roofline.quantities.serving_runs import published_digits

    # Published totals are whole tokens/s: per device they print whole, and never with more figures
    # than the published total has. 26,604 ÷ 8 = 3,325.5 -> 3,326; 3,627 ÷ 8 = 453.375 -> 453;
    # 66,057 ÷ 8 = 8,257.125 -> 8,257; 36 ÷ 8 = 4.5 keeps its two figures.
    for total, devices, shown in ((26604, 8, "3,326"), (3627, 8, "453"), (66057, 8, "8,257"), (36, 8, "4.5")):
        per_device = total / devices
        assert render(per_device, "tokens/s", published_digits(total, per_device)).startswith(shown)


def test_no_published_cell_in_the_serving_table_shows_a_fraction_of_a_whole_published_rate():
    import re

    from roofline.registry.measurements import serving_measurements
    from roofline_site.numbers.tables import table

    html_text = str(table("measured-serving", "real-systems.md", []))
    every = html_text.split('aria-label="Published serving runs against the serving ceiling"')[1]
    rows = [r for r in every.split("<tbody>")[1].split("</tbody>")[0].splitlines() if r.startswith("<tr>")]
    runs = list(serving_measurements().values())
    assert len(rows) == len(runs)
    for row, run in zip(rows, runs):
        published_cell = row.split("<td")[3]  # name, share, published
        shown = re.sub(r"<[^>]+>", "", published_cell.split(">", 1)[1]).strip()
        if float(run.output_tokens_per_s).is_integer() and not run.stated_per_device:
            assert "." not in shown.split()[0] or float(run.output_tokens_per_s_per_device) < 10, (run.id, shown)
