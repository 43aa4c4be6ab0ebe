"""Tokens about published serving runs (docs/real-systems.md): each run's output tokens/s beside the
serving model's ceiling and expected figure for its configuration, and the share of the ceiling.

Every figure is per device (the run's total ÷ its devices), so runs on one GPU and on eight compare.
"""

from __future__ import annotations

from roofline.quantities.core import Input, Quantity, Source, Term, bandwidth_input, model_inputs, peak_input

_STATS = ("median", "q1", "q3", "min", "max")
_STAT_WORDS = {"median": "median", "q1": "lower quartile", "q3": "upper quartile", "min": "lowest", "max": "highest"}


def serving_run(ident: str):
    """A published serving run's record, for names: {{ serving_run("oci-…").engine }}."""
    from roofline.registry.measurements import get_serving

    return get_serving(ident)


def _ceiling(ident: str):
    from roofline.model.serving_runs import ceiling

    return ceiling(serving_run(ident))


def describe(run) -> str:
    """The run's configuration in words: model, devices, layout, formats, lengths, concurrency."""
    how = {"offline": "offline, all requests queued",
           "static batch": f"one static batch of {run.concurrency}",
           "concurrency": f"{run.concurrency} requests in flight"}[run.scenario]
    cap = f", engine cap {run.max_concurrency}" if run.max_concurrency else ""
    return (f"{run.model_name} on {run.devices} × {run.measured_on or run.device.name} ({run.layout_name}), "
            f"weights {run.weight_format}, activations {run.activation_format}, KV {run.kv_format}, "
            f"I {run.input_tokens}, O {run.output_tokens}, {how}{cap}")


def _published_input(run) -> Input:
    per = "per device" if run.stated_per_device else f"in total over {run.devices} devices"
    stated = run.output_tokens_per_s_per_device if run.stated_per_device else run.output_tokens_per_s
    return Input(f"published: {run.engine} output tokens/s {per} ({run.software}, {run.date})", stated, "tokens/s",
                 Source(run.source_title, run.source_url))


def _model_inputs(run) -> tuple[Input, ...]:
    d = run.device
    return (*model_inputs(run.model), bandwidth_input(d), peak_input(d, run.activation_format))


def published_digits(published: float, per_device: float) -> int:
    """Significant figures a per-device rate carries from the published figure it was divided from:
    no more figures than the published one has, and no digit past its last decimal place.

    >>> published_digits(26604, 26604 / 8), published_digits(3627, 3627 / 8), published_digits(36, 36 / 8)
    (4, 3, 2)
    """
    import math

    text = f"{published:.6f}".rstrip("0").rstrip(".")
    decimals = len(text.split(".")[1]) if "." in text else 0
    significant = len(text.replace(".", "").lstrip("-").lstrip("0")) or 1
    whole = max(1, math.floor(math.log10(abs(per_device))) + 1) if per_device else 1
    return max(2, min(significant, whole + decimals))


def serving_run_published(ident: str) -> Quantity:
    """The run's published output tokens/s, per device, at the precision the published figure carries."""
    run = serving_run(ident)
    stated = run.output_tokens_per_s_per_device if run.stated_per_device else run.output_tokens_per_s
    digits = published_digits(stated, run.output_tokens_per_s_per_device)
    return Quantity(run.output_tokens_per_s_per_device, "tokens/s",
                    f"published output tokens/s per device: {describe(run)}",
                    f"as published ÷ {run.devices} devices" if not run.stated_per_device else "as published (per device)",
                    (_published_input(run),), digits,
                    () if run.stated_per_device or run.devices == 1 else
                    (Term(run.output_tokens_per_s, "tokens/s"), "÷", Term(float(run.devices))))


def _point_words(c) -> str:
    p = c.point
    over = f", best of {', '.join(c.layouts)}" if len(c.layouts) > 1 else ""
    return (f"{p.layout_name}{over}, concurrency {p.concurrency}, limited by {p.bound}, {p.workload.decoding} "
            f"(I {c.run.input_tokens}, O {c.run.output_tokens})")


