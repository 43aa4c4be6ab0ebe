"""Published serving runs against the serving model: each run's ceiling and expected figure for its
own model, devices, layout, formats, input and output lengths and concurrency, and the share of
the ceiling it reached.

The ceiling is `serving.offline_max` for an offline run (every request queued at once: the largest
output tokens/s over concurrency, up to the engine's cap where the source states one) and
`serving.serve_point` at the stated concurrency for a static batch or a client concurrency. Where
the source leaves the layout unstated, the ceiling is the best over every layout of the same device
count that holds the model (TP, EP, PP or DP of n), so it stays an upper bound; unstated formats
are already set to the generous choice in the data file. A run above its ceiling is a finding
about the ceiling or the record, never something to hide: see `above_ceiling`.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from roofline.errors import InputError
from roofline.model import parallel, serving
from roofline.model.formats import Formats
from roofline.model.parallel import Layout
from roofline.registry import hardware, models
from roofline.registry.measurements import ServingMeasurement, serving_measurements

#: A run at or above this share of its ceiling casts doubt on the ceiling (the project's rule).
DOUBT_SHARE = 0.99


@dataclass(frozen=True)
class RunCeiling:
    """A published run beside the serving model's ceiling and expected figure for its configuration."""

    run: ServingMeasurement
    point: serving.ServicePoint      # the ceiling's operating point: its layout, concurrency and bound
    layouts: tuple[str, ...]         # the layouts the ceiling was taken over (one where the source states it)

    @property
    def ceiling_tokens_per_s(self) -> float:
        """Output tokens/s over all the run's devices at the ceiling."""
        return self.point.output_tokens_per_s

    @property
    def expected_tokens_per_s(self) -> float:
        """The same point with every kernel at its published efficiency and the run's own engine's
        per-step overhead (`efficiency.step_overhead_s`): an estimate, not a measurement.

        The point's expected step carries the default engine's overhead; the run's engine's replaces it.
        """
        from roofline.model import efficiency

        p = self.point
        step = p.expected_step_time_s - efficiency.step_overhead_s() + run_overhead_s(self.run)
        return p.expected_output_tokens_per_s * p.expected_step_time_s / step

    @property
    def share(self) -> float:
        """Published ÷ ceiling."""
        return self.run.output_tokens_per_s / self.ceiling_tokens_per_s

    @property
    def expected_share(self) -> float:
        """Published ÷ expected."""
        return self.run.output_tokens_per_s / self.expected_tokens_per_s


def run_overhead_s(run: ServingMeasurement) -> float:
    """The per-step overhead of the run's engine where the registry has a row for it, else the default's."""
    from roofline.model import efficiency

    return efficiency.step_overhead_s(run.engine if run.engine in efficiency.engines() else None)


def workload(run: ServingMeasurement) -> serving.Workload:
    """The run's workload: its lengths, its concurrency (static batch or client) or the engine's cap,
    and its formats."""
    return serving.Workload(run.input_tokens, run.output_tokens, run.concurrency or None, run.max_concurrency or None,
                            formats=Formats.of(run.weight_format, run.activation_format, run.kv_format))


def layouts(run: ServingMeasurement) -> list[Layout]:
    """The layout the source states, or every single-kind layout of the run's device count where it
    states none."""
    if "layout" not in run.assumed:
        return [Layout(**run.layout_degrees)]
    return [lay for lay in parallel.candidate_layouts(run.model, run.device, run.devices) if lay.devices == run.devices]


def _point(run: ServingMeasurement, lay: Layout, wl: serving.Workload) -> serving.ServicePoint:
    if run.scenario == "offline":
        return serving.offline_max(run.model, run.device, lay, wl)
    return serving.serve_point(run.model, run.device, lay, wl)


