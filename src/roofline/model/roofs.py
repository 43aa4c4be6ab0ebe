"""The roofline itself: ridge point, attainable FLOP/s, and which roof binds."""

from __future__ import annotations

import numpy as np

from roofline.errors import InputError
from roofline.registry.hardware import Device

MEMORY_BOUND = "memory-bound"
COMPUTE_BOUND = "compute-bound"


def ridge_point(peak_flop_per_s: float, bandwidth_bytes_per_s: float) -> float:
    """Arithmetic intensity (FLOP/byte) where the bandwidth roof meets the compute roof.

    >>> round(ridge_point(989.4e12, 3.35e12), 2)  # 989.4 TFLOP/s ÷ 3.35 TB/s
    295.34
    """
    if not (peak_flop_per_s > 0 and bandwidth_bytes_per_s > 0):
        raise InputError("peak FLOP/s and bandwidth must both be positive")
    return peak_flop_per_s / bandwidth_bytes_per_s


def device_ridge_point(device: Device, dtype: str = "bf16") -> float:
    """A device's ridge point at a dtype's dense peak (bf16 by default, fp16 where bf16 is absent)."""
    return ridge_point(device.peak_flop_per_s(dtype), device.memory_bandwidth_bytes_per_s)


def attainable_flop_per_s(intensity_flop_per_byte, peak_flop_per_s: float, bandwidth_bytes_per_s: float):
    """min(peak, bandwidth × intensity); works on scalars and numpy arrays.

    >>> attainable_flop_per_s(1.0, 989.4e12, 3.35e12)
    3350000000000.0
    """
    ai = np.asarray(intensity_flop_per_byte, dtype=float)
    if np.any(~np.isfinite(ai)) or np.any(ai < 0):
        raise InputError("arithmetic intensity must be finite and non-negative")
    out = np.minimum(peak_flop_per_s, bandwidth_bytes_per_s * ai)
    return float(out) if out.ndim == 0 else out


def bound(intensity_flop_per_byte: float, ridge_flop_per_byte: float) -> str:
    """'memory-bound' below the ridge, 'compute-bound' at or above it."""
    return COMPUTE_BOUND if intensity_flop_per_byte >= ridge_flop_per_byte else MEMORY_BOUND


#: 2:4 structured sparsity (two of every four weights zero) lets NVIDIA tensor cores skip
#: the zeros, so datasheets print a "with sparsity" peak at twice the dense rate.
SPARSE_2_4_SPEEDUP = 2.0


def sparse_peak_flop_per_s(dense_peak_flop_per_s: float) -> float:
    """The 2:4-sparse peak a datasheet prints beside a dense one: twice the dense rate.

    >>> sparse_peak_flop_per_s(989.4e12)  # the H100 SXM5's "1,979 TFLOPS*"
    1978800000000000.0
    """
    if not dense_peak_flop_per_s > 0:
        raise InputError("dense peak FLOP/s must be positive")
    return SPARSE_2_4_SPEEDUP * dense_peak_flop_per_s
