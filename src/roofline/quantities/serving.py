"""Tokens about a service (docs/serving.md): continuous batching, the frontier, targets, cost.

Every label states its workload: model, device, I and O, concurrency, layout and formats.
"""

from __future__ import annotations

from functools import lru_cache

from roofline.model import measured as _meas
from roofline.model import serving as _srv
from roofline.model.formats import Formats
from roofline.model.parallel import Layout, check_nodes
from roofline.quantities.core import Input, Quantity, Source, Term, as_device, as_model, bandwidth_input, model_inputs

_FIELDS = {
    "output_tokens_per_s": ("tokens/s", "output tokens/s, all devices"),
    "output_tokens_per_s_per_device": ("tokens/s", "output tokens/s per device"),
    "output_tokens_per_s_per_user": ("tokens/s", "output tokens/s per user (1 ÷ the mean TPOT)"),
    "expected_output_tokens_per_s": ("tokens/s", "expected output tokens/s (derated, not measured)"),
    "expected_output_tokens_per_s_per_device": ("tokens/s", "expected output tokens/s per device (derated, not measured)"),
    "input_tokens_per_s": ("tokens/s", "prompt tokens/s, all devices"),
    "ttft_s": ("s", "time to first token"),
    "tpot_s": ("s", "time per output token, the mean"),
    "tpot_p50_s": ("s", "time per output token, the median"),
    "tpot_p90_s": ("s", "time per output token, 90th percentile"),
    "tpot_p99_s": ("s", "time per output token, 99th percentile"),
    "prefill_s": ("s", "the prompt's own prefill (roofline prefill)"),
    "decode_step_s": ("s", "a decode-only engine step"),
    "prompt_step_s": ("s", "an engine step carrying a prompt chunk"),
    "prompt_step_share": ("%", "share of engine steps carrying a prompt chunk"),
    "prompt_gap_share": ("%", "share of a request's gaps between tokens that carry a prompt chunk"),
    "step_time_s": ("s", "engine step time, the mean"),
    "request_latency_s": ("s", "request latency"),
    "running": ("", "requests the engine holds"),
    "concurrency": ("", "requests in flight"),
    "memory_cap": ("", "requests whose KV cache at I + O tokens fits"),
    "devices": ("", "devices"),
    "usd_per_million_output_tokens": ("USD", "$ per million output tokens"),
    "usd_per_million_input_tokens": ("USD", "$ per million input tokens"),
    "prefill_devices_per_decode_device": ("", "prefill devices per decode device"),
    "prefill_instances_per_decode_instance": ("", "prefill instances per decode instance"),
    "kv_transfer_s": ("s", "one prompt's KV cache sent from the prefill pool to the decode pool"),
}
_TEXT = ("bound", "bound_meaning", "layout_name")


def whole(x) -> int:
    """A token argument as a whole number of tokens or requests (pages may write 1024 or 1024.0)."""
    return int(float(x))


def service_workload(I, O, concurrency=None, weights="bf16", activations="bf16", kv="bf16", chunk=None, price=None,
                     max_concurrency=None, speculation=None, acceptance=None) -> _srv.Workload:
    """The service workload a page's token names: I, O, concurrency, formats, chunk, price and decoding."""
    return _srv.Workload(whole(I), whole(O), None if concurrency is None else whole(concurrency),
                         None if max_concurrency is None else whole(max_concurrency),
                         whole(chunk) if chunk is not None else _srv.DEFAULT_CHUNK_TOKENS,
                         Formats.of(weights, activations, kv), "fused", None if price is None else float(price),
                         speculation=speculation, acceptance=None if acceptance is None else float(acceptance))


def _inputs(m, d, wl) -> tuple[Input, ...]:
    out = (*model_inputs(m), bandwidth_input(d),
           Input("prompt tokens I", wl.input_tokens), Input("output tokens O", wl.output_tokens),
           Input("prompt tokens per step (chunk)", wl.chunk_tokens, "", Source(*_srv.CHUNK_SOURCES[0])))
    if wl.usd_per_device_hour is not None:
        out += (Input("price per device-hour (the reader's input)", wl.usd_per_device_hour, "USD"),)
    return out