def _ceiling(run: ServingMeasurement) -> RunCeiling:
    wl, best, tried, errors = workload(run), None, [], []
    for lay in layouts(run):
        try:
            p = _point(run, lay, wl)
        except InputError as err:  # this layout does not hold the model at I + O: try the others
            errors.append(str(err))
            continue
        tried.append(lay.name)
        if best is None or p.output_tokens_per_s > best.output_tokens_per_s:
            best = p
    if best is None:
        raise InputError(f"serving run {run.id}: no layout of {run.devices} {run.device.name} holds {run.model.name} "
                         f"at I + O = {run.input_tokens + run.output_tokens} tokens ({errors[0] if errors else 'none tried'})")
    return RunCeiling(run, best, tuple(tried))


#: (run, registry files) -> its ceiling: computed here, or handed in by `remember` (the site keeps
#: them between builds keyed by a hash of the package and every spec file). Bounded: cleared when full.
_CEILINGS: dict[tuple, RunCeiling] = {}
_CEILINGS_MAX = 4096


#: Asked once, before this process computes its first ceiling: a caller working the ceilings out in
#: another process (the site build, in a figure's worker) waits for them there and hands them in with
#: `remember`. None: nothing to ask.
_SUPPLIER: list = [None]


def supply_with(fetch) -> None:
    """Have `ceiling` call `fetch()` once, before it computes a ceiling here; None stops asking."""
    _SUPPLIER[0] = fetch


def ceiling(run: ServingMeasurement) -> RunCeiling:
    """The run beside its ceiling and expected figure (cached per run and registry files)."""
    key = (run, (hardware.REGISTRY.path(), models.REGISTRY.path()))
    if (known := _CEILINGS.get(key)) is None and (fetch := _SUPPLIER[0]) is not None:
        _SUPPLIER[0] = None
        fetch()
        known = _CEILINGS.get(key)
    if known is None:
        if len(_CEILINGS) >= _CEILINGS_MAX:
            _CEILINGS.clear()
        known = _CEILINGS[key] = _ceiling(run)
    return known


def computed_ceilings() -> dict[tuple, RunCeiling]:
    """Every ceiling this process holds, by (run, registry files)."""
    return dict(_CEILINGS)


def remember(ceilings: dict[tuple, RunCeiling]) -> None:
    """Take ceilings computed earlier from the same package and spec files (the caller vouches for that)."""
    _CEILINGS.update(list(ceilings.items())[:_CEILINGS_MAX - len(_CEILINGS)])


def all_ceilings() -> list[RunCeiling]:
    """Every published serving run beside its ceiling, in file order."""
    return [ceiling(r) for r in serving_measurements().values()]


def above_ceiling(threshold: float = 1.0) -> list[RunCeiling]:
    """Runs at or above `threshold` × their ceiling (1: exceeding it; DOUBT_SHARE: doubt on the ceiling)."""
    return [c for c in all_ceilings() if c.share >= threshold]


def selected(engine: str | None = None, model: str | None = None,
             weight_format: str | None = None) -> list[RunCeiling]:
    """Every run, or those of one engine, one registry model and/or one weight format (AND)."""
    return [c for c in all_ceilings()
            if (engine is None or c.run.engine == engine) and (model is None or c.run.model_id == model)
            and (weight_format is None or c.run.weight_format == weight_format)]


def share_stats(engine: str | None = None, expected: bool = False, model: str | None = None,
                weight_format: str | None = None) -> dict[str, float]:
    """Median, quartiles (inclusive method), minimum and maximum of published ÷ ceiling (or ÷ expected)
    over every run, or the runs `selected` by engine, model and weight format."""
    values = sorted(c.expected_share if expected else c.share for c in selected(engine, model, weight_format))
    if not values:
        what = ", ".join(f"{k} {v!r}" for k, v in (("engine", engine), ("model", model), ("weight format", weight_format)) if v)
        raise InputError(f"no published serving run{' with ' + what if what else ''}")
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive") if len(values) > 1 else (values[0],) * 3
    return {"median": statistics.median(values), "q1": q1, "q3": q3, "min": values[0], "max": values[-1],
            "count": float(len(values))}
