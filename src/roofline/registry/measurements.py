"""Published measurements (data/measurements.toml) and their gap to the speed of light.

Three kinds, each compared with a number the package computes from the registry:

* bandwidth: measured GB/s ÷ the device's spec memory bandwidth
* gemm:      measured large-GEMM TFLOP/s ÷ the device's dense peak at that dtype
* decode:    measured batch-1 tokens/s ÷ the speed of light for that model, device and dtype
             (bandwidth ÷ the weight bytes a step reads; `kernels.speed_of_light_tokens_per_s`)
* collective: measured NCCL bus bandwidth (ring) ÷ the device's scale-up link bandwidth per direction
* parallel_decode: measured batch-1 tokens/s on `devices` devices ÷ the tensor-parallel ceiling
             (`parallel.decode` at the run's final context: kernels plus collectives)

A sixth kind, `serving`, is a serving run's output tokens/s at fixed input and output lengths
(`ServingMeasurement`). It is read by `serving_measurements()`, not `published()`: its ceiling is
the serving model's, for the run's own model, devices, layout, formats and concurrency.

The *derated* bandwidth is the spec bandwidth times the median share of spec bandwidth
that the published bandwidth measurements reached (`bandwidth_derate`): what a
well-tuned kernel can expect, computed from sourced data rather than assumed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from roofline.errors import SpecError
from roofline.model.dtypes import PEAK_DTYPES, STORAGE_DTYPES
from roofline.registry import hardware, models
from roofline.registry.hardware import Device, get_device
from roofline.registry.loader import SpecRegistry, load_by_id
from roofline.registry.specfile import lookup
from roofline.registry.models import Model, get_model
from roofline.registry.specfile import Entry

GIGA, TERA = 1e9, 1e12
KINDS = ("bandwidth", "gemm", "decode", "collective", "parallel_decode")
COLLECTIVE_ALGORITHMS = ("ring",)  # the algorithm the link ceiling models (NVLS reduces in the switch)

#: Field with the measured value, its scale to base units, and the base unit, per kind.
VALUE_FIELDS = {
    "bandwidth": ("measured_GB_per_s", GIGA, "B/s"),
    "gemm": ("measured_TFLOP_per_s", TERA, "FLOP/s"),
    "decode": ("measured_tokens_per_s", 1.0, "tokens/s"),
    "collective": ("measured_busbw_GB_per_s", GIGA, "B/s"),
    "parallel_decode": ("measured_tokens_per_s", 1.0, "tokens/s"),
}


class _RunOnRegistry:
    """A published run's registry device and model, looked up from its ids (both record kinds)."""

    @property
    def device(self) -> Device:
        return get_device(self.device_id)

    @property
    def model(self) -> Model:
        return get_model(self.model_id)

    @property
    def model_name(self) -> str:
        """The model as it was run (Llama 3 8B), else the registry model's name ('' with no model)."""
        return self.measured_model or (self.model.name if self.model_id else "")


@dataclass(frozen=True)
class PublishedMeasurement(_RunOnRegistry):
    """One measured figure from a cited source, tied to a registry device (and model)."""

    id: str
    kind: str                 # "bandwidth", "gemm" or "decode"
    device_id: str
    value: float              # base units: B/s, FLOP/s or tokens/s
    unit: str
    what: str
    tool: str                 # a short name for tables and figures: "gpt-fast", "llama.cpp", "MAMF"
    software: str
    date: str
    source_url: str
    source_title: str
    measured_on: str = ""     # the chip it ran on, where that differs from the registry name
    mapping: str = ""         # why the registry device stands in for it
    dtype: str = ""           # gemm: the peak it is compared with; decode: weight dtype
    model_id: str = ""        # decode only
    measured_model: str = ""  # the model it ran, where that differs from the registry model
    shape: str = ""           # gemm only
    devices: int = 1          # collective and parallel_decode: devices the run spanned (TP degree)
    collective: str = ""      # collective only: all-reduce, all-gather, ...
    algorithm: str = ""       # collective only: ring
    message_bytes: float = 0  # collective only: the message size the figure was read at
    context_tokens: int = 0   # parallel_decode: prompt + generated tokens (the run's final context)
    #: parallel_decode: the all-reduce the source says the run used: "latency-optimal" (a one-shot or
    #: symmetric-memory kernel) or "" where the source does not say. Only a latency-optimal run may come
    #: within 10 % of a ceiling taken at the link's latency floor (tests/unit/model/test_measured_parallel.py).
    allreduce: str = ""