def _line(p, what: str, wl) -> tuple:
    """The arithmetic of one service figure from the point's own values (empty for a step time, a sum
    over kernels, or a count found by a search).

    In steady state the engine finishes running ÷ steps-per-request requests a step, so output tokens/s
    is running × O ÷ (steps × step time); TTFT is (prompt steps + queueing steps) × step time.
    """
    per_device = {"output_tokens_per_s_per_device": "output_tokens_per_s",
                  "expected_output_tokens_per_s_per_device": "expected_output_tokens_per_s"}
    if what in per_device:
        return (Term(float(getattr(p, per_device[what])), "tokens/s"), "÷", Term(float(p.devices)))
    if what == "output_tokens_per_s_per_user":
        return (Term(1.0), "÷", Term(p.tpot_s, "s"))
    if isinstance(p, _srv.ServicePoint) and what == "tpot_s":  # the mean over a request's gaps
        g = p.prompt_gap_share
        return ((Term(1.0 - g), "×", Term(p.decode_step_s, "s"), "+", Term(g), "×", Term(p.prompt_step_s, "s"))
                if 0 < g < 1 else ())
    if isinstance(p, _srv.DisaggregatedPoint) and what == "prefill_instances_per_decode_instance":
        return (Term(p.prefill_devices_per_decode_device), "×", Term(float(p.decode_layout.devices)), "÷",
                Term(float(p.prefill_layout.devices)))
    if isinstance(p, _srv.DisaggregatedPoint):
        # The prompt's chunks on the prefill pool, then its KV cache over the link; the rates come
        # from two pools in balance, no one line.
        prefill_step = (p.ttft_s - p.kv_transfer_s) / wl.prefill_steps
        return ((Term(float(wl.prefill_steps)), "×", Term(prefill_step, "s"), "+", Term(p.kv_transfer_s, "s"))
                if what == "ttft_s" else ())
    t, steps = Term(p.step_time_s, "s"), Term(float(wl.steps_in_engine))
    if what in ("output_tokens_per_s", "input_tokens_per_s", "expected_output_tokens_per_s"):
        tokens = wl.input_tokens if what == "input_tokens_per_s" else wl.output_tokens
        step = Term(p.expected_step_time_s, "s") if what.startswith("expected") else t
        return (Term(p.running), "×", Term(float(tokens)), "÷", "(", steps, "×", step, ")")
    if what == "ttft_s":  # the wait for a slot (Little's law, at the mean step), then the steps carrying its chunks
        own = Term(p.ttft_s - p.wait_steps * p.step_time_s, "s")
        return (own,) if p.wait_steps < 1e-9 else (Term(p.wait_steps), "×", t, "+", own)
    if what == "request_latency_s":
        return (Term(p.ttft_s, "s"), "+", Term(float(wl.output_tokens - 1)), "×", Term(p.tpot_s, "s"))
    if what in ("usd_per_million_output_tokens", "usd_per_million_input_tokens") and wl.usd_per_device_hour:
        rate = p.output_tokens_per_s if "output" in what else p.input_tokens_per_s
        return (Term(wl.usd_per_device_hour, "USD"), "×", Term(float(p.devices)), "÷", Term(3600.0), "÷",
                Term(rate, "tokens/s"), "×", Term(1e6))
    return ()


def _quantity(p, what: str, m, d, wl, where: str) -> Quantity | str:
    if what in _TEXT:
        return str(getattr(p, what))
    unit, label = _FIELDS[what]
    value = getattr(p, what)
    if value is None:
        raise ValueError(f"{what} needs a price per device-hour")
    f = wl.formats
    return Quantity(float(value), unit,
                    f"{label}: {m.name} on {where} of {d.name}, I {wl.input_tokens}, O {wl.output_tokens}, "
                    f"weights {f.weights.name}, activations {f.activation}, KV {f.kv}",
                    "continuous batching with chunked prefill in steady state; one engine step through the "
                    "per-kernel model (a ceiling unless labelled expected)", _inputs(m, d, wl),
                    # Counts of requests print whole; a ratio of devices at the three figures its inputs carry.
                    6 if unit == "" and float(value).is_integer() else 3,
                    _line(p, what, wl))


