"""Expert-parallel all-to-all as published libraries measure it (DeepEP's tables), each row sourced."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from roofline.errors import InputError
from roofline.registry.hardware import GIGA, MICRO, REGISTRY as HARDWARE, get_device
from roofline.registry.loader import SpecRegistry, load_by_id
from roofline.registry.specfile import Entry

KERNELS = ("normal", "low-latency")
KINDS = ("dispatch", "combine")
PATHS = ("nvlink", "rdma")


@dataclass(frozen=True)
class EPMeasurement:
    """One row of a library's all-to-all table: bandwidth (and, for low-latency kernels, time) at one EP degree.

    >>> ep_measurements()["deepep-normal-internode-dispatch-ep16"].measured_bytes_per_s
    43000000000.0
    """

    id: str
    library: str
    device: str
    kernel: str
    kind: str
    ep: int
    path: str
    tokens_per_rank: int
    measured_bytes_per_s: float
    measured_latency_s: float | None
    source_url: str
    note: str


@dataclass(frozen=True)
class BalancerExample:
    """A published expert-load balancer figure, read as a lower bound on the imbalance it removed.

    >>> balancer_examples()["sglang-lplb-deepseek"].imbalance_at_least
    1.0734
    """

    id: str
    library: str
    model: str
    speedup: float
    imbalance_at_least: float
    source_url: str
    note: str


def _parse_balancer(entry: Entry) -> BalancerExample:
    speedup, imb = entry.number("speedup"), entry.number("imbalance_at_least")
    if not 1 <= imb <= 1024:
        raise entry.fail("imbalance_at_least", f"must be from 1 (perfect balance) to 1,024, got {imb:g}")
    return BalancerExample(entry.text("id"), entry.text("library"), entry.text("model"), speedup, imb,
                           entry.source_url(), entry.text("note"))


def _choice(entry: Entry, field: str, allowed: tuple[str, ...]) -> str:
    value = entry.text(field)
    if value not in allowed:
        raise entry.fail(field, f"must be one of {', '.join(allowed)}, got {value!r}")
    return value


def _parse(entry: Entry) -> EPMeasurement:
    device = entry.text("device")
    try:
        get_device(device)
    except InputError as err:
        raise entry.fail("device", str(err)) from None
    lat = entry.number("measured_latency_us", required=False)
    return EPMeasurement(
        id=entry.text("id"), library=entry.text("library"), device=device,
        kernel=_choice(entry, "kernel", KERNELS), kind=_choice(entry, "kind", KINDS),
        ep=int(entry.number("ep", integer=True)), path=_choice(entry, "path", PATHS),
        tokens_per_rank=int(entry.number("tokens_per_rank", integer=True)),
        measured_bytes_per_s=entry.number("measured_GB_per_s") * GIGA,
        measured_latency_s=None if lat is None else lat * MICRO,
        source_url=entry.source_url(), note=entry.text("note"))


def load(path: Path) -> dict[str, EPMeasurement]:
    return load_by_id(path, {"measurement": _parse, "balancer": _parse_balancer})


REGISTRY: SpecRegistry[EPMeasurement | BalancerExample] = SpecRegistry("ROOFLINE_EP_COMMUNICATION", "ep_communication.toml",
                                                     "expert-parallel measurement", load,
                                                     depends_on=(HARDWARE,))


def ep_measurements() -> dict[str, EPMeasurement]:
    """Every all-to-all row, in file order."""
    return {k: v for k, v in REGISTRY.entries().items() if isinstance(v, EPMeasurement)}


def balancer_examples() -> dict[str, BalancerExample]:
    """Every published balancer figure, in file order."""
    return {k: v for k, v in REGISTRY.entries().items() if isinstance(v, BalancerExample)}
