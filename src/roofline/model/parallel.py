"""Many devices: collectives on the scale-up link, and the layouts that need them.

A collective moves bytes over each device's scale-up link (NVLink, Infinity Fabric, ICI,
PCIe). For a ring over N devices holding S bytes each (NCCL's performance notes,
"bus bandwidth": https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md):

* all-reduce sends 2(N−1)/N · S per device in 2(N−1) steps (a reduce-scatter then an all-gather);
* all-gather and reduce-scatter send (N−1)/N · S per device in N−1 steps (S: the whole tensor);
* all-to-all sends (N−1)/N · S per device (S: the device's whole buffer; 1/N of it stays home);
* a pipeline send moves S once, in one step.

time = latency + bytes ÷ link bandwidth, the bandwidth per direction per device (the figure
NCCL's "busbw" is compared with). The latency is one of three (`latency=`):

* "floor" (the default, for ceilings): the device's `latency_floor_s` per collective, whatever its
  kind or size: the fastest published small-message all-reduce for the link class (one-shot
  kernels such as serving engines' custom all-reduce). A ceiling must not be beaten.
* "ring" (the *expected* figure): an NCCL ring's base + steps × per-step latency, fitted to
  published nccl-tests runs.
* a number: seconds per collective, set by the reader.

Layouts (`Layout`): tensor parallelism (TP) splits every layer's heads, MLP and the
vocabulary N ways and all-reduces the activations twice per layer (after the attention
output projection and after the MLP down projection), as Megatron-LM and vLLM do; KV heads
that N does not divide are replicated (one per device when N exceeds them). Pipeline
parallelism (PP) gives each of P stages L/P layers and sends the activations between
stages; a batch of B sequences runs as min(B, P) micro-batches, so at B < P stages idle
(the bubble). Expert parallelism (EP) keeps each device's attention whole for its share of
the batch and splits the experts N ways, with an all-to-all of the routed tokens before and
after the experts (dispatch and combine). Data parallelism (DP) runs independent replicas.

One device's kernels (`kernels.decode` or `kernels.prefill` on the device's share of the
model and batch) plus its collectives, summed, give a stage's time; a token crosses P stages.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from roofline.errors import InputError
from roofline.model import kernels
from roofline.model.formats import Formats
from roofline.model.point import computed_once, scalar
from roofline.registry.hardware import Device, Interconnect
from roofline.registry.models import Model

KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send")
LATENCY_BOUND = "latency-bound"               # one collective: its fixed latency exceeds its transfer time
LINK_BOUND = "link-bandwidth-bound"           # one collective: its bytes ÷ link bandwidth exceed its latency
COLLECTIVE_LATENCY_BOUND = "collective latency-bound"   # a step: collectives take half of it, mostly latency
LINK_BANDWIDTH_BOUND = "link-bandwidth-bound"           # a step: collectives take half of it, mostly bytes
MAX_DEGREE = 4096
LATENCY_FLOOR = "floor"
LATENCY_RING = "ring"
LATENCY_CHOICES = (LATENCY_FLOOR, LATENCY_RING)
#: The most a reader may set one collective's latency to: 10 ms, past any link's.
MAX_LATENCY_S = 1e-2


# ------------------------------------------------------------------------ collectives ------
def ring_factor(kind: str, devices: int) -> float:
    """Bytes each device sends, as a multiple of the payload S, for a ring over `devices`.

    >>> ring_factor("all-reduce", 8)  # 2·7/8
    1.75
    """
    n = _degree("devices", devices)
    if kind == "all-reduce":
        return 2.0 * (n - 1) / n
    if kind in ("all-gather", "reduce-scatter", "all-to-all"):
        return (n - 1) / n
    if kind == "send":
        return 1.0 if n > 1 else 0.0
    raise InputError(f"unknown collective {kind!r}: expected one of {', '.join(KINDS)}")


def ring_steps(kind: str, devices: int) -> int:
    """Latency-paying steps of a ring collective: 2(N−1) for all-reduce, N−1 otherwise, 1 for a send.

    >>> ring_steps("all-reduce", 8)
    14
    """
    n = _degree("devices", devices)
    if kind == "all-reduce":
        return 2 * (n - 1)
    if kind == "send":
        return 1 if n > 1 else 0
    ring_factor(kind, n)  # validates the kind
    return n - 1


def check_latency(latency):
    """The latency a step uses: "floor", "ring" or seconds per collective (0 to 10 ms), else one sentence.

    >>> check_latency(2.3e-6)
    2.3e-06
    """
    if isinstance(latency, str) and latency in LATENCY_CHOICES:
        return latency
    if isinstance(latency, bool) or not isinstance(latency, (int, float, np.floating)) or not math.isfinite(latency) \
            or not 0 <= latency <= MAX_LATENCY_S:
        raise InputError(f"collective latency must be 'floor', 'ring' or a number of seconds from 0 to "
                         f"{MAX_LATENCY_S:g} per collective, got {latency!r}")
    return float(latency)


def run_latency_s(kind: str, devices: int, interconnect: Interconnect, latency="floor") -> float:
    """One run's latency: the link's floor, an NCCL ring's base + steps × per-step, or the reader's figure.

    >>> ic = get_device("h100-sxm5").interconnect
    >>> round(run_latency_s("all-reduce", 8, ic, "ring") * 1e6, 3), round(run_latency_s("all-reduce", 8, ic) * 1e6, 3)
    (33.7, 2.3)
    """
    steps = ring_steps(kind, devices)
    latency = check_latency(latency)
    if not steps:
        return 0.0
    if latency == LATENCY_RING:
        return interconnect.latency_base_s + steps * interconnect.latency_per_step_s
    if latency == LATENCY_FLOOR:
        return interconnect.latency_floor_s
    return latency


def latency_description(interconnect: Interconnect, latency="floor") -> str:
    """Which collective latency a figure uses, in words a reader can check against the registry.

    >>> latency_description(get_device("h100-sxm5").interconnect)[:51]
    'floor: 2.3 µs per collective, the fastest published'
    """
    from roofline import format as fmt

    latency = check_latency(latency)
    if latency == LATENCY_FLOOR:
        return (f"floor: {fmt.seconds(interconnect.latency_floor_s)} per collective, the fastest published "
                f"small-message all-reduce on {interconnect.link} (a ceiling)")
    if latency == LATENCY_RING:
        return (f"NCCL ring (expected): {fmt.seconds(interconnect.latency_base_s)} + "
                f"{fmt.seconds(interconnect.latency_per_step_s)} per ring step")
    return f"set: {fmt.seconds(latency)} per collective"


@dataclass(frozen=True)
class CollectivePoint:
    """`count` runs of one collective over `devices` devices: bytes over the link, latency, time.

    It sits in a step's kernel list beside the `RooflinePoint`s: no FLOPs, no memory-roof bytes;
    its `bytes` are the bytes each device sends over its link, and its roof is the link.

    >>> ic = get_device("h100-sxm5").interconnect
    >>> c = collective("all-reduce", 16384, 8, ic, 989.4e12)
    >>> c.link_bytes  # 2·7/8 · 16,384
    28672.0
    """

    name: str
    kind: str
    devices: int
    payload_bytes: object          # S per run
    link_bandwidth_bytes_per_s: float
    latency_per_run_s: float
    peak_flop_per_s: float         # the device's matmul peak: for the link's ridge point
    count: int = 1
    link: str = ""
    #: The share of `link_bytes` that crosses the scale-out network (an all-to-all whose ranks span
    #: nodes); the rest moves over the scale-up link. Both links run at once: the slower sets the time.
    network_share: float = 0.0
    network_bandwidth_bytes_per_s: float = 0.0
    #: True where the runs take turns (pipeline sends, one stage boundary after another): the two links'
    #: times add; False where both links carry one run at once (an all-to-all): the slower sets it.
    sequential: bool = False

    flops = 0.0
    weight_bytes = 0.0
    act_read_bytes = 0.0
    act_written_bytes = 0.0
    kv_read_bytes = 0.0
    kv_written_bytes = 0.0
    compute_time_s = 0.0
    memory_time_s = 0.0
    arithmetic_intensity = 0.0
    compute_dtype = "link"

    @computed_once
    def link_bytes(self):
        """Bytes each device sends over its link, all runs: count · factor · S."""
        return scalar(self.count * ring_factor(self.kind, self.devices) * np.asarray(self.payload_bytes, float))

    @computed_once
    def bytes(self):
        return self.link_bytes

    @computed_once
    def latency_s(self) -> float:
        return self.count * self.latency_per_run_s

    @computed_once
    def network_bytes(self):
        """Bytes each device sends over the scale-out network, all runs (0 inside one domain)."""
        return scalar(np.asarray(self.link_bytes, float) * self.network_share)

    @computed_once
    def scaleup_bytes(self):
        """Bytes each device sends over its scale-up link, all runs."""
        return scalar(np.asarray(self.link_bytes, float) - np.asarray(self.network_bytes, float))

    @computed_once
    def transfer_time_s(self):
        """Bytes ÷ bandwidth on each link; where the ranks span nodes, the slower of the two links."""
        on_link = np.asarray(self.scaleup_bytes, float) / self.link_bandwidth_bytes_per_s
        if not self.network_share:
            return scalar(on_link)
        on_network = np.asarray(self.network_bytes, float) / self.network_bandwidth_bytes_per_s
        return scalar(on_link + on_network if self.sequential else np.maximum(on_link, on_network))

    @computed_once
    def link_time_s(self):
        return self.transfer_time_s

    @computed_once
    def time_s(self):
        """Latency plus bytes ÷ link bandwidth (per direction)."""
        return scalar(self.latency_s + np.asarray(self.transfer_time_s))

    @computed_once
    def ridge_point(self) -> float:
        """The link's ridge: FLOPs a device must do per byte it sends to keep the link off the critical path."""
        return self.peak_flop_per_s / self.link_bandwidth_bytes_per_s

    @computed_once
    def bound(self):
        """'latency-bound' where the fixed latency exceeds the transfer time, else 'link-bandwidth-bound'."""
        return scalar(np.where(self.latency_s >= np.asarray(self.transfer_time_s), LATENCY_BOUND, LINK_BOUND))


