"""The calculator's view of the package: the registry as JSON, custom devices and models, reference outputs.

The site's interactive calculator re-implements the per-kernel model (roofline.model.kernels)
in JavaScript (docs/assets/calculator/kernels.js) and reads its data from `registry_json()`,
written at build time to calculator/registry.json. `calculate()` is the reference the
JavaScript is parity-tested against (tests/unit/calculator_view/test_calculator_parity.py).

>>> calculate(get_device("h100-sxm5"), Model.from_param_count(8e9))["tokens_per_s"]  # 3.35e12 / 16e9
209.375
"""

from __future__ import annotations

import datetime as dt
import inspect
import re
from types import MappingProxyType
from typing import Any

from roofline.configs import reader_config_json
from roofline.errors import InputError
from roofline.examples import example
from roofline.registry.hardware import GIGA, SIXTEEN_BIT, TERA, Device, devices, get_device
from roofline.model import kernels, parallel
from roofline.model import record as step_record
from roofline.model.dtypes import BYTES_PER_ELEMENT
from roofline.model import serving as _serving
from roofline.model.formats import Formats
from roofline.registry.models import Model, get_model, models
from roofline.registry.specfile import PLAUSIBLE

SCHEMA_VERSION = 1

#: What the calculator accepts in each field: (lowest, highest, whole numbers only, lowest allowed itself).
#: Batch and lengths share the package's MAX_SIZE; device and model limits sit far past any real part,
#: so only a typo trips them.
LIMITS = MappingProxyType({
    "batch": (1, kernels.MAX_SIZE, True, True),
    "context_len": (1, kernels.MAX_SIZE, True, True),  # a decode step attends to at least one cached token
    "prompt_len": (1, kernels.MAX_SIZE, True, True),
    # The registry's plausible ranges (registry.specfile.PLAUSIBLE): a denormal peak or a googol of
    # bandwidth gets the same inline sentence as any other bad value, never a page error.
    "peak_TFLOP_per_s": (*PLAUSIBLE["dense_peak_TFLOP_per_s"][:2], False, True),
    "bandwidth_TB_per_s": (*PLAUSIBLE["memory_bandwidth_TB_per_s"][:2], False, True),
    "memory_GB": (*PLAUSIBLE["memory_capacity_GB"][:2], False, True),
    "params_billions": (*PLAUSIBLE["published_params_B"][:2], False, True),  # get_model: 1e3 to 1e15 parameters
    "degree": (1, parallel.MAX_DEGREE, True, True),  # --tp, --pp, --ep and --devices
    "collective_latency_us": (0, parallel.MAX_LATENCY_S * 1e6, False, True),  # --collective-latency-us
    # Serving mode: roofline serve's options, with serving.py's bounds
    "input_tokens": (1, _serving.MAX_TOKENS, True, True),
    "output_tokens": (2, _serving.MAX_TOKENS, True, True),  # TPOT needs a second token
    "concurrency": (1, _serving.MAX_CONCURRENCY, True, True),
    "chunk_tokens": (1, _serving.MAX_TOKENS, True, True),
    "target_ms": (0, 1e9, False, False),  # --ttft-ms, --tpot-ms: positive
    "usd_per_device_hour": (_serving.MIN_USD_PER_DEVICE_HOUR, _serving.MAX_USD_PER_DEVICE_HOUR, False, True),  # a cent to $1,000
    "draft_tokens": (1, _serving.MAX_DRAFT_TOKENS, True, True),    # --draft-tokens
    "acceptance": (0, 1, False, False),                            # --acceptance: (0, 1]
    "draft_cost": (0, 1, False, True),                             # --draft-cost: [0, 1]
    "kv_block_tokens": (1, 4096, True, True),                      # --kv-block-tokens
})

#: Base-unit multipliers for the calculator's custom fields (vendor units in, SI base units out).
FIELD_SCALES = MappingProxyType({"peak_TFLOP_per_s": TERA, "bandwidth_TB_per_s": TERA, "memory_GB": GIGA,
                          "params_billions": GIGA, "collective_latency_us": 1e-6, "target_ms": 1e-3})


