"""What a serving engine keeps back and caps by default, per engine version: the share of memory its KV cache
may take, and the requests it holds in flight at most. The expected figure of a published serving run uses its
engine's defaults (`serving_runs`); the ceiling keeps the device's physics (every byte left after the weights,
the activations and the runtime reserve holds KV cache, and no engine cap).

Each engine states its KV share against a different base, so each has its rule (`KV_RULES`), per device:

* "device" (vLLM's `gpu_memory_utilization`): the fraction f of the device's memory M holds everything the
  engine allocates, so KV = f·M − weights − activations − reserve;
* "static" (SGLang's `mem_fraction_static`): f·M holds the weights and the KV pool, so KV = f·M − weights;
* "free" (TensorRT-LLM's `free_gpu_memory_fraction`): f of the memory free after the weights and the
  activations, so KV = f·(M − weights − activations − reserve).

The requests whose KV cache fits that budget are the ceiling's memory cap scaled by the budget ÷ the KV bytes the
ceiling's cap holds (the cache grows by the same bytes with each request), then capped by the engine's own
limit on requests in flight.

`roofline serve --engine` reads the current versions' rows (`SERVE`): their cap on requests in flight, their
prompt tokens a step and their KV block, for the ceiling and the expected figure; the expected figure also holds
only the requests the engine's KV share fits. With no engine named, the expected figure takes `DEFAULT_SERVE`'s
defaults and the ceiling keeps the physics.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from roofline.errors import InputError

KV_RULES = ("device", "static", "free")


@dataclass(frozen=True)
class EngineDefaults:
    """One engine version's defaults: KV share `kv_fraction` under `kv_rule`, at most `max_requests` in flight.

    >>> DEFAULTS["trtllm-bench"].kv_budget_bytes(100e9, 40e9, 5e9, 2e9, 8)  # 0.9 × (100 − 40 − 5 − 2) GB
    47700000000.0
    """

    key: str
    engine: str                      # the name serving runs give it: "vLLM", "SGLang", "TensorRT-LLM"
    versions: str                    # the versions these defaults hold for, in words
    kv_fraction: float               # f, or the fraction at one device where `fraction_by_tp` varies it
    kv_rule: str                     # one of KV_RULES
    max_requests: int | None         # requests in flight at most (None: memory alone)
    source: str
    url: str
    fraction_by_tp: tuple[tuple[int, float], ...] = ()   # (least TP degree, f), largest first, where f varies
    chunk_tokens: int | None = None  # prompt tokens a step at most (the rows `serve --engine` reads)
    kv_block_tokens: int | None = None   # tokens a paged KV block holds (the rows `serve --engine` reads)

    def fraction(self, tp: int) -> float:
        """f at tensor-parallel degree `tp`."""
        for least, f in self.fraction_by_tp:
            if tp >= least:
                return f
        return self.kv_fraction

    def kv_budget_bytes(self, memory_bytes: float, weights_bytes: float, activation_bytes: float,
                        reserve_bytes: float, tp: int = 1) -> float:
        """The KV cache bytes one device holds under this engine's rule (never below zero)."""
        f = self.fraction(tp)
        if self.kv_rule == "device":
            kv = f * memory_bytes - weights_bytes - activation_bytes - reserve_bytes
        elif self.kv_rule == "static":
            kv = f * memory_bytes - weights_bytes
        else:
            kv = f * (memory_bytes - weights_bytes - activation_bytes - reserve_bytes)
        return max(kv, 0.0)

    @property
    def words(self) -> str:
        """The defaults in one line, for notices and reports."""
        rule = {"device": "of the device's memory for weights, activations and KV cache",
                "static": "of the device's memory for weights and the KV pool",
                "free": "of the memory left after weights and activations for the KV cache"}[self.kv_rule]
        f = (", ".join(f"{v:g} at TP ≥ {t}" for t, v in self.fraction_by_tp) + f", else {self.kv_fraction:g}"
             if self.fraction_by_tp else f"{self.kv_fraction:g}")
        cap = f"at most {self.max_requests:,} requests in flight" if self.max_requests else "requests capped by memory"
        return f"{self.engine} {self.versions}: {f} {rule}; {cap}"


