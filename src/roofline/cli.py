"""`roofline ...`: the package from the shell. Every command takes --json.

Bad input prints one line, `roofline: error: ...`, and exits with status 2.
"""

from __future__ import annotations

import argparse
import errno
import json
import math
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any, Sequence

from roofline import __version__
from roofline import format as fmt
from roofline.model.dtypes import PEAK_DTYPES, STORAGE_DTYPES
from roofline.errors import InputError, RooflineError
from roofline.registry.hardware import devices, get_device
from roofline.model import kernels, parallel, record
from roofline.model.serving import MAX_USD_PER_DEVICE_HOUR, MIN_USD_PER_DEVICE_HOUR
from roofline.model.formats import (ACTIVATION_DTYPES, BARE_PER_CHANNEL_NOTE, SCOPE_WORDS, WEIGHT_FORMAT_HELP,
                                    WEIGHT_SCOPES, Formats, WeightChoice, choose_weight_format, parse_weight_format)
from roofline.configs import model_from_arg
from roofline.model.dtypes import bytes_per_element
from roofline.model.ops import matmul_cost
from roofline.model.roofs import device_ridge_point
from roofline.registry.machine import load_doc as load_measurement_doc
from roofline.registry.models import Model, check_context, get_model, models

EXIT_USAGE = 2


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default where it has a meaningful one (not for flags or required options)."""

    def _get_help_string(self, action):
        if action.default is None or action.default is False or action.required:
            return action.help
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's own errors: one line, status 2
        raise InputError(message)


#: The largest batch, context, prompt or matmul dimension an option takes: past it a
#: result is a many-digit number about no real system, so the option is refused instead.
MAX_SIZE = 10**9


def _whole_number(name: str, minimum: int, maximum: int | None = MAX_SIZE):
    """An argparse type: a whole number in [minimum, maximum], refused in one sentence naming `name`."""
    def parse(text: str) -> int:
        shown = fmt.terminal(text)[:40]
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got {shown!r}") from None
        if not math.isfinite(value) or value < minimum or value != int(value):
            raise argparse.ArgumentTypeError(f"{name} must be a whole number ≥ {minimum}, got {shown!r}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{name} must be at most {maximum:.0e}, got {shown!r}")
        return int(value)
    return parse


def _positive_int(name: str):
    return _whole_number(name, 1)


def _number(name: str, low: float, high: float, unit: str = "", low_inclusive: bool = True):
    """An argparse type: a finite number in [low, high] ((low, high] where `low_inclusive` is false),
    refused in one sentence naming `name` (and the unit, where one is given)."""
    def parse(text: str) -> float:
        shown = fmt.terminal(text)[:40]
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number{' of ' + unit if unit else ''}, "
                                             f"got {shown!r}") from None
        above = value >= low if low_inclusive else value > low
        if not (math.isfinite(value) and above and value <= high):
            span = f"between {low:g} and {high:g}" if low_inclusive else f"above {low:g} and at most {high:g}"
            raise argparse.ArgumentTypeError(f"{name} must be {span}{' ' + unit if unit else ''}, got {shown!r}")
        return value
    return parse


def _table(rows: list[dict[str, Any]], columns: list[tuple[str, str]]) -> str:
    cells = [[label for _, label in columns]] + [[str(r[key]) for key, _ in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _emit(args, payload: dict[str, Any] | list, text: str) -> None:
    # JSON: valid always (null, never NaN or Infinity; whole numbers without ".0"); text: no escapes
    # from a file's label or name reach the terminal.
    print(json.dumps(fmt.json_safe(payload), indent=2, allow_nan=False) if args.json else fmt.terminal(text))


# ------------------------------------------------------------------ commands -------------
def cmd_hardware(args) -> None:
    rows = []
    for d in devices().values():
        rows.append({
            "id": d.id, "name": d.name,
            "memory_bandwidth_bytes_per_s": d.memory_bandwidth_bytes_per_s,
            "memory_capacity_bytes": d.memory_capacity_bytes,
            "dense_peak_flop_per_s": dict(d.dense_peak_flop_per_s),
            "ridge_point": device_ridge_point(d),
            "source_url": d.source_url, "note": d.note, "checked": d.checked.isoformat(),
        })
    text = _table([{**r, "bw": fmt.bytes_per_s(r["memory_bandwidth_bytes_per_s"]),
                    "peak": fmt.flop_per_s(get_device(r["id"]).peak_flop_per_s("bf16")),
                    "mem": fmt.nbytes(r["memory_capacity_bytes"]), "ridge": fmt.sig(r["ridge_point"])} for r in rows],
                  [("id", "id"), ("peak", "16-bit peak"), ("bw", "bandwidth"), ("mem", "memory"), ("ridge", "ridge FLOP/B")])
    _emit(args, rows, text)


def cmd_models(args) -> None:
    rows = [{"id": m.id, "name": m.name, "params": m.total_params, "active_params": m.active_params_excluding_embedding,
             "active_params_with_embedding": m.active_params,
             "published_params": m.published_params, "n_layers": m.n_layers, "kv_heads": m.kv_heads,
             "source_url": m.source_url} for m in models().values()]
    text = _table([{**r, "p": fmt.count(r["params"]), "a": fmt.count(r["active_params"])} for r in rows],
                  [("id", "id"), ("p", "parameters"), ("a", "active/token"), ("n_layers", "layers"), ("kv_heads", "KV heads")])
    _emit(args, rows, text)


def model_summary(m: Model, kv_dtype: str = "bf16") -> dict[str, Any]:
    """What the package understood of a model: the `roofline model --json` payload.

    >>> model_summary(get_model("llama-3.1-8b"))["kv_bytes_per_token"]["total"]  # 2·32·8·128·2
    131072.0
    """
    b = bytes_per_element(kv_dtype)
    by_type = {k: v * b for k, v in m.kv_elements_per_token_by_layer_type().items()}
    return {
        "id": m.id, "name": m.name, "family": m.family or None,
        "params": m.total_params, "active_params": m.active_params_excluding_embedding,
        "active_params_with_embedding": m.active_params,
        "params_by_group": m.params_by_group(),
        "max_context_tokens": m.max_context_tokens or None,  # the config's max_position_embeddings
        "kv_dtype": kv_dtype,
        "kv_bytes_per_token": {"total": float(m.kv_elements_per_token() * b), **by_type},
        "attention": {"kind": m.attention_kind, "sliding_window": m.sliding_window or None,
                      "window_layers": m.n_window_layers, "full_layers": m.n_full_layers,
                      "query_heads": m.n_heads, "kv_heads": None if m.is_mla else m.kv_heads,
                      "head_dim": None if m.is_mla else m.head_dim,
                      **({"kv_lora_rank": m.kv_lora_rank, "qk_rope_head_dim": m.qk_rope_head_dim}
                         if m.is_mla else {})},
        "layers": {"total": m.n_layers, "moe": m.n_moe_layers if m.is_moe else 0,
                   "dense": m.n_dense_layers if m.is_moe else m.n_layers,
                   "experts": m.n_experts if m.is_moe else None,
                   "experts_per_token": m.experts_per_token if m.is_moe else None,
                   "shared_experts": m.n_shared_experts if m.is_moe else None},
        "weight_format": m.weight_format or None, "weight_group_size": m.weight_group_size or None,
        **_checkpoint_payload(m),
    }


def _checkpoint_payload(m: Model) -> dict[str, Any]:
    """The format decode and prefill default to for this model, the tensors it covers, and why."""
    c = choose_weight_format(m)
    f = Formats.of(c.format, scope=c.scope)
    return {"checkpoint_weight_format": c.format, "checkpoint_weight_scope": c.scope,
            "checkpoint_weight_scope_words": f.scope_words, "checkpoint_weight_format_source": c.source}


def cmd_model(args) -> None:
    m = model_from_arg(args.model)
    p = model_summary(m, args.kv_dtype)
    if m.is_bare:
        text = f"{m.name}\n  a bare parameter count: weights only, no attention or KV cache to describe"
        return _emit(args, p, text)
    kv = p["kv_bytes_per_token"]
    kv_text = fmt.nbytes(kv["total"])
    if m.n_window_layers:
        kv_text += (f" while the context is within the window; past {m.sliding_window} tokens only the "
                    f"{m.n_full_layers} full layers grow, by {fmt.nbytes(kv['full'])}" if m.n_full_layers else
                    f" up to the {m.sliding_window}-token window; then the cache stops growing")
    lay = p["layers"]
    layer_text = (f"{lay['total']}" if not m.is_moe else
                  f"{lay['total']} ({lay['moe']} MoE: {lay['experts']} experts, {lay['experts_per_token']} per token"
                  + (f", {lay['shared_experts']} shared" if lay["shared_experts"] else "")
                  + (f"; {lay['dense']} dense)" if lay["dense"] else ")"))
    active = fmt.count(p["active_params"])
    if p["active_params"] != p["active_params_with_embedding"]:
        active += f" (input embedding left out: a lookup reads one row; {fmt.count(p['active_params_with_embedding'])} with it)"
    rows = [("parameters", fmt.count(p["params"])),
            ("active/token", active),
            ("max context", f"{m.max_context_tokens} tokens (max_position_embeddings)"),
            ("layers", layer_text),
            ("attention", m.attention_description + (f" (latent {m.kv_lora_rank} + rotary key {m.qk_rope_head_dim})"
                                                     if m.is_mla else f" ({m.n_heads} query heads, {m.kv_heads} KV heads, head_dim {m.head_dim})")),
            (f"KV/token ({args.kv_dtype})", kv_text)]
    rows.append(("weight format", f"{p['checkpoint_weight_format']}"
                                  + ("" if not m.weight_format else f" on {p['checkpoint_weight_scope_words']}")
                                  + f" ({p['checkpoint_weight_format_source']}); decode and prefill default to it"))
    rows += [(f"  {k}", fmt.count(v)) for k, v in p["params_by_group"].items()]
    width = max(len(label) for label, _ in rows)
    head = f"{m.name}" + (f" · {m.family}" if m.family else "")
    _emit(args, p, "\n".join([head, *(f"  {label:<{width}}  {value}" for label, value in rows)]))


def cmd_ridge(args) -> None:
    d = get_device(args.hardware)
    peak = d.peak_flop_per_s(args.dtype)
    r = device_ridge_point(d, args.dtype)
    payload = {"hardware": d.id, "dtype": args.dtype, "peak_flop_per_s": peak,
               "bandwidth_bytes_per_s": d.memory_bandwidth_bytes_per_s, "ridge_point": r}
    _emit(args, payload, f"{d.name} ({args.dtype}): {fmt.flop_per_s(peak)} ÷ "
                         f"{fmt.bytes_per_s(d.memory_bandwidth_bytes_per_s)} = ridge {fmt.intensity(r)}")


def cmd_matmul(args) -> None:
    c = matmul_cost(args.m, args.n, args.k, args.dtype)
    payload = {"m": args.m, "n": args.n, "k": args.k, "dtype": args.dtype, "flops": c.flops, "bytes": c.bytes,
               "arithmetic_intensity": c.arithmetic_intensity, "convention": c.convention}
    text = (f"({args.m}×{args.k})·({args.k}×{args.n}) {args.dtype}: {fmt.si(c.flops, 'FLOP')}, "
            f"{fmt.nbytes(c.bytes)}, intensity {fmt.intensity(c.arithmetic_intensity)}")
    if args.hardware is not None:  # an empty --hardware= is an unknown device, not "no device"
        d = get_device(args.hardware)
        c = matmul_cost(args.m, args.n, args.k, args.dtype, d)
        payload.update({"hardware": d.id, "ridge_point": c.ridge_point, "bound": c.bound, "time_s": c.time_s})
        text += f"\non {d.name}: ridge {fmt.intensity(c.ridge_point)} -> {c.bound}, {fmt.seconds(c.time_s)}"
    _emit(args, payload, text)


def _link_payload(s: parallel.ParallelStep) -> dict[str, Any]:
    """What a layout of more than one device adds to a step's record: its link and which collective latency."""
    if s.layout.is_single:
        return {}
    ic, lat = s.stage.device.interconnect, s.latency
    return {
        "interconnect": {"link": ic.link, "bandwidth_bytes_per_s_per_direction": ic.bandwidth_bytes_per_s_per_direction,
                         "domain_devices": ic.domain_devices, "latency_base_s": ic.latency_base_s,
                         "latency_per_step_s": ic.latency_per_step_s, "source_url": ic.source_url,
                         "latency_source_url": ic.latency_source_url},
        "collective_latency_used": lat if isinstance(lat, str) else "set",
        "collective_latency_per_collective_s": None if lat == parallel.LATENCY_RING else
        (ic.latency_floor_s if lat == parallel.LATENCY_FLOOR else lat),
        "collective_latency_source_url": {parallel.LATENCY_FLOOR: ic.latency_floor_source_url,
                                          parallel.LATENCY_RING: ic.latency_source_url}.get(lat),
    }


