"""Tokens about decode steps and prefills: times, throughputs, critical batch, speed of light."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from roofline.errors import InputError
from roofline.model.accounting import kv_bytes_per_token
from roofline.model import kernels as _k
from roofline.model import record as _record
from roofline.model.dtypes import peak_unit
from roofline.model.formats import CHECKPOINT, Formats, choose_weight_format, parse_weight_format
from roofline.quantities.core import (
    Input,
    Quantity,
    Source,
    Term,
    as_device,
    as_model,
    bandwidth_input,
    device_source,
    model_inputs,
    peak_input,
)


# ---------------------------------------------------------------- inference ---------------
# Decode and prefill tokens compute from the per-kernel model (roofline.model.kernels): a step's
# time is the sum of its kernels' roofline times; `time_overlap` is the perfect-overlap bound.



def _formats(weight_format: str = "bf16", kv_dtype: str = "bf16", activation: str = "bf16", model=None) -> Formats:
    """Formats from a token's arguments; weight_format="checkpoint" takes the model's own, over its own tensors."""
    if weight_format == CHECKPOINT:
        c = choose_weight_format(model)
        return Formats.of(c.format, activation, kv_dtype, scope=c.scope)
    return Formats.of(weight_format, activation, kv_dtype)


def time_terms(ops) -> tuple:
    """A sum of roofline times as arithmetic: memory-bound kernels' bytes ÷ their bandwidth, plus
    compute-bound kernels' FLOPs ÷ their peak, grouped by rate (each kernel counts on its own roof)."""
    groups: dict[tuple, float] = {}
    for k in ops:
        if k.compute_time_s > k.memory_time_s:
            key = ("FLOP", k.peak_flop_per_s, peak_unit(k.compute_dtype))
            groups[key] = groups.get(key, 0.0) + float(k.flops)
        else:
            key = ("B", k.bandwidth_bytes_per_s, "B/s")
            groups[key] = groups.get(key, 0.0) + float(k.bytes)
    parts: list = []
    for (unit, rate, rate_unit), amount in sorted(groups.items(), key=lambda g: g[0][0]):
        parts += [*(("+",) if parts else ()), Term(amount, unit), "÷", Term(rate, rate_unit)]
    return tuple(parts)


#: The pages' token names for a step's quantities, each read from the step's one record
#: (`record.step_record`) under the record's name: token attribute -> record key. A name a page
#: uses that differs from the record's (`intensity`, `time`, `tokens_per_s_per_seq`) is an alias
#: here and nowhere else; a StepView computes none of these itself.
STEP_TOKENS = {"flops": "flops", "bytes": "bytes", "weight_bytes": "weight_bytes", "kv_bytes": "kv_bytes",
               "intensity": "arithmetic_intensity", "time": "time_s", "ttft": "time_s",
               "time_overlap": "time_perfect_overlap_s", "tokens_per_s": "tokens_per_s",
               "tokens_per_s_per_seq": "tokens_per_s_per_sequence", "attained": "attained_flop_per_s",
               "utilization": "flop_utilization", "memory_required": "memory_required_bytes",
               "ridge": "ridge_point", "bound": "bound", "fits": "fits"}
#: The same for one kernel (`record.op_record`); `share` (its time ÷ the step's) is the view's own.
OP_TOKENS = {"flops": "flops", "bytes": "bytes", "intensity": "arithmetic_intensity", "ridge": "ridge_point",
             "time": "time_s", "bound": "bound"}


