"""The expected step: every kernel at its efficiency from published kernel benchmarks, plus what the
engine adds per step. An estimate, never a measurement, and never faster than the ceiling.

A kernel's *efficiency* is its roofline time ÷ the time it took: 1 on the roofline, 0.5 at half
its speed. Each kernel class has an efficiency function fitted to the registry's kernel rows
(data/measurements.toml, `[[kernel]]`), never to a serving run:

* matmul (the weight matmuls, the router and the output head): against M, the tokens multiplied;
  DeepGEMM's FP8 per-shape table on the H800;
* grouped_matmul (the routed experts): against the tokens each expert gets; DeepGEMM's grouped tables;
* attention_prefill: against the prompt length; FlashAttention-3's causal forward on the H100;
* attention_decode: against the cached context; FlashMLA's memory-bound figure on the H800;
* elementwise kernels (norms, adds, activations, the embedding, softmax): the median share of spec
  bandwidth in the registry's bandwidth rows (`measured.bandwidth_derate`);
* collectives: latency from the one-shot all-reduce rows (`allreduce_latency`, against devices),
  never below the ceiling's, and bytes at the median NCCL bus bandwidth share
  (`measured.collective_derate`).

The fit is a least-squares line in log₁₀ of the size (two parameters per class; one, the
median, where every row has one size): monotone by construction. Inside the measured sizes it
interpolates; outside them the efficiency at the nearest measured size is used and a notice
says so. Every efficiency is capped at 1, so no kernel beats its roofline time.

A step's expected time is the ceiling's step (`parallel.mixed`, the same kernels, layout and
collectives) with each kernel's time ÷ its efficiency, plus the engine's per-step overhead
(`engine_step` rows) added once per step:

    expected = pp × (Σ kernels ÷ efficiency + Σ collectives expected) + sends expected + overhead.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np

from roofline.errors import InputError
from roofline.model import kernels, measured, parallel
from roofline.model.formats import Formats
from roofline.model.parallel import Layout
from roofline.model.point import scalar
from roofline.registry import hardware, models
from roofline.registry.hardware import Device
from roofline.registry.measurements import REGISTRY, KernelMeasurement, kernel_measurements
from roofline.registry.models import Model

#: Kernel classes whose efficiency is fitted against a size.
FITTED = ("matmul", "grouped_matmul", "attention_prefill", "attention_decode")
SIZE_WORDS = {"matmul": "M (tokens)", "grouped_matmul": "tokens per expert", "attention_prefill": "prompt length",
              "attention_decode": "KV bytes read per layer", "allreduce_latency": "devices"}
#: The engine whose overhead the expected figure uses where none is named: the one whose overlap
#: scheduler the serving model's steady state resembles (the CPU's work hidden under the GPU's).
DEFAULT_ENGINE = "TensorRT-LLM"
_MATMULS = ("qkv_proj", "o_proj", "gate_up_proj", "up_proj", "down_proj", "shared_gate_up", "shared_down",
            "router", "lm_head", "weights")
_EXPERTS = ("experts_gate_up", "experts_down")
_ATTENTION = ("attention", "attn_qk", "attn_pv")
#: Bytes per operand element: BF16 (2 bytes), FP8 (1 byte), NVFP4 (half a byte plus one FP8 scale per 16 elements);
#: the output is BF16 (2 bytes) in every published matmul row.
_IN_BYTES = {"bf16": 2.0, "fp8": 1.0, "nvfp4": 0.5 + 1.0 / 16}
_OUT_BYTES = 2.0


# ------------------------------------------------------------------------ row efficiency ------
def row_efficiency(row: KernelMeasurement) -> float:
    """A kernel row's efficiency: roofline time on its registry device ÷ the measured time.

    For a matmul the measured time is 2·groups·m·n·k ÷ the measured FLOP/s; its roofline time is
    max(FLOPs ÷ peak, bytes ÷ bandwidth) with the row's operand format in and a BF16 output.

    >>> r = [m for m in kernel_measurements("matmul") if m.m == 64 and m.n == 2112][0]
    >>> round(row_efficiency(r), 3)  # memory-bound: 1,688 GB/s of 3,350 (15.87 MB in 9.41 µs)
    0.504
    """
    d = row.device
    if row.kernel in ("matmul", "grouped_matmul"):
        g, m, n, k = row.groups, row.m, row.n, row.k
        flops = 2.0 * g * m * n * k
        b_in = _IN_BYTES[row.operand_format]
        nbytes = g * (m * k * b_in + n * k * b_in + m * n * _OUT_BYTES)
        roof = max(flops / d.peak_flop_per_s(row.dtype), nbytes / d.memory_bandwidth_bytes_per_s)
        return roof / (flops / row.value)
    if row.kernel == "attention_prefill":
        return row.value / d.peak_flop_per_s(row.dtype)
    if row.kernel == "attention_decode":
        return row.value / d.memory_bandwidth_bytes_per_s
    raise InputError(f"kernel row {row.id}: a {row.kernel} row states a time, not an efficiency")


@dataclass(frozen=True)
class EfficiencyFit:
    """η(size) = intercept + slope · log₁₀(size), sizes clamped to [size_min, size_max], η capped at 1.

    >>> f = EfficiencyFit("matmul", 0.5, 0.1, 10.0, 1000.0, 2)
    >>> f.at(100.0)  # 0.5 + 0.1 · 2
    (0.7, False)
    """

    kernel: str
    intercept: float
    slope: float
    size_min: float
    size_max: float
    rows: int

    def at(self, size):
        """(efficiency, outside): the fitted efficiency at `size` (scalar or array) and whether any
        size fell outside the measured range (there the nearest measured size's efficiency is used)."""
        x = np.asarray(size, float)
        clamped = np.clip(x, self.size_min, self.size_max)
        outside = bool(np.any((x < self.size_min) | (x > self.size_max)))
        eta = np.minimum(self.intercept + self.slope * np.log10(np.maximum(clamped, 1e-300)), 1.0)
        return scalar(eta), outside

    def notice(self) -> str:
        return (f"{self.kernel.replace('_', ' ')}: {SIZE_WORDS[self.kernel]} outside the measured "
                f"{self.size_min:g} to {self.size_max:g}; the efficiency at the nearest measured size is used")


def fit(points: list[tuple[float, float]], kernel: str = "matmul") -> EfficiencyFit:
    """The least-squares line of efficiency against log₁₀(size) through (size, efficiency) points.

    One distinct size: the median efficiency, flat. Efficiencies must lie in (0, 1].

    >>> f = fit([(10, 0.5), (1000, 0.7)])  # two points: the line through them
    >>> round(f.slope, 3), round(f.at(100)[0], 3)
    (0.1, 0.6)
    """
    if not points:
        raise InputError(f"no kernel rows to fit the {kernel} efficiency to")
    for size, eta in points:
        if not (size > 0 and 0 < eta <= 1.0 + 1e-9 and math.isfinite(size)):
            raise InputError(f"{kernel} efficiency row (size {size!r}, efficiency {eta!r}) is out of range: "
                             "sizes must be positive and efficiencies in (0, 1]")
    xs = [math.log10(s) for s, _ in points]
    ys = [e for _, e in points]
    lo, hi = min(s for s, _ in points), max(s for s, _ in points)
    if lo == hi:
        return EfficiencyFit(kernel, statistics.median(ys), 0.0, lo, hi, len(points))
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return EfficiencyFit(kernel, my - slope * mx, slope, lo, hi, len(points))


_FITS: dict[tuple, object] = {}


def forget_fits() -> None:
    """Drop every fit kept (`roofline.memos.forget_all`): the next is fitted afresh, reading its rows."""
    _FITS.clear()


def _fit_efficiency(row: KernelMeasurement) -> float:
    """A row's efficiency as a fit takes it: at most 1. A row faster than its device's roofline means the
    device's spec was edited below what the row measured (a what-if); the kernel then runs at the
    edited roofline, so the expected figure meets the ceiling instead of stopping the build."""
    return min(row_efficiency(row), 1.0)


def _key() -> tuple:
    return (REGISTRY.path(), hardware.REGISTRY.path(), models.REGISTRY.path())


#: Rows and kernels are matched on their compute format: fp4 and nvfp4 alike, fp16 with bf16.
DTYPE_FAMILY = {"nvfp4": "fp4", "mxfp4": "fp4", "fp16": "bf16"}


def _dtype_family(dtype: str) -> str:
    return DTYPE_FAMILY.get(dtype, dtype)


def fits() -> dict[str, EfficiencyFit]:
    """Every fitted kernel class's efficiency function over all its rows (every device and format)."""
    key = ("all", *_key())
    if key not in _FITS:
        _FITS[key] = {k: fit([(r.size, _fit_efficiency(r)) for r in kernel_measurements(k)], k) for k in FITTED}
    return _FITS[key]


def fit_for(kind: str, device_id: str, dtype: str) -> tuple[EfficiencyFit, str]:
    """The efficiency function a kernel of `kind` in `dtype` on `device_id` runs at, and a notice where
    it is not the device's own: the rows of the same device and format where there are any, else those
    of the same format on any device, else every row of the class.

    >>> fit_for("matmul", "h200-sxm", "fp8")[1]  # the H200's own FP8 rows
    ''
    """
    key = (kind, device_id, _dtype_family(dtype), *_key())
    if key not in _FITS:
        rows = kernel_measurements(kind)
        fam = _dtype_family(dtype)
        same_fmt = [r for r in rows if _dtype_family(r.dtype) == fam]
        own = [r for r in same_fmt if r.device_id == device_id]
        chosen, note = (own, "") if own else (same_fmt, f"{kind.replace('_', ' ')}: no {fam} rows measured on "
                                                       f"{device_id}; {fam} rows of other devices used") \
            if same_fmt else (rows, f"{kind.replace('_', ' ')}: no {fam} rows; rows of every format used")
        _FITS[key] = (fit([(r.size, _fit_efficiency(r)) for r in chosen], kind), note)
    return _FITS[key]


def allreduce_latency_fit() -> tuple[float, float, float, float]:
    """(intercept, slope per log₂ device, fewest, most devices) of the one-shot all-reduce latency rows, in seconds."""
    rows = kernel_measurements("allreduce_latency")
    if not rows:
        raise InputError("no allreduce_latency kernel rows in the measurements registry")
    pts = [(math.log2(r.size), r.value) for r in rows]
    lo, hi = min(r.size for r in rows), max(r.size for r in rows)
    if lo == hi:
        return statistics.median(v for _, v in pts), 0.0, lo, hi
    mx, my = statistics.fmean(x for x, _ in pts), statistics.fmean(y for _, y in pts)
    slope = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    return my - slope * mx, slope, lo, hi


def allreduce_latency_s(devices: int) -> float:
    """A one-shot all-reduce's latency over `devices`, from the rows (linear in log₂ devices, clamped).

    >>> round(allreduce_latency_s(4) * 1e6, 2)  # halfway in log₂ between 3.7 µs on 2 and 5.9 µs on 8
    4.8
    """
    a, b, lo, hi = allreduce_latency_fit()
    return a + b * math.log2(min(max(devices, lo), hi))


def engines() -> dict[str, KernelMeasurement]:
    """The engines with a per-step overhead row, {engine: row}."""
    return {r.engine: r for r in kernel_measurements("engine_step")}


def step_overhead_s(engine: str | None = None) -> float:
    """Seconds the engine adds to every step (the CPU's share the GPU waits for), from its row.

    >>> step_overhead_s("vLLM")  # the 4 ms GPU bubble per decode step vLLM's multi-step RFC shows
    0.004
    """
    known = engines()
    name = engine or DEFAULT_ENGINE
    if name not in known:
        raise InputError(f"--engine: no per-step overhead is recorded for {name!r}; known: {', '.join(known)}")
    return known[name].value


# ------------------------------------------------------------------------ the expected step ------
@dataclass(frozen=True)
class ExpectedStep:
    """One engine step at the kernels' published efficiencies: an estimate beside its ceiling.

    `time_s` = pp × (kernels + collectives) + sends + `overhead_s`; `ceiling` is the roofline step
    it was derived from (its `time_s` is never above this one's).
    """

    ceiling: parallel.ParallelStep
    kernel_time_s: object         # one stage's kernels at their efficiencies
    collective_time_s: object     # one stage's collectives, expected
    send_time_s: object
    overhead_s: float
    engine: str
    notices: tuple[str, ...]

    @property
    def time_s(self):
        pp = self.ceiling.layout.pp
        return scalar(pp * (np.asarray(self.kernel_time_s, float) + self.collective_time_s) + self.send_time_s
                      + self.overhead_s)


def _attention_split(work: kernels.MixedWork, layers: int):
    """(decode share of scores, decode share of KV positions, effective prefill length, decode context)."""
    dpos = np.asarray(work.decode_positions, float)
    ppairs = np.asarray(work.prefill_pairs, float)
    ppos = np.asarray(work.prefill_positions, float)
    dtok = np.asarray(work.decode_tokens, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        score_share = np.where(dpos + ppairs > 0, dpos / (dpos + ppairs), 1.0)
        pos_share = np.where(dpos + ppos > 0, dpos / (dpos + ppos), 1.0)
        # the causal length whose pairs per position match the chunk's: n = 2·pairs ÷ positions − 1
        length = np.where(ppos > 0, 2.0 * ppairs / np.where(ppos > 0, ppos, 1.0) - 1.0, 1.0)
        context = np.where(dtok > 0, dpos / (np.where(dtok > 0, dtok, 1.0) * layers), 1.0)
    return score_share, pos_share, np.maximum(length, 1.0), np.maximum(context, 1.0)


def kernel_time_s(op, efficiency):
    """One kernel's expected time: its roofline time ÷ its efficiency (capped at 1, so never below the roofline).

    >>> p = kernels.RooflinePoint("copy", weight_bytes=3.35e6, peak_flop_per_s=1e15, bandwidth_bytes_per_s=3.35e12)
    >>> round(kernel_time_s(p, 0.5) * 1e6, 6)  # 1 µs at the roofline, 2 µs at half of it
    2.0
    """
    return scalar(np.asarray(op.time_s, float) / np.minimum(np.asarray(efficiency, float), 1.0))


_op_time = kernel_time_s


def _attention_time(op, score_share, pos_share, eta_prefill, eta_decode):
    """Attention split into its decode part (memory-bound reads of the cache) and its prefill part,
    each at its roofline and its efficiency: never below the whole kernel's roofline time."""
    f = np.asarray(op.flops, float)
    b = np.asarray(op.bytes, float)
    peak, bw = op.peak_flop_per_s, op.bandwidth_bytes_per_s
    t_dec = np.maximum(f * score_share / peak, b * pos_share / bw)
    t_pre = np.maximum(f * (1 - score_share) / peak, b * (1 - pos_share) / bw)
    return t_dec / eta_decode + t_pre / eta_prefill


def expected_mixed(model: Model, device: Device, work: kernels.MixedWork, formats: Formats | None = None,
                   attention: str = "fused", layout: Layout | None = None, latency="floor",
                   engine: str | None = None, ceiling: parallel.ParallelStep | None = None) -> ExpectedStep:
    """The expected time of one engine step: `parallel.mixed`'s step with every kernel at its
    efficiency and the engine's per-step overhead added once (see the module docstring).

    Same inputs as `parallel.mixed`, plus the engine whose overhead applies (default TensorRT-LLM's)
    and, to save recomputing it, the ceiling's step for the same inputs where the caller has it.

    >>> w = kernels.MixedWork(64, 64 * 32 * 1024, 0, 0, 0, 64, 64, 64 * 32 * 1024)
    >>> e = expected_mixed(get_model("llama-3.1-8b"), get_device("h100-sxm5"), w)
    >>> e.time_s > e.ceiling.time_s
    True
    """
    layout = layout or Layout()
    step = ceiling if ceiling is not None else parallel.mixed(model, device, work, formats, attention, layout, latency)
    notices: list[str] = []
    stage = step.stage
    part = stage.model

    def eta(kind, size, dtype):
        f, note = fit_for(kind, device.id, dtype)
        value, outside = f.at(size)
        if outside:
            notices.append(f.notice())
        if note:
            notices.append(note)
        return value

    tokens = np.asarray(stage.tokens_per_sequence, float)
    mm_dtype = stage.matmul_dtype
    eta_mm = eta("matmul", np.maximum(tokens, 1.0), mm_dtype)
    head = next((op for op in stage.ops if op.name == "lm_head"), None)
    head_rows = (np.asarray(head.act_read_bytes, float) / (part.hidden_size * stage.formats.activation_bytes)
                 if head is not None else tokens)
    eta_head = eta("matmul", np.maximum(head_rows, 1.0), head.compute_dtype if head is not None else mm_dtype)
    score_share, pos_share, length, _ = _attention_split(work, max(model.n_layers, 1))
    has_prefill = bool(np.any(score_share < 1))
    has_decode = bool(np.any(score_share > 0))
    att = next((op for op in stage.ops if op.name in _ATTENTION), None)
    att_dtype = att.compute_dtype if att is not None else "bf16"
    eta_pre = eta("attention_prefill", length, att_dtype) if has_prefill else 1.0
    if has_decode and att is not None:
        # the KV cache one layer's decode attention reads on this device: the kernel's KV bytes (all layers)
        # times the decoding requests' share of the positions, ÷ the layers
        per_layer = np.asarray(att.kv_read_bytes, float) * pos_share / max(att.count, 1)
        eta_dec = eta("attention_decode", np.maximum(per_layer, 1.0), stage.formats.kv)
    else:
        eta_dec = 1.0
    eta_bw = min(measured.bandwidth_derate(), 1.0)
    per_expert = None
    if model.is_moe:
        whole = tokens * layout.ep  # EP: the replica's tokens reach every device's experts
        touched = kernels.experts_touched(model, whole)
        per_expert = np.maximum(whole * model.experts_per_token / np.maximum(touched, 1e-9), 1.0)
        eta_ex = eta("grouped_matmul", per_expert, mm_dtype)
    total = np.asarray(0.0)
    for op in stage.ops:
        if op.name in _EXPERTS:
            t = _op_time(op, eta_ex)
        elif op.name == "lm_head":
            t = _op_time(op, eta_head)
        elif op.name in _MATMULS:
            t = _op_time(op, eta_mm)
        elif op.name in _ATTENTION:
            t = _attention_time(op, score_share, pos_share, eta_pre, eta_dec)
        else:
            t = _op_time(op, eta_bw)
        total = total + t
    link_eta = min(measured.collective_derate(), 1.0) if step.collectives or step.sends else 1.0
    coll = np.asarray(0.0)
    for c in step.collectives:
        coll = coll + _collective_time(c, link_eta)
    sends = _collective_time(step.sends, link_eta) if step.sends is not None else 0.0
    return ExpectedStep(step, scalar(total), scalar(coll), scalar(sends), step_overhead_s(engine),
                        engine or DEFAULT_ENGINE, tuple(dict.fromkeys(notices)))


def _collective_time(c: parallel.CollectivePoint, link_eta: float):
    """A collective at the engines' measured latency (never below the ceiling's) and the measured
    share of link bandwidth."""
    per_run = max(c.latency_per_run_s, allreduce_latency_s(c.devices)) if c.latency_per_run_s > 0 else 0.0
    return c.count * per_run + np.asarray(c.transfer_time_s, float) / link_eta


def expected_time_s(model: Model, device: Device, work: kernels.MixedWork, formats: Formats | None = None,
                    attention: str = "fused", layout: Layout | None = None, latency="floor",
                    engine: str | None = None, ceiling: parallel.ParallelStep | None = None):
    """`expected_mixed(...).time_s`: the expected step time in seconds (scalar or array, as `work`)."""
    return expected_mixed(model, device, work, formats, attention, layout, latency, engine, ceiling).time_s


def describe() -> list[dict]:
    """Every efficiency function with its parameters and rows, for JSON, pages and reports."""
    out = []
    for kind, f in fits().items():
        out.append({"kernel": kind, "size": SIZE_WORDS[kind], "intercept": f.intercept,
                    "slope_per_decade": f.slope, "size_min": f.size_min, "size_max": f.size_max,
                    "efficiency_at_min": f.at(f.size_min)[0], "efficiency_at_max": f.at(f.size_max)[0],
                    "rows": f.rows})
    out.append({"kernel": "elementwise", "size": "none", "efficiency": measured.bandwidth_derate(),
                "rows": len(measured.of_kind("bandwidth"))})
    out.append({"kernel": "collective bytes", "size": "none", "efficiency": measured.collective_derate(),
                "rows": len(measured.of_kind("collective"))})
    return out
