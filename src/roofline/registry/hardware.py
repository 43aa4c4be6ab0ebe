"""Devices: dense peak FLOP/s per dtype, memory bandwidth and capacity, each with its source."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from roofline.model.dtypes import PEAK_DTYPES
from roofline.errors import InputError
from roofline.registry.loader import SpecRegistry, load_by_id
from roofline.registry.specfile import Entry

TERA = 1e12
GIGA = 1e9
GIBI = 2**30
MEBI = 2**20

#: The 16-bit formats a ridge point is quoted at, in order of preference.
SIXTEEN_BIT = ("bf16", "fp16")


MICRO = 1e-6
#: Microseconds per second: latencies are divided by it, not multiplied by MICRO, so 2.3 µs is the
#: double nearest 2.3e-06 (2.3 × 1e-6 is one unit in the last place off, and prints as 2.2999999999999996e-06).
PER_MICRO = 1e6


@dataclass(frozen=True)
class Interconnect:
    """A device's scale-up link: what carries tensor-parallel collectives between devices.

    Bandwidth is per direction per device (NVIDIA's "NVLink 900 GB/s" for an H100 is both
    directions added: 450 GB/s each way), the figure NCCL's bus bandwidth is compared with.
    Two latencies: the *expected* one, an NCCL ring's (a collective over N devices in ring steps
    costs latency_base_s + steps × latency_per_step_s before it moves a byte), and the *floor*,
    latency_floor_s per collective of any size: the fastest published small-message all-reduce for
    the link class (one-shot kernels built to beat the ring), which ceilings use.

    >>> get_device("h100-sxm5").interconnect.bandwidth_bytes_per_s_per_direction
    450000000000.0
    """

    link: str
    bandwidth_bytes_per_s_per_direction: float
    domain_devices: int
    latency_base_s: float
    latency_per_step_s: float
    source_url: str
    latency_source_url: str
    note: str
    latency_floor_s: float = 0.0
    latency_floor_source_url: str = ""
    latency_floor_note: str = ""


@dataclass(frozen=True)
class Network:
    """A device's scale-out network: what carries traffic between nodes (scale-up domains).

    Bandwidth is per direction per device: one 400 Gb/s ConnectX-7 NIC per GPU on an HGX H100 node
    sends 400e9 / 8 = 50e9 bytes/s each way. The latency floor is the fastest published one-way
    small-message transfer between two nodes on that fabric; a ceiling uses it. `node_devices` is
    how many devices one machine holds (8 on an HGX board, 4 on a GB200 compute tray).

    >>> get_device("h100-sxm5").network.bandwidth_bytes_per_s_per_direction
    50000000000.0
    """

    link: str
    bandwidth_bytes_per_s_per_direction: float
    latency_floor_s: float
    node_devices: int
    source_url: str
    latency_source_url: str
    note: str
    latency_note: str


@dataclass(frozen=True)
class Device:
    """One accelerator (or CPU socket) as its vendor specifies it.

    >>> get_device("h100-sxm5").memory_bandwidth_bytes_per_s
    3350000000000.0
    """

    id: str
    name: str
    vendor: str
    kind: str
    memory_type: str
    memory_capacity_bytes: float
    memory_bandwidth_bytes_per_s: float
    dense_peak_flop_per_s: Mapping[str, float]
    source_url: str
    source_title: str
    note: str
    confidence: str
    checked: dt.date
    power_w: float | None = None
    capacity_unit: str = "GB"  # "GiB" where the vendor quotes binary gigabytes
    #: Bytes a program can allocate, as the runtime reports them (nvidia-smi's total); None where
    #: no runtime figure is sourced and the vendor's capacity stands in (see `usable_memory_bytes_or_vendor`).
    usable_memory_bytes: float | None = None
    usable_memory_source_url: str = ""
    usable_memory_note: str = ""
    #: The scale-up link, or None: `interconnect_note` then says why (no link, or none recorded).
    interconnect: Interconnect | None = None
    interconnect_note: str = "no scale-up link is recorded in the registry for this device"
    #: The scale-out network between nodes, or None: `network_note` then says why.
    network: Network | None = None
    network_note: str = "no scale-out network is recorded in the registry for this device"

    @property
    def usable_memory_bytes_or_vendor(self) -> float:
        """Usable bytes: the runtime's figure where sourced, else the vendor's capacity."""
        return self.usable_memory_bytes or self.memory_capacity_bytes

    def peak_flop_per_s(self, dtype: str = "bf16") -> float:
        """Dense peak at `dtype`; "bf16" falls back to fp16 (and back) where only one is published."""
        peaks = self.dense_peak_flop_per_s
        if dtype in peaks:
            return peaks[dtype]
        if dtype in SIXTEEN_BIT:
            for alt in SIXTEEN_BIT:
                if alt in peaks:
                    return peaks[alt]
        raise InputError(
            f"{self.id} has no published dense {dtype} peak; it has {', '.join(peaks)}"
        )

    @property
    def sixteen_bit_dtype(self) -> str:
        """The 16-bit format the device's headline peak is quoted in (bf16, else fp16)."""
        return next(d for d in SIXTEEN_BIT if d in self.dense_peak_flop_per_s)