@dataclass(frozen=True)
class OpView:
    """One kernel of a step as Quantities: {{ decode("llama-3.1-8b", "h100-sxm5", 64, 4096).op("attention").intensity }}."""

    view: "StepView"
    index: int  # the kernel's place in the step's ops (and in its record's)

    @property
    def op(self) -> _k.RooflinePoint:
        return self.view.step.ops[self.index]

    def _r(self, token: str):
        return self.view.record["ops"][self.index][OP_TOKENS[token]]

    def _q(self, value, unit, what, formula, device=True, arithmetic=()) -> Quantity:
        return self.view._q(value, unit, f"{self.op.name}: {what}", formula, device, arithmetic)

    @property
    def flops(self): return self._q(self._r("flops"), "FLOP", "FLOPs per step", "the kernel's FLOPs over all layers", False)
    @property
    def bytes(self): return self._q(self._r("bytes"), "B", "bytes per step", "weights + activations + KV cache read and written", False)
    @property
    def intensity(self):
        return self._q(self._r("intensity"), "FLOP/byte", "arithmetic intensity", "FLOPs ÷ bytes", False,
                       (Term(self._r("flops"), "FLOP"), "÷", Term(self._r("bytes"), "B")))
    @property
    def ridge(self):
        return self._q(self._r("ridge"), "FLOP/byte", "ridge point at its peak", "peak ÷ bandwidth", True,
                       (Term(self.op.peak_flop_per_s, peak_unit(self.op.compute_dtype)), "÷", Term(self.op.bandwidth_bytes_per_s, "B/s")))
    @property
    def time(self):
        return self._q(self._r("time"), "s", "roofline time", "max(FLOPs ÷ peak, bytes ÷ bandwidth)", True, time_terms((self.op,)))
    @property
    def share(self):
        op_s, step_s = self._r("time"), self.view._r("time")
        return self._q(op_s / step_s, "%", "share of the step's time", "kernel time ÷ step time", True,
                       (Term(op_s, "s"), "÷", Term(step_s, "s")))
    @property
    def bound(self) -> str: return self._r("bound")


