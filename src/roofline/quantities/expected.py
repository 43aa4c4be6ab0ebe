"""Tokens about the expected figure (docs/real-systems.md): the kernel efficiencies it runs each kernel
at, the engine overheads it adds, and how well it predicts published serving runs it was not fitted to.
"""

from __future__ import annotations

from roofline.quantities.core import Input, Quantity, Source

_STATS = {"median_ratio": ("x", "median of published ÷ expected"),
          "within_25": ("%", "share of runs within ±25 % of expected"),
          "within_50": ("%", "share of runs within ±50 % of expected"),
          "geo_mean_error": ("x", "geometric-mean error, exp(mean |ln(published ÷ expected)|)"),
          "count": ("", "published serving runs judged")}


def _runs_inputs(runs) -> tuple[Input, ...]:
    counts: dict[tuple[str, str], int] = {}
    for c in runs:
        key = (c.run.source_title, c.run.source_url)
        counts[key] = counts.get(key, 0) + 1
    return tuple(Input(f"published serving runs from {t}", float(n), "", Source(t, u)) for (t, u), n in counts.items())


def expected_validation(stat: str = "within_25", by: str | None = None, group: str | None = None,
                        digits: int = 2) -> Quantity:
    """A validation statistic of the expected figure over every published serving run, or one group's
    (`by`: source, engine, format, family or device; `group`: its name, as the table shows it)."""
    from roofline.errors import InputError
    from roofline.model import validation

    if stat not in _STATS:
        raise InputError(f"expected_validation: stat must be one of {', '.join(_STATS)}, got {stat!r}")
    runs = validation.judged()
    if by is not None:
        if group is None:
            raise InputError("expected_validation: `by` needs a `group` to pick")
        runs = [c for c in runs if validation.group_of(c, by) == group]
        if not runs:
            raise InputError(f"expected_validation: no published serving run has {by} {group!r}")
    s = validation.overall(runs)
    unit, words = _STATS[stat]
    who = f"the {s.count} runs with {by} {group}" if by else f"all {s.count} published serving runs"
    return Quantity(float(getattr(s, stat)), unit, f"{words}, over {who}",
                    f"{words}; expected: every kernel at its published efficiency plus the engine's per-step "
                    "overhead, fitted to kernel benchmarks only", _runs_inputs(runs), digits if stat != "count" else 3)


def expected_target(name: str) -> Quantity:
    """A target the expected figure is judged against: within_25 (share of runs) or geo_mean_error."""
    from roofline.errors import InputError
    from roofline.model import validation

    targets = {"within_25": (validation.WITHIN_25_TARGET, "%", "target share of runs within ±25 % of expected"),
               "geo_mean_error": (validation.GEO_ERROR_TARGET, "x", "target geometric-mean error (at most)")}
    if name not in targets:
        raise InputError(f"expected_target: name must be one of {', '.join(targets)}, got {name!r}")
    value, unit, words = targets[name]
    return Quantity(value, unit, words, "the project's target for the expected figure", (), 3)


def expected_short_by(name: str) -> Quantity:
    """How far the expected figure misses a target: within_25 (the share of runs short of the target share,
    0 where met) or geo_mean_error (the error ÷ the target error, 1 where met)."""
    from roofline.errors import InputError
    from roofline.model import validation

    s = validation.overall()
    if name == "within_25":
        return Quantity(max(validation.WITHIN_25_TARGET - s.within_25, 0.0), "%",
                        "share of runs the expected figure is short of the ±25 % target by",
                        "target share − share of runs within ±25 % of expected (0 where met)",
                        (Input("share within ±25 %", s.within_25, "%"),
                         Input("target share", validation.WITHIN_25_TARGET, "%")), 2)
    if name == "geo_mean_error":
        return Quantity(max(s.geo_mean_error / validation.GEO_ERROR_TARGET, 1.0), "x",
                        "factor the geometric-mean error exceeds its target by",
                        "geometric-mean error ÷ target error (1 where met)",
                        (Input("geometric-mean error", s.geo_mean_error, "x"),
                         Input("target error", validation.GEO_ERROR_TARGET, "x")), 3)
    raise InputError(f"expected_short_by: name must be within_25 or geo_mean_error, got {name!r}")


def engine_default(key: str, field: str, tp: int = 1) -> Quantity:
    """One engine version's default (`model.engines.DEFAULTS`): kv_fraction (at tensor-parallel degree `tp`)
    or max_requests."""
    from roofline.errors import InputError
    from roofline.model import engines

    if key not in engines.DEFAULTS:
        raise InputError(f"engine_default: key must be one of {', '.join(engines.DEFAULTS)}, got {key!r}")
    d = engines.DEFAULTS[key]
    src = Source(d.source, d.url)
    if field == "kv_fraction":
        f = d.fraction(int(tp))
        return Quantity(f, "%", f"{d.engine} {d.versions}: KV memory fraction ({d.kv_rule} rule) at TP {int(tp)}",
                        "the engine's default, as its source states it", (Input(d.source, f, "", src),), 2)
    if field == "max_requests":
        if d.max_requests is None:
            raise InputError(f"engine_default: {d.engine} {d.versions} caps requests by memory alone")
        return Quantity(float(d.max_requests), "", f"{d.engine} {d.versions}: requests in flight at most",
                        "the engine's default, as its source states it", (Input(d.source, float(d.max_requests), "", src),),
                        4)
    raise InputError(f"engine_default: field must be kv_fraction or max_requests, got {field!r}")


