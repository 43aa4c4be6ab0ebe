"""Tokens of the optimization playbook: each optimization as a move on the roofline."""

from __future__ import annotations

from roofline.errors import InputError
from roofline.model import playbook as _pb
from roofline.model.dtypes import peak_unit
from roofline.quantities.core import (
    Input,
    Quantity,
    Source,
    as_device,
    as_model,
    bandwidth_input,
    model_inputs,
    peak_input,
    Term,
)
from roofline.quantities.inference import time_terms
from roofline.registry.hardware import Device
from roofline.registry.models import Model

# --- playbook (docs/playbook.md): each optimization as a move on the roofline ------------
# Views whose attributes are Quantities; the class name starts with "_" so NAMESPACE skips it.


class _MoveView:
    """Named Quantities (and a few words or flags) of one playbook move; an unknown name fails clearly."""

    def __init__(self, what: str, fields: dict):
        self._what, self._fields = what, fields

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._fields[name]
        except KeyError:
            raise InputError(f"{self._what} has no field {name!r}; known: {', '.join(self._fields)}") from None


def _n(x) -> float:
    return float(x.value) if isinstance(x, Quantity) else float(x)


def _ib(p) -> tuple:
    """FLOPs ÷ bytes of a kernel or a step: its intensity's arithmetic."""
    return (Term(float(p.flops), "FLOP"), "÷", Term(float(p.bytes), "B"))


def _t(p) -> tuple:
    """A kernel's or a step's roofline time as arithmetic: each kernel's bytes ÷ bandwidth or FLOPs ÷ peak."""
    return time_terms(p.ops if hasattr(p, "ops") else (p,))


def _div(a, a_unit: str, b, b_unit: str = "") -> tuple:
    return (Term(float(a), a_unit), "÷", Term(float(b), b_unit))


def _pb_inputs(m: Model | None, d: Device, dtype: str = "bf16", **given) -> tuple[Input, ...]:
    extra = tuple(Input(k.replace("_", " "), v if isinstance(v, str) else _n(v)) for k, v in given.items())
    return (*(model_inputs(m) if m is not None else ()), peak_input(d, dtype), bandwidth_input(d), *extra)


def _pb_view(what: str, inputs: tuple[Input, ...], spec: dict) -> _MoveView:
    fields = {}
    for name, item in spec.items():
        if isinstance(item, tuple):
            value, unit, label, formula, *arithmetic = item  # an optional fifth: the arithmetic line's terms
            fields[name] = Quantity(float(value), unit, f"{label}, {what}", formula, inputs,
                                    arithmetic=arithmetic[0] if arithmetic else ())
        else:
            fields[name] = item
    return _MoveView(what, fields)


def quantized(model, hw, weight_dtype: str = "bf16") -> _MoveView:
    """Batch-1 decode with weights stored in `weight_dtype`: quantized("llama-3.1-8b", "h100-sxm5", "int4").tokens_per_s."""
    m, d = as_model(model), as_device(hw)
    if weight_dtype == "int4":
        weight_dtype = "int4-g128"
    q = _pb.quantization(m, d, ("bf16", weight_dtype))
    base, lv = q.levels[0], q.levels[1]
    p = lv.point
    return _pb_view(f"batch-1 decode of {m.name} on the {d.name}, {q.context_len} token cached, {weight_dtype} weights",
                    _pb_inputs(m, d, lv.compute_dtype, weight_dtype=weight_dtype), {
        "weight_bytes": (lv.weight_bytes_per_token, "B", "weight bytes per token", "weights read per step × bytes per weight"),
        "intensity": (p.arithmetic_intensity, "FLOP/byte", "arithmetic intensity", "FLOPs ÷ bytes",
                      (Term(p.flops, "FLOP"), "÷", Term(p.bytes, "B"))),
        "ridge": (p.ridge_point, "FLOP/byte", f"ridge at the {lv.compute_dtype} peak", "peak ÷ bandwidth",
                  (Term(p.peak_flop_per_s, peak_unit(lv.compute_dtype)), "÷", Term(p.bandwidth_bytes_per_s, "B/s"))),
        "attainable": (p.attained_flop_per_s, "FLOP/s", "FLOP/s attained", "FLOPs ÷ the sum of the kernels' times",
                       _div(p.flops, "FLOP", p.time_s, "s")),
        "time_overlap": (p.time_perfect_overlap_s, "s", "perfect-overlap time per token (a lower bound)", "max(Σ FLOPs ÷ peak, Σ bytes ÷ bandwidth)"),
        "time": (1.0 / lv.tokens_per_s, "s", "time per token", "sum over kernels of max(FLOPs ÷ peak, bytes ÷ bandwidth)", _t(p)),
        "tokens_per_s": (lv.tokens_per_s, "tokens/s", "tokens/s", "1 ÷ time per token", _div(1, "", lv.step_time_s, "s")),
        "sol": (lv.speed_of_light_tokens_per_s, "tokens/s", "speed of light (weights only)", "bandwidth ÷ weight bytes a step reads",
                _div(p.bandwidth_bytes_per_s, "B/s", d.memory_bandwidth_bytes_per_s / lv.speed_of_light_tokens_per_s, "B")),
        "speedup": (lv.tokens_per_s / base.tokens_per_s, "x", "speed-up over bf16 weights", "tokens/s ÷ tokens/s with bf16 weights",
                    _div(lv.tokens_per_s, "tokens/s", base.tokens_per_s, "tokens/s")),
        "compute_dtype": lv.compute_dtype,
        "bound": p.bound,
    })