@dataclass(frozen=True)
class StepView:
    """A decode step or prefill as Quantities, read from its one record (`record.step_record`, under
    the names `STEP_TOKENS` maps); `.step` is the underlying `kernels.KernelStep`."""

    step: _k.KernelStep

    @cached_property
    def record(self) -> dict:
        """The step's one record: what `roofline decode --json` prints for it."""
        return _record.step_record(self.step)

    def _r(self, token: str):
        return self.record[STEP_TOKENS[token]]

    def _inputs(self, device: bool = True) -> tuple[Input, ...]:
        """The workload (model, batch, context, formats), and the device's roofs where they enter."""
        s = self.step
        f = s.formats
        # A step's FLOPs, bytes and intensity do not depend on the device's roofs: only its name is given.
        rates = ((peak_input(s.device, s.matmul_dtype), bandwidth_input(s.device)) if device else
                 (Input("device", s.device.name, source=device_source(s.device)),))
        return (*model_inputs(s.model), *rates,
                Input("batch", float(s.batch)), Input("tokens cached" if s.phase == "decode" else "prompt length",
                                                      float(s.context_len if s.phase == "decode" else s.tokens_per_sequence)),
                Input("weights / activations / KV cache", f"{f.weights.name} / {f.activation} / {f.kv}"),
                Input("attention", s.attention))

    def _q(self, value, unit, what, formula, device: bool = True, arithmetic: tuple = (),
           extra: tuple[Input, ...] = ()) -> Quantity:
        """A Quantity of this step: `device` says whether the device's roofs enter it (a time does, an
        intensity does not); `arithmetic` is its one-line arithmetic, `extra` the intermediate values it uses."""
        s = self.step
        where = (f"decode of {s.model.name} on the {s.device.name}, batch {float(s.batch):g}, "
                 f"{float(s.context_len):g} tokens cached" if s.phase == "decode" else
                 f"prefill of {s.model.name} on the {s.device.name}, batch {float(s.batch):g}, "
                 f"{float(s.tokens_per_sequence):g}-token prompt")
        return Quantity(float(value), unit, f"{what}, {where}", formula, (*extra, *self._inputs(device)),
                        arithmetic=arithmetic)

    def _time_input(self) -> Input:
        return Input("time per step (sum of the kernels' roofline times)", self._r("time"), "s")

    def op(self, name: str) -> OpView:
        """One kernel by name (qkv_proj, attention, o_proj, gate_up_proj, down_proj, lm_head, ...)."""
        for i, k in enumerate(self.step.ops):
            if k.name == name:
                return OpView(self, i)
        raise InputError(f"no kernel {name!r} in this step; it has {', '.join(k.name for k in self.step.ops)}")

    @property
    def flops(self): return self._q(self._r("flops"), "FLOP", "FLOPs per step", "sum of the kernels' FLOPs", False)
    @property
    def bytes(self):
        r = self.record
        return self._q(self._r("bytes"), "B", "bytes per step", "weights + KV cache + activations, every kernel", False,
                       (Term(r["weight_bytes"], "B"), "+", Term(r["kv_bytes"], "B"), "+", Term(r["activation_bytes"], "B")))
    @property
    def weight_bytes(self): return self._q(self._r("weight_bytes"), "B", "weight bytes per step", "weights read once per step", False)
    @property
    def kv_bytes(self): return self._q(self._r("kv_bytes"), "B", "KV-cache bytes per step", "K and V read for every cached position, plus the new entries written", False)
    @property
    def intensity(self):
        r = self.record
        return self._q(self._r("intensity"), "FLOP/byte", "whole-step arithmetic intensity", "FLOPs ÷ bytes", False,
                       (Term(r["flops"], "FLOP"), "÷", Term(r["bytes"], "B")))
    @property
    def time(self):
        return self._q(self._r("time"), "s", "time per step", "sum over kernels of max(FLOPs ÷ peak, bytes ÷ bandwidth)",
                       True, time_terms(self.step.ops))
    @property
    def time_overlap(self):
        r = self.record
        line = ((Term(r["bytes"], "B"), "÷", Term(r["bandwidth_bytes_per_s"], "B/s"))
                if r["memory_time_s"] >= r["compute_time_s"]
                else ())  # compute side: kernels run at different peaks, so no single quotient
        return self._q(self._r("time_overlap"), "s", "perfect-overlap time per step (a lower bound)",
                       "max(Σ FLOPs ÷ peak, Σ bytes ÷ bandwidth)", True, line)
    @property
    def ttft(self):
        return self._q(self._r("ttft"), "s", "time to first token", "prefill time: sum of the kernels' roofline times",
                       True, time_terms(self.step.ops))
    @property
    def tokens_per_s(self):
        r = self.record
        line = ((Term(r["batch"]), "÷", Term(r["time_s"], "s")) if r["phase"] == "decode" else
                (Term(r["batch"]), "×", Term(r["tokens_per_sequence"]), "÷", Term(r["time_s"], "s")))
        return self._q(self._r("tokens_per_s"), "tokens/s", "tokens/s (whole batch)", "batch × tokens per step ÷ time",
                       True, line, (self._time_input(),))
    @property
    def tokens_per_s_per_seq(self):
        r = self.record
        return self._q(self._r("tokens_per_s_per_seq"), "tokens/s", "tokens/s per sequence", "tokens per step ÷ time",
                       True, (Term(r["tokens_per_sequence"]), "÷", Term(r["time_s"], "s")), (self._time_input(),))
    @property
    def attained(self):
        r = self.record
        return self._q(self._r("attained"), "FLOP/s", "FLOP/s attained", "FLOPs ÷ time", True,
                       (Term(r["flops"], "FLOP"), "÷", Term(r["time_s"], "s")), (self._time_input(),))
    @property
    def utilization(self):
        r = self.record
        return self._q(self._r("utilization"), "%", "share of peak FLOP/s", "attained ÷ peak", True,
                       (Term(r["flops"], "FLOP"), "÷", Term(r["time_s"], "s"), "÷",
                        Term(r["peak_flop_per_s"], peak_unit(r["compute_dtype"]))),
                       (self._time_input(),))
    @property
    def memory_required(self):
        r = self.record
        return self._q(self._r("memory_required"), "B", "memory for weights, KV cache, activations and runtime reserve",
                       "all weights + batch × cached tokens × KV bytes per token + activations + reserve", False,
                       (Term(r["weights_resident_bytes"], "B"), "+", Term(r["kv_resident_bytes"], "B"), "+",
                        Term(r["activation_peak_bytes"], "B"), "+", Term(r["runtime_reserve_bytes"], "B")))
    @property
    def ridge(self):
        r = self.record
        return self._q(self._r("ridge"), "FLOP/byte", "ridge point of the weight matmuls", "peak ÷ bandwidth", True,
                       (Term(r["peak_flop_per_s"], peak_unit(r["compute_dtype"])), "÷", Term(r["bandwidth_bytes_per_s"], "B/s")))
    @property
    def bound(self) -> str: return self._r("bound")
    @property
    def fits(self) -> bool: return self._r("fits")


