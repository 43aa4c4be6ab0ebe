"""Ceilings for published results across nodes: the package's bound for the same layout, formats and lengths.

A decode pool's ceiling is its output tokens/s per device at the largest batch that fits at the
published context, each step at its perfect-overlap time (FLOPs ÷ peak or bytes ÷ bandwidth, whichever
is longer, or the collectives if longer still: the deployments overlap the all-to-all with compute in
two micro-batches), every expert rank equally loaded, spec bandwidths and latency floors. A prefill
pool's ceiling is its input tokens/s per device (prefix-cache hits counted, as published) at the best
of one to sixteen prompts per device that fit. No published figure may be above its ceiling.
"""

from __future__ import annotations

from dataclasses import dataclass

from roofline.model import parallel
from roofline.model.formats import Formats
from roofline.registry.cross_node import CrossNodeResult

PROMPTS_PER_DEVICE = (1, 2, 4, 8, 16)


@dataclass(frozen=True)
class CrossNodeCeiling:
    """A result's ceiling per device and the batch it is reached at."""

    tokens_per_s_per_device: float
    batch: int                 # sequences over the whole EP group
    layout: parallel.Layout

    @property
    def batch_per_device(self) -> float:
        return self.batch / self.layout.devices


def formats_of(result: CrossNodeResult) -> Formats:
    return Formats.of(result.weight_format, result.activation_format, result.kv_format)


def ceiling(result: CrossNodeResult) -> CrossNodeCeiling:
    """The package's bound for `result`'s phase, layout, formats and lengths (see the module docstring).

    >>> from roofline.registry.measurements import cross_node_results
    >>> c = ceiling(cross_node_results()["sglang-h100-prefill"])
    >>> c.tokens_per_s_per_device > cross_node_results()["sglang-h100-prefill"].tokens_per_s_per_device
    True
    """
    m, d, f = result.model, result.device, formats_of(result)
    lay = parallel.Layout(ep=result.ep, redundant_experts=result.redundant_experts)
    if result.phase == "decode":
        batch = parallel.max_batch_that_fits(m, d, result.context_tokens, f, layout=lay)
        s = parallel.decode(m, d, batch, result.context_tokens, f, layout=lay)
        return CrossNodeCeiling(batch / float(s.time_perfect_overlap_s) / lay.devices, batch, lay)
    best = CrossNodeCeiling(0.0, 0, lay)
    for per in PROMPTS_PER_DEVICE:
        batch = per * lay.devices
        s = parallel.prefill(m, d, result.context_tokens, batch, f, layout=lay, cache_hit_rate=result.cache_hit_rate)
        if not bool(s.fits):
            break
        rate = batch * result.context_tokens / float(s.time_perfect_overlap_s) / lay.devices
        if rate > best.tokens_per_s_per_device:
            best = CrossNodeCeiling(rate, batch, lay)
    return best


def share_of_ceiling(result: CrossNodeResult) -> float:
    """Published ÷ ceiling, per device (below 1 for every result, a build claim checks)."""
    return result.tokens_per_s_per_device / ceiling(result).tokens_per_s_per_device
