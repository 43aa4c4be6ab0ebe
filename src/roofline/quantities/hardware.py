"""Tokens about one device: peaks, bandwidth, capacity, ridge point, attainable FLOP/s."""

from __future__ import annotations

from roofline.errors import InputError
from roofline.model import roofs as _rl
from roofline.model.dtypes import peak_unit
from roofline.quantities.core import (
    Input,
    Quantity,
    Term,
    as_device,
    bandwidth_input,
    device_source,
    peak_input,
)
from roofline.registry.hardware import Device


# ---------------------------------------------------------------- hardware ----------------
def device(hw: str) -> Device:
    """The registry entry itself, for names: {{ device("h100-sxm5").name }}."""
    return as_device(hw)


def peak(hw: str, dtype: str = "bf16") -> Quantity:
    d = as_device(hw)
    return Quantity(d.peak_flop_per_s(dtype), peak_unit(dtype), f"{d.name} dense {dtype} peak",
                    "vendor datasheet, dense (no 2:4 sparsity)", (peak_input(d, dtype),))


def bandwidth(hw: str) -> Quantity:
    d = as_device(hw)
    return Quantity(d.memory_bandwidth_bytes_per_s, "B/s", f"{d.name} memory bandwidth",
                    "vendor datasheet", (bandwidth_input(d),))


def capacity(hw: str) -> Quantity:
    d = as_device(hw)
    return Quantity(d.memory_capacity_bytes, "B", f"{d.name} memory capacity", "vendor datasheet",
                    (Input(f"{d.name} memory capacity", d.memory_capacity_bytes, "B", device_source(d)),))


def ridge(hw: str, dtype: str = "bf16") -> Quantity:
    d = as_device(hw)
    return Quantity(_rl.device_ridge_point(d, dtype), "FLOP/byte", f"ridge point of the {d.name} ({dtype})",
                    "ridge = dense peak FLOP/s ÷ memory bandwidth", (peak_input(d, dtype), bandwidth_input(d)),
                    arithmetic=(Term(d.peak_flop_per_s(dtype), peak_unit(dtype)), "÷", Term(d.memory_bandwidth_bytes_per_s, "B/s")))


def attainable(hw: str, intensity, dtype: str = "bf16") -> Quantity:
    d = as_device(hw)
    ai = float(intensity)
    value = _rl.attainable_flop_per_s(ai, d.peak_flop_per_s(dtype), d.memory_bandwidth_bytes_per_s)
    under_roof = value < d.peak_flop_per_s(dtype)  # on the bandwidth roof: the product is the value
    return Quantity(value, "FLOP/s", f"attainable FLOP/s on the {d.name} at intensity {ai:g}",
                    "attainable = min(peak, bandwidth × intensity)",
                    (peak_input(d, dtype), bandwidth_input(d), Input("arithmetic intensity", ai, "FLOP/byte")),
                    arithmetic=(Term(d.memory_bandwidth_bytes_per_s, "B/s"), "×", Term(ai, "FLOP/byte")) if under_roof else ())


def sparse_peak(hw: str, dtype: str = "bf16") -> Quantity:
    """The 2:4-sparse peak a datasheet prints beside the dense one: {{ sparse_peak("h100-sxm5") }}."""
    d = as_device(hw)
    return Quantity(_rl.sparse_peak_flop_per_s(d.peak_flop_per_s(dtype)), "FLOP/s",
                    f"{d.name} {dtype} peak with 2:4 sparsity", "dense peak × 2 (2:4 structured sparsity)",
                    (peak_input(d, dtype),), arithmetic=(Term(d.peak_flop_per_s(dtype), peak_unit(dtype)), "×", Term(2.0)))


def sparse_ridge(hw: str, dtype: str = "bf16") -> Quantity:
    """The ridge point computed from the sparse peak: twice the dense ridge."""
    d = as_device(hw)
    return Quantity(_rl.ridge_point(_rl.sparse_peak_flop_per_s(d.peak_flop_per_s(dtype)), d.memory_bandwidth_bytes_per_s),
                    "FLOP/byte", f"ridge of the {d.name} from its 2:4-sparse {dtype} peak",
                    "sparse peak (2 × dense) ÷ memory bandwidth", (peak_input(d, dtype), bandwidth_input(d)),
                    arithmetic=("(", Term(d.peak_flop_per_s(dtype), peak_unit(dtype)), "×", Term(2.0), ")", "÷",
                                Term(d.memory_bandwidth_bytes_per_s, "B/s")))

def power(hw: str) -> Quantity:
    """A device's rated board power (its TDP) from the datasheet: {{ power("h100-sxm5") }}."""
    d = as_device(hw)
    if d.power_w is None:
        raise InputError(f"{d.name} has no power_W in the registry, so no rated power can be quoted")
    return Quantity(d.power_w, "W", f"{d.name} rated board power (TDP)", "vendor datasheet, maximum board power",
                    (power_input(d),))


def power_input(d: Device) -> Input:
    """The rated-power input of a provenance popover."""
    return Input(f"{d.name} rated board power", d.power_w, "W", device_source(d))

#: The token functions this topic adds to the namespace pages evaluate in.
TOKENS = (device, peak, bandwidth, capacity, ridge, attainable, sparse_peak, sparse_ridge, power,)

__all__ = ['device', 'peak', 'bandwidth', 'capacity', 'ridge', 'attainable', 'sparse_peak', 'sparse_ridge', 'power']