def _parse_interconnect(entry: Entry) -> tuple[Interconnect | None, str]:
    """The scale-up fields: `scaleup_link = "none"` says the device has no link; absent says none is recorded."""
    if not entry.has("scaleup_link"):
        return None, f"no scale-up link is recorded in the registry for the {entry.text('name')}"
    link = entry.text("scaleup_link")
    note = entry.text("scaleup_note")
    if link == "none":
        return None, f"the {entry.text('name')} has no scale-up link ({note})"
    base = entry.number("collective_latency_base_us", allow_zero=True)
    domain = int(entry.number("scaleup_domain_devices", integer=True))
    if domain < 2:
        raise entry.fail("scaleup_domain_devices", f"must be at least 2 (a link joins devices), got {domain}")
    return Interconnect(
        link=link,
        bandwidth_bytes_per_s_per_direction=entry.number("scaleup_bandwidth_GB_per_s_per_direction") * GIGA,
        domain_devices=domain,
        latency_base_s=float(base) / PER_MICRO,
        latency_per_step_s=entry.number("collective_latency_per_step_us") / PER_MICRO,
        source_url=entry.source_url("scaleup_source_url"),
        latency_source_url=entry.source_url("collective_latency_source_url"),
        note=note,
        latency_floor_s=entry.number("collective_latency_floor_us") / PER_MICRO,
        latency_floor_source_url=entry.source_url("collective_latency_floor_source_url"),
        latency_floor_note=entry.text("collective_latency_floor_note"),
    ), note


def _parse_network(entry: Entry, interconnect: Interconnect | None) -> tuple[Network | None, str]:
    """The scale-out fields; absent says no network is recorded (layouts then stay inside one domain)."""
    if not entry.has("scaleout_link"):
        return None, f"no scale-out network is recorded in the registry for the {entry.text('name')}"
    if interconnect is None:
        raise entry.fail("scaleout_link", "needs a scale-up link (scaleup_link) first: a node's devices talk over it")
    node = int(entry.number("scaleout_node_devices", integer=True))
    domain = interconnect.domain_devices
    if domain % node and node % domain:
        raise entry.fail("scaleout_node_devices", f"must divide the scale-up domain ({domain}) or be a multiple of "
                                                  f"it, got {node}")
    return Network(
        link=entry.text("scaleout_link"),
        # vendors quote NICs in decimal gigabits per second: ÷ 8 for bytes
        bandwidth_bytes_per_s_per_direction=entry.number("scaleout_bandwidth_Gb_per_s_per_direction") * GIGA / 8,
        latency_floor_s=entry.number("scaleout_latency_floor_us") / PER_MICRO,
        node_devices=node,
        source_url=entry.source_url("scaleout_source_url"),
        latency_source_url=entry.source_url("scaleout_latency_source_url"),
        note=entry.text("scaleout_note"),
        latency_note=entry.text("scaleout_latency_note"),
    ), ""


