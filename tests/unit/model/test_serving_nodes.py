"""`serve` beyond one node: layouts over nodes, disaggregated pools on nodes of their own with the KV cache over
the scale-out network, and prefix-cache hits in the step mix. Values derived by hand in the comments.

The toy model and device are test_serving.py's: a step of T tokens, P layer-summed query-key pairs and H logit
rows does 640·T + 21·P + 64·H FLOPs at 1e6 FLOP/s (every kernel compute-bound).
"""

from __future__ import annotations

import json

import pytest

from roofline import InputError, Workload, serve_point
from roofline.cli import main
from roofline.model import parallel, record, serving
from roofline.model.formats import Formats
from roofline.model.parallel import Layout
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model
from tests.unit.model.test_serving import TOY, TOY_DEVICE, flops

H800 = get_device("h800-sxm")
H100 = get_device("h100-sxm5")
DSV3 = get_model("deepseek-v3")
FP8 = Formats.of("fp8-b128")   # DeepSeek-V3's checkpoint format (the registry's)


def _cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# --------------------------------------------------------------------- the KV send between nodes -----
def test_kv_send_between_pools_on_separate_nodes_by_hand():
    # DeepSeek-V3's MLA caches 512 latent + 64 rotary values a layer, 61 layers, BF16: a 2,000-token prompt is
    # 2000 × 61 × 576 × 2 B = 140,544,000 B. An H800 node has one 400 Gb/s ConnectX-7 NIC per GPU (DeepSeek,
    # ISCA 2025): 50e9 B/s each way, so 2.81088 ms, plus InfiniBand's 2.8 µs floor (the same paper's
    # 64-byte latency table) = 2.81368 ms. With EP the prompt's cache sits on one attention rank: one NIC.
    wl = Workload(2000, 500, formats=FP8)
    pts = serving.disaggregated(DSV3, H800, wl, layouts=[Layout(ep=16)], prefill_nodes=2)
    assert {p.prefill_layout for p in pts} == {Layout(ep=16)}
    assert all(p.kv_transfer_s == pytest.approx(140_544_000 / 50e9 + 2.8e-6, rel=1e-12) for p in pts)
    assert pts[0].kv_transfer_s == pytest.approx(2.81368e-3, rel=1e-12)


def test_kv_send_splits_over_the_nics_of_a_tensor_parallel_prefill_pool():
    # Llama 3.1 70B: 80 layers × K and V × 8 KV heads × 128 × 2 B = 327,680 B a token; 2,048 tokens = 671,088,640 B.
    # A TP8 prefill pool holds one KV head per device, an eighth each: 83,886,080 B through each device's own
    # 50 GB/s NIC at once = 1.6777216 ms, plus the 2.8 µs floor = 1.6805216 ms.
    l70 = get_model("llama-3.1-70b")
    t = serving.kv_network_send_s(l70, H100, Workload(2048, 256), Layout(tp=8))
    assert t == pytest.approx(1.6805216e-3, rel=1e-12)


def test_pools_in_one_domain_keep_the_kv_send_over_the_link():
    # Without prefill_nodes nothing changes: the send is the link's (test_serving derives it), not the network's.
    l8 = get_model("llama-3.1-8b")
    wl = Workload(1024, 256)
    same = serving.disaggregated(l8, H100, wl, max_devices=1)
    apart = serving.disaggregated(l8, H100, wl, layouts=[Layout()], prefill_nodes=1)
    assert same[0].kv_transfer_s < 1024 * 131072 / 450e9 + 50e-6   # NVLink's 450 GB/s
    assert apart[0].kv_transfer_s == pytest.approx(1024 * 131072 / 50e9 + 2.8e-6, rel=1e-12)


NODE_GRID = [("deepseek-v3", "h800-sxm", [Layout(ep=16)], 2, FP8), ("deepseek-v3", "h800-sxm", [Layout(ep=32)], 4, FP8),
             ("llama-3.1-70b", "h100-sxm5", [Layout(tp=8), Layout(tp=4, dp=2)], 1, Formats.of()),
             ("llama-3.1-70b", "h100-sxm5", [Layout(tp=8, pp=2)], 2, Formats.of()),
             ("mixtral-8x7b", "h200-sxm", [Layout(ep=8), Layout(tp=2)], 1, Formats.of())]


@pytest.mark.parametrize("model_id, device_id, layouts, prefill_nodes, formats", NODE_GRID,
                         ids=[f"{g[0]}-{g[3]}" for g in NODE_GRID])
