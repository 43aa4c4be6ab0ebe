"""Collectives and parallel layouts: hand-derived values, published measurements, properties, bad input."""

import doctest

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from roofline.errors import InputError
from roofline.model import kernels, parallel
from roofline.model.parallel import Layout, collective, ring_factor, ring_steps
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model

A100 = get_device("a100-sxm4-80gb")  # NVLink 3: 300 GB/s each way; latency 6.05 µs + 1.975 µs per ring step
H100 = get_device("h100-sxm5")
US = 1e-6


@pytest.mark.parametrize("n, link_bytes, time_us", [
    # ring all-reduce of S = 1 MB: 2(N−1)/N · S leaves each device in 2(N−1) steps.
    # N=2: 1.0 MB; latency 6.05 + 2·1.975 = 10.0 µs; 1e6 B ÷ 300e9 B/s = 3.333 µs -> 13.333 µs
    (2, 1.0e6, 10.0 + 1e6 / 300e9 / US),
    # N=4: 2·3/4 = 1.5 MB; latency 6.05 + 6·1.975 = 17.9 µs; 1.5e6 ÷ 300e9 = 5.0 µs -> 22.9 µs
    (4, 1.5e6, 17.9 + 5.0),
    # N=8: 2·7/8 = 1.75 MB; latency 6.05 + 14·1.975 = 33.7 µs (the nccl-tests 8-GPU figure); 5.833 µs -> 39.533 µs
    (8, 1.75e6, 33.7 + 1.75e6 / 300e9 / US),
])
def test_all_reduce_bytes_and_time_by_hand(n, link_bytes, time_us):
    c = collective("all-reduce", 1e6, n, A100.interconnect, A100.peak_flop_per_s(), latency="ring")
    assert c.link_bytes == pytest.approx(link_bytes, rel=1e-12)
    assert c.time_s == pytest.approx(time_us * US, rel=1e-9)


def test_other_collectives_by_hand():
    ic = A100.interconnect
    # all-gather of a 1 MB tensor over 4: each device sends (4−1)/4 of it, 0.75 MB,
    # in 3 steps: 6.05 + 3·1.975 = 11.975 µs; 0.75e6 ÷ 300e9 = 2.5 µs
    g = collective("all-gather", 1e6, 4, ic, 1.0, latency="ring")
    assert (g.link_bytes, g.time_s) == (pytest.approx(0.75e6), pytest.approx((11.975 + 2.5) * US))
    # all-to-all of a 1 MB buffer over 8: 7/8 of it leaves, 7 steps: 6.05 + 13.825 = 19.875 µs; 0.875e6 ÷ 300e9
    a = collective("all-to-all", 1e6, 8, ic, 1.0, latency="ring")
    assert a.link_bytes == pytest.approx(0.875e6) and a.time_s == pytest.approx(19.875 * US + 0.875e6 / 300e9)
    # a pipeline send moves S once, one step: 6.05 + 1.975 = 8.025 µs
    assert collective("send", 1e6, 2, ic, 1.0, latency="ring").time_s == pytest.approx(8.025 * US + 1e6 / 300e9)


def test_link_ridge_point_h100():
    # 989.4e12 FLOP/s ÷ 450e9 B/s (NVLink 4, 900 GB/s both directions) = 2198.67 FLOP per link byte
    assert parallel.link_ridge_point(H100) == pytest.approx(2198.666, rel=1e-5)


@settings(max_examples=200)
@given(st.integers(min_value=1, max_value=4095))
def test_ring_factors(n):
    ar, rs, ag, a2a = (ring_factor(k, n) for k in ("all-reduce", "reduce-scatter", "all-gather", "all-to-all"))
    # a ring all-reduce is a reduce-scatter followed by an all-gather: bytes and steps add up
    assert ar == pytest.approx(rs + ag) and ring_steps("all-reduce", n) == ring_steps("reduce-scatter", n) + ring_steps("all-gather", n)
    assert 0 <= rs < 1 and 0 <= ar < 2 and a2a == rs
    assert (ar == 0) == (n == 1)
    if n > 1:  # more devices: each sends a larger share of S, never all of 2S
        assert ring_factor("all-reduce", n + 1) > ar


