"""Published serving results across nodes (expert parallelism over the network, pools on separate machines).

One `[[cross_node]]` entry in measurements.toml per published figure: the phase it measures (a decode
pool's output tokens/s or a prefill pool's input tokens/s, per node as the source gives it), the layout
as published (EP degree, redundant experts, attention data-parallel), formats, lengths and the prefix-cache
hit rate, each with its source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from roofline.model.dtypes import PEAK_DTYPES, STORAGE_DTYPES
from roofline.registry.hardware import Device, get_device
from roofline.registry.models import Model, get_model
from roofline.registry.specfile import Entry

PHASES = ("decode", "prefill")
WEIGHT_FORMAT = re.compile(r"bf16|fp16|fp8|fp8-[bg][1-9][0-9]{0,5}|int8|int4|int[48]-g[1-9][0-9]{0,5}|mxfp4|nvfp4")


@dataclass(frozen=True)
class CrossNodeResult:
    """One published per-node figure of a deployment that spans nodes.

    >>> from roofline.registry.measurements import cross_node_results
    >>> r = cross_node_results()["deepseek-h800-decode"]
    >>> r.tokens_per_s_per_device  # 14.8k per node of 8
    1850.0
    """

    id: str
    system: str
    date: str
    source_url: str
    source_title: str
    model_id: str
    device_id: str
    phase: str
    nodes: int                    # nodes in one deployment unit of this phase
    ep: int
    redundant_experts: int
    weight_format: str
    activation_format: str
    kv_format: str
    context_tokens: int           # decode: the cached tokens a step attends to; prefill: the prompt length
    cache_hit_rate: float         # prefill: the share of input tokens served from a prefix cache (0 for decode)
    tokens_per_s_per_node: float  # decode: output tokens/s; prefill: input tokens/s, cache hits included
    quote: str
    note: str
    assumed: tuple[str, ...] = ()

    @property
    def model(self) -> Model:
        return get_model(self.model_id)

    @property
    def device(self) -> Device:
        return get_device(self.device_id)

    @property
    def node_devices(self) -> int:
        return self.device.network.node_devices

    @property
    def devices(self) -> int:
        return self.nodes * self.node_devices

    @property
    def tokens_per_s_per_device(self) -> float:
        return self.tokens_per_s_per_node / self.node_devices

    @property
    def layout_name(self) -> str:
        extra = f" (+{self.redundant_experts} redundant experts)" if self.redundant_experts else ""
        return f"EP{self.ep}{extra}, attention DP{self.ep}"


ASSUMABLE = ("kv_format", "redundant_experts", "context_tokens", "activation_format")


def parse_cross_node(entry: Entry) -> CrossNodeResult:
    """One [[cross_node]] entry, every field checked against the registries (one line naming the field)."""
    entry.registered("model", get_model)
    model_id = entry.text("model")
    device = entry.registered("device", get_device)
    device_id = entry.text("device")
    if device.network is None:
        raise entry.fail("device", f"has no scale-out network in the registry ({device.network_note})")
    phase = entry.text("phase")
    if phase not in PHASES:
        raise entry.fail("phase", f"must be one of {', '.join(PHASES)}, got {phase!r}")
    nodes = int(entry.number("nodes", integer=True))
    ep = int(entry.number("ep", integer=True))
    if ep != nodes * device.network.node_devices:
        raise entry.fail("ep", f"must span the unit's {nodes} × {device.network.node_devices} devices, got {ep}")
    redundant = int(entry.number("redundant_experts", integer=True, allow_zero=True))
    for field, allowed in (("activation_format", PEAK_DTYPES), ("kv_format", STORAGE_DTYPES)):
        if entry.text(field) not in allowed:
            raise entry.fail(field, f"must be one of {', '.join(allowed)}, got {entry.text(field)!r}")
    if not WEIGHT_FORMAT.fullmatch(entry.text("weight_format")):
        raise entry.fail("weight_format", "must be a weight format the package reads (bf16, fp16, fp8, fp8-bN, "
                                          f"int8, int4-gN, mxfp4, nvfp4), got {entry.text('weight_format')!r}")
    hit = entry.number("cache_hit_rate", allow_zero=True)
    if hit >= 1 or (phase == "decode" and hit):
        raise entry.fail("cache_hit_rate", "must be below 1 (a prefill computes at least one token), and 0 for "
                                           f"a decode figure, got {hit:g}")
    date = entry.raw.get("date")
    if not isinstance(date, str) or not re.fullmatch(r"\d{4}(-\d{2})?", date):
        raise entry.fail("date", f"must be a year or year-month string such as \"2025-02\", got {date!r}")
    assumed = entry.raw.get("assumed", [])
    if not isinstance(assumed, list) or any(a not in ASSUMABLE for a in assumed):
        raise entry.fail("assumed", f"must list field names from {', '.join(ASSUMABLE)}, got {assumed!r}"[:200])
    return CrossNodeResult(
        id=entry.text("id"), system=entry.text("system"), date=date, source_url=entry.source_url(),
        source_title=entry.text("source_title"), model_id=model_id, device_id=device_id, phase=phase, nodes=nodes,
        ep=ep, redundant_experts=redundant, weight_format=entry.text("weight_format"),
        activation_format=entry.text("activation_format"), kv_format=entry.text("kv_format"),
        context_tokens=int(entry.number("context_tokens", integer=True)), cache_hit_rate=hit,
        tokens_per_s_per_node=entry.number("tokens_per_s_per_node"), quote=entry.text("quote"),
        note=entry.text("note"), assumed=tuple(assumed))