def test_ttft_apart_is_never_below_the_prompts_prefill_plus_the_kv_send(model_id, device_id, layouts, prefill_nodes,
                                                                         formats):
    # TTFT on pools apart holds the steps carrying the prompt's chunks on the prefill layout, then the send: the
    # prompt's own prefill on that layout (`roofline prefill`) plus the send is a floor under it, at any prompt.
    m, d = get_model(model_id), get_device(device_id)
    for I in (512, 2000, 9000):
        for h in (0.0, 0.5):
            wl = Workload(I, 256, formats=formats, cache_hit_rate=h)
            pts = serving.disaggregated(m, d, wl, layouts=layouts, prefill_nodes=prefill_nodes)
            lay = pts[0].prefill_layout
            pre = float(parallel.prefill(m, d, I, 1, wl.formats, "fused", lay, cache_hit_rate=h).time_s)
            send = float(parallel.kv_transfer(m, d, I, wl.formats.kv, "network", layout=lay).time_s)
            assert send > 0
            for p in pts:
                assert p.ttft_s >= (pre + send) * (1 - 1e-12), (lay.name, I, h)
                assert p.kv_transfer_s == pytest.approx(send, rel=1e-12)


# ------------------------------------------------------------------------------- prefix cache -----
@pytest.mark.parametrize("model_id, device_id, layout, c, formats", [
    ("llama-3.1-8b", "h100-sxm5", Layout(), 1, Formats.of()), ("llama-3.1-8b", "h100-sxm5", Layout(tp=2), 64, Formats.of()),
    ("deepseek-v3", "h800-sxm", Layout(ep=16), 256, FP8), ("mixtral-8x7b", "h200-sxm", Layout(ep=2, dp=2), 32, Formats.of())])
def test_hit_rate_zero_leaves_every_serving_figure_unchanged(model_id, device_id, layout, c, formats):
    m, d = get_model(model_id), get_device(device_id)
    for I in (1000, 20000):
        plain = record.service_record(serve_point(m, d, layout, Workload(I, 256, c, formats=formats)))
        zero = record.service_record(serve_point(m, d, layout, Workload(I, 256, c, formats=formats, cache_hit_rate=0.0)))
        assert zero == plain


def test_hit_rate_one_leaves_only_the_last_tokens_prefill_by_hand():
    # Toy model, I = 6, O = 4, one chunk of K = 8, one request. Wholly cached (h = 1): 5 tokens served, the last
    # computed (its logits give the first token). Its step: T = 1, it attends to 6 positions (5 cached + itself)
    # in each of 2 layers: P = 12, H = 1 → 640 + 252 + 64 = 956 FLOPs = 0.956 ms. Without hits the prompt's
    # step is 640·6 + 21·42 + 64 = 4786 FLOPs = 4.786 ms (test_serving's disaggregated case).
    hit = serve_point(TOY, TOY_DEVICE, Layout(), Workload(6, 4, 1, chunk_tokens=8, cache_hit_rate=1.0))
    miss = serve_point(TOY, TOY_DEVICE, Layout(), Workload(6, 4, 1, chunk_tokens=8))
    assert flops(1, 12, 1) == 956
    assert hit.ttft_s == pytest.approx(0.956e-3, rel=1e-9) and hit.prefill_s == pytest.approx(0.956e-3, rel=1e-9)
    assert miss.ttft_s == pytest.approx(4.786e-3, rel=1e-9)
    # A request is 1 + 3 = 4 steps: λ = 1/4, one step in four carries the prompt. A decode step: T = 1, context
    # I + O/2 = 8 positions in 2 layers (P = 16), H = 1: 640 + 336 + 64 = 1040 FLOPs = 1.04 ms. Mean step
    # 0.75 × 1.04 + 0.25 × 0.956 = 1.019 ms. Output tokens/s = λ·O ÷ step = 1 ÷ 1.019 ms = 981.35; input
    # tokens/s counts every prompt token, hits included, as DeepSeek reports it: λ·6 ÷ step = 1472.03.
    assert hit.step_time_s == pytest.approx(1.019e-3, rel=1e-9)
    assert hit.output_tokens_per_s == pytest.approx(1 / 1.019e-3, rel=1e-9)
    assert hit.input_tokens_per_s == pytest.approx(1.5 / 1.019e-3, rel=1e-9)


def test_half_the_prompt_cached_computes_the_other_half_by_hand():
    # I = 6, h = 0.5: 3 tokens cached, positions 4–6 computed, each attending to every position before it and
    # itself: 4 + 5 + 6 = 15 pairs a layer, P = 30, T = 3, H = 1 → 1920 + 630 + 64 = 2614 FLOPs = 2.614 ms.
    p = serve_point(TOY, TOY_DEVICE, Layout(), Workload(6, 4, 1, chunk_tokens=8, cache_hit_rate=0.5))
    assert p.ttft_s == pytest.approx(flops(3, 30, 1) / 1e6, rel=1e-9) == pytest.approx(2.614e-3)


