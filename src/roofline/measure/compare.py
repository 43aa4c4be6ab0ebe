"""Measured roofs against a registry device's spec roofs."""

from __future__ import annotations

from typing import Any

from roofline.registry.machine import Measurement


def compare(m: Measurement, device, dtype: str) -> dict[str, Any]:
    """Measured roofs against a registry device's spec roofs: the ratios (measured ÷ spec).

    The measured GEMM runs in fp32, so its rate is divided only by an fp32 peak: against any
    other dtype `flop_ratio` is None (a bf16 peak would make an fp32 GEMM look slow).
    """
    peak = device.peak_flop_per_s(dtype)
    bw = device.memory_bandwidth_bytes_per_s
    return {
        "hardware": device.id, "dtype": dtype,
        "spec_peak_flop_per_s": peak, "spec_bandwidth_bytes_per_s": bw, "spec_ridge_point": peak / bw,
        "measured_flop_per_s": m.fp32.median, "measured_bandwidth_bytes_per_s": m.bandwidth_bytes_per_s,
        "measured_ridge_point": m.ridge_point,
        "flop_ratio": m.fp32.median / peak if dtype == "fp32" else None,
        "bandwidth_ratio": m.bandwidth_bytes_per_s / bw,
    }


def spec_dtype(device, requested: str | None = None) -> str:
    """The dtype a spec roofline is drawn at: `requested`, else fp32 (what numpy's GEMM runs), else 16-bit."""
    if requested:
        device.peak_flop_per_s(requested)  # raises naming the dtypes the device has
        return requested
    return "fp32" if "fp32" in device.dense_peak_flop_per_s else device.sixteen_bit_dtype