def _weight_payload(s, choice: WeightChoice | None) -> dict[str, Any]:
    """Which weight format the step used, over which tensors, and why (plus what a bare count assumes)."""
    f, m = s.stage.formats, s.model
    bpw = (f.weights.bare_bytes_per_weight() if m.is_bare else f.weights.bytes_per_weight(m.hidden_size))
    groups = ("weights",) if m.is_bare else ("attention", "mlp", "experts", "shared") if m.is_moe else ("attention", "mlp")
    out = {"weight_format": f.weights.name, "weight_scope": f.scope, "weight_scope_words": f.scope_words,
           "weight_format_source": choice.source if choice else None, "weight_bytes_per_weight": bpw,
           "weight_formats_by_group": {g: (f.weights.name if g == "weights" else f.weights_for(g).name) for g in groups
                                       if not (g == "mlp" and m.is_moe and not m.n_dense_layers)
                                       and not (g == "shared" and not m.n_shared_experts)},
           "assumptions": [BARE_PER_CHANNEL_NOTE] if m.is_bare and f.weights.per_channel else []}
    return out


def _weight_words(s, choice: WeightChoice | None) -> str:
    f = s.stage.formats
    where = "" if f.weights.element in ("bf16", "fp16", "fp32") or s.model.is_bare else f" on {f.scope_words}"
    return f"weights {f.weights.name}{where}" + (f" ({choice.source})" if choice else "")


def _step_payload(s: parallel.ParallelStep, choice: WeightChoice | None = None) -> dict[str, Any]:
    """The step's one record (`record.step_record`), with why its weight format and its layout's link."""
    return {**record.step_record(s), **_weight_payload(s, choice), **_link_payload(s)}


def _ops_table(s) -> str:
    rows = [{"name": k.name, "n": f"×{k.count}" if k.count > 1 else "", "flops": fmt.si(k.flops, "FLOP"),
             "bytes": fmt.nbytes(k.bytes), "ai": fmt.sig(k.arithmetic_intensity), "ridge": fmt.sig(k.ridge_point),
             "bound": k.bound, "time": fmt.seconds(k.time_s),
             "share": fmt.percent(k.time_s / s.time_s, 3)} for k in s.ops]
    return _table(rows, [("name", "kernel"), ("n", "runs"), ("flops", "FLOPs"), ("bytes", "bytes"),
                         ("ai", "FLOP/B"), ("ridge", "ridge"), ("bound", "bound"), ("time", "time"),
                         ("share", "of step")])


def _step_text(s, extra: list[tuple[str, str]], show_ops: bool = False, choice: WeightChoice | None = None) -> str:
    """A step as aligned `label  value` lines; `extra` rows go after the time."""
    st = s.stage  # one device's kernels: FLOPs, bytes and memory are one device's
    where = f"context {int(st.context_len)}" if st.phase == "decode" else f"prompt {int(st.tokens_per_sequence)}"
    f = st.formats
    head = (f"{st.phase} · {s.model.name} on {st.device.name} · batch {int(s.batch)}, {where} · "
            f"{_weight_words(s, choice)}, activations {f.activation}, KV {f.kv}, {st.attention} attention")
    lay = s.layout
    if not lay.is_single:
        head += f" · {lay.name} ({lay.devices} devices)"
    usable = kernels.usable_memory_bytes(st.device)
    if not s.fits:
        where = "one device" if lay.is_single else f"{lay.name} (per device)"
        return (f"{head}\ndoes not fit: weights + KV cache + activations + runtime reserve need "
                f"{fmt.nbytes(s.memory_required_bytes)} but the {st.device.name} exposes {fmt.nbytes(usable)}; "
                f"no throughput is shown for a configuration that cannot run on {where}")
    rows = [("FLOPs", fmt.si(st.flops, "FLOP")),
            ("bytes", f"{fmt.nbytes(st.bytes)} (weights {fmt.nbytes(st.weight_bytes)}, KV {fmt.nbytes(st.kv_bytes)}, "
                      f"activations {fmt.nbytes(st.activation_bytes)})"),
            ("intensity", f"{fmt.intensity(st.arithmetic_intensity)} whole step vs matmul ridge "
                          f"{fmt.intensity(st.ridge_point)}; most time {s.bound}"),
            ("time", f"{fmt.seconds(s.time_s)} (sum of {len(s.ops)} kernel{'s' if len(s.ops) > 1 else ''})"),
            ("perfect overlap", f"{fmt.seconds(s.time_perfect_overlap_s)} (lower bound)"), *_layout_rows(s), *extra,
            ("memory", f"{fmt.nbytes(s.memory_required_bytes)} of {fmt.nbytes(usable)} usable "
                       f"(incl. {fmt.nbytes(st.runtime_reserve_bytes)} runtime reserve)"
                       + ("" if lay.is_single else " per device"))]
    width = max(len(label) for label, _ in rows)
    lines = [head, *(f"  {label:<{width}}  {value}" for label, value in rows)]
    if s.model.is_bare:
        lines.append("  (a bare parameter count models weights only: no KV cache, no activations)")
        if f.weights.per_channel:
            lines.append(f"  ({BARE_PER_CHANNEL_NOTE})")
    if s.model.is_mla and st.phase == "prefill":
        lines.append("  (MLA: prefill expands K and V from the latent and attends over them, as engines run it; "
                     "decode attends over the latent, absorbed)")
    if s.kv_note:
        lines.append(f"  ({s.kv_note})")
    if show_ops:
        lines += ["", _ops_table(s)]
    return "\n".join(lines)