@pytest.mark.parametrize("model", ["llama-3.1-8b", "llama-2-7b", "mixtral-8x7b", "8e9"])
@pytest.mark.parametrize("batch, ctx", [(1, 1), (16, 1024), (256, 4096)])
def test_one_device_layout_is_the_single_device_model_exactly(model, batch, ctx):
    m = get_model(model)
    one, ref = parallel.decode(m, H100, batch, ctx, layout=Layout()), kernels.decode(m, H100, batch, ctx)
    assert one.time_s == ref.time_s and one.time_perfect_overlap_s == ref.time_perfect_overlap_s
    assert one.ops == ref.ops and one.memory_required_bytes == ref.memory_required_bytes
    assert one.tokens_per_s == ref.tokens_per_s and one.collectives == ()
    p1, pref = parallel.prefill(m, H100, 512, 2, layout=Layout()), kernels.prefill(m, H100, 512, 2)
    assert p1.time_s == pref.time_s and p1.ops == pref.ops


def test_adding_devices_never_raises_per_device_bytes_and_never_makes_collectives_free():
    m = get_model("llama-3.1-70b")
    prev = None
    for n in (1, 2, 4, 8):
        s = parallel.decode(m, H100, 8, 2048, layout=Layout(tp=n))
        per_device = (s.stage.weights_resident_bytes, s.kv_resident_bytes, s.stage.bytes)
        if prev is not None:
            assert all(a <= b for a, b in zip(per_device, prev))
            assert s.collectives and all(c.time_s > 0 and c.link_bytes > 0 and c.latency_s > 0 for c in s.collectives)
        prev = per_device
    # TP splits every matrix 8 ways; the RMSNorm weights stay whole on each device:
    # (80 layers · 2 norms + 1 final) · 8192 · 2 B = 2,637,824 B, of which 7/8 = 2,308,096 B is the replica's extra
    s8 = parallel.decode(m, H100, 1, 1, layout=Layout(tp=8))
    whole = kernels.weights_resident_bytes(m, kernels.Formats.of())
    assert s8.stage.weights_resident_bytes == pytest.approx(whole / 8 + 2_308_096, rel=1e-12)


# gpt-fast README, "Tensor Parallelism" table (8× A100-80GB, power-limited to 330 W, batch 1, bf16;
# prompt of a few tokens, 200 generated): measured tokens/s per GPU count.
GPT_FAST_TP = {("llama-2-7b", 1): 104.9, ("llama-2-7b", 2): 168.84, ("llama-2-7b", 4): 254.02, ("llama-2-7b", 8): 328.43,
               ("llama-2-70b", 2): 21.32, ("llama-2-70b", 4): 38.01, ("llama-2-70b", 8): 62.50}


@pytest.mark.parametrize("model, n", sorted(GPT_FAST_TP))
@pytest.mark.parametrize("ctx", [5, 205])  # the start and end of the measured run
def test_tp_ceiling_is_never_below_gpt_fast(model, n, ctx):
    s = parallel.decode(get_model(model), A100, 1, ctx, layout=Layout(tp=n))
    assert s.tokens_per_s_per_sequence >= GPT_FAST_TP[(model, n)]


def test_llama_2_70b_tp8_sits_between_gpt_fast_and_the_no_interconnect_ceiling():
    s = parallel.decode(get_model("llama-2-70b"), A100, 1, 105, layout=Layout(tp=8))
    no_link = 1 / s.stage.time_s  # the same split with free collectives
    assert 62.5 <= s.tokens_per_s_per_sequence < no_link
    # 160 all-reduces per token (2 per layer × 80), plus the embedding's and the logits' collectives
    assert sum(c.count for c in s.collectives if c.name in ("attn_all_reduce", "mlp_all_reduce")) == 160


def test_llama_2_70b_tp8_ceiling_by_hand():
    # Per GPU: the matmul weights ÷ 8. Llama-2-70B has 68,976,648,192 weights, of which the embedding
    # (32000·8192 = 262,144,000) is only indexed and the norms (161·8192) are small: ≈ 68.71e9 · 2 B ÷ 8
    # = 17.18 GB, ÷ 2.039 TB/s = 8.43 ms. Collectives: 160 all-reduces (2 per layer) + 1 for the
    # embedding, each 6.05 + 14·1.975 = 33.7 µs of latency, and one 8-way all-gather of the logits,
    # 6.05 + 7·1.975 = 19.875 µs: 161·33.7 + 19.875 = 5,445.6 µs (bytes add under 0.1 %).
    # 1 ÷ (8.43 ms + 5.446 ms) = 72.1 tokens/s; the kernel model adds KV, activations and norms.
    s = parallel.decode(get_model("llama-2-70b"), A100, 1, 205, layout=Layout(tp=8), latency="ring")
    assert s.tokens_per_s_per_sequence == pytest.approx(1 / (8.43e-3 + 5.4456e-3), rel=0.02)
    assert s.collective_time_s == pytest.approx(5.4456e-3, rel=0.01)