def decode(model, hw, batch=1, context=1, weight_format: str = "bf16", kv_dtype: str = "bf16",
           activation: str = "bf16", attention: str = "fused") -> StepView:
    """A decode step: `batch` sequences with `context` tokens cached each (at least 1)."""
    m = as_model(model)
    return StepView(_k.decode(m, as_device(hw), float(batch), float(context),
                              _formats(weight_format, kv_dtype, activation, m), attention))


def prefill(model, hw, prompt, batch=1, weight_format: str = "bf16", kv_dtype: str = "bf16",
            activation: str = "bf16", attention: str = "fused") -> StepView:
    m = as_model(model)
    return StepView(_k.prefill(m, as_device(hw), float(prompt), float(batch),
                               _formats(weight_format, kv_dtype, activation, m), attention))


def energy_per_token(model, hw, batch=1, context=1, weight_format: str = "bf16") -> Quantity:
    """Joules per decoded token if the device drew its rated power for the roofline step: power × step time ÷ batch.

    Example: {{ energy_per_token("llama-3.1-8b", "h100-sxm5", 64, 4096) }}. Both inputs are
    assumptions, said so in the provenance: a real step takes longer, and draws less than TDP.
    """
    from roofline.quantities.hardware import power, power_input

    view = decode(model, hw, batch, context, weight_format)
    watts = power(hw).value
    s = view.step
    return Quantity(watts * s.time_s / float(s.batch), "J",
                    f"energy per token at rated power, decode of {s.model.name} on the {s.device.name}, "
                    f"batch {float(s.batch):g}, {float(s.context_len):g} tokens cached, {weight_format} weights",
                    "rated board power × roofline step time ÷ batch (assumes the device draws its TDP)",
                    (*view._inputs(), power_input(s.device)),
                    arithmetic=(Term(watts, "W"), "×", Term(float(s.time_s), "s"), "÷", Term(float(s.batch))))


# Pages ask for the same crossing several times; each is a search. Keyed on the objects
# themselves, kept alive here so an id is never reused.
_searches: dict[tuple, tuple] = {}


def forget_searches() -> None:
    """Drop every search kept (`roofline.memos.forget_all`)."""
    _searches.clear()


def _cached(kind, m, d, *args):
    key = (kind, id(m), id(d), *args)
    hit = _searches.get(key)
    if hit is None or hit[0] is not m or hit[1] is not d:
        if kind == "critical":
            value = _k.critical_batch(m, d, _formats(*args))
        else:
            context, weight_format, kv_dtype = args
            value = _k.whole_step_crossing_batch(m, d, context, _formats(weight_format, kv_dtype))
        hit = _searches[key] = (m, d, value)
    return hit[2]


def critical_batch(model, hw, weight_format: str = "bf16", kv_dtype: str = "bf16", activation: str = "bf16") -> Quantity:
    """The sources' critical batch: where the weight matmuls (weight bytes only) reach the ridge; any context."""
    m, d = as_model(model), as_device(hw)
    f = _formats(weight_format, kv_dtype, activation)
    b = _cached("critical", m, d, weight_format, kv_dtype, activation)
    if b is None:
        raise InputError(f"the weight matmuls of {m.name} never reach the ridge of the {d.name}")
    return Quantity(float(b), "", f"critical batch of {m.name} on the {d.name} ({f.weights.name} weights)",
                    "smallest batch at which the weight matmuls' FLOPs ÷ weight bytes reach the ridge point",
                    (*model_inputs(m), peak_input(d, f.matmul_dtype()), bandwidth_input(d),
                     Input("weight format", f.weights.name)))