# ------------------------------------------------------------------ custom entries ---------
def custom_device(peak_flop_per_s: float, bandwidth_bytes_per_s: float, capacity_bytes: float) -> Device:
    """A device from three numbers: a dense 16-bit peak, a memory bandwidth and a capacity.

    >>> custom_device(989.4e12, 3.35e12, 80e9).peak_flop_per_s("fp8")  # only a 16-bit peak
    Traceback (most recent call last):
    roofline.errors.InputError: custom has no published dense fp8 peak; it has bf16
    """
    for name, value in (("peak FLOP/s", peak_flop_per_s), ("memory bandwidth", bandwidth_bytes_per_s),
                        ("memory capacity", capacity_bytes)):
        if not (isinstance(value, (int, float)) and 0 < value < float("inf")):
            raise InputError(f"custom device: {name} must be a positive number, got {value!r}")
    return Device(id="custom", name="custom device", vendor="", kind="custom", memory_type="",
                  memory_capacity_bytes=float(capacity_bytes),
                  memory_bandwidth_bytes_per_s=float(bandwidth_bytes_per_s),
                  dense_peak_flop_per_s=MappingProxyType({"bf16": float(peak_flop_per_s)}),
                  source_url="", source_title="", note="entered by the reader", confidence="",
                  checked=dt.date.min)


def custom_model(params: float) -> Model:
    """A bare parameter count: one dense block of weights, no attention and no KV cache (the
    back-of-envelope model). A real architecture comes in through a config.json instead.

    >>> custom_model(8e9).bare_params
    8000000000.0
    """
    return get_model(repr(float(params)))  # the package's own check of a bare parameter count


# ------------------------------------------------------------------ reference outputs ------
#: Weight formats the calculator offers (each parsed by roofline.model.formats): the 16-bit floats,
#: fp8, per-channel int8 and the group-wise GPTQ/AWQ layouts.
WEIGHT_FORMATS = ("bf16", "fp16", "fp32", "fp8", "fp8-b128", "int8", "int8-g128", "int4-g128", "int4-g64", "int4-g32",
                  "mxfp4", "nvfp4")


#: The step record's keys the calculator shows (`record.step_record`: one name per quantity), and
#: the keys of each row of its kernel table; `calculate` adds what only the calculator shows.
STEP_KEYS = ("phase", "compute_dtype", "weight_format", "weight_scope", "peak_flop_per_s", "bandwidth_bytes_per_s",
             "ridge_point", "memory_capacity_bytes", "usable_memory_bytes", "devices", "layout", "flops", "bytes",
             "weight_bytes", "kv_bytes", "activation_bytes", "arithmetic_intensity", "bound", "time_s",
             "time_perfect_overlap_s", "compute_time_s", "memory_time_s", "collective_time_s",
             "tokens_per_s_per_sequence", "tokens_per_s", "tokens_per_s_per_device", "kv_resident_bytes",
             "weights_resident_bytes", "memory_required_bytes", "fits", "collective_latency", "link_bytes",
             "link_intensity", "link_ridge_point", "bubble_fraction", "kv_note")
OP_KEYS = ("name", "count", "flops", "bytes", "arithmetic_intensity", "ridge_point", "bound", "time_s", "compute_dtype")


def length_limit_message(model: Model, phase: str, length) -> str:
    """The calculator's sentence for a context or prompt past the model's maximum (the CLI's refusal,
    without its option), or ''. The page shows it beside the context or prompt field.

    >>> length_limit_message(get_model("llama-2-7b"), "decode", 100000)
    'Context length must be at most 4,096 tokens for Llama 2 7B (its max_position_embeddings).'
    """
    limit = model.max_context_tokens
    if not limit or length <= limit:
        return ""
    field = "Context length" if phase == "decode" else "Prompt length"
    return f"{field} must be at most {limit:,} tokens for {model.name} (its max_position_embeddings)."