@lru_cache(maxsize=256)
def _point(model, hw, I, O, c, tp, pp, ep, dp, weights, activations, kv, chunk, price, speculation=None,
           acceptance=None):
    m, d = as_model(model), as_device(hw)
    wl = service_workload(I, O, c, weights, activations, kv, chunk, price, None, speculation, acceptance)
    return m, d, wl, _srv.serve_point(m, d, Layout(tp, pp, ep, dp), wl)


def serve(model, hw, I, O, concurrency, what: str = "output_tokens_per_s", tp: int = 1, pp: int = 1, ep: int = 1,
          dp: int = 1, weights: str = "bf16", activations: str = "bf16", kv: str = "bf16", chunk=None,
          price=None, speculation=None, acceptance=None) -> Quantity | str:
    """One service point: {{ serve("llama-3.1-8b", "h100-sxm5", 1024, 256, 64, "tpot_s") }}; `speculation`
    ("mtp", "eagle", "medusa") decodes speculatively at the method's default acceptance unless given."""
    m, d, wl, p = _point(model, hw, whole(I), whole(O), whole(concurrency), whole(tp), whole(pp), whole(ep), whole(dp), weights,
                         activations, kv, None if chunk is None else whole(chunk), None if price is None else float(price),
                         speculation, None if acceptance is None else float(acceptance))
    if what == "tokens_per_pass":
        return Quantity(wl.tokens_per_pass, "", f"tokens one target pass keeps a request: {wl.decoding}",
                        "(1 − a^(k+1)) ÷ (1 − a), Leviathan et al. eq. 1", _inputs(m, d, wl), 3)
    where = f"{p.layout_name} at concurrency {p.concurrency}" + ("" if speculation is None else f", {wl.decoding}")
    return _quantity(p, what, m, d, wl, where)


#: NVIDIA's published low-latency run with Medusa: Llama 3.1 405B, FP8, TP8 on an HGX H200, one user.
MEDUSA_405B_TOKENS_PER_S_PER_USER = 108.0
MEDUSA_405B_SOURCE = ("NVIDIA technical blog: Low Latency Inference Chapter 1, Medusa on HGX H200 (Llama 3.1 405B: "
                      "108 tokens/second/user)",
                      "https://developer.nvidia.com/blog/low-latency-inference-chapter-1-up-to-1-9x-higher-llama-3-1-"
                      "performance-with-medusa-on-nvidia-hgx-h200-with-nvlink-switch/")


def medusa_405b_published() -> Quantity:
    """NVIDIA's Medusa run of Llama 3.1 405B on eight H200s: tokens/s per user, as published."""
    return Quantity(MEDUSA_405B_TOKENS_PER_S_PER_USER, "tokens/s",
                    "Llama 3.1 405B, FP8, TP8 on eight H200s with Medusa, one user: output tokens/s per user, published",
                    "measured by NVIDIA, cited", (Input("published", MEDUSA_405B_TOKENS_PER_S_PER_USER, "tokens/s",
                                                        Source(*MEDUSA_405B_SOURCE)),), 3)


@lru_cache(maxsize=64)
def _offline(model, hw, I, O, tp, pp, ep, dp, weights, activations, kv, chunk, max_c, price):
    m, d = as_model(model), as_device(hw)
    wl = service_workload(I, O, None, weights, activations, kv, chunk, price, max_c)
    return m, d, wl, _srv.offline_max(m, d, Layout(tp, pp, ep, dp), wl)