def _layout_rows(s) -> list[tuple[str, str]]:
    """The rows a layout adds: its collectives, the link roof, the pipeline bubble, tokens/s per device."""
    if s.layout.is_single:
        return []
    ic = s.stage.device.interconnect
    runs = sum(c.count for c in s.collectives)
    lay = s.layout
    split = [what for cond, what in ((lay.tp > 1, f"heads, MLP and vocabulary split {lay.tp} ways"),
                                     (lay.ep > 1, f"experts split {lay.ep} ways, attention on 1/{lay.ep} of the batch"),
                                     (lay.pp > 1, f"{s.stage.model.n_layers} of {s.model.n_layers} layers per stage"),
                                     (lay.dp > 1, f"each replica serves {int(s.micro_batch * s.micro_batches * lay.ep)} "
                                                  "sequences")) if cond]
    rows = [("kernels", f"{fmt.seconds(s.stage.time_s)} per device per stage ({'; '.join(split)})")]
    if s.collectives:
        rows.append(("collectives", f"{fmt.seconds(s.collective_time_s)} per stage: {runs} runs over {ic.link}, "
                                    f"{fmt.nbytes(s.link_bytes)} sent per device, "
                                    f"{fmt.seconds(sum(c.latency_s for c in s.collectives))} of it latency"))
        net = float(sum(float(c.network_bytes) for c in s.collectives))
        if net:
            nw = s.stage.device.network
            rows.append(("network", f"{fmt.nbytes(net)} of it per device across nodes over {nw.link} "
                                    f"({fmt.bytes_per_s(nw.bandwidth_bytes_per_s_per_direction)} each way, "
                                    f"{fmt.seconds(nw.latency_floor_s)} floor), the rest over {ic.link}; "
                                    f"{s.layout.devices} devices on {parallel.domains_spanned(s.layout.replica_devices, s.stage.device)} "
                                    "scale-up domains"))
    if s.layout.ep > 1:
        rows.append(("experts", f"{(s.model.n_experts + s.layout.redundant_experts) // s.layout.ep} per rank"
                                + (f" ({s.layout.redundant_experts} redundant copies)" if s.layout.redundant_experts else "")
                                + "; load " + ("perfectly balanced (the default)" if s.layout.expert_imbalance == 1 else
                                               f"busiest rank {fmt.sig(s.layout.expert_imbalance)}× the mean")))
        rows.append(("latency", s.latency_description))
        rows.append(("link roof", f"{fmt.intensity(s.link_intensity)} per link byte vs link ridge "
                                  f"{fmt.intensity(s.link_ridge_point)} ({fmt.bytes_per_s(ic.bandwidth_bytes_per_s_per_direction)} "
                                  "each way)"))
    if s.layout.pp > 1:
        rows.append(("pipeline", f"{s.layout.pp} stages, {int(s.micro_batches)} micro-batch"
                                 f"{'es' if s.micro_batches > 1 else ''} of {int(s.micro_batch)}: "
                                 f"bubble {fmt.percent(s.bubble_fraction, 3)}; sends {fmt.seconds(s.sends.time_s)}"))
    return rows


def _layout(args, model, device) -> parallel.Layout:
    """The layout the options name: --devices N (what an engine picks) or --tp/--pp/--ep/--dp."""
    explicit = any(v not in (1, None) for v in (args.tp, args.pp, args.ep, args.dp))
    nodes = getattr(args, "nodes", None)
    extra = dict(redundant_experts=getattr(args, "redundant_experts", 0),
                 expert_imbalance=getattr(args, "expert_imbalance", 1.0))
    if args.devices is not None:
        if explicit or nodes is not None:
            raise InputError("--devices picks the layout itself: give --devices or --nodes or --tp/--pp/--ep/--dp, "
                             "not both")
        return parallel.engine_layout(model, device, args.devices)
    if nodes is not None and not explicit:
        return parallel.node_layout(model, device, nodes, **extra)
    lay = parallel.Layout(args.tp or 1, args.pp or 1, args.ep or 1, args.dp or 1, **extra)
    if nodes is not None:
        parallel.check_nodes(lay, device, nodes)
    return lay


def _latency(args):
    """The collective latency the options name: the link's floor (default), the NCCL ring, or µs set by the reader."""
    if args.collective_latency_us is not None:
        if args.collective_latency is not None:
            raise InputError("--collective-latency-us sets the latency itself: give it or --collective-latency, not both")
        return args.collective_latency_us * 1e-6
    return args.collective_latency or parallel.LATENCY_FLOOR


def _formats(args, model: Model) -> tuple[Formats, WeightChoice]:
    """The formats a step runs in: the checkpoint's own weight format unless --weight-format says otherwise."""
    c = choose_weight_format(model, args.weight_format, args.weight_scope)
    return Formats.of(c.format, args.activation_dtype, args.kv_dtype, scope=c.scope), c


def _max_context(args, m: Model, tokens: int, option: str) -> tuple[dict[str, Any], str]:
    """The model's maximum context checked (refused past it unless --allow-beyond-max-context): JSON fields
    and a text line, which says so where the answer extrapolates past it."""
    note = check_context(m, tokens, option, args.allow_beyond_max_context)
    fields = {"max_context_tokens": m.max_context_tokens or None, "beyond_max_context": bool(note)}
    return fields, (f"\nnote: {note}" if note else "")


def cmd_decode(args) -> None:
    m, d = model_from_arg(args.model), get_device(args.hardware)
    limit, limit_text = _max_context(args, m, args.context, "--context")
    f, choice = _formats(args, m)
    lay = _layout(args, m, d)
    latency = _latency(args)
    s = parallel.decode(m, d, args.batch, args.context, f, args.attention, lay, latency)
    lim = parallel.limits(m, d, args.context, f, args.attention, lay, latency)  # every limit of this layout, one place
    mb = lim.max_batch_that_fits
    payload = _step_payload(s, choice)
    cb = kernels.critical_batch(m, d, f)
    ws = kernels.whole_step_crossing_batch(m, d, args.context, f, args.attention)
    payload.update({
        "critical_batch": cb, "whole_step_crossing_batch": ws,
        "attention_intensity": None if m.is_bare else kernels.attention_intensity_limit(m, f),
        "max_batch_that_fits": None if mb is None else int(mb),
        "speed_of_light_tokens_per_s": lim.speed_of_light_tokens_per_s, "limits": record.limits_record(lim),
        **limit,
    })
    expected = None
    if s.collectives and latency != parallel.LATENCY_RING:  # the ceiling's latency; the NCCL ring's is expected
        expected = parallel.decode(m, d, args.batch, args.context, f, args.attention, lay, parallel.LATENCY_RING)
        payload["expected_with_ring_latency"] = {
            "time_s": expected.time_s if s.fits else None, "collective_time_s": expected.collective_time_s,
            "tokens_per_s_per_sequence": expected.tokens_per_s_per_sequence if s.fits else None,
            "bound": expected.bound, "latency": expected.latency_description}
    if not s.fits:
        payload.update({"time_s": None, "time_perfect_overlap_s": None, "tokens_per_s": None,
                        "tokens_per_s_per_sequence": None})
    per_device = "" if lay.is_single else f", {fmt.sig(s.tokens_per_s_per_device)} per device"
    extra = [("tokens/s", f"{fmt.sig(s.tokens_per_s_per_sequence)} per sequence, {fmt.sig(s.tokens_per_s)} in all{per_device}"),
             ("speed of light", f"{fmt.sig(lim.speed_of_light_tokens_per_s)} tokens/s per sequence on {lay.name} "
                                f"({lim.assumes})"),
             *((("expected", f"{fmt.sig(expected.tokens_per_s_per_sequence)} tokens/s per sequence with "
                             f"{expected.latency_description}; {expected.bound}"),) if expected is not None else ()),
             ("critical batch", f"{cb} (weight matmuls reach the ridge)" if cb is not None else "none"),
             ("whole step", f"reaches the ridge at batch {ws} (perfect overlap)" if ws is not None
              else "never reaches the ridge at this context (attention's KV reads)"),
             ("max batch", "not modelled for a bare parameter count" if mb is None
              else f"{int(mb)} fit at this context")]
    _emit(args, payload, _step_text(s, extra, args.ops, choice) + limit_text)
    if not s.fits:
        sys.exit(EXIT_USAGE) if not args.json else None


def cmd_prefill(args) -> None:
    m, d = model_from_arg(args.model), get_device(args.hardware)
    limit, limit_text = _max_context(args, m, args.prompt, "--prompt")
    lay = _layout(args, m, d)
    f, choice = _formats(args, m)
    s = parallel.prefill(m, d, args.prompt, args.batch, f, args.attention, lay, _latency(args), args.cache_hit_rate)
    payload = _step_payload(s, choice)
    payload["time_to_first_token_s"] = s.time_s if s.fits else None
    cached = int(kernels.cached_prompt_tokens(args.prompt, args.cache_hit_rate))
    payload.update({"cache_hit_rate": args.cache_hit_rate, "cached_prompt_tokens": cached,
                    "computed_prompt_tokens": args.prompt - cached})
    payload.update(limit)
    if not s.fits:
        payload.update({"time_s": None, "time_perfect_overlap_s": None, "tokens_per_s": None,
                        "tokens_per_s_per_sequence": None})
    extra = [("time to first token", fmt.seconds(s.time_s))]
    extra.append(("prefix cache", "no hits (cache hit rate 0, the default): every prompt token computed"
                  if not cached else
                  f"hit rate {fmt.percent(args.cache_hit_rate, 3)}: {cached:,} of {args.prompt:,} prompt tokens "
                  f"served from the cache (their KV read, not recomputed), {args.prompt - cached:,} computed"))
    _emit(args, payload, _step_text(s, extra, args.ops, choice) + limit_text)
    if not s.fits:
        sys.exit(EXIT_USAGE) if not args.json else None