def calculate(device: Device, model: Model, phase: str = "decode", batch=1, length=1,
              weight_format: str = "bf16", kv_dtype: str = "bf16", activation: str = "bf16",
              attention: str = "fused", tp: int = 1, pp: int = 1, ep: int = 1, latency="floor",
              weight_scope: str = "linear", nodes=None) -> dict[str, Any]:
    """Every output the calculator shows, from the per-kernel model (roofline.model.kernels, and
    roofline.model.parallel for a layout over several devices): the reference
    docs/assets/calculator/kernels.js is parity-tested against.

    `length` is the context already cached (decode, at least 1) or the prompt length (prefill).
    The step's time is the sum of its kernels' times (and collectives'); `time_perfect_overlap_s`
    is the lower bound. FLOPs, bytes and memory are one device's. Throughputs are kept even when
    the configuration does not fit; the page hides them. `latency` is each collective's: the link's
    floor (a ceiling), "ring" (NCCL's, the expected figure) or seconds; `expected_tokens_per_s_per_sequence`
    is the same step at the ring's latency, beside it. `nodes`, as `roofline decode --nodes`: with no layout
    given, the layout the field runs on that many machines (parallel.node_layout); with one, a check that it
    fills them. `network_time_s` is the time the scale-out network carries its bytes in one step (each
    collective's network bytes over the network's bandwidth) and `network_share` that time over the step's.
    """
    f = Formats.of(weight_format, activation, kv_dtype, scope=weight_scope)
    layout = parallel.Layout(tp=tp, pp=pp, ep=ep)
    if nodes is not None:
        if layout.is_single:
            layout = parallel.node_layout(model, device, nodes)
        else:
            parallel.check_nodes(layout, device, nodes)
    latency = parallel.check_latency(latency)
    if phase not in ("decode", "prefill"):
        raise InputError(f"phase must be 'decode' or 'prefill', got {phase!r}")
    run = parallel.decode if phase == "decode" else (lambda m, d, b, n, *a: parallel.prefill(m, d, n, b, *a))
    step = run(model, device, batch, length, f, attention, layout, latency)
    expected = run(model, device, batch, length, f, attention, layout, parallel.LATENCY_RING) if step.collectives else None
    beyond = length_limit_message(model, phase, length)
    if beyond:  # after the step, so a refused format or layout speaks first, as in view.js
        raise InputError(beyond)
    rec = step_record.step_record(step)
    mb = None if model.is_bare else parallel.max_batch_that_fits(model, device, length, f, attention, layout)
    return {
        **{k: rec[k] for k in STEP_KEYS},
        "ops": [{k: op[k] for k in OP_KEYS} for op in rec["ops"]],
        "total_params": model.total_params,
        "time_to_first_token_s": rec["time_s"] if phase == "prefill" else None,
        "attained_flop_per_s": rec["attained_flop_per_s"],
        "tokens_per_s_perfect_overlap": float(step.batch * step.stage.tokens_per_sequence
                                              / step.time_perfect_overlap_s),
        "critical_batch": kernels.critical_batch(model, device, f),
        "max_batch_that_fits": None if mb is None else float(mb),
        "attention_intensity": None if model.is_bare else kernels.attention_intensity_limit(model, f),
        "speed_of_light_tokens_per_s": parallel.speed_of_light_tokens_per_s(model, device, f, layout),
        "expected_tokens_per_s_per_sequence": None if expected is None else float(expected.tokens_per_s_per_sequence),
        "network_bytes": float(step.network_bytes), "network_time_s": float(step.network_time_s),
        "network_share": float(step.network_share),
    }


# ------------------------------------------------------------------ registry export --------
def _interconnect_record(d: Device) -> dict[str, Any] | None:
    ic = d.interconnect
    if ic is None:
        return None
    return {"link": ic.link, "bandwidth_bytes_per_s_per_direction": ic.bandwidth_bytes_per_s_per_direction,
            "domain_devices": ic.domain_devices, "latency_base_s": ic.latency_base_s,
            "latency_per_step_s": ic.latency_per_step_s, "latency_floor_s": ic.latency_floor_s,
            "latency_floor_source_url": ic.latency_floor_source_url, "latency_source_url": ic.latency_source_url}


def _device_record(d: Device) -> dict[str, Any]:
    net = d.network
    return {"interconnect": _interconnect_record(d), "interconnect_note": d.interconnect_note,
            # the scale-out network between nodes (layouts across scale-up domains), or why there is none
            "network": None if net is None else {
                "link": net.link, "bandwidth_bytes_per_s_per_direction": net.bandwidth_bytes_per_s_per_direction,
                "latency_floor_s": net.latency_floor_s, "node_devices": net.node_devices},
            "network_note": d.network_note, "id": d.id, "name": d.name, "vendor": d.vendor, "kind": d.kind, "memory_type": d.memory_type,
            "memory_capacity_bytes": d.memory_capacity_bytes, "capacity_unit": d.capacity_unit,
            "usable_memory_bytes": d.usable_memory_bytes,
            "memory_bandwidth_bytes_per_s": d.memory_bandwidth_bytes_per_s,
            "dense_peak_flop_per_s": dict(d.dense_peak_flop_per_s), "source_url": d.source_url,
            "source_title": d.source_title}


