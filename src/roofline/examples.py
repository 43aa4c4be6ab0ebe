"""Inputs of the site's worked examples, named once so prose never types them.

Each entry is (value, unit, why). Pages quote them through `example("name")`.
"""

from __future__ import annotations

from types import MappingProxyType

from roofline.model.formats import DEFAULT_GROUP_SIZE
from roofline.registry.specfile import lookup

EXAMPLES = MappingProxyType({
    # The Visual Guide introduction's matrix-vector product: (3×2)·(2×1) in fp16.
    "intro_m": (3, "", "rows of A in the popular introduction's example"),
    "intro_k": (2, "", "columns of A (rows of B) in the popular introduction's example"),
    "intro_n": (1, "", "columns of B in the popular introduction's example"),
    "square_n": (1000, "", "the popular introduction's exercise: squaring an n×n matrix"),
    "bare_params": (8e9, "", "a back-of-envelope 8B-parameter dense model"),
    "seed_30b_params": (30e9, "", "the Visual Guide's 30B model"),
    "prompt_len": (512, "", "the prompt length the worked prefill examples use"),
    "long_context": (32768, "", "a long-context decode: 32k tokens cached"),
    "min_context": (1, "", "one token cached: the shortest context a decode step has"),
    "short_context": (1024, "", "a short chat context: 1,024 tokens cached"),
    "quant_group": (DEFAULT_GROUP_SIZE, "", "weights sharing one scale and zero point in a GPTQ/AWQ int4 checkpoint"),
    "medium_context": (4096, "", "a typical chat context"),
    "full_context": (131072, "", "a 128k-token context, the longest Gemma 3, gpt-oss and Llama 3.1 take"),
    "batch_mid": (64, "", "a serving batch"),
    "spec_draft_tokens": (4, "", "tokens proposed per speculative step"),
    "spec_acceptance": (0.8, "", "probability each drafted token is accepted"),
    "tp_degree": (8, "", "GPUs in one tensor-parallel group"),
    "fusion_ops": (4, "", "elementwise ops fused into one kernel"),
    # Modal's GPU glossary and jax-ml/scaling-book round the A100 80GB SXM4's 2.039 TB/s to 2.0
    # (see ../shared/reference/hardware-specs-notes.md, "Rounding").
    "a100_rounded_bandwidth": (2.0e12, "B/s", "the A100 80GB bandwidth as Modal's GPU glossary and scaling-book round it"),
    # --- playbook (docs/playbook.md)
    "spec_acceptance_low": (0.6, "", "a weaker draft model's acceptance rate"),
    "spec_draft_cost": (0.05, "", "one draft token's cost as a fraction of a target decode step"),
    "fusion_elements": (2**21, "", "values in one activation tensor: 512 tokens × 4,096 hidden (Llama 3.1 8B)"),
    "moe_batch_small": (8, "", "a small decode batch for a mixture-of-experts model"),
    # --- batching (docs/batching.md)
    "batch_large": (4096, "", "a decode batch far past any critical batch in the registry"),
    # --- glossary (glossary/parallelism/)
    "collective_payload": (1e6, "B", "one megabyte: the tensor a collective example moves"),
    "pp_degree": (4, "", "stages in a pipeline-parallel example"),
    # --- serving (docs/serving.md)
    "serve_input": (1024, "", "prompt tokens per request in the serving examples"),
    "serve_output": (256, "", "output tokens per request in the serving examples"),
    "serve_long_input": (8192, "", "a long prompt: one default chunk's worth of tokens"),
    "serve_concurrency": (64, "", "requests in flight in the serving examples"),
    "serve_overload": (1000, "", "more requests in flight than one H100's memory holds for Llama 3.1 8B"),
    "serve_tpot": (0.030, "s", "a TPOT target: about 33 tokens/s per user, faster than people read"),
    "serve_tight_tpot": (0.002, "s", "a TPOT target no layout of eight H100s meets for a 70B model"),
    "price_per_device_hour": (2.0, "USD", "an illustrative price per GPU-hour, the reader's own input: put yours in"),
    "ep_prompt": (2000, "", "the 2,000-token inputs of SGLang's published cross-node DeepSeek-V3 runs"),
    "ep_batch_heavy": (256, "", "a heavy decode batch per GPU under expert parallelism"),
    "ep_two_nodes": (16, "", "an expert-parallel degree over two 8-GPU nodes"),
    "ep_nine_nodes": (72, "", "an expert-parallel degree over nine 8-GPU nodes, SGLang's decode pool"),
    # --- which GPU to buy (docs/serving.md)
    "buy_input": (128, "", "prompt tokens per request in the which-GPU-to-buy question: a short chat turn"),
    "buy_output": (2048, "", "output tokens per request in the which-GPU-to-buy question: a long answer"),
})


# Old names of the introduction's example, kept for callers outside the pages.
_OLD_NAMES = MappingProxyType({"seed_m": "intro_m", "seed_k": "intro_k", "seed_n": "intro_n"})


def example(name: str) -> float:
    """The value of a named example input."""
    return lookup("example", _OLD_NAMES.get(name, name), EXAMPLES)[0]