def _context(text: str) -> int:
    try:
        return _positive_int("context")(text)
    except argparse.ArgumentTypeError:
        try:
            below_one = float(text) < 1
        except ValueError:
            below_one = False
        if not below_one:
            raise  # not a number, not whole, or too large: the parser's own sentence says which
        raise argparse.ArgumentTypeError(
            f"context must be a whole number ≥ 1 (a decode step attends to at least one cached token; "
            f"an empty cache is a prefill), got {fmt.terminal(text)[:40]!r}") from None


def _weight_format(text: str) -> str:
    try:
        return parse_weight_format(text).name
    except InputError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def cmd_measure(args) -> None:
    """Measure this machine (or read a saved measurement with --from), print, save, plot."""
    from roofline import measure

    for option, value in (("--out", args.out), ("--plot", args.plot), ("--hardware", args.hardware)):
        if value is not None and not value.strip():  # never read as "not given": that would save elsewhere
            raise InputError(f"{option} needs a value, got an empty string")
    device = get_device(args.hardware) if args.hardware is not None else None
    dtype = measure.spec_dtype(device, args.dtype) if device is not None else None
    if args.plot is not None:  # with --from too: checked before anything is read or measured
        _check_writable(Path(args.plot), "--plot")
    if args.source is not None:
        if not args.source.strip():
            raise InputError("--from needs the path of a measurement JSON file, got an empty string")
        ignored = [flag for flag, value in (("--out", args.out), ("--quick", args.quick), ("--budget", args.budget),
                                            ("--label", args.label), ("--note", args.note)) if value]
        if ignored:
            raise InputError(f"{', '.join(ignored)} only apply to a new measurement, not to --from {args.source}")
        doc, saved = load_measurement_doc(args.source), None
        m = measure.validate(doc, args.source)
    else:
        out = Path(args.out) if args.out else measure.default_out_path()
        _check_writable(out, "--out")  # before the measurement, not after 30 s of it
        progress = measure.Progress(args.budget or (measure.QUICK_BUDGET_S if args.quick else measure.DEFAULT_BUDGET_S))
        try:
            doc = measure.run(quick=args.quick, budget_s=args.budget, label=args.label or "", note=args.note or "",
                              progress=progress)
        except KeyboardInterrupt:
            progress.note("")
            raise InputError("measurement interrupted; nothing written") from None
        try:
            saved = measure.save(doc, out)
        except OSError as err:
            raise InputError(f"--out {fmt.terminal(out)}: could not write the measurement "
                             f"({err.strerror or err}); nothing written") from None
        m = measure.validate(doc, str(saved))
    if device is not None:
        doc = {**doc, "comparison": measure.compare(m, device, dtype)}
    if args.plot:
        measure.plot_svg(args.plot, [m], device, dtype)
    rows = [{"k": "copy", "med": fmt.bytes_per_s(m.copy.median), "best": fmt.bytes_per_s(m.copy.best), "reps": m.copy.reps},
            {"k": "triad", "med": fmt.bytes_per_s(m.triad.median), "best": fmt.bytes_per_s(m.triad.best), "reps": m.triad.reps},
            {"k": "fp64 GEMM", "med": fmt.flop_per_s(m.fp64.median), "best": fmt.flop_per_s(m.fp64.best), "reps": m.fp64.reps},
            {"k": "fp32 GEMM", "med": fmt.flop_per_s(m.fp32.median), "best": fmt.flop_per_s(m.fp32.best), "reps": m.fp32.reps}]
    head = m.cpu_model if m.label == m.cpu_model else f"{m.label}: {m.cpu_model}"
    lines = [f"{head}, {m.usable_cpus} usable CPUs, numpy {m.numpy} with {m.blas}",
             _table(rows, [("k", "kernel"), ("med", "median"), ("best", "best"), ("reps", "reps")]),
             "bytes: copy = 2 × array bytes, triad = 3 × array bytes (STREAM convention); GEMM: 2·n³ FLOPs",
             f"measured ridge (fp32 GEMM ÷ triad, medians): {fmt.intensity(m.ridge_point)}"]
    gpu = m.gpu
    lines.append(f"GPU: skipped: {gpu['skipped']}" if "skipped" in gpu else
                 f"GPU {gpu.get('device', '?')}: " + ", ".join(
                     f"{k} GEMM {fmt.flop_per_s(v['median_flop_per_s'])} median"
                     for k, v in gpu.items() if isinstance(v, dict)))
    if device is not None:
        c = doc["comparison"]
        compute = (f"compute {fmt.percent(c['flop_ratio'], 3)} of {fmt.flop_per_s(c['spec_peak_flop_per_s'])}"
                   if c["flop_ratio"] is not None else
                   f"compute not compared (the GEMM ran in fp32, the {dtype} peak is another format)")
        lines.append(f"vs {device.name} spec ({dtype}): {compute}, bandwidth {fmt.percent(c['bandwidth_ratio'], 3)} of "
                     f"{fmt.bytes_per_s(c['spec_bandwidth_bytes_per_s'])}")
    if saved:
        lines.append(f"saved: {saved}")
    if args.plot:
        lines.append(f"plot: {args.plot}")
    _emit(args, doc, "\n".join(lines))


def _check_writable(path: Path, option: str) -> None:
    """Refuse, before any work, a path that is a folder or lies where this user cannot write."""
    try:
        _check_writable_path(path, option)
    except OSError as err:  # a name too long for the filesystem, a loop of links...
        raise InputError(f"{option} {fmt.terminal(path)[:80]}: cannot write there ({err.strerror or err})") from None


def _check_writable_path(path: Path, option: str) -> None:
    from roofline.atomic import write_target

    shown = fmt.terminal(path)
    if path.is_dir():
        raise InputError(f"{option} {shown}: is a folder; name a file inside it")
    try:  # a device node, a FIFO or a socket is never replaced; a link's target is what gets written
        path = write_target(path)
    except OSError as err:
        if err.errno not in (errno.EEXIST, errno.EISDIR):
            raise
        raise InputError(f"{option} {shown}: {err.strerror}") from None
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(f"{option} {shown}: {fmt.terminal(folder)} is a file, not a folder")
    try:  # the honest test: create (and remove) a file there, as the atomic save will
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".roofline-probe-"):
            pass
    except OSError as err:
        raise InputError(f"{option} {shown}: cannot write in {fmt.terminal(folder)} ({err.strerror or err})") from None


def _add_latency_options(sp) -> None:
    sp.add_argument("--collective-latency", choices=parallel.LATENCY_CHOICES, default=None,
                    help="which latency each collective pays: the link's floor (the fastest published small-message "
                         "all-reduce; ceilings use it; the default) or an NCCL ring's (the expected figure)")
    sp.add_argument("--collective-latency-us", metavar="US",
                    type=_number("--collective-latency-us", 0, parallel.MAX_LATENCY_S * 1e6, "microseconds"),
                    help="set the latency of every collective yourself, in microseconds")


def _add_layout_options(sp, default: int | None = 1) -> None:
    for opt, what in (("tp", "tensor-parallel degree: heads, MLP and vocabulary split N ways, two all-reduces per layer"),
                      ("pp", "pipeline stages: layers split N ways, activations sent between stages"),
                      ("ep", "expert-parallel degree (mixture-of-experts): experts split N ways, all-to-all of routed "
                             "tokens; attention stays whole on each device for its share of the batch"),
                      ("dp", "data-parallel replicas: independent copies, each serving its share of the batch")):
        sp.add_argument(f"--{opt}", type=_positive_int(f"--{opt}"), default=default, metavar="N", help=what)
    _add_latency_options(sp)
    sp.add_argument("--devices", type=_positive_int("--devices"), metavar="N",
                    help="shorthand: the layout an engine would pick for N devices (tensor parallelism as wide "
                         "as the heads allow, pipeline stages for the rest); the output names it")
    _add_node_options(sp)


def _add_node_options(sp, layouts: bool = False) -> None:
    sp.add_argument("--nodes", type=_positive_int("--nodes"), default=None, metavar="N",
                    help="machines joined by the scale-out network (8 GPUs each on HGX boards, 4 on a GB200 tray): "
                         + ("compare the layouts over all their devices" if layouts else
                            "alone, the layout the field runs there (EP over every device for a mixture of "
                            "experts, TP in a domain and PP across for a dense model); with --tp/--ep/--pp/--dp, "
                            "the layout must use every device"))
    if layouts:
        return
    sp.add_argument("--redundant-experts", type=_whole_number("--redundant-experts", 0, parallel.MAX_DEGREE),
                    default=0, metavar="R",
                    help="extra expert copies that fill EP ranks the experts alone do not divide, as expert-load "
                         "balancers add them (DeepSeek-V3's 256 experts on EP48: 32). Default 0")
    sp.add_argument("--expert-imbalance", type=_number("--expert-imbalance", 1, parallel.MAX_DEGREE),
                    default=1.0, metavar="F",
                    help="the busiest EP rank's routed tokens over the mean rank's; the slowest rank sets the step. "
                         "Default 1: perfect balance")