def accepted_tokens(draft_tokens, acceptance) -> Quantity:
    """Expected tokens per speculative step, (1 − a^(k+1)) ÷ (1 − a) (Leviathan et al. 2023)."""
    k, a = int(_n(draft_tokens)), _n(acceptance)
    return Quantity(_pb.expected_accepted_tokens(k, a), "", f"expected tokens per step, k = {k} drafted, acceptance {a:g}",
                    "(1 − a^(k+1)) ÷ (1 − a), Leviathan et al. 2023",
                    (Input("drafted tokens k", float(k)), Input("acceptance rate a", a),
                     Input("formula", "Leviathan, Kalman, Matias: Fast Inference from Transformers via Speculative Decoding",
                           source=Source("arXiv:2211.17192", "https://arxiv.org/abs/2211.17192"))))


def speculation(model, hw, draft_tokens, acceptance, context=1, draft_cost=0) -> _MoveView:
    """A speculative step verifying k drafted tokens against plain batch-1 decode."""
    m, d = as_model(model), as_device(hw)
    s = _pb.speculative(m, d, int(_n(draft_tokens)), _n(acceptance), int(_n(context)), _n(draft_cost))
    return _pb_view(f"speculative decoding of {m.name} on the {d.name}, batch 1, {int(_n(context))} tokens cached",
                    _pb_inputs(m, d, drafted_tokens=draft_tokens, acceptance_rate=acceptance, tokens_cached=context,
                               draft_cost_per_token=draft_cost), {
        "verify_tokens": (s.draft_tokens + 1, "", "positions scored in the verify pass", "drafted tokens + 1",
                          (Term(float(s.draft_tokens)), "+", Term(1.0))),
        "expected_tokens": (s.expected_tokens_per_step, "", "expected tokens per step", "(1 − a^(k+1)) ÷ (1 − a)"),
        "plain_intensity": (s.before.arithmetic_intensity, "FLOP/byte", "intensity of plain decode", "FLOPs ÷ bytes", _ib(s.before)),
        "verify_intensity": (s.after.arithmetic_intensity, "FLOP/byte", "intensity of the verify pass", "FLOPs of k + 1 tokens ÷ bytes",
                             _ib(s.after)),
        "plain_time": (s.before.time_s, "s", "time of a plain decode step", "sum over kernels of max(FLOPs ÷ peak, bytes ÷ bandwidth)",
                       _t(s.before)),
        "verify_time": (s.after.time_s, "s", "time of the verify pass", "sum over kernels of max(FLOPs ÷ peak, bytes ÷ bandwidth)",
                        _t(s.after)),
        "step_time": (s.step_time_s, "s", "time of a speculative step", "verify pass + k × draft cost × plain step",
                      (Term(float(s.after.time_s), "s"), "+", Term(float(s.draft_tokens)), "×", Term(s.draft_cost_fraction), "×",
                       Term(float(s.before.time_s), "s"))),
        "plain_tokens_per_s": (s.plain_tokens_per_s, "tokens/s", "plain decode tokens/s", "1 ÷ plain step time",
                               _div(1, "", s.before.time_s, "s")),
        "tokens_per_s": (s.tokens_per_s, "tokens/s", "speculative tokens/s", "expected tokens ÷ speculative step time",
                         _div(s.expected_tokens_per_step, "", s.step_time_s, "s")),
        "speedup": (s.speedup, "x", "speed-up over plain decode", "speculative tokens/s ÷ plain tokens/s",
                    _div(s.tokens_per_s, "tokens/s", s.plain_tokens_per_s, "tokens/s")),
        "verify_bound": s.after.bound,
    })