DEFAULTS = {d.key: d for d in (
    EngineDefaults("vllm-v0", "vLLM", "0.6 and 0.7 (V0 engine)", 0.9, "device", 256,
                   "vLLM v0.7.3 engine/arg_utils.py: EngineArgs max_num_seqs 256, gpu_memory_utilization 0.90",
                   "https://github.com/vllm-project/vllm/blob/v0.7.3/vllm/engine/arg_utils.py"),
    # The OpenAI server's defaults on GPUs of 70 GiB or more other than the A100: max_num_seqs 1024 and
    # max_num_batched_tokens 8192 (the chunk); block_size 16; gpu_memory_utilization 0.9.
    EngineDefaults("vllm-v1", "vLLM", "0.8 and later (V1 engine)", 0.9, "device", 1024,
                   "vLLM v0.10.0 engine/arg_utils.py: for the OpenAI server on GPUs of 70 GiB or more (not A100) "
                   "max_num_seqs 1024 and max_num_batched_tokens 8192; gpu_memory_utilization 0.9; block_size 16",
                   "https://github.com/vllm-project/vllm/blob/v0.10.0/vllm/engine/arg_utils.py",
                   chunk_tokens=8192, kv_block_tokens=16),
    EngineDefaults("sglang-0.4", "SGLang", "0.4", 0.88, "static", None,
                   "SGLang server_args.py: mem_fraction_static 0.79 at TP ≥ 16, 0.81 at TP ≥ 8, 0.85 at TP ≥ 4, "
                   "0.87 at TP ≥ 2, else 0.88; max_running_requests unset (sized from the memory pool); "
                   "chunked_prefill_size 8192 on H100-class GPUs; page_size 1",
                   "https://github.com/sgl-project/sglang/blob/v0.4.3.post2/python/sglang/srt/server_args.py",
                   ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87)), chunk_tokens=8192, kv_block_tokens=1),
    EngineDefaults("trtllm-bench", "TensorRT-LLM", "trtllm-bench throughput", 0.9, "free", 4096,
                   "TensorRT-LLM perf-overview: kv_cache_free_gpu_mem_fraction default 0.90 (0.95 in many of the "
                   "published runs); bench/build/tuning.py caps max_batch_size at 4096",
                   "https://github.com/NVIDIA/TensorRT-LLM/blob/v1.0.0/tensorrt_llm/bench/build/tuning.py"),
    EngineDefaults("trtllm", "TensorRT-LLM", "LLM API", 0.9, "free", 2048,
                   "TensorRT-LLM llm_args.py: KvCacheConfig free_gpu_memory_fraction 0.9; max_batch_size 2048, "
                   "max_num_tokens 8192; tokens_per_block 32",
                   "https://github.com/NVIDIA/TensorRT-LLM/blob/main/tensorrt_llm/llmapi/llm_args.py",
                   chunk_tokens=8192, kv_block_tokens=32),
)}

#: The rows `roofline serve --engine NAME` reads: each engine's current version.
SERVE = {"vllm": DEFAULTS["vllm-v1"], "sglang": DEFAULTS["sglang-0.4"], "trtllm": DEFAULTS["trtllm"]}
#: The engine whose defaults the expected figure takes where no engine is named.
DEFAULT_SERVE = "vllm"

#: vLLM's V1 engine became its default in 0.8.0, released in March 2025.
_VLLM_V1_FROM = ((0, 8), "2025-03")
_VERSION = re.compile(r"(\d+)\.(\d+)")


def defaults_for(engine: str, software: str = "", date: str = "") -> EngineDefaults | None:
    """The defaults a run's engine held, from its name, its software line and its date (None: unknown engine).

    >>> defaults_for("vLLM", "vLLM 0.7.3.dev138+g21f6ca217 (ROCm 6.3)").key
    'vllm-v0'
    >>> defaults_for("vLLM", "vLLM (version not stated)", "2024-10").key  # before 0.8.0's release
    'vllm-v0'
    """
    if engine == "vLLM":
        m = _VERSION.search(software.split("vLLM", 1)[-1])
        if m:
            v1 = (int(m.group(1)), int(m.group(2))) >= _VLLM_V1_FROM[0]
        else:
            v1 = bool(date) and date >= _VLLM_V1_FROM[1]
        return DEFAULTS["vllm-v1" if v1 else "vllm-v0"]
    if engine == "SGLang":
        return DEFAULTS["sglang-0.4"]
    if engine == "TensorRT-LLM":
        return DEFAULTS["trtllm-bench" if "trtllm-bench" in software else "trtllm"]
    return None


def requests_that_fit(ceiling_cap: int, kv_at_cap_bytes: float, kv_budget_bytes: float) -> int:
    """Requests whose KV cache fits `kv_budget_bytes` on a device, when `ceiling_cap` requests hold
    `kv_at_cap_bytes` there: ⌊cap × budget ÷ KV at the cap⌋, never above the cap.

    >>> requests_that_fit(1000, 50e9, 45e9)  # 50 MB a request; 45 GB holds 900
    900
    """
    if ceiling_cap < 0 or kv_at_cap_bytes < 0 or kv_budget_bytes < 0:
        raise InputError("requests_that_fit needs a cap and byte counts of at least zero")
    if ceiling_cap == 0 or kv_at_cap_bytes == 0:
        return ceiling_cap
    return min(ceiling_cap, int(math.floor(ceiling_cap * kv_budget_bytes / kv_at_cap_bytes * (1 + 1e-12))))
