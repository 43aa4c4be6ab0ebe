"""Edit a spec, rebuild: every dependent number and figure changes, or the build names the broken claim.

Two strict builds against edited copies of hardware.toml (ROOFLINE_HARDWARE points at the copy).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.conftest import ROOT
from tests.support.browser import build_site
from tests.support.site_helpers import visible_text, with_h100_bandwidth




def _edited_hardware(tmp_path: Path, new_bandwidth: str) -> Path:
    text = (ROOT / "src" / "roofline" / "data" / "hardware.toml").read_text(encoding="utf-8")
    path = tmp_path / "hardware.toml"
    path.write_text(with_h100_bandwidth(text, new_bandwidth), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def faster_h100_site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("spec-change")
    spec = _edited_hardware(tmp, "4.0")
    dest = tmp / "site"
    proc = build_site(dest, {"ROOFLINE_HARDWARE": str(spec)})
    if proc.returncode != 0:
        pytest.fail(f"build with the H100 at 4.0 TB/s failed:\n{proc.stderr[-3000:]}", pytrace=False)
    return dest


def test_home_page_follows_the_new_h100_bandwidth(faster_h100_site):
    text = visible_text((faster_h100_site / "index.html").read_text(encoding="utf-8"))
    # 989.4 TFLOP/s ÷ 4.0 TB/s = 247.35 FLOP/byte
    assert "247 FLOP/byte" in text
    assert "295 FLOP/byte" not in text and "295.3 FLOP/byte" not in text, "a stale H100 ridge survived"
    assert "4 TB/s" in text and "3.35 TB/s" not in text


def test_h100_figure_changed(faster_h100_site):
    from figures_gen import render

    svg, csv_text = render("h100_roofline")  # the bundled registry, in this process
    stem = "h100-roofline"
    new_csv = (faster_h100_site / "figures" / f"{stem}.csv").read_text(encoding="utf-8")
    new_svg = (faster_h100_site / "figures" / f"{stem}.svg").read_bytes()
    assert new_csv != csv_text and new_svg != svg
    # at intensity 1 the bandwidth roof now gives 4 TFLOP/s
    rows = [line.split(",") for line in new_csv.splitlines()[1:]]
    at_one = next(float(y) for x, y in rows if abs(float(x) - 1.0) < 1e-9)
    assert at_one == pytest.approx(4.0e12)
    assert "295 FLOP/byte" not in new_svg.decode() and "247 FLOP/byte" in new_svg.decode()


def test_a_falsified_claim_fails_the_build_naming_page_and_claim(tmp_path):
    # 989.4 / 1.6 = 618.4 FLOP/byte: a 512-token prefill (intensity ≈ 433) is memory-bound on it.
    # (1.6 keeps the ridge rounding down, so the home page's earlier rounding claim still holds.)
    spec = _edited_hardware(tmp_path, "1.6")
    proc = build_site(tmp_path / "site", {"ROOFLINE_HARDWARE": str(spec)})
    assert proc.returncode != 0, "the build passed although a guarded claim is false"
    out = proc.stdout + proc.stderr
    assert "claim no longer holds" in out
    assert "index.md" in out
    assert "compute-bound on the H100 SXM5" in out
    assert "Traceback" not in out
