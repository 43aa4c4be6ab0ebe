"""Print [[kernel]] rows for data/measurements.toml from the kernel database AIConfigurator publishes.

AIConfigurator's wheel (PyPI `aiconfigurator`, Apache-2.0) ships the per-kernel latencies NVIDIA
collected with TensorRT-LLM on each GPU (aiconfigurator_core/systems/data/<system>/...). This picks a
small grid of them (three weight-matmul shapes of Llama-class models × M from 1 to 16,384; decode
attention of a 32-head, 8-KV-head, 128-wide layer with an FP8 cache over batch × context, on each GPU) and prints
them as registry rows with their source. Run it in AIConfigurator's own environment
(`make compare-aic` creates .cache/aic-venv): `.cache/aic-venv/bin/python tools/kernel_rows_aic.py`.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pandas as pd

import aiconfigurator_core

DATA = Path(aiconfigurator_core.__file__).parent / "systems" / "data"
VERSION = importlib.metadata.version("aiconfigurator")
URL = f"https://pypi.org/project/aiconfigurator/{VERSION}/"
SYSTEMS = {"h200_sxm": ("h200-sxm", "NVIDIA H200"), "h100_sxm": ("h100-sxm5", "NVIDIA H100 SXM"),
           "b200_sxm": ("b200", "NVIDIA B200")}
SHAPES = ((6144, 4096), (4096, 16384), (10240, 8192))
MS = (1, 16, 128, 1024, 4096, 16384)
#: Qwen3-235B-A22B's experts: hidden 4096, expert width 1536, 128 experts, 8 per token, over 8 GPUs (EP8).
MOE = {"hidden": 4096, "inter": 1536, "experts": 128, "topk": 8, "ep": 8}
MOE_TOKENS = (64, 256, 1024, 4096, 16384)
DECODE = ((8, 1024), (32, 1024), (128, 1024), (32, 4096), (128, 4096), (512, 512), (1024, 256), (2048, 128),
          (16, 8192))


def row(**kw) -> str:
    lines = ["[[kernel]]"]
    for k, v in kw.items():
        lines.append(f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v}")
    return "\n".join(lines) + "\n"


def main() -> None:
    out = []
    for system, (device, name) in SYSTEMS.items():
        trt = max(p.parent.name for p in (DATA / system / "gemm" / "trtllm").glob("*/gemm_perf.parquet"))
        every = pd.read_parquet(DATA / system / "gemm" / "trtllm" / trt / "gemm_perf.parquet")
        for dtype in ("nvfp4" if system == "b200_sxm" else "fp8", "bfloat16"):
          g = every[every.gemm_dtype == dtype]
          short = "bf16" if dtype == "bfloat16" else dtype
          for n, k in SHAPES:
            for m in MS:
                hit = g[(g.m == m) & (g.n == n) & (g.k == k)]
                if hit.empty:
                    continue
                us = float(hit.latency.median()) * 1e3
                tflops = 2.0 * m * n * k / (us * 1e-6) / 1e12
                scales = ", per-tensor scales" if short == "fp8" else ", a scale per 16" if short == "nvfp4" else ""
                out.append(row(id=f"aic-{system}-{dtype}-gemm-m{m}-n{n}-k{k}", kernel="matmul",
                               library="TensorRT-LLM GEMM (AIConfigurator database)",
                               software=f"TensorRT-LLM {trt}, collected by NVIDIA for AIConfigurator {VERSION}",
                               device=device, dtype={"nvfp4": "fp4"}.get(short, short),
                               operand_format=short, m=m, n=n, k=k, groups=1,
                               measured_TFLOP_per_s=round(tflops, 3),
                               what=f"{short} weight matmul{scales} ({name}), median latency {us:.2f} µs",
                               date="2026", source_url=URL,
                               source_title=f"AIConfigurator {VERSION} wheel: systems/data/{system}/gemm/trtllm/{trt}/gemm_perf.parquet"))
    for system, (device, name) in SYSTEMS.items():
        dtype = "nvfp4" if system == "b200_sxm" else "fp8"
        files = sorted((DATA / system / "moe" / "trtllm").glob("*/moe_perf.parquet"))
        if not files:
            continue
        m = MOE
        for f in reversed(files):  # the newest collection that has the shape
            d = pd.read_parquet(f)
            d = d[(d.moe_dtype == dtype) & (d.hidden_size == m["hidden"]) & (d.inter_size == m["inter"])
                  & (d.num_experts == m["experts"]) & (d.topk == m["topk"]) & (d.moe_ep_size == m["ep"])
                  & (d.moe_tp_size == 1) & (d.distribution == "power_law_1.01")]
            if not d.empty:
                trt = f.parent.name
                break
        groups = m["experts"] // m["ep"]
        for tokens in MOE_TOKENS:
            hit = d[d.num_tokens == tokens]
            if hit.empty:
                continue
            us = float(hit.latency.min()) * 1e3
            per_expert = tokens * m["topk"] // m["experts"]
            n, k = 3 * m["inter"], m["hidden"]  # gate-up (2 × 1536) and down (1536) as one matmul: same FLOPs and weights
            tflops = 2.0 * groups * per_expert * n * k / (us * 1e-6) / 1e12
            out.append(row(id=f"aic-{system}-{dtype}-moe-qwen3-235b-ep8-t{tokens}", kernel="grouped_matmul",
                           library="TensorRT-LLM fused MoE (AIConfigurator database)",
                           software=f"TensorRT-LLM {trt}, collected by NVIDIA for AIConfigurator {VERSION}",
                           device=device, dtype="fp4" if dtype == "nvfp4" else "fp8", operand_format=dtype,
                           m=per_expert, n=n, k=k, groups=groups, measured_TFLOP_per_s=round(tflops, 3),
                           shape=f"Qwen3-235B-A22B experts on one of 8 GPUs (EP8): {tokens} tokens × 8 experts each "
                                 f"over 128, expert load skewed (power law, alpha 1.01, AIConfigurator's default)",
                           what=f"{dtype} fused MoE layer (gate-up and down of the {groups} local experts counted as one "
                                f"matmul of width {n}), {tokens} tokens, median latency {us:.1f} µs",
                           date="2026", source_url=URL,
                           source_title=f"AIConfigurator {VERSION} wheel: systems/data/{system}/moe/trtllm/{trt}/moe_perf.parquet"))
    for system, (device, name) in SYSTEMS.items():
        out += decode_rows(system, device)
    print("\n".join(out))


def decode_rows(system: str, device: str) -> list[str]:
    """One layer's decode attention over the DECODE grid on one system, FP8 cache."""
    out = []
    trt = max(p.parent.name for p in (DATA / system / "attention" / "trtllm").glob("*/generation_attention_perf.parquet"))
    a = pd.read_parquet(DATA / system / "attention" / "trtllm" / trt / "generation_attention_perf.parquet")
    a = a[(a.num_heads == 32) & (a.num_key_value_heads == 8) & (a.head_dim == 128) & (a.kv_cache_dtype == "fp8")
          & (a.window_size == 0)]
    for b, ctx in DECODE:
        hit = a[(a.batch_size == b) & (a.isl + a.step == ctx)]
        if hit.empty:
            hit = a[(a.batch_size == b) & (a.isl == ctx)]
        if hit.empty:
            continue
        h = hit.iloc[0]
        ctx_real = int(h.isl + h.step)
        us = float(h.latency) * 1e3
        kv_bytes = b * ctx_real * 2 * 8 * 128 * 1.0
        out.append(row(id=f"aic-{system}-decode-attention-b{b}-ctx{ctx_real}", kernel="attention_decode",
                       library="TensorRT-LLM XQA decode attention (AIConfigurator database)",
                       software=f"TensorRT-LLM {trt}, collected by NVIDIA for AIConfigurator {VERSION}",
                       device=device, dtype="fp8", size=kv_bytes,
                       measured_GB_per_s=round(kv_bytes / (us * 1e-6) / 1e9, 2),
                       shape=f"batch {b}, cached context {ctx_real}, 32 query heads, 8 KV heads, head dim 128, FP8 KV cache",
                       what=f"one layer's decode attention, {kv_bytes / 1e6:.1f} MB of KV cache read in {us:.1f} µs",
                       date="2026", source_url=URL,
                       source_title=f"AIConfigurator {VERSION} wheel: systems/data/{system}/attention/trtllm/{trt}/generation_attention_perf.parquet"))
    return out


if __name__ == "__main__":
    main()
