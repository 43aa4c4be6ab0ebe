"""The timing protocol: one warm-up call, then repetitions until a deadline, with a progress bar."""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any, Callable

from roofline.registry.machine import MAX_REPS, MIN_REPS


class Progress:
    """A tiny time-based progress bar on stderr: `[#####-----]  48% triad`.

    On a terminal it redraws one line; elsewhere (logs, CI) it prints one line per phase.
    """

    WIDTH = 28

    def __init__(self, budget_s: float, stream=None, enabled: bool = True):
        self.budget_s, self.start = budget_s, time.perf_counter()
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last_phase = None

    def update(self, phase: str, detail: str = "") -> None:
        if not self.enabled:
            return
        frac = min((time.perf_counter() - self.start) / self.budget_s, 1.0)
        filled = int(round(frac * self.WIDTH))
        line = f"[{'#' * filled}{'-' * (self.WIDTH - filled)}] {frac * 100:3.0f}% {phase}"
        if self.tty:
            self.stream.write("\r" + f"{line} {detail}".ljust(self.WIDTH + 50))
            self.stream.flush()
        elif phase != self._last_phase:
            self.stream.write(line + "\n")
        self._last_phase = phase

    def note(self, text: str) -> None:
        """A line of its own (for example, why the GPU part was skipped)."""
        if self.enabled:
            self.stream.write(("\n" if self.tty else "") + text + "\n")

    def done(self) -> None:
        if self.enabled:
            self.update("done")
            if self.tty:
                self.stream.write("\n")
            self.stream.flush()


def repeat(fn: Callable[[], None], deadline: float, progress: Progress, phase: str,
            hard_end: float | None = None) -> list[float]:
    """Time `fn` after one warm-up call until `deadline`, at most MAX_REPS times.

    At least MIN_REPS repetitions run, unless that would pass `hard_end` (the end of the
    whole budget): on a busy machine the time bound wins and fewer repetitions are recorded.
    """
    hard_end = deadline if hard_end is None else hard_end
    progress.update(phase, "warm-up")
    fn()  # warm-up: page faults, thread start, BLAS buffers
    times: list[float] = []
    while len(times) < MAX_REPS:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        progress.update(phase, f"rep {len(times)}")
        mean = sum(times) / len(times)
        next_end = time.perf_counter() + mean
        if next_end > deadline and (len(times) >= MIN_REPS or next_end > hard_end):
            break
    return times


def summary(times: list[float], work: float, unit: str) -> dict[str, Any]:
    """Median and best rate for `work` units per call (bytes or FLOPs)."""
    rates = [work / t for t in times]
    return {f"median_{unit}": statistics.median(rates), f"best_{unit}": max(rates),
            "reps": len(times), "times_s": [round(t, 6) for t in times]}
