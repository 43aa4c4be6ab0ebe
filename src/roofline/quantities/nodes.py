"""Tokens about layouts across nodes (docs/many-chips.md "Beyond one node", docs/real-systems.md):
the scale-out network, what expert parallelism sends across it, KV over a NIC, published cross-node results."""

from __future__ import annotations

from roofline.model import parallel as _par
from roofline.model.formats import Formats, choose_weight_format
from roofline.quantities.core import Input, Quantity, Source, Term, as_device, as_model, model_inputs


def _n(x) -> int:
    return int(float(x))


def _network(d):
    if d.network is None:
        raise ValueError(f"{d.name}: {d.network_note}")
    return d.network


def _network_inputs(d) -> tuple[Input, ...]:
    net = _network(d)
    return (Input(f"{d.name} network bandwidth per direction ({net.link})", net.bandwidth_bytes_per_s_per_direction,
                  "B/s", Source(f"{d.name} node networking", net.source_url)),
            Input(f"{d.name} network latency floor", net.latency_floor_s, "s",
                  Source("fastest published node-to-node transfer", net.latency_source_url)))


def network_bandwidth(hw) -> Quantity:
    """A device's scale-out network bandwidth, one direction: {{ network_bandwidth("h100-sxm5") }}."""
    d = as_device(hw)
    net = _network(d)
    return Quantity(net.bandwidth_bytes_per_s_per_direction, "B/s", f"{d.name} network: one NIC's line rate each way",
                    "NIC line rate in bits/s ÷ 8 bits per byte", _network_inputs(d)[:1])


def network_latency(hw) -> Quantity:
    """The network's latency floor: {{ network_latency("h100-sxm5") }}."""
    d = as_device(hw)
    return Quantity(_network(d).latency_floor_s, "s", f"{d.name} network latency floor",
                    "fastest published one-way node-to-node transfer", _network_inputs(d)[1:])


def node_size(hw) -> Quantity:
    """Devices one node (machine) holds: {{ node_size("h100-sxm5") }}."""
    d = as_device(hw)
    return Quantity(float(_network(d).node_devices), "", f"{d.name}s per node", "as the vendor builds the node",
                    _network_inputs(d)[:1], digits=6)


def link_to_network(hw) -> Quantity:
    """How many times faster the scale-up link is than the network, per direction."""
    d = as_device(hw)
    ic, net = _par.require_interconnect(d, "a link"), _network(d)
    r = ic.bandwidth_bytes_per_s_per_direction / net.bandwidth_bytes_per_s_per_direction
    return Quantity(r, "x", f"{d.name} scale-up link ÷ network bandwidth", "link bandwidth ÷ network bandwidth",
                    _network_inputs(d)[:1],
                    arithmetic=(Term(ic.bandwidth_bytes_per_s_per_direction, "B/s"), "÷",
                                Term(net.bandwidth_bytes_per_s_per_direction, "B/s")))


def ep_network_share(hw, ep) -> Quantity:
    """Share of an EP all-to-all's sent bytes that crosses the network: (ep − g) ÷ (ep − 1)."""
    d, ep = as_device(hw), _n(ep)
    g = min(ep, d.interconnect.domain_devices)
    return Quantity(_par.ep_network_share(ep, d), "%", f"share of an EP{ep} all-to-all over the network on {d.name}s",
                    "(EP degree − ranks in the domain) ÷ (EP degree − 1)", _network_inputs(d)[:1],
                    arithmetic=("(", Term(float(ep)), "−", Term(float(g)), ")", "÷", "(", Term(float(ep)), "−",
                                Term(1.0), ")"))


def ep_network_bytes_per_token(model, hw, ep, activation: str = "fp8") -> Quantity:
    """Bytes one token's dispatch sends across the network per MoE layer: k × hidden × bytes × (ep − g) ÷ ep."""
    m, d, ep = as_model(model), as_device(hw), _n(ep)
    a = Formats.of("bf16", activation).activation_bytes
    g = min(ep, d.interconnect.domain_devices)
    v = m.experts_per_token * m.hidden_size * a * (ep - g) / ep
    return Quantity(v, "B", f"{m.name}: bytes one token's dispatch sends across the network per MoE layer, EP{ep} on "
                            f"{d.name}s, {activation} activations",
                    "experts per token × hidden size × bytes per value × (EP degree − ranks in the domain) ÷ EP degree",
                    (*model_inputs(m), *_network_inputs(d)[:1]),
                    arithmetic=(Term(float(m.experts_per_token)), "×", Term(float(m.hidden_size)), "×",
                                Term(float(a), "B"), "×", Term(float(ep - g)), "÷", Term(float(ep))))