def _parse_device(entry: Entry) -> Device:
    peaks_raw = entry.raw.get("dense_peak_TFLOP_per_s")
    if not isinstance(peaks_raw, dict) or not peaks_raw:
        raise entry.fail("dense_peak_TFLOP_per_s", "is missing or empty")
    peaks = {}
    for dtype, value in peaks_raw.items():
        if dtype not in PEAK_DTYPES:
            raise entry.fail("dense_peak_TFLOP_per_s", f"has unknown dtype '{dtype}' (known: {', '.join(PEAK_DTYPES)})")
        peaks[dtype] = entry.check_number(f"dense_peak_TFLOP_per_s.{dtype}", value) * TERA
    if not any(d in peaks for d in SIXTEEN_BIT):
        raise entry.fail("dense_peak_TFLOP_per_s", "needs a bf16 or fp16 peak")
    if entry.has("memory_capacity_GiB") == entry.has("memory_capacity_GB"):
        raise entry.fail("memory_capacity_GB", "must be given once, as memory_capacity_GB or memory_capacity_GiB")
    if entry.has("memory_capacity_GiB"):
        capacity, unit = entry.number("memory_capacity_GiB") * GIBI, "GiB"
    else:
        capacity, unit = entry.number("memory_capacity_GB") * GIGA, "GB"
    usable_fields = [f for f in ("usable_memory_MiB", "usable_memory_GiB", "usable_memory_bytes") if entry.has(f)]
    if len(usable_fields) > 1:
        raise entry.fail(usable_fields[1], f"give usable memory once, not also as {usable_fields[0]}")
    usable = None
    if usable_fields:
        field = usable_fields[0]
        scale = {"usable_memory_MiB": MEBI, "usable_memory_GiB": GIBI, "usable_memory_bytes": 1.0}[field]
        usable = entry.number(field) * scale
        if usable > capacity * 1.2:
            raise entry.fail(field, f"is more than 1.2 × the vendor capacity ({capacity:.4g} bytes)")
    checked = entry.raw.get("checked")
    if not isinstance(checked, dt.date):
        raise entry.fail("checked", "must be a date such as 2026-11-22")
    interconnect, interconnect_note = _parse_interconnect(entry)
    network, network_note = _parse_network(entry, interconnect)
    return Device(
        network=network,
        network_note=network_note,
        interconnect=interconnect,
        interconnect_note=interconnect_note,
        id=entry.text("id"),
        name=entry.text("name"),
        vendor=entry.text("vendor"),
        kind=entry.text("kind"),
        memory_type=entry.text("memory_type"),
        memory_capacity_bytes=capacity,
        capacity_unit=unit,
        memory_bandwidth_bytes_per_s=entry.number("memory_bandwidth_TB_per_s") * TERA,
        dense_peak_flop_per_s=MappingProxyType(peaks),
        source_url=entry.source_url(),
        source_title=entry.text("source_title", required=False) or entry.text("name"),
        note=entry.text("note"),
        confidence=entry.text("confidence"),
        checked=checked,
        power_w=entry.number("power_W", required=False),
        usable_memory_bytes=usable,
        usable_memory_source_url=entry.source_url("usable_memory_source_url") if usable else "",
        usable_memory_note=entry.text("usable_memory_note") if usable else "",
    )


#: Each table list of hardware.toml and its reader (the spec-file reference is generated from these).
SPEC_TABLES = {"device": _parse_device}


def load_devices(path: Path) -> dict[str, Device]:
    """Parse and validate a hardware spec file into {id: Device}, in file order."""
    return load_by_id(path, SPEC_TABLES)


REGISTRY: SpecRegistry[Device] = SpecRegistry("ROOFLINE_HARDWARE", "hardware.toml", "hardware", load_devices)


def devices() -> dict[str, Device]:
    """Every device in the registry, in file order."""
    return dict(REGISTRY.entries())


def get_device(device_id: str) -> Device:
    """The registry device with this id, or an error naming the closest ids."""
    return REGISTRY.get(device_id)
