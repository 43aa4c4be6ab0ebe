"""Published measurements (data/measurements.toml) and their gap to the speed of light.

Three kinds, each compared with a number the package computes from the registry:

* bandwidth: measured GB/s ÷ the device's spec memory bandwidth
* gemm:      measured large-GEMM TFLOP/s ÷ the device's dense peak at that dtype
* decode:    measured batch-1 tokens/s ÷ the speed of light for that model, device and dtype
             (bandwidth ÷ the weight bytes a step reads; `kernels.speed_of_light_tokens_per_s`)
* collective: measured NCCL bus bandwidth (ring) ÷ the device's scale-up link bandwidth per direction
* parallel_decode: measured batch-1 tokens/s on `devices` devices ÷ the tensor-parallel ceiling
             (`parallel.decode` at the run's final context: kernels plus collectives)

The *derated* bandwidth is the spec bandwidth times the median share of spec bandwidth
that the published bandwidth measurements reached (`bandwidth_derate`): what a
well-tuned kernel can expect, computed from sourced data rather than assumed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from roofline.model.dtypes import STORAGE_DTYPES
from roofline.registry import hardware, models
from roofline.registry.hardware import Device, get_device
from roofline.registry.loader import SpecRegistry, load_by_id
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


@dataclass(frozen=True)
class PublishedMeasurement:
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
    #: within 10 % of a ceiling taken at the link's latency floor (tests/unit/test_measured_parallel.py).
    allreduce: str = ""

    @property
    def device(self) -> Device:
        return get_device(self.device_id)

    @property
    def model(self) -> Model:
        return get_model(self.model_id)

    @property
    def model_name(self) -> str:
        """The model as it was run (Llama 3 8B), else the registry model's name."""
        return self.measured_model or (self.model.name if self.model_id else "")


def _parse(entry: Entry, kind: str) -> PublishedMeasurement:
    field, scale, unit = VALUE_FIELDS[kind]
    device_id = entry.text("device")
    try:
        device = get_device(device_id)
    except Exception as err:  # an unknown id: name the file, entry and field
        raise entry.fail("device", f"is not in the registry ({err})") from None
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
        model_id = entry.text("model")
        try:
            get_model(model_id)
        except Exception as err:
            raise entry.fail("model", f"is not in the registry ({err})") from None
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


def load_measurements(path: Path) -> dict[str, PublishedMeasurement]:
    """Parse and validate a measurements file into {id: PublishedMeasurement}, kinds in KINDS order."""
    return load_by_id(path, {kind: (lambda e, kind=kind: _parse(e, kind)) for kind in KINDS})


#: Entries name devices and models: pointing either registry elsewhere rereads this file.
REGISTRY: SpecRegistry[PublishedMeasurement] = SpecRegistry(
    "ROOFLINE_MEASUREMENTS", "measurements.toml", "measurement", load_measurements,
    depends_on=(hardware.REGISTRY, models.REGISTRY))


def published() -> dict[str, PublishedMeasurement]:
    """Every published measurement, in file order by kind."""
    return dict(REGISTRY.entries())


def get_measurement(ident: str) -> PublishedMeasurement:
    """The published measurement with this id, or an error naming the closest ids."""
    return REGISTRY.get(ident)


def of_kind(kind: str) -> list[PublishedMeasurement]:
    """Published measurements of one kind, in file order."""
    return [m for m in published().values() if m.kind == kind]
