"""Named quantities with provenance: the vocabulary of the site's number tokens.

Every function here returns a `Quantity` (a value, its unit, a label, the formula in
words, and the sourced inputs it came from) or a view whose attributes are
Quantities. The site's token hook evaluates `{{ ridge("h100-sxm5") }}` in this
module's namespace (see `NAMESPACE`) and renders the result through `format.py`;
the provenance popover shows `formula` and `inputs`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import total_ordering

from roofline import examples as _examples
from roofline import inference as _inf
from roofline import intensity as _int
from roofline import roofline as _rl
from roofline.dtypes import peak_unit
from roofline.errors import InputError
from roofline.format import render
from roofline.hardware import Device, get_device
from roofline.models import Model, get_model


@dataclass(frozen=True)
class Source:
    title: str
    url: str


@dataclass(frozen=True)
class Input:
    """One input of a computed number, as the provenance popover shows it."""

    label: str
    value: float | str
    unit: str = ""
    source: Source | None = None

    def text(self) -> str:
        return self.value if isinstance(self.value, str) else render(self.value, self.unit, 4)


@total_ordering
@dataclass(frozen=True)
class Quantity:
    """A number the site prints, with what it is and where it came from."""

    value: float
    unit: str
    label: str
    formula: str
    inputs: tuple[Input, ...] = ()
    digits: int = 3

    def text(self) -> str:
        return render(self.value, self.unit, self.digits)

    __str__ = text

    def __float__(self) -> float:
        return float(self.value)

    def sig(self, digits: int) -> "Quantity":
        """The same quantity printed to `digits` significant figures."""
        return replace(self, digits=digits)

    def __eq__(self, other):
        return float(self) == float(other)

    def __lt__(self, other):
        return float(self) < float(other)

    def __hash__(self):
        return hash((self.value, self.unit))


# ---------------------------------------------------------------- inputs ------------------
def _device(hw: str | Device) -> Device:
    return hw if isinstance(hw, Device) else get_device(hw)


def _model(model: str | float | Model) -> Model:
    if isinstance(model, Model):
        return model
    if isinstance(model, Quantity):
        model = model.value
    if isinstance(model, (int, float)):
        return Model.from_param_count(float(model))
    return get_model(model)


def _dev_source(d: Device) -> Source:
    return Source(d.source_title, d.source_url)


def _bw_input(d: Device) -> Input:
    return Input(f"{d.name} memory bandwidth", d.memory_bandwidth_bytes_per_s, "B/s", _dev_source(d))


def _peak_input(d: Device, dtype: str) -> Input:
    return Input(f"{d.name} dense {dtype} peak", d.peak_flop_per_s(dtype), peak_unit(dtype), _dev_source(d))


def _model_inputs(m: Model) -> tuple[Input, ...]:
    if m.is_bare:
        return (Input("parameters (dense, weights only)", m.bare_params, ""),)
    src = Source(m.source_title, m.source_url)
    return (Input(f"{m.name} parameters (computed from its config)", m.total_params, "", src),)


# ---------------------------------------------------------------- hardware ----------------
def device(hw: str) -> Device:
    """The registry entry itself, for names: {{ device("h100-sxm5").name }}."""
    return _device(hw)


def peak(hw: str, dtype: str = "bf16") -> Quantity:
    d = _device(hw)
    return Quantity(d.peak_flop_per_s(dtype), peak_unit(dtype), f"{d.name} dense {dtype} peak",
                    "vendor datasheet, dense (no 2:4 sparsity)", (_peak_input(d, dtype),))


def bandwidth(hw: str) -> Quantity:
    d = _device(hw)
    return Quantity(d.memory_bandwidth_bytes_per_s, "B/s", f"{d.name} memory bandwidth",
                    "vendor datasheet", (_bw_input(d),))


def capacity(hw: str) -> Quantity:
    d = _device(hw)
    return Quantity(d.memory_capacity_bytes, "B", f"{d.name} memory capacity", "vendor datasheet",
                    (Input(f"{d.name} memory capacity", d.memory_capacity_bytes, "B", _dev_source(d)),))


def ridge(hw: str, dtype: str = "bf16") -> Quantity:
    d = _device(hw)
    return Quantity(_rl.device_ridge_point(d, dtype), "FLOP/byte", f"ridge point of the {d.name} ({dtype})",
                    "ridge = dense peak FLOP/s ÷ memory bandwidth", (_peak_input(d, dtype), _bw_input(d)))


def attainable(hw: str, intensity, dtype: str = "bf16") -> Quantity:
    d = _device(hw)
    ai = float(intensity)
    return Quantity(_rl.attainable_flop_per_s(ai, d.peak_flop_per_s(dtype), d.memory_bandwidth_bytes_per_s),
                    "FLOP/s", f"attainable FLOP/s on the {d.name} at intensity {ai:g}",
                    "attainable = min(peak, bandwidth × intensity)",
                    (_peak_input(d, dtype), _bw_input(d), Input("arithmetic intensity", ai, "FLOP/byte")))


def sparse_peak(hw: str, dtype: str = "bf16") -> Quantity:
    """The 2:4-sparse peak a datasheet prints beside the dense one: {{ sparse_peak("h100-sxm5") }}."""
    d = _device(hw)
    return Quantity(_rl.sparse_peak_flop_per_s(d.peak_flop_per_s(dtype)), "FLOP/s",
                    f"{d.name} {dtype} peak with 2:4 sparsity", "dense peak × 2 (2:4 structured sparsity)",
                    (_peak_input(d, dtype),))


def sparse_ridge(hw: str, dtype: str = "bf16") -> Quantity:
    """The ridge point computed from the sparse peak: twice the dense ridge."""
    d = _device(hw)
    return Quantity(_rl.ridge_point(_rl.sparse_peak_flop_per_s(d.peak_flop_per_s(dtype)), d.memory_bandwidth_bytes_per_s),
                    "FLOP/byte", f"ridge of the {d.name} from its 2:4-sparse {dtype} peak",
                    "sparse peak (2 × dense) ÷ memory bandwidth", (_peak_input(d, dtype), _bw_input(d)))


# ---------------------------------------------------------------- single ops --------------
@dataclass(frozen=True)
class OpView:
    flops: Quantity
    bytes: Quantity
    intensity: Quantity


def _op_view(cost: _int.OpCost, shape: str, dtype: str) -> OpView:
    inputs = (Input("shape", shape), Input("dtype", dtype), Input("convention", cost.convention))
    return OpView(
        Quantity(cost.flops, "FLOP", f"FLOPs of {shape}", cost.convention, inputs),
        Quantity(cost.bytes, "B", f"bytes moved by {shape}", cost.convention, inputs),
        Quantity(cost.arithmetic_intensity, "FLOP/byte", f"arithmetic intensity of {shape}",
                 "FLOPs ÷ bytes moved", inputs),
    )


def matmul(m, n, k, dtype: str = "bf16") -> OpView:
    """(m×k)·(k×n) in the site's convention (2·m·n·k; operands read, result written)."""
    m, n, k = int(float(m)), int(float(n)), int(float(k))
    return _op_view(_int.matmul_cost(m, n, k, dtype), f"({m}×{k})·({k}×{n}) in {dtype}", dtype)


