"""How well the expected figure predicts published serving runs: statistics the model is judged by,
never fitted to.

For each published run, ratio = published ÷ expected output tokens/s (for its own model, devices,
layout, formats, lengths and concurrency; `serving_runs.ceiling`). Over a set of runs:

* the median ratio (1: the expected figure is right in the middle);
* the share within ±25 % (0.75 ≤ ratio ≤ 1.25) and within ±50 % (0.5 ≤ ratio ≤ 1.5);
* the geometric-mean error, exp(mean |ln ratio|): ×1.15 means a typical run sits 15 % off, either way.

The targets (`TARGETS`) are the project's: at least 80 % of runs within ±25 %, a geometric-mean error
of at most ×1.15, no run above its ceiling and no expected figure above its ceiling.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from roofline.errors import InputError

#: The bands a ratio is counted within: ±25 % and ±50 % of the expected figure.
NARROW_BAND, WIDE_BAND = 0.25, 0.5
WITHIN_25_TARGET = 0.80
GEO_ERROR_TARGET = 1.15
TARGETS = {"within_25": WITHIN_25_TARGET, "geo_mean_error": GEO_ERROR_TARGET, "runs_above_ceiling": 0,
           "expected_above_ceiling": 0}
GROUPS = ("source", "engine", "format", "family", "device")


@dataclass(frozen=True)
class Stats:
    """The validation statistics of a set of published ÷ expected ratios.

    >>> s = stats([1.0, 0.8, 0.5])
    >>> s.median_ratio, round(s.within_25, 3), s.within_50
    (0.8, 0.667, 1.0)
    """

    count: int
    median_ratio: float
    within_25: float
    within_50: float
    geo_mean_error: float

    @property
    def meets_targets(self) -> bool:
        return self.within_25 >= WITHIN_25_TARGET and self.geo_mean_error <= GEO_ERROR_TARGET

    def as_dict(self) -> dict:
        return {"count": self.count, "median_ratio": self.median_ratio, "within_25": self.within_25,
                "within_50": self.within_50, "geo_mean_error": self.geo_mean_error}


def stats(ratios) -> Stats:
    """Median ratio, shares within ±25 % and ±50 %, geometric-mean error of published ÷ expected ratios."""
    values = [float(r) for r in ratios]
    if not values:
        raise InputError("validation statistics need at least one published ÷ expected ratio")
    if any(not (math.isfinite(v) and v > 0) for v in values):
        raise InputError(f"published ÷ expected ratios must be positive and finite, got {values!r}"[:200])
    n = len(values)
    return Stats(n, statistics.median(values), sum(1 - NARROW_BAND <= v <= 1 + NARROW_BAND for v in values) / n,
                 sum(1 - WIDE_BAND <= v <= 1 + WIDE_BAND for v in values) / n, math.exp(statistics.fmean(abs(math.log(v)) for v in values)))


def family(model) -> str:
    """A model family for grouping: the name's first word and dense or MoE ("Llama dense", "Qwen3 MoE")."""
    return f"{model.name.split()[0].split('-')[0]} {'MoE' if model.is_moe else 'dense'}"


def group_of(c, by: str) -> str:
    """The group a judged run (`serving_runs.RunCeiling`) falls in: source, engine, format, family or device."""
    r = c.run
    if by == "source":
        return r.source_title
    if by == "engine":
        return r.engine
    if by == "format":
        return r.weight_format
    if by == "family":
        return family(r.model)
    if by == "device":
        return r.device.name
    raise InputError(f"validation group must be one of {', '.join(GROUPS)}, got {by!r}")


def judged() -> list:
    """Every published serving run beside its ceiling and expected figure (`serving_runs.all_ceilings`)."""
    from roofline.model.serving_runs import all_ceilings

    return all_ceilings()


def overall(runs=None) -> Stats:
    return stats(c.expected_share for c in (judged() if runs is None else runs))


def by_group(by: str, runs=None) -> dict[str, Stats]:
    """{group: Stats} for one grouping, groups in the order their first run appears."""
    groups: dict[str, list] = {}
    for c in (judged() if runs is None else runs):
        groups.setdefault(group_of(c, by), []).append(c.expected_share)
    return {g: stats(v) for g, v in groups.items()}