# Architecture fields beyond Llama's shape; calc.js reads each (absent = 0/false, as in Model).
MODEL_ARCH_FIELDS = ("moe_ffn_size", "n_shared_experts", "n_dense_layers", "kv_lora_rank", "q_lora_rank",
                     "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "sliding_window", "n_window_layers",
                     "qkv_bias", "o_bias", "mlp_bias", "attention_sinks")


# The checkpoint's stored format (formats.choose_weight_format reads them; kernels.js mirrors it).
CHECKPOINT_FIELDS = ("weight_format", "weight_group_size", "weight_scope", "weight_format_origin")


def _model_record(m: Model) -> dict[str, Any]:
    fields = ("id", "name", "n_layers", "hidden_size", "n_heads", "kv_heads", "head_dim", "ffn_size", "gated_ffn",
              "vocab_size", "tied_embeddings", "n_experts", "experts_per_token", "bare_params", "source_url",
              "source_title", "max_context_tokens", *MODEL_ARCH_FIELDS, *CHECKPOINT_FIELDS)
    return {f: getattr(m, f) for f in fields}


def _kernel_constants() -> dict[str, Any]:
    """The per-kernel model's constants, named once in roofline.model.kernels and formats."""
    from roofline.model import formats as F
    from roofline.model import kernels as K

    return {"softmax_flops_per_score": K.SOFTMAX_FLOPS_PER_SCORE, "norm_flops_per_element": K.NORM_FLOPS_PER_ELEMENT,
            "gated_act_flops_per_element": K.GATED_ACT_FLOPS_PER_ELEMENT, "norm_weight_bytes": K.NORM_WEIGHT_BYTES,
            "runtime_reserve_bytes": K.RUNTIME_RESERVE_BYTES, "max_size": K.MAX_SIZE,
            "scale_bytes": F.SCALE_BYTES, "default_group_size": F.DEFAULT_GROUP_SIZE,
            "mx_block_size": F.MX_BLOCK_SIZE, "mx_scale_bytes": F.MX_SCALE_BYTES, "kv_dtypes": list(F.KV_DTYPES),
            "nvfp4_block_size": F.NVFP4_BLOCK_SIZE, "nvfp4_scale_bytes": F.NVFP4_SCALE_BYTES,
            "fp8_block_scale_bytes": F.FP8_BLOCK_SCALE_BYTES,
            "weight_scopes": {k: list(v) for k, v in F.WEIGHT_SCOPES.items()}, "scope_words": dict(F.SCOPE_WORDS),
            "weight_sources": {"explicit": F.SOURCE_EXPLICIT, "config": F.SOURCE_CONFIG, "registry": F.SOURCE_REGISTRY,
                               "sixteen": F.SOURCE_SIXTEEN, "bare": F.SOURCE_BARE},
            "bare_per_channel_note": F.BARE_PER_CHANNEL_NOTE,
            "element_bytes": dict(BYTES_PER_ELEMENT), "activation_dtypes": list(F.ACTIVATION_DTYPES),
            "attention_variants": list(K.ATTENTION_VARIANTS), "critical_batch_max": 1 << 20,
            "collective_latency_bound": parallel.COLLECTIVE_LATENCY_BOUND,
            "link_bandwidth_bound": parallel.LINK_BANDWIDTH_BOUND, "latency_bound": parallel.LATENCY_BOUND,
            "link_bound": parallel.LINK_BOUND, "max_degree": parallel.MAX_DEGREE,
            # an EP all-to-all across nodes, expected: each link at DeepEP's measured share of its spec
            "ep_efficiency": list(parallel.ep_expected_efficiency()),
            "latency_choices": list(parallel.LATENCY_CHOICES), "max_latency_s": parallel.MAX_LATENCY_S,
            "max_batch_limit": inspect.signature(parallel.max_batch_that_fits).parameters["limit"].default}


