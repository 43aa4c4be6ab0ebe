"""The expected figure at an engine's caps: the requests its KV share of memory fits and its cap allows.

Values are derived by hand from the registry's inputs (model shapes, the device's usable memory) and the
engines' published defaults, never copied from the code's output.
"""

from __future__ import annotations

import json

import pytest

from roofline import Workload, serve_point
from roofline.cli import main
from roofline.model import engines, kernels, serving
from roofline.model.parallel import Layout
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model

L8 = get_model("llama-3.1-8b")
H100 = get_device("h100-sxm5")
H200 = get_device("h200-sxm")


def test_vllm_kv_share_cuts_the_expected_requests_by_a_tenth_of_memory():
    # Llama 3.1 8B in BF16 holds 32 layers × 8 KV heads × 128 dims × 2 (K and V) × 2 bytes = 131,072 bytes of
    # KV cache a token, so a request of I + O = 1024 + 256 = 1,280 tokens holds 1,280 × 131,072 = 167,772,160 bytes.
    # The ceiling fills every byte left after the weights, the activations and the reserve; vLLM's
    # gpu_memory_utilization 0.9 keeps the same weights, activations and reserve inside 0.9 of the memory M, so its
    # KV cache is 0.1 · M smaller: 0.1 · M ÷ 167,772,160 requests fewer (M = the device's usable memory, about
    # 85.5 GB on the H100 SXM5: 8.55e9 ÷ 1.678e8 ≈ 51 requests), to within one request (the cap's floor).
    per_request = 1280 * 32 * 8 * 128 * 2 * 2
    assert per_request == 167_772_160
    wl = Workload(1024, 256)
    cap = serving.memory_cap(L8, H100, Layout(), wl)
    fit = serving.engine_requests(L8, H100, Layout(), wl, cap)
    cut = 0.1 * kernels.usable_memory_bytes(H100) / per_request
    assert 50 < cut < 52
    assert abs((cap - fit) - cut) <= 1
    # two replicas of one device each: each replica's engine holds the same whole requests, twice in all
    dp2 = Layout(dp=2)
    assert serving.engine_requests(L8, H100, dp2, wl, serving.memory_cap(L8, H100, dp2, wl)) == 2 * fit
    # the expected figure holds those requests where the clients offer more; the ceiling holds the memory cap
    p = serve_point(L8, H100, Layout(), Workload(1024, 256, 2000))
    assert p.expected_slots == fit and p.memory_cap == cap
    assert p.expected_output_tokens_per_s <= p.output_tokens_per_s


def test_the_engine_cap_binds_where_the_kv_share_holds_more():
    # On the H200 (about 141 GB) a request of 128 + 128 tokens holds 256 × 131,072 = 33.6 MB: the KV share of any
    # engine fits thousands (0.9 × 141 GB − 16 GB of weights ≈ 111 GB ≈ 3,300 requests), so vLLM's max_num_seqs
    # 1,024 and TensorRT-LLM's max_batch_size 2,048 bind; SGLang has no cap, so its KV share binds below the
    # ceiling's memory cap; a reader's --max-concurrency replaces the engine's cap.
    at = lambda **kw: serve_point(L8, H200, Layout(), Workload(128, 128, 4096, **kw))  # noqa: E731
    assert at().expected_slots == 1024                      # no engine named: vLLM's defaults
    assert at(engine="vllm").expected_slots == 1024
    assert at(engine="trtllm").expected_slots == 2048
    sglang = at(engine="sglang")
    assert 2048 < sglang.expected_slots < sglang.memory_cap
    assert at(max_concurrency=64).expected_slots == 64
    # below every cap the expected figure holds the clients' requests, as the ceiling does
    assert serve_point(L8, H200, Layout(), Workload(128, 128, 16)).expected_slots == 16


def test_one_table_of_engine_defaults_feeds_serve():
    # `serve --engine` reads the engines table's current rows: vLLM V1's 1,024 requests and 8,192-token chunk,
    # SGLang's 8,192-token chunk and 1-token pages, TensorRT-LLM's 2,048 requests and 32-token blocks
    assert serving.ENGINES is engines.SERVE
    assert set(engines.SERVE) == {"vllm", "sglang", "trtllm"}
    assert Workload(1024, 256, engine="vllm").max_concurrency == 1024
    assert Workload(1024, 256, engine="trtllm").kv_block_tokens == 32
    assert Workload(1024, 256, engine="sglang").kv_block_tokens == 1
    assert Workload(1024, 256, engine="sglang").chunk_tokens == 8192
    assert Workload(1024, 256, engine="vllm", chunk_tokens=512).chunk_tokens == 512
    for d in engines.SERVE.values():
        assert d.url.startswith("https://") and d.chunk_tokens and d.kv_block_tokens


def test_serve_without_an_engine_names_vllms_defaults(capsys):
    argv = ["serve", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--input-tokens", "1024",
            "--output-tokens", "256", "--concurrency", "64"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "vLLM 0.8 and later (V1 engine)" in out and "no --engine given" in out
    assert "the ceiling takes no engine cap" in out
    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    named = doc["assumptions"]["expected"]["engine_defaults"]
    assert named["engine"] == "vllm" and named["named"] is False and named["url"].startswith("https://")
    assert doc["point"]["expected_requests_in_flight"] == 64
    assert main([*argv, "--engine", "sglang", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["assumptions"]["expected"]["engine_defaults"]["engine"] == "sglang"
    assert doc["assumptions"]["expected"]["engine_defaults"]["named"] is True


@pytest.mark.parametrize("engine", [None, "vllm", "sglang", "trtllm"])
def test_expected_never_above_the_ceiling_at_the_engines_caps(engine):
    pts = serving.frontier(L8, H100, Workload(1024, 256, engine=engine), 2)
    assert pts and all(p.expected_output_tokens_per_s <= p.output_tokens_per_s for p in pts)
    assert all(p.expected_slots <= min(p.concurrency, p.memory_cap) for p in pts)
