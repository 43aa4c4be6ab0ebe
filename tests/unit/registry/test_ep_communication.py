"""DeepEP's published all-to-all table and a balancer figure: read as sourced, refused in one line when bad."""

import re
from tests.conftest import ROOT

import pytest

from roofline.errors import SpecError
from roofline.model import parallel
from roofline.registry import ep_communication as ep

SRC = ROOT / "src" / "roofline" / "data" / "ep_communication.toml"


def test_deepep_rows_as_published():
    rows = ep.ep_measurements()
    # DeepEP legacy performance tables: normal kernels 153 GB/s NVLink (intranode EP8), 43 GB/s RDMA (internode EP16);
    # low-latency dispatch of 128 tokens per rank at EP16 in 118 us
    assert rows["deepep-normal-intranode-dispatch-ep8"].measured_bytes_per_s == 153e9
    assert rows["deepep-normal-internode-dispatch-ep16"].measured_bytes_per_s == 43e9
    assert rows["deepep-low-latency-dispatch-ep16"].measured_latency_s == pytest.approx(118e-6)
    assert all(r.source_url.startswith("https://github.com/deepseek-ai/DeepEP") for r in rows.values())
    # the expected efficiencies: 153 GB/s of the H800's 200 GB/s NVLink, 43 of its 50 GB/s NIC
    assert parallel.ep_expected_efficiency() == pytest.approx((0.765, 0.86))


def test_low_latency_bandwidth_is_bytes_over_time():
    # DeepEP's low-latency dispatch: 128 tokens × 8 experts × 7168 fp8 bytes (+ one fp32 scale per 128
    # values: 56 × 4 = 224 B) = 7,569,408 bytes in 118 us = 64 GB/s, the 63 GB/s the table prints
    r = ep.ep_measurements()["deepep-low-latency-dispatch-ep16"]
    assert 128 * 8 * (7168 + 224) / r.measured_latency_s == pytest.approx(r.measured_bytes_per_s, rel=0.03)


def test_balancer_example_is_a_lower_bound_on_imbalance():
    b = ep.balancer_examples()["sglang-lplb-deepseek"]
    assert b.imbalance_at_least >= b.speedup >= 1


@pytest.mark.parametrize("old, new, message", [
    ("measured_GB_per_s = 153", "measured_GB_per_s = 0", "field 'measured_GB_per_s' must be positive"),
    ('kernel = "normal"', 'kernel = "fast"', "field 'kernel' must be one of normal, low-latency"),
    ('device = "h800-sxm"', 'device = "h900"', "field 'device' unknown hardware 'h900'"),
])
def test_bad_rows_refused_in_one_line(tmp_path, monkeypatch, old, new, message):
    f = tmp_path / "ep_communication.toml"
    f.write_text(SRC.read_text().replace(old, new, 1))
    monkeypatch.setenv("ROOFLINE_EP_COMMUNICATION", str(f))
    ep.REGISTRY.cache_clear()
    try:
        with pytest.raises(SpecError, match=re.escape(message)) as err:
            ep.ep_measurements()
        assert "\n" not in str(err.value)
        if isinstance(err.value, SpecError):
            assert "ep_communication.toml" in str(err.value)
    finally:
        ep.REGISTRY.cache_clear()