def fused(n_ops, elements, hw, dtype: str = "bf16") -> _MoveView:
    """A chain of `n_ops` elementwise ops over `elements` values, unfused against fused."""
    d = as_device(hw)
    f = _pb.fusion(int(_n(n_ops)), int(_n(elements)), d, dtype)
    return _pb_view(f"a chain of {f.n_ops} elementwise ops on the {d.name} in {dtype}",
                    _pb_inputs(None, d, f.after.compute_dtype, ops=n_ops, tensor_elements=elements, element_dtype=dtype), {
        "flops": (f.before.flops, "FLOP", "FLOPs of the chain", "ops × elements × one FLOP",
                  (Term(float(f.n_ops)), "×", Term(f.elements))),
        "unfused_bytes": (f.before.bytes, "B", "bytes moved unfused", "ops × (read + write) × elements × bytes"),
        "fused_bytes": (f.after.bytes, "B", "bytes moved fused", "(read + write) × elements × bytes"),
        "unfused_intensity": (f.before.arithmetic_intensity, "FLOP/byte", "intensity unfused", "FLOPs ÷ bytes", _ib(f.before)),
        "fused_intensity": (f.after.arithmetic_intensity, "FLOP/byte", "intensity fused", "FLOPs ÷ bytes", _ib(f.after)),
        "unfused_time": (f.before.time_s, "s", "time unfused", "max(FLOPs ÷ peak, bytes ÷ bandwidth)", _t(f.before)),
        "fused_time": (f.after.time_s, "s", "time fused", "max(FLOPs ÷ peak, bytes ÷ bandwidth)", _t(f.after)),
        "speedup": (f.speedup, "x", "speed-up from fusing", "unfused time ÷ fused time",
                    _div(f.before.time_s, "s", f.after.time_s, "s")),
        "ridge": (f.after.ridge_point, "FLOP/byte", f"ridge at the vector ({f.after.compute_dtype}) peak", "peak ÷ bandwidth",
                  _div(f.after.peak_flop_per_s, peak_unit(f.after.compute_dtype), f.after.bandwidth_bytes_per_s, "B/s")),
        "bound": f.after.bound,
    })