def _add_max_context_option(sp) -> None:
    sp.add_argument("--allow-beyond-max-context", action="store_true",
                    help="answer for a context or prompt past the model's maximum (max_position_embeddings) "
                         "instead of refusing it; the output says it extrapolates")
def _add_weight_options(sp) -> None:
    sp.add_argument("--weight-format", "--weight-dtype", dest="weight_format", default=None, type=_weight_format,
                    metavar="FORMAT", help=f"how the weights are stored: {WEIGHT_FORMAT_HELP}. Default: the "
                                           "checkpoint's own format (its config.json quantization_config, or the "
                                           "registry's), else bf16. Embedding, router and output head stay 16-bit")
    sp.add_argument("--weight-scope", default=None, choices=tuple(WEIGHT_SCOPES),
                    help="which tensors the weight format covers: " + "; ".join(f"{k}: {v}" for k, v in SCOPE_WORDS.items())
                         + ". Default: the checkpoint's own (gpt-oss: experts), else linear for --weight-format")


#: The step record's keys a row of `layouts --json` keeps (`record.step_record`: per device).
LAYOUT_ROW_KEYS = ("layout", "devices", "tp", "pp", "ep", "dp", "fits", "bound", "weights_resident_bytes",
                   "kv_resident_bytes", "memory_required_bytes", "time_s", "collective_time_s",
                   "tokens_per_s_per_sequence", "tokens_per_s", "tokens_per_s_per_device")


def cmd_layouts(args) -> None:
    m, d = model_from_arg(args.model), get_device(args.hardware)
    limit, limit_text = _max_context(args, m, args.context, "--context")
    f, choice = _formats(args, m)
    latency = _latency(args)
    rows = []
    nodes = args.nodes or 1
    for lay in parallel.candidate_layouts(m, d, nodes=nodes):
        s = parallel.decode(m, d, args.batch, args.context, f, args.attention, lay, latency)
        fits = bool(s.fits)
        lim = parallel.limits(m, d, args.context, f, args.attention, lay, latency)
        # a bare parameter count has no KV cache: its largest batch is not modelled (as decode says)
        mb = None if m.is_bare else lim.max_batch_that_fits
        rec = record.step_record(s)
        rows.append({**{k: rec[k] for k in LAYOUT_ROW_KEYS}, "max_batch_that_fits": mb,
                     "speed_of_light_tokens_per_s": lim.speed_of_light_tokens_per_s,
                     **({} if fits else dict.fromkeys(("time_s", "tokens_per_s_per_sequence", "tokens_per_s",
                                                       "tokens_per_s_per_device")))})
    dash = "—"
    text_rows = [{**r, "fit": "yes" if r["fits"] else "no", "w": fmt.nbytes(r["weights_resident_bytes"]),
                  "kv": fmt.nbytes(r["kv_resident_bytes"]),
                  "mb": dash if r["max_batch_that_fits"] is None else r["max_batch_that_fits"],
                  "seq": fmt.sig(r["tokens_per_s_per_sequence"]) if r["fits"] else dash,
                  "all": fmt.sig(r["tokens_per_s"]) if r["fits"] else dash,
                  "dev": fmt.sig(r["tokens_per_s_per_device"]) if r["fits"] else dash,
                  "coll": fmt.seconds(r["collective_time_s"]) if r["fits"] and r["collective_time_s"] else dash,
                  "sol": fmt.sig(r["speed_of_light_tokens_per_s"])}
                 for r in rows]
    ic = d.interconnect
    link = (f"{ic.link}, {fmt.bytes_per_s(ic.bandwidth_bytes_per_s_per_direction)} each way, "
            f"{ic.domain_devices} per domain") if ic else d.interconnect_note
    where = "" if f.weights.element in ("bf16", "fp16", "fp32") else f" on {f.scope_words}"
    head = (f"layouts · {m.name} on {d.name} ({link}) · decode at batch {args.batch}, context {args.context} · "
            f"weights {f.weights.name}{where} ({choice.source}), KV {f.kv}"
            + (f" · collective latency {parallel.latency_description(ic, latency)}" if ic else "")
            + (f" · {nodes} nodes of {d.network.node_devices} over {d.network.link}, "
               f"{fmt.bytes_per_s(d.network.bandwidth_bytes_per_s_per_direction)} each way per device, "
               f"{fmt.seconds(d.network.latency_floor_s)} floor" if nodes > 1 else ""))
    text = head + "\n" + _table(text_rows, [("layout", "layout"), ("devices", "devices"), ("fit", "fits"),
                                            ("w", "weights/device"), ("kv", "KV/device"), ("mb", "max batch"),
                                            ("coll", "collectives"), ("seq", "tok/s/seq"), ("sol", "speed of light"),
                                            ("all", "tok/s"), ("dev", "tok/s/device")])
    fit = next((r for r in rows if r["fits"] and r["dp"] == 1), None)
    text += ("\nspeed of light: batch 1, weights only (each device reads its share once per token at the spec "
             "bandwidth; KV cache, activations and collectives left out)")
    text += ("\n" + (f"fewest devices that hold it at batch {args.batch}: {fit['devices']} ({fit['layout']})" if fit else
                     (f"no layout over {nodes} nodes holds it" if nodes > 1 else
                      "no layout within one scale-up domain holds it")
                     + f" at batch {args.batch}, context {args.context}"))
    _emit(args, {"model": m.id, "hardware": d.id, "batch": args.batch, "context_len": args.context, **limit,
                 "collective_latency": parallel.latency_description(ic, latency) if ic else None,
                 "weight_format": f.weights.name, "weight_scope": f.scope, "weight_scope_words": f.scope_words,
                 "weight_format_source": choice.source, "activation_dtype": f.activation, "kv_dtype": f.kv,
                 "smallest_layout": fit["layout"] if fit else None, "layouts": rows}, text + limit_text)


def _service_payload(p) -> dict[str, Any]:
    """One service point as `roofline serve --json` writes it (units in the names; null: no price given)."""
    return record.service_record(p)


def _service_row(p) -> dict[str, str]:
    usd = p.usd_per_million_output_tokens
    return {"layout": p.layout_name, "c": str(p.concurrency), "dev": fmt.sig(p.output_tokens_per_s_per_device),
            "user": fmt.sig(p.output_tokens_per_s_per_user), "ttft": fmt.seconds(p.ttft_s),
            "pre": fmt.seconds(p.prefill_s), "tpot": fmt.seconds(p.tpot_s), "p50": fmt.seconds(p.tpot_p50_s),
            "p99": fmt.seconds(p.tpot_p99_s), "exp": fmt.sig(p.expected_output_tokens_per_s_per_device),
            "usd": "—" if usd is None else f"${usd:.3g}", "bound": p.bound}


_SERVICE_COLUMNS = [("layout", "layout"), ("c", "concurrency"), ("dev", "tok/s/device"), ("user", "tok/s/user"),
                    ("ttft", "TTFT"), ("pre", "its prefill"), ("tpot", "TPOT mean"), ("p50", "TPOT p50"),
                    ("p99", "TPOT p99"), ("exp", "expected tok/s/device"), ("usd", "$/M out"), ("bound", "limit")]


def _point_line(label: str, p) -> str:
    return (f"{label}: {p.layout_name}, concurrency {p.concurrency} → {fmt.sig(p.output_tokens_per_s)} output tokens/s "
            f"({fmt.sig(p.output_tokens_per_s_per_device)} per device, {fmt.sig(p.output_tokens_per_s_per_user)} per "
            f"user), TTFT {fmt.seconds(p.ttft_s)} (its prompt's prefill alone {fmt.seconds(p.prefill_s)}), TPOT mean "
            f"{fmt.seconds(p.tpot_s)}, p50 {fmt.seconds(p.tpot_p50_s)}, p90 {fmt.seconds(p.tpot_p90_s)}, p99 "
            f"{fmt.seconds(p.tpot_p99_s)}; limit: {p.bound_meaning}")


def _serve_layouts(args, m: Model, d, lay: parallel.Layout, named: list[str]) -> tuple[list[parallel.Layout], str]:
    """The layouts `serve` searches and why: the one --tp/--pp/--ep/--dp name, every layout of exactly
    --devices devices (and the one an engine picks for them), or every layout within one scale-up domain."""
    if named:
        return [lay], f"the layout {' '.join(named)} names{'' if lay.devices > 1 else ': one device'}"
    if args.devices is not None:
        n = args.devices
        same = [x for x in parallel.candidate_layouts(m, d, n) if x.devices == n]
        if lay not in same:
            same.append(lay)
        return same, f"every layout of exactly {n} device{'s' if n > 1 else ''}, as --devices {n} asks"
    if args.nodes is not None:
        k = parallel.node_devices(d, args.nodes)
        where = f"{args.nodes} node{'s' if args.nodes > 1 else ''} ({k} devices)"
        if args.concurrency is not None:
            return [lay], (f"the layout the field runs on {where}: --concurrency evaluates one layout; "
                           "--tp/--pp/--ep/--dp choose another")
        over = parallel.candidate_layouts(m, d, nodes=args.nodes)
        if lay not in over:  # the field's layout there, with the redundant experts or imbalance asked
            over.append(lay)
        return over, f"every layout {'over' if args.nodes > 1 else 'within'} {where}, as --nodes {args.nodes} asks"
    if args.concurrency is not None:
        return [lay], "one device: no layout option given; --tp/--pp/--ep/--dp or --devices choose another"
    ic = d.interconnect
    domain = ic.domain_devices if ic else 1
    return (parallel.candidate_layouts(m, d),
            f"every layout within one scale-up domain of {domain} device{'s' if domain > 1 else ''}: no layout option given")


