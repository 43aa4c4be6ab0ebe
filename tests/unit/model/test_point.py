"""One roofline point type (roofline.model.point): what a matmul's cost is.

Expected values derived by hand in the comments (registry datasheet numbers: H100 SXM5 989.4
TFLOP/s dense fp16/bf16, 3.35 TB/s), never copied from the code's output.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from roofline.model import ops
from roofline.model.point import RooflinePoint
from roofline.registry.hardware import get_device


# ------------------------------------------------------------------ the point ---------------
def test_matmul_cost_is_a_point_under_the_device_roofs():
    # (4096×4096)·(4096×4096) fp16: 2·4096³ = 137,438,953,472 FLOPs; three 4096² fp16 matrices
    # = 3 · 16,777,216 · 2 = 100,663,296 B; intensity 1,365.33 > ridge 989.4 / 3.35 = 295.34, so
    # compute-bound at 137,438,953,472 / 989.4e12 = 138.911 µs.
    c = ops.matmul_cost(4096, 4096, 4096, "fp16", get_device("h100-sxm5"))
    assert isinstance(c, RooflinePoint)
    assert (c.flops, c.bytes) == (137_438_953_472, 100_663_296)
    assert c.bound == "compute-bound"
    assert c.time_s == pytest.approx(137_438_953_472 / 989.4e12)
    assert c.ridge_point == pytest.approx(989.4 / 3.35)


# ------------------------------------------------------------ computed_once ----
def test_a_figure_is_computed_once_and_kept_on_the_instance():
    p = RooflinePoint("matmul", flops=2e9, weight_bytes=2e6, peak_flop_per_s=1e15, bandwidth_bytes_per_s=1e12)
    assert "time_s" not in vars(p)
    # 2e9 FLOP / 1e15 = 2 µs of compute; 2e6 B / 1e12 = 2 µs of memory: the slower is 2 µs
    assert p.time_s == pytest.approx(2e-6)
    assert vars(p)["time_s"] == pytest.approx(2e-6)  # kept: a second read is a dictionary look-up


def test_equality_and_replace_see_the_fields_only():
    a = RooflinePoint("x", flops=1.0, weight_bytes=1.0)
    b = RooflinePoint("x", flops=1.0, weight_bytes=1.0)
    a.time_s  # noqa: B018 — read, so `a` keeps it and `b` does not
    assert a == b and hash(a) == hash(b)
    c = replace(a, flops=4.0)
    assert "time_s" not in vars(c) and c.compute_time_s == 4.0  # peak 1 FLOP/s: 4 FLOPs take 4 s


def test_a_kept_array_cannot_be_edited_in_place_and_a_given_one_stays_editable():
    flops = np.array([1.0, 2.0])
    p = RooflinePoint("sweep", flops=flops, weight_bytes=1.0)
    times = p.compute_time_s
    with pytest.raises(ValueError):
        times *= 2  # would change what every later read of p.compute_time_s sees
    assert flops.flags.writeable  # the caller's own array, a field, is left as it was given