def _serving_constants() -> dict[str, Any]:
    """The service model's constants and what its expected figure reads (serving.js and expected.js read them)."""
    from roofline.model import engines, measured
    from roofline.model import serving as S

    return {"default_chunk_tokens": S.DEFAULT_CHUNK_TOKENS, "max_tokens": S.MAX_TOKENS,
            "max_concurrency": S.MAX_CONCURRENCY, "max_usd_per_device_hour": S.MAX_USD_PER_DEVICE_HOUR,
            "max_chunks_per_prompt": S.MAX_CHUNKS_PER_PROMPT, "percentiles": list(S.PERCENTILES),
            "default_percentile": S.DEFAULT_PERCENTILE, "bounds": list(S.BOUNDS),
            "schedule_limits": list(S.SCHEDULE_LIMITS), "relax": S.RELAX, "min_gain": S.MIN_GAIN,
            "bind_margin": S.BIND_MARGIN,
            "speculation": {k: list(v) for k, v in S.SPECULATION.items()}, "max_draft_tokens": S.MAX_DRAFT_TOKENS,
            # each engine's current defaults (engines.SERVE): [name, requests in flight at most, KV block, source,
            # URL, KV fraction, KV rule, [[least TP degree, fraction], ...], chunk]; the expected figure's default
            "engines": {k: [e.engine, e.max_requests, e.kv_block_tokens, e.source, e.url, e.kv_fraction, e.kv_rule,
                            [list(x) for x in e.fraction_by_tp], e.chunk_tokens] for k, e in S.ENGINES.items()},
            "default_engine": engines.DEFAULT_SERVE, "kv_memory": list(S.KV_MEMORY),
            "bound_meaning": dict(S.BOUND_MEANING), "derate_misses": S.DERATE_MISSES,
            # the expected figure's shares of spec bandwidth: elementwise kernels' and the links'
            "derates": {"bandwidth": measured.bandwidth_derate(), "collective": measured.collective_derate()},
            "expected": _expected_constants(),
            # the device comparison's default charge per device (compare_ui.js)
            "prices": _price_records()}


def _efficiency_line(f) -> list[float]:
    """An efficiency function as [intercept, slope per decade, fewest, most measured size] (expected.js reads it)."""
    return [f.intercept, f.slope, f.size_min, f.size_max]


def _expected_constants() -> dict[str, Any]:
    """What the expected figure reads (roofline.model.efficiency), for expected.js: each fitted kernel class's
    efficiency functions in efficiency.fit_for's order (a device's own rows of a format, that format's rows on
    any device, every row of the class), the compute formats rows are matched on, the elementwise and link
    shares, the one-shot all-reduce latency line and each engine's per-step overhead."""
    from roofline.model import efficiency as E
    from roofline.model import serving as S
    from roofline.registry.measurements import kernel_measurements

    fits: dict[str, Any] = {}
    for kind in E.FITTED:
        rows = kernel_measurements(kind)
        pairs = sorted({(r.device_id, E.DTYPE_FAMILY.get(r.dtype, r.dtype)) for r in rows})
        own: dict[str, dict[str, list[float]]] = {}
        for dev, fam in pairs:
            own.setdefault(dev, {})[fam] = _efficiency_line(E.fit_for(kind, dev, fam)[0])
        families = sorted({fam for _, fam in pairs})
        # no device is named "": fit_for falls back to the format's rows of every device
        fits[kind] = {"device": own, "format": {fam: _efficiency_line(E.fit_for(kind, "", fam)[0]) for fam in families},
                      "all": _efficiency_line(E.fits()[kind])}
    # the engine whose overhead row each choice of engine's defaults takes ("": none chosen)
    engine_of = {key: S.expected_engine(S.Workload(1, 2, engine=key or None)) for key in ("", *S.ENGINES)}
    return {"fits": fits,
            "dtype_family": dict(E.DTYPE_FAMILY),
            "allreduce_latency": list(E.allreduce_latency_fit()),
            "engine": engine_of, "step_overhead_s": {name: E.step_overhead_s(name) for name in sorted(set(engine_of.values()))}}