def collective(kind: str, payload_bytes, devices: int, interconnect: Interconnect, peak_flop_per_s: float,
               name: str | None = None, count: int = 1, latency="floor") -> CollectivePoint:
    """One collective on a device's scale-up link (see the module docstring for the ring factors and latencies).

    >>> ic = get_device("a100-sxm4-80gb").interconnect
    >>> round(collective("all-reduce", 16384, 8, ic, 312e12, latency="ring").time_s * 1e6, 2)  # 6.05 + 14·1.975 µs + 28,672 B ÷ 300 GB/s (0.096 µs)
    33.8
    """
    latency = run_latency_s(kind, devices, interconnect, latency)
    return CollectivePoint(name or kind, kind, int(devices), scalar(np.asarray(payload_bytes, float)),
                           interconnect.bandwidth_bytes_per_s_per_direction, latency, peak_flop_per_s,
                           int(count), interconnect.link)


def _busiest_rank(op, imbalance: float):
    """An expert kernel as the busiest EP rank runs it: its routed tokens' FLOPs and activations × imbalance."""
    if imbalance == 1.0:
        return op
    return dataclasses.replace(op, flops=scalar(np.asarray(op.flops, float) * imbalance),
                               act_read_bytes=scalar(np.asarray(op.act_read_bytes, float) * imbalance),
                               act_written_bytes=scalar(np.asarray(op.act_written_bytes, float) * imbalance))


def domains_spanned(devices: int, device: Device) -> int:
    """Scale-up domains `devices` ranks fill, placed domain by domain: ⌈devices ÷ domain size⌉.

    >>> domains_spanned(16, get_device("h100-sxm5")), domains_spanned(48, get_device("gb200-per-gpu"))
    (2, 1)
    """
    ic = device.interconnect
    return 1 if ic is None else math.ceil(devices / ic.domain_devices)


def ep_network_share(ep: int, device: Device) -> float:
    """The share of an EP all-to-all's sent bytes that crosses the scale-out network.

    A rank sends (ep − 1)/ep of its routed copies away (1/ep stays home): (g − 1)/ep to the g − 1 other
    ranks of its scale-up domain over the link and (ep − g)/ep to ranks in other domains over the
    network, with g = min(ep, domain size) and experts spread evenly (each copy goes to its expert's rank,
    as DeepEP's low-latency kernels send it). Of the bytes sent, the network carries (ep − g)/(ep − 1).

    >>> ep_network_share(16, get_device("h100-sxm5"))  # (16 − 8) / 15
    0.5333333333333333
    """
    ic = device.interconnect
    g = min(ep, ic.domain_devices) if ic else 1
    return (ep - g) / (ep - 1) if ep > 1 else 0.0


#: The expected efficiency of each link in an EP all-to-all, from DeepEP's normal kernels on H800
#: (its legacy performance tables): intranode EP8 dispatch 153 GB/s of the H800's 200 GB/s NVLink each way, internode
#: EP16 dispatch 43 GB/s of its 50 GB/s NIC (the lowest RDMA figure in the table; EP32 and EP64 report
#: logical bandwidth that counts local traffic). `ep_expected_efficiency` reads them from the registry.
def ep_expected_efficiency() -> tuple[float, float]:
    """(scale-up link, network) efficiencies an expected all-to-all runs at: DeepEP's measured ÷ spec.

    >>> [round(x, 3) for x in ep_expected_efficiency()]  # 153 / 200, 43 / 50
    [0.765, 0.86]
    """
    from roofline.registry.ep_communication import ep_measurements
    from roofline.registry.hardware import get_device as _get

    rows = ep_measurements()
    nv, net = rows["deepep-normal-intranode-dispatch-ep8"], rows["deepep-normal-internode-dispatch-ep16"]
    d = _get(nv.device)
    return (nv.measured_bytes_per_s / d.interconnect.bandwidth_bytes_per_s_per_direction,
            net.measured_bytes_per_s / d.network.bandwidth_bytes_per_s_per_direction)


