"""Every published serving run against the expected figure for it, log-log, with the ±25 % band.

One point per run in src/roofline/data/measurements.toml: its expected output tokens/s per device
(every kernel at its published efficiency plus the engine's per-step overhead; fitted to kernel
benchmarks only) on x, the published figure on y. On the diagonal the expected figure is exact.
"""

from __future__ import annotations

from figures_gen import Table, log_ticks
from roofline import format as fmt, validation

NAME = "expected-vs-published"
COLOURS = {"Llama dense": "#3f51b5", "Qwen3 MoE": "#d81b60"}
OTHER = "#00897b"
MARKERS = {"TensorRT-LLM": "o", "vLLM": "s"}
BAND = validation.NARROW_BAND
#: Its data is every published run's ceiling (`validation.judged`), which the pages quote too: a site
#: build with figure workers works them out once, in its own process, and hands them to this figure.
USES_RUN_CEILINGS = True


def data() -> Table:
    rows = []
    for c in validation.judged():
        r = c.run
        rows.append((r.id, r.engine, validation.family(r.model), r.weight_format, r.device.name,
                     c.expected_tokens_per_s / r.devices, r.output_tokens_per_s_per_device,
                     c.ceiling_tokens_per_s / r.devices))
    return Table(("id", "engine", "family", "weight_format", "device", "expected_tokens_per_s_per_device",
                  "published_tokens_per_s_per_device", "ceiling_tokens_per_s_per_device"), tuple(rows))


def draw(fig, table: Table) -> None:
    ax = fig.add_subplot()
    x, y = table.column("expected_tokens_per_s_per_device"), table.column("published_tokens_per_s_per_device")
    lo, hi = min(min(x), min(y)) / 1.6, max(max(x), max(y)) * 1.6
    ax.loglog([lo, hi], [lo, hi], "-", color="#212121", lw=1, label="published = expected")
    ax.fill_between([lo, hi], [lo * (1 - BAND), hi * (1 - BAND)], [lo * (1 + BAND), hi * (1 + BAND)],
                    color="#9e9e9e", alpha=0.25, lw=0, label=f"within ±{fmt.percent(BAND)}")
    seen = set()
    for eng, fam, xi, yi in zip(table.column("engine"), table.column("family"), x, y):
        key = (eng, fam)
        ax.loglog([xi], [yi], MARKERS.get(eng, "^"), color=COLOURS.get(fam, OTHER), ms=4.5, alpha=0.85,
                   mec="white", mew=0.4, label=f"{eng}, {fam}" if key not in seen else None)
        seen.add(key)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    log_ticks(ax, "x", [])
    log_ticks(ax, "y", [])
    ax.set_xlabel("expected output tokens/s per GPU (log)")
    ax.set_ylabel("published output tokens/s per GPU (log)")
    ax.legend(loc="upper left", frameon=False, fontsize=7)


def alt() -> str:
    s = validation.overall()
    return (f"Log-log scatter of published against expected output tokens/s per GPU, one point per published "
            f"serving run ({s.count} runs), with the diagonal and a grey band of ±{fmt.percent(BAND)} around it. "
            f"{fmt.percent(s.within_25)} of the runs fall inside the band; the median run reached "
            f"{fmt.sig(s.median_ratio, 2)} times its expected figure, and the geometric-mean error is "
            f"{fmt.sig(s.geo_mean_error, 3)}×.")


def caption() -> str:
    s = validation.overall()
    return (f"Published serving runs against the expected figure for each (every kernel at its efficiency from "
            f"published kernel benchmarks, plus the engine's per-step overhead; no serving run was used to fit it). "
            f"Grey: within ±{fmt.percent(BAND)}, where {fmt.percent(s.within_25)} of the runs fall.")