def _serving_workload(input_tokens, output_tokens, weight_format, kv_dtype, activation, attention, chunk_tokens,
                      max_concurrency, usd_per_device_hour, collective_latency, weight_scope, speculation, draft_tokens,
                      acceptance, draft_cost, engine, kv_memory, kv_block_tokens):
    """The Serving mode's workload (serving.Workload) from its fields, shared by `serving` and `compare_setup`."""
    from roofline.model import serving as S

    return S.Workload(input_tokens, output_tokens, None, max_concurrency, chunk_tokens,
                      Formats.of(weight_format, activation, kv_dtype, scope=weight_scope), attention,
                      usd_per_device_hour, collective_latency, speculation=speculation, draft_tokens=draft_tokens,
                      acceptance=acceptance, draft_cost=draft_cost, engine=engine, kv_memory=kv_memory,
                      kv_block_tokens=kv_block_tokens)


def serving(device: Device, model: Model, input_tokens, output_tokens, weight_format: str = "bf16",
            kv_dtype: str = "bf16", activation: str = "bf16", attention: str = "fused", chunk_tokens=None,
            max_concurrency=None, usd_per_device_hour=None, ttft_s=None, tpot_s=None, concurrency=None,
            tp: int = 1, pp: int = 1, ep: int = 1, dp: int = 1, collective_latency="floor",
            weight_scope: str = "linear", layouts: str = "all", ttft_percentile: str | None = None,
            tpot_percentile: str | None = None, disaggregated: bool = False, speculation: str | None = None,
            draft_tokens=None, acceptance=None, draft_cost=None, engine: str | None = None, kv_memory: str = "reserve",
            kv_block_tokens=None) -> dict[str, Any]:
    """The calculator's Serving mode from roofline.model.serving: every frontier point (over every layout
    within one scale-up domain, or with `layouts="set"` only the layout tp × pp × ep × dp, as the CLI holds
    an explicit layout), the envelope marked, the best point under the targets or the sentence saying none
    meets them (TTFT and TPOT judged at their percentiles, p99 unless told), and with `concurrency` the
    point the reader chose on that layout; with `disaggregated`, prefill and decode on separate pools drawn
    from the same layouts, their envelope marked. The reference
    docs/assets/calculator/serving.js is parity-tested against."""
    from dataclasses import replace

    from roofline.model import serving as S

    if layouts not in ("all", "set"):
        raise InputError(f"layouts must be all or set, got {layouts!r}")
    wl = _serving_workload(input_tokens, output_tokens, weight_format, kv_dtype, activation, attention, chunk_tokens,
                           max_concurrency, usd_per_device_hour, collective_latency, weight_scope, speculation,
                           draft_tokens, acceptance, draft_cost, engine, kv_memory, kv_block_tokens)
    lay = parallel.Layout(tp, pp, ep, dp)
    pts = S.frontier(model, device, wl, layouts=[lay] if layouts == "set" else None)
    env = {id(p) for p in S.pareto(pts)}

    record = step_record.service_record

    best = refusal = None
    if ttft_s is not None or tpot_s is not None:
        b = S.best_under_targets(pts, ttft_s, tpot_s, ttft_percentile=ttft_percentile or S.DEFAULT_PERCENTILE,
                                 tpot_percentile=tpot_percentile or S.DEFAULT_PERCENTILE)
        if isinstance(b, str):
            # one layout searched: the sentence names it, not every layout within its devices
            refusal = re.sub(r"at any layout within \d+ devices?", f"on {lay.name}", b) if layouts == "set" else b
        else:
            best = record(b)
    point = None
    if concurrency is not None:
        point = record(S.serve_point(model, device, lay, replace(wl, concurrency=concurrency)))
    dis = None
    if disaggregated:
        d = S.disaggregated(model, device, wl, layouts=[lay] if layouts == "set" else None)
        on_dis = {id(p) for p in S.pareto(d)}
        dis = [{**step_record.disaggregated_record(p), "on_envelope": id(p) in on_dis} for p in d]
    return {"frontier": [{**record(p), "on_envelope": id(p) in env} for p in pts], "best": best, "refusal": refusal,
            "point": point, "disaggregated": dis}


