"""Benchmark of the calculator: median time of one recompute + redraw in Chromium.

`measure_recompute(page)` drives an open calculator page (Playwright) with input events and
times each with performance.now(): the input handler recomputes both configurations, rewrites
the table and redraws the SVG synchronously, and a layout read forces the browser to lay the
result out. `python -m tools.bench_calculator` builds the site, serves it and prints
the numbers as JSON; `make bench` can call `main()`.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path

#: JavaScript run in the page: n input events on configuration A's batch field, one timing each.
_BENCH_JS = """
(n) => {
  const root = document.querySelector('.rl-calc[data-rl-ready]');
  const input = root.querySelector('.rl-calc-config [name=batch]');
  const chart = root.querySelector('.rl-calc-chart');
  const times = [];
  for (let i = 0; i < n; i++) {
    input.value = String(1 + ((i * 37) % 2048));
    const t0 = performance.now();
    input.dispatchEvent(new Event('input', { bubbles: true }));
    chart.getBoundingClientRect();
    root.querySelector('.rl-calc-results').getBoundingClientRect();
    times.push(performance.now() - t0);
  }
  return times;
}
"""


def measure_recompute(page, events: int = 200) -> dict:
    """Median, 95th percentile and max (ms) of one recompute + redraw over `events` input events."""
    page.wait_for_selector(".rl-calc[data-rl-ready]")
    times = page.evaluate(_BENCH_JS, events)
    ordered = sorted(times)
    return {"events": len(times), "median_ms": statistics.median(times),
            "p95_ms": ordered[int(0.95 * (len(ordered) - 1))], "max_ms": ordered[-1]}


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    from tests.support.browser import CHROMIUM, CHROMIUM_FLAGS, build_site  # the test suite's build and browser
    from tools.server import serve

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        proc = build_site(site)
        if proc.returncode != 0:
            print(proc.stderr[-2000:], file=sys.stderr)
            return 1
        with serve(site) as base, sync_playwright() as p:
            ctx = p.chromium.launch_persistent_context(str(Path(tmp) / "profile"), executable_path=CHROMIUM,
                                                       headless=True, args=CHROMIUM_FLAGS)
            page = ctx.new_page()
            page.goto(f"{base}calculator/")
            result = measure_recompute(page)
            ctx.close()
    print(json.dumps({"calculator_recompute": result}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
