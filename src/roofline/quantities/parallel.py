"""Tokens about many devices (docs/many-chips.md): links, collectives and parallel layouts."""

from __future__ import annotations

from roofline.model import parallel as _par
from roofline.model import record
from roofline.model.dtypes import peak_unit
from roofline.model.formats import Formats
from roofline.quantities.core import Input, Quantity, Source, Term, as_device, as_model, bandwidth_input, model_inputs

_LAYOUT_FIELDS = {
    "tokens_per_s_per_sequence": ("tokens/s", "decode tokens/s per sequence"),
    "tokens_per_s": ("tokens/s", "decode tokens/s, whole batch"),
    "tokens_per_s_per_device": ("tokens/s", "decode tokens/s per device"),
    "time_s": ("s", "decode step time"),
    "collective_time_s": ("s", "collective time per stage"),
    "kernel_time_s": ("s", "time in the devices' own kernels"),
    "collective_latency_share": ("%", "share of the collectives' time that is latency"),
    "stage_time_s": ("s", "one device's kernels plus collectives per stage"),
    "weights_resident_bytes": ("B", "weights per device"),
    "kv_resident_bytes": ("B", "KV cache per device"),
    "memory_required_bytes": ("B", "memory per device"),
    "link_bytes": ("B", "bytes each device sends over its link per step"),
    "link_intensity": ("FLOP/byte", "FLOPs per byte sent over the link"),
    "bubble_fraction": ("%", "pipeline bubble"),
}


def _n(x) -> int:
    """A whole number from an int, a float or a Quantity (example() tokens are Quantities)."""
    return int(float(x))


def _link_inputs(d, latency="floor") -> tuple[Input, ...]:
    """The link's bandwidth and the latency a figure uses (the floor, an NCCL ring's, or the reader's)."""
    ic = _par.require_interconnect(d, "a collective")
    bw = Input(f"{d.name} {ic.link} bandwidth per direction", ic.bandwidth_bytes_per_s_per_direction, "B/s",
               Source(f"{d.name} scale-up link", ic.source_url))
    if latency == _par.LATENCY_RING:
        return (bw, Input("collective latency (NCCL ring, expected): base", ic.latency_base_s, "s",
                          Source("nccl-tests small-message runs", ic.latency_source_url)),
                Input("collective latency (NCCL ring, expected): per ring step", ic.latency_per_step_s, "s",
                      Source("nccl-tests small-message runs", ic.latency_source_url)))
    if latency == _par.LATENCY_FLOOR:
        return (bw, Input("collective latency floor, per collective", ic.latency_floor_s, "s",
                          Source("fastest published small-message all-reduce", ic.latency_floor_source_url)),)
    return (bw, Input("collective latency, per collective (set)", float(latency), "s", Source("set on this page", "")))


def link_bandwidth(hw) -> Quantity:
    """A device's scale-up link bandwidth, one direction: {{ link_bandwidth("h100-sxm5") }}."""
    d = as_device(hw)
    ic = _par.require_interconnect(d, "a link bandwidth")
    return Quantity(ic.bandwidth_bytes_per_s_per_direction, "B/s", f"{d.name} {ic.link} bandwidth per direction",
                    "vendor per-GPU link bandwidth (both directions) ÷ 2", _link_inputs(d)[:1],
                    arithmetic=(Term(2 * ic.bandwidth_bytes_per_s_per_direction, "B/s"), "÷", Term(2.0)))


def domain_devices(hw) -> Quantity:
    """Devices one scale-up domain joins (8 for HGX, 72 for GB200 NVL72)."""
    d = as_device(hw)
    ic = _par.require_interconnect(d, "a scale-up domain")
    return Quantity(ic.domain_devices, "", f"devices in one {d.name} scale-up domain ({ic.link})", "vendor figure",
                    (Input(f"{d.name} scale-up domain", ic.domain_devices, "", Source(ic.link, ic.source_url)),))


