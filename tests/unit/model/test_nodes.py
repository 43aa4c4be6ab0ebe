"""Layouts across nodes: TP inside a domain, EP over the network, redundant experts, imbalance, KV over a NIC."""

import pytest

from roofline.errors import InputError
from roofline.model import parallel
from roofline.model.formats import Formats, choose_weight_format
from roofline.model.parallel import Layout
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model

DSV3, H100 = get_model("deepseek-v3"), get_device("h100-sxm5")


def _a2a(step, name):
    return next(c for c in step.collectives if c.name == name)


def test_ep16_all_to_all_splits_into_nvlink_and_network_shares_by_hand():
    # DeepSeek-V3 decode, batch 256 on EP16 over two HGX H100 nodes: attention is data-parallel, so each
    # GPU holds 256 / 16 = 16 sequences. One MoE layer's dispatch sends each token's 8 routed copies
    # (hidden 7168, bf16 = 2 B): S = 16 · 8 · 7168 · 2 = 1,835,008 bytes per GPU.
    # Experts spread evenly over 16 ranks: 1/16 stays home, 7/16 goes to the 7 other GPUs of the node
    # over NVLink, 8/16 to the 8 GPUs of the other node over the network:
    #   NVLink 7/16 · S = 802,816 B; network 8/16 · S = 917,504 B; sent 15/16 · S = 1,720,320 B.
    # Both links run at once, so one run takes max(802,816 / 450e9, 917,504 / 50e9) = 18.350 µs
    # plus the larger latency floor, the network's 2.8 µs (NVLink's is 2.3): 21.150 µs.
    s = parallel.decode(DSV3, H100, 256, 2000, layout=Layout(ep=16))
    c = _a2a(s, "moe_dispatch_all_to_all")
    per_layer = c.count
    assert float(c.link_bytes) / per_layer == pytest.approx(1_720_320)
    assert float(c.scaleup_bytes) / per_layer == pytest.approx(802_816)
    assert float(c.network_bytes) / per_layer == pytest.approx(917_504)
    assert float(c.time_s) / per_layer == pytest.approx(21.150e-6, rel=1e-4)
    # the combine sends the same bytes back
    assert float(_a2a(s, "moe_combine_all_to_all").network_bytes) == pytest.approx(float(c.network_bytes))


def test_inside_one_node_nothing_crosses_the_network():
    s = parallel.decode(DSV3, H100, 256, 2000, layout=Layout(ep=8))
    assert all(float(c.network_bytes) == 0 for c in s.collectives)


def test_kv_transfer_of_a_2000_token_deepseek_v3_prompt_over_one_400_gbit_nic_by_hand():
    # MLA caches the 512-wide latent and the 64-wide rotary key per layer: 576 elements × 61 layers,
    # bf16: 2000 · 61 · 576 · 2 = 140,544,000 bytes. One 400 Gb/s NIC moves 50e9 bytes/s each way:
    # 2.81088 ms, plus the network's 2.8 µs floor = 2.81368 ms.
    c = parallel.kv_transfer(DSV3, H100, 2000)
    assert float(c.link_bytes) == 140_544_000
    assert c.time_s == pytest.approx(2.81368e-3, rel=1e-6)
    # the same cache inside a node over NVLink (450 GB/s, 2.3 µs): 0.31232 ms + 2.3 µs
    assert parallel.kv_transfer(DSV3, H100, 2000, over="link").time_s == pytest.approx(0.314620e-3, rel=1e-5)