def model_experts(model) -> Quantity:
    """A mixture-of-experts model's routed experts, from its config: {{ model_experts("kimi-k2") }}."""
    m = as_model(model)
    return Quantity(float(m.n_experts), "", f"{m.name} routed experts (config.json n_routed_experts)",
                    "from the model's config", model_inputs(m), digits=6)


def kv_over_network(model, hw, prompt, kv_dtype: str = "bf16") -> Quantity:
    """One prompt's KV cache sent to a decode node over one NIC: latency floor + bytes ÷ network bandwidth."""
    m, d, prompt = as_model(model), as_device(hw), _n(prompt)
    c = _par.kv_transfer(m, d, prompt, kv_dtype)
    return Quantity(float(c.time_s), "s", f"{m.name} KV cache of a {prompt}-token prompt ({kv_dtype}) over one "
                                          f"{d.name} NIC", "latency floor + KV bytes ÷ network bandwidth per direction",
                    (*model_inputs(m), *_network_inputs(d)),
                    arithmetic=(Term(c.latency_per_run_s, "s"), "+", Term(float(c.link_bytes), "B"), "÷",
                                Term(c.link_bandwidth_bytes_per_s, "B/s")))


def ep_decode(model, hw, nodes, batch_per_device, context, what: str = "tokens_per_s_per_device",
              latency="floor") -> Quantity:
    """Decode of `model` in its checkpoint format with EP over every device of `nodes` nodes (attention
    data-parallel), `batch_per_device` sequences per device: tokens/s per device at perfect overlap
    (the ceiling), or "network_time_share" (the network's share of the step's kernel + collective time),
    "collective_time_s", "network_bytes" (per device per step)."""
    m, d = as_model(model), as_device(hw)
    nodes, per, context = _n(nodes), _n(batch_per_device), _n(context)
    c = choose_weight_format(m)
    f = Formats.of(c.format, "fp8", "bf16", scope=c.scope)
    lay = _par.node_layout(m, d, nodes)
    s = _par.decode(m, d, per * lay.devices, context, f, layout=lay, latency=latency)
    label = f"{m.name} on {lay.name} over {nodes} {d.name} node{'s' if nodes > 1 else ''}, {per} sequences per device, " \
            f"context {context}, {c.format} weights, fp8 activations"
    inputs = (*model_inputs(m), *(_network_inputs(d) if d.network else ()))
    if what == "tokens_per_s_per_device":
        if not bool(s.fits):
            raise ValueError(f"{label}: does not fit")
        t = float(s.time_perfect_overlap_s)
        return Quantity(per / t, "tokens/s", f"decode ceiling per device: {label}",
                        "sequences per device ÷ the step's perfect-overlap time (the all-to-all hidden under compute "
                        "where it is shorter)", inputs, arithmetic=(Term(float(per)), "÷", Term(t, "s")))
    if what == "network_bytes":
        return Quantity(float(sum(float(x.network_bytes) for x in s.collectives)), "B",
                        f"bytes one device sends across the network per decode step: {label}",
                        "Σ over the MoE all-to-alls of their network share", inputs)
    if what == "collective_time_s":
        return Quantity(float(s.collective_time_s), "s", f"all-to-all time per decode step: {label}",
                        "Σ latency + the slower link's bytes ÷ bandwidth", inputs)
    if what == "network_time_share":
        d_net = d.network.bandwidth_bytes_per_s_per_direction if d.network else 1.0
        net = sum(float(x.network_bytes) for x in s.collectives) / d_net
        total = float(s.stage.time_s) + float(s.collective_time_s)
        return Quantity(net / total, "%", f"the network's share of the decode step: {label}",
                        "network bytes ÷ network bandwidth, over kernels + collectives", inputs)
    raise ValueError(f"ep_decode: what must be tokens_per_s_per_device, network_bytes, collective_time_s or "
                     f"network_time_share, got {what!r}")


# ------------------------------------------------------------ published results across nodes ------
def _result(ident: str):
    from roofline.registry.measurements import cross_node_results

    rows = cross_node_results()
    if ident not in rows:
        raise ValueError(f"no cross-node result {ident!r}; known: {', '.join(rows)}")
    return rows[ident]


