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
from roofline.model import engines, kernels, parallel, serving
from roofline.model.formats import Formats
from roofline.model.parallel import Layout
from roofline.registry import hardware, models
from roofline.registry.measurements import ServingMeasurement, serving_measurements

#: A run at or above this share of its ceiling casts doubt on the ceiling (the project's rule).
DOUBT_SHARE = 0.99


@dataclass(frozen=True)
class EnginePoint:
    """Where the run's engine operates on the ceiling's layout: the requests its defaults hold in flight
    (`engines.defaults_for`: its KV memory share and its cap), and the expected figure there."""

    defaults: engines.EngineDefaults | None   # None: an engine with no recorded defaults (the ceiling's memory)
    layout: Layout
    memory_requests: int             # requests whose KV cache fits the engine's share of memory
    slots: int                       # requests it holds: the run's concurrency or the ceiling's, within its caps
    expected_tokens_per_s: float


@dataclass(frozen=True)
class RunCeiling:
    """A published run beside the serving model's ceiling and expected figure for its configuration."""

    run: ServingMeasurement
    point: serving.ServicePoint      # the ceiling's operating point: its layout, concurrency and bound
    layouts: tuple[str, ...]         # the layouts the ceiling was taken over (one where the source states it)
    engine_point: EnginePoint | None = None

    @property
    def ceiling_tokens_per_s(self) -> float:
        """Output tokens/s over all the run's devices at the ceiling."""
        return self.point.output_tokens_per_s

    @property
    def expected_tokens_per_s(self) -> float:
        """The run's engine at its own defaults on the ceiling's layout (`EnginePoint`): every kernel at its
        published efficiency and the engine's per-step overhead (`efficiency.step_overhead_s`). An estimate,
        not a measurement."""
        return (self.engine_point or engine_point(self.run, self.point)).expected_tokens_per_s

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

    return efficiency.step_overhead_s(_overhead_engine(run))


def engine_point(run: ServingMeasurement, point: serving.ServicePoint) -> EnginePoint:
    """The run's engine on the ceiling's layout: the requests its KV share fits (the ceiling's memory cap scaled by
    the engine's KV budget ÷ the KV the cap holds, per device), within its cap on requests in flight and the
    run's concurrency (an offline run: the engine fills every slot it has), and the expected figure there."""
    model, device, lay, wl = run.model, run.device, point.layout, point.workload
    d = engines.defaults_for(run.engine, run.software, run.date)
    cap = point.memory_cap
    if d is None:
        fit = cap
    else:
        step = parallel.decode(model, device, float(cap), wl.kv_tokens_per_request - 1, wl.formats, wl.attention, lay)
        st = step.stage
        budget = d.kv_budget_bytes(kernels.usable_memory_bytes(device), float(st.weights_resident_bytes),
                                   float(st.activation_peak_bytes), float(st.runtime_reserve_bytes), lay.tp)
        fit = engines.requests_that_fit(cap, float(step.kv_resident_bytes), budget)
    limits = [fit, point.concurrency if run.scenario != "offline" else cap]
    if d is not None and d.max_requests:
        limits.append(d.max_requests)
    if wl.max_concurrency:
        limits.append(wl.max_concurrency)
    slots = max(min(limits), lay.dp)
    rate = serving.expected_rate(model, device, lay, wl, slots, _overhead_engine(run))
    return EnginePoint(d, lay, fit, slots, rate)


def _overhead_engine(run: ServingMeasurement) -> str | None:
    from roofline.model import efficiency

    return run.engine if run.engine in efficiency.engines() else None


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
    """The best ceiling over the run's layouts, and the engine's point on the layout where its expected figure
    is highest (where the source leaves the layout unstated, the engine's is taken to be its best one, as the
    ceiling's is)."""
    wl, best, engine_best, tried, errors = workload(run), None, None, [], []
    for lay in layouts(run):
        try:
            p = _point(run, lay, wl)
        except InputError as err:  # this layout does not hold the model at I + O: try the others
            errors.append(str(err))
            continue
        tried.append(lay.name)
        if best is None or p.output_tokens_per_s > best.output_tokens_per_s:
            best = p
        e = engine_point(run, p)
        if engine_best is None or e.expected_tokens_per_s > engine_best.expected_tokens_per_s:
            engine_best = e
    if best is None:
        raise InputError(f"serving run {run.id}: no layout of {run.devices} {run.device.name} holds {run.model.name} "
                         f"at I + O = {run.input_tokens + run.output_tokens} tokens ({errors[0] if errors else 'none tried'})")
    return RunCeiling(run, best, tuple(tried), engine_best)


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


def forget_ceilings() -> None:
    """Drop every ceiling kept (`roofline.memos.forget_all`); a supplier set with `supply_with` stays."""
    _CEILINGS.clear()


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
