"""Properties of the roofline that must hold for any chip and any intensity (hypothesis)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from roofline.registry.hardware import devices, get_device
from roofline.model.kernels import WEIGHT_MATMULS, critical_batch, decode, whole_step_crossing_batch
from roofline.registry.models import get_model
from roofline.model.roofs import attainable_flop_per_s, bound, ridge_point

peaks = st.floats(1e9, 1e17)
bws = st.floats(1e8, 1e14)
ais = st.floats(0, 1e6)


@given(peaks, bws, ais)
def test_attainable_is_the_min_of_the_roofs(peak, bw, ai):
    got = attainable_flop_per_s(ai, peak, bw)
    assert got <= peak and got <= bw * ai * (1 + 1e-12)
    assert got == min(peak, bw * ai)


@given(peaks, bws, ais, ais)
def test_attainable_is_monotone(peak, bw, a, b):
    lo, hi = sorted((a, b))
    assert attainable_flop_per_s(lo, peak, bw) <= attainable_flop_per_s(hi, peak, bw)


@given(peaks, bws)
def test_bound_flips_exactly_at_the_ridge(peak, bw):
    r = ridge_point(peak, bw)
    assert bound(r, r) == "compute-bound"
    assert bound(np.nextafter(r, 0), r) == "memory-bound"
    # At the ridge both roofs give the same FLOP/s.
    assert attainable_flop_per_s(r, peak, bw) == pytest.approx(peak, rel=1e-12)


def test_sweep_is_one_vectorised_call():
    m, h = get_model("llama-3.1-8b"), get_device("h100-sxm5")
    batches = np.arange(1, 4097)
    s = decode(m, h, batches)  # one token cached
    assert s.arithmetic_intensity.shape == (4096,)
    scalar = [decode(m, h, int(b)).arithmetic_intensity for b in (1, 100, 4096)]
    assert np.allclose(s.arithmetic_intensity[[0, 99, 4095]], scalar)
    assert np.all(np.diff(s.arithmetic_intensity) > 0)


@pytest.mark.parametrize("device_id", list(devices()))
def test_critical_batch_is_where_the_weight_matmuls_cross_the_ridge(device_id):
    # The sources' critical batch: the weight matmuls' FLOPs ÷ weight bytes reach the ridge.
    m, h = get_model("llama-3.1-8b"), get_device(device_id)
    b = critical_batch(m, h)
    assert b is not None

    def weights_only_intensity(batch):
        mm = [k for k in decode(m, h, batch).ops if k.name in WEIGHT_MATMULS]
        return sum(k.flops for k in mm) / sum(k.weight_bytes for k in mm)

    ridge = decode(m, h).ridge_point
    assert weights_only_intensity(b) >= ridge
    if b > 1:
        assert weights_only_intensity(b - 1) < ridge


def test_long_context_whole_step_never_reaches_the_ridge_on_h100():
    # At 32k cached tokens each sequence reads 32768 × 131072 B = 4.3 GB of KV per step for
    # ~16 GFLOP of matmuls + attention: whole-step intensity tends to attention's (about 4),
    # far below 295, though the matmuls alone cross it at the critical batch.
    m, h = get_model("llama-3.1-8b"), get_device("h100-sxm5")
    assert whole_step_crossing_batch(m, h, 32768) is None
    assert critical_batch(m, h) is not None


def test_batch1_decode_memory_bound_on_every_device():
    m = get_model("llama-3.1-8b")
    for d in devices().values():
        assert decode(m, d).bound == "memory-bound", d.id