def ep_all_to_all(payload_bytes, ep: int, device: Device, peak_flop_per_s: float, name: str, count: int,
                  latency="floor") -> CollectivePoint:
    """An EP all-to-all (dispatch or combine) of `payload_bytes` per rank over `ep` ranks, split by link.

    Inside one domain it is `collective("all-to-all", ...)`. Across domains the bytes split as
    `ep_network_share` says and both links run at once; the latency is the larger of the two floors
    (a ceiling) or, expected, the NCCL ring's plus the network's floor, with each link at DeepEP's
    measured efficiency.

    >>> c = ep_all_to_all(1e6, 16, get_device("h100-sxm5"), 989.4e12, "dispatch", 1)
    >>> round(float(c.network_bytes)), round(float(c.scaleup_bytes))  # 8/16 and 7/16 of 1 MB
    (500000, 437500)
    """
    ic, net = device.interconnect, device.network
    if domains_spanned(ep, device) == 1:
        return collective("all-to-all", payload_bytes, ep, ic, peak_flop_per_s, name, count, latency)
    latency = check_latency(latency)
    link_bw, net_bw = ic.bandwidth_bytes_per_s_per_direction, net.bandwidth_bytes_per_s_per_direction
    if latency == LATENCY_FLOOR:
        per_run = max(ic.latency_floor_s, net.latency_floor_s)
    elif latency == LATENCY_RING:
        per_run = run_latency_s("all-to-all", min(ep, ic.domain_devices), ic, latency) + net.latency_floor_s
        eff_link, eff_net = ep_expected_efficiency()
        link_bw, net_bw = link_bw * eff_link, net_bw * eff_net
    else:
        per_run = latency
    return CollectivePoint(name, "all-to-all", int(ep), scalar(np.asarray(payload_bytes, float)), link_bw, per_run,
                           peak_flop_per_s, int(count), f"{ic.link} + {net.link}", ep_network_share(ep, device),
                           net_bw)


def pipeline_sends(payload_bytes, layout: Layout, device: Device, peak_flop_per_s: float,
                   latency="floor") -> CollectivePoint:
    """The pp − 1 activation sends between pipeline stages; those at a domain boundary cross the network.

    Stages are placed in order, so of the pp − 1 boundaries, (domains spanned − 1) cross nodes; the
    sends take turns, so the two links' times add.
    """
    ic, net = device.interconnect, device.network
    crossings = min(domains_spanned(layout.replica_devices, device) - 1, layout.pp - 1)
    c = collective("send", payload_bytes, 2, ic, peak_flop_per_s, "pp_send", layout.pp - 1, latency)
    if crossings <= 0 or net is None:
        return c
    per_run = c.latency_per_run_s
    if check_latency(latency) in LATENCY_CHOICES:
        per_run = (per_run * (layout.pp - 1 - crossings) + max(per_run, net.latency_floor_s) * crossings) \
            / (layout.pp - 1)
    return dataclasses.replace(c, latency_per_run_s=per_run, link=f"{ic.link} + {net.link}",
                               network_share=crossings / (layout.pp - 1),
                               network_bandwidth_bytes_per_s=net.bandwidth_bytes_per_s_per_direction,
                               sequential=True)


NETWORK = "network"
LINK = "link"
MAX_PROMPT_TOKENS = 10_000_000   # a prompt past ten million tokens is a typo (serving's limit too)


def kv_transfer(model: Model, device: Device, prompt_tokens, kv_dtype: str = "bf16", over: str = NETWORK,
                latency="floor", layout: Layout | None = None) -> CollectivePoint:
    """One prompt's KV cache sent from a prefill device to a decode device: one send, latency + bytes ÷ bandwidth.

    `over`: "network" (pools on separate nodes, one NIC each way: the disaggregated deployments) or
    "link" (both pools in one scale-up domain). The bytes are the model's KV format: prompt ×
    KV bytes per token (MLA's latent and rotary key; K and V per KV head otherwise). With the prefill
    pool's `layout`, the bytes one of its devices holds (`shard`: its stage's layers, its TP rank's KV
    heads), each device sending its part through its own NIC at once; attention data-parallel (EP) keeps
    a request's whole cache on one rank.

    >>> c = kv_transfer(get_model("deepseek-v3"), get_device("h100-sxm5"), 2000)
    >>> round(float(c.link_bytes)), round(c.time_s * 1e3, 4)  # 2000·61·576·2 B ÷ 50 GB/s + 2.8 µs
    (140544000, 2.8137)
    """
    from roofline.model.accounting import kv_bytes_per_token

    tokens = prompt_tokens
    if isinstance(tokens, bool) or not isinstance(tokens, (int, np.integer, float)) or not math.isfinite(tokens) \
            or tokens != int(tokens) or not 1 <= tokens <= MAX_PROMPT_TOKENS:
        raise InputError(f"prompt tokens must be a whole number from 1 to {MAX_PROMPT_TOKENS:,}, got {tokens!r}")
    nbytes = tokens * kv_bytes_per_token(model if layout is None else shard(model, layout), kv_dtype)
    ic = require_interconnect(device, "shipping a KV cache")
    peak = device.peak_flop_per_s()
    if over == LINK:
        return collective("send", nbytes, 2, ic, peak, "kv_send", 1, latency)
    if over != NETWORK:
        raise InputError(f"a KV cache goes over 'network' or 'link', got {over!r}")
    net = device.network
    if net is None:
        raise InputError(f"shipping a KV cache between nodes needs a network, but {device.network_note}")
    per_run = net.latency_floor_s if check_latency(latency) in LATENCY_CHOICES else check_latency(latency)
    return CollectivePoint("kv_send", "send", 2, float(nbytes), net.bandwidth_bytes_per_s_per_direction, per_run,
                           peak, 1, net.link)


def link_ridge_point(device: Device, dtype: str = "bf16") -> float:
    """A device's third roof: peak FLOP/s ÷ scale-up link bandwidth (per direction), in FLOPs per link byte.

    >>> round(link_ridge_point(get_device("h100-sxm5")))  # 989.4e12 / 450e9
    2199
    """
    ic = require_interconnect(device, "a link ridge point")
    return device.peak_flop_per_s(dtype) / ic.bandwidth_bytes_per_s_per_direction


def require_interconnect(device: Device, what: str) -> Interconnect:
    if device.interconnect is None:
        raise InputError(f"{what} needs a link between devices, but {device.interconnect_note}")
    return device.interconnect


