"""Engine defaults: the KV memory share each engine keeps, its cap on requests in flight, and where a published
run's engine operates. Expected values are derived by hand in the comments or cited from the engines' sources."""

from __future__ import annotations

import math

import pytest

from roofline.errors import InputError
from roofline.model import engines, serving_runs
from roofline.registry.measurements import get_serving


def test_each_kv_rule_by_hand():
    # A device of 100 GB holding 40 GB of weights, 5 GB of activations and a 2 GB reserve.
    vllm, sglang, trt = engines.DEFAULTS["vllm-v0"], engines.DEFAULTS["sglang-0.4"], engines.DEFAULTS["trtllm-bench"]
    # vLLM, gpu_memory_utilization 0.9 of everything: 0.9 × 100 − 40 − 5 − 2 = 43 GB
    assert vllm.kv_budget_bytes(100e9, 40e9, 5e9, 2e9) == pytest.approx(43e9)
    # SGLang, mem_fraction_static 0.81 at TP8 for weights and the KV pool: 0.81 × 100 − 40 = 41 GB
    assert sglang.kv_budget_bytes(100e9, 40e9, 5e9, 2e9, tp=8) == pytest.approx(41e9)
    # ... and 0.88 on one device (server_args.py): 0.88 × 100 − 40 = 48 GB
    assert sglang.kv_budget_bytes(100e9, 40e9, 5e9, 2e9, tp=1) == pytest.approx(48e9)
    # TensorRT-LLM, 0.9 of what is free: 0.9 × (100 − 40 − 5 − 2) = 47.7 GB
    assert trt.kv_budget_bytes(100e9, 40e9, 5e9, 2e9) == pytest.approx(47.7e9)
    # weights past the share leave no KV cache, never a negative one
    assert vllm.kv_budget_bytes(100e9, 95e9, 5e9, 2e9) == 0.0


def test_the_kv_share_reduces_the_requests_by_the_stated_amount():
    # 1,000 requests fill 50 GB (50 MB each); a 45 GB budget holds ⌊45 ÷ 0.05⌋ = 900, never more than the cap
    assert engines.requests_that_fit(1000, 50e9, 45e9) == 900
    assert engines.requests_that_fit(1000, 50e9, 60e9) == 1000
    assert engines.requests_that_fit(0, 0.0, 1e9) == 0
    with pytest.raises(InputError, match="at least zero"):
        engines.requests_that_fit(10, -1.0, 1e9)


def test_a_tensorrt_llm_run_keeps_nine_tenths_of_the_ceilings_requests():
    # trtllm-bench gives the KV cache 0.9 of the memory free after weights and activations. The ceiling's cap
    # fills that free memory to within one request, so the engine holds ⌊0.9 × cap⌋ requests, within one:
    # Llama 3.1 8B at 2,048 in and 2,048 out on one H100.
    c = serving_runs.ceiling(get_serving("trtllm-1.0-h100-llama-3.1-8b-2048-2048"))
    e = c.engine_point
    assert e.defaults.key == "trtllm-bench"
    assert abs(e.memory_requests - math.floor(0.9 * c.point.memory_cap)) <= 1
    assert e.slots == e.memory_requests


def test_vllm_v0_holds_at_most_256_requests():
    # vLLM 0.7's V0 engine defaults max_num_seqs to 256 (engine/arg_utils.py): dstack's offline DeepSeek-R1 run
    # on eight MI300X at 3,200 in and 800 out has memory for more (its BF16 MLA cache), so 256 binds.
    c = serving_runs.ceiling(get_serving("dstack-vllm-mi300x-deepseek-r1-3200-800"))
    assert c.engine_point.defaults.key == "vllm-v0"
    assert c.engine_point.memory_requests > 256 and c.engine_point.slots == 256
    assert c.expected_tokens_per_s <= c.ceiling_tokens_per_s


def test_a_static_batch_keeps_its_own_requests():
    # Oracle's batch-of-16 run holds 16 requests: far under vLLM's 256 and its memory
    c = serving_runs.ceiling(get_serving("oci-vllm-mi300x-llama-3.1-405b-batch-16"))
    assert c.engine_point.slots == 16


@pytest.mark.parametrize("engine, software, date, key", [
    ("vLLM", "vLLM 0.7.3.dev138+g21f6ca217 (ROCm 6.3), vLLM benchmarks/benchmark_throughput.py", "2025-03", "vllm-v0"),
    ("vLLM", "vLLM 0.8.5, benchmarks/benchmark_throughput.py", "2025-05", "vllm-v1"),
    ("vLLM", "vLLM (version not stated)", "2024-10", "vllm-v0"),   # before 0.8.0 (March 2025)
    ("vLLM", "vLLM (version not stated)", "2025-06", "vllm-v1"),
    ("SGLang", "SGLang 0.4.3.post2", "2025-03", "sglang-0.4"),
    ("TensorRT-LLM", "TensorRT-LLM v1.0, PyTorch backend, trtllm-bench throughput", "2025-09", "trtllm-bench"),
    ("TensorRT-LLM", "TensorRT-LLM v1.0, trtllm-serve", "2025-09", "trtllm"),
])
def test_each_run_gets_its_engine_versions_defaults(engine, software, date, key):
    assert engines.defaults_for(engine, software, date).key == key


def test_an_engine_without_defaults_keeps_the_ceilings_memory():
    assert engines.defaults_for("MAX", "Modular MAX 25.1", "2025-03") is None
