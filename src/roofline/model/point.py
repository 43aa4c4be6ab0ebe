"""The roofline point: one unit of work (FLOPs over bytes) under one device's two roofs.

Every roofline quantity in the package is one of these: a kernel of a decode step or a prefill
(`roofline.model.kernels`), a single matmul counted under a named convention (`roofline.model.ops`),
a chain of elementwise ops in the playbook. It computes intensity, time and bound in one place.
Fields are floats or numpy arrays that broadcast together, so a sweep is one call.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from roofline.model.roofs import COMPUTE_BOUND, MEMORY_BOUND

_BOUNDS = np.array([MEMORY_BOUND, COMPUTE_BOUND])


class computed_once(cached_property):
    """A property of a frozen step or point, computed on first read and kept on the instance.

    A step's figures are read many times over (a record reads each kernel's time a dozen ways),
    and its fields never change, so each is worked out once. An array it returns is made
    read-only (unless it is one the instance already holds, such as a field), so an in-place
    edit fails loudly instead of changing what later reads see. Dataclass equality, hashing
    and `replace` look at the fields only.
    """

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        held = instance.__dict__
        if self.attrname in held:
            return held[self.attrname]
        value = self.func(instance)
        # (the instance's dict holds its fields and what it kept before)
        if type(value) is np.ndarray and not any(value is v for v in held.values()):
            value.flags.writeable = False
        held[self.attrname] = value
        return value


def scalar(x):
    """A Python float (or str) for a 0-d result, the array otherwise."""
    arr = np.asarray(x)
    return arr.item() if arr.ndim == 0 else arr


def bound_of(compute_bound) -> object:
    """'compute-bound' where the mask is true, else 'memory-bound' (an index, not np.where: fast on sweeps)."""
    mask = np.asarray(compute_bound)
    return scalar(_BOUNDS[mask.astype(np.intp)]) if mask.ndim else (COMPUTE_BOUND if mask else MEMORY_BOUND)


@dataclass(frozen=True)
class RooflinePoint:
    """One unit of work on one device's roofs: FLOPs and bytes in, intensity, bound and time out.

    Bytes are split by what moves: weights read, activations read and written, KV cache read
    and written. `convention` says how FLOPs and bytes were counted where that is not the
    site's default (2 FLOPs per multiply-add, operands read once, results written once).

    >>> p = RooflinePoint("matmul", flops=2e9, weight_bytes=2e6, peak_flop_per_s=1e15, bandwidth_bytes_per_s=1e12)
    >>> p.arithmetic_intensity, p.bound
    (1000.0, 'compute-bound')
    """

    name: str
    flops: object = 0.0
    weight_bytes: object = 0.0
    act_read_bytes: object = 0.0
    act_written_bytes: object = 0.0
    kv_read_bytes: object = 0.0
    kv_written_bytes: object = 0.0
    peak_flop_per_s: float = 1.0
    bandwidth_bytes_per_s: float = 1.0
    compute_dtype: str = "bf16"
    count: int = 1  # how many times a step runs it (layers); the figures above are the step's total
    convention: str = ""

    @computed_once
    def bytes_read(self):
        return scalar(np.asarray(self.weight_bytes) + self.act_read_bytes + self.kv_read_bytes)

    @computed_once
    def bytes_written(self):
        return scalar(np.asarray(self.act_written_bytes) + self.kv_written_bytes)

    @computed_once
    def bytes(self):
        return scalar(np.asarray(self.bytes_read) + self.bytes_written)

    @computed_once
    def arithmetic_intensity(self):
        """FLOPs per byte moved (0 for a pure copy such as the embedding lookup)."""
        return scalar(np.asarray(self.flops, float) / np.asarray(self.bytes, float))

    @computed_once
    def ridge_point(self) -> float:
        return self.peak_flop_per_s / self.bandwidth_bytes_per_s

    @computed_once
    def compute_time_s(self):
        return scalar(np.asarray(self.flops, float) / self.peak_flop_per_s)

    @computed_once
    def memory_time_s(self):
        return scalar(np.asarray(self.bytes, float) / self.bandwidth_bytes_per_s)

    @computed_once
    def time_s(self):
        """Roofline time: the slower of the compute roof and the memory roof."""
        return scalar(np.maximum(self.compute_time_s, self.memory_time_s))

    @computed_once
    def attained_flop_per_s(self):
        """FLOPs ÷ time: for one point that is min(peak, bandwidth × intensity), the roof above it."""
        return scalar(np.asarray(self.flops, float) / np.asarray(self.time_s, float))

    @computed_once
    def bound(self):
        """'compute-bound' at or past the ridge point, 'memory-bound' below it."""
        return bound_of(np.asarray(self.arithmetic_intensity) >= self.ridge_point)
