"""Benchmark of the calculator: median time of one recompute + redraw in Chromium, for one step
and for the Serving mode's full frontier.

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


#: The Serving mode: n input events on its input-tokens field. Each new I moves the memory caps, so
#: every event recomputes a full frontier (every layout within the device's scale-up domain ×
#: concurrency 1…each layout's memory cap, caps included) and redraws its chart, table and legend.
_SERVE_JS = """
(n) => {
  const root = document.querySelector('.rl-calc[data-rl-ready]');
  const section = root.querySelector('.rl-calc-serve');
  const input = section.querySelector('[name=in]');
  const chart = section.querySelector('.rl-calc-fchart');
  const times = [];
  for (let i = 0; i < n; i++) {
    input.value = String(1000 + i);
    const t0 = performance.now();
    input.dispatchEvent(new Event('input', { bubbles: true }));
    chart.getBoundingClientRect();
    section.querySelector('.rl-calc-sresults').getBoundingClientRect();
    times.push(performance.now() - t0);
  }
  const lines = [...chart.querySelectorAll('polyline[data-layout]')];
  return { times, layouts: lines.length, points: lines.reduce((n, l) => n + l.points.numberOfItems, 0) };
}
"""

#: The frontier the Serving benchmark opens: Llama 3.1 70B in FP8 on the H100 SXM5 (I 1024, O 256),
#: the package benchmark's (tools/bench.py serving_frontier).
SERVE_QUERY = "?mode=serve&s_model=llama-3.1-70b&s_hw=h100-sxm5&s_in=1024&s_out=256&s_wd=fp8&s_act=fp8&s_kvd=fp8"


def measure_serving(page, events: int = 100) -> dict:
    """Median, 95th percentile and max (ms) of one Serving-mode recompute + redraw of a full frontier."""
    page.wait_for_selector(".rl-calc-serve:not([hidden]) .rl-calc-fchart polyline")
    out = page.evaluate(_SERVE_JS, events)
    times = out["times"]
    ordered = sorted(times)
    return {"events": len(times), "median_ms": statistics.median(times), "min_ms": ordered[0],
            "p95_ms": ordered[int(0.95 * (len(ordered) - 1))], "max_ms": ordered[-1], "layouts": out["layouts"],
            "points": out["points"],
            "target_median_ms": 16}


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
            page.goto(f"{base}calculator/{SERVE_QUERY}")
            serve_result = measure_serving(page)
            ctx.close()
    print(json.dumps({"calculator_recompute": result, "serving_frontier_recompute": serve_result}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