def cross_node_result(ident: str):
    """A published cross-node result's record, for names and fields: {{ cross_node_result("…").system }}."""
    return _result(ident)


def cross_node_hit_rate(ident: str) -> Quantity:
    """A published result's prefix-cache hit rate, as its source states it."""
    r = _result(ident)
    return Quantity(r.cache_hit_rate, "%", f"{r.system}: share of input tokens served from a prefix cache",
                    "as published", (Input(f"published: {r.system} cache hit rate", r.cache_hit_rate, "",
                                           Source(r.source_title, r.source_url)),), 3)


def _published_input(r) -> Input:
    what = "output" if r.phase == "decode" else "input (cache hits included)"
    return Input(f"published: {r.system} {what} tokens/s per node ({r.date})", r.tokens_per_s_per_node, "tokens/s",
                 Source(r.source_title, r.source_url))


def _describe(r) -> str:
    hit = f", prefix-cache hit rate {r.cache_hit_rate:.1%}" if r.cache_hit_rate else ""
    length = "context" if r.phase == "decode" else "prompt"
    return (f"{r.model.name} {r.phase} on {r.nodes} nodes of {r.device.name}s ({r.layout_name}), weights "
            f"{r.weight_format}, activations {r.activation_format}, KV {r.kv_format}, {length} {r.context_tokens}{hit}")


def cross_node_published(ident: str) -> Quantity:
    """The published figure per device (per node ÷ devices per node)."""
    r = _result(ident)
    return Quantity(r.tokens_per_s_per_device, "tokens/s", f"published tokens/s per device: {_describe(r)}",
                    "as published per node ÷ devices per node", (_published_input(r),),
                    arithmetic=(Term(r.tokens_per_s_per_node, "tokens/s"), "÷", Term(float(r.node_devices))))


def cross_node_ceiling(ident: str) -> Quantity:
    """The package's ceiling per device for the result's layout, formats and lengths."""
    from roofline.model.cross_node import ceiling

    r = _result(ident)
    c = ceiling(r)
    return Quantity(c.tokens_per_s_per_device, "tokens/s",
                    f"ceiling tokens/s per device: {_describe(r)}; at {c.batch_per_device:g} sequences per device",
                    "perfect-overlap step with as many sequences as memory holds (decode) or the best prompts per device "
                    "(prefill), datasheet peaks, spec bandwidths, latency floors", (*model_inputs(r.model),
                                                                                    *_network_inputs(r.device)))


def cross_node_share(ident: str, digits: int = 2) -> Quantity:
    """Published ÷ ceiling for one result."""
    pub, ceil = cross_node_published(ident), cross_node_ceiling(ident)
    return Quantity(pub.value / ceil.value, "%", f"published as a share of the ceiling: {_describe(_result(ident))}",
                    "published ÷ ceiling", (*pub.inputs, *ceil.inputs), digits,
                    (Term(pub.value, "tokens/s"), "÷", Term(ceil.value, "tokens/s")))


def cross_node_max_share(digits: int = 2) -> Quantity:
    """The highest published ÷ ceiling over every cross-node result (a claim keeps it below 1)."""
    from roofline.registry.measurements import cross_node_results

    shares = {i: cross_node_share(i, digits) for i in cross_node_results()}
    top = max(shares, key=lambda i: shares[i].value)
    return Quantity(shares[top].value, "%", f"highest share of its ceiling over {len(shares)} published cross-node "
                                           f"results ({top})", "max over results of published ÷ ceiling",
                    shares[top].inputs, digits, shares[top].arithmetic)


def imbalance_example() -> Quantity:
    """A sourced lower bound on the expert imbalance a balancer leaves (SGLang LPLB's speedup)."""
    from roofline.registry.ep_communication import balancer_examples

    b = balancer_examples()["sglang-lplb-deepseek"]
    return Quantity(b.imbalance_at_least, "x", f"busiest EP rank ÷ mean under {b.library}, at least",
                    "1 + the speedup removing the residual imbalance gave", (Input(b.note[:120], b.speedup, "x",
                                                                                  Source(b.library, b.source_url)),),
                    digits=3)


#: The token functions this topic adds to the namespace pages evaluate in.
TOKENS = (model_experts, network_bandwidth, network_latency, node_size, link_to_network, ep_network_share, ep_network_bytes_per_token,
          kv_over_network, ep_decode, cross_node_result, cross_node_hit_rate, cross_node_published, cross_node_ceiling, cross_node_share,
          cross_node_max_share, imbalance_example)
