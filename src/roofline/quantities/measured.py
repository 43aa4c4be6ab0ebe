"""Tokens about published measurements: measured roofs and their share of the ceilings."""

from __future__ import annotations

from roofline.model.measured import share as share_of
from roofline.quantities.core import (
    Input,
    Quantity,
    Term,
    Source,
    as_device,
    as_model,
    bandwidth_input,
    model_inputs,
)
from roofline.quantities.hardware import bandwidth, peak
from roofline.quantities.inference import sol


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
    if p.kind == "collective":
        from roofline.quantities.parallel import link_bandwidth

        return link_bandwidth(p.device_id)
    if p.kind == "parallel_decode":
        from roofline.quantities.parallel import tp_ceiling

        return tp_ceiling(p.model_id, p.device_id, p.devices, p.context_tokens, p.dtype)
    return sol(p.model_id, p.device_id, p.dtype)


def measurement(ident: str):
    """A published measurement's record, for names: {{ measurement("flashmla-h800").software }}."""
    from roofline.registry.measurements import get_measurement

    return get_measurement(ident)


def measured_expected(ident: str) -> Quantity:
    """A tensor-parallel run's expected figure: its ceiling with an NCCL ring's collective latency."""
    from roofline.quantities.parallel import tp_ceiling

    p = measurement(ident)
    return tp_ceiling(p.model_id, p.device_id, p.devices, p.context_tokens, p.dtype, latency="ring")


def measured(ident: str) -> Quantity:
    """A published measured figure (B/s, FLOP/s or tokens/s) with its source."""
    p = measurement(ident)
    where = p.measured_on or p.device.name
    what = {"bandwidth": "sustained bandwidth", "gemm": f"{p.dtype} large-GEMM throughput",
            "decode": f"batch-1 decode of {p.model_id if not p.model_id else p.model.name}",
            "collective": f"{p.collective} bus bandwidth over {p.devices} devices",
            "parallel_decode": f"batch-1 decode of {p.model.name if p.model_id else ''} over {p.devices} devices",
            }[p.kind]
    return Quantity(p.value, p.unit, f"measured {what} on the {where}", f"published measurement: {p.what}",
                    (_pub_input(p),), 4)


def measured_reference(ident: str) -> Quantity:
    """What a published measurement is compared with: spec bandwidth, dense peak or speed of light."""
    return _pub_reference(measurement(ident))


def measured_share(ident: str, digits: int = 2) -> Quantity:
    """Measured ÷ the package's ceiling for it (spec bandwidth, dense peak, or speed of light)."""
    from roofline.registry.measurements import get_measurement

    p = get_measurement(ident)
    ref = _pub_reference(p)
    return Quantity(share_of(p), "%", f"{measured(ident).label} as a share of the {ref.label}",
                    "measured ÷ " + {"bandwidth": "spec bandwidth", "gemm": "dense peak",
                                     "decode": "speed of light (bandwidth ÷ weight bytes a step reads)",
                                     "collective": "link bandwidth per direction",
                                     "parallel_decode": "tensor-parallel ceiling (kernels + collectives)"}[p.kind],
                    (_pub_input(p), *ref.inputs), digits,
                    (Term(float(measured(ident)), measured(ident).unit), "÷", Term(float(ref), ref.unit)))


def derate_inputs() -> tuple[Input, ...]:
    from roofline.registry.measurements import of_kind

    return tuple(_pub_input(p) for p in of_kind("bandwidth"))


def bandwidth_derate() -> Quantity:
    """Median share of spec bandwidth that the published bandwidth measurements reached."""
    from roofline.model.measured import bandwidth_derate as _derate

    return Quantity(_derate(), "%", "median share of spec bandwidth reached by published bandwidth measurements",
                    "median of measured ÷ spec bandwidth", derate_inputs(), 2)


def derated_bandwidth(hw: str) -> Quantity:
    """Spec bandwidth × the published median share: what a well-tuned kernel can expect."""
    from roofline.model.measured import derated_bandwidth_bytes_per_s

    from roofline.model.measured import bandwidth_derate as _derate

    d = as_device(hw)
    return Quantity(derated_bandwidth_bytes_per_s(d), "B/s", f"{d.name} derated bandwidth",
                    "spec bandwidth × median measured share", (bandwidth_input(d), *derate_inputs()),
                    arithmetic=(Term(d.memory_bandwidth_bytes_per_s, "B/s"), "×", Term(_derate(), "%")))


def derated_sol(model, hw, weight_dtype: str = "bf16") -> Quantity:
    """The speed of light at the derated bandwidth."""
    from roofline.model.measured import derated_speed_of_light_tokens_per_s

    from roofline.model.measured import bandwidth_derate as _derate, derated_bandwidth_bytes_per_s

    m, d = as_model(model), as_device(hw)
    value = derated_speed_of_light_tokens_per_s(m, d, weight_dtype)
    read = derated_bandwidth_bytes_per_s(d) / value  # the weight bytes a batch-1 step reads, as sol() divides by
    return Quantity(value, "tokens/s",
                    f"derated speed-of-light batch-1 decode of {m.name} on the {d.name}",
                    "spec bandwidth × median measured share ÷ weight bytes a decode step reads",
                    (*model_inputs(m), bandwidth_input(d), *derate_inputs()),
                    arithmetic=(Term(d.memory_bandwidth_bytes_per_s, "B/s"), "×", Term(_derate(), "%"), "÷",
                                Term(read, "B")))

#: The token functions this topic adds to the namespace pages evaluate in.
TOKENS = (measurement, measured, measured_reference, measured_expected, measured_share, bandwidth_derate, derated_bandwidth, derated_sol,)

__all__ = ['measurement', 'measured', 'measured_reference', 'measured_expected', 'measured_share', 'bandwidth_derate', 'derated_bandwidth', 'derated_sol']