def expected_band(which: str = "narrow") -> Quantity:
    """The band a published run is counted within: "narrow" (±25 %) or "wide" (±50 %) of its expected figure."""
    from roofline.errors import InputError
    from roofline.model import validation

    bands = {"narrow": validation.NARROW_BAND, "wide": validation.WIDE_BAND}
    if which not in bands:
        raise InputError(f"expected_band: which must be narrow or wide, got {which!r}")
    return Quantity(bands[which], "%", f"the {which} band around the expected figure (either way)",
                    "the project's validation bands", (), 2)


def kernel_efficiency(kernel: str, size: float) -> Quantity:
    """A kernel class's fitted efficiency at one size (M, tokens per expert, prompt length or context)."""
    from roofline.errors import InputError
    from roofline.model import efficiency

    fits = efficiency.fits()
    if kernel not in fits:
        raise InputError(f"kernel_efficiency: kernel must be one of {', '.join(fits)}, got {kernel!r}")
    f = fits[kernel]
    value, outside = f.at(float(size))
    where = " (outside the measured sizes: the nearest measured size's efficiency)" if outside else ""
    rows = efficiency.kernel_measurements(kernel)
    sources = {(r.source_title, r.source_url) for r in rows}
    return Quantity(float(value), "%", f"{kernel.replace('_', ' ')} efficiency at {efficiency.SIZE_WORDS[kernel]} "
                    f"{size:g}{where}",
                    f"{f.intercept:.4f} + {f.slope:.4f} × log₁₀(size), least squares over {f.rows} kernel rows, "
                    f"sizes clamped to {f.size_min:g} to {f.size_max:g}",
                    tuple(Input(f"kernel rows from {t}", float(sum(r.source_url == u for r in rows)), "", Source(t, u))
                          for t, u in sorted(sources)), 2)


def kernel_latency(devices: int) -> Quantity:
    """The one-shot all-reduce latency the expected figure uses over `devices` devices, from the kernel rows."""
    from roofline.model import efficiency

    rows = efficiency.kernel_measurements("allreduce_latency")
    return Quantity(efficiency.allreduce_latency_s(int(devices)), "s",
                    f"one-shot all-reduce latency over {int(devices)} devices (expected)",
                    "linear in log₂ devices through the published rows, clamped to their device counts",
                    tuple(Input(f"{r.what}, {r.size:g} devices", r.value, "s", Source(r.source_title, r.source_url))
                          for r in rows), 2)


def expected_ceiling_breaches() -> Quantity:
    """Published runs above their ceiling plus expected figures above their ceiling (both should be 0)."""
    from roofline.model import validation

    r = validation.report()
    return Quantity(float(len(r["runs_above_ceiling"]) + len(r["expected_above_ceiling"])), "",
                    "published runs and expected figures above their ceiling", "count over every published serving run",
                    (), 3)


def step_overhead(engine: str) -> Quantity:
    """Seconds an engine adds to every step, from its kernel row."""
    from roofline.model import efficiency

    value = efficiency.step_overhead_s(engine)
    row = efficiency.engines()[engine]
    return Quantity(value, "s", f"{engine}'s per-step overhead ({row.software})", "as published",
                    (Input(row.what, value, "s", Source(row.source_title, row.source_url)),), 2)




def kernel_row_efficiency(ident: str) -> Quantity:
    """One published kernel row's efficiency: its roofline time on its registry device ÷ its measured time."""
    from roofline.errors import InputError
    from roofline.model import efficiency
    from roofline.quantities.core import bandwidth_input, peak_input

    rows = {r.id: r for r in efficiency.kernel_measurements()}
    if ident not in rows:
        raise InputError(f"kernel_row_efficiency: no kernel row {ident!r}")
    r = rows[ident]
    d = r.device
    unit = {"attention_decode": "B/s"}.get(r.kernel, "FLOP/s")
    measured = Input(f"measured: {r.library} {r.what} ({r.software}, {r.date})", r.value, unit,
                     Source(r.source_title, r.source_url))
    ref = bandwidth_input(d) if r.kernel == "attention_decode" else peak_input(d, r.dtype)
    how = {"attention_decode": "measured bandwidth ÷ spec bandwidth",
           "attention_prefill": "measured FLOP/s ÷ dense peak"}.get(
        r.kernel, "roofline time (FP8 inputs, BF16 output) ÷ measured time (2·groups·m·n·k ÷ measured FLOP/s)")
    extra = (bandwidth_input(d),) if r.kernel in ("matmul", "grouped_matmul") else ()
    return Quantity(efficiency.row_efficiency(r), "%", f"{r.library} efficiency, {r.kernel.replace('_', ' ')} "
                    f"at {efficiency.SIZE_WORDS[r.kernel]} {r.size:g} on {r.measured_on or d.name}", how,
                    (measured, ref, *extra), 2)


#: The token functions this topic adds to the namespace pages evaluate in.
TOKENS = (expected_validation, expected_target, expected_short_by, engine_default, expected_band, kernel_efficiency, kernel_row_efficiency, kernel_latency,
          expected_ceiling_breaches, step_overhead)

__all__ = ["expected_validation", "expected_target", "expected_short_by", "engine_default", "expected_band", "kernel_efficiency", "kernel_row_efficiency", "kernel_latency",
           "expected_ceiling_breaches", "step_overhead"]