def attention_fused(model, hw, tokens, batch=1, phase: str = "prefill") -> _MoveView:
    """Attention unfused (QKᵀ, softmax, P·V as three kernels) against one fused kernel: a prefill of
    `tokens` prompt tokens, or a decode step with `tokens` cached."""
    m, d = as_model(model), as_device(hw)
    n, b = int(_n(tokens)), int(_n(batch))
    a = _pb.attention_fusion(m, d, n, b, phase)
    fk = a.fused_kernel
    what = (f"prefill of a {n}-token prompt" if phase == "prefill" else f"decode with {n} tokens cached")
    return _pb_view(f"{what} of {m.name} on the {d.name}, batch {b}",
                    _pb_inputs(m, d, batch=batch, tokens=tokens, phase=phase), {
        "unfused_bytes": (a.unfused_attention_bytes, "B", "bytes moved by unfused attention", "Q, K, V read; scores written, read and rewritten by softmax, read by P·V; output written"),
        "fused_bytes": (fk.bytes, "B", "bytes moved by fused attention", "Q, K, V read once; output written; scores stay on chip"),
        "unfused_time": (a.unfused_attention_time_s, "s", "time of unfused attention", "sum over its three kernels of max(FLOPs ÷ peak, bytes ÷ bandwidth)"),
        "fused_time": (fk.time_s, "s", "time of fused attention", "max(FLOPs ÷ peak, bytes ÷ bandwidth)", _t(fk)),
        "fused_intensity": (fk.arithmetic_intensity, "FLOP/byte", "fused attention intensity", "FLOPs ÷ bytes", _ib(fk)),
        "attention_speedup": (a.attention_speedup, "x", "attention speed-up from fusing", "unfused ÷ fused attention time",
                              _div(a.unfused_attention_time_s, "s", fk.time_s, "s")),
        "step_speedup": (a.step_speedup, "x", "step speed-up from fusing attention", "unfused ÷ fused step time",
                         _div(a.unfused.time_s, "s", a.fused.time_s, "s")),
        "unfused_step_time": (a.unfused.time_s, "s", "step time, unfused attention", "sum over kernels of max(FLOPs ÷ peak, bytes ÷ bandwidth)",
                              _t(a.unfused)),
        "fused_step_time": (a.fused.time_s, "s", "step time, fused attention", "sum over kernels of max(FLOPs ÷ peak, bytes ÷ bandwidth)",
                            _t(a.fused)),
        "unfused_bound": str(next(k for k in a.unfused_kernels if k.name == "attn_qk").bound),
        "bound": fk.bound,
    })


def paged(model, hw, max_len, actual_len) -> _MoveView:
    """Decode batch that fits with KV cache reserved at the maximum length against paged at the actual length."""
    m, d = as_model(model), as_device(hw)
    p = _pb.paged_kv(m, d, int(_n(max_len)), int(_n(actual_len)))
    return _pb_view(f"decode of {m.name} on the {d.name}, KV cache reserved at {p.max_len} or paged at {p.actual_len} tokens",
                    _pb_inputs(m, d, maximum_length=max_len, actual_length=actual_len,
                               block_tokens=float(p.block_tokens)), {
        "block_tokens": (p.block_tokens, "", "tokens per KV block (vLLM)", "PagedAttention block size, Kwon et al. 2023"),
        "free_memory": (p.free_bytes, "B", "memory left beside the weights", "usable memory − weights − runtime reserve"),
        "contiguous_reserved": (p.contiguous_reserved_bytes, "B", "KV cache reserved per sequence, contiguous", "maximum length × KV bytes per token",
                                (Term(float(p.max_len)), "×", Term(p.contiguous_reserved_bytes / p.max_len, "B"))),
        "paged_reserved": (p.paged_reserved_bytes, "B", "KV cache reserved per sequence, paged", "actual length in whole blocks × KV bytes per token",
                           (Term(p.paged_reserved_bytes / (p.contiguous_reserved_bytes / p.max_len)), "×",
                            Term(p.contiguous_reserved_bytes / p.max_len, "B"))),
        "waste": (p.contiguous_waste, "%", "share of a contiguous reservation never written", "1 − actual ÷ maximum length",
                  (Term(1.0), "−", Term(float(p.actual_len)), "÷", Term(float(p.max_len)))),
        "contiguous_batch": (p.contiguous_batch, "", "sequences that fit, contiguous", "⌊free memory ÷ reservation⌋"),
        "paged_batch": (p.paged_batch, "", "sequences that fit, paged", "⌊free memory ÷ reservation⌋"),
        "contiguous_intensity": (p.before.arithmetic_intensity, "FLOP/byte", "decode intensity, contiguous batch", "FLOPs ÷ bytes",
                                 _ib(p.before)),
        "paged_intensity": (p.after.arithmetic_intensity, "FLOP/byte", "decode intensity, paged batch", "FLOPs ÷ bytes", _ib(p.after)),
        "contiguous_tokens_per_s": (p.contiguous_tokens_per_s, "tokens/s", "tokens/s, contiguous batch", "batch ÷ step time (sum of the kernels' times)",
                                    _div(p.contiguous_batch, "", p.before.time_s, "s")),
        "paged_tokens_per_s": (p.paged_tokens_per_s, "tokens/s", "tokens/s, paged batch", "batch ÷ step time (sum of the kernels' times)",
                               _div(p.paged_batch, "", p.after.time_s, "s")),
        "speedup": (p.paged_tokens_per_s / p.contiguous_tokens_per_s, "x", "throughput gain from paging", "paged tokens/s ÷ contiguous tokens/s",
                    _div(p.paged_tokens_per_s, "tokens/s", p.contiguous_tokens_per_s, "tokens/s")),
        "bound": p.after.bound,
    })


