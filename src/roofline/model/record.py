"""One record of a step, one name per quantity: what the CLI's `--json`, the calculator's reference
export, the tokens (`quantities.inference.StepView`, `layout_decode`) and the figures read.

A step is a `parallel.ParallelStep`: its `stage` (one device's kernels for one micro-batch, a
`kernels.KernelStep`), its collectives and pipeline sends, and the totals, memory and link figures
they make; on one device it has no collectives and its totals are the stage's. `step_record` writes
it as one flat, JSON-ready dict (units in the names; under a layout of more than one device, FLOPs,
bytes and memory are one device's). `limits_record` adds the layout's limits (`parallel.limits`).
`record_schema` says what each key means.

>>> from roofline.model import parallel
>>> r = step_record(parallel.decode(Model.from_param_count(8e9), get_device("h100-sxm5")))
>>> r["weight_bytes"], r["layout"], r["tokens_per_s"]  # 8e9 weights · 2 B; 3.35e12 B/s ÷ 16e9 B
(16000000000.0, '1 device', 209.375)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from roofline.model import kernels, parallel
from roofline.registry.hardware import get_device  # noqa: F401  (the doctest's)
from roofline.registry.models import Model  # noqa: F401  (the doctest's)


def _num(x) -> Any:
    """A plain float for a 0-d number (None for NaN or infinity: JSON has neither); strings and None as given."""
    if x is None or isinstance(x, (str, bool)):
        return x
    v = float(np.asarray(x))
    return v if math.isfinite(v) else None


def layout_record(layout: parallel.Layout) -> dict[str, Any]:
    """The layout's name and degrees."""
    return {"layout": layout.name, "devices": layout.devices, "tp": layout.tp, "pp": layout.pp, "ep": layout.ep,
            "dp": layout.dp}


def op_record(k) -> dict[str, Any]:
    """One row of a step's kernel table: a kernel on the memory roof, or a collective on the link (which
    adds its kind, devices, link, bytes sent, latency and link bandwidth)."""
    out = {"name": k.name, "count": k.count, "flops": _num(k.flops), "bytes": _num(k.bytes),
           "weight_bytes": _num(k.weight_bytes), "activation_read_bytes": _num(k.act_read_bytes),
           "activation_written_bytes": _num(k.act_written_bytes), "kv_read_bytes": _num(k.kv_read_bytes),
           "kv_written_bytes": _num(k.kv_written_bytes), "arithmetic_intensity": _num(k.arithmetic_intensity),
           "compute_dtype": k.compute_dtype, "peak_flop_per_s": _num(k.peak_flop_per_s),
           "ridge_point": _num(k.ridge_point), "bound": str(k.bound), "time_s": _num(k.time_s)}
    if isinstance(k, parallel.CollectivePoint):
        out.update({"kind": k.kind, "devices": k.devices, "link": k.link, "link_bytes": _num(k.link_bytes),
                    "latency_s": _num(k.latency_s), "link_bandwidth_bytes_per_s": _num(k.link_bandwidth_bytes_per_s)})
    return out


def step_record(step: parallel.ParallelStep | kernels.KernelStep) -> dict[str, Any]:
    """Every figure of a step under its one name (see the module docstring); a `kernels` step is read
    as the one-device layout's."""
    if isinstance(step, kernels.KernelStep):
        step = parallel.on_one_device(step)
    s, lay, d = step.stage, step.layout, step.stage.device
    attained = np.asarray(s.flops, float) / np.asarray(step.stage_time_s, float)
    f = s.formats
    return {
        "phase": s.phase, "model": step.model.id, "hardware": d.id, "batch": _num(step.batch),
        "context_len": _num(s.context_len), "tokens_per_sequence": _num(s.tokens_per_sequence),
        **layout_record(lay),
        "weight_format": f.weights.name, "weight_scope": f.scope, "weight_scope_words": f.scope_words,
        "head_format": f.head_format.name, "activation_dtype": f.activation, "kv_dtype": f.kv,
        "attention": s.attention, "compute_dtype": s.matmul_dtype,
        "peak_flop_per_s": s.peak_flop_per_s, "bandwidth_bytes_per_s": s.bandwidth_bytes_per_s,
        "ridge_point": s.ridge_point,
        "flops": _num(s.flops), "bytes": _num(s.bytes), "weight_bytes": _num(s.weight_bytes),
        "kv_bytes": _num(s.kv_bytes), "kv_read_bytes": _num(s.kv_read_bytes), "activation_bytes": _num(s.activation_bytes),
        "arithmetic_intensity": _num(s.arithmetic_intensity), "bound": str(step.bound),
        "time_s": _num(step.time_s), "time_perfect_overlap_s": _num(step.time_perfect_overlap_s),
        "compute_time_s": _num(s.compute_time_s), "memory_time_s": _num(s.memory_time_s),
        "attained_flop_per_s": _num(attained), "flop_utilization": _num(attained / s.peak_flop_per_s),
        "kernel_time_s": _num(step.kernel_time_s), "stage_time_s": _num(step.stage_time_s),
        "collective_time_s": _num(step.collective_time_s),
        "collective_latency_share": _num(step.collective_latency_share),
        "tokens_per_s": _num(step.tokens_per_s), "tokens_per_s_per_sequence": _num(step.tokens_per_s_per_sequence),
        "tokens_per_s_per_device": _num(step.tokens_per_s_per_device),
        "link_bytes": _num(step.link_bytes), "link_intensity": _num(step.link_intensity),
        "link_ridge_point": _num(step.link_ridge_point),
        "network_bytes": _num(step.network_bytes), "network_time_s": _num(step.network_time_s),
        "network_share": _num(step.network_share), "micro_batch": _num(step.micro_batch),
        "micro_batches": _num(step.micro_batches), "bubble_fraction": _num(step.bubble_fraction),
        "collective_latency": step.latency_description, "kv_note": step.kv_note,
        "weights_resident_bytes": _num(s.weights_resident_bytes), "kv_resident_bytes": _num(step.kv_resident_bytes),
        "activation_peak_bytes": _num(s.activation_peak_bytes), "runtime_reserve_bytes": _num(s.runtime_reserve_bytes),
        "memory_required_bytes": _num(step.memory_required_bytes),
        "memory_capacity_bytes": d.memory_capacity_bytes, "usable_memory_bytes": kernels.usable_memory_bytes(d),
        "fits": bool(step.fits),
        "ops": [op_record(k) for k in step.ops],
    }