def _missed_targets(point, targets: dict) -> list[str]:
    """Which latency targets one service point misses, in words ('TTFT p99 5.08 ms, over the 1 ms target'),
    judged at each target's percentile as serving.best_under_targets judges a point."""
    out = []
    for name, attr, at in (("TTFT", "ttft", point.ttft_at), ("TPOT", "tpot", point.tpot_at)):
        target, pct = targets.get(f"{attr}_s"), targets.get(f"{attr}_percentile", "p99")
        if target is not None and (value := at(pct)) > target:
            out.append(f"{name} {pct} {fmt.seconds(value)}, over the {fmt.seconds(target)} target")
    return out


def _pools_payload(m: Model, d, wl, dis: list) -> dict[str, Any]:
    """Where the disaggregated pools sit and how the KV cache crosses between them, for `serve --json`."""
    from roofline.model.accounting import kv_bytes_per_token

    p0 = dis[0]
    crossing = [p for p in dis if p.kv_over_network]
    p = crossing[0] if crossing else p0
    total = wl.input_tokens * kv_bytes_per_token(m, wl.formats.kv)
    sent = wl.input_tokens * kv_bytes_per_token(parallel.shard(m, p.prefill_layout), wl.formats.kv)
    path = d.network if crossing else d.interconnect
    out = {"apart": p0.prefill_nodes is not None, "prefill_nodes": p0.prefill_nodes,
           "prefill_layout": p0.prefill_layout.name, "prefill_devices": p0.prefill_layout.devices, "kv_bytes": total,
           "kv_bytes_per_sending_device": sent if crossing else total,
           "kv_path": path.link if path else None,
           "kv_bandwidth_bytes_per_s": path.bandwidth_bytes_per_s_per_direction if path else None,
           "kv_transfer_s": p.kv_transfer_s}
    if p0.prefill_nodes is None:
        out["words"] = "pools in one scale-up domain: the KV cache crosses the link"
        return out
    n = p0.prefill_nodes
    where = f"pools on separate nodes: prefill {p0.prefill_layout.name} on {n} node{'s' if n > 1 else ''} of its own"
    if crossing:
        net = d.network
        out["words"] = (f"{where}; each prompt's KV cache ({fmt.nbytes(total)}"
                        + ("" if sent == total else f", {fmt.nbytes(sent)} from each prefill device holding a part")
                        + f") crosses {net.link} at {fmt.bytes_per_s(net.bandwidth_bytes_per_s_per_direction)} a NIC "
                        f"each way + its {fmt.seconds(net.latency_floor_s)} floor: {fmt.seconds(p.kv_transfer_s)}")
    if len(crossing) < len(dis):
        ic = d.interconnect
        out["words"] = ((out["words"] + "; " if crossing else where + "; ")
                        + f"where both pools fit one {ic.domain_devices}-device {ic.link} domain, the cache crosses "
                          f"that link instead: {fmt.seconds(next(q for q in dis if not q.kv_over_network).kv_transfer_s)}")
    return out


