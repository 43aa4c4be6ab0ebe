"""Serving tokens print at the precision their inputs carry: a count whole, a ratio at three figures."""

from __future__ import annotations

from roofline.quantities import NAMESPACE


def test_a_ratio_of_pool_sizes_prints_three_figures_not_six():
    # Prefill devices per decode device is a ratio of two rates, each from three-figure datasheet peaks:
    # printed to six figures it claimed a precision ("2.09404") its inputs do not have.
    q = NAMESPACE["svc_disagg"]("chat70")
    assert q.digits == 3
    assert len(q.text().replace(".", "").lstrip("0")) <= 3