def moe_decode(model, hw, batch, context=1) -> _MoveView:
    """A mixture-of-experts model's decode at batch 1 and at `batch`, `context` tokens cached."""
    m, d = as_model(model), as_device(hw)
    e = _pb.mixture_of_experts(m, d, int(_n(batch)), context_len=int(_n(context)))
    return _pb_view(f"decode of {m.name} on the {d.name}, {e.context_len} tokens cached",
                    _pb_inputs(m, d, batch=batch, tokens_cached=context), {
        "active_bytes": (e.active_bytes_per_token, "B", "weight bytes one token reads", "weights in its matmuls (routed experts only) × bytes per weight"),
        "total_bytes": (e.total_bytes_per_token, "B", "weight bytes a step reading every expert reads", "weights in its matmuls (every expert) × bytes per weight"),
        "byte_share": (e.active_bytes_per_token / e.total_bytes_per_token, "%", "active share of the weights", "weights read with the routed experts ÷ with every expert",
                       _div(e.active_bytes_per_token, "B", e.total_bytes_per_token, "B")),
        "n_experts": (m.n_experts, "", "experts per layer", "config"),
        "experts_per_token": (m.experts_per_token, "", "experts each token is routed to", "config"),
        "experts_touched": (e.experts_touched, "", "distinct experts read per layer", "E · (1 − (1 − k/E)^batch), uniform routing"),
        "intensity_1": (e.before.arithmetic_intensity, "FLOP/byte", "intensity at batch 1", "FLOPs ÷ bytes", _ib(e.before)),
        "intensity": (e.after.arithmetic_intensity, "FLOP/byte", "intensity at the batch", "FLOPs ÷ bytes", _ib(e.after)),
        "dense_intensity": (e.dense_after.arithmetic_intensity, "FLOP/byte", "intensity of a dense model of the active size at the batch", "FLOPs ÷ bytes",
                            _ib(e.dense_after)),
        "time_1": (e.before.time_s, "s", "time per token at batch 1", "sum over kernels of max(FLOPs ÷ peak, bytes ÷ bandwidth)", _t(e.before)),
        "tokens_per_s_1": (1.0 / e.before.time_s, "tokens/s", "tokens/s at batch 1", "1 ÷ step time", _div(1, "", e.before.time_s, "s")),
        "tokens_per_s": (e.batch / e.after.time_s, "tokens/s", "tokens/s at the batch", "batch ÷ step time", _div(e.batch, "", e.after.time_s, "s")),
    })


