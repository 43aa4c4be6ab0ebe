"""The service model (roofline.model.serving): values derived by hand in the comments.

A toy model on a made-up device keeps the arithmetic short enough to do on paper.

Toy model: 2 layers, hidden d = 4, one query head and one KV head of head_dim 4 (q = kv = 4),
a plain (ungated) MLP of width f = 8, vocabulary V = 8, tied embeddings, bf16 everywhere.
FLOPs per token per layer (the site's conventions, docs/conventions.md):
  two RMSNorms 2·4·4 = 32; QKV 2·4·(4 + 2·4) = 96; output projection 2·4·4 = 32; two adds 2·4 = 8;
  up 2·4·8 = 64; activation 2·8 = 16; down 2·8·4 = 64                         → 312 per layer
  → 624 per token over 2 layers, + the final norm 4·4 = 16                    → 640 per token.
Attention: (2·(4 + 4) + 5) = 21 FLOPs per query-key pair (QKᵀ, P·V, softmax), pairs summed over layers.
Output head: 2·4·8 = 64 FLOPs per position whose logits are computed.
So a step of T tokens, P layer-summed pairs and H logit rows does 640·T + 21·P + 64·H FLOPs.

Made-up device: 1e6 FLOP/s at bf16 and fp32 (matmuls and vector units alike) and 1e18 B/s, so
every kernel but the embedding lookup (no FLOPs, 16 bytes a token: 1.6e-17 s) is compute-bound
and a step takes its FLOPs ÷ 1e6 (to 1e-12 relative).
Memory: weights 616 B (QKV 4·12·2 = 96, output 4·4·2 = 32, norms 2·4·2 = 16, up and down
2·(4·8·2) = 128 per layer → 272·2 = 544; the tied table 8·4·2 = 64; the final norm 8);
KV 2 layers · (K + V) 8 values · 2 B = 32 B per token; activations at a decode batch b: the
activation kernel's 16 + 16 B a token plus the residual 8 B a token = 40·b B. Capacity: the
2 GiB runtime reserve + 2,516 B.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import doctest
import json
import math

import pytest

from roofline import InputError, ServicePoint, Workload, best_under_targets, frontier, offline_max, pareto, serve_point
from roofline.cli import main
from roofline.model import kernels, measured, serving
from roofline.model.formats import Formats
from roofline.model.parallel import Layout
from roofline.registry.hardware import Device, get_device
from roofline.registry.models import Model, get_model

TOY = Model(id="toy", name="Toy", n_layers=2, hidden_size=4, n_heads=1, kv_heads=1, head_dim=4, ffn_size=8,
            gated_ffn=False, vocab_size=8, tied_embeddings=True)
TOY_DEVICE = Device(id="toy-dev", name="Toy device", vendor="", kind="", memory_type="",
                    memory_capacity_bytes=kernels.RUNTIME_RESERVE_BYTES + 2516, memory_bandwidth_bytes_per_s=1e18,
                    dense_peak_flop_per_s={"bf16": 1e6, "fp32": 1e6}, source_url="", source_title="", note="",
                    confidence="", checked=dt.date(2026, 1, 1))


H100 = get_device("h100-sxm5")


def flops(T, P, H):
    return 640 * T + 21 * P + 64 * H


def test_one_mixed_step_ttft_and_tpot_by_hand():
    # I = 6, O = 4, chunk K = 4, concurrency 3, one device.
    # A prompt takes ⌈6/4⌉ = 2 steps; a request is 2 + (4 − 1) = 5 steps in the engine.
    # λ = 3/5 = 0.6 requests a step (the chunk allows 4/6 ≈ 0.667: not binding).
    # Decode tokens d = 0.6·3 = 1.8; prefill tokens p = 0.6·6 = 3.6; T = 5.4; logit rows H = 1.8 + 0.6 = 2.4.
    # Pairs: a decode token attends to I + O/2 = 8 positions on average (7, 8, 9) → 2 layers · 8 = 16 each
    # → 1.8·16 = 28.8; a prompt's causal pairs 2 · 6·7/2 = 42 → 0.6·42 = 25.2; P = 54.
    # FLOPs = 640·5.4 + 21·54 + 64·2.4 = 3456 + 1134 + 153.6 = 4743.6 → t = 4.7436 ms.
    p = serve_point(TOY, TOY_DEVICE, Layout(), Workload(6, 4, 3, chunk_tokens=4))
    t = flops(5.4, 54, 2.4) / 1e6
    assert t == pytest.approx(4.7436e-3, rel=1e-12)
    assert p.step_time_s == pytest.approx(t, rel=1e-9)
    assert p.tpot_s == pytest.approx(t, rel=1e-9)
    assert p.ttft_s == pytest.approx(2 * t, rel=1e-9)               # two chunks, no wait (3 slots free)
    assert p.request_latency_s == pytest.approx(5 * t, rel=1e-9)    # 2 + 3 steps
    assert p.output_tokens_per_s == pytest.approx(0.6 * 4 / t, rel=1e-9)  # λ·O ÷ t = 505.94…
    assert p.output_tokens_per_s_per_user == pytest.approx(1 / t, rel=1e-9)
    assert p.running == pytest.approx(3)
    assert p.bound == "compute"


def test_a_full_chunk_binds_only_where_a_larger_one_raises_throughput():
    # I = 6, O = 4, K = 4, concurrency 5: λ would be 5/5 = 1, but 4 prompt tokens a step admit
    # only 4/6 of a request: λ = 2/3, d = 2, p = 4, T = 6, H = 2 + 2/3; pairs (2/3)·42 + 2·16 = 60.
    # The engine holds λ·5 = 10/3 requests; the other 5/3 wait: 5 ÷ (2/3) = 7.5 steps in all,
    # 7.5 − 5 = 2.5 of them waiting, so TTFT = 2.5·t + its two chunk steps (each the full step t: above the
    # chunks' shares of the 4.786 ms prefill, 3.19 and 1.60 ms) = 4.5·t.
    # Does the chunk bind? A chunk a quarter larger, K = 5: λ = 5/6, d = 2.5, p = 5, T = 7.5, H = 2.5 + 5/6,
    # pairs (5/6)·42 + 2.5·16 = 75: 640·7.5 + 21·75 + 64·(10/3) = 6588.33 FLOPs for 5/6 of a request, where
    # K = 4 ran 5270.67 for 2/3: 1.25 × 5270.67 = 6588.33, the same FLOPs a request (every cost here is per
    # token), so output tokens/s does not move: the chunk does not bind. A quarter more FLOP/s raises it
    # by a quarter: compute binds.
    p = serve_point(TOY, TOY_DEVICE, Layout(), Workload(6, 4, 5, chunk_tokens=4))
    t = flops(6, 60, 2 + 2 / 3) / 1e6
    assert p.step_time_s == pytest.approx(t, rel=1e-9)
    assert p.ttft_s == pytest.approx(4.5 * t, rel=1e-9)
    assert p.running == pytest.approx(10 / 3)
    assert p.bound_gains["chunk"] == pytest.approx(0, abs=1e-9)
    assert p.bound_gains["compute"] == pytest.approx(0.25, rel=1e-9)
    assert p.bound == "compute" and p.bound_also == ()


def test_memory_cap_at_input_plus_output_tokens():
    # I + O = 10 tokens a request: KV 32·10 = 320 B, activations 40 B → 360 B a request beside
    # 616 B of weights and the reserve. 616 + 360·b ≤ 2,516 → b ≤ 5.28: five requests fit.
    # At I + O = 11 a request takes 392 B: b ≤ 4.85 → four.
    assert serving.memory_cap(TOY, TOY_DEVICE, Layout(), Workload(6, 4)) == 5
    assert serving.memory_cap(TOY, TOY_DEVICE, Layout(), Workload(7, 4)) == 4


def test_concurrency_past_the_memory_cap_waits_for_a_slot():
    # I = 6, O = 4, K = 8 (one chunk a prompt: 1 + 3 = 4 steps a request), concurrency 8, cap 5.
    # λ = 5/4 = 1.25 (the chunk allows 8/6); d = 3.75, p = 7.5, T = 11.25, H = 5;
    # pairs 3.75·16 + 1.25·42 = 112.5; FLOPs 7200 + 2362.5 + 320 = 9882.5 → t = 9.8825 ms.
    # A client waits 8 ÷ 1.25 = 6.4 steps in all: 2.4 for a slot, 1 for its prompt → TTFT 3.4·t.
    # (Every step carries a prompt: the fluid step, above the prompt's own 4.786 ms prefill.)
    # Memory holds the slots below the clients, yet room for a quarter more (7 slots) adds nothing: a request
    # costs 640·(6 + 3) + 21·(42 + 3·16) + 64·4 = 7906 FLOPs however many run, so output tokens/s stays at
    # 4 × 1e6 ÷ 7906; compute binds. The same for the reader's cap of 3.
    p = serve_point(TOY, TOY_DEVICE, Layout(), Workload(6, 4, 8, chunk_tokens=8))
    t = flops(11.25, 112.5, 5) / 1e6
    assert p.memory_cap == 5
    assert p.step_time_s == pytest.approx(t, rel=1e-9)
    assert p.ttft_s == pytest.approx(3.4 * t, rel=1e-9)
    assert p.tpot_s == pytest.approx(t, rel=1e-9)
    assert p.request_latency_s == pytest.approx(6.4 * t, rel=1e-9)
    assert p.output_tokens_per_s == pytest.approx(4e6 / 7906, rel=1e-9)
    assert p.bound_gains["memory"] == pytest.approx(0, abs=1e-9) and p.bound == "compute"
    capped = serve_point(TOY, TOY_DEVICE, Layout(), Workload(6, 4, 8, max_concurrency=3, chunk_tokens=8))
    assert capped.bound_gains["cap"] == pytest.approx(0, abs=1e-9) and capped.bound == "compute"


def test_cost_arithmetic():
    # $3.60 a device-hour is $0.001 a second. The first hand case makes 2.4 output and 3.6 input
    # tokens a step of 4.7436 ms: 0.001 × 4.7436e-3 ÷ 2.4 × 1e6 = $1.9765 per million output
    # tokens, ÷ 3.6 instead: $1.3177 per million input tokens.
    p = serve_point(TOY, TOY_DEVICE, Layout(), Workload(6, 4, 3, chunk_tokens=4, usd_per_device_hour=3.6))
    assert p.usd_per_million_output_tokens == pytest.approx(1.9765, rel=1e-9)
    assert p.usd_per_million_input_tokens == pytest.approx(4.7436 / 3.6, rel=1e-9)
    assert serve_point(TOY, TOY_DEVICE, Layout(), Workload(6, 4, 3, chunk_tokens=4)).usd_per_million_output_tokens is None


def test_offline_max_names_the_limit_whose_relaxation_raises_it():
    # Llama 3.1 8B in bf16 on one H100, I = 1024, O = 256: a request is 1 + 255 = 256 steps.
    # Memory: KV 128 KiB a token × 1280 tokens = 167.8 MB a request; the H100 exposes 81,559 MiB
    # = 85.52 GB, less 16.06 GB of weights and the 2.15 GB reserve: 67.3 GB ÷ 167.8 MB = 401 before
    # activations. The maximum sits at the cap, yet there every step carries 400/256 = 1.56 prompts
    # (1,600 prompt tokens, 2·8e9·1600 = 25.6 TFLOP, 26 ms at 989 TFLOP/s, against 16 GB of weights read in
    # 4.8 ms): compute-bound, so room for more requests adds steps in proportion and memory does not bind;
    # a quarter more FLOP/s binds.
    l8, wl = get_model("llama-3.1-8b"), Workload(1024, 256)
    cap = serving.memory_cap(l8, H100, Layout(), wl)
    assert 380 < cap <= 401
    o = offline_max(l8, H100, Layout(), wl)
    assert o.concurrency == cap and o.bound == "compute" and o.bound_gains["memory"] < serving.MIN_GAIN
    # Long answers, short prompts (I = 128, O = 2048): a request holds 128 KiB × 2176 = 285 MB, so 235
    # fit. The step reads the weights (16.06 GB) and the cache (235 × 128 KiB × (128 + 1024) = 35.5 GB):
    # 15.4 ms for 235 tokens. Room for a quarter more (293 requests) reads 16.06 + 44.3 GB: 18.0 ms for 293
    # tokens, (293/235)·(15.4/18.0) = 1.067: about 6.7 % more (the prompt steps take some back). Memory binds.
    o = offline_max(l8, H100, Layout(), Workload(128, 2048))
    assert o.concurrency == o.memory_cap and o.bound == "memory"
    assert 0.03 < o.bound_gains["memory"] < 0.067
    # the reader's cap of 100 binds first: 100 requests share one read of the weights, 125 would share it too
    o = offline_max(l8, H100, Layout(), Workload(1024, 256, max_concurrency=100))
    assert (o.concurrency, o.bound) == (100, "cap") and o.bound_gains["cap"] >= serving.MIN_GAIN
    # a chunk of 1024 admits one prompt a step: λ ≤ 1, reached at 1 × 256 = 256 requests; every step is a
    # full 1,024-token chunk, compute-bound, so a larger chunk lengthens the steps in proportion: not the chunk
    o = offline_max(l8, H100, Layout(), Workload(1024, 256, chunk_tokens=1024))
    assert o.concurrency == 256 and o.bound == "compute" and o.bound_gains["chunk"] < serving.MIN_GAIN


L70 = get_model("llama-3.1-70b")
FP8 = Formats.of("fp8", "fp8", "fp8")


@pytest.fixture(scope="module")
def points():
    return frontier(L70, H100, Workload(1024, 256, formats=FP8))


def test_frontier_curves_are_monotone(points):
    # Along one layout, more requests in flight never lower throughput per device (the weights
    # are read once for more tokens) and never raise tokens/s per user (each step grows).
    by_layout: dict[str, list[ServicePoint]] = {}
    for p in points:
        by_layout.setdefault(p.layout_name, []).append(p)
    assert {"TP2", "TP4", "TP8"} <= set(by_layout)
    for name, pts in by_layout.items():
        pts.sort(key=lambda p: p.concurrency)
        for a, b in zip(pts, pts[1:]):
            assert b.output_tokens_per_s_per_device >= a.output_tokens_per_s_per_device * (1 - 1e-12), name
            assert b.output_tokens_per_s_per_user <= a.output_tokens_per_s_per_user * (1 + 1e-12), name


def test_envelope_is_not_dominated(points):
    env = pareto(points)
    assert env
    for a in env:
        for b in points:
            assert not (b.output_tokens_per_s_per_device > a.output_tokens_per_s_per_device
                        and b.output_tokens_per_s_per_user > a.output_tokens_per_s_per_user)
    # every point off the envelope is matched or beaten on both axes by a point on it
    for b in points:
        assert any(a.output_tokens_per_s_per_device >= b.output_tokens_per_s_per_device
                   and a.output_tokens_per_s_per_user >= b.output_tokens_per_s_per_user for a in env)


def test_throughput_below_the_compute_roof(points):
    # A request sends I + O − 1 = 1279 tokens through every matmul (the prompt, then each output
    # token but the last) and scores the same causal pairs as a prefill of 1279 tokens, plus more
    # logit rows: at least a 1279-token prefill's FLOPs. No layout can run more requests a second
    # than devices × the fp8 peak ÷ those FLOPs, nor more output tokens than O times that.
    work = kernels.prefill(L70, H100, 1279, 1, FP8).flops
    for p in points:
        roof = p.devices * H100.peak_flop_per_s("fp8") / work * 256
        assert p.output_tokens_per_s <= roof
        assert p.expected_output_tokens_per_s <= p.output_tokens_per_s


def test_expected_figure_uses_the_registry_derates():
    # The derated device: bandwidth × the median measured bandwidth share, peaks × the median MAMF
    # share, link × the median NCCL share (each a median of the registry's published figures).
    d = measured.derated_device(H100)
    assert d.memory_bandwidth_bytes_per_s == pytest.approx(3.35e12 * measured.bandwidth_derate())
    assert d.peak_flop_per_s("fp8") == pytest.approx(H100.peak_flop_per_s("fp8") * measured.gemm_derate())
    # the NCCL ring figures: 370 of 450 GB/s (H100) and 200 of 300 GB/s (A100): median of 0.8222 and 0.6667
    assert measured.collective_derate() == pytest.approx((370 / 450 + 200 / 300) / 2)


def test_unmeetable_target_gets_its_sentence(points):
    # A 70B model in fp8 reads at least 70e9 bytes a token over 8 × 3.35 TB/s: TPOT ≥ 2.6 ms at
    # any layout; 1 ms cannot be met.
    answer = best_under_targets(points, tpot_s=1e-3)
    assert isinstance(answer, str)
    assert answer.startswith("nothing meets a TPOT of 1 ms") and "Llama" in answer and "8 devices" in answer
    assert "\n" not in answer
    ok = best_under_targets(points, tpot_s=0.05)
    assert isinstance(ok, ServicePoint) and ok.tpot_p99_s <= 0.05
    # the best is the highest throughput per device among those meeting it at p99, the default
    assert ok.output_tokens_per_s_per_device == max(p.output_tokens_per_s_per_device for p in points
                                                    if p.tpot_p99_s <= 0.05)
    on_mean = best_under_targets(points, tpot_s=0.05, tpot_percentile="mean")
    assert on_mean.output_tokens_per_s_per_device == max(p.output_tokens_per_s_per_device for p in points
                                                         if p.tpot_s <= 0.05)


@pytest.mark.parametrize("kwargs, option", [
    (dict(input_tokens=0, output_tokens=4), "--input-tokens"),
    (dict(input_tokens=-3, output_tokens=4), "--input-tokens"),
    (dict(input_tokens=1.5, output_tokens=4), "--input-tokens"),
    (dict(input_tokens=1e12, output_tokens=4), "--input-tokens"),
    (dict(input_tokens=4, output_tokens=1), "--output-tokens"),
    (dict(input_tokens=4, output_tokens=float("nan")), "--output-tokens"),
    (dict(input_tokens=4, output_tokens=4, concurrency=0), "--concurrency"),
    (dict(input_tokens=4, output_tokens=4, max_concurrency=2.5), "--max-concurrency"),
    (dict(input_tokens=4, output_tokens=4, chunk_tokens=0), "--chunk-tokens"),
    (dict(input_tokens=4, output_tokens=4, usd_per_device_hour=0), "--price-per-device-hour"),
    (dict(input_tokens=4, output_tokens=4, usd_per_device_hour=float("inf")), "--price-per-device-hour"),
    (dict(input_tokens=4, output_tokens=4, usd_per_device_hour=1e6), "--price-per-device-hour"),
    (dict(input_tokens=4, output_tokens=4, attention="flash"), "--attention"),
])
def test_bad_workloads_are_refused_in_one_sentence(kwargs, option):
    with pytest.raises(InputError) as err:
        Workload(**kwargs)
    assert str(err.value).startswith(option) and "\n" not in str(err.value)


def test_a_layout_that_does_not_fit_is_refused():
    # 70B in bf16 is 141 GB of weights: one 80 GB H100 cannot hold it
    with pytest.raises(InputError, match="does not fit one device"):
        serve_point(L70, H100, Layout(), Workload(1024, 256, 1))


def test_disaggregated_pools_in_balance_by_hand():
    # I = 6, O = 4, K = 8 on the toy device (no link: one device a pool, no KV copy time).
    # Prefill pool: full chunks of 8 tokens, λ = 8/6 = 4/3 prompts a step, pairs (4/3)·42 = 56, logit
    # rows 4/3: 640·8 + 21·56 + 64·4/3 = 6381.33 FLOPs → t_p = 6.38133 ms; (4/3) ÷ t_p prompts/s.
    # Decode pool at 3 requests: 3 tokens, pairs 3·16 = 48, rows 3: 1920 + 1008 + 192 = 3120 FLOPs
    # → TPOT 3.12 ms; it finishes 3 ÷ (O − 1) = 1 request a step = 1 ÷ 3.12 ms.
    # Prefill devices per decode device = (1 ÷ 3.12) ÷ ((4/3) ÷ 6.38133) = 6.38133 ÷ 4.16 = 1.53397.
    # Every cost here is per token (no weight reads to share), so splitting the phases changes nothing
    # per device: a request's FLOPs are 640·(6 + 3) + 21·(42 + 3·16) + 64·4 = 7906 whichever pool runs
    # them, so both serve 4 × 1e6 ÷ 7906 = 505.95 output tokens/s per device.
    pts = serving.disaggregated(TOY, TOY_DEVICE, Workload(6, 4, chunk_tokens=8))
    p = next(q for q in pts if q.concurrency == 3)
    t_p = flops(8, 56, 4 / 3) / 1e6
    assert p.tpot_s == pytest.approx(3.12e-3, rel=1e-9)
    # TTFT as co-located, one request with no contention: its prompt alone, 640·6 + 21·42 + 64 = 4786 FLOPs
    assert p.ttft_s == pytest.approx(4.786e-3, rel=1e-9)
    assert p.prefill_devices_per_decode_device == pytest.approx((1 / 3.12e-3) / ((4 / 3) / t_p), rel=1e-9)
    assert p.output_tokens_per_s_per_device == pytest.approx(4e6 / 7906, rel=1e-9)
    co = serve_point(TOY, TOY_DEVICE, Layout(), Workload(6, 4, 3, chunk_tokens=8))
    assert co.output_tokens_per_s_per_device == pytest.approx(4e6 / 7906, rel=1e-9)


def test_page_tokens_state_their_workload():
    from roofline.quantities import NAMESPACE as N

    q = N["svc"]("chat70", "tpot_s", 64, tp=4)
    for words in ("Llama 3.1 70B", "TP4", "concurrency 64", "I 1024", "O 256", "fp8"):
        assert words in q.label
    # the named workload is the same service as the explicit one
    assert float(q) == serve_point(L70, H100, Layout(tp=4), Workload(1024, 256, 64, formats=FP8)).tpot_s
    # cost through the token: price × devices ÷ 3600 ÷ tokens/s × 1e6
    usd = N["svc"]("chat70", "usd_per_million_output_tokens", 64, tp=4, price=2.0)
    tps = N["svc"]("chat70", "output_tokens_per_s", 64, tp=4)
    assert float(usd) == pytest.approx(2.0 * 4 / 3600 / float(tps) * 1e6, rel=1e-12)
    with pytest.raises(ValueError, match="price"):
        N["svc"]("chat70", "usd_per_million_output_tokens", 64, tp=4)


def test_page_exercise_tp8_one_request_by_hand():
    # Serving page, first exercise: Llama 3.1 70B in fp8 on eight H100s (TP8), one request, I 1024, O 256.
    # Weights per GPU: the layers' 68.45e9 weights in fp8 ÷ 8 = 8.556e9 B, the bf16 head 1.05e9 × 2 ÷ 8
    # = 0.263e9 B → 8.82e9 B ÷ 3.35e12 B/s = 2.632 ms (the KV cache of one request adds ~9 µs).
    # Collectives: 1 + 80 + 80 all-reduces and the logits' all-gather over 8 GPUs, each at the ceiling's
    # latency, the H100's NVLink floor of 2.3 µs (hardware.toml): 162 × 2.3 µs = 0.373 ms. TPOT ≈ 3.01 ms,
    # most of it reading weights: memory bandwidth binds (an NCCL ring's 33.7 µs each would make it latency).
    from roofline.quantities import NAMESPACE as N

    tpot = float(N["svc"]("chat70", "tpot_s", 1, tp=8))
    assert 3.0e-3 < tpot < 3.1e-3
    assert N["svc"]("chat70", "bound", 1, tp=8) == "bandwidth"


def test_page_exercise_memory_cap_by_hand():
    # Second exercise: on four H100s each GPU holds a quarter of 68.45e9 fp8 layer weights plus the two
    # bf16 tables (2 × 1.05e9 × 2 B): 72.65e9 ÷ 4 = 18.16e9 B, and the 2.147e9 B reserve, out of 85.52e9 B:
    # 65.2e9 B left. A request's KV cache: 80 layers × (K + V) × 2 of the 8 KV heads × 128 × 1 B = 40,960 B
    # a token × 1280 tokens = 52.4 MB → at most 1,244 requests, a few fewer with activations.
    from roofline.quantities import NAMESPACE as N

    cap = int(float(N["svc_cap"]("chat70", tp=4)))
    assert 1230 <= cap <= 1244
    assert N["svc_offline"]("chat70", "concurrency", tp=4).text() == f"{cap:,}"  # a count prints whole


def _cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


BASE = ("serve", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--input-tokens", "1024", "--output-tokens", "256")


def test_cli_json_carries_offline_frontier_targets_and_assumptions(capsys):
    code, out, _ = _cli(capsys, *BASE, "--json", "--price-per-device-hour", "2", "--tpot-ms", "20")
    assert code == 0
    doc = json.loads(out)
    for key in ("output_tokens_per_s", "output_tokens_per_s_per_device", "concurrency", "limited_by", "ttft_s", "tpot_s"):
        assert key in doc["offline"]
    row = doc["frontier"][0]
    for key in ("layout", "devices", "concurrency", "output_tokens_per_s", "output_tokens_per_s_per_device",
                "output_tokens_per_s_per_user", "ttft_s", "tpot_s", "expected_output_tokens_per_s",
                "usd_per_million_output_tokens"):
        assert key in row
    assert doc["best_under_targets"]["tpot_s"] <= 0.02
    a = doc["assumptions"]
    assert a["chunk_tokens"] == 8192 and a["runtime_reserve_bytes"] == 2 * 2**30
    # the expected figure names how it is made: kernel efficiencies per class and TensorRT-LLM's step overhead
    # (its overlap scheduler: 0 s, the engine row the expected figure takes when no --engine is given)
    assert set(a["expected"]) >= {"what", "engine", "step_overhead_s", "efficiencies", "not_captured"}
    assert a["expected"]["engine"] == "TensorRT-LLM" and a["expected"]["step_overhead_s"] == 0


def test_cli_concurrency_gives_one_point(capsys):
    code, out, _ = _cli(capsys, *BASE, "--concurrency", "32", "--tp", "2", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["point"]["concurrency"] == 32 and doc["point"]["layout"] == "TP2"


def test_cli_text(capsys):
    code, out, _ = _cli(capsys, *BASE)
    assert code == 0 and "offline maximum" in out and "ceiling" in out


@pytest.mark.parametrize("extra, option", [
    (("--input-tokens", "0"), "--input-tokens"),
    (("--output-tokens", "2.5"), "--output-tokens"),
    (("--concurrency", "-1"), "--concurrency"),
    (("--max-concurrency", "1e30"), "--max-concurrency"),
    (("--price-per-device-hour", "-2"), "--price-per-device-hour"),
    (("--price-per-device-hour", "nan"), "--price-per-device-hour"),
    (("--ttft-ms", "0"), "--ttft-ms"),
    (("--tpot-ms", "0.01"), "--tpot-ms"),
    (("--chunk-tokens", "0"), "--chunk-tokens"),
    (("--concurrency", "4", "--max-concurrency", "8"), "--concurrency"),
    (("--weight-format", "mxfp4", "--activation-dtype", "fp4"), "fp4"),
    (("--tpot-ms", "30", "--tpot-percentile", "p95"), "--tpot-percentile"),
    (("--ttft-percentile", "median"), "--ttft-percentile"),
    (("--speculative", "lookahead"), "--speculative"),
    (("--speculative", "eagle", "--acceptance", "0"), "--acceptance"),
    (("--speculative", "eagle", "--acceptance", "1.5"), "--acceptance"),
    (("--speculative", "mtp", "--draft-tokens", "0"), "--draft-tokens"),
    (("--speculative", "mtp", "--draft-tokens", "1000"), "--draft-tokens"),
    (("--speculative", "draft"), "--acceptance"),
    (("--acceptance", "0.8"), "--acceptance"),
    (("--max-concurrency", "0"), "--max-concurrency"),
    (("--max-concurrency", "2.5"), "--max-concurrency"),
    (("--disaggregated", "--dp", "2"), "--disaggregated"),
    (("--concurrency", "1", "--dp", "2"), "--concurrency"),
])
def test_cli_bad_input_one_line_exit_2(capsys, extra, option):
    code, out, err = _cli(capsys, *BASE, *extra)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and option in err


def test_cli_collective_latency_reaches_every_step(capsys):
    # Llama 3.1 8B (32 layers) at TP2 runs 2 × 32 + 2 = 66 collectives a step: an embedding all-reduce,
    # two all-reduces per layer and the logits' all-gather. Each pays the latency set once, so 10 µs
    # against 0 µs adds 66 × 10 µs = 0.66 ms to the step, that is to TPOT, at any concurrency.
    def tpot(*extra):
        code, out, _ = _cli(capsys, *BASE, "--concurrency", "1", "--tp", "2", "--json", *extra)
        assert code == 0
        return json.loads(out)["point"]["tpot_s"]

    assert tpot("--collective-latency-us", "10") - tpot("--collective-latency-us", "0") == pytest.approx(66 * 10e-6)
    assert tpot() == tpot("--collective-latency", "floor") < tpot("--collective-latency", "ring")
    code, out, _ = _cli(capsys, *BASE, "--tp", "2", "--collective-latency", "ring", "--json")
    assert json.loads(out)["workload"]["collective_latency_used"] == "ring"
    code, _, err = _cli(capsys, *BASE, "--collective-latency", "ring", "--collective-latency-us", "3")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--collective-latency-us" in err


def test_cli_layout_that_does_not_fit(capsys):
    code, out, err = _cli(capsys, "serve", "--model", "llama-3.1-70b", "--hardware", "h100-sxm5",
                          "--input-tokens", "1024", "--output-tokens", "256", "--concurrency", "1")
    assert code == 2 and "does not fit" in err and len(err.strip().splitlines()) == 1


def test_doctests():
    result = doctest.testmod(serving, extraglobs={"get_model": get_model, "get_device": get_device,
                                                  "Layout": Layout, "Workload": Workload},
                             optionflags=doctest.ELLIPSIS, report=False)
    assert result.failed == 0 and result.attempted > 0


# ------------------------------------------------- TTFT from the prompt's own prefill, the step mix -----
def test_ttft_of_a_prompt_longer_than_one_chunk_by_hand():
    # I = 6, O = 8, K = 4, concurrency 2, one device: n_p = ⌈6/4⌉ = 2 chunks, L = 2 + 7 = 9 steps a request.
    # s·n_p = 4 ≤ 9: prompts never overlap; λ = 2/9 a step, a share f = λ·n_p = 4/9 of steps carries a chunk.
    # Decodes attend to I + O/2 = 10 positions: 2 layers · 10 = 20 pairs each.
    # Chunk 1 (positions 1-4): 4 tokens, pairs 2·(4·5/2) = 20, beside the other slot's decode (1 token, 20 pairs),
    #   logit rows 1: 640·5 + 21·40 + 64·1 = 4104 FLOPs → 4.104 ms.
    # Chunk 2 (positions 5-6): 2 tokens, pairs 2·(6·7/2 − 4·5/2) = 22, beside 1 decode; rows 1 + 1 (the prompt ends):
    #   640·3 + 21·42 + 64·2 = 2930 FLOPs → 2.930 ms.
    # The prompt's own prefill (what `roofline prefill --prompt 6` costs): 640·6 + 21·42 + 64 = 4786 → 4.786 ms;
    # each chunk's share (4/6 and 2/6 of it: 3.19 and 1.60 ms) is below its step, so the steps stand.
    # TTFT = 4.104 + 2.930 = 7.034 ms (no wait: both clients hold a slot).
    # Decode-only step: 2 decodes, 640·2 + 21·40 + 64·2 = 2248 → 2.248 ms.
    # Mean step: (5/9)·2.248 + (4/9)·(4.104 + 2.930)/2 = 2.81200 ms; output tokens/s λ·O ÷ t = (2/9)·8 ÷ 2.812 ms.
    # A request's 7 gaps: the other slot's 2 chunk steps (g = 1·2/7) and 5 decode-only steps:
    # mean TPOT (5·2.248 + 4.104 + 2.930)/7 = 2.61057 ms; p50 2.248 ms (5/7 of gaps), p90 and p99 4.104 ms.
    p = serve_point(TOY, TOY_DEVICE, Layout(), Workload(6, 8, 2, chunk_tokens=4))
    assert p.prefill_s == pytest.approx(4.786e-3, rel=1e-9)
    assert p.ttft_s == pytest.approx(7.034e-3, rel=1e-9)
    assert p.decode_step_s == pytest.approx(2.248e-3, rel=1e-9)
    assert p.prompt_step_share == pytest.approx(4 / 9, rel=1e-12)
    assert p.step_time_s == pytest.approx(2.812e-3, rel=1e-9)
    assert p.output_tokens_per_s == pytest.approx((2 / 9) * 8 / 2.812e-3, rel=1e-9)
    assert p.tpot_s == pytest.approx((5 * 2.248 + 4.104 + 2.930) / 7 * 1e-3, rel=1e-9)
    assert (p.tpot_p50_s, p.tpot_p90_s, p.tpot_p99_s) == pytest.approx((2.248e-3, 4.104e-3, 4.104e-3), rel=1e-9)
    assert p.request_latency_s == pytest.approx(7.034e-3 + 7 * p.tpot_s, rel=1e-12)


BIG_TOY_DEVICE = dataclasses.replace(TOY_DEVICE, memory_capacity_bytes=kernels.RUNTIME_RESERVE_BYTES + 10**6)


def test_rare_prompt_steps_set_p99_tpot_and_decode_steps_p50_by_hand():
    # I = 40 (one chunk of K = 64), O = 101, concurrency 3: L = 101, a request's 100 gaps hold the other two
    # slots' prompt steps: g = 2/100 = 2 %, rare, yet more than the 1 % p99 leaves out.
    # Decodes attend to I + O/2 = 90.5 positions: 181 pairs each over 2 layers.
    # Decode-only step: 3 decodes, 640·3 + 21·543 + 64·3 = 13515 FLOPs → 13.515 ms.
    # Prompt step: 40 prompt tokens (pairs 2·40·41/2 = 1640) beside 2 decodes, rows 2 + 1:
    #   640·42 + 21·(362 + 1640) + 64·3 = 69114 FLOPs → 69.114 ms (above the prefill's 60.104 ms).
    # p50 and p90: the decode step; p99: 98 % of gaps are decode steps, so the prompt step.
    # Mean 0.98·13.515 + 0.02·69.114 = 14.62698 ms.
    p = serve_point(TOY, BIG_TOY_DEVICE, Layout(), Workload(40, 101, 3, chunk_tokens=64))
    assert p.tpot_p50_s == pytest.approx(13.515e-3, rel=1e-9)
    assert p.tpot_p90_s == pytest.approx(13.515e-3, rel=1e-9)
    assert p.tpot_p99_s == pytest.approx(69.114e-3, rel=1e-9)
    assert p.tpot_s == pytest.approx(14.62698e-3, rel=1e-9)
    assert p.ttft_s == pytest.approx(69.114e-3, rel=1e-9) and p.prefill_s == pytest.approx(60.104e-3, rel=1e-9)


def test_one_request_waits_exactly_its_prefill():
    # Llama 3.1 8B on one H100, I = 1024, one request: nothing else runs, so its first token comes
    # after its own prefill, what `roofline prefill --prompt 1024` prints; no other prompt runs during
    # its life, so every gap is a decode-only step: p50 = p99 = the mean.
    from roofline.model import parallel

    l8 = get_model("llama-3.1-8b")
    p = serve_point(l8, H100, Layout(), Workload(1024, 256, 1))
    assert p.ttft_s == float(parallel.prefill(l8, H100, 1024).time_s)
    assert p.tpot_p99_s == p.tpot_p50_s == p.decode_step_s == p.tpot_s
    assert p.prompt_gap_share == 0


GRID_MODELS = [("llama-3.1-8b", Formats.of(), (Layout(), Layout(tp=2), Layout(pp=2), Layout(dp=2))),
               ("llama-3.1-70b", FP8, (Layout(tp=4), Layout(tp=2, pp=2), Layout(pp=4))),
               ("mixtral-8x7b", Formats.of(), (Layout(ep=4), Layout(tp=2), Layout(ep=2, dp=2))),
               ("gemma-3-27b", Formats.of(), (Layout(tp=2),))]


@pytest.mark.parametrize("model_id, formats, layouts", GRID_MODELS, ids=[g[0] for g in GRID_MODELS])
def test_ttft_is_never_below_the_prompts_own_prefill(model_id, formats, layouts):
    # TTFT holds the steps carrying the request's own chunks; the prompt's own prefill on the same layout,
    # formats and attention (`roofline prefill`) is a floor under them, at any concurrency and prompt length.
    from roofline.model import parallel

    m = get_model(model_id)
    for lay in layouts:
        for I in (512, 9000, 20000):
            pre = float(parallel.prefill(m, H100, I, 1, formats, "fused", lay).time_s)
            for c in (1, 8, 64, 512):
                try:
                    p = serve_point(m, H100, lay, Workload(I, 256, c, formats=formats))
                except InputError:
                    continue  # the layout does not hold one request
                assert p.ttft_s >= pre * (1 - 1e-12), (lay.name, I, c)
                assert p.ttft_p99_s >= p.ttft_p50_s >= pre * (1 - 1e-12)
                assert p.tpot_p50_s <= p.tpot_p90_s <= p.tpot_p99_s


def test_a_target_met_on_the_mean_but_not_at_p99_is_refused():
    # The rare-prompt case above: mean TPOT 14.627 ms, p90 13.515 ms, p99 69.114 ms. A 20 ms target is met
    # on the mean and at p90, not at p99 (the default): refused with a sentence that says the mean meets it.
    p = serve_point(TOY, BIG_TOY_DEVICE, Layout(), Workload(40, 101, 3, chunk_tokens=64))
    answer = best_under_targets([p], tpot_s=0.02)
    assert isinstance(answer, str) and "\n" not in answer
    assert answer.startswith("nothing meets a TPOT of 20 ms at p99: the shortest TPOT at p99 is 69.1 ms")
    assert "the mean TPOT meets it" in answer and "judged at p99" in answer
    assert best_under_targets([p], tpot_s=0.02, tpot_percentile="mean") is p
    assert best_under_targets([p], tpot_s=0.02, tpot_percentile="p90") is p
    with pytest.raises(InputError, match="^--tpot-percentile must be one of mean, p50, p90, p99, got 'p95'$"):
        best_under_targets([p], tpot_s=0.02, tpot_percentile="p95")


def test_cli_reports_the_distribution_and_judges_targets_at_p99(capsys):
    # Llama 3.1 8B on one H100, I 1024, O 256: the frontier's JSON and table carry TPOT's mean and
    # percentiles and TTFT beside the prefill it contains; a TPOT target is judged at p99 unless told.
    code, out, _ = _cli(capsys, *BASE, "--json", "--tpot-ms", "20")
    doc = json.loads(out)
    assert code == 0 and doc["targets"]["tpot_percentile"] == "p99"
    best = doc["best_under_targets"]
    assert best["tpot_p99_s"] <= 0.02 and best["ttft_s"] >= best["prefill_s"]
    for row in doc["frontier"]:
        assert row["tpot_p50_s"] <= row["tpot_p90_s"] <= row["tpot_p99_s"]
        assert row["ttft_s"] >= row["prefill_s"]
    code, out, _ = _cli(capsys, *BASE, "--json", "--tpot-ms", "20", "--tpot-percentile", "mean")
    assert json.loads(out)["best_under_targets"]["tpot_s"] <= 0.02
    code, out, _ = _cli(capsys, *BASE, "--tpot-ms", "20")
    assert "TPOT p99" in out and "its prefill" in out and "p99" in out.splitlines()[3]
    code, out, err = _cli(capsys, *BASE, "--tpot-ms", "20", "--tpot-percentile", "p95")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "--tpot-percentile" in err


# ------------------------------------------------------------------ every layout input honoured -----
def test_cli_tp_1_means_one_device(capsys):
    # Qwen3 30B-A3B in bf16 is about 61 GB of weights: one 186 GB GB200 GPU holds it. `--tp 1` asks for one
    # device, so the offline maximum and every frontier row run on one device, and the output says why.
    argv = ("serve", "--model", "qwen3-30b-a3b", "--hardware", "gb200-per-gpu", "--input-tokens", "1024",
            "--output-tokens", "256")
    code, out, _ = _cli(capsys, *argv, "--tp", "1", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["offline"]["devices"] == 1
    assert {row["devices"] for row in doc["frontier"]} == {1}
    assert doc["layouts_searched"] == ["1 device"] and "--tp 1" in doc["layouts_searched_why"]
    code, out, _ = _cli(capsys, *argv, "--tp", "1")
    assert "layouts searched: 1 device (the layout --tp 1 names: one device)" in out
    # without a layout option every layout within the domain is searched, and the output says so
    code, out, _ = _cli(capsys, *argv, "--json")
    doc = json.loads(out)
    assert len(doc["layouts_searched"]) > 1 and "no layout option given" in doc["layouts_searched_why"]


def test_cli_devices_searches_layouts_of_exactly_that_many(capsys):
    code, out, _ = _cli(capsys, "serve", "--model", "llama-3.1-70b", "--hardware", "h100-sxm5", "--input-tokens",
                        "1024", "--output-tokens", "256", "--weight-format", "fp8", "--devices", "4", "--json")
    doc = json.loads(out)
    assert code == 0 and {row["devices"] for row in doc["frontier"]} == {4} and doc["offline"]["devices"] == 4
    assert "TP4" in doc["layouts_searched"] and "--devices 4" in doc["layouts_searched_why"]
    # a layout that holds nothing is refused in one sentence naming the options
    code, out, err = _cli(capsys, "serve", "--model", "llama-3.1-70b", "--hardware", "h100-sxm5", "--input-tokens",
                          "1024", "--output-tokens", "256", "--tp", "1")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "--tp" in err


def test_a_point_carries_one_limit_label_in_every_output(capsys):
    # The label depends on the layout, the concurrency and the workload alone: the offline maximum in the
    # text's top line and in JSON, its row in the frontier, and the best point under a target agree.
    code, out, _ = _cli(capsys, *BASE, "--max-concurrency", "100", "--tpot-ms", "20", "--json")
    doc = json.loads(out)
    rows = {(r["layout"], r["concurrency"]): r for r in doc["frontier"]}
    for key in ("offline", "best_under_targets"):
        point = doc[key]
        row = rows[(point["layout"], point["concurrency"])]
        assert point["limited_by"] == row["limited_by"] and point["limited_by_meaning"] == row["limited_by_meaning"]
        assert point["limited_by_gains"] == row["limited_by_gains"]
    code, text, _ = _cli(capsys, *BASE, "--max-concurrency", "100", "--tpot-ms", "20")
    top = next(line for line in text.splitlines() if line.startswith("offline maximum"))
    assert top.endswith(f"limit: {doc['offline']['limited_by_meaning']}") or \
        f"limit: {doc['offline']['limited_by_meaning']}" in top
    import re

    head = re.compile(rf"^{re.escape(doc['offline']['layout'])}\s+{doc['offline']['concurrency']}\s")
    table_row = next(line for line in text.splitlines() if head.match(line))
    assert table_row.split()[-1] == doc["offline"]["limited_by"]


# ------------------------------------------------------------------------------ disaggregated -----
def test_disaggregated_and_colocated_ttft_agree_for_one_request_up_to_the_kv_send():
    # One device a pool: the prefill pool runs the prompt with nothing else in its steps, which is what a
    # co-located engine holding one request does; the disaggregated TTFT adds one send of the prompt's KV
    # cache: 1024 tokens × 128 KiB (32 layers × K and V × 8 heads × 128 × 2 B) = 134 MB over NVLink's
    # 450 GB/s = 0.298 ms, plus the link's latency.
    l8 = get_model("llama-3.1-8b")
    wl = Workload(1024, 256)
    dis = serving.disaggregated(l8, H100, wl, max_devices=1)
    co = serve_point(l8, H100, Layout(), Workload(1024, 256, 1))
    for p in dis:
        assert p.prefill_layout == Layout()
        assert p.ttft_s - p.kv_transfer_s == pytest.approx(co.ttft_s, rel=1e-12)
    assert 1024 * 131072 / 450e9 < dis[0].kv_transfer_s < 1024 * 131072 / 450e9 + 50e-6


def test_cli_disaggregated_frontier_beside_the_colocated_one(capsys):
    code, out, _ = _cli(capsys, *BASE, "--disaggregated", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["frontier"] and doc["disaggregated"]
    row = doc["disaggregated"][0]
    for key in ("prefill_layout", "decode_layout", "concurrency", "prefill_devices_per_decode_device", "ttft_s",
                "kv_transfer_s", "tpot_s", "output_tokens_per_s_per_device", "on_envelope", "limited_by"):
        assert key in row
    assert "no contention" in doc["disaggregated_ttft"]
    code, out, _ = _cli(capsys, *BASE, "--disaggregated")
    assert "disaggregated (prefill and decode on separate pools" in out and "envelope of" in out
    # a layout that cannot hold a prefill pool (replicas only) is refused in one sentence
    code, out, err = _cli(capsys, *BASE, "--disaggregated", "--dp", "2")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "--disaggregated" in err


# ------------------------------------------------------------------------ speculative decoding -----
def test_speculative_per_user_ceiling_is_tokens_per_pass_over_pass_time_by_hand():
    # One request, I = 4 (one chunk of 64), O = 101, a draft model proposing k = 2 tokens at acceptance 0.5,
    # each drafted token costing 0.1 of the target's step. Tokens a pass: (1 − 0.5³) ÷ (1 − 0.5) = 1.75.
    # The verify pass runs k + 1 = 3 positions, each attending to I + O/2 = 54.5 positions (109 pairs over
    # 2 layers): 640·3 + 21·327 + 64·3 = 8979 FLOPs → 8.979 ms, plus the draft, 2 × 0.1 of it: 10.7748 ms.
    # Per-user ceiling = 1.75 ÷ 10.7748 ms = 162.42 tokens/s; plain decoding: 640 + 21·109 + 64 = 2993 FLOPs,
    # 334.11 tokens/s (on this compute-bound toy, verifying costs what it gains).
    spec = Workload(4, 101, 1, chunk_tokens=64, speculation="draft", draft_tokens=2, acceptance=0.5, draft_cost=0.1)
    assert spec.tokens_per_pass == pytest.approx(1.75, rel=1e-12)
    p = serve_point(TOY, BIG_TOY_DEVICE, Layout(), spec)
    assert p.decode_step_s == pytest.approx(8.979e-3 * 1.2, rel=1e-9)
    assert p.output_tokens_per_s_per_user == pytest.approx(1.75 / (8.979e-3 * 1.2), rel=1e-9)
    plain = serve_point(TOY, BIG_TOY_DEVICE, Layout(), Workload(4, 101, 1, chunk_tokens=64))
    assert plain.output_tokens_per_s_per_user == pytest.approx(1 / 2.993e-3, rel=1e-9)
    assert "plain decoding" in plain.workload.description and "speculative" in spec.description


def test_medusa_405b_run_sits_below_its_speculative_ceiling():
    # NVIDIA's Medusa run: Llama 3.1 405B in FP8 on an HGX H200 (eight GPUs, TP8), one user, 108 tokens/s
    # (https://developer.nvidia.com/blog/low-latency-inference-chapter-1-up-to-1-9x-higher-llama-3-1-performance-
    # with-medusa-on-nvidia-hgx-h200-with-nvlink-switch/). Plain decoding's ceiling is below it: each token
    # reads 405e9 FP8 bytes ÷ 8 over 4.8 TB/s = 10.5 ms, under 95 tokens/s. Medusa's four heads verified in one
    # pass keep (1 − 0.6⁵) ÷ 0.4 = 2.31 tokens at its default acceptance, and at most 5: the ceiling is above
    # 108 either way, so the published run no longer beats its ceiling.
    l405, h200 = get_model("llama-3.1-405b"), get_device("h200-sxm")
    fp8 = Formats.of("fp8", "fp8", "fp8")
    plain = serve_point(l405, h200, Layout(tp=8), Workload(1024, 256, 1, formats=fp8))
    medusa = serve_point(l405, h200, Layout(tp=8), Workload(1024, 256, 1, formats=fp8, speculation="medusa"))
    assert plain.output_tokens_per_s_per_user < 95 < 108 < medusa.output_tokens_per_s_per_user
    assert medusa.workload.tokens_per_pass == pytest.approx((1 - 0.6 ** 5) / 0.4, rel=1e-12)


@pytest.mark.parametrize("kwargs, option", [
    (dict(speculation="eagle", acceptance=0), "--acceptance"),
    (dict(speculation="eagle", acceptance=1.2), "--acceptance"),
    (dict(speculation="mtp", draft_tokens=0), "--draft-tokens"),
    (dict(speculation="mtp", draft_tokens=100), "--draft-tokens"),
    (dict(speculation="draft"), "--acceptance"),
    (dict(speculation="draft", acceptance=0.7), "--draft-cost"),
    (dict(speculation="lookahead"), "--speculative"),
    (dict(acceptance=0.8), "--acceptance"),
])
def test_bad_speculation_is_refused_in_one_sentence(kwargs, option):
    with pytest.raises(InputError) as err:
        Workload(1024, 256, **kwargs)
    assert str(err.value).startswith(option) and "\n" not in str(err.value)


# ------------------------------------------------------------------------- memory and engine caps -----
def test_paged_kv_holds_the_live_context_in_blocks():
    # The toy at I = 6, O = 4: reserving I + O = 10 tokens a request fits five (test above). Paged, a request
    # holds its live context, 6 + 4/2 = 8 tokens on average, plus half a block of 2: 9 tokens, 32·9 = 288 B of KV
    # and the activations' 40 B: 616 + 328·b ≤ 2,516 → b ≤ 5.79: still five. With blocks of 16 tokens, 6 + 2 + 8
    # = 16 tokens, 552 B a request: 616 + 552·b ≤ 2,516 → three.
    assert serving.memory_cap(TOY, TOY_DEVICE, Layout(), Workload(6, 4, kv_memory="paged", kv_block_tokens=2)) == 5
    assert serving.memory_cap(TOY, TOY_DEVICE, Layout(), Workload(6, 4, kv_memory="paged", kv_block_tokens=16)) == 3
    # Llama 3.1 8B, I 1024, O 256 on one H100: 1,280 tokens reserved against 1,024 + 128 + 8 = 1,160 paged with
    # vLLM's 16-token blocks: about 1,280/1,160 = 1.10 times the requests.
    l8 = get_model("llama-3.1-8b")
    full = serving.memory_cap(l8, H100, Layout(), Workload(1024, 256))
    paged = serving.memory_cap(l8, H100, Layout(), Workload(1024, 256, engine="vllm", kv_memory="paged"))
    assert paged / full == pytest.approx(1280 / 1160, rel=0.01)


def test_engine_defaults_cap_requests_and_are_named(capsys):
    # vLLM's server on a GPU of 70 GiB or more caps requests at 1,024 (max_num_seqs); TensorRT-LLM's
    # max_batch_size is 2,048; SGLang sizes the cap from memory.
    assert Workload(1024, 256, engine="vllm").max_concurrency == 1024
    assert Workload(1024, 256, engine="trtllm").max_concurrency == 2048
    assert Workload(1024, 256, engine="sglang").max_concurrency is None
    assert Workload(1024, 256, engine="vllm", max_concurrency=64).max_concurrency == 64
    code, out, _ = _cli(capsys, *BASE, "--engine", "vllm", "--kv-memory", "paged", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["workload"]["max_concurrency"] == 1024 and doc["workload"]["kv_block_tokens"] == 16
    assert "vLLM's defaults" in doc["workload"]["caps"] and "max_num_seqs 1024" in doc["workload"]["caps"]
    code, out, _ = _cli(capsys, *BASE)
    assert "caps: no engine cap on requests in flight (memory alone); KV cache reserved at I + O tokens" in out
    for extra, option in ((("--engine", "tgi"), "--engine"), (("--kv-memory", "lazy"), "--kv-memory"),
                          (("--kv-block-tokens", "0"), "--kv-block-tokens"),
                          (("--kv-block-tokens", "2.5"), "--kv-block-tokens")):
        code, out, err = _cli(capsys, *BASE, *extra)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and option in err
