"""`make bench`'s section on the expected figure: the statistics against the targets, and by how much
a target is missed, from a report dict built by hand."""

from __future__ import annotations

from tools import bench


def _report(within_25: float, geo: float) -> dict:
    stats = {"count": 3, "median_ratio": 0.8, "within_25": within_25, "within_50": 1.0, "geo_mean_error": geo}
    return {"runs": 3, "overall": stats, "targets": {"within_25": 0.8, "geo_mean_error": 1.15},
            "meets": {"within_25": within_25 >= 0.8, "geo_mean_error": geo <= 1.15, "runs_above_ceiling": True,
                      "expected_above_ceiling": True},
            "short_by": {"within_25": max(0.8 - within_25, 0.0), "geo_mean_error": max(geo - 1.15, 0.0)},
            "runs_above_ceiling": [], "expected_above_ceiling": [],
            "groups": {"engine": {"vLLM": stats}}, "worst": [{"id": "r1", "ratio": 0.5, "reason": "why"}]}


def test_a_missed_target_says_by_how_much():
    # Two of three runs within ±25 %: 66.7 %, short of 80 % by 13.3 points; an error of ×1.357 is ×1.357 ÷ ×1.15
    # = ×1.18 over its target.
    text = "\n".join(bench.expected_lines(_report(2 / 3, 1.357)))
    assert "| within ±25 % | 66.7% | ≥ 80% | missed, short by 13.3% of the runs |" in text
    assert "| geometric-mean error | ×1.357 | ≤ ×1.15 | missed, over by ×1.18 |" in text
    assert "| engine: vLLM | 3 |" in text and "`r1` at 0.50 (why)" in text


def test_a_met_target_says_met():
    text = "\n".join(bench.expected_lines(_report(0.9, 1.1)))
    assert "| within ±25 % | 90.0% | ≥ 80% | met |" in text and "| ×1.100 | ≤ ×1.15 | met |" in text