def serving_run_ceiling(ident: str) -> Quantity:
    """The serving model's ceiling for the run's configuration, output tokens/s per device."""
    c = _ceiling(ident)
    run = c.run
    how = "largest over concurrency (offline maximum)" if run.scenario == "offline" else "at the run's concurrency"
    return Quantity(c.ceiling_tokens_per_s / run.devices, "tokens/s",
                    f"ceiling output tokens/s per device: {describe(run)}; at {_point_words(c)}",
                    f"serving model, continuous batching with chunked prefill, {how}, datasheet peaks",
                    _model_inputs(run), 3)


def _efficiency_inputs() -> tuple[Input, ...]:
    """The kernel rows the expected figure's efficiencies are fitted to, one input per source."""
    from roofline.model.efficiency import kernel_measurements

    seen: dict[tuple[str, str], int] = {}
    for r in kernel_measurements():
        seen[(r.source_title, r.source_url)] = seen.get((r.source_title, r.source_url), 0) + 1
    return tuple(Input(f"kernel rows from {t}", float(n), "", Source(t, u)) for (t, u), n in seen.items())


def serving_run_expected(ident: str) -> Quantity:
    """The same point with every kernel at its published efficiency plus the engine's per-step overhead:
    an estimate, never a measurement."""
    c = _ceiling(ident)
    run = c.run
    e = c.engine_point
    where = (f"{e.slots:,} requests in flight on {e.layout.name} ({e.defaults.words if e.defaults else 'memory alone'})"
             if e is not None else _point_words(c))
    return Quantity(c.expected_tokens_per_s / run.devices, "tokens/s",
                    f"expected output tokens/s per device (an estimate): {describe(run)}; at {where}",
                    "the ceiling's steps with every kernel at its efficiency from published kernel benchmarks, "
                    f"plus {run.engine}'s per-step overhead where the registry has it, at the requests its engine's "
                    "defaults hold",
                    (*_model_inputs(run), *_efficiency_inputs()), 3)


def serving_run_bound(ident: str) -> str:
    """What binds the run's ceiling ("compute", "bandwidth", "memory", …: serving.BOUNDS), for claims."""
    return _ceiling(ident).point.bound


def _per_device_ratio(run, model_tokens_per_s: float) -> tuple:
    """Published ÷ the model's figure, both per device as the table prints them."""
    return (Term(run.output_tokens_per_s_per_device, "tokens/s"), "÷", Term(model_tokens_per_s / run.devices, "tokens/s"))


def serving_run_share(ident: str, digits: int = 2) -> Quantity:
    """Published ÷ ceiling for one run."""
    c = _ceiling(ident)
    return Quantity(c.share, "%", f"published as a share of the ceiling: {describe(c.run)}", "published ÷ ceiling",
                    (_published_input(c.run), *_model_inputs(c.run)), digits,
                    _per_device_ratio(c.run, c.ceiling_tokens_per_s))


def serving_run_expected_share(ident: str, digits: int = 2) -> Quantity:
    """Published ÷ expected for one run."""
    c = _ceiling(ident)
    return Quantity(c.expected_share, "%", f"published as a share of the expected figure: {describe(c.run)}",
                    "published ÷ expected (kernel efficiencies and engine overhead)", (_published_input(c.run), *_model_inputs(c.run)), digits,
                    _per_device_ratio(c.run, c.expected_tokens_per_s))