def serve_offline(model, hw, I, O, what: str = "output_tokens_per_s", tp: int = 1, pp: int = 1, ep: int = 1,
                  dp: int = 1, weights: str = "bf16", activations: str = "bf16", kv: str = "bf16", chunk=None,
                  max_concurrency=None, price=None) -> Quantity | str:
    """The offline maximum at one layout (the largest output tokens/s over concurrency)."""
    m, d, wl, p = _offline(model, hw, whole(I), whole(O), whole(tp), whole(pp), whole(ep), whole(dp), weights, activations, kv,
                           None if chunk is None else whole(chunk), None if max_concurrency is None else whole(max_concurrency),
                           None if price is None else float(price))
    return _quantity(p, what, m, d, wl, f"{p.layout_name}, offline maximum (concurrency {p.concurrency})")


@lru_cache(maxsize=16)
def _frontier(model, hw, I, O, weights, activations, kv, price):
    m, d = as_model(model), as_device(hw)
    wl = service_workload(I, O, None, weights, activations, kv, None, price)
    return m, d, wl, tuple(_srv.frontier(m, d, wl))


def serve_best(model, hw, I, O, what: str = "output_tokens_per_s_per_device", ttft_s=None, tpot_s=None,
               weights: str = "bf16", activations: str = "bf16", kv: str = "bf16", price=None) -> Quantity | str:
    """The best point under targets over every layout within one domain; the refusal sentence when none meets them."""
    m, d, wl, pts = _frontier(model, hw, whole(I), whole(O), weights, activations, kv, None if price is None else float(price))
    best = _srv.best_under_targets(list(pts), None if ttft_s is None else float(ttft_s),
                                   None if tpot_s is None else float(tpot_s))
    if isinstance(best, str):
        if what == "refusal":
            return best
        raise ValueError(f"no point meets the targets: {best}")
    if what == "refusal":
        raise ValueError("every target is met: there is no refusal to show")
    return _quantity(best, what, m, d, wl, f"{best.layout_name} at concurrency {best.concurrency}")


def serve_envelope_best(model, hw, I, O, what: str = "output_tokens_per_s_per_device", end: str = "throughput",
                        weights: str = "bf16", activations: str = "bf16", kv: str = "bf16") -> Quantity | str:
    """An end of the frontier's envelope: its most output tokens/s per device (`end="throughput"`) or
    its most tokens/s per user (`end="interactive"`)."""
    m, d, wl, pts = _frontier(model, hw, whole(I), whole(O), weights, activations, kv, None)
    env = _srv.pareto(list(pts))
    p = env[0] if end == "throughput" else env[-1]
    return _quantity(p, what, m, d, wl, f"{p.layout_name} at concurrency {p.concurrency}")


@lru_cache(maxsize=16)
def _disagg(model, hw, I, O, weights, activations, kv):
    m, d = as_model(model), as_device(hw)
    wl = service_workload(I, O, None, weights, activations, kv)
    return m, d, wl, tuple(_srv.disaggregated(m, d, wl))


def serve_disaggregated(model, hw, I, O, what: str = "prefill_devices_per_decode_device", end: str = "throughput",
                        weights: str = "bf16", activations: str = "bf16", kv: str = "bf16") -> Quantity | str:
    """A point at an end of the disaggregated envelope (prefill and decode pools in balance)."""
    m, d, wl, pts = _disagg(model, hw, whole(I), whole(O), weights, activations, kv)
    env = _srv.pareto(list(pts))
    p = env[0] if end == "throughput" else env[-1]
    if what == "prefill_layout":
        return p.prefill_layout.name
    return _quantity(p, what, m, d, wl, f"{p.layout_name} at decode concurrency {p.concurrency}")


#: Disaggregated pools on separate nodes, named once: (model, device, prompt example, output example, decode
#: nodes, decode EP degree, redundant experts, prefill nodes, weight, activation and KV formats). DeepSeek's
#: inference-system overview runs V3 this way on H800 nodes: decode EP144 with 32 redundant experts on 18 nodes,
#: prefill on 4 nodes of its own.
NODE_WORKLOADS = {
    "ds_h800": ("deepseek-v3", "h800-sxm", "ep_prompt", "serve_output", 18, 144, 32, 4, ("fp8-b128", "fp8", "bf16")),
}