def cmd_serve(args) -> None:
    """A service: offline maximum and the frontier, or one point at --concurrency; targets; cost."""
    from roofline.model import serving

    m, d = model_from_arg(args.model), get_device(args.hardware)
    named = [f"--{k} {getattr(args, k)}" for k in ("tp", "pp", "ep", "dp") if getattr(args, k) is not None]
    explicit = args.devices is not None or bool(named)
    limit, limit_text = _max_context(args, m, args.input_tokens + args.output_tokens, "--input-tokens + --output-tokens")
    lay = _layout(args, m, d)
    search, why = _serve_layouts(args, m, d, lay, named)
    if args.prefill_nodes is not None:  # refused before any search: the count alone can be impossible
        parallel.node_devices(d, args.prefill_nodes, "--prefill-nodes")
    f, choice = _formats(args, m)
    wl = serving.Workload(args.input_tokens, args.output_tokens, args.concurrency, args.max_concurrency,
                          args.chunk_tokens, f, args.attention, args.price_per_device_hour, _latency(args),
                          args.speculative, args.draft_tokens, args.acceptance, args.draft_cost, args.engine,
                          args.kv_memory, args.kv_block_tokens, args.cache_hit_rate)
    targets = {"ttft_s": None if args.ttft_ms is None else args.ttft_ms / 1e3,
               "tpot_s": None if args.tpot_ms is None else args.tpot_ms / 1e3,
               "ttft_percentile": args.ttft_percentile, "tpot_percentile": args.tpot_percentile}
    timed = ("ttft_s", "tpot_s")
    payload: dict[str, Any] = {
        "model": m.id, "hardware": d.id,
        "workload": {"input_tokens": wl.input_tokens, "output_tokens": wl.output_tokens,
                     "concurrency": wl.concurrency, "max_concurrency": wl.max_concurrency,
                     "chunk_tokens": wl.chunk_tokens, "weight_format": wl.formats.weights.name,
                     "weight_scope": f.scope, "weight_format_source": choice.source,
                     "activation_dtype": wl.formats.activation, "kv_dtype": wl.formats.kv,
                     "attention": wl.attention, "usd_per_device_hour": wl.usd_per_device_hour,
                     "decoding": wl.decoding, "speculative": wl.speculation,
                     "engine": wl.engine, "kv_memory": wl.kv_memory, "kv_block_tokens": wl.kv_block_tokens,
                     "caps": wl.caps_words, "cache_hit_rate": wl.cache_hit_rate,
                     "cached_prompt_tokens": wl.cached_tokens,
                     "draft_tokens": wl.draft_tokens, "acceptance": wl.acceptance,
                     "draft_cost": wl.draft_cost, "tokens_per_pass": wl.tokens_per_pass,
                     "speculation_source": None if wl.speculation is None else
                     {"title": serving.SPECULATION[wl.speculation][3], "url": serving.SPECULATION[wl.speculation][4]},
                     # one name, one meaning across commands: `collective_latency` is a sentence in decode
                     "collective_latency_used": wl.collective_latency if isinstance(wl.collective_latency, str) else "set",
                     "collective_latency_per_collective_s":
                         (d.interconnect.latency_floor_s if d.interconnect else None)
                         if wl.collective_latency == parallel.LATENCY_FLOOR else
                         None if wl.collective_latency == parallel.LATENCY_RING else wl.collective_latency},
        "targets": targets, "ceiling": "every throughput but expected_* is a ceiling and every time a floor (a best "
                                       "case): datasheet peaks, each kernel at its roofline time; expected_* is "
                                       "an estimate (each kernel at its efficiency from published kernel benchmarks, "
                                       "plus the engine's per-step overhead), not measured",
    }
    lines = [f"serve · {m.name} on {d.name} · {wl.description}",
             f"caps: {wl.caps_words}",
             f"layouts searched: {', '.join(x.name for x in search)} ({why})"]
    # a latency other than the link's floor makes the figures estimates at that latency, not ceilings
    kind = ("bound: throughputs ceilings, times floors" if wl.collective_latency == parallel.LATENCY_FLOOR
            else "at the collective latency set, not a bound")
    if wl.concurrency is not None:
        point = serving.serve_point(m, d, lay, wl)
        payload["point"] = _service_payload(point)
        lines.append(_point_line(f"{kind} at this concurrency", point))
        lines.append(f"  expected (an estimate from published kernel efficiencies, not measured): {fmt.sig(point.expected_output_tokens_per_s)} output "
                     f"tokens/s with {point.expected_slots:,} requests in flight at most; TTFT {fmt.seconds(point.expected_ttft_s)}, TPOT {fmt.seconds(point.expected_tpot_s)}, request latency {fmt.seconds(point.expected_request_latency_s)}"
                     + ("" if point.usd_per_million_output_tokens is None else
                        f"; ${point.usd_per_million_output_tokens:.3g} per million output tokens"))
        if any(targets[k] is not None for k in timed):  # a point printed beside targets says whether it meets them
            misses = _missed_targets(point, targets)
            payload["point_meets_targets"] = not misses
            if misses:
                lines.append(f"  misses the targets at this concurrency: {'; '.join(misses)}")
    try:
        points = serving.frontier(m, d, wl, layouts=search) \
            if wl.concurrency is None or any(targets[k] is not None for k in timed) else []
    except InputError as err:  # the layouts over the nodes asked: the refusal names --nodes
        if args.nodes is None or named:
            raise
        raise InputError(f"--nodes {args.nodes}: {str(err).split(': ', 1)[1]}") from None
    payload["layouts_searched"] = [x.name for x in search]
    payload["layouts_searched_why"] = why
    if wl.concurrency is None:
        # the layout whose offline maximum gives the most per device among those searched, named in the output
        fits = {p.layout for p in points}
        offline = max((serving.offline_max(m, d, x, wl) for x in fits),
                      key=lambda p: (p.output_tokens_per_s_per_device, -p.devices))
        payload["offline"] = _service_payload(offline)
        env = serving.pareto(points)
        on_env = {id(p) for p in env}
        payload["frontier"] = [{**_service_payload(p), "on_envelope": id(p) in on_env} for p in points]
        lines.append(_point_line(f"offline maximum ({kind})", offline)
                     + ("" if len(fits) == 1 else " (the layout with the most per device)"))
        lines.append(f"envelope of {len(points)} points (ceilings; times are floors; expected is an estimate):")
        lines.append(_table([_service_row(p) for p in env], _SERVICE_COLUMNS))
    if wl.cache_hit_rate:
        lines.append(f"prefix cache: {fmt.percent(wl.cache_hit_rate, 3)} of each prompt hit, {wl.cached_tokens:,} of "
                     f"{wl.input_tokens:,} tokens: their KV is read from device memory, not recomputed (loading it "
                     "from host memory or disk is not counted); TTFT and prefill cover the other "
                     f"{wl.computed_tokens:,}; input tokens/s counts the hits, as DeepSeek reports it")
    if args.disaggregated or args.prefill_nodes is not None:
        # pools over --nodes machines are on separate nodes by nature: the prefill pool gets as many of its own
        if args.prefill_nodes is None and args.nodes is not None and args.nodes > 1:
            args.prefill_nodes = args.nodes
        dis = serving.disaggregated(m, d, wl, layouts=search, prefill_nodes=args.prefill_nodes)
        dis_env = serving.pareto(dis)
        on_dis = {id(p) for p in dis_env}
        payload["disaggregated"] = [{**record.disaggregated_record(p), "on_envelope": id(p) in on_dis,
                                     **({"prefill_instances_per_decode_instance": p.prefill_instances_per_decode_instance}
                                        if p.prefill_nodes is not None else {})} for p in dis]
        apart = args.prefill_nodes is not None
        over = ("scale-out network" if all(p.kv_over_network for p in dis) else "link" if not apart else
                "scale-out network, or the link where one scale-up domain holds both pools")
        payload["disaggregated_ttft"] = ("the co-located definition at one request with no contention: the steps "
                                         "carrying the prompt's chunks on the prefill pool's layout, then one send of "
                                         f"its KV cache over the {over}; a queue at the prefill pool is not modelled")
        payload["disaggregated_pools"] = _pools_payload(m, d, wl, dis)
        lines.append(f"disaggregated (prefill and decode on separate pools in balance; devices count both pools): "
                     f"envelope of {len(dis)} points; TTFT = the prompt alone on the prefill pool + the KV send "
                     f"({fmt.seconds(dis[0].kv_transfer_s)}), as co-located at one request:")
        if apart:
            lines.append("  " + payload["disaggregated_pools"]["words"])
        lines.append(_table([{"layout": p.layout_name, "c": str(p.concurrency),
                              "ratio": fmt.sig(p.prefill_devices_per_decode_device),
                              "inst": fmt.sig(p.prefill_instances_per_decode_instance),
                              "dev": fmt.sig(p.output_tokens_per_s_per_device),
                              "user": fmt.sig(p.output_tokens_per_s_per_user), "ttft": fmt.seconds(p.ttft_s),
                              "tpot": fmt.seconds(p.tpot_s), "bound": p.bound} for p in dis_env],
                            [("layout", "pools"), ("c", "decode concurrency"), ("ratio", "prefill/decode devices"),
                             *([("inst", "prefill/decode instances")] if apart else []),
                             ("dev", "tok/s/device"), ("user", "tok/s/user"), ("ttft", "TTFT"), ("tpot", "TPOT"),
                             ("bound", "limit")]))
    unmet = None
    if points and any(targets[k] is not None for k in timed):
        best = serving.best_under_targets(points, **targets)
        if isinstance(best, str):
            unmet = best
            payload["best_under_targets"] = None
            payload["targets_unmet"] = best
        else:
            payload["best_under_targets"] = _service_payload(best)
            lines.append(_point_line("best under the targets", best))
    else:
        payload["best_under_targets"] = None
    payload["assumptions"] = {**serving.assumptions(wl), "weight_format": f"{f.weights.name} on {f.scope_words} ({choice.source})"}
    payload.update(limit)
    a = payload["assumptions"]
    lines.append(f"weights {f.weights.name} on {f.scope_words} ({choice.source}); collective latency "
                 f"{a['collective_latency']}")
    lines.append(f"assumed: chunk of {wl.chunk_tokens} prompt tokens a step (SGLang's and vLLM's default on H100-class "
                 f"GPUs); runtime reserve {fmt.nbytes(a['runtime_reserve_bytes'])} a device; KV cache as the caps "
                 f"line says; decode attends to I + O/2 positions on average")
    lines.append("schedule: each step runs every generating request's decode token first, then prompt chunks up to "
                 "the chunk, first come first served (vLLM's scheduler; SGLang with --enable-mixed-chunk); TTFT = "
                 "the wait for a slot + the steps carrying the request's own chunks; TPOT over the mix of "
                 "decode-only steps and steps carrying another prompt's chunk")
    ex = a["expected"]
    lines.append(f"expected = each kernel at its efficiency from published kernel benchmarks (a line in the log of its "
                 f"size per kernel class; the Real systems page shows them) + {ex['engine']}'s per-step overhead of "
                 f"{fmt.seconds(ex['step_overhead_s'])}; not captured: {ex['not_captured']}")
    lines.append(f"expected at the engine's caps, the requests its KV share of memory fits and its cap allows: "
                 f"{ex['engine_defaults']['words']}; the ceiling "
                 + ("takes the same cap, not the KV share" if wl.engine else "takes no engine cap"))
    if unmet is not None and not args.json:
        options = " ".join(f"--{k} {getattr(args, k.replace('-', '_')):g}" for k in ("ttft-ms", "tpot-ms")
                           if getattr(args, k.replace("-", "_")) is not None)
        raise InputError(f"{options}: {unmet}")
    _emit(args, payload, "\n".join(lines) + limit_text)