def test_cache_hits_shorten_a_long_prompts_chunks():
    # I = 20, K = 8: without hits ⌈20/8⌉ = 3 chunks; with 12 of 20 cached (h = 0.6), ⌈8/8⌉ = 1 chunk of positions
    # 13–20: T = 8, pairs (13 + … + 20) = 132 a layer, P = 264, H = 1 → 5120 + 5544 + 64 = 10728 FLOPs.
    wl = Workload(20, 4, 1, chunk_tokens=8, cache_hit_rate=0.6)
    assert (wl.cached_tokens, wl.computed_tokens, wl.prefill_steps) == (12, 8, 1)
    assert Workload(20, 4, 1, chunk_tokens=8).prefill_steps == 3
    import dataclasses

    roomy = dataclasses.replace(TOY_DEVICE, memory_capacity_bytes=TOY_DEVICE.memory_capacity_bytes + 10**6)
    p = serve_point(TOY, roomy, Layout(), wl)
    assert p.ttft_s == pytest.approx(flops(8, 264, 1) / 1e6, rel=1e-9)


@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan"), True, "half"])
def test_a_hit_rate_outside_zero_to_one_is_refused(value):
    with pytest.raises(InputError, match=r"^--cache-hit-rate must be a number from 0 to 1"):
        Workload(1000, 100, cache_hit_rate=value)


# ------------------------------------------------------------------------------------ the CLI -----
DS = ("serve", "--model", "deepseek-v3", "--hardware", "h800-sxm", "--input-tokens", "2000", "--output-tokens", "500")


def test_cli_nodes_searches_the_layouts_over_them(capsys):
    code, out, _ = _cli(capsys, *DS, "--nodes", "2", "--json")
    doc = json.loads(out)
    assert code == 0
    assert "EP16" in doc["layouts_searched"] and all(
        parallel.Layout(r["tp"], r["pp"], r["ep"], r["dp"]).devices == 16 for r in doc["frontier"])
    assert "2 nodes (16 devices)" in doc["layouts_searched_why"]
    # the field's layout over 18 nodes needs 32 redundant copies of the 256 experts; given, it is searched too
    code, out, _ = _cli(capsys, *DS, "--nodes", "18", "--redundant-experts", "32", "--json")
    assert code == 0 and "EP144 (+32 redundant experts)" in json.loads(out)["layouts_searched"]
    code, out, _ = _cli(capsys, *DS, "--nodes", "18", "--redundant-experts", "32", "--concurrency", "1024", "--json")
    assert code == 0 and json.loads(out)["layouts_searched"] == ["EP144 (+32 redundant experts)"]