@lru_cache(maxsize=16)
def _nodes(name: str, hit: float):
    from roofline.examples import example as _ex

    if name not in NODE_WORKLOADS:
        raise ValueError(f"unknown node workload {name!r}: known {', '.join(NODE_WORKLOADS)}")
    model, hw, i, o, nodes, ep, redundant, prefill_nodes, (w, a, kv) = NODE_WORKLOADS[name]
    m, d = as_model(model), as_device(hw)
    wl = _srv.Workload(whole(_ex(i)), whole(_ex(o)), formats=Formats.of(w, a, kv), cache_hit_rate=hit)
    lay = Layout(ep=ep, redundant_experts=redundant)
    check_nodes(lay, d, nodes)
    return m, d, wl, prefill_nodes, tuple(_srv.disaggregated(m, d, wl, layouts=[lay], prefill_nodes=prefill_nodes))


def svc_nodes(name: str, what: str = "prefill_devices_per_decode_device", end: str = "throughput",
              hit=0.0) -> Quantity | str:
    """A point at an end of the envelope of disaggregated pools on separate nodes (`NODE_WORKLOADS`), at a
    prefix-cache hit rate `hit` (a number or a token): {{ svc_nodes("ds_h800", "kv_transfer_s") }}."""
    h = float(getattr(hit, "value", hit))
    m, d, wl, prefill_nodes, pts = _nodes(name, h)
    env = _srv.pareto(list(pts))
    p = env[0] if end == "throughput" else env[-1]
    if what in ("prefill_layout", "decode_layout"):
        return getattr(p, what).name
    hits = f", cache hits {h:.3g} of each prompt" if h else ""
    where = (f"{p.layout_name} (prefill on {prefill_nodes} nodes of its own, decode on "
             f"{p.decode_layout.devices // d.network.node_devices}) at decode concurrency {p.concurrency}{hits}")
    q = _quantity(p, what, m, d, wl, where)
    if what == "kv_transfer_s":
        net = d.network
        nbytes = (p.kv_transfer_s - net.latency_floor_s) * net.bandwidth_bytes_per_s_per_direction
        return Quantity(q.value, q.unit, q.label, "the network's latency floor + the KV bytes one prefill device "
                        "holds ÷ one NIC's bandwidth each way", q.inputs, q.digits,
                        (Term(net.latency_floor_s, "s"), "+", Term(nbytes, "B"), "÷",
                         Term(net.bandwidth_bytes_per_s_per_direction, "B/s")))
    return q


def serve_memory_cap(model, hw, I, O, tp: int = 1, pp: int = 1, ep: int = 1, dp: int = 1, weights: str = "bf16",
                     activations: str = "bf16", kv: str = "bf16") -> Quantity:
    """Requests whose KV cache at I + O tokens, with weights, activations and the reserve, fit the layout."""
    m, d = as_model(model), as_device(hw)
    wl = service_workload(I, O, None, weights, activations, kv)
    lay = Layout(whole(tp), whole(pp), whole(ep), whole(dp))
    return Quantity(_srv.memory_cap(m, d, lay, wl), "",
                    f"requests of {m.name} whose KV cache at I + O = {wl.input_tokens + wl.output_tokens} tokens fits "
                    f"{lay.name} of {d.name} (weights {wl.formats.weights.name}, KV {wl.formats.kv})",
                    "(usable memory − weights − activations − reserve) ÷ KV cache per request, per device",
                    _inputs(m, d, wl), 6)


def serve_chunk_default() -> Quantity:
    """The default prefill chunk: prompt tokens one engine step takes."""
    title, url = _srv.CHUNK_SOURCES[0]
    return Quantity(_srv.DEFAULT_CHUNK_TOKENS, "", "prompt tokens per engine step (the prefill chunk), by default",
                    "SGLang's chunked_prefill_size and vLLM's server max_num_batched_tokens on H100-class GPUs",
                    tuple(Input(t, _srv.DEFAULT_CHUNK_TOKENS, "", Source(t, u)) for t, u in _srv.CHUNK_SOURCES),
                    digits=6)