def whole_step_crossing(model, hw, context, weight_format: str = "bf16", kv_dtype: str = "bf16") -> Quantity:
    """The batch at which a whole decode step's intensity reaches the ridge (a perfect-overlap figure)."""
    m, d = as_model(model), as_device(hw)
    b = _cached("whole", m, d, float(context), weight_format, kv_dtype)
    if b is None:
        raise InputError(f"decode of {m.name} on the {d.name} with {float(context):g} tokens cached: "
                         "the whole step never reaches the ridge")
    f = _formats(weight_format, kv_dtype)
    return Quantity(float(b), "", f"whole-step crossing batch of {m.name} on the {d.name}, {float(context):g} tokens cached",
                    "smallest batch whose whole decode step (all FLOPs ÷ all bytes) reaches the ridge",
                    (*model_inputs(m), peak_input(d, f.matmul_dtype()), bandwidth_input(d),
                     Input("tokens cached", float(context))))


def whole_step_reaches_ridge(model, hw, context, weight_format: str = "bf16", kv_dtype: str = "bf16") -> bool:
    """Whether some batch brings the whole decode step (perfect overlap) to the ridge at this context."""
    return _cached("whole", as_model(model), as_device(hw), float(context), weight_format, kv_dtype) is not None


def attention_intensity(model, kv_dtype: str = "bf16") -> Quantity:
    """Decode attention's FLOP/byte as the context grows; no batch changes it."""
    m = as_model(model)
    f = _formats(kv_dtype=kv_dtype)
    line = ()
    if not m.is_bare:  # per cached position and layer: QKᵀ and P·V FLOPs plus softmax's, ÷ the KV bytes read
        qk, pv, _, _ = _k.attention_dims(m)
        line = ("(", Term(2.0 * (qk + pv)), "+", Term(float(_k.SOFTMAX_FLOPS_PER_SCORE)), ")", "×", Term(float(m.n_heads)),
                "÷", "(", Term(float(m.kv_elements_per_token_per_layer)), "×", Term(float(f.kv_bytes)), ")")
    return Quantity(_k.attention_intensity_limit(m, f), "FLOP/byte",
                    f"decode attention intensity of {m.name} ({kv_dtype} KV cache)",
                    "(4 × head_dim + 5) × query heads ÷ (2 × KV heads × head_dim × KV bytes)", model_inputs(m),
                    arithmetic=line)


def max_batch(model, hw, context, weight_format: str = "bf16", kv_dtype: str = "bf16") -> Quantity:
    """The largest batch that fits: the largest decode batch whose weights, KV cache, activations and reserve fit."""
    m, d = as_model(model), as_device(hw)
    b = _k.max_batch_that_fits(m, d, float(context), _formats(weight_format, kv_dtype))
    if b is None:
        raise InputError("a bare parameter count models no per-sequence memory")
    return Quantity(float(b), "", f"largest decode batch of {m.name} that fits the {d.name}, {float(context):g} tokens cached",
                    "(usable memory − weights − runtime reserve) ÷ (KV cache + activations per sequence)",
                    (*model_inputs(m), usable_memory_input(d), Input("tokens cached", float(context)),
                     Input("runtime reserve", _k.RUNTIME_RESERVE_BYTES, "B")))


def usable_memory_input(d) -> Input:
    src = Source("usable memory", d.usable_memory_source_url) if d.usable_memory_bytes else device_source(d)
    return Input(f"{d.name} usable memory", _k.usable_memory_bytes(d), "B", src)


def runtime_reserve() -> Quantity:
    """The memory "fits" sets aside besides weights, KV cache and activations (an assumption)."""
    return Quantity(float(_k.RUNTIME_RESERVE_BYTES), "B", "runtime reserve (CUDA context, library workspaces)",
                    "an assumption, stated wherever fits is", ())


def usable_memory(hw) -> Quantity:
    """Bytes a program can allocate: the runtime's total where sourced (nvidia-smi), else the vendor figure."""
    d = as_device(hw)
    return Quantity(_k.usable_memory_bytes(d), "B", f"{d.name} usable memory",
                    d.usable_memory_note or "vendor capacity (no runtime figure sourced)", (usable_memory_input(d),))