def latency_floor(hw) -> Quantity:
    """The link's collective latency floor: {{ latency_floor("h100-sxm5") }} (what ceilings use)."""
    d = as_device(hw)
    ic = _par.require_interconnect(d, "a collective latency")
    return Quantity(ic.latency_floor_s, "s", f"{d.name} collective latency floor ({ic.link})",
                    "fastest published small-message all-reduce for the link class", _link_inputs(d)[1:])


def link_ridge(hw, dtype: str = "bf16") -> Quantity:
    """The link's ridge: dense peak ÷ link bandwidth per direction, FLOPs per byte sent."""
    d = as_device(hw)
    bw = _par.require_interconnect(d, "a link ridge point").bandwidth_bytes_per_s_per_direction
    return Quantity(_par.link_ridge_point(d, dtype), "FLOP/byte", f"{d.name} link ridge point ({dtype})",
                    "dense peak ÷ link bandwidth per direction", _link_inputs(d)[:1],
                    arithmetic=(Term(d.peak_flop_per_s(dtype), peak_unit(dtype)), "÷", Term(bw, "B/s")))


def collective_time(hw, kind: str, payload_bytes: float, devices: int, part: str = "time_s",
                    latency="floor") -> Quantity:
    """One collective of `payload_bytes` over `devices` devices: time (latency + bytes ÷ link), latency or link bytes."""
    d = as_device(hw)
    payload_bytes, devices = float(payload_bytes), _n(devices)
    c = _par.collective(kind, payload_bytes, devices, _par.require_interconnect(d, kind),
                        d.peak_flop_per_s(), latency=latency)
    value, unit, what = {"time_s": (c.time_s, "s", "time"), "latency_s": (c.latency_s, "s", "latency"),
                         "link_bytes": (c.link_bytes, "B", "bytes sent per device"),
                         "transfer_time_s": (c.transfer_time_s, "s", "transfer time")}[part]
    from roofline import format as fmt

    how = ("NCCL ring: latency base + steps × per-step latency" if latency == _par.LATENCY_RING
           else "latency per collective") + " + factor × bytes ÷ link bandwidth"
    line = _collective_line(c, part)
    if part == "latency_s" and latency == _par.LATENCY_RING and _par.ring_steps(kind, devices):
        ic = _par.require_interconnect(d, kind)
        line = (Term(ic.latency_base_s, "s"), "+", Term(float(_par.ring_steps(kind, devices))), "×",
                Term(ic.latency_per_step_s, "s"))
    return Quantity(value, unit, f"{kind} of {fmt.nbytes(payload_bytes)} over {devices} {d.name}s: {what}", how,
                    _link_inputs(d, latency), arithmetic=line)


def _collective_line(c, part: str) -> tuple:
    """The arithmetic of one collective's figure: latency + bytes sent ÷ link bandwidth, or a part of it."""
    transfer = (Term(float(c.link_bytes), "B"), "÷", Term(c.link_bandwidth_bytes_per_s, "B/s"))
    latency = (Term(c.latency_s, "s"),) if c.count == 1 else (Term(float(c.count)), "×", Term(c.latency_per_run_s, "s"))
    return {"time_s": (*latency, "+", *transfer), "transfer_time_s": transfer, "latency_s": latency if c.count > 1 else (),
            "link_bytes": (Term(float(c.count) * _par.ring_factor(c.kind, c.devices)), "×", Term(float(c.payload_bytes), "B"))}[part]