def compare_setup(device: Device, model: Model, input_tokens, output_tokens, weight_format: str = "bf16",
                  kv_dtype: str = "bf16", activation: str = "bf16", attention: str = "fused", chunk_tokens=None,
                  max_concurrency=None, ttft_s=None, tpot_s=None, max_devices=None, usd_per_device_hour=None,
                  collective_latency="floor", weight_scope: str = "linear", speculation: str | None = None,
                  draft_tokens=None, acceptance=None, draft_cost=None, engine: str | None = None,
                  kv_memory: str = "reserve", kv_block_tokens=None) -> dict[str, Any]:
    """One setup of the Serving mode's device comparison, as `roofline compare` answers for one device
    (model.compare.compare): its best point under the targets at the ceiling and at the expected figure
    (or the sentence saying which target nothing meets), over every layout within one scale-up domain or
    `max_devices`, the price charged (the reader's, else the registry's on-demand price) and $ per million
    output tokens at both. docs/assets/calculator/compare.js is parity-tested against it."""
    from roofline.model import compare as CMP

    wl = _serving_workload(input_tokens, output_tokens, weight_format, kv_dtype, activation, attention, chunk_tokens,
                           max_concurrency, None, collective_latency, weight_scope, speculation, draft_tokens,
                           acceptance, draft_cost, engine, kv_memory, kv_block_tokens)
    prices = None if usd_per_device_hour is None else {device.id: usd_per_device_hour}
    [c] = CMP.compare(model, [device], wl, ttft_s, tpot_s, max_devices, prices)
    record = step_record.service_record
    return {"hardware": device.id,
            "ceiling": None if c.ceiling is None else record(c.ceiling),
            "expected": None if c.expected is None else record(c.expected),
            "unmet_ceiling": c.unmet_ceiling or None, "unmet_expected": c.unmet_expected or None,
            "usd_per_device_hour": c.usd_per_device_hour, "price_id": None if c.price is None else c.price.id,
            "usd_per_million_output_tokens_ceiling": c.usd_per_million("ceiling"),
            "usd_per_million_output_tokens_expected": c.usd_per_million("expected")}


def compare_break_even(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float | None]:
    """The break-even price ratio (A's price ÷ B's at which both cost the same per token) of two
    `compare_setup` answers, at the ceiling and at the expected figure; None where either misses the targets."""
    from roofline.model.compare import break_even_price_ratio

    return {which: None if a[which] is None or b[which] is None else break_even_price_ratio(
        a[which]["output_tokens_per_s_per_device"], b[which]["output_tokens_per_s_per_device"])
        for which in ("ceiling", "expected")}


def _price_records() -> dict[str, dict[str, Any]]:
    """Each device's default price (registry.prices.default_price, on-demand): what the comparison charges
    where the reader gives none, with its provider and the month it was read."""
    from roofline.registry.prices import default_price

    out = {}
    for d in devices().values():
        p = default_price(d.id, "on-demand")
        if p is not None:
            out[d.id] = {"id": p.id, "usd_per_device_hour": p.usd_per_device_hour, "provider": p.provider,
                         "kind": p.kind, "date_read": p.date_read, "source_url": p.source_url}
    return out


# What the calculator's scripts never read (the page names a device's and model's sources elsewhere):
# left out of registry.json, which every reader of the calculator downloads, so every byte here is page weight. A device's
# interconnect note is read only where it has no link (parallel.js says why a layout is refused).
_DEVICE_UNREAD = ("memory_type", "capacity_unit", "source_url", "source_title")
_INTERCONNECT_UNREAD = ("latency_floor_source_url", "latency_source_url")
_MODEL_UNREAD = ("source_url", "source_title")


def _read_by_calculator(record: dict[str, Any], unread: tuple[str, ...]) -> dict[str, Any]:
    """`record` without the fields in `unread`, and without a device's interconnect sources or its
    interconnect note where it has a link."""
    out = {k: v for k, v in record.items() if k not in unread}
    if out.get("interconnect"):
        out["interconnect"] = {k: v for k, v in out["interconnect"].items() if k not in _INTERCONNECT_UNREAD}
        out.pop("interconnect_note", None)
    return out