def seed_matmul(m, n, k, dtype: str = "fp16") -> OpView:
    """(m×k)·(k×n) in the Visual Guide seed's convention (m·n·(2k−1) FLOPs, inputs only)."""
    m, n, k = int(float(m)), int(float(n)), int(float(k))
    return _op_view(_int.matmul_cost_seed_convention(m, n, k, dtype),
                    f"({m}×{k})·({k}×{n}) in {dtype}, seed convention", dtype)


# ---------------------------------------------------------------- inference ---------------
@dataclass(frozen=True)
class StepView:
    """A decode step or prefill as Quantities; `.step` is the underlying `inference.Step`."""

    step: _inf.Step

    def _inputs(self) -> tuple[Input, ...]:
        s = self.step
        return (*_model_inputs(s.model), _peak_input(s.device, s.compute_dtype), _bw_input(s.device),
                Input("batch", float(s.batch)), Input("tokens cached" if s.phase == "decode" else "prompt length",
                                                      float(s.context_len if s.phase == "decode" else s.tokens_per_sequence)),
                Input("weights / KV cache", f"{s.weight_dtype} / {s.kv_dtype}"))

    def _q(self, value, unit, what, formula) -> Quantity:
        s = self.step
        where = f"{s.phase} of {s.model.name} on the {s.device.name}"
        return Quantity(float(value), unit, f"{what}, {where}", formula, self._inputs())

    @property
    def flops(self): return self._q(self.step.flops, "FLOP", "FLOPs per step", "2 × weights × tokens + attention")
    @property
    def bytes(self): return self._q(self.step.bytes, "B", "bytes per step", "weights + KV cache + activations")
    @property
    def weight_bytes(self): return self._q(self.step.weight_bytes, "B", "weight bytes per step", "weights read once per step")
    @property
    def kv_bytes(self): return self._q(self.step.kv_bytes, "B", "KV-cache bytes per step", "batch × cached tokens × KV bytes per token")
    @property
    def intensity(self): return self._q(self.step.arithmetic_intensity, "FLOP/byte", "arithmetic intensity", "FLOPs ÷ bytes")
    @property
    def time(self): return self._q(self.step.time_s, "s", "time per step", "max(FLOPs ÷ peak, bytes ÷ bandwidth)")
    @property
    def ttft(self): return self._q(self.step.time_s, "s", "time to first token", "prefill time = max(FLOPs ÷ peak, bytes ÷ bandwidth)")
    @property
    def tokens_per_s(self): return self._q(self.step.tokens_per_s, "tokens/s", "tokens/s (whole batch)", "batch × tokens per step ÷ time")
    @property
    def tokens_per_s_per_seq(self): return self._q(self.step.tokens_per_s_per_sequence, "tokens/s", "tokens/s per sequence", "tokens per step ÷ time")
    @property
    def attained(self): return self._q(self.step.attained_flop_per_s, "FLOP/s", "FLOP/s attained", "FLOPs ÷ time")
    @property
    def utilization(self): return self._q(self.step.attained_flop_per_s / self.step.peak_flop_per_s, "%", "share of peak FLOP/s", "attained ÷ peak")
    @property
    def memory_required(self): return self._q(self.step.memory_required_bytes, "B", "memory for weights and KV cache", "all weights + batch × cached tokens × KV bytes per token")
    @property
    def ridge(self): return self._q(self.step.ridge_point, "FLOP/byte", "ridge point", "peak ÷ bandwidth")
    @property
    def bound(self) -> str: return str(self.step.bound)
    @property
    def fits(self) -> bool: return bool(self.step.fits)


