"""Published measurements against the model's ceilings: the share of its roof each one reached.

Collectives (NCCL bus bandwidth) are compared with the link's per-direction bandwidth;
multi-device decode with the tensor-parallel ceiling (`parallel.decode`: kernels plus collectives).

The registry (registry/measurements.py) holds what was measured; this module compares it with
the spec bandwidth, the dense peak or the speed of light, so the data never imports the model.
"""

from __future__ import annotations

import statistics

from roofline.model.kernels import speed_of_light_tokens_per_s
from roofline.registry.hardware import Device
from roofline.registry.measurements import PublishedMeasurement, of_kind
from roofline.registry.models import Model


def reference(p: PublishedMeasurement) -> float:
    """What a measurement is compared with: spec bandwidth, dense peak or speed of light."""
    d = p.device
    if p.kind == "bandwidth":
        return d.memory_bandwidth_bytes_per_s
    if p.kind == "gemm":
        return d.peak_flop_per_s(p.dtype)
    if p.kind == "collective":
        return d.interconnect.bandwidth_bytes_per_s_per_direction
    if p.kind == "parallel_decode":
        return tp_ceiling_tokens_per_s(p.model, d, p.devices, p.context_tokens, p.dtype)
    return speed_of_light_tokens_per_s(p.model, d, p.dtype)


def share(p: PublishedMeasurement) -> float:
    """measured ÷ reference: the fraction of its ceiling a measurement reached."""
    return p.value / reference(p)


def bandwidth_derate() -> float:
    """Median share of spec bandwidth the published bandwidth measurements reached.

    With the FlashMLA H800 (3000 of 3350 GB/s), ROCm MI350X (6914 of 8000) and gpt-fast
    A100 (1700 of 2039) entries, the median of 0.8955, 0.86425 and 0.8337 is 0.86425.
    """
    return statistics.median(share(m) for m in of_kind("bandwidth"))


def derated_bandwidth_bytes_per_s(device: Device) -> float:
    """Spec bandwidth × bandwidth_derate(): the bandwidth a well-tuned kernel can expect."""
    return device.memory_bandwidth_bytes_per_s * bandwidth_derate()


def tp_ceiling_tokens_per_s(model: Model, device: Device, devices: int, context_len: int,
                            weight_dtype: str = "bf16", latency="floor") -> float:
    """Batch-1 decode ceiling under tensor parallelism over `devices`: kernels plus collectives, each at
    the link's latency floor (latency="ring": the expected figure with an NCCL ring's latency)."""
    from roofline.model import parallel
    from roofline.model.formats import Formats

    step = parallel.decode(model, device, 1, context_len, Formats.of(weight_dtype), layout=parallel.Layout(tp=devices),
                           latency=latency)
    return float(step.tokens_per_s_per_sequence)


def derated_speed_of_light_tokens_per_s(model: Model, device: Device, weight_dtype: str = "bf16") -> float:
    """The speed of light at the derated bandwidth instead of the spec one."""
    return speed_of_light_tokens_per_s(model, device, weight_dtype) * bandwidth_derate()


def gemm_derate() -> float:
    """Median share of the dense peak the published large-GEMM measurements (MAMF) reached.

    MAMF is the best shape of a brute-force search: real model shapes usually get less, so this
    derate is generous to the matmuls.
    """
    return statistics.median(share(m) for m in of_kind("gemm"))


def collective_derate() -> float:
    """Median share of the link's per-direction bandwidth the published NCCL bus bandwidths reached."""
    return statistics.median(share(m) for m in of_kind("collective"))


def derated_device(device: Device) -> Device:
    """The device with its bandwidth, every dense peak and its link bandwidth times the measured
    derates above: what the expected (never measured) serving figures run on."""
    import dataclasses

    bw, mm, link = bandwidth_derate(), gemm_derate(), collective_derate()
    ic = device.interconnect
    if ic is not None:
        ic = dataclasses.replace(ic, bandwidth_bytes_per_s_per_direction=ic.bandwidth_bytes_per_s_per_direction * link)
    return dataclasses.replace(device, memory_bandwidth_bytes_per_s=device.memory_bandwidth_bytes_per_s * bw,
                               dense_peak_flop_per_s={k: v * mm for k, v in device.dense_peak_flop_per_s.items()},
                               interconnect=ic)