def _prompt_length(t, m, d, f, batch, what: str, formula: str) -> Quantity:
    """A prompt length found by a search over prefills (None: none up to the search's limit)."""
    if t is None:
        raise InputError(f"prefill of {m.name} on the {d.name} never {what}")
    return Quantity(float(t), "", f"prompt length at which prefill of {m.name} {what}, {d.name}", formula,
                    (*model_inputs(m), peak_input(d, f.matmul_dtype()), bandwidth_input(d),
                     Input("batch", float(batch))), digits=6)


def crossover_prompt(model, hw, batch=1, weight_format: str = "bf16", kv_dtype: str = "bf16") -> Quantity:
    """Shortest prompt whose prefill reaches the ridge: {{ crossover_prompt("llama-3.1-8b", "h100-sxm5") }}."""
    m, d = as_model(model), as_device(hw)
    f = _formats(weight_format, kv_dtype)
    return _prompt_length(_k.crossover_prompt_len(m, d, float(batch), f), m, d, f, batch, "reaches the ridge",
                          "smallest prompt length whose whole-prefill intensity (all FLOPs ÷ all bytes) reaches the ridge point")


def compute_bound_prompt(model, hw, batch=1, weight_format: str = "bf16", kv_dtype: str = "bf16") -> Quantity:
    """Shortest prompt whose prefill is compute-bound kernel by kernel (compute-bound kernels take at
    least half its time): {{ compute_bound_prompt("llama-3.1-8b", "h100-sxm5") }}. The per-kernel
    counterpart of `crossover_prompt`, which asks the whole prefill's intensity (a perfect-overlap figure)."""
    import numpy as np

    m, d = as_model(model), as_device(hw)
    f = _formats(weight_format, kv_dtype)

    def compute_bound(n):
        s = _k.prefill(m, d, n, float(batch), f)
        return np.asarray(s.compute_bound_time_s) * 2 >= np.asarray(s.time_s)

    return _prompt_length(_k.first_true(compute_bound, 1 << 20), m, d, f, batch, "turns compute-bound",
                          "smallest prompt length at which kernels past their own ridge take at least half the prefill's time")


def capacity_quoted(hw: str) -> Quantity:
    """Memory capacity in the vendor's own unit: GiB where the vendor says GiB (TPU v4), else GB."""
    d = as_device(hw)
    unit = "GiB" if d.capacity_unit == "GiB" else "B"
    return Quantity(d.memory_capacity_bytes, unit, f"{d.name} memory capacity, as the vendor quotes it",
                    "vendor datasheet", (Input(f"{d.name} memory capacity", d.memory_capacity_bytes, "B", device_source(d)),))


def bound_on_every_device(bound: str, phase: str, model, n=1, weight_dtype: str = "bf16") -> bool:
    """True if `phase` ("decode" at batch n, or "prefill" of an n-token prompt) of `model` is `bound` on every registry device."""
    from roofline.registry.hardware import devices

    if phase not in ("decode", "prefill"):
        raise InputError(f"phase must be 'decode' or 'prefill', got {phase!r}")
    m = as_model(model)
    for d in devices().values():
        f = _formats(weight_dtype)
        if f.matmul_dtype() not in d.dense_peak_flop_per_s and f.matmul_dtype() not in ("bf16", "fp16"):
            continue  # a format the device has no peak for is not served on it
        step = (_k.decode(m, d, float(n), 1.0, f) if phase == "decode" else _k.prefill(m, d, float(n), 1.0, f))
        if step.bound != bound:
            return False
    return True


def kv_per_token(model, kv_dtype: str = "bf16") -> Quantity:
    m = as_model(model)
    value = kv_bytes_per_token(m, kv_dtype)
    size = Term(value / m.kv_elements_per_token()) if m.kv_elements_per_token() else None
    line = (() if size is None else
            (Term(float(m.n_layers)), "×", "(", Term(float(m.kv_lora_rank)), "+", Term(float(m.qk_rope_head_dim)), ")", "×", size)
            if m.is_mla else
            (Term(2.0), "×", Term(float(m.n_layers)), "×", Term(float(m.kv_heads)), "×", Term(float(m.head_dim)), "×", size))
    return Quantity(value, "B", f"KV-cache bytes per token of {m.name} ({kv_dtype})",
                    "layers × (kv_lora_rank + qk_rope_head_dim) × bytes per element" if m.is_mla
                    else "2 × layers × KV heads × head_dim × bytes per element", model_inputs(m), arithmetic=line)