def decode(model, hw, batch=1, context=0, weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> StepView:
    return StepView(_inf.decode_step(_model(model), _device(hw), float(batch), float(context), weight_dtype, kv_dtype))


def prefill(model, hw, prompt, batch=1, weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> StepView:
    return StepView(_inf.prefill(_model(model), _device(hw), float(prompt), float(batch), weight_dtype, kv_dtype))


# Pages ask for the same critical batch several times (reaches_ridge, then the value); each is a
# search. Keyed on the objects themselves, which are kept alive here so an id is never reused:
# an edited registry yields new objects and so new entries.
_critical_batches: dict[tuple, tuple] = {}


def _critical_batch_of(m, d, context: float, weight_dtype: str, kv_dtype: str):
    key = (id(m), id(d), context, weight_dtype, kv_dtype)
    hit = _critical_batches.get(key)
    if hit is None or hit[0] is not m or hit[1] is not d:
        hit = _critical_batches[key] = (m, d, _inf.critical_batch(m, d, context, weight_dtype, kv_dtype))
    return hit[2]


def critical_batch(model, hw, context=0, weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> Quantity:
    m, d = _model(model), _device(hw)
    b = _critical_batch_of(m, d, float(context), weight_dtype, kv_dtype)
    if b is None:
        raise InputError(f"decode of {m.name} on the {d.name} at context {float(context):g} never reaches the ridge")
    return Quantity(float(b), "", f"critical batch of {m.name} on the {d.name}",
                    "smallest batch whose decode intensity reaches the ridge point",
                    (*_model_inputs(m), _peak_input(d, _inf.compute_dtype(d, weight_dtype)), _bw_input(d),
                     Input("tokens cached", float(context))))


def reaches_ridge(model, hw, context=0, weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> bool:
    return _critical_batch_of(_model(model), _device(hw), float(context), weight_dtype, kv_dtype) is not None


def crossover_prompt(model, hw, batch=1, weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> Quantity:
    """Shortest prompt whose prefill reaches the ridge: {{ crossover_prompt("llama-3.1-8b", "h100-sxm5") }}."""
    m, d = _model(model), _device(hw)
    t = _inf.crossover_prompt_len(m, d, float(batch), weight_dtype, kv_dtype)
    if t is None:
        raise InputError(f"prefill of {m.name} on the {d.name} never reaches the ridge")
    return Quantity(float(t), "", f"prompt length at which prefill of {m.name} reaches the ridge of the {d.name}",
                    "smallest prompt length whose prefill intensity reaches the ridge point",
                    (*_model_inputs(m), _peak_input(d, _inf.compute_dtype(d, weight_dtype)), _bw_input(d),
                     Input("batch", float(batch))), digits=6)


def capacity_quoted(hw: str) -> Quantity:
    """Memory capacity in the vendor's own unit: GiB where the vendor says GiB (TPU v4), else GB."""
    d = _device(hw)
    unit = "GiB" if d.capacity_unit == "GiB" else "B"
    return Quantity(d.memory_capacity_bytes, unit, f"{d.name} memory capacity, as the vendor quotes it",
                    "vendor datasheet", (Input(f"{d.name} memory capacity", d.memory_capacity_bytes, "B", _dev_source(d)),))


def bound_on_every_device(bound: str, phase: str, model, n=1, weight_dtype: str = "bf16") -> bool:
    """True if `phase` ("decode" at batch n, or "prefill" of an n-token prompt) of `model` is `bound` on every registry device."""
    from roofline.hardware import devices

    if phase not in ("decode", "prefill"):
        raise InputError(f"phase must be 'decode' or 'prefill', got {phase!r}")
    m = _model(model)
    for d in devices().values():
        step = (_inf.decode_step(m, d, float(n), 0.0, weight_dtype) if phase == "decode"
                else _inf.prefill(m, d, float(n), 1.0, weight_dtype))
        if step.bound != bound:
            return False
    return True


def kv_per_token(model, kv_dtype: str = "bf16") -> Quantity:
    m = _model(model)
    return Quantity(_inf.kv_bytes_per_token(m, kv_dtype), "B", f"KV-cache bytes per token of {m.name} ({kv_dtype})",
                    "2 × layers × KV heads × head_dim × bytes per element", _model_inputs(m))


def params(model) -> Quantity:
    m = _model(model)
    return Quantity(m.total_params, "", f"parameters of {m.name}", "computed from the architecture", _model_inputs(m))


def active_params(model) -> Quantity:
    m = _model(model)
    return Quantity(m.active_params, "", f"parameters active per token in {m.name}",
                    "all weights minus the experts a token is not routed to", _model_inputs(m))


def weights_size(model, weight_dtype: str = "bf16") -> Quantity:
    m = _model(model)
    return Quantity(_inf.weight_bytes_resident(m, weight_dtype), "B", f"weights of {m.name} in {weight_dtype}",
                    "parameters × bytes per parameter", _model_inputs(m))


def sol(model, hw, weight_dtype: str = "bf16") -> Quantity:
    m, d = _model(model), _device(hw)
    return Quantity(_inf.speed_of_light_tokens_per_s(m, d, weight_dtype), "tokens/s",
                    f"speed-of-light batch-1 decode of {m.name} on the {d.name}",
                    "bandwidth ÷ (weights a decode step reads × bytes per weight)", (*_model_inputs(m), _bw_input(d)))


def example(name: str) -> Quantity:
    value, unit, why = _examples.EXAMPLES.get(name) or (_examples.example(name), "", "")
    return Quantity(float(value), unit, why, "a worked-example input", (), digits=6)


# ---------------------------------------------------------------- combinators -------------
def ratio(a: Quantity, b: Quantity, unit: str = "x", digits: int = 3) -> Quantity:
    return Quantity(float(a) / float(b), unit, f"{a.label} ÷ {b.label}", "ratio", (*a.inputs, *b.inputs), digits)


def share(a: Quantity, b: Quantity, digits: int = 2) -> Quantity:
    return ratio(a, b, "%", digits)


def rounded(q: Quantity, digits: int = 3) -> Quantity:
    """`q` with its value rounded to `digits` significant figures: the number as a page or seed prints it."""
    value = float(f"{float(q):.{int(digits)}g}")
    return replace(q, value=value, label=f"{q.label}, rounded to {int(digits)} significant figures")


def claim(condition: bool, statement: str) -> str:
    """A build-time assertion: renders nothing, fails the build naming `statement` when false."""
    if not condition:
        raise ClaimFailed(statement)
    return ""


class ClaimFailed(InputError):
    def __init__(self, statement: str):
        super().__init__(f"claim no longer holds: {statement}")
        self.statement = statement


# --- playbook (docs/playbook.md): each optimization as a move on the roofline ------------
# Views whose attributes are Quantities; the class name starts with "_" so NAMESPACE skips it.
from roofline import playbook as _pb  # noqa: E402


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


def _pb_inputs(m: Model | None, d: Device, dtype: str = "bf16", **given) -> tuple[Input, ...]:
    extra = tuple(Input(k.replace("_", " "), v if isinstance(v, str) else _n(v)) for k, v in given.items())
    return (*(_model_inputs(m) if m is not None else ()), _peak_input(d, dtype), _bw_input(d), *extra)


def _pb_view(what: str, inputs: tuple[Input, ...], spec: dict) -> _MoveView:
    fields = {}
    for name, item in spec.items():
        if isinstance(item, tuple):
            value, unit, label, formula = item
            fields[name] = Quantity(float(value), unit, f"{label}, {what}", formula, inputs)
        else:
            fields[name] = item
    return _MoveView(what, fields)


def quantized(model, hw, weight_dtype: str = "bf16") -> _MoveView:
    """Batch-1 decode with weights stored in `weight_dtype`: quantized("llama-3.1-8b", "h100-sxm5", "int4").tokens_per_s."""
    m, d = _model(model), _device(hw)
    q = _pb.quantization(m, d, ("bf16", weight_dtype))
    base, lv = q.levels[0], q.levels[1]
    p = lv.point
    return _pb_view(f"batch-1 decode of {m.name} on the {d.name}, {weight_dtype} weights",
                    _pb_inputs(m, d, lv.compute_dtype, weight_dtype=weight_dtype), {
        "weight_bytes": (lv.weight_bytes_per_token, "B", "weight bytes per token", "weights read per step × bytes per weight"),
        "intensity": (p.intensity_flop_per_byte, "FLOP/byte", "arithmetic intensity", "FLOPs ÷ bytes"),
        "ridge": (p.ridge_flop_per_byte, "FLOP/byte", f"ridge at the {lv.compute_dtype} peak", "peak ÷ bandwidth"),
        "attainable": (p.attainable_flop_per_s, "FLOP/s", "attainable FLOP/s", "min(peak, bandwidth × intensity)"),
        "time": (p.time_s, "s", "time per token", "max(FLOPs ÷ peak, bytes ÷ bandwidth)"),
        "tokens_per_s": (lv.tokens_per_s, "tokens/s", "tokens/s", "1 ÷ time per token"),
        "sol": (lv.speed_of_light_tokens_per_s, "tokens/s", "speed of light (weights only)", "bandwidth ÷ weight bytes a step reads"),
        "speedup": (lv.tokens_per_s / base.tokens_per_s, "x", "speed-up over bf16 weights", "tokens/s ÷ tokens/s with bf16 weights"),
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


def speculation(model, hw, draft_tokens, acceptance, context=0, draft_cost=0) -> _MoveView:
    """A speculative step verifying k drafted tokens against plain batch-1 decode."""
    m, d = _model(model), _device(hw)
    s = _pb.speculative(m, d, int(_n(draft_tokens)), _n(acceptance), int(_n(context)), _n(draft_cost))
    return _pb_view(f"speculative decoding of {m.name} on the {d.name}",
                    _pb_inputs(m, d, drafted_tokens=draft_tokens, acceptance_rate=acceptance, tokens_cached=context,
                               draft_cost_per_token=draft_cost), {
        "verify_tokens": (s.draft_tokens + 1, "", "positions scored in the verify pass", "drafted tokens + 1"),
        "expected_tokens": (s.expected_tokens_per_step, "", "expected tokens per step", "(1 − a^(k+1)) ÷ (1 − a)"),
        "plain_intensity": (s.before.intensity_flop_per_byte, "FLOP/byte", "intensity of plain decode", "FLOPs ÷ bytes"),
        "verify_intensity": (s.after.intensity_flop_per_byte, "FLOP/byte", "intensity of the verify pass", "FLOPs of k + 1 tokens ÷ bytes"),
        "plain_time": (s.before.time_s, "s", "time of a plain decode step", "max(FLOPs ÷ peak, bytes ÷ bandwidth)"),
        "verify_time": (s.after.time_s, "s", "time of the verify pass", "max(FLOPs ÷ peak, bytes ÷ bandwidth)"),
        "step_time": (s.step_time_s, "s", "time of a speculative step", "verify pass + k × draft cost × plain step"),
        "plain_tokens_per_s": (s.plain_tokens_per_s, "tokens/s", "plain decode tokens/s", "1 ÷ plain step time"),
        "tokens_per_s": (s.tokens_per_s, "tokens/s", "speculative tokens/s", "expected tokens ÷ speculative step time"),
        "speedup": (s.speedup, "x", "speed-up over plain decode", "speculative tokens/s ÷ plain tokens/s"),
        "verify_bound": s.after.bound,
    })


def fused(n_ops, elements, hw, dtype: str = "bf16") -> _MoveView:
    """A chain of `n_ops` elementwise ops over `elements` values, unfused against fused."""
    d = _device(hw)
    f = _pb.fusion(int(_n(n_ops)), int(_n(elements)), d, dtype)
    return _pb_view(f"a chain of {f.n_ops} elementwise ops on the {d.name} in {dtype}",
                    _pb_inputs(None, d, d.sixteen_bit_dtype, ops=n_ops, tensor_elements=elements, element_dtype=dtype), {
        "flops": (f.before.flops, "FLOP", "FLOPs of the chain", "ops × elements × one FLOP"),
        "unfused_bytes": (f.before.bytes, "B", "bytes moved unfused", "ops × (read + write) × elements × bytes"),
        "fused_bytes": (f.after.bytes, "B", "bytes moved fused", "(read + write) × elements × bytes"),
        "unfused_intensity": (f.before.intensity_flop_per_byte, "FLOP/byte", "intensity unfused", "FLOPs ÷ bytes"),
        "fused_intensity": (f.after.intensity_flop_per_byte, "FLOP/byte", "intensity fused", "FLOPs ÷ bytes"),
        "unfused_time": (f.before.time_s, "s", "time unfused", "max(FLOPs ÷ peak, bytes ÷ bandwidth)"),
        "fused_time": (f.after.time_s, "s", "time fused", "max(FLOPs ÷ peak, bytes ÷ bandwidth)"),
        "speedup": (f.speedup, "x", "speed-up from fusing", "unfused time ÷ fused time"),
        "bound": f.after.bound,
    })


def paged(model, hw, max_len, actual_len) -> _MoveView:
    """Decode batch that fits with KV cache reserved at the maximum length against paged at the actual length."""
    m, d = _model(model), _device(hw)
    p = _pb.paged_kv(m, d, int(_n(max_len)), int(_n(actual_len)))
    return _pb_view(f"decode of {m.name} on the {d.name}, KV cache reserved at {p.max_len} or paged at {p.actual_len} tokens",
                    _pb_inputs(m, d, maximum_length=max_len, actual_length=actual_len,
                               block_tokens=float(p.block_tokens)), {
        "block_tokens": (p.block_tokens, "", "tokens per KV block (vLLM)", "PagedAttention block size, Kwon et al. 2023"),
        "free_memory": (p.free_bytes, "B", "memory left beside the weights", "capacity − weights"),
        "contiguous_reserved": (p.contiguous_reserved_bytes, "B", "KV cache reserved per sequence, contiguous", "maximum length × KV bytes per token"),
        "paged_reserved": (p.paged_reserved_bytes, "B", "KV cache reserved per sequence, paged", "actual length in whole blocks × KV bytes per token"),
        "waste": (p.contiguous_waste, "%", "share of a contiguous reservation never written", "1 − actual ÷ maximum length"),
        "contiguous_batch": (p.contiguous_batch, "", "sequences that fit, contiguous", "⌊free memory ÷ reservation⌋"),
        "paged_batch": (p.paged_batch, "", "sequences that fit, paged", "⌊free memory ÷ reservation⌋"),
        "contiguous_intensity": (p.before.intensity_flop_per_byte, "FLOP/byte", "decode intensity, contiguous batch", "FLOPs ÷ bytes"),
        "paged_intensity": (p.after.intensity_flop_per_byte, "FLOP/byte", "decode intensity, paged batch", "FLOPs ÷ bytes"),
        "contiguous_tokens_per_s": (p.contiguous_tokens_per_s, "tokens/s", "tokens/s, contiguous batch", "batch ÷ step time"),
        "paged_tokens_per_s": (p.paged_tokens_per_s, "tokens/s", "tokens/s, paged batch", "batch ÷ step time"),
        "speedup": (p.paged_tokens_per_s / p.contiguous_tokens_per_s, "x", "throughput gain from paging", "paged tokens/s ÷ contiguous tokens/s"),
        "bound": p.after.bound,
    })


def moe_decode(model, hw, batch) -> _MoveView:
    """A mixture-of-experts model's decode at batch 1 and at `batch`."""
    m, d = _model(model), _device(hw)
    e = _pb.mixture_of_experts(m, d, int(_n(batch)))
    return _pb_view(f"decode of {m.name} on the {d.name}", _pb_inputs(m, d, batch=batch), {
        "active_bytes": (e.active_bytes_per_token, "B", "weight bytes one token reads", "weights in its matmuls (routed experts only) × bytes per weight"),
        "total_bytes": (e.total_bytes_per_token, "B", "weight bytes a step reading every expert reads", "weights in its matmuls (every expert) × bytes per weight"),
        "byte_share": (e.active_bytes_per_token / e.total_bytes_per_token, "%", "active share of the weights", "weights read with the routed experts ÷ with every expert"),
        "n_experts": (m.n_experts, "", "experts per layer", "config"),
        "experts_per_token": (m.experts_per_token, "", "experts each token is routed to", "config"),
        "experts_touched": (e.experts_touched, "", "distinct experts read per layer", "E · (1 − (1 − k/E)^batch), uniform routing"),
        "intensity_1": (e.before.intensity_flop_per_byte, "FLOP/byte", "intensity at batch 1", "FLOPs ÷ bytes"),
        "intensity": (e.after.intensity_flop_per_byte, "FLOP/byte", "intensity at the batch", "FLOPs ÷ bytes"),
        "dense_intensity": (e.dense_after.intensity_flop_per_byte, "FLOP/byte", "intensity of a dense model of the active size at the batch", "FLOPs ÷ bytes"),
        "time_1": (e.before.time_s, "s", "time per token at batch 1", "max(FLOPs ÷ peak, bytes ÷ bandwidth)"),
        "tokens_per_s_1": (1.0 / e.before.time_s, "tokens/s", "tokens/s at batch 1", "1 ÷ step time"),
        "tokens_per_s": (e.batch / e.after.time_s, "tokens/s", "tokens/s at the batch", "batch ÷ step time"),
    })


def tensor_parallel(model, hw, n_devices, weight_dtype: str = "bf16") -> _MoveView:
    """Batch-1 decode split over `n_devices` (ideal: communication ignored)."""
    m, d = _model(model), _device(hw)
    t = _pb.tensor_parallel(m, d, int(_n(n_devices)), weight_dtype=weight_dtype)
    return _pb_view(f"batch-1 decode of {m.name} over {t.n_devices} × {d.name}, {weight_dtype} weights",
                    _pb_inputs(m, d, devices=n_devices, weight_dtype=weight_dtype), {
        "memory_required": (t.memory_required_bytes, "B", "memory for weights and KV cache", "weights + KV cache"),
        "memory_per_device": (t.memory_per_device_bytes, "B", "memory per device", "memory required ÷ N"),
        "min_devices": (t.min_devices_to_fit, "", "fewest devices that hold it", "⌈memory required ÷ capacity⌉"),
        "intensity": (t.after.intensity_flop_per_byte, "FLOP/byte", "intensity (unchanged by splitting)", "FLOPs ÷ bytes"),
        "time_1": (t.before.time_s, "s", "time per token on one device, were it to fit", "max(FLOPs ÷ peak, bytes ÷ bandwidth)"),
        "time": (t.after.time_s, "s", "time per token over the group", "one-device time ÷ N"),
        "tokens_per_s": (1.0 / t.after.time_s, "tokens/s", "tokens/s over the group", "1 ÷ time per token"),
        "aggregate_bandwidth": (t.aggregate_bandwidth_bytes_per_s, "B/s", "aggregate bandwidth", "N × bandwidth"),
        "speedup": (t.speedup, "x", "speed-up over one device", "ideal: N"),
        "fits_one": t.fits_one_device,
        "fits": t.fits,
    })


def disaggregated(model, hw, prompt, batch, context=0) -> _MoveView:
    """A prefill and a decode batch on one device: their points and their interference."""
    m, d = _model(model), _device(hw)
    g = _pb.disaggregation(m, d, int(_n(prompt)), int(_n(batch)), int(_n(context)))
    return _pb_view(f"{m.name} on the {d.name}: prefill of {g.prompt_len} tokens, decode batch {g.decode_batch}",
                    _pb_inputs(m, d, prompt_length=prompt, decode_batch=batch, tokens_cached=context), {
        "prefill_intensity": (g.prefill.intensity_flop_per_byte, "FLOP/byte", "prefill intensity", "FLOPs ÷ bytes"),
        "decode_intensity": (g.decode.intensity_flop_per_byte, "FLOP/byte", "decode intensity", "FLOPs ÷ bytes"),
        "ridge": (g.decode.ridge_flop_per_byte, "FLOP/byte", "ridge point", "peak ÷ bandwidth"),
        "ttft": (g.time_to_first_token_s, "s", "time to first token", "prefill time"),
        "decode_step": (g.decode_step_s, "s", "decode step time", "max(FLOPs ÷ peak, bytes ÷ bandwidth)"),
        "stalled_step": (g.stalled_decode_step_s, "s", "decode step that waits behind the prefill", "decode step + prefill"),
        "stall_ratio": (g.stall_ratio, "x", "stalled ÷ normal decode step", "(decode + prefill) ÷ decode"),
        "kv_transfer": (g.kv_transfer_bytes, "B", "prompt KV cache moved between pools", "prompt length × KV bytes per token"),
        "prefill_bound": g.prefill.bound,
        "decode_bound": g.decode.bound,
    })


# --- measurements (docs/measure.md, docs/real-systems.md): measured roofs and the gap to the speed of light
def _pub_source(p) -> Source:
    return Source(p.source_title, p.source_url)


def _pub_input(p) -> Input:
    return Input(f"measured: {p.what} ({p.software}, {p.date})", p.value, p.unit, _pub_source(p))


def _pub_reference(p) -> Quantity:
    if p.kind == "bandwidth":
        return bandwidth(p.device_id)
    if p.kind == "gemm":
        return peak(p.device_id, p.dtype)
    return sol(p.model_id, p.device_id, p.dtype)


def measurement(ident: str):
    """A published measurement's record, for names: {{ measurement("flashmla-h800").software }}."""
    from roofline.measurements import get_measurement

    return get_measurement(ident)


def measured(ident: str) -> Quantity:
    """A published measured figure (B/s, FLOP/s or tokens/s) with its source."""
    p = measurement(ident)
    where = p.measured_on or p.device.name
    what = {"bandwidth": "sustained bandwidth", "gemm": f"{p.dtype} large-GEMM throughput",
            "decode": f"batch-1 decode of {p.model_id if not p.model_id else p.model.name}"}[p.kind]
    return Quantity(p.value, p.unit, f"measured {what} on the {where}", f"published measurement: {p.what}",
                    (_pub_input(p),), 4)


def measured_reference(ident: str) -> Quantity:
    """What a published measurement is compared with: spec bandwidth, dense peak or speed of light."""
    return _pub_reference(measurement(ident))


def measured_share(ident: str, digits: int = 2) -> Quantity:
    """Measured ÷ the package's ceiling for it (spec bandwidth, dense peak, or speed of light)."""
    from roofline.measurements import get_measurement

    p = get_measurement(ident)
    ref = _pub_reference(p)
    return Quantity(p.share, "%", f"{measured(ident).label} as a share of the {ref.label}",
                    "measured ÷ " + {"bandwidth": "spec bandwidth", "gemm": "dense peak",
                                     "decode": "speed of light (bandwidth ÷ weight bytes a step reads)"}[p.kind],
                    (_pub_input(p), *ref.inputs), digits)


def _derate_inputs() -> tuple[Input, ...]:
    from roofline.measurements import of_kind

    return tuple(_pub_input(p) for p in of_kind("bandwidth"))


def bandwidth_derate() -> Quantity:
    """Median share of spec bandwidth that the published bandwidth measurements reached."""
    from roofline.measurements import bandwidth_derate as _derate

    return Quantity(_derate(), "%", "median share of spec bandwidth reached by published bandwidth measurements",
                    "median of measured ÷ spec bandwidth", _derate_inputs(), 2)


def derated_bandwidth(hw: str) -> Quantity:
    """Spec bandwidth × the published median share: what a well-tuned kernel can expect."""
    from roofline.measurements import derated_bandwidth_bytes_per_s

    d = _device(hw)
    return Quantity(derated_bandwidth_bytes_per_s(d), "B/s", f"{d.name} derated bandwidth",
                    "spec bandwidth × median measured share", (_bw_input(d), *_derate_inputs()))


def derated_sol(model, hw, weight_dtype: str = "bf16") -> Quantity:
    """The speed of light at the derated bandwidth."""
    from roofline.measurements import derated_speed_of_light_tokens_per_s

    m, d = _model(model), _device(hw)
    return Quantity(derated_speed_of_light_tokens_per_s(m, d, weight_dtype), "tokens/s",
                    f"derated speed-of-light batch-1 decode of {m.name} on the {d.name}",
                    "derated bandwidth ÷ (active parameters × bytes per parameter)",
                    (*_model_inputs(m), _bw_input(d), *_derate_inputs()))


_MACHINE_KINDS = {"copy": ("B/s", "STREAM copy bandwidth"), "triad": ("B/s", "STREAM triad bandwidth"),
                  "fp64": ("FLOP/s", "fp64 GEMM throughput"), "fp32": ("FLOP/s", "fp32 GEMM throughput")}


def _machine_file(source: str | None):
    from roofline.measure import example_measurement, load, measurements_dir

    if source is None:
        return example_measurement()
    if "/" in source or "\\" in source or not source.endswith(".json"):
        raise InputError(f"source must be the name of a .json file in measurements/, got {source!r}")
    return load(measurements_dir() / source, f"measurements/{source}")


def machine(kind: str, stat: str = "median", source: str | None = None) -> Quantity:
    """A figure from a measurement file (default: the committed example): machine("triad"), machine("fp32", "best")."""
    if kind not in _MACHINE_KINDS or stat not in ("median", "best"):
        raise InputError(f"machine() takes one of {', '.join(_MACHINE_KINDS)} and 'median' or 'best', "
                         f"got {kind!r}, {stat!r}")
    m = _machine_file(source)
    unit, what = _MACHINE_KINDS[kind]
    rate = getattr(m, kind)
    return Quantity(getattr(rate, stat), unit, f"{what} ({stat} of {rate.reps} runs) measured on {m.label}",
                    "roofline measure", (Input("measurement file", m.source), Input("CPU", m.cpu_model),
                                          Input("BLAS", m.blas)))


def machine_reps(kind: str, source: str | None = None) -> Quantity:
    """Timed repetitions of one kernel in a measurement file (after one warm-up call)."""
    if kind not in _MACHINE_KINDS:
        raise InputError(f"machine_reps() takes one of {', '.join(_MACHINE_KINDS)}, got {kind!r}")
    m = _machine_file(source)
    return Quantity(float(getattr(m, kind).reps), "", f"timed repetitions of {kind} on {m.label}",
                    "repeat until the kernel's share of the time budget is spent", (Input("measurement file", m.source),))


def machine_cpus(source: str | None = None) -> Quantity:
    """Usable CPUs of the machine a measurement ran on (default: the committed example)."""
    m = _machine_file(source)
    return Quantity(float(m.usable_cpus), "", f"usable CPUs of {m.label}", "os.sched_getaffinity",
                    (Input("measurement file", m.source),))


def machine_ridge(source: str | None = None) -> Quantity:
    """Measured ridge point: fp32 GEMM median ÷ triad median (default: the committed example)."""
    m = _machine_file(source)
    a, b = machine("fp32", source=source), machine("triad", source=source)
    return Quantity(m.ridge_point, "FLOP/byte", f"measured ridge point of {m.label}",
                    "fp32 GEMM median ÷ triad median",
                    (*a.inputs, Input(a.label, float(a), a.unit), Input(b.label, float(b), b.unit)))


def machine_share(kind: str, hw: str, dtype: str = "fp32", source: str | None = None) -> Quantity:
    """A measured roof as a share of a device's spec roof: triad ÷ spec bandwidth, GEMM ÷ dense peak."""
    q = machine(kind, source=source)
    ref = bandwidth(hw) if kind in ("copy", "triad") else peak(hw, dtype)
    return Quantity(float(q) / float(ref), "%", f"{q.label} ÷ {ref.label}", "measured ÷ spec",
                    (*q.inputs, Input(q.label, float(q), q.unit), *ref.inputs), 2)


def machine_bytes(what: str, source: str | None = None) -> Quantity:
    """Bytes of one STREAM array ("array") or of the last-level cache ("llc") in a measurement file."""
    m = _machine_file(source)
    value = {"array": m.array_bytes, "llc": m.llc_bytes}.get(what, "unknown")
    if value == "unknown":
        raise InputError(f"machine_bytes() takes 'array' or 'llc', got {what!r}")
    if value is None:
        raise InputError(f"{m.source} does not record its {'array size' if what == 'array' else 'last-level cache'}")
    label = "bytes per STREAM array" if what == "array" else "last-level cache"
    return Quantity(value, "B", f"{label} on {m.label}", "roofline measure", (Input("measurement file", m.source),))


def machine_sol(model, weight_dtype: str = "bf16", source: str | None = None) -> Quantity:
    """Batch-1 decode speed of light at a measured triad bandwidth: triad ÷ weight bytes a step reads."""
    m, q = _model(model), machine("triad", source=source)
    return Quantity(float(q) / _inf.weight_bytes_per_token(m, weight_dtype),
                    "tokens/s", f"speed-of-light batch-1 decode of {m.name} at the triad bandwidth of {_machine_file(source).label}",
                    "measured triad bandwidth ÷ (weights a decode step reads × bytes per weight)",
                    (*_model_inputs(m), Input(q.label, float(q), q.unit)))


def measure_budget(quick: bool = False) -> Quantity:
    """The time budget of `roofline measure` (or `--quick`)."""
    from roofline.measure import DEFAULT_BUDGET_S, QUICK_BUDGET_S

    return Quantity(QUICK_BUDGET_S if quick else DEFAULT_BUDGET_S, "s",
                    f"time budget of roofline measure{' --quick' if quick else ''}", "roofline.measure", (), 3)


def measure_min_reps() -> Quantity:
    """The fewest timed repetitions `roofline measure` runs per kernel."""
    from roofline.measure import MIN_REPS

    return Quantity(float(MIN_REPS), "", "minimum timed repetitions per kernel", "roofline.measure", ())


def measured_extreme(kind: str, which: str = "max") -> Quantity:
    """The highest (or lowest) share of its ceiling that any published measurement of `kind` reached."""
    from roofline.measurements import KINDS, of_kind

    if kind not in KINDS or which not in ("min", "max"):
        raise InputError(f"measured_extreme() takes one of {', '.join(KINDS)} and 'min' or 'max', got {kind!r}, {which!r}")
    pick = (max if which == "max" else min)(of_kind(kind), key=lambda p: p.share)
    return measured_share(pick.id)


NAMESPACE = {name: obj for name, obj in globals().items() if callable(obj) and not name.startswith("_")
             and getattr(obj, "__module__", "") == __name__ and name not in {"Source", "Input", "Quantity", "OpView", "StepView", "ClaimFailed"}}
NAMESPACE.update({"MEMORY_BOUND": _rl.MEMORY_BOUND, "COMPUTE_BOUND": _rl.COMPUTE_BOUND})
