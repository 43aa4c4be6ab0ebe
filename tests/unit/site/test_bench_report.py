"""`make bench`'s report (tools/bench.py): a Lighthouse run under 100 says what it lost its points on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

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


def _report(seo: float) -> dict:
    return {"categories": {"seo": {"score": seo, "auditRefs": []}}, "audits": {}}


def test_lighthouse_runs_a_second_chrome_for_what_the_first_left_undone(monkeypatch, tmp_path):
    # The first Chrome refuses its port after one report (a Chrome that crashes mid-run ends in a
    # traceback and leaves itself running); the second does the other two. Each URL keeps its own report.
    calls = []

    def fake_run(cmd, **kwargs):
        out, todo = cmd[2], cmd[5:]
        calls.append(todo)
        done = todo[:1] if len(calls) == 1 else todo
        for j, url in enumerate(done):
            Path(out, f"{j}.json").write_text(json.dumps(_report(int(url[-1]) / 10)))
        return subprocess.CompletedProcess(cmd, 0 if len(calls) > 1 else 1, "", "Error: connect ECONNREFUSED")

    monkeypatch.setattr(bench.subprocess, "run", fake_run)
    results = bench.lighthouse_many(["http://x/7", "http://x/8", "http://x/9"], categories=("seo",), workdir=tmp_path)
    assert calls == [["http://x/7", "http://x/8", "http://x/9"], ["http://x/8", "http://x/9"]]
    assert [r["scores"]["seo"] for r in results] == [70, 80, 90]


def test_lighthouse_that_fails_twice_says_which_pages(monkeypatch, tmp_path):
    monkeypatch.setattr(bench.subprocess, "run",
                        lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1, "", "Error: connect ECONNREFUSED"))
    with pytest.raises(RuntimeError) as err:
        bench.lighthouse_many(["http://x/1"], categories=("seo",), workdir=tmp_path)
    assert str(err.value) == "lighthouse failed twice on http://x/1: Error: connect ECONNREFUSED"


@pytest.mark.parametrize("value", ["x", "-1", "2.5", "0"])
def test_a_run_count_that_is_no_whole_number_is_refused_in_a_sentence(monkeypatch, value):
    monkeypatch.setenv("BENCH_RUNS", value)
    with pytest.raises(RuntimeError, match=r"^BENCH_RUNS='.*' is not a whole number of at least 1$"):
        bench._env_count("BENCH_RUNS", 3)


def test_a_run_count_unset_or_given_is_read(monkeypatch):
    monkeypatch.delenv("BENCH_RUNS", raising=False)
    assert bench._env_count("BENCH_RUNS", 3) == 3
    monkeypatch.setenv("BENCH_RUNS", "7")
    assert bench._env_count("BENCH_RUNS", 3) == 7


def test_the_report_gives_the_date_the_machine_each_target_and_the_raw_runs():
    from tests.conftest import ROOT
    raw = json.loads((ROOT / "reports" / "bench.json").read_text(encoding="utf-8"))
    raw["machine"] = {**raw["machine"], "date_utc": "2026-01-02 03:04", "cpu_model": "Test CPU"}
    raw["builds"] = {**raw["builds"], "clean_ratio_vs_stock": 2.5,  # over its 2x target
                     "runs": {**raw["builds"]["runs"], "ours_clean_s": [2.0, 3.5, 2.25]}}
    text = bench.markdown_report(raw, {"pages": {}})
    assert "Date: 2026-01-02 03:04 UTC" in text and "Test CPU" in text
    assert "| warm clean build ÷ stock Material | 2.5× | ≤ 2× | **not met** |" in text
    assert "| no-change rebuild ÷ stock Material |" in text and "| met |" in text
    assert "2 / 3.5 / 2.25" in text  # every run, not only the median