def test_kv_heads_replicated_past_their_count():
    # Llama-3.1-70B has 8 KV heads; over 16 GPUs of an NVL72 domain each keeps one (two copies of each)
    s = parallel.decode(get_model("llama-3.1-70b"), get_device("gb200-per-gpu"), 1, 1024, layout=Layout(tp=16))
    assert parallel.kv_heads_per_device(get_model("llama-3.1-70b"), 16) == 1
    assert "copy" in s.kv_note
    s8 = parallel.decode(get_model("llama-3.1-70b"), get_device("gb200-per-gpu"), 1, 1024, layout=Layout(tp=8))
    assert s.kv_resident_bytes == pytest.approx(s8.kv_resident_bytes)  # one KV head per device either way


def test_pipeline_bubble_and_time():
    m = get_model("llama-3.1-70b")
    s = parallel.decode(m, H100, 1, 1024, layout=Layout(pp=4))
    # batch 1 over 4 stages: one micro-batch, each stage idles 3/4 of the time
    assert s.bubble_fraction == pytest.approx(0.75)
    assert s.time_s == pytest.approx(4 * s.stage.time_s + s.sends.time_s)
    assert s.sends.count == 3
    full = parallel.decode(m, H100, 64, 1024, layout=Layout(pp=4))
    assert full.bubble_fraction == 0 and full.micro_batches == 4


def test_expert_parallel_mixtral():
    m = get_model("mixtral-8x7b")
    s = parallel.decode(m, H100, 64, 1024, layout=Layout(ep=8))
    kinds = {c.kind for c in s.collectives}
    assert kinds == {"all-to-all"} and sum(c.count for c in s.collectives) == 2 * m.n_layers
    # each device holds one whole expert per layer: resident weights drop by 7/8 of the experts
    one = kernels.weights_resident_bytes(m, kernels.Formats.of())
    experts = m.n_layers * m.n_experts * 3 * m.hidden_size * m.ffn_size * 2
    assert s.stage.weights_resident_bytes == pytest.approx(one - experts * 7 / 8)


def test_fit_across_devices():
    m = get_model("llama-3.1-70b")  # 141.1 GB of bf16 weights: not one H100 (85.5 GB usable), yes two
    assert parallel.smallest_layout(m, H100, 1, 1024) == Layout(tp=2)
    mb = [parallel.max_batch_that_fits(m, H100, 4096, layout=Layout(tp=n)) for n in (2, 4, 8)]
    assert 0 < mb[0] < mb[1] < mb[2]
    at = parallel.decode(m, H100, mb[1], 4096, layout=Layout(tp=4))
    over = parallel.decode(m, H100, mb[1] + 1, 4096, layout=Layout(tp=4))
    assert at.fits and not over.fits


@pytest.mark.parametrize("layout", [Layout(), Layout(tp=2, pp=2), Layout(ep=4), Layout(dp=2, tp=4)])
@pytest.mark.parametrize("context", [512, 4096, 131072])
def test_the_largest_batch_that_fits_is_the_edge_of_what_fits(layout, context):
    """The search (vectorised over candidate batches) lands where one more sequence no longer fits,
    checked one batch at a time; a limit below that edge caps it, even one that is no power of two."""
    m = get_model("mixtral-8x7b") if layout.ep > 1 else get_model("llama-3.1-8b")
    b = parallel.max_batch_that_fits(m, H100, context, layout=layout)
    one = lambda n: bool(parallel.decode(m, H100, n, context, layout=layout).fits)
    assert b >= 1 and one(b) and not one(b + 1)
    assert parallel.max_batch_that_fits(m, H100, context, layout=layout, limit=b - 1 if b > 2 else 1) == max(b - 1, 1)
    assert parallel.max_batch_that_fits(m, H100, context, layout=layout, limit=3 * b + 1) == b


def test_engine_layout():
    m = get_model("llama-3.1-70b")
    assert parallel.engine_layout(m, H100, 8) == Layout(tp=8)
    # 6 devices: 64 heads allow TP2 (not 6 or 3), so an engine runs TP2 × PP3
    assert parallel.engine_layout(m, H100, 6) == Layout(tp=2, pp=3)


