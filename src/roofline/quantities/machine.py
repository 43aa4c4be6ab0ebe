"""Tokens about a `roofline measure` file: this machine's measured roofs and the protocol."""

from __future__ import annotations

from roofline.errors import InputError
from roofline.model import kernels as _k
from roofline.model.formats import Formats
from roofline.quantities.core import (
    Input,
    Quantity,
    as_model,
    model_inputs,
)
from roofline.quantities.hardware import bandwidth, peak
from roofline.quantities.measured import measured_share

_MACHINE_KINDS = {"copy": ("B/s", "STREAM copy bandwidth"), "triad": ("B/s", "STREAM triad bandwidth"),
                  "fp64": ("FLOP/s", "fp64 GEMM throughput"), "fp32": ("FLOP/s", "fp32 GEMM throughput")}


def _machine_file(source: str | None):
    from roofline.registry.machine import example_measurement, load, measurements_dir

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
    m, q = as_model(model), machine("triad", source=source)
    return Quantity(float(q) / _k.weight_bytes_per_token(m, Formats.of(weight_dtype)),
                    "tokens/s", f"speed-of-light batch-1 decode of {m.name} at the triad bandwidth of {_machine_file(source).label}",
                    "measured triad bandwidth ÷ weight bytes a batch-1 decode step reads",
                    (*model_inputs(m), Input(q.label, float(q), q.unit)))


def measure_budget(quick: bool = False) -> Quantity:
    """The time budget of `roofline measure` (or `--quick`)."""
    from roofline.registry.machine import DEFAULT_BUDGET_S, QUICK_BUDGET_S

    return Quantity(QUICK_BUDGET_S if quick else DEFAULT_BUDGET_S, "s",
                    f"time budget of roofline measure{' --quick' if quick else ''}", "roofline.measure", (), 3)


def measure_min_reps() -> Quantity:
    """The fewest timed repetitions `roofline measure` runs per kernel."""
    from roofline.registry.machine import MIN_REPS

    return Quantity(float(MIN_REPS), "", "minimum timed repetitions per kernel", "roofline.measure", ())


def measured_extreme(kind: str, which: str = "max") -> Quantity:
    """The highest (or lowest) share of its ceiling that any published measurement of `kind` reached."""
    from roofline.model.measured import share as measured_share_of
    from roofline.registry.measurements import KINDS, of_kind

    if kind not in KINDS or which not in ("min", "max"):
        raise InputError(f"measured_extreme() takes one of {', '.join(KINDS)} and 'min' or 'max', got {kind!r}, {which!r}")
    pick = (max if which == "max" else min)(of_kind(kind), key=measured_share_of)
    return measured_share(pick.id)

#: The token functions this topic adds to the namespace pages evaluate in.
TOKENS = (machine, machine_reps, machine_cpus, machine_ridge, machine_share, machine_bytes, machine_sol, measure_budget, measure_min_reps, measured_extreme,)

__all__ = ['machine', 'machine_reps', 'machine_cpus', 'machine_ridge', 'machine_share', 'machine_bytes', 'machine_sol', 'measure_budget', 'measure_min_reps', 'measured_extreme']
