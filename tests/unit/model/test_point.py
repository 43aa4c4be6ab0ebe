"""One roofline point type (roofline.model.point): what a matmul's cost is.

Expected values derived by hand in the comments (registry datasheet numbers: H100 SXM5 989.4
TFLOP/s dense fp16/bf16, 3.35 TB/s), never copied from the code's output.
"""

from __future__ import annotations

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