@pytest.mark.parametrize("args, message", [
    (["--tp", "0"], "--tp must be a whole number ≥ 1"),
    (["--pp", "2.5"], "--pp must be a whole number ≥ 1"),
    (["--ep", "x"], "--ep must be a whole number"),
    (["--tp", "3"], "64 attention heads, which 3 does not divide"),
    (["--tp", "16"], "holds 8"),
    (["--ep", "2"], "is dense"),
    (["--devices", "8", "--tp", "2"], "not both"),
    (["--devices", "0"], "--devices must be a whole number ≥ 1"),
])
def test_bad_layout_one_line_exit_2(run_cli, args, message):
    code, out, err = run_cli("decode", "--model", "llama-3.1-70b", "--hardware", "h100-sxm5", *args)
    assert code == 2 and message in err and "Traceback" not in err and err.count("\n") == 1, err


@pytest.mark.parametrize("hardware, message", [("m3-max", "has no scale-up link"),
                                               ("tpu-v4", "no scale-up link is recorded in the registry for the Google TPU v4")])
def test_no_interconnect_refuses_tp(run_cli, hardware, message):
    code, _, err = run_cli("decode", "--model", "llama-3.1-8b", "--hardware", hardware, "--tp", "2")
    assert code == 2 and message in err and err.count("\n") == 1


def test_cli_ops_and_json_carry_the_collectives(run_cli):
    import json
    code, out, _ = run_cli("decode", "--model", "llama-2-70b", "--hardware", "a100-sxm4-80gb", "--context", "105",
                           "--devices", "8", "--ops")
    assert code == 0 and "TP8 (8 devices)" in out and "attn_all_reduce" in out and "latency-bound" in out
    code, out, _ = run_cli("decode", "--model", "llama-2-70b", "--hardware", "a100-sxm4-80gb", "--context", "105",
                           "--tp", "8", "--json")
    doc = json.loads(out)
    assert doc["layout"] == "TP8" and doc["tp"] == 8 and doc["interconnect"]["domain_devices"] == 8
    ar = next(o for o in doc["ops"] if o["name"] == "attn_all_reduce")
    assert ar["kind"] == "all-reduce" and ar["count"] == 80 and ar["latency_s"] > 0
    code, out, _ = run_cli("layouts", "--model", "llama-3.1-70b", "--hardware", "h100-sxm5", "--context", "1024", "--json")
    rows = {r["layout"]: r for r in json.loads(out)["layouts"]}
    assert not rows["1 device"]["fits"] and rows["TP2"]["fits"] and rows["TP8"]["tokens_per_s_per_device"] > 0


def test_doctests():
    result = doctest.testmod(parallel, extraglobs={"get_model": get_model, "get_device": get_device},
                             optionflags=doctest.ELLIPSIS, report=False)
    assert result.failed == 0 and result.attempted > 5


def test_expert_parallelism_with_pipeline_stages_reads_only_the_stages_experts():
    # Mixtral 8x7B, batch 1, EP 4 × PP 2 on H100s: a stage holds 32 ÷ 2 = 16 layers. One token is
    # routed to 2 experts per layer; an expert is gate, up and down, 3 × 4096 × 14336 bf16 weights
    # = 352,321,536 B. The stage reads 16 × 2 × 352,321,536 B, shared out over 4 devices:
    # 2,818,572,288 B per device (the bug read all 32 layers' experts: twice that).
    s = parallel.decode(get_model("mixtral-8x7b"), get_device("h100-sxm5"), 1, 1024, layout=Layout(ep=4, pp=2))
    experts = sum(float(k.weight_bytes) for k in s.ops if k.name.startswith("experts_"))
    assert experts == pytest.approx(16 * 2 * 3 * 4096 * 14336 * 2 / 4, rel=1e-12)


def test_the_issue_view_binds_on_latency_not_on_the_link_bandwidth():
    # Llama 3.1 70B, TP8 H100s, batch 1, 4,096 cached. FLOPs per link byte: 18.7 GFLOP ÷ 4.84 MB ≈ 3,870,
    # above the link ridge 989.4e12 ÷ 450e9 ≈ 2,199, so the link's bandwidth does not bind. With an NCCL
    # ring's latency: 161 all-reduces × 33.7 µs + one all-gather × 19.875 µs = 5.446 ms of latency (plus
    # 4.84 MB ÷ 450 GB/s = 10.8 µs of bytes) against 5.24 ms of kernels: collective latency-bound.
    # At the floor, 162 × 2.3 µs = 0.373 ms: the kernels dominate again (memory-bound).
    m = get_model("llama-3.1-70b")
    ring = parallel.decode(m, H100, 1, 4096, layout=Layout(tp=8), latency="ring")
    assert ring.link_intensity == pytest.approx(3871, rel=2e-3) and ring.link_intensity > ring.link_ridge_point
    assert ring.collective_time_s == pytest.approx(5.4456e-3 + 4.84e6 / 450e9, rel=2e-3)
    assert ring.bound == "collective latency-bound"
    floor = parallel.decode(m, H100, 1, 4096, layout=Layout(tp=8))
    assert floor.collective_time_s == pytest.approx(162 * 2.3e-6 + 4.84e6 / 450e9, rel=2e-3)
    assert floor.bound == "memory-bound"
    # a long prefill over PCIe (L4, 32 GB/s each way): the bytes bind, not the latency
    pre = parallel.prefill(get_model("llama-3.1-8b"), get_device("l4"), 4096, 8, layout=Layout(tp=8))
    assert pre.bound == "link-bandwidth-bound"