def _parse(entry: Entry, kind: str) -> PublishedMeasurement:
    field, scale, unit = VALUE_FIELDS[kind]
    device = entry.registered("device", get_device)
    device_id = entry.text("device")
    dtype, model_id = "", ""
    if kind == "gemm":
        dtype = entry.text("dtype")
        try:
            device.peak_flop_per_s(dtype)
        except Exception as err:
            raise entry.fail("dtype", f"must be a dtype the device has a dense peak for ({err})") from None
    extra = {}
    if kind in ("collective", "parallel_decode"):
        extra["devices"] = int(entry.number("devices", integer=True))
        if device.interconnect is None:
            raise entry.fail("device", f"has no scale-up link in the registry ({device.interconnect_note})")
    if kind == "collective":
        extra["collective"] = entry.text("collective")
        extra["algorithm"] = entry.text("algorithm")
        if extra["algorithm"] not in COLLECTIVE_ALGORITHMS:
            raise entry.fail("algorithm", f"must be one of {', '.join(COLLECTIVE_ALGORITHMS)} (the link ceiling "
                                          f"models a ring), got {extra['algorithm']!r}")
        extra["message_bytes"] = entry.number("message_bytes", integer=True, required=False) or 0
    if kind == "parallel_decode":
        extra["context_tokens"] = int(entry.number("prompt_tokens", integer=True)
                                      + entry.number("generated_tokens", integer=True))
        extra["allreduce"] = entry.text("allreduce", required=False) or ""
        if extra["allreduce"] not in ("", "latency-optimal"):
            raise entry.fail("allreduce", f"must be \"latency-optimal\" where the source says so, or left out; "
                                          f"got {extra['allreduce']!r}")
    if kind in ("decode", "parallel_decode"):
        entry.registered("model", get_model)
        model_id = entry.text("model")
        dtype = entry.text("weight_dtype")
        if dtype not in STORAGE_DTYPES:
            raise entry.fail("weight_dtype", f"must be one of {', '.join(STORAGE_DTYPES)}, got {dtype!r}")
    # Context for readers of the file, checked for type but not used in any number.
    entry.text("quote", required=False)
    for count in ("prompt_tokens", "generated_tokens", "power_limit_W"):
        entry.number(count, required=False, integer=True)
    date = entry.raw.get("date")
    if not isinstance(date, str) or not date[:4].isdigit():
        raise entry.fail("date", f"must be a year or year-month string such as \"2024-05\", got {date!r}")
    return PublishedMeasurement(
        id=entry.text("id"), kind=kind, device_id=device_id, value=entry.number(field) * scale, unit=unit,
        what=entry.text("what"), tool=entry.text("tool"), software=entry.text("software"), date=date,
        source_url=entry.source_url(), source_title=entry.text("source_title"),
        measured_on=entry.text("measured_on", required=False), mapping=entry.text("mapping", required=False),
        dtype=dtype, model_id=model_id, shape=entry.text("shape", required=False),
        measured_model=entry.text("measured_model", required=False), **extra,
    )


def load_measurement_file(path: Path) -> dict[str, "PublishedMeasurement | KernelMeasurement | ServingMeasurement"]:
    """Parse and validate a measurements file once: every kind in KINDS order, then its [[kernel]]
    rows, its [[serving]] runs and its [[cross_node]] results, as {id: entry}; an id is unique across all of them."""
    from roofline.registry.cross_node import parse_cross_node  # published results across nodes

    return load_by_id(path, {**SPEC_TABLES, "cross_node": parse_cross_node})