def _layout_line(s, what: str) -> tuple:
    """The arithmetic of one figure of a layout's step (empty where it is a sum over kernels or a count)."""
    lay, t = s.layout, Term(float(s.time_s), "s")
    colls = s.collectives
    lat = sum(c.latency_s for c in colls)
    stage, coll = Term(float(s.stage.time_s), "s"), Term(float(s.collective_time_s), "s")
    if what == "tokens_per_s_per_sequence":
        return (Term(float(s.stage.tokens_per_sequence)), "÷", t)
    if what == "tokens_per_s":
        return (Term(float(s.batch)), "÷", t) if s.stage.phase == "decode" else \
            (Term(float(s.batch)), "×", Term(float(s.stage.tokens_per_sequence)), "÷", t)
    if what == "tokens_per_s_per_device":
        return (Term(float(s.tokens_per_s), "tokens/s"), "÷", Term(float(lay.devices)))
    if what == "collective_time_s" and colls:
        bw = colls[0].link_bandwidth_bytes_per_s
        return (Term(lat, "s"), "+", Term(float(sum(float(c.link_bytes) for c in colls)), "B"), "÷", Term(bw, "B/s"))
    if what == "collective_latency_share" and colls:
        return (Term(lat, "s"), "÷", coll)
    if what == "stage_time_s" and colls:
        return (stage, "+", coll)
    if what == "kernel_time_s" and lay.pp > 1:
        return (Term(float(lay.pp)), "×", stage)
    if what == "link_intensity" and float(s.link_bytes) > 0:
        return (Term(float(s.stage.flops), "FLOP"), "÷", Term(float(s.link_bytes), "B"))
    if what == "bubble_fraction" and lay.pp > 1:
        return (Term(1.0), "−", Term(float(s.micro_batches)), "÷", Term(float(lay.pp)))
    if what == "time_s" and (colls or lay.pp > 1):
        send = ("+", Term(float(s.sends.time_s), "s")) if s.sends is not None else ()
        one = (stage, "+", coll) if colls else (stage,)
        return ((*one, *send) if lay.pp == 1 else (Term(float(lay.pp)), "×", "(", *one, ")", *send))
    if what == "memory_required_bytes":
        return (Term(float(s.stage.weights_resident_bytes), "B"), "+", Term(float(s.kv_resident_bytes), "B"), "+",
                Term(float(s.stage.activation_peak_bytes), "B"), "+", Term(float(s.stage.runtime_reserve_bytes), "B"))
    return ()


def layout_decode(model, hw, batch: int = 1, context: int = 1, what: str = "tokens_per_s_per_sequence",
                  tp: int = 1, pp: int = 1, ep: int = 1, dp: int = 1, weights: str = "bf16", latency="floor") -> Quantity:
    """A decode step under a layout: {{ layout_decode("llama-3.1-70b", "h100-sxm5", 1, 1024, tp=8) }}.

    `latency`: "floor" (the ceiling's), "ring" (the expected NCCL ring's) or seconds per collective.
    `what` may also be "fits", "bound" (text) or "speed_of_light_tokens_per_s" (the layout's own).
    """
    m, d = as_model(model), as_device(hw)
    batch, context = _n(batch), _n(context)
    lay = _par.Layout(_n(tp), _n(pp), _n(ep), _n(dp))
    s = _par.decode(m, d, batch, context, Formats.of(weights), layout=lay, latency=latency)
    if what == "fits":
        return bool(s.fits)
    if what == "bound":
        return str(s.bound)
    if what == "speed_of_light_tokens_per_s":
        lim = _par.speed_of_light_tokens_per_s(m, d, Formats.of(weights), lay)
        read = float(_par.decode(m, d, 1, 1, Formats.of(weights), "fused", lay).stage.weight_bytes)  # as the limit divides
        stages = (Term(float(lay.pp)), "×") if lay.pp > 1 else ()
        return Quantity(lim, "tokens/s", f"speed of light: {m.name} on {lay.name} of {d.name}, batch 1, {weights}",
                        "bandwidth ÷ (stages × the weight bytes one device reads per token)",
                        (*model_inputs(m), bandwidth_input(d),
                         Input("weight bytes one device reads per token", read, "B")),
                        arithmetic=(Term(d.memory_bandwidth_bytes_per_s, "B/s"), "÷",
                                    *(("(", *stages, Term(read, "B"), ")") if stages else (Term(read, "B"),))))
    if not s.fits and what.startswith(("tokens", "time")):
        raise ValueError(f"{m.name} at batch {batch}, context {context} does not fit {lay.name} of {d.name}")
    unit, label = _LAYOUT_FIELDS[what]
    inputs = (*model_inputs(m), bandwidth_input(d), *(_link_inputs(d, latency) if not lay.is_single else ()))
    which = "" if lay.is_single else f", collective latency {s.latency_description}"
    return Quantity(float(record.step_record(s)[what]), unit,
                    f"{label}: {m.name} on {lay.name} of {d.name}, batch {batch}, context {context}, {weights}{which}",
                    "per device: its kernels' roofline times plus its collectives; pp stages in sequence", inputs,
                    arithmetic=_layout_line(s, what))