def tensor_parallel(model, hw, n_devices, weight_dtype: str = "bf16", context=1) -> _MoveView:
    """Batch-1 decode split over `n_devices` (ideal: communication ignored), `context` tokens cached."""
    m, d = as_model(model), as_device(hw)
    t = _pb.tensor_parallel(m, d, int(_n(n_devices)), context_len=int(_n(context)), weight_dtype=weight_dtype)
    fields = {
        "memory_required": (t.memory_required_bytes, "B", "memory for weights, KV cache and activations", "weights + KV cache + activations"),
        "memory_per_device": (t.memory_per_device_bytes, "B", "memory per device", "memory required ÷ N + runtime reserve",
                              (Term(t.memory_required_bytes, "B"), "÷", Term(float(t.n_devices)), "+",
                               Term(t.memory_per_device_bytes - t.memory_required_bytes / t.n_devices, "B"))),
        "min_devices": (t.min_devices_to_fit, "", "fewest devices that hold it", "⌈memory required ÷ (usable memory − runtime reserve)⌉"),
        "intensity": (t.after.arithmetic_intensity, "FLOP/byte", "intensity (unchanged by splitting)", "FLOPs ÷ bytes", _ib(t.after)),
        "time_1": (t.before.time_s, "s", "time per token on one device, were it to fit", "sum over kernels of max(FLOPs ÷ peak, bytes ÷ bandwidth)",
                   _t(t.before)),
        "time": (t.after.time_s, "s", "time per token over the group (communication ignored)", "one-device time ÷ N",
                 _div(t.before.time_s, "s", t.n_devices)),
        "tokens_per_s": (1.0 / t.after.time_s, "tokens/s", "tokens/s over the group", "1 ÷ time per token", _div(1, "", t.after.time_s, "s")),
        "aggregate_bandwidth": (t.aggregate_bandwidth_bytes_per_s, "B/s", "aggregate bandwidth", "N × bandwidth",
                                (Term(float(t.n_devices)), "×", Term(d.memory_bandwidth_bytes_per_s, "B/s"))),
        "speedup": (t.speedup, "x", "speed-up over one device", "ideal: N",
                    _div(t.before.time_s, "s", t.after.time_s, "s")),
        "fits_one": t.fits_one_device,
        "fits": t.fits,
    }
    if t.time_with_collectives_s is not None:
        fields["time_links"] = (t.time_with_collectives_s, "s", "time per token over the group with its all-reduces",
                                "per-device kernels + all-reduces over the scale-up link (roofline.model.parallel)")
    return _pb_view(f"batch-1 decode of {m.name} over {t.n_devices} × {d.name}, {int(_n(context))} token cached, "
                    f"{weight_dtype} weights", _pb_inputs(m, d, devices=n_devices, weight_dtype=weight_dtype,
                                                         tokens_cached=context), fields)


def disaggregated(model, hw, prompt, batch, context=1) -> _MoveView:
    """A prefill and a decode batch on one device: their points and their interference."""
    m, d = as_model(model), as_device(hw)
    g = _pb.disaggregation(m, d, int(_n(prompt)), int(_n(batch)), int(_n(context)))
    return _pb_view(f"{m.name} on the {d.name}: prefill of {g.prompt_len} tokens, decode batch {g.decode_batch} "
                    f"with {g.context_len} tokens cached",
                    _pb_inputs(m, d, prompt_length=prompt, decode_batch=batch, tokens_cached=context), {
        "prefill_intensity": (g.prefill.arithmetic_intensity, "FLOP/byte", "prefill intensity", "FLOPs ÷ bytes", _ib(g.prefill)),
        "decode_intensity": (g.decode.arithmetic_intensity, "FLOP/byte", "decode intensity", "FLOPs ÷ bytes", _ib(g.decode)),
        "ridge": (g.decode.ridge_point, "FLOP/byte", "ridge point", "peak ÷ bandwidth",
                  _div(g.decode.peak_flop_per_s, peak_unit(g.decode.matmul_dtype), g.decode.bandwidth_bytes_per_s, "B/s")),
        "ttft": (g.time_to_first_token_s, "s", "time to first token", "prefill time: sum of its kernels' roofline times", _t(g.prefill)),
        "decode_step": (g.decode_step_s, "s", "decode step time", "sum over kernels of max(FLOPs ÷ peak, bytes ÷ bandwidth)", _t(g.decode)),
        "stalled_step": (g.stalled_decode_step_s, "s", "decode step that waits behind the prefill", "decode step + prefill",
                         (Term(g.decode_step_s, "s"), "+", Term(g.time_to_first_token_s, "s"))),
        "stall_ratio": (g.stall_ratio, "x", "stalled ÷ normal decode step", "(decode + prefill) ÷ decode",
                        _div(g.stalled_decode_step_s, "s", g.decode_step_s, "s")),
        "kv_transfer": (g.kv_transfer_bytes, "B", "prompt KV cache moved between pools", "prompt length × KV bytes per token",
                        (Term(float(g.prompt_len)), "×", Term(g.kv_transfer_bytes / g.prompt_len, "B"))),
        "prefill_bound": g.prefill.bound,
        "decode_bound": g.decode.bound,
    })

#: The token functions this topic adds to the namespace pages evaluate in.
TOKENS = (quantized, accepted_tokens, speculation, fused, attention_fused, paged, moe_decode, tensor_parallel, disaggregated,)

__all__ = ['quantized', 'accepted_tokens', 'speculation', 'fused', 'attention_fused', 'paged', 'moe_decode', 'tensor_parallel', 'disaggregated']