def load_measurements(path: Path) -> dict[str, PublishedMeasurement]:
    """The published measurements of a measurements file (its serving runs left out), kinds in KINDS order."""
    return {i: m for i, m in load_measurement_file(path).items() if isinstance(m, PublishedMeasurement)}


#: Entries name devices and models: pointing either registry elsewhere rereads this file.
REGISTRY: SpecRegistry = SpecRegistry(
    "ROOFLINE_MEASUREMENTS", "measurements.toml", "measurement", load_measurement_file,
    depends_on=(hardware.REGISTRY, models.REGISTRY))


def published() -> dict[str, PublishedMeasurement]:
    """Every published measurement, in file order by kind."""
    return {i: m for i, m in REGISTRY.entries().items() if isinstance(m, PublishedMeasurement)}


def get_measurement(ident: str) -> PublishedMeasurement:
    """The published measurement with this id, or an error naming the closest ids."""
    return lookup("measurement", ident, published())


def of_kind(kind: str) -> list[PublishedMeasurement]:
    """Published measurements of one kind, in file order."""
    return [m for m in published().values() if m.kind == kind]


# ------------------------------------------------------------------ kernel rows -------------------

#: Kernel classes with rows, and the value field each one states.
KERNEL_CLASSES = {
    "matmul": "measured_TFLOP_per_s",
    "grouped_matmul": "measured_TFLOP_per_s",
    "attention_prefill": "measured_TFLOP_per_s",
    "attention_decode": "measured_GB_per_s",
    "allreduce_latency": "measured_us",
    "engine_step": "measured_us",
}


@dataclass(frozen=True)
class KernelMeasurement:
    """One kernel's published speed at one size: a row the expected model's efficiencies are fitted to.

    `value` is in base units: FLOP/s (matmul, grouped_matmul, attention_prefill), B/s
    (attention_decode) or seconds (allreduce_latency, engine_step). `size` is what the class's
    efficiency varies with: M (matmul), M per group (grouped_matmul), sequence length, cached
    context, devices, or 1 (engine_step).
    """

    id: str
    kernel: str
    library: str
    software: str
    device_id: str
    value: float
    size: float
    what: str
    date: str
    source_url: str
    source_title: str
    dtype: str = ""
    m: int = 0
    n: int = 0
    k: int = 0
    groups: int = 1
    operand_format: str = "fp8"   # matmul rows: the operands' storage ("bf16", "fp8", or "nvfp4": 4 bits plus a scale per 16)
    shape: str = ""
    engine: str = ""
    measured_on: str = ""
    mapping: str = ""
    quote: str = ""

    @property
    def device(self) -> Device:
        return get_device(self.device_id)


def _parse_kernel(entry: Entry) -> KernelMeasurement:
    kernel = entry.text("kernel")
    if kernel not in KERNEL_CLASSES:
        raise entry.fail("kernel", f"must be one of {', '.join(KERNEL_CLASSES)}, got {kernel!r}")
    device = entry.registered("device", get_device)
    device_id = entry.text("device")
    field = KERNEL_CLASSES[kernel]
    raw = entry.number(field, allow_zero=kernel == "engine_step")
    value = raw * {"measured_TFLOP_per_s": TERA, "measured_GB_per_s": GIGA, "measured_us": 1e-6}[field]
    dims = {}
    if kernel in ("matmul", "grouped_matmul"):
        dims = {d: int(entry.number(d, integer=True)) for d in ("m", "n", "k", "groups")}
        size = float(dims["m"])
        dims["operand_format"] = entry.text("operand_format", required=False) or "fp8"
        if dims["operand_format"] not in ("bf16", "fp8", "nvfp4"):
            raise entry.fail("operand_format", f"must be bf16, fp8 or nvfp4, got {dims['operand_format']!r}")
    else:
        size = float(entry.number("size"))
    dtype = entry.text("dtype", required=kernel not in ("allreduce_latency", "engine_step")) or ""
    if dtype:
        try:
            device.peak_flop_per_s(dtype)
        except Exception as err:
            raise entry.fail("dtype", f"must be a dtype the device has a dense peak for ({err})") from None
    engine = entry.text("engine", required=kernel == "engine_step") or ""
    mapping = entry.text("mapping", required=False)
    if entry.text("measured_on", required=False) and not mapping:
        raise entry.fail("mapping", "is missing: measured_on names a stand-in, and mapping must say why it is fair")
    date = entry.raw.get("date")
    if not isinstance(date, str) or not re.fullmatch(r"\d{4}(-\d{2})?", date):
        raise entry.fail("date", f"must be a year or year-month string such as \"2024-05\", got {date!r}")
    return KernelMeasurement(
        id=entry.text("id"), kernel=kernel, library=entry.text("library"), software=entry.text("software"),
        device_id=device_id, value=value, size=size, what=entry.text("what"), date=date,
        source_url=entry.source_url(), source_title=entry.text("source_title"), dtype=dtype,
        shape=entry.text("shape", required=False), engine=engine,
        measured_on=entry.text("measured_on", required=False), mapping=mapping,
        quote=entry.text("quote", required=False), **dims)