# ---------------------------------------------------------------------------- layouts ------
def _degree(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, float)) or not math.isfinite(value) \
            or value != int(value) or value < 1:
        raise InputError(f"{name} must be a whole number ≥ 1, got {value!r}")
    if value > MAX_DEGREE:
        raise InputError(f"{name} must be at most {MAX_DEGREE}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class Layout:
    """How a model is split: tensor (tp), pipeline (pp), expert (ep) and data-parallel (dp) degrees.

    >>> Layout(tp=4, pp=2).devices, Layout(tp=4, pp=2).name
    (8, 'TP4 × PP2')
    """

    tp: int = 1
    pp: int = 1
    ep: int = 1
    dp: int = 1
    #: Extra copies of (the busiest) experts that fill EP ranks the experts alone do not divide, as
    #: expert-load balancers add them (DeepSeek's EPLB, SGLang's): each rank holds (E + r) ÷ ep experts.
    redundant_experts: int = 0
    #: The busiest EP rank's routed tokens ÷ the mean rank's (1: perfect balance, the default). The
    #: slowest rank sets the step, so its experts' work and its all-to-all bytes scale by this factor.
    expert_imbalance: float = 1.0

    def __post_init__(self):
        for opt in ("tp", "pp", "ep", "dp"):
            object.__setattr__(self, opt, _degree(f"--{opt}", getattr(self, opt)))
        r = self.redundant_experts
        if isinstance(r, bool) or not isinstance(r, (int, np.integer, float)) or not math.isfinite(r) \
                or r != int(r) or not 0 <= r <= MAX_DEGREE:
            raise InputError(f"--redundant-experts must be a whole number from 0 to {MAX_DEGREE}, got {r!r}")
        object.__setattr__(self, "redundant_experts", int(r))
        f = self.expert_imbalance
        if isinstance(f, bool) or not isinstance(f, (int, np.integer, float)) or not math.isfinite(f) \
                or not 1 <= f <= max(self.ep, 1):
            raise InputError(f"--expert-imbalance must be a number from 1 (perfect balance) to the EP degree "
                             f"({self.ep}: every routed token on one rank), got {f!r}")
        object.__setattr__(self, "expert_imbalance", float(f))

    @property
    def devices(self) -> int:
        return self.tp * self.pp * self.ep * self.dp

    @property
    def replica_devices(self) -> int:
        """Devices one replica spans (the ones its collectives join)."""
        return self.tp * self.pp * self.ep

    @property
    def name(self) -> str:
        parts = [f"{k.upper()}{v}" for k, v in (("tp", self.tp), ("ep", self.ep), ("pp", self.pp), ("dp", self.dp))
                 if v > 1]
        if self.redundant_experts:
            parts[parts.index(f"EP{self.ep}")] += f" (+{self.redundant_experts} redundant experts)"
        return " × ".join(parts) or "1 device"

    @property
    def is_single(self) -> bool:
        return self.devices == 1


def kv_heads_per_device(model: Model, tp: int) -> int:
    """KV heads one device holds under TP: kv_heads ÷ tp, or 1 (replicated) where tp exceeds them.

    >>> kv_heads_per_device(get_model("llama-3.1-70b"), 16)  # 8 KV heads over 16 devices: each keeps one copy
    1
    """
    return max(model.kv_heads // tp, 1)


def check_layout(model: Model, device: Device, layout: Layout) -> None:
    """Refuse, in one line naming the option, a layout no engine would run (see the module docstring)."""
    tp, pp, ep = layout.tp, layout.pp, layout.ep
    if layout.replica_devices > 1 and model.is_bare:
        raise InputError(f"--tp/--pp/--ep: a bare parameter count has no layers or heads to split; "
                         "give a registry model (see `roofline models`)")
    for opt, n in (("--tp", tp), ("--ep", ep), ("--pp", pp)):
        if n > 1:
            ic = require_interconnect(device, f"{opt} {n}")
            if tp > ic.domain_devices:
                raise InputError(f"--tp {tp}: tensor parallelism all-reduces the activations twice per layer, so it "
                                 f"stays inside one {device.name} scale-up domain ({ic.link}), which holds "
                                 f"{ic.domain_devices}; span nodes with --ep or --pp instead")
            if layout.replica_devices > ic.domain_devices:
                if device.network is None:
                    raise InputError(f"{opt} {n}: {layout.name} spans {layout.replica_devices} devices but one "
                                     f"{device.name} scale-up domain ({ic.link}) holds {ic.domain_devices}, and "
                                     f"{device.network_note}")
                if ep > ic.domain_devices and ep % ic.domain_devices:
                    raise InputError(f"--ep {ep}: expert parallelism across nodes fills whole scale-up domains of "
                                     f"{ic.domain_devices} {device.name}s; give a multiple of {ic.domain_devices}")
    if tp > 1 and ep > 1:
        raise InputError(f"--ep {ep} with --tp {tp}: expert parallelism is modelled with data-parallel attention "
                         "(each device keeps whole attention weights), so combine it with --tp 1")
    if tp > 1:
        if model.n_heads % tp:
            raise InputError(f"--tp {tp}: {model.name} has {model.n_heads} attention heads, which {tp} does not "
                             f"divide; vLLM and TensorRT-LLM refuse such a split")
        if model.kv_heads % tp and tp % model.kv_heads:
            raise InputError(f"--tp {tp}: {model.name} has {model.kv_heads} KV heads; engines need the TP degree "
                             "to divide them or be a multiple of them (then each device keeps a copy)")
    if ep > 1:
        if not model.is_moe:
            raise InputError(f"--ep {ep}: {model.name} is dense; expert parallelism needs a mixture-of-experts model")
        slots, r = model.n_experts + layout.redundant_experts, layout.redundant_experts
        if slots % ep:
            need = r + (-slots) % ep
            if r:
                raise InputError(f"--ep {ep} with --redundant-experts {r}: {model.n_experts} + {r} = {slots} expert "
                                 f"copies do not fill {ep} ranks evenly; give --redundant-experts {need}")
            raise InputError(f"--ep {ep}: {model.name} has {model.n_experts} experts, which {ep} does not divide; "
                             f"give --redundant-experts {need} (copies of the busiest experts fill the ranks, as "
                             f"expert-load balancers add them) or an EP degree that divides {model.n_experts}")
        if slots // ep > model.n_experts:
            raise InputError(f"--redundant-experts {r}: {slots // ep} experts per rank is more than {model.name}'s "
                             f"{model.n_experts}; a rank holds each expert at most once")
    if layout.redundant_experts and ep == 1:
        raise InputError("--redundant-experts needs expert parallelism (--ep 2 or more): the copies fill EP ranks")
    if layout.expert_imbalance > 1 and ep == 1:
        raise InputError("--expert-imbalance needs expert parallelism (--ep 2 or more): it is the busiest EP "
                         "rank's load over the mean")
    if pp > 1 and pp > model.n_layers:
        raise InputError(f"--pp {pp}: {model.name} has only {model.n_layers} layers to give the stages")


def shard(model: Model, layout: Layout) -> Model:
    """The part of the model one device holds under `layout`'s TP and PP (EP is applied to the kernels).

    Heads, KV heads (replicated past their count), the MLP width and the vocabulary are split tp
    ways; a stage holds ⌈L ÷ pp⌉ layers (the slowest stage sets the pace). One object per model and
    layout, so the steps `kernels` remembers by model are found again for the same part.
    """
    if model.is_bare or (layout.tp == 1 and layout.pp == 1):
        return model
    return kernels.recall((__name__, "shard", id(model), layout), (model,), lambda: _shard(model, layout))


def _shard(model: Model, layout: Layout) -> Model:
    tp = layout.tp
    changes = dict(n_heads=model.n_heads // tp, kv_heads=kv_heads_per_device(model, tp),
                   ffn_size=model.ffn_size / tp, vocab_size=model.vocab_size / tp,
                   n_layers=math.ceil(model.n_layers / layout.pp))
    names = {f.name for f in dataclasses.fields(model)}
    if "n_window_layers" in names and getattr(model, "n_window_layers", 0):
        changes["n_window_layers"] = math.ceil(model.n_window_layers / layout.pp)
    if "moe_ffn_size" in names and getattr(model, "moe_ffn_size", 0):  # routed experts narrower than ffn_size
        changes["moe_ffn_size"] = model.moe_ffn_size / tp
    if "n_dense_layers" in names and getattr(model, "n_dense_layers", 0):
        changes["n_dense_layers"] = math.ceil(model.n_dense_layers / layout.pp)
    return dataclasses.replace(model, **changes)


def _expert_resident_bytes(model: Model, formats: Formats) -> float:
    """Bytes of every expert's MLP weights (all layers), in the checkpoint's format."""
    wf, d = formats.weights_for("experts"), model.hidden_size
    f = getattr(model, "expert_ffn_size", model.ffn_size)
    layers = getattr(model, "n_moe_layers", model.n_layers)
    mats_in = 2 if model.gated_ffn else 1
    return layers * model.n_experts * (wf.bytes_per_weight(d) * d * mats_in * f + wf.bytes_per_weight(f) * f * d)


# ------------------------------------------------------------------------------ steps ------
@dataclass(frozen=True)
class ParallelStep:
    """A decode step or prefill under a layout: one device's kernels and collectives, and the step they make.

    `stage` is one device's kernels for one micro-batch on one pipeline stage; `collectives`
    are that device's TP or EP collectives for the same work; `sends` the activations passed
    between pipeline stages. A token crosses all pp stages:
    time = pp × (stage kernels + collectives) + sends. What is one device's alone (its FLOPs, bytes,
    formats, device, weights resident) is read from the stage: `step.stage.flops`. `record.step_record`
    writes the whole step under one name per quantity.
    """

    layout: Layout
    model: Model
    stage: kernels.KernelStep
    collectives: tuple[CollectivePoint, ...]
    sends: CollectivePoint | None
    batch: object
    micro_batch: object
    micro_batches: object
    kv_resident_bytes: object
    kv_note: str = ""
    latency: object = LATENCY_FLOOR   # the collective latency used: "floor", "ring" or seconds per collective

    @computed_once
    def ops(self) -> tuple:
        return self.stage.ops + self.collectives + ((self.sends,) if self.sends is not None else ())

    @computed_once
    def link_bytes(self):
        """Bytes one device sends over its link per step (its collectives and, under PP, one send)."""
        parts = [np.asarray(c.link_bytes, float) for c in self.collectives]
        if self.sends is not None:
            parts.append(np.asarray(self.sends.link_bytes, float) / max(self.layout.pp - 1, 1))
        return scalar(sum(parts, np.asarray(0.0)))

    @computed_once
    def network_bytes(self):
        """Bytes sent across nodes in one step, per device: the network's share of each collective and of the
        pipeline sends (0 inside one scale-up domain)."""
        return scalar(sum((np.asarray(c.network_bytes, float) for c in self._network_runs), np.asarray(0.0)))

    @computed_once
    def network_time_s(self):
        """The scale-out network's time carrying `network_bytes` at its bandwidth, latency aside."""
        return scalar(sum((np.asarray(c.network_bytes, float) / c.network_bandwidth_bytes_per_s
                           for c in self._network_runs), np.asarray(0.0)))

    @computed_once
    def network_share(self):
        """`network_time_s` as a share of the step's time."""
        return scalar(np.asarray(self.network_time_s, float) / np.asarray(self.time_s, float))

    @property
    def _network_runs(self) -> tuple:
        return tuple(c for c in self.collectives + ((self.sends,) if self.sends is not None else ())
                     if c.network_share)

    @computed_once
    def collective_time_s(self):
        """One stage's collectives: Σ latency + bytes ÷ link bandwidth."""
        return scalar(sum((np.asarray(c.time_s, float) for c in self.collectives), np.asarray(0.0)))

    @computed_once
    def kernel_time_s(self):
        """Time in the devices' own kernels per step: pp stages of one device's kernels."""
        return scalar(self.layout.pp * np.asarray(self.stage.time_s))

    @computed_once
    def collective_latency_share(self):
        """Share of the collectives' time that is latency (bytes move in the rest)."""
        lat = sum(c.latency_s for c in self.collectives)
        tot = np.asarray(self.collective_time_s, float)
        return scalar(np.where(tot > 0, lat / np.where(tot > 0, tot, 1.0), 0.0))

    @computed_once
    def stage_time_s(self):
        return scalar(np.asarray(self.stage.time_s) + self.collective_time_s)

    @computed_once
    def time_s(self):
        """Time between a sequence's tokens: pp stages of kernels plus collectives, plus the sends between them."""
        t = self.stage.time_s if not self.collectives and self.layout.pp == 1 else \
            self.layout.pp * np.asarray(self.stage_time_s)
        if self.sends is not None:
            t = t + np.asarray(self.sends.time_s)
        return scalar(t)

    @computed_once
    def time_perfect_overlap_s(self):
        """Lower bound: each stage's perfect-overlap time or its collectives, whichever is longer."""
        if not self.collectives and self.layout.pp == 1:
            return self.stage.time_perfect_overlap_s
        t = self.layout.pp * np.maximum(self.stage.time_perfect_overlap_s, self.collective_time_s)
        if self.sends is not None:
            t = t + np.asarray(self.sends.time_s)
        return scalar(t)

    @computed_once
    def bound(self):
        """Where collectives take at least half of a stage, what binds there: 'collective latency-bound'
        where latency is at least half of the collectives' time, else 'link-bandwidth-bound'; otherwise
        the kernels' bound."""
        coll = np.asarray(self.collective_time_s) * 2 >= np.asarray(self.stage_time_s)
        which = np.where(np.asarray(self.collective_latency_share) >= 0.5, COLLECTIVE_LATENCY_BOUND, LINK_BANDWIDTH_BOUND)
        return scalar(np.where(coll, which, np.asarray(self.stage.bound)))

    @computed_once
    def latency_description(self) -> str:
        """Which collective latency the step's figures use (empty without collectives)."""
        if self.layout.replica_devices == 1 or self.stage.device.interconnect is None:
            return ""
        text = latency_description(self.stage.device.interconnect, self.latency)
        net = self.stage.device.network
        if net is not None and any(c.network_share for c in self.collectives + ((self.sends,) if self.sends else ())):
            from roofline import format as fmt
            text += (f"; across nodes at least the network's floor, {fmt.seconds(net.latency_floor_s)} "
                     f"({net.link})")
            if self.latency == LATENCY_RING:
                eff_link, eff_net = ep_expected_efficiency()
                text += (f", each link at DeepEP's measured share of its spec ({eff_link:.0%} scale-up, "
                         f"{eff_net:.0%} network)")
        return text

    @computed_once
    def tokens_per_s(self):
        return scalar(np.asarray(self.batch) * self.stage.tokens_per_sequence / self.time_s)

    @computed_once
    def tokens_per_s_per_sequence(self):
        return scalar(np.asarray(self.stage.tokens_per_sequence) / self.time_s)

    @computed_once
    def tokens_per_s_per_device(self):
        return scalar(np.asarray(self.tokens_per_s) / self.layout.devices)

    @computed_once
    def link_intensity(self):
        """A stage's FLOPs per byte its device sends over the link (compare with `link_ridge_point`)."""
        lb = np.asarray(self.link_bytes, float)
        with np.errstate(divide="ignore", invalid="ignore"):
            return scalar(np.where(lb > 0, np.asarray(self.stage.flops, float) / np.where(lb > 0, lb, 1.0), np.inf))

    @computed_once
    def link_ridge_point(self):
        if self.stage.device.interconnect is None:
            return None
        d = self.stage.device
        return d.peak_flop_per_s(self.stage.matmul_dtype) / d.interconnect.bandwidth_bytes_per_s_per_direction

    @computed_once
    def bubble_fraction(self):
        """Share of each stage's time it idles: 1 − micro-batches ÷ pp (0 without pipeline parallelism)."""
        return scalar(1.0 - np.asarray(self.micro_batches, float) / self.layout.pp)

    @computed_once
    def memory_required_bytes(self):
        """Per device: its weights + its sequences' KV cache + activations + the runtime reserve."""
        return scalar(self.stage.weights_resident_bytes + np.asarray(self.kv_resident_bytes)
                               + self.stage.activation_peak_bytes + self.stage.runtime_reserve_bytes)

    @computed_once
    def fits(self):
        return scalar(np.asarray(self.memory_required_bytes) <= kernels.usable_memory_bytes(self.stage.device))


def on_one_device(stage: kernels.KernelStep) -> ParallelStep:
    """A step of `kernels.decode` or `kernels.prefill` as the one-device layout's step (no collectives,
    one micro-batch of the whole batch), so that `record.step_record` reads it as it reads any layout's."""
    batch = np.asarray(stage.batch, float)
    return ParallelStep(Layout(), stage.model, stage, (), None, scalar(batch), scalar(np.ceil(batch)),
                        scalar(np.minimum(np.ceil(batch), 1)), stage.kv_resident_bytes)


def _step(phase: str, model: Model, device: Device, layout: Layout, batch, length, formats, attention,
          latency="floor", cache_hit_rate=0.0) -> ParallelStep:
    layout = layout or Layout()
    latency = check_latency(latency)
    check_layout(model, device, layout)
    b = kernels.check_size("batch", batch)
    # Data parallelism: each replica serves ⌈B ÷ dp⌉ sequences; EP's data-parallel attention splits them again.
    per_replica = np.ceil(b / layout.dp)
    per_device = np.ceil(per_replica / layout.ep)
    micro_batches = np.minimum(per_device, layout.pp)
    micro = np.ceil(per_device / micro_batches)
    part = shard(model, layout)

    def run(m: Model, b):
        if phase == "decode":
            return kernels.decode(m, device, b, length, formats, attention)
        return kernels.prefill(m, device, length, b, formats, attention, cache_hit_rate)

    stage = run(part, micro)
    # the tokens the collectives carry: the prompt tokens computed (a prefix-cache hit sends none)
    tokens = micro * (np.asarray(stage.tokens_per_sequence, float) if phase == "prefill" else 1.0)
    return _assemble(model, device, layout, part, stage, lambda: run(part, np.ceil(per_replica / micro_batches)),
                     tokens, micro, b, micro, micro_batches, latency)


def _assemble(model: Model, device: Device, layout: Layout, part: Model, stage: kernels.KernelStep, whole,
              tokens, logit_rows, batch, micro, micro_batches, latency="floor") -> ParallelStep:
    """One device's stage plus the collectives its layout adds. `tokens`: the tokens of one
    micro-batch on this device; `logit_rows`: the positions whose logits it gathers; `whole()`:
    the whole replica's micro-batch on this stage (EP reads its experts' weights from it)."""
    if layout.is_single:
        return ParallelStep(layout, model, stage, (), None, scalar(batch), scalar(micro),
                            scalar(micro_batches), stage.kv_resident_bytes, latency=latency)
    f = stage.formats
    peak = device.peak_flop_per_s(stage.matmul_dtype)
    ic = device.interconnect
    d, a = model.hidden_size, f.activation_bytes
    L = part.n_layers
    coll: list[CollectivePoint] = []
    if layout.tp > 1:
        n = layout.tp
        act = tokens * d * a  # one micro-batch's residual stream
        coll += [collective("all-reduce", act, n, ic, peak, "embed_all_reduce", 1, latency),
                 collective("all-reduce", act, n, ic, peak, "attn_all_reduce", L, latency),
                 collective("all-reduce", act, n, ic, peak, "mlp_all_reduce", L, latency),
                 collective("all-gather", logit_rows * model.vocab_size * a, n, ic, peak, "logits_all_gather", 1, latency)]
    if layout.ep > 1:
        n = layout.ep
        # each rank holds (E + r) ÷ ep expert copies: 1/ep of the experts, times (E + r) ÷ E for the copies
        held = (model.n_experts + layout.redundant_experts) / (model.n_experts * n)
        imb = layout.expert_imbalance
        # the full batch's expert weights, shared out: each device reads its share of the experts the batch touches
        expert_w = {k.name: k.weight_bytes for k in whole().ops if k.name.startswith("experts_")}  # tp is 1 with ep
        ops = tuple(_busiest_rank(dataclasses.replace(k, weight_bytes=scalar(np.asarray(expert_w[k.name]) * held)),
                                  imb) if k.name in expert_w else
                    (_busiest_rank(k, imb) if k.name == "mlp_act" and model.is_moe else k) for k in stage.ops)
        resident = stage.weights_resident_bytes - _expert_resident_bytes(part, f) * (1 - held)
        stage = dataclasses.replace(stage, ops=ops, weights_resident_bytes=resident)
        # each routed copy of a token goes to its expert's rank; the busiest rank receives (dispatch) and
        # sends back (combine) `imb` times the mean
        routed = tokens * model.experts_per_token * d * a * imb
        coll += [ep_all_to_all(routed, n, device, peak, "moe_dispatch_all_to_all", L, latency),
                 ep_all_to_all(routed, n, device, peak, "moe_combine_all_to_all", L, latency)]
    sends = None
    if layout.pp > 1:
        sends = pipeline_sends(tokens * d * a, layout, device, peak, latency)
    # KV: the stage's cache for one micro-batch, times the micro-batches this device holds
    kv = np.asarray(stage.kv_resident_bytes) * micro_batches
    note = ""
    if not model.is_bare and layout.tp > model.kv_heads:  # a bare count has no KV heads to replicate
        note = (f"{model.kv_heads} KV heads over {layout.tp} devices: each device keeps a copy of one KV head "
                f"({layout.tp // model.kv_heads} copies of each)")
    return ParallelStep(layout, model, stage, tuple(coll), sends, scalar(batch), scalar(micro),
                        scalar(micro_batches), scalar(kv), note, latency)


def mixed(model: Model, device: Device, work: kernels.MixedWork, formats: Formats | None = None,
          attention: str = "fused", layout: Layout | None = None, latency="floor") -> ParallelStep:
    """One engine step of one replica (`work`: its decode tokens and prefill chunk) under `layout`.

    As `decode`: EP gives each device 1/ep of the requests for attention; PP runs the step as
    min(requests per device, pp) micro-batches (at least one); collectives are sized by one
    micro-batch's tokens, the logits all-gather by its logit rows. Data parallelism is the
    caller's: `work` is one replica's.
    """
    layout = layout or Layout()
    check_layout(model, device, layout)
    per_device = np.asarray(work.requests, float) / layout.ep
    micro_batches = np.clip(np.ceil(per_device), 1, layout.pp)
    share = 1.0 / (layout.ep * micro_batches)
    part = shard(model, layout)
    micro = work.scaled(share)
    stage = kernels.mixed(part, device, micro, formats, attention)
    return _assemble(model, device, layout, part, stage,
                     lambda: kernels.mixed(part, device, work.scaled(1.0 / micro_batches), formats, attention),
                     np.asarray(micro.tokens, float), np.asarray(micro.head_tokens, float),
                     scalar(work.requests), scalar(micro.requests), micro_batches,
                     check_latency(latency))


@kernels.remembered
def decode(model: Model, device: Device, batch=1, context_len=1, formats: Formats | None = None,
           attention: str = "fused", layout: Layout | None = None, latency="floor") -> ParallelStep:
    """One decode step of `batch` sequences with `context_len` tokens cached, under `layout`.

    With `Layout()` (one device) it is `kernels.decode` exactly, with no collectives.

    >>> s = decode(get_model("llama-3.1-70b"), get_device("h100-sxm5"), 1, 1024, layout=Layout(tp=8))
    >>> [c.name for c in s.collectives][:2]
    ['embed_all_reduce', 'attn_all_reduce']
    """
    return _step("decode", model, device, layout, batch, context_len, formats, attention, latency)


@kernels.remembered
def prefill(model: Model, device: Device, prompt_len, batch=1, formats: Formats | None = None,
            attention: str = "fused", layout: Layout | None = None, latency="floor",
            cache_hit_rate=0.0) -> ParallelStep:
    """A prefill of `prompt_len` tokens for each of `batch` sequences under `layout` (time to first token).

    `cache_hit_rate`: the share of the prompt a prefix cache holds (`kernels.cached_prompt_tokens`);
    0 (the default) is the plain prefill, 1 leaves only the last token to compute.
    """
    return _step("prefill", model, device, layout, batch, prompt_len, formats, attention, latency, cache_hit_rate)


# -------------------------------------------------------------------------------- fit ------
def max_batch_that_fits(model: Model, device: Device, context_len, formats: Formats | None = None,
                        attention: str = "fused", layout: Layout | None = None, limit: int = 1 << 20) -> int:
    """The largest decode batch (all replicas) whose per-device memory fits at `context_len` (0 if none)."""
    layout = layout or Layout()

    def over(batches: np.ndarray) -> np.ndarray:
        # One vectorised step over all the batches asked (the step is elementwise in the batch):
        # about 5 calls instead of the 40 a scalar bisection makes (most of the calculator's time).
        step = decode(model, device, batches, context_len, formats, attention, layout)
        return ~np.broadcast_to(np.asarray(step.fits), batches.shape)

    # Memory grows with the batch, so the batches that do not fit are all those past the first one.
    first_over = kernels.first_true(over, int(limit))
    return int(limit) if first_over is None else first_over - 1


@dataclass(frozen=True)
class LayoutLimits:
    """A layout's limits, computed together by `limits` so none contradicts the step beside it.

    The speed of light is a decode step's weights alone: each device reads its own share of the
    weights once per token (1/tp of every matrix, 1/ep of the experts a token routes to), at the
    spec bandwidth, and a token crosses the pp stages in turn; the KV cache, activations and
    collectives are left out, so no layout's decode tokens/s per sequence exceeds it. The link
    limit is the collectives and pipeline sends alone at batch 1, at the latency the step uses.
    """

    layout: Layout
    weight_bytes_per_device: float       # weights one device reads per token in one stage (batch 1)
    bandwidth_bytes_per_s: float
    speed_of_light_tokens_per_s: float   # bandwidth ÷ (pp × weight_bytes_per_device)
    link_time_s: float                   # batch 1: pp × collectives + sends (0 on one device)
    link_tokens_per_s: float | None      # 1 ÷ link_time_s; None where nothing crosses a link
    link_ridge_point: float | None       # peak ÷ link bandwidth: the link's roof
    max_batch_that_fits: int | None      # the memory limit at the context asked (None: a bare count)
    latency: object
    latency_description: str
    assumes: str


def speed_of_light_tokens_per_s(model: Model, device: Device, formats: Formats | None = None,
                                layout: Layout | None = None) -> float:
    """A layout's speed of light: bandwidth ÷ (pp × the weight bytes one device reads per token at batch 1).

    On one device it is `kernels.speed_of_light_tokens_per_s`; see `LayoutLimits` for what it assumes.

    >>> round(speed_of_light_tokens_per_s(get_model("llama-3.1-70b"), get_device("h100-sxm5"), layout=Layout(tp=8)))
    193
    """
    layout = layout or Layout()
    one = decode(model, device, 1, 1, formats, "fused", layout)
    return device.memory_bandwidth_bytes_per_s / (layout.pp * float(one.stage.weight_bytes))


def limits(model: Model, device: Device, context_len=1, formats: Formats | None = None, attention: str = "fused",
           layout: Layout | None = None, latency="floor") -> LayoutLimits:
    """Every limit of one layout (speed of light, link, memory): the one function the CLI, the
    calculator's reference and the pages read.

    >>> lim = limits(get_model("llama-3.1-70b"), get_device("h100-sxm5"), 4096, layout=Layout(tp=8))
    >>> lim.speed_of_light_tokens_per_s > decode(get_model("llama-3.1-70b"), get_device("h100-sxm5"), 1, 4096,
    ...                                           layout=Layout(tp=8)).tokens_per_s_per_sequence
    True
    """
    layout = layout or Layout()
    one = decode(model, device, 1, 1, formats, "fused", layout, latency)
    weights = float(one.stage.weight_bytes)
    bw = device.memory_bandwidth_bytes_per_s
    link = float(layout.pp * np.asarray(one.collective_time_s)) + (float(one.sends.time_s) if one.sends else 0.0)
    share = [what for cond, what in ((layout.tp > 1, f"1/{layout.tp} of every matrix"),
                                     (layout.ep > 1, f"1/{layout.ep} of the experts a token routes to"),
                                     (layout.pp > 1, f"1/{layout.pp} of the layers, the stages in turn")) if cond]
    assumes = ("weights only: each device reads " + ", ".join(share) + " once per token at the spec bandwidth; "
               "KV cache, activations and collectives left out") if share else \
        "weights only: every weight read once per token at the spec bandwidth; KV cache and activations left out"
    return LayoutLimits(
        layout=layout, weight_bytes_per_device=weights, bandwidth_bytes_per_s=bw,
        speed_of_light_tokens_per_s=speed_of_light_tokens_per_s(model, device, formats, layout),
        link_time_s=link, link_tokens_per_s=1.0 / link if link > 0 else None,
        link_ridge_point=None if layout.replica_devices == 1 else one.link_ridge_point,
        max_batch_that_fits=None if model.is_bare else max_batch_that_fits(model, device, context_len, formats,
                                                                            attention, layout),
        latency=one.latency, latency_description=one.latency_description, assumes=assumes)


def node_devices(device: Device, nodes, option: str = "--nodes") -> int:
    """Devices in `nodes` machines (one node: the scale-up domain where no network is recorded), or one sentence
    naming `option`.

    >>> node_devices(get_device("h100-sxm5"), 12)  # SGLang's 96-GPU deployment: 12 nodes of 8
    96
    """
    n = _degree(option, nodes)
    if n == 1:
        return device.network.node_devices if device.network else (device.interconnect.domain_devices
                                                                   if device.interconnect else 1)
    if device.network is None:
        raise InputError(f"{option} {n}: {device.network_note}, so layouts stay inside one node")
    per = device.network.node_devices
    if n * per > MAX_DEGREE:
        raise InputError(f"{option} {n}: {n:,} nodes of {per} hold {n * per:,} devices; a layout spans at most "
                         f"{MAX_DEGREE:,}, so give at most {MAX_DEGREE // per:,} nodes")
    return n * per


def node_layout(model: Model, device: Device, nodes, redundant_experts: int = 0, expert_imbalance: float = 1.0) -> Layout:
    """The layout the field runs on `nodes` machines: for a mixture of experts, expert parallelism over
    every device with data-parallel attention (as DeepSeek's and SGLang's deployments do); for a dense
    model, tensor parallelism inside each scale-up domain and pipeline stages across them.

    >>> node_layout(get_model("deepseek-v3"), get_device("h100-sxm5"), 2).name
    'EP16'
    """
    n = node_devices(device, nodes)
    if model.is_moe and not model.is_bare:
        lay = Layout(ep=n, redundant_experts=redundant_experts, expert_imbalance=expert_imbalance)
        try:
            check_layout(model, device, lay)
        except InputError as err:
            raise InputError(f"--nodes {nodes}: {err}") from None
        return lay
    try:
        lay = engine_layout(model, device, n)
        return Layout(lay.tp, lay.pp, lay.ep, lay.dp, redundant_experts, expert_imbalance)
    except InputError as err:
        raise InputError(f"--nodes {nodes}: {err}") from None


def check_nodes(layout: Layout, device: Device, nodes) -> None:
    """Refuse a node count the layout does not fill exactly, naming both."""
    n = node_devices(device, nodes)
    if layout.devices != n:
        raise InputError(f"--nodes {nodes}: {nodes} node{'s' if nodes != 1 else ''} of {device.name}s hold {n} "
                         f"devices but {layout.name} uses {layout.devices}; give a layout over all {n} or fewer nodes")


def candidate_layouts(model: Model, device: Device, max_devices: int | None = None, nodes: int = 1) -> list[Layout]:
    """Layouts within one scale-up domain, fewest devices first: TP, then PP, EP and DP at each count.

    With `nodes` > 1, the layouts over every device of that many machines instead: EP over all of them
    (where the experts divide), TP inside a domain with PP or DP across domains, EP in a domain with DP.
    """
    if nodes != 1:
        return _node_candidates(model, device, nodes)
    ic = device.interconnect
    top = ic.domain_devices if ic else 1
    if max_devices:
        top = min(top, max_devices)
    out, n = [Layout()], 2
    while n <= top:
        for lay in (Layout(tp=n), Layout(ep=n), Layout(pp=n), Layout(dp=n)):
            try:
                check_layout(model, device, lay)
            except InputError:
                continue
            out.append(lay)
        n *= 2
    return out


def _node_candidates(model: Model, device: Device, nodes) -> list[Layout]:
    n, domain = node_devices(device, nodes), device.interconnect.domain_devices
    out: list[Layout] = []
    tp = 1
    while tp <= min(domain, n):
        if n % tp == 0:
            out += [Layout(tp=tp, pp=n // tp), Layout(tp=tp, dp=n // tp)]
        tp *= 2
    out += [Layout(ep=n)] + [Layout(ep=e, dp=n // e) for e in range(2, n) if n % e == 0 and e % domain == 0
                              or (n % e == 0 and e == domain)]
    keep = []
    for lay in out:
        try:
            check_layout(model, device, lay)
        except InputError:
            continue
        if lay not in keep:
            keep.append(lay)
    return keep


def engine_layout(model: Model, device: Device, devices: int) -> Layout:
    """The layout an engine such as vLLM picks for `devices` devices: tensor parallelism inside the
    scale-up domain, as wide as the attention heads allow, and pipeline stages for the rest.

    >>> engine_layout(get_model("llama-3.1-70b"), get_device("h100-sxm5"), 8).name
    'TP8'
    """
    n = _degree("--devices", devices)
    if n == 1:
        return Layout()
    tp = min(n, device.interconnect.domain_devices) if device.interconnect else n  # TP stays inside a domain
    while tp > 1 and (model.n_heads % tp or (model.kv_heads % tp and tp % model.kv_heads) or n % tp):
        tp -= 1
    lay = Layout(tp=tp, pp=n // tp)
    try:
        check_layout(model, device, lay)
    except InputError as err:
        raise InputError(f"--devices {n}: {err}") from None
    return lay


def smallest_layout(model: Model, device: Device, batch=1, context_len=1, formats: Formats | None = None,
                    attention: str = "fused") -> Layout | None:
    """The layout with the fewest devices on which `batch` sequences at `context_len` fit (None: not in one domain)."""
    for lay in candidate_layouts(model, device):
        if lay.dp > 1:
            continue  # replicas never make a model fit
        if bool(decode(model, device, batch, context_len, formats, attention, lay).fits):
            return lay
    return None