def serving_runs_stat(stat: str = "median", engine: str | None = None, expected: bool = False,
                      digits: int = 2, model: str | None = None, weight_format: str | None = None) -> Quantity:
    """The median, a quartile, the lowest or the highest of published ÷ ceiling (÷ expected with
    `expected`) over every published serving run, or those of one engine, registry model and/or
    weight format."""
    from roofline.errors import InputError
    from roofline.model.serving_runs import selected, share_stats

    if stat not in _STATS:
        raise InputError(f"serving_runs_stat: stat must be one of {', '.join(_STATS)}, got {stat!r}")
    stats = share_stats(engine, expected, model, weight_format)
    who = " ".join(x for x in (f"{engine}'s" if engine else "all", str(int(stats["count"])),
                               f"{model}" if model else "", f"{weight_format}-weight" if weight_format else "") if x)
    counts: dict[tuple[str, str], int] = {}
    for c in selected(engine, model, weight_format):
        key = (c.run.source_title, c.run.source_url)
        counts[key] = counts.get(key, 0) + 1
    sources = tuple(Input(f"published serving runs from {t}", float(n), "", Source(t, u))
                    for (t, u), n in counts.items())
    kind = "expected" if expected else "ceiling"
    return Quantity(stats[stat], "%", f"{_STAT_WORDS[stat]} of published ÷ {kind} over {who} published serving runs",
                    f"{_STAT_WORDS[stat]} of published ÷ {kind} per run (quartiles: inclusive method)", sources, digits)


_FIELDS = {"input_tokens": ("input tokens per request", ""), "output_tokens": ("output tokens per request", ""),
           "concurrency": ("requests in flight", ""), "max_concurrency": ("the engine's cap on requests in flight", ""),
           "devices": ("devices", ""), "output_tokens_per_s": ("output tokens/s in total", "tokens/s")}


def serving_run_number(ident: str, field: str) -> Quantity:
    """One number of a run's record, as its source states it: input_tokens, output_tokens,
    concurrency, max_concurrency, devices, or output_tokens_per_s (in total over its devices)."""
    from roofline.errors import InputError

    if field not in _FIELDS:
        raise InputError(f"serving_run_number: field must be one of {', '.join(_FIELDS)}, got {field!r}")
    run = serving_run(ident)
    words, unit = _FIELDS[field]
    return Quantity(float(getattr(run, field)), unit, f"{words}: {describe(run)}", "as published",
                    (_published_input(run),), 5)


def serving_runs_count(engine: str | None = None, weight_format: str | None = None,
                       publisher: str | None = None) -> Quantity:
    """How many published serving runs the page compares (one engine's, one weight format's and/or one
    publisher's, named by its source site such as "github.com/dstackai")."""
    from roofline.registry.measurements import serving_measurements

    n = sum(1 for r in serving_measurements().values()
            if (engine is None or r.engine == engine) and (weight_format is None or r.weight_format == weight_format)
            and (publisher is None or r.source_url.split("://", 1)[-1].startswith(publisher)))
    which = "".join((f" from {engine}" if engine else "", f" with {weight_format} weights" if weight_format else "",
                     f" published at {publisher}" if publisher else ""))
    return Quantity(float(n), "", f"published serving runs{which}",
                    "count of [[serving]] entries in measurements.toml", (), 3)


def serving_runs_publishers() -> Quantity:
    """How many distinct publishers (source sites) the published serving runs come from."""
    from urllib.parse import urlparse

    from roofline.registry.measurements import serving_measurements

    def publisher(url: str) -> str:
        # On a code host the publisher is the account, not the site: github.com/NVIDIA, github.com/dstackai.
        u = urlparse(url)
        return f"{u.netloc}/{u.path.split('/')[1]}" if u.netloc == "github.com" else u.netloc

    hosts = {publisher(r.source_url) for r in serving_measurements().values()}
    return Quantity(float(len(hosts)), "", "publishers of the published serving runs",
                    "distinct source sites (a code host's account): " + ", ".join(sorted(hosts)), (), 3)

#: The token functions this topic adds to the namespace pages evaluate in.
TOKENS = (serving_run, serving_run_bound, serving_run_number, serving_run_published, serving_run_ceiling, serving_run_expected, serving_run_share,
          serving_run_expected_share, serving_runs_stat, serving_runs_count, serving_runs_publishers)

__all__ = ["serving_run", "serving_run_bound", "serving_run_number", "serving_run_published", "serving_run_ceiling", "serving_run_expected",
           "serving_run_share", "serving_run_expected_share", "serving_runs_stat", "serving_runs_count",
           "serving_runs_publishers"]