def kernel_measurements(kernel: str | None = None) -> list[KernelMeasurement]:
    """The published kernel rows, in file order (those of one class with `kernel`).

    Filtered once per parsed file and class: the serving model asks for the engines' rows at every
    run's expected figure, thousands of times a build, and each ask walked every entry.
    """
    entries = REGISTRY.entries()  # (recorded as a read on every call, as before)
    if _KERNEL_ROWS.get("of") is not entries:
        _KERNEL_ROWS.clear()
        _KERNEL_ROWS["of"] = entries
    if (rows := _KERNEL_ROWS.get(kernel)) is None:
        rows = _KERNEL_ROWS[kernel] = [m for m in entries.values()
                                       if isinstance(m, KernelMeasurement) and (kernel is None or m.kernel == kernel)]
    return list(rows)  # (a copy: a caller may change its list)


#: {"of": the entries filtered, kernel class or None: its rows}, for `kernel_measurements`.
_KERNEL_ROWS: dict = {}


def forget_kernel_rows() -> None:
    """Drop the rows kept by kernel (`roofline.memos.forget_all`)."""
    _KERNEL_ROWS.clear()


# ------------------------------------------------------------------ serving runs ------------------

#: How the requests met the engine: all queued at once, one batch start to end, or a client
#: holding `concurrency` requests in flight.
SERVING_SCENARIOS = ("offline", "static batch", "concurrency")
#: Fields a source may leave unstated; the entry then sets the most generous choice and says so.
ASSUMABLE = ("weight_format", "activation_format", "kv_format", "layout")
#: The serving value fields, each in tokens/s: one of them, as the source states it.
SERVING_VALUE_FIELDS = ("output_tokens_per_s_total", "output_tokens_per_s_per_device")
#: Weight formats an entry may name: the storage dtypes, group-quantized integers and the 4-bit
#: block formats (the registry checks the name; tests check the model parses every one).
_WEIGHT_FORMAT = re.compile(rf"({'|'.join(STORAGE_DTYPES)}|(int8|int4)-g[1-9][0-9]{{0,6}}|mxfp4|nvfp4)")
_LAYOUT_PART = re.compile(r"(TP|EP|PP|DP)([1-9][0-9]{0,5})")
_LAYOUT_ORDER = ("tp", "ep", "pp", "dp")