def worst(n: int = 5, runs=None) -> list:
    """The n runs furthest from their expected figure (largest |ln ratio|), furthest first."""
    return sorted(judged() if runs is None else runs, key=lambda c: -abs(math.log(c.expected_share)))[:n]


def _miss_reasons() -> dict[str, str]:
    """Why the worst misses miss, by what they share: the model's known gaps, stated once."""
    from roofline import format as fmt
    from roofline.model import efficiency

    vllm = efficiency.engines().get("vLLM")
    vllm_words = (f"one vLLM per-step overhead row ({fmt.seconds(vllm.value)} a step, measured on {vllm.device.name} "
                  "with vLLM 0.5) stands in for its engine version" if vllm else "no vLLM per-step overhead row is recorded")
    return {
        "MLA": "its MLA attention and FP8 block-scaled experts run at the efficiencies FlashMLA and DeepGEMM reached "
               "on NVIDIA GPUs, kernels the run's engine version (see its software) may not have used",
        "MLA AMD": "its MLA attention and FP8 block-scaled experts run at the efficiencies FlashMLA and DeepGEMM "
                   "reached on NVIDIA GPUs; the run's ROCm images predate AMD's AITER kernels for both, and AMD "
                   "published only how much faster those are than the kernels the run used, never either one's speed",
        "MoE": "the experts run at the efficiency measured for one expert shape with skewed load, and the layout "
               "the ceiling takes for the run (expert parallelism, attention on every device) may not be the engine's",
        "MoE stated": "the experts run at the efficiency measured for one model's experts spread whole over eight "
                      "GPUs (Qwen3-235B-A22B's, expert parallelism) with skewed load, whatever the run's model and "
                      "the share of each expert its layout gives a GPU",
        "AMD": "the MI300X's only kernel rows are AMD's best large GEMMs, one size per format and used at every size, "
               "its attention runs at the efficiency NVIDIA GPUs reached, and " + vllm_words,
        "nvfp4": "the FP4 matmul and expert rows were measured on the B200 alone",
        "steps": "what the engine adds besides its per-step overhead row (sampling, launches, uneven batches) is "
                 "not modelled",
    }


def miss_reason(c) -> str:
    """The known gap most likely behind one run's miss."""
    r, reasons = c.run, _miss_reasons()
    if r.model.is_mla:
        return reasons["MLA AMD" if r.device.vendor == "AMD" else "MLA"]
    if r.model.is_moe:
        return reasons["MoE" if "layout" in r.assumed else "MoE stated"]
    if r.device.vendor == "AMD":
        return reasons["AMD"]
    if r.weight_format == "nvfp4":
        return reasons["nvfp4"]
    return reasons["steps"]


def report(runs=None) -> dict:
    """Everything `make bench` writes: overall statistics against the targets, per group, worst misses."""
    runs = judged() if runs is None else runs
    total = overall(runs)
    above = [c.run.id for c in runs if c.share > 1]
    expected_above = [c.run.id for c in runs if c.expected_tokens_per_s > c.ceiling_tokens_per_s * (1 + 1e-12)]
    return {
        "runs": total.count,
        "overall": total.as_dict(),
        "targets": TARGETS,
        "meets": {"within_25": total.within_25 >= WITHIN_25_TARGET,
                  "geo_mean_error": total.geo_mean_error <= GEO_ERROR_TARGET,
                  "runs_above_ceiling": not above, "expected_above_ceiling": not expected_above},
        "short_by": {"within_25": max(WITHIN_25_TARGET - total.within_25, 0.0),
                     "geo_mean_error": max(total.geo_mean_error - GEO_ERROR_TARGET, 0.0)},
        "runs_above_ceiling": above,
        "expected_above_ceiling": expected_above,
        "groups": {by: {g: s.as_dict() for g, s in by_group(by, runs).items()} for by in GROUPS},
        "worst": [{"id": c.run.id, "ratio": c.expected_share, "published_tokens_per_s": c.run.output_tokens_per_s,
                   "expected_tokens_per_s": c.expected_tokens_per_s, "reason": miss_reason(c)}
                  for c in worst(5, runs)],
    }