def test_cli_pools_on_separate_nodes_in_text_and_json(capsys):
    args = (*DS, "--ep", "144", "--redundant-experts", "32", "--nodes", "18", "--prefill-nodes", "4")
    code, out, _ = _cli(capsys, *args, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["disaggregated"]
    pools = doc["disaggregated_pools"]
    assert pools["apart"] is True and pools["prefill_nodes"] == 4 and pools["prefill_devices"] == 32
    assert pools["kv_bytes"] == 140_544_000 and pools["kv_transfer_s"] == pytest.approx(2.81368e-3, rel=1e-12)
    assert "scale-out network" in doc["disaggregated_ttft"]
    row = doc["disaggregated"][0]
    assert row["prefill_layout"] == "EP32" and row["decode_layout"].startswith("EP144")
    # pools in balance: prefill instances per decode instance = prefill devices per decode device × 144 ÷ 32
    assert row["prefill_instances_per_decode_instance"] == pytest.approx(
        row["prefill_devices_per_decode_device"] * 144 / 32, rel=1e-12)
    code, out, _ = _cli(capsys, *args)
    assert code == 0 and "pools on separate nodes: prefill EP32 on 4 nodes of its own" in out


def test_cli_hit_rate_zero_changes_nothing_and_a_hit_is_said(capsys):
    base = ("serve", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--input-tokens", "2000",
            "--output-tokens", "256", "--concurrency", "16", "--json")
    plain = json.loads(_cli(capsys, *base)[1])
    zero = json.loads(_cli(capsys, *base, "--cache-hit-rate", "0")[1])
    assert plain == zero and plain["workload"]["cache_hit_rate"] == 0
    half = json.loads(_cli(capsys, *base, "--cache-hit-rate", "0.5")[1])
    assert half["workload"]["cached_prompt_tokens"] == 1000
    assert half["point"]["ttft_s"] < plain["point"]["ttft_s"]
    code, out, _ = _cli(capsys, *base[:-1], "--cache-hit-rate", "0.5")
    assert "1,000 of 2,000 tokens: their KV is read" in out


@pytest.mark.parametrize("extra, option", [
    (("--nodes", "0"), "--nodes"), (("--nodes", "1.5"), "--nodes"), (("--nodes", "4", "--ep", "16"), "--nodes 4"),
    (("--nodes", "1000"), "--nodes 1000"), (("--prefill-nodes", "0"), "--prefill-nodes"),
    (("--prefill-nodes", "2.5"), "--prefill-nodes"), (("--prefill-nodes", "600"), "--prefill-nodes 600"),
    (("--cache-hit-rate", "1.5"), "--cache-hit-rate"), (("--cache-hit-rate", "-0.1"), "--cache-hit-rate"),
    (("--cache-hit-rate", "nan"), "--cache-hit-rate")])
def test_cli_bad_node_counts_and_hit_rates_one_line_exit_2(capsys, extra, option):
    code, out, err = _cli(capsys, *DS, *extra)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and option in err, err


def test_cli_prefill_nodes_without_a_network_is_refused(capsys):
    code, out, err = _cli(capsys, "serve", "--model", "llama-3.1-8b", "--hardware", "l40s", "--input-tokens", "100",
                          "--output-tokens", "10", "--prefill-nodes", "2")
    assert code == 2 and out == "" and "--prefill-nodes 2" in err and "network" in err


# ------------------------------------------------------------------ co-located layouts across nodes -----
CROSS = [("deepseek-v3", "h800-sxm", Layout(ep=16), FP8), ("deepseek-v3", "h100-sxm5", Layout(ep=32), FP8),
         ("llama-3.1-405b", "h100-sxm5", Layout(tp=8, pp=2), Formats.of("fp8", "fp8", "fp8"))]


@pytest.mark.parametrize("model_id, device_id, layout, formats", CROSS, ids=[c[0] + "-" + c[2].name for c in CROSS])
def test_ttft_across_nodes_is_never_below_the_prompts_own_prefill(model_id, device_id, layout, formats):
    # The co-located grid of test_serving, on layouts whose collectives cross the scale-out network.
    # With cache hits the floor is the prefill of the uncached part over the whole context (`roofline prefill
    # --cache-hit-rate`).
    m, d = get_model(model_id), get_device(device_id)
    for I in (512, 9000):
        for h in (0.0, 0.9):
            pre = float(parallel.prefill(m, d, I, 1, formats, "fused", layout, cache_hit_rate=h).time_s)
            for c in (16, 512):
                p = serve_point(m, d, layout, Workload(I, 256, c, formats=formats, cache_hit_rate=h))
                assert p.ttft_s >= pre * (1 - 1e-12), (layout.name, I, h, c)
                assert p.prefill_s == pytest.approx(pre, rel=1e-12)


def test_the_network_enters_the_binding_rule_only_for_a_replica_across_nodes():
    # EP16 on two H800 nodes sends 8/15 of each all-to-all over the 50 GB/s NIC: a quarter more network
    # bandwidth shortens the step, so it gains; Mixtral on EP8 stays in one node: no network limit to relax.
    across = serve_point(DSV3, H800, Layout(ep=16), Workload(2000, 256, 256, formats=FP8))
    inside = serve_point(get_model("mixtral-8x7b"), H800, Layout(ep=8), Workload(2000, 256, 64))
    assert across.bound_gains["network-bandwidth"] > 0 and "network-latency" in across.bound_gains
    assert not {"network-bandwidth", "network-latency"} & set(inside.bound_gains)


def test_pools_that_one_rack_scale_domain_holds_send_over_its_link():
    # GB200 NVL72: a node is a 4-GPU tray, but NVLink joins all 72 GPUs of the rack. A prefill pool on 4 trays
    # (16 GPUs) and a decode pool on EP48 fit one domain together (64 ≤ 72): the 140,544,000 B of a
    # 2,000-token DeepSeek-V3 prompt cross NVLink 5 at 900 GB/s each way, 156.16 µs plus the link's latency.
    # A decode pool on EP72 does not fit beside them (88 > 72): that cache crosses one 50 GB/s NIC, 2.81368 ms.
    gb = get_device("gb200-per-gpu")
    wl = Workload(2000, 256, formats=FP8)
    lays = [Layout(ep=48, redundant_experts=32), Layout(ep=72, redundant_experts=32)]
    pts = serving.disaggregated(DSV3, gb, wl, layouts=lays, prefill_nodes=4)
    assert {p.prefill_layout.devices for p in pts} == {16}
    inside = [p for p in pts if p.decode_layout.ep == 48]
    across = [p for p in pts if p.decode_layout.ep == 72]
    assert inside and across
    assert all(not p.kv_over_network and 140_544_000 / 900e9 < p.kv_transfer_s < 140_544_000 / 900e9 + 50e-6
               for p in inside)
    assert all(p.kv_over_network and p.kv_transfer_s == pytest.approx(2.81368e-3, rel=1e-12) for p in across)