@dataclass(frozen=True)
class ServingMeasurement(_RunOnRegistry):
    """One published serving run: output tokens/s for requests of fixed input and output length."""

    id: str
    engine: str                   # "TensorRT-LLM", "vLLM": the short name tables show
    software: str                 # engine version and benchmark tool, as the source gives them
    date: str
    source_url: str
    source_title: str
    model_id: str
    device_id: str
    devices: int
    degrees: tuple[tuple[str, int], ...]  # (("tp", 4), ("pp", 2)): every degree above 1, in _LAYOUT_ORDER
    weight_format: str
    activation_format: str
    kv_format: str
    input_tokens: int
    output_tokens: int
    scenario: str                 # one of SERVING_SCENARIOS
    output_tokens_per_s: float    # over all `devices`
    stated_per_device: bool       # the source printed tokens/s per device (the total is that × devices)
    concurrency: int = 0          # "static batch" and "concurrency": requests in flight
    max_concurrency: int = 0      # an engine cap on requests in flight, where the source states one
    assumed: tuple[str, ...] = () # fields the source does not state (see ASSUMABLE)
    quote: str = ""
    measured_model: str = ""      # the model it ran, where a registry model stands in for it
    measured_on: str = ""         # the chip it ran on, where a registry device stands in for it
    mapping: str = ""             # why the stand-in is fair

    @property
    def output_tokens_per_s_per_device(self) -> float:
        return self.output_tokens_per_s / self.devices

    @property
    def layout_degrees(self) -> dict[str, int]:
        """{"tp": …, "pp": …, "ep": …, "dp": …}, 1 where the layout does not split that way."""
        return {k: dict(self.degrees).get(k, 1) for k in _LAYOUT_ORDER}

    @property
    def layout_name(self) -> str:
        """The split as the package names it: "TP8", "TP4 × PP2", "1 device"."""
        return " × ".join(f"{k.upper()}{v}" for k, v in self.degrees) or "1 device"


def _parse_layout(entry: Entry, devices: int) -> tuple[tuple[str, int], ...]:
    """"TP8", "EP8", "TP4 × PP2" (or "TP1" for one device) into its degrees above 1."""
    text = entry.text("layout")
    parts = [p.strip() for p in text.replace("x", "×").split("×")]
    found: dict[str, int] = {}
    for part in parts:
        m = _LAYOUT_PART.fullmatch(part)
        if not m or m.group(1).lower() in found:
            raise entry.fail("layout", f"must read like TP8, EP8 or TP4 × PP2 (each of TP, EP, PP, DP at most "
                                       f"once), got {text!r}")
        found[m.group(1).lower()] = int(m.group(2))
    product = 1
    for v in found.values():
        product *= v
    if product != devices:
        raise entry.fail("layout", f"{text!r} spans {product} devices but the entry says devices = {devices}")
    return tuple((k, found[k]) for k in _LAYOUT_ORDER if found.get(k, 1) > 1)