@pytest.mark.parametrize("layout, message", [
    (Layout(ep=72), "256 experts, which 72 does not divide; give --redundant-experts 32"),
    (Layout(ep=72, redundant_experts=10), "256 + 10 = 266 expert copies do not fill 72 ranks evenly; "
                                           "give --redundant-experts 32"),
    (Layout(ep=6), "256 experts, which 6 does not divide; give --redundant-experts 2"),
    (Layout(ep=12), "fills whole scale-up domains of 8"),
    (Layout(tp=16), "stays inside one NVIDIA H100 SXM5 80GB scale-up domain"),
    (Layout(ep=20, redundant_experts=4), "fills whole scale-up domains of 8"),
    (Layout(redundant_experts=8), "needs expert parallelism"),
])
def test_layouts_that_cannot_run_are_refused_with_a_sentence(layout, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        parallel.decode(DSV3, H100, 256, 2000, layout=layout)


def _own(model):
    """The checkpoint's own weight format (Kimi K2 and DeepSeek-V3: fp8 in 128 × 128 blocks)."""
    c = choose_weight_format(model)
    return Formats.of(c.format, "bf16", "bf16", scope=c.scope)


def test_ep_at_degrees_the_experts_divide_not_only_powers_of_two():
    # Kimi K2 in its fp8 checkpoint: 384 experts = 16 per rank on EP24 (3 HGX nodes)
    kimi = get_model("kimi-k2")
    s = parallel.decode(kimi, H100, 240, 2000, _own(kimi), layout=Layout(ep=24))
    assert s.layout.devices == 24 and bool(s.fits)


def test_redundant_experts_fill_ranks_the_experts_do_not_divide():
    # SGLang's GB200 NVL72 deployment decodes DeepSeek-V3 on 48 GPUs: 256 + 32 copies = 6 per rank,
    # all inside one 72-GPU NVLink domain (nothing crosses the network)
    gb = get_device("gb200-per-gpu")
    s = parallel.decode(DSV3, gb, 48 * 64, 2000, layout=Layout(ep=48, redundant_experts=32))
    assert all(float(c.network_bytes) == 0 for c in s.collectives)
    plain = parallel.decode(DSV3, gb, 64 * 64, 2000, layout=Layout(ep=64))
    # each rank reads 6 experts' weights instead of 4 per layer at a batch that touches all: 6/4 = 1.5 ×
    w48 = sum(float(k.weight_bytes) for k in s.stage.ops if k.name.startswith("experts_"))
    w64 = sum(float(k.weight_bytes) for k in plain.stage.ops if k.name.startswith("experts_"))
    assert w48 / w64 == pytest.approx(1.5, rel=1e-3)


def test_expert_imbalance_scales_the_busiest_ranks_expert_work_and_all_to_all():
    even = parallel.decode(DSV3, H100, 256, 2000, layout=Layout(ep=16))
    skew = parallel.decode(DSV3, H100, 256, 2000, layout=Layout(ep=16, expert_imbalance=1.5))
    for name in ("experts_gate_up", "experts_down"):
        e = next(k for k in even.stage.ops if k.name == name)
        k = next(k for k in skew.stage.ops if k.name == name)
        assert float(k.flops) == pytest.approx(1.5 * float(e.flops))
        assert float(k.weight_bytes) == pytest.approx(float(e.weight_bytes))  # its experts are read once
    assert float(_a2a(skew, "moe_dispatch_all_to_all").link_bytes) == pytest.approx(
        1.5 * float(_a2a(even, "moe_dispatch_all_to_all").link_bytes))
    assert float(skew.time_s) > float(even.time_s)


@pytest.mark.parametrize("value", [0.5, 17, float("nan"), True])
def test_expert_imbalance_outside_one_to_the_ep_degree_is_refused(value):
    with pytest.raises(InputError, match="--expert-imbalance must be a number from 1"):
        Layout(ep=16, expert_imbalance=value)


def test_node_layouts():
    assert parallel.node_layout(DSV3, H100, 4).name == "EP32"
    # SGLang's decode on 9 nodes of 8 H100s: EP72 needs 32 redundant copies of DeepSeek-V3's 256 experts
    with pytest.raises(InputError, match="--nodes 9: --ep 72: .* give --redundant-experts 32"):
        parallel.node_layout(DSV3, H100, 9)
    assert parallel.node_layout(DSV3, H100, 9, redundant_experts=32).name == "EP72 (+32 redundant experts)"
    assert parallel.node_layout(get_model("llama-3.1-405b"), H100, 2).name == "TP8 × PP2"
    with pytest.raises(InputError, match="no scale-out network is recorded"):
        parallel.node_devices(get_device("mi300x"), 2)
    with pytest.raises(InputError, match="hold 16 devices but EP8 uses 8"):
        parallel.check_nodes(Layout(ep=8), H100, 2)
    names = [lay.name for lay in parallel.candidate_layouts(DSV3, H100, nodes=2)]
    assert "EP16" in names and "TP8 × PP2" in names and not any("TP16" in n for n in names)


def test_the_network_lowers_the_step_below_one_node():
    # Two nodes hold twice the experts' share per GPU less, but the all-to-all half crosses a NIC
    # 9 × slower than NVLink: the collectives take longer than inside one node at the same per-GPU batch.
    one = parallel.decode(DSV3, get_device("h200-sxm"), 8 * 32, 2000, layout=Layout(ep=8))
    two = parallel.decode(DSV3, get_device("h200-sxm"), 16 * 32, 2000, layout=Layout(ep=16))
    assert float(two.collective_time_s) > 3 * float(one.collective_time_s)


@pytest.mark.parametrize("args, message", [
    (["--nodes", "0"], "--nodes must be a whole number"),
    (["--nodes", "1.5"], "--nodes must be a whole number"),
    (["--nodes", "2", "--ep", "8"], "--nodes 2: 2 nodes of NVIDIA H100 SXM5 80GBs hold 16 devices but EP8 uses 8"),
    (["--ep", "72"], "give --redundant-experts 32"),
    (["--ep", "16", "--expert-imbalance", "0.9"], "--expert-imbalance must be"),
    (["--ep", "16", "--redundant-experts", "-1"], "--redundant-experts must be"),
])
def test_cli_refuses_bad_node_input_in_one_line(run_cli, args, message):
    code, out, err = run_cli("decode", "--model", "deepseek-v3", "--hardware", "h100-sxm5", "--batch", "256",
                             "--context", "2000", *args)
    assert code == 2 and out == "" and message in err and "Traceback" not in err and err.count("\n") == 1, err


def test_cli_decodes_across_nodes_and_names_the_network(run_cli):
    code, out, err = run_cli("decode", "--model", "deepseek-v3", "--hardware", "h100-sxm5", "--batch", "256",
                             "--context", "2000", "--ep", "72", "--redundant-experts", "32")
    assert code == 0, err
    assert "EP72 (+32 redundant experts)" in out and "across nodes over InfiniBand" in out
    assert "9 scale-up domains" in out and "perfectly balanced (the default)" in out
    code, out, err = run_cli("layouts", "--model", "deepseek-v3", "--hardware", "h100-sxm5", "--batch", "256",
                             "--context", "2000", "--nodes", "2", "--json")
    assert code == 0, err
    assert "EP16" in out


def test_expected_all_to_all_is_judged_against_deepeps_low_latency_time():
    # DeepEP's low-latency dispatch on H800s at EP16 (two nodes): 128 tokens per rank, hidden 7168,
    # top-8, FP8: S = 128 · 8 · 7168 · 1 B = 7,340,032 B per rank, in 118 us measured.
    # Ceiling: 8/16 · S = 3,670,016 B over a 50 GB/s NIC = 73.4 us (NVLink's 7/16 · S at 200 GB/s is
    # 16.1 us, in parallel) + the 2.8 us network floor = 76.2 us: below the measurement, as a floor must be.
    # Expected: the NIC at DeepEP's 43 GB/s (85.3 us), plus the ring's 6.05 + 7 · 1.975 = 19.875 us and
    # the network floor: 108.0 us, within 10 % of the 118 us measured.
    from roofline.registry.ep_communication import ep_measurements

    h800 = get_device("h800-sxm")
    payload = 128 * 8 * 7168 * 1
    floor = parallel.ep_all_to_all(payload, 16, h800, 1978.9e12, "dispatch", 1)
    expected = parallel.ep_all_to_all(payload, 16, h800, 1978.9e12, "dispatch", 1, latency="ring")
    measured = ep_measurements()["deepep-low-latency-dispatch-ep16"].measured_latency_s
    assert float(floor.time_s) == pytest.approx(76.2e-6, rel=1e-3)
    assert float(expected.time_s) == pytest.approx(108.03e-6, rel=1e-3)
    assert float(floor.time_s) < measured
    assert abs(float(expected.time_s) / measured - 1) < 0.1


def test_pipeline_stages_across_nodes_send_over_the_network_by_hand():
    # Llama 3.1 405B on TP8 × PP2 over two HGX H100 nodes: one stage per node, so the one stage boundary
    # crosses the network. At batch 1 the send is one token's activations: 16,384 hidden × 2 B = 32,768 B,
    # over a 50 GB/s NIC = 0.65536 us, plus the network's 2.8 us floor (above NVLink's 2.3): 3.45536 us.
    s = parallel.decode(get_model("llama-3.1-405b"), H100, 1, 1024, layout=Layout(tp=8, pp=2))
    assert float(s.sends.network_bytes) == 32_768
    assert float(s.sends.time_s) == pytest.approx(3.45536e-6, rel=1e-6)