def params(model) -> Quantity:
    m = as_model(model)
    return Quantity(m.total_params, "", f"parameters of {m.name}", "computed from the architecture", model_inputs(m))


def active_params(model) -> Quantity:
    m = as_model(model)
    return Quantity(m.active_params, "", f"parameters active per token in {m.name}",
                    "all weights minus the experts a token is not routed to", model_inputs(m))


def weights_size(model, weight_format: str = "bf16") -> Quantity:
    """Every weight of the checkpoint as stored: group scales included, embedding and head in 16-bit.
    weight_format="checkpoint" takes the checkpoint's own format over the tensors it stores in it."""
    m = as_model(model)
    f = _formats(weight_format, model=m)
    return Quantity(_k.weights_resident_bytes(m, f), "B", f"weights of {m.name} in {f.weights.name}, {f.scope_words}",
                    "parameters × bytes per parameter (group scales and zero points included; embedding and head 16-bit)",
                    model_inputs(m))


def sol(model, hw, weight_format: str = "bf16") -> Quantity:
    """The speed of light: bandwidth ÷ the weight bytes a batch-1 decode step reads."""
    m, d = as_model(model), as_device(hw)
    f = _formats(weight_format, model=m)
    read = float(_k.decode(m, d, 1, 1, f).weight_bytes)  # what speed_of_light_tokens_per_s divides by
    return Quantity(_k.speed_of_light_tokens_per_s(m, d, f), "tokens/s",
                    f"speed-of-light batch-1 decode of {m.name} on the {d.name} ({f.weights.name} weights)",
                    "bandwidth ÷ weight bytes a decode step reads",
                    (bandwidth_input(d),
                     Input(f"weight bytes a decode step reads ({f.weights.name}: every matmul weight, the head, the "
                           "norms and one embedding row; the embedding table itself is not read)", read, "B"),
                     *model_inputs(m)),
                    arithmetic=(Term(d.memory_bandwidth_bytes_per_s, "B/s"), "÷", Term(read, "B")))

def weight_bits(weight_format: str) -> Quantity:
    """Bits a weight costs in `weight_format`, its share of the block scales included: {{ weight_bits("nvfp4") }} bits."""
    w = parse_weight_format(weight_format)
    extra = w.bytes_per_weight() - w.element_bytes  # the block's scale (and zero point) shared by its weights
    line = ((Term(8.0), "×", "(", Term(w.element_bytes), "+", Term(extra * w.group_size), "÷", Term(float(w.group_size)), ")")
            if w.group_size else (Term(8.0), "×", Term(w.element_bytes)))
    return Quantity(8 * w.bytes_per_weight(), "", f"bits per weight in {w.name}",
                    "8 × (element bytes + scale bytes ÷ block size)",
                    (Input("block size", float(w.group_size)), Input("scale bytes per block", w.scale_bytes)),
                    arithmetic=line)


#: The token functions this topic adds to the namespace pages evaluate in.
TOKENS = (decode, prefill, critical_batch, whole_step_crossing, whole_step_reaches_ridge, attention_intensity,
          max_batch, usable_memory, runtime_reserve, crossover_prompt, compute_bound_prompt, capacity_quoted, bound_on_every_device, kv_per_token, params, active_params, weights_size, sol, energy_per_token, weight_bits,)

__all__ = ['decode', 'prefill', 'critical_batch', 'whole_step_crossing', 'whole_step_reaches_ridge',
           'attention_intensity', 'max_batch', 'usable_memory', 'runtime_reserve', 'crossover_prompt', 'compute_bound_prompt', 'capacity_quoted', 'bound_on_every_device', 'kv_per_token', 'params', 'active_params', 'weights_size', 'sol', 'energy_per_token', 'weight_bits']