def _parse_serving(entry: Entry) -> ServingMeasurement:
    entry.registered("model", get_model)
    model_id = entry.text("model")
    device = entry.registered("device", get_device)
    device_id = entry.text("device")
    devices = int(entry.number("devices", integer=True))
    degrees = _parse_layout(entry, devices)
    weight_format = entry.text("weight_format")
    if not _WEIGHT_FORMAT.fullmatch(weight_format):
        raise entry.fail("weight_format", f"is not a weight format the package knows ({', '.join(STORAGE_DTYPES)}, "
                                          f"int8-gN, int4-gN, mxfp4 or nvfp4), got {weight_format!r}")
    activation = entry.text("activation_format")
    if activation not in PEAK_DTYPES:
        raise entry.fail("activation_format", f"must be one of {', '.join(PEAK_DTYPES)}, got {activation!r}")
    try:
        device.peak_flop_per_s(activation)
    except Exception as err:
        raise entry.fail("activation_format", f"has no dense peak on {device.name} ({err})") from None
    kv = entry.text("kv_format")
    if kv not in STORAGE_DTYPES:
        raise entry.fail("kv_format", f"must be one of {', '.join(STORAGE_DTYPES)}, got {kv!r}")
    scenario = entry.text("scenario")
    if scenario not in SERVING_SCENARIOS:
        raise entry.fail("scenario", f"must be one of {', '.join(SERVING_SCENARIOS)}, got {scenario!r}")
    concurrency = int(entry.number("concurrency", required=False, integer=True) or 0)
    if scenario == "offline" and concurrency:
        raise entry.fail("concurrency", "is for \"static batch\" and \"concurrency\" runs; an offline run's cap "
                                        "on requests in flight is max_concurrency")
    if scenario != "offline" and not concurrency:
        raise entry.fail("concurrency", f"is missing: a {scenario!r} run states its requests in flight")
    max_concurrency = int(entry.number("max_concurrency", required=False, integer=True) or 0)
    stated = [f for f in SERVING_VALUE_FIELDS if entry.has(f)]
    for f in SERVING_VALUE_FIELDS:  # mark both read, so a misspelling is still caught
        entry.raw.get(f)
    if len(stated) != 1:
        raise entry.fail(SERVING_VALUE_FIELDS[0], f"or {SERVING_VALUE_FIELDS[1]}: give exactly one, as the "
                                                  f"source states it, got {len(stated)}")
    value = entry.number(stated[0])
    per_device = stated[0] == "output_tokens_per_s_per_device"
    assumed = entry.raw.get("assumed", [])
    if not isinstance(assumed, list) or any(a not in ASSUMABLE for a in assumed) or len(set(assumed)) != len(assumed):
        raise entry.fail("assumed", f"must be a list of distinct field names from {', '.join(ASSUMABLE)}, "
                                    f"got {assumed!r}"[:200])
    mapping = entry.text("mapping", required=False)
    for stand_in in ("measured_model", "measured_on"):
        if entry.text(stand_in, required=False) and not mapping:
            raise entry.fail("mapping", f"is missing: {stand_in} names a stand-in, and mapping must say why it is fair")
    date = entry.raw.get("date")
    if not isinstance(date, str) or not re.fullmatch(r"\d{4}(-\d{2})?", date):
        raise entry.fail("date", f"must be a year or year-month string such as \"2024-05\", got {date!r}")
    return ServingMeasurement(
        id=entry.text("id"), engine=entry.text("engine"), software=entry.text("software"), date=date,
        source_url=entry.source_url(), source_title=entry.text("source_title"), model_id=model_id,
        device_id=device_id, devices=devices, degrees=degrees, weight_format=weight_format,
        activation_format=activation, kv_format=kv,
        input_tokens=int(entry.number("input_tokens", integer=True)),
        output_tokens=int(entry.number("output_tokens", integer=True)), scenario=scenario,
        output_tokens_per_s=value * devices if per_device else value, stated_per_device=per_device,
        concurrency=concurrency, max_concurrency=max_concurrency, assumed=tuple(assumed),
        quote=entry.text("quote", required=False), measured_model=entry.text("measured_model", required=False),
        measured_on=entry.text("measured_on", required=False), mapping=mapping,
    )


def load_serving(path: Path) -> dict[str, ServingMeasurement]:
    """The [[serving]] runs of a measurements file, {id: ServingMeasurement}."""
    return {i: m for i, m in load_measurement_file(path).items() if isinstance(m, ServingMeasurement)}


def serving_measurements() -> dict[str, ServingMeasurement]:
    """Every published serving run, in file order."""
    return {i: m for i, m in REGISTRY.entries().items() if isinstance(m, ServingMeasurement)}


def get_serving(ident: str) -> ServingMeasurement:
    """The serving run with this id, or an error naming the closest ids."""
    return lookup("serving measurement", ident, serving_measurements())


#: Each table list of measurements.toml and its reader, every kind in KINDS order, then the serving runs
#: (the spec-file reference is generated from these).
SPEC_TABLES = {**{kind: (lambda e, kind=kind: _parse(e, kind)) for kind in KINDS}, "kernel": _parse_kernel,
               "serving": _parse_serving}


def cross_node_results() -> dict:
    """Every published result across nodes ([[cross_node]], `registry.cross_node`), in file order."""
    from roofline.registry.cross_node import CrossNodeResult

    return {i: m for i, m in REGISTRY.entries().items() if isinstance(m, CrossNodeResult)}
