"""`make bench`'s report (tools/bench.py): a Lighthouse run under 100 says what it lost its points on."""

from __future__ import annotations

from tools import bench

CATEGORIES_AT_100 = {"performance": 100, "accessibility": 100, "best-practices": 100, "seo": 100}


def _run(performance: int, failing: list[str], tbt: str) -> dict:
    return {"scores": {**CATEGORIES_AT_100, "performance": performance}, "failing": failing,
            "metrics": {"total-blocking-time": tbt, "cumulative-layout-shift": "0"}}


def test_the_median_run_is_reported_and_every_run_keeps_its_metrics():
    runs = [_run(100, [], "10 ms"), _run(99, ["performance: Total Blocking Time (0.97)"], "120 ms"), _run(100, [], "0 ms")]
    chosen = bench.median_lighthouse(runs)
    # sorted by performance: 99, 100, 100 -> the middle one scores 100
    assert chosen["scores"]["performance"] == 100
    assert [r["performance"] for r in chosen["runs"]] == [100, 99, 100]
    assert [d["metrics"]["total-blocking-time"] for d in chosen["run_details"]] == ["10 ms", "120 ms", "0 ms"]
    lines = bench.lighthouse_lines({"pages": {"home": {"path": "index.html", **chosen}}})
    under = [line for line in lines if line.startswith("Runs under 100")]
    assert under == ["Runs under 100, with the audits that cost them points: home, run 2 (TBT 120 ms, CLS 0): "
                     "performance: Total Blocking Time (0.97)."]


def test_no_line_when_every_run_is_at_100():
    chosen = bench.median_lighthouse([_run(100, [], "10 ms")] * 3)
    lines = bench.lighthouse_lines({"pages": {"home": {"path": "index.html", **chosen}}})
    assert not any(line.startswith("Runs under 100") for line in lines)
