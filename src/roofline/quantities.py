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
    return Input(f"{d.name} dense {dtype} peak", d.peak_flop_per_s(dtype), "FLOP/s", _dev_source(d))


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
    return Quantity(d.peak_flop_per_s(dtype), "FLOP/s", f"{d.name} dense {dtype} peak",
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


def critical_batch(model, hw, context=0, weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> Quantity:
    m, d = _model(model), _device(hw)
    b = _inf.critical_batch(m, d, float(context), weight_dtype, kv_dtype)
    if b is None:
        raise InputError(f"decode of {m.name} on the {d.name} at context {float(context):g} never reaches the ridge")
    return Quantity(float(b), "", f"critical batch of {m.name} on the {d.name}",
                    "smallest batch whose decode intensity reaches the ridge point",
                    (*_model_inputs(m), _peak_input(d, _inf.compute_dtype(d, weight_dtype)), _bw_input(d),
                     Input("tokens cached", float(context))))


def reaches_ridge(model, hw, context=0, weight_dtype: str = "bf16", kv_dtype: str = "bf16") -> bool:
    return _inf.critical_batch(_model(model), _device(hw), float(context), weight_dtype, kv_dtype) is not None


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
                    "bandwidth ÷ (active parameters × bytes per parameter)", (*_model_inputs(m), _bw_input(d)))


def example(name: str) -> Quantity:
    value, unit, why = _examples.EXAMPLES.get(name) or (_examples.example(name), "", "")
    return Quantity(float(value), unit, why, "a worked-example input", (), digits=6)


# ---------------------------------------------------------------- combinators -------------
def ratio(a: Quantity, b: Quantity, unit: str = "x", digits: int = 3) -> Quantity:
    return Quantity(float(a) / float(b), unit, f"{a.label} ÷ {b.label}", "ratio", (*a.inputs, *b.inputs), digits)


def share(a: Quantity, b: Quantity, digits: int = 2) -> Quantity:
    return ratio(a, b, "%", digits)


def claim(condition: bool, statement: str) -> str:
    """A build-time assertion: renders nothing, fails the build naming `statement` when false."""
    if not condition:
        raise ClaimFailed(statement)
    return ""


class ClaimFailed(InputError):
    def __init__(self, statement: str):
        super().__init__(f"claim no longer holds: {statement}")
        self.statement = statement


NAMESPACE = {name: obj for name, obj in globals().items() if callable(obj) and not name.startswith("_")
             and getattr(obj, "__module__", "") == __name__ and name not in {"Source", "Input", "Quantity", "OpView", "StepView", "ClaimFailed"}}
NAMESPACE.update({"MEMORY_BOUND": _rl.MEMORY_BOUND, "COMPUTE_BOUND": _rl.COMPUTE_BOUND})
