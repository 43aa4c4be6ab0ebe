"""FLOPs, bytes moved and arithmetic intensity of single operations, each convention named.

Each cost is a `RooflinePoint` (roofline.model.point): the left operand (m×k) is counted as
activations read, the right one (k×n, the weight of a linear layer) as weights read, the result as
activations written. Given a device, the point sits under its roofs at the dtype's peak.

Two counting conventions appear on the site:

* `matmul_cost` — the site's convention: a multiply-add is 2 FLOPs (2·m·n·k), and
  bytes moved are both operands read once plus the result written once.
* `matmul_cost_intro_convention` — the convention of "A Visual Guide to the Roofline Model"
  (the popular introduction the site cites): each output costs k multiplies and k-1 adds, and
  only the inputs are counted as bytes. `matmul_cost_seed_convention` is its old name.
"""

from __future__ import annotations

from roofline.model.dtypes import bytes_per_element
from roofline.errors import InputError
from roofline.model.point import RooflinePoint
from roofline.registry.hardware import Device


MAX_DIM = 1e9  # a matrix side above this is certainly a typo (and overflows exact FLOP counts)


def _check_dims(**dims: float) -> None:
    for name, value in dims.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 1 or value != int(value):
            raise InputError(f"matrix dimension {name} must be a positive whole number, got {value!r}")
        if value > MAX_DIM:
            raise InputError(f"matrix dimension {name} must be at most {MAX_DIM:.0e}, got {value!r}")


def _roofs(device: Device | None, dtype: str) -> dict:
    if device is None:
        return {"compute_dtype": dtype}
    return {"peak_flop_per_s": device.peak_flop_per_s(dtype),
            "bandwidth_bytes_per_s": device.memory_bandwidth_bytes_per_s, "compute_dtype": dtype}


def matmul_cost(m: int, n: int, k: int, dtype: str = "bf16", device: Device | None = None) -> RooflinePoint:
    """(m×k)·(k×n): 2·m·n·k FLOPs; (m·k + k·n + m·n) elements moved.

    >>> matmul_cost(1000, 1000, 1000, "fp16").arithmetic_intensity  # 2e9 / 6e6
    333.3333333333333
    """
    _check_dims(m=m, n=n, k=k)
    size = bytes_per_element(dtype)
    return RooflinePoint(
        f"({m}×{k})·({k}×{n})", flops=2.0 * m * n * k,
        act_read_bytes=float(m * k * size), weight_bytes=float(k * n * size), act_written_bytes=float(m * n * size),
        convention="2·m·n·k FLOPs; operands read once and result written once", **_roofs(device, dtype),
    )


def matmul_cost_intro_convention(m: int, n: int, k: int, dtype: str = "fp16",
                                 device: Device | None = None) -> RooflinePoint:
    """(m×k)·(k×n) counted as the Visual Guide introduction does: m·n·(2k-1) FLOPs, inputs-only bytes.

    >>> c = matmul_cost_intro_convention(3, 1, 2, "fp16")  # the introduction's 3×2 · 2×1
    >>> (c.flops, c.bytes, c.arithmetic_intensity)
    (9.0, 16.0, 0.5625)
    """
    _check_dims(m=m, n=n, k=k)
    size = bytes_per_element(dtype)
    return RooflinePoint(
        f"({m}×{k})·({k}×{n})", flops=float(m * n * (2 * k - 1)),
        act_read_bytes=float(m * k * size), weight_bytes=float(k * n * size),
        convention="k multiplies and k-1 adds per output; inputs read, result not counted", **_roofs(device, dtype),
    )


# The old name, kept for callers outside the pages (pages show code, and never say "seed").
matmul_cost_seed_convention = matmul_cost_intro_convention