def test_each_layouts_speed_of_light_is_its_own_and_never_below_its_result():
    # One H100 reads 141.1 GB of bf16 Llama 3.1 70B weights: 3.35e12 ÷ 141.1e9 ≈ 23.7 tokens/s (the issue's
    # "24.1" counts the weights a step reads). Over TP8 each GPU reads an eighth (plus whole norms): about
    # 8 × that, 193 tokens/s, above the 93.5 (ring) and 178 (floor) the layout achieves.
    m = get_model("llama-3.1-70b")
    one = parallel.speed_of_light_tokens_per_s(m, H100)
    assert one == pytest.approx(kernels.speed_of_light_tokens_per_s(m, H100), rel=1e-12)
    tp8 = parallel.limits(m, H100, 4096, layout=Layout(tp=8))
    assert tp8.speed_of_light_tokens_per_s == pytest.approx(8 * one, rel=0.01)
    for lay in (Layout(tp=2), Layout(tp=4), Layout(tp=8), Layout(pp=2), Layout(pp=8), Layout(tp=4, pp=2), Layout(dp=2)):
        sol = parallel.limits(m, H100, 4096, layout=lay).speed_of_light_tokens_per_s
        for batch in (1, 64):
            for latency in ("floor", "ring", 0.0):
                s = parallel.decode(m, H100, batch, 4096, layout=lay, latency=latency)
                assert s.tokens_per_s_per_sequence <= sol, (lay.name, batch, latency)
    mix = get_model("mixtral-8x7b")
    for lay in (Layout(ep=2), Layout(ep=8), Layout(ep=4, pp=2)):
        sol = parallel.limits(mix, H100, 1024, layout=lay).speed_of_light_tokens_per_s
        assert parallel.decode(mix, H100, 8, 1024, layout=lay, latency=0.0).tokens_per_s_per_sequence <= sol


@pytest.mark.parametrize("args, message", [
    (["--collective-latency-us", "fast"], "must be a number of microseconds"),
    (["--collective-latency-us", "-1"], "between 0 and 10000"),
    (["--collective-latency-us", "5", "--collective-latency", "ring"], "not both"),
    (["--collective-latency", "nccl"], "invalid choice"),
])
def test_bad_collective_latency_one_line_exit_2(run_cli, args, message):
    code, _, err = run_cli("decode", "--model", "llama-3.1-70b", "--hardware", "h100-sxm5", "--tp", "8", *args)
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_cli_names_the_latency_and_gives_the_expected_figure(run_cli):
    import json
    code, out, _ = run_cli("decode", "--model", "llama-3.1-70b", "--hardware", "h100-sxm5", "--tp", "8",
                           "--context", "4096", "--json")
    doc = json.loads(out)
    assert doc["collective_latency_used"] == "floor" and doc["collective_latency_per_collective_s"] == pytest.approx(2.3e-6)
    assert doc["expected_with_ring_latency"]["bound"] == "collective latency-bound"
    assert doc["expected_with_ring_latency"]["tokens_per_s_per_sequence"] < doc["tokens_per_s_per_sequence"] \
        <= doc["speed_of_light_tokens_per_s"] == doc["limits"]["speed_of_light_tokens_per_s"]
    code, out, _ = run_cli("decode", "--model", "llama-3.1-70b", "--hardware", "h100-sxm5", "--tp", "8",
                           "--context", "4096", "--collective-latency-us", "10", "--json")
    assert json.loads(out)["collective_latency"] == "set: 10 µs per collective"
    code, out, _ = run_cli("layouts", "--model", "llama-3.1-70b", "--hardware", "h100-sxm5", "--context", "4096",
                           "--collective-latency", "ring", "--json")
    rows = json.loads(out)["layouts"]
    assert all(r["tokens_per_s_per_sequence"] <= r["speed_of_light_tokens_per_s"] for r in rows if r["fits"])
