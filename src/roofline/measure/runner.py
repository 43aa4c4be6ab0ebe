"""One measurement run: probe the machine, time each kernel within its share of the budget, return the record.

Every kernel gets one warm-up call, then repetitions until its share of the time
budget is spent (at least three while the whole budget allows); the median and the best are reported.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from roofline.measure.kernels import measure_bandwidth, measure_gpu, measure_matmul, stream_array_bytes
from roofline.measure.probe import machine_info, usable_cpus
from roofline.measure.timing import Progress
from roofline.registry.machine import DEFAULT_BUDGET_S, MAX_REPS, MIN_REPS, QUICK_BUDGET_S, SCHEMA

#: Share of the time budget each kernel may use (the rest covers allocation and start-up).
BUDGET_SHARES = {"copy": 0.17, "triad": 0.2, "fp64": 0.22, "fp32": 0.22}


def over_budget(elapsed_s: float, budget_s: float) -> str:
    """The line a run that outlasted its budget prints.

    >>> over_budget(5.16, 2.0)
    'The run took 5.2 s, over its 2 s budget: allocating and first touching the arrays is not cut short (see NUMPY_MADVISE_HUGEPAGE in the docs).'
    """
    return (f"The run took {elapsed_s:.1f} s, over its {budget_s:g} s budget: allocating and first touching the "
            "arrays is not cut short (see NUMPY_MADVISE_HUGEPAGE in the docs).")


def run(quick: bool = False, budget_s: float | None = None, label: str = "", note: str = "",
        progress: Progress | None = None) -> dict[str, Any]:
    """Measure bandwidth and GEMM FLOP/s on this machine; return the JSON document."""
    budget = budget_s or (QUICK_BUDGET_S if quick else DEFAULT_BUDGET_S)
    gpu_budget = 0.15 * budget
    progress = progress or Progress(budget)
    t_start = time.perf_counter()
    cpu_end = t_start + 0.92 * (budget - gpu_budget)  # headroom for the last repetition's overshoot
    pending = list(BUDGET_SHARES)

    def deadline(name: str) -> float:
        """This phase's share of the time left, so time a fast phase leaves unused passes on."""
        now = time.perf_counter()
        left = sum(BUDGET_SHARES[p] for p in pending)
        pending.remove(name)
        return now + max(cpu_end - now, 0.0) * BUDGET_SHARES[name] / left

    threads = usable_cpus()
    progress.update("probing the machine")
    machine = machine_info()
    progress.update("allocating arrays")
    bandwidth = measure_bandwidth(stream_array_bytes(quick), threads, deadline, progress, cpu_end)
    target = 0.05 if quick else 0.3
    min_n = 512 if quick else 2048
    matmul = {name: measure_matmul(name, target, deadline(name), progress, min_n, cpu_end)
              for name in ("fp64", "fp32")}
    gpu = measure_gpu(quick, gpu_budget, progress)
    if "skipped" in gpu:
        progress.note(f"GPU: skipped: {gpu['skipped']}.")
    elapsed_s = time.perf_counter() - t_start
    if elapsed_s > budget:  # said, not hidden: allocating the arrays cannot be cut short
        progress.note(over_budget(elapsed_s, budget))
    progress.done()
    from roofline import __version__

    return {
        "schema": SCHEMA,
        "label": label or machine["cpu_model"],
        "note": note,
        "created_utc": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
        "roofline_version": __version__,
        "settings": {"quick": quick, "budget_s": budget, "elapsed_s": round(elapsed_s, 3),
                     "warmup_calls": 1, "min_reps": MIN_REPS, "max_reps": MAX_REPS},
        "machine": machine,
        "bandwidth": bandwidth,
        "matmul": matmul,
        "gpu": gpu,
    }