def serving_percentiles() -> tuple[str, ...]:
    from roofline.model.serving import PERCENTILES

    return PERCENTILES


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="roofline", description="Roofline arithmetic for LLM inference, from a sourced spec registry.",
                epilog="`roofline COMMAND --help` shows a command's options and their defaults.")
    p.add_argument("--version", action="version", version=f"roofline {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")

    def add(name, fn, help_):
        sp = sub.add_parser(name, help=help_, description=help_, formatter_class=_Help)
        sp.add_argument("--json", action="store_true", help="print JSON instead of a table")
        sp.set_defaults(func=fn)
        return sp

    add("hardware", cmd_hardware, "list the devices in the registry")
    add("models", cmd_models, "list the models in the registry")
    sp = add("model", cmd_model, "what the package reads from a model: parameters, KV cache per token, attention kind")
    sp.add_argument("model", help="registry id, a parameter count such as 8e9, or a path to a config.json")
    sp.add_argument("--kv-dtype", default="bf16", choices=STORAGE_DTYPES, help="format of the KV cache")
    sp = add("ridge", cmd_ridge, "ridge point of a device")
    sp.add_argument("hardware", help="registry device id (see `roofline hardware`)")
    sp.add_argument("--dtype", default="bf16", choices=PEAK_DTYPES, help="the format whose dense peak is used")
    sp = add("matmul", cmd_matmul, "FLOPs, bytes and intensity of an (M×K)·(K×N) matmul")
    for dim, what in (("m", "rows of the left matrix"), ("n", "columns of the right matrix"),
                      ("k", "the shared (inner) dimension")):
        sp.add_argument(dim, type=_whole_number(dim.upper(), 1, None), help=what)  # ops.py bounds the size
    sp.add_argument("--dtype", default="bf16", choices=STORAGE_DTYPES, help="element format of all three matrices")
    sp.add_argument("--hardware", help="a registry device: adds the bound and the roofline time")
    for name, fn, help_ in (("decode", cmd_decode, "one decode step: every sequence in the batch emits a token"),
                            ("prefill", cmd_prefill, "a prefill of the prompt: time to first token")):
        sp = add(name, fn, help_)
        sp.add_argument("--model", required=True,
                        help="registry id, a parameter count such as 8e9, or a path to a Hugging Face config.json")
        sp.add_argument("--hardware", required=True, help="registry device id (see `roofline hardware`)")
        sp.add_argument("--batch", type=_positive_int("batch"), default=1, help="sequences processed together")
        if name == "decode":
            sp.add_argument("--context", type=_context, default=1,
                            help="tokens already cached per sequence (at least 1: the new token attends to them and itself)")
        else:
            sp.add_argument("--prompt", type=_positive_int("prompt"), required=True, help="prompt tokens per sequence")
            sp.add_argument("--cache-hit-rate", type=_number("--cache-hit-rate", 0, 1), default=0.0, metavar="H",
                            help="share of the prompt a prefix cache already holds: those tokens are not recomputed, "
                                 "only their KV is read (the last token is always computed). Default 0: no hits")
        _add_weight_options(sp)
        sp.add_argument("--activation-dtype", default="bf16", choices=ACTIVATION_DTYPES,
                        help="format of activations; fp8 with fp8 weights runs the matmuls on the fp8 peak")
        sp.add_argument("--kv-dtype", default="bf16", choices=STORAGE_DTYPES, help="format of the KV cache")
        sp.add_argument("--attention", default="fused", choices=kernels.ATTENTION_VARIANTS,
                        help="fused (FlashAttention-style, scores stay on chip) or unfused (scores written and re-read)")
        sp.add_argument("--ops", action="store_true", help="print the per-kernel table (collectives included)")
        _add_max_context_option(sp)
        _add_layout_options(sp)
    sp = add("layouts", cmd_layouts, "compare tensor-, pipeline-, expert- and data-parallel layouts of a model "
                                     "within one scale-up domain (decode tokens/s, per device, fits)")
    sp.add_argument("--model", required=True, help="registry model id (see `roofline models`)")
    sp.add_argument("--hardware", required=True, help="registry device id (see `roofline hardware`)")
    sp.add_argument("--context", type=_context, required=True, help="tokens cached per sequence")
    sp.add_argument("--batch", type=_positive_int("batch"), default=1, help="sequences decoded together (all devices)")
    _add_node_options(sp, layouts=True)
    _add_weight_options(sp)
    sp.add_argument("--activation-dtype", default="bf16", choices=ACTIVATION_DTYPES, help="format of activations")
    sp.add_argument("--kv-dtype", default="bf16", choices=STORAGE_DTYPES, help="format of the KV cache")
    sp.add_argument("--attention", default="fused", choices=kernels.ATTENTION_VARIANTS, help="attention variant")
    _add_latency_options(sp)
    _add_max_context_option(sp)
    sp = add("serve", cmd_serve, "a service: continuous batching with chunked prefill; offline maximum throughput, "
                                 "the latency-throughput frontier over layouts, targets and cost (ceilings)")
    sp.add_argument("--model", required=True,
                    help="registry id or a path to a Hugging Face config.json (a bare parameter count has no KV cache)")
    sp.add_argument("--hardware", required=True, help="registry device id (see `roofline hardware`)")
    sp.add_argument("--input-tokens", type=_whole_number("--input-tokens", 1, 10**7), required=True, metavar="I",
                    help="prompt tokens per request")
    sp.add_argument("--output-tokens", type=_whole_number("--output-tokens", 2, 10**7), required=True, metavar="O",
                    help="output tokens per request (at least 2: TPOT needs a second token)")
    group = sp.add_mutually_exclusive_group()
    group.add_argument("--concurrency", type=_whole_number("--concurrency", 1, 10**6), metavar="C",
                       help="requests the clients keep in flight: one point at this layout instead of the sweep")
    group.add_argument("--max-concurrency", type=_whole_number("--max-concurrency", 1, 10**6), metavar="C",
                       help="the engine's cap on requests in flight (max-num-seqs); memory caps them too")
    _add_layout_options(sp, default=None)  # None: not given, so every layout is searched
    sp.add_argument("--ttft-ms", type=_number("--ttft-ms", 0, 1e9, "milliseconds", low_inclusive=False), metavar="T",
                    help="target: time to first token at most T ms")
    sp.add_argument("--tpot-ms", type=_number("--tpot-ms", 0, 1e9, "milliseconds", low_inclusive=False), metavar="T",
                    help="target: time per output token at most T ms")
    sp.add_argument("--speculative", choices=("mtp", "eagle", "medusa", "draft"), default=None,
                    help="speculative decoding: a draft proposes tokens that one target pass verifies (default: plain "
                         "decoding). Defaults: mtp k=1, acceptance 0.85 (DeepSeek-V3 report); eagle k=4, 0.8 (EAGLE); "
                         "medusa k=4, 0.6; draft needs --acceptance and --draft-cost")
    sp.add_argument("--draft-tokens", type=_whole_number("--draft-tokens", 1, 16), metavar="K",
                    help="tokens drafted a pass (1 to 16)")
    sp.add_argument("--acceptance", type=_number("--acceptance", 0, 1, low_inclusive=False), metavar="A",
                    help="each drafted token's acceptance rate, in (0, 1]")
    sp.add_argument("--draft-cost", type=_number("--draft-cost", 0, 1), metavar="F",
                    help="a drafted token's cost as a share of the target's step, in [0, 1] (mtp and eagle: one "
                         "layer's share)")
    sp.add_argument("--engine", choices=("vllm", "sglang", "trtllm"), default=None,
                    help="an engine's current defaults (its cap on requests in flight, chunk and KV block) for the "
                         "ceiling and the expected figure, and its KV share of memory for the expected figure; default "
                         "none: memory alone caps the ceiling, and the expected figure takes vLLM's defaults")
    sp.add_argument("--kv-memory", choices=("reserve", "paged"), default="reserve",
                    help="reserve: every request's KV cache at its full I + O tokens (default); paged: its live "
                         "context, I + O/2 on average, in whole blocks")
    sp.add_argument("--kv-block-tokens", type=_whole_number("--kv-block-tokens", 1, 4096), metavar="B",
                    help="tokens a KV block holds with --kv-memory paged (default the engine's, else 16)")
    sp.add_argument("--disaggregated", action="store_true",
                    help="also the frontier with prefill and decode on separate pools in balance, beside the co-located one; "
                         "with --nodes, the prefill pool on as many nodes of its own")
    sp.add_argument("--prefill-nodes", type=_positive_int("--prefill-nodes"), default=None, metavar="N",
                    help="disaggregated with the prefill pool on N nodes of its own (its best layout over them) and "
                         "the decode pool on the layouts searched (--nodes, --ep, ...): each prompt's KV cache crosses "
                         "the scale-out network. Implies --disaggregated")
    sp.add_argument("--cache-hit-rate", type=_number("--cache-hit-rate", 0, 1), default=0.0, metavar="H",
                    help="share of each prompt a prefix cache holds: those tokens are not recomputed, only their KV "
                         "read (the last token is always computed); input tokens/s counts them. Default 0: no hits")
    for which in ("ttft", "tpot"):
        sp.add_argument(f"--{which}-percentile", choices=serving_percentiles(), default="p99",
                        help=f"the statistic the --{which}-ms target is judged on (MLPerf Server's is p99)")
    sp.add_argument("--price-per-device-hour", metavar="USD",
                    type=_number("--price-per-device-hour", MIN_USD_PER_DEVICE_HOUR,
                                 MAX_USD_PER_DEVICE_HOUR, "USD"),
                    help="what one device costs an hour, your figure: adds $ per million output and input tokens")
    sp.add_argument("--chunk-tokens", type=_whole_number("--chunk-tokens", 1, 10**7), default=None, metavar="K",
                    help="prompt tokens an engine step takes (SGLang's chunked_prefill_size; default the engine's, "
                         "else 8192)")
    _add_weight_options(sp)
    sp.add_argument("--activation-dtype", default="bf16", choices=ACTIVATION_DTYPES, help="format of activations")
    sp.add_argument("--kv-dtype", default="bf16", choices=STORAGE_DTYPES, help="format of the KV cache")
    sp.add_argument("--attention", default="fused", choices=kernels.ATTENTION_VARIANTS, help="attention variant")
    _add_max_context_option(sp)
    from roofline import cli_compare

    cli_compare.add_parser(add, _add_weight_options, _whole_number, _number, ACTIVATION_DTYPES, STORAGE_DTYPES,
                           kernels.ATTENTION_VARIANTS, _positive_int)
    sp = add("measure", cmd_measure, "measure this machine's memory bandwidth (STREAM copy/triad) and GEMM FLOP/s")
    sp.add_argument("--quick", action="store_true", help="a short run (about 5 s) with smaller arrays")
    sp.add_argument("--budget", type=_number("--budget", 2, 600, "seconds"),
                    help="time budget in seconds (default 30, or 5 with --quick)")
    sp.add_argument("--out", help="where to save the JSON (default measurements/local/<UTC time>.json)")
    sp.add_argument("--label", help="a name for this machine in tables and legends (default: the CPU model)")
    sp.add_argument("--note", help="a free-text note stored in the JSON")
    sp.add_argument("--from", dest="source", metavar="JSON", help="read a saved measurement instead of measuring")
    sp.add_argument("--plot", metavar="SVG", help="draw the measured roofline (beside --hardware's spec) to an SVG")
    sp.add_argument("--hardware", help="a registry device to compare against")
    sp.add_argument("--dtype", choices=PEAK_DTYPES, help="the spec peak to compare against (default fp32, else 16-bit)")
    return p


@cache
def _parser() -> argparse.ArgumentParser:
    """The parser, built once per process: a caller that runs many commands in one process (the
    tests run hundreds) would otherwise build its hundred-odd options again for each."""
    return build_parser()


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:  # bare `roofline`: the overview, not a one-line complaint
        _parser().print_help(sys.stderr)
        return EXIT_USAGE
    try:
        args = _parser().parse_args(argv)
        args.func(args)
    except RooflineError as err:
        print(f"roofline: error: {fmt.one_line_error(err)}", file=sys.stderr)
        return EXIT_USAGE
    except RecursionError:
        print("roofline: error: an input nests too deeply to read", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("roofline: error: interrupted; nothing written", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `roofline hardware | head`: the reader left; nothing to report
        sys.stderr.close()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