def tp_ceiling(model, hw, devices: int, context: int, weights: str = "bf16", latency="floor") -> Quantity:
    """Batch-1 decode ceiling under tensor parallelism over `devices` devices at `context` cached tokens
    (at the link's latency floor; latency="ring" gives the expected NCCL-ring figure)."""
    return layout_decode(model, hw, 1, context, "tokens_per_s_per_sequence", tp=_n(devices), weights=weights,
                         latency=latency)


def tp_speedup(model, hw, devices: int, batch: int = 1, context: int = 1, base: int = 1, latency="floor") -> Quantity:
    """tokens/s on TP `devices` ÷ tokens/s on TP `base` (the linear line would be devices ÷ base)."""
    hi = layout_decode(model, hw, batch, context, "tokens_per_s", tp=devices, latency=latency)
    lo = layout_decode(model, hw, batch, context, "tokens_per_s", tp=base, latency=latency)
    return Quantity(hi.value / lo.value, "x", f"speedup of TP{_n(devices)} over TP{_n(base)}", "tokens/s ÷ tokens/s",
                    hi.inputs, arithmetic=(Term(hi.value, "tokens/s"), "÷", Term(lo.value, "tokens/s")))


def smallest_devices(model, hw, batch: int = 1, context: int = 1) -> Quantity:
    """The fewest devices (within one scale-up domain) on which the model fits at this batch and context."""
    m, d = as_model(model), as_device(hw)
    batch, context = _n(batch), _n(context)
    lay = _par.smallest_layout(m, d, batch, context)
    if lay is None:
        raise ValueError(f"{m.name} does not fit one {d.name} scale-up domain at batch {batch}, context {context}")
    return Quantity(lay.devices, "", f"fewest {d.name}s that hold {m.name} at batch {batch}, context {context}",
                    "weights ÷ N + KV ÷ N + activations + reserve ≤ usable memory", (*model_inputs(m),))


def layout_max_batch(model, hw, context: int, tp: int = 1, pp: int = 1, ep: int = 1) -> Quantity:
    """The largest decode batch that fits per device under a layout at `context` cached tokens."""
    m, d = as_model(model), as_device(hw)
    context, lay = _n(context), _par.Layout(_n(tp), _n(pp), _n(ep))
    return Quantity(_par.max_batch_that_fits(m, d, context, layout=lay), "",
                    f"largest batch of {m.name} that fits {lay.name} of {d.name} at context {context}",
                    "usable memory per device ÷ per-sequence KV and activations", (*model_inputs(m),))


def kv_transfer_time(model, hw, prompt: int, kv_dtype: str = "bf16") -> Quantity:
    """Disaggregated serving: time to ship one prompt's KV cache from a prefill device to a decode device
    over the scale-up link (one send: latency + bytes ÷ link bandwidth)."""
    m, d, prompt = as_model(model), as_device(hw), _n(prompt)
    nbytes = m.kv_elements_per_token() * prompt * Formats.of("bf16", "bf16", kv_dtype).kv_bytes
    c = _par.collective("send", nbytes, 2, _par.require_interconnect(d, "shipping a KV cache"), d.peak_flop_per_s())
    return Quantity(c.time_s, "s", f"{m.name} KV cache of a {prompt}-token prompt over {d.interconnect.link}",
                    "latency floor + KV bytes ÷ link bandwidth per direction", (*model_inputs(m), *_link_inputs(d)),
                    arithmetic=_collective_line(c, "time_s"))


#: The token functions this topic adds to the namespace pages evaluate in.
TOKENS = (link_bandwidth, domain_devices, latency_floor, link_ridge, collective_time, layout_decode, tp_ceiling, tp_speedup,
          smallest_devices, layout_max_batch, kv_transfer_time)

__all__ = [fn.__name__ for fn in TOKENS]