def limits_record(lim: parallel.LayoutLimits) -> dict[str, Any]:
    """Every limit of a layout (`parallel.limits`): the speed of light, memory, the link."""
    return {"speed_of_light_tokens_per_s": _num(lim.speed_of_light_tokens_per_s),
            "weight_bytes_per_device": _num(lim.weight_bytes_per_device),
            "bandwidth_bytes_per_s": _num(lim.bandwidth_bytes_per_s), "link_time_s": _num(lim.link_time_s),
            "link_tokens_per_s": _num(lim.link_tokens_per_s), "link_ridge_point": _num(lim.link_ridge_point),
            "max_batch_that_fits": None if lim.max_batch_that_fits is None else int(lim.max_batch_that_fits),
            "assumes": lim.assumes}


def service_record(p) -> dict[str, Any]:
    """One service point (`serving.ServicePoint`) as `roofline serve --json` and the calculator's Serving
    mode write it: its layout under the step record's names, then what the service delivers there.
    `limited_by` is what limits the point (`serving.BOUND_MEANING`), not a step's `bound`."""
    return {**layout_record(p.layout), "concurrency": p.concurrency, "running": p.running,
            "memory_cap": p.memory_cap, "limited_by": p.bound, "limited_by_also": list(p.bound_also),
            "limited_by_gains": dict(p.bound_gains), "limited_by_meaning": p.bound_meaning, "step_time_s": p.step_time_s, "ttft_s": p.ttft_s,
            "tpot_s": p.tpot_s, "request_latency_s": p.request_latency_s, "output_tokens_per_s": p.output_tokens_per_s,
            "output_tokens_per_s_per_device": p.output_tokens_per_s_per_device,
            "output_tokens_per_s_per_user": p.output_tokens_per_s_per_user,
            "input_tokens_per_s": p.input_tokens_per_s,
            "expected_output_tokens_per_s": p.expected_output_tokens_per_s,
            "expected_output_tokens_per_s_per_device": p.expected_output_tokens_per_s_per_device,
            "expected_requests_in_flight": p.expected_slots,
            "expected_ttft_s": p.expected_ttft_s, "expected_tpot_s": p.expected_tpot_s,
            "expected_tpot_p50_s": p.expected_tpot_p50_s, "expected_tpot_p90_s": p.expected_tpot_p90_s,
            "expected_tpot_p99_s": p.expected_tpot_p99_s, "expected_request_latency_s": p.expected_request_latency_s,
            "usd_per_million_output_tokens": p.usd_per_million_output_tokens,
            "usd_per_million_input_tokens": p.usd_per_million_input_tokens,
            # the step mix behind TTFT and TPOT (serving's module doc)
            "prefill_s": p.prefill_s, "decode_step_s": p.decode_step_s, "prompt_step_s": p.prompt_step_s,
            "prompt_step_share": p.prompt_step_share, "prompt_gap_share": p.prompt_gap_share,
            "tpot_p50_s": p.tpot_p50_s, "tpot_p90_s": p.tpot_p90_s, "tpot_p99_s": p.tpot_p99_s,
            "ttft_p50_s": p.ttft_p50_s, "ttft_p90_s": p.ttft_p90_s, "ttft_p99_s": p.ttft_p99_s}


def disaggregated_record(p) -> dict[str, Any]:
    """One disaggregated point (`serving.DisaggregatedPoint`) as `roofline serve --disaggregated --json` writes it:
    both pools' layouts, their balance, and what the service delivers (devices count both pools)."""
    return {"prefill_layout": p.prefill_layout.name, "decode_layout": p.decode_layout.name,
            "decode_devices": p.decode_layout.devices, "concurrency": p.concurrency,
            "prefill_devices_per_decode_device": p.prefill_devices_per_decode_device, "devices": p.devices,
            "limited_by": p.bound, "ttft_s": p.ttft_s, "kv_transfer_s": p.kv_transfer_s, "tpot_s": p.tpot_s,
            "output_tokens_per_s": p.output_tokens_per_s,
            "output_tokens_per_s_per_device": p.output_tokens_per_s_per_device,
            "output_tokens_per_s_per_user": p.output_tokens_per_s_per_user}