def registry_json() -> dict[str, Any]:
    """The registry and the constants the calculator needs, as one JSON-ready dict (base SI units)."""
    from roofline.model import formats as F
    return {
        "schema": SCHEMA_VERSION,
        "constants": {
            "sixteen_bit": list(SIXTEEN_BIT),
            "max_size": kernels.MAX_SIZE,
            "compute_bound": kernels.COMPUTE_BOUND,
            "memory_bound": kernels.MEMORY_BOUND,
            "weight_formats": list(WEIGHT_FORMATS),
            "checkpoint_format": F.CHECKPOINT,  # the select's first choice: the checkpoint's own format
            # why a custom device refuses TP/PP/EP: the package's own sentence for a device with no link
            "custom_interconnect_note": custom_device(1.0, 1.0, 1.0).interconnect_note,
            "kernels": _kernel_constants(),
            "serving": _serving_constants(),
        },
        "limits": {k: {"min": lo, "max": hi, "integer": whole, "min_inclusive": incl}
                   for k, (lo, hi, whole, incl) in LIMITS.items()},
        "units": dict(FIELD_SCALES),
        "defaults": {
            "hardware": "h100-sxm5", "model": "llama-3.1-8b", "phase": "decode", "batch": 1,
            "context_len": example("medium_context"), "prompt_len": example("prompt_len"),
            "weight_format": F.CHECKPOINT, "kv_dtype": "bf16", "activation": "bf16", "attention": "fused",
            "collective_latency": "floor", "params": example("bare_params"),
            "compare_batch": example("batch_mid"),
            # the Serving mode starts at the Serving page's workload (docs/serving.md)
            "input_tokens": example("serve_input"), "output_tokens": example("serve_output"),
            # the device comparison's two setups start at the Serving page's buyer's question
            "compare_hardware": ["h200-sxm", "b200"],
        },
        "devices": [_read_by_calculator(_device_record(d), _DEVICE_UNREAD) for d in devices().values()],
        "models": [_read_by_calculator(_model_record(m), _MODEL_UNREAD) for m in models().values()],
        "config_reader": reader_config_json(),
    }


# What only the scripts loaded on demand read, kept out of every page's download: the config.json reader's tables (config.js) and
# the Serving mode's constants and fields (serving.js, serve_ui.js, serve_state.js). They travel in a second file, fetched with those
# scripts; the step mode, which every reader of the calculator downloads, gets the rest. It checks a link's
# model against checkpoint_kinds and weight_scopes (model_link.js) and a chosen file against max_bytes
# before the reader's script arrives, so those stay in the first file.
_STEP_READER_KEYS = ("checkpoint_kinds", "weight_scopes", "max_bytes", "shape_max")
# The Serving mode's own fields' limits, units and starting values (serve_state.js reads them).
_SERVING_ONLY = {"limits": ("input_tokens", "output_tokens", "concurrency", "chunk_tokens", "target_ms",
                            "usd_per_device_hour", "draft_tokens", "acceptance", "draft_cost", "kv_block_tokens"),
                 "units": ("target_ms",), "defaults": ("input_tokens", "output_tokens", "compare_hardware")}


def split_registry(full: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """`full` (registry_json()) as (what the step mode reads, what only the on-demand scripts read): two
    dicts that config.js's completeRegistry merges back, one level deep, into `full`.

    >>> step, later = split_registry(registry_json())
    >>> "serving" in step["constants"], "families" in step["config_reader"], "target_ms" in step["limits"], sorted(later)
    (False, False, False, ['config_reader', 'constants', 'defaults', 'limits', 'units'])
    """
    reader = full["config_reader"]
    step = {**full, "constants": {k: v for k, v in full["constants"].items() if k != "serving"},
            "config_reader": {k: v for k, v in reader.items() if k in _STEP_READER_KEYS}}
    later = {"constants": {"serving": full["constants"]["serving"]},
             "config_reader": {k: v for k, v in reader.items() if k not in _STEP_READER_KEYS}}
    for part, keys in _SERVING_ONLY.items():
        step[part] = {k: v for k, v in full[part].items() if k not in keys}
        later[part] = {k: full[part][k] for k in keys}
    return step, later


__all__ = ["LIMITS", "FIELD_SCALES", "WEIGHT_FORMATS", "calculate", "custom_device", "custom_model", "registry_json", "serving", "compare_setup",
           "compare_break_even", "split_registry",
           "get_device", "get_model"]