def serve_derate(kind: str) -> Quantity:
    """A measured derate the expected figures use: "bandwidth", "gemm" or "collective"."""
    value = {"bandwidth": _meas.bandwidth_derate, "gemm": _meas.gemm_derate,
             "collective": _meas.collective_derate}[kind]()
    what = {"bandwidth": "median share of spec memory bandwidth reached by the registry's published bandwidth runs",
            "gemm": "median share of the dense peak reached by the registry's MAMF large-GEMM runs",
            "collective": "median share of link bandwidth reached by the registry's NCCL ring bus-bandwidth runs"}[kind]
    return Quantity(value, "%", what, "median of measured ÷ spec over the registry's published measurements", (), 2)


# ----------------------------------------------------------------- named workloads -------
#: The Serving page's workloads, named once: (model, device, prompt example, output example, formats).
WORKLOADS = {
    "chat70": ("llama-3.1-70b", "h100-sxm5", "serve_input", "serve_output", "fp8"),
    "long70": ("llama-3.1-70b", "h100-sxm5", "serve_long_input", "serve_output", "fp8"),
    "chat8": ("llama-3.1-8b", "h100-sxm5", "serve_input", "serve_output", "bf16"),
}


def _named(name: str) -> dict:
    from roofline.examples import example as _ex

    try:
        model, hw, i, o, f = WORKLOADS[name]
    except KeyError:
        raise ValueError(f"unknown serving workload {name!r}: known {', '.join(WORKLOADS)}") from None
    return dict(model=model, hw=hw, I=_ex(i), O=_ex(o), weights=f, activations=f, kv=f)


def svc(name: str, what: str = "output_tokens_per_s", concurrency=None, **kw) -> Quantity | str:
    """A named workload (`WORKLOADS`) at `concurrency`: {{ svc("chat70", "tpot_s", 64, tp=4) }}."""
    w = _named(name)
    return serve(w.pop("model"), w.pop("hw"), w.pop("I"), w.pop("O"), concurrency, what, **{**w, **kw})


def svc_offline(name: str, what: str = "output_tokens_per_s", **kw) -> Quantity | str:
    w = _named(name)
    return serve_offline(w.pop("model"), w.pop("hw"), w.pop("I"), w.pop("O"), what, **{**w, **kw})


def svc_best(name: str, what: str = "output_tokens_per_s_per_device", **kw) -> Quantity | str:
    w = _named(name)
    return serve_best(w.pop("model"), w.pop("hw"), w.pop("I"), w.pop("O"), what, **{**w, **kw})


def svc_envelope(name: str, what: str = "output_tokens_per_s_per_device", end: str = "throughput") -> Quantity | str:
    w = _named(name)
    return serve_envelope_best(w.pop("model"), w.pop("hw"), w.pop("I"), w.pop("O"), what, end, **w)


def svc_disagg(name: str, what: str = "prefill_devices_per_decode_device", end: str = "throughput") -> Quantity | str:
    w = _named(name)
    return serve_disaggregated(w.pop("model"), w.pop("hw"), w.pop("I"), w.pop("O"), what, end, **w)


def svc_cap(name: str, **kw) -> Quantity:
    w = _named(name)
    return serve_memory_cap(w.pop("model"), w.pop("hw"), w.pop("I"), w.pop("O"), **{**w, **kw})


TOKENS = (medusa_405b_published, svc, svc_offline, svc_best, svc_envelope, svc_disagg, svc_nodes, svc_cap, serve, serve_offline, serve_best, serve_envelope_best, serve_disaggregated, serve_memory_cap,
          serve_chunk_default, serve_derate)

__all__ = [fn.__name__ for fn in TOKENS]
