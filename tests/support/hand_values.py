"""Weights a batch-1 decode step reads, derived by hand from each model's config.json.

A step multiplies by every matmul weight (attention q, k, v, o; the FFN's gate, up, down;
the output head) and looks up one row of the embedding table, so the table stays out.

Llama 3.1 8B (hidden 4096, 32 layers, 8 KV heads × 128, FFN 14,336, vocab 128,256, untied):
  attention 2·4096² + 2·4096·1024 = 41,943,040; FFN 3·4096·14,336 = 176,160,768
  → 218,103,808 per layer × 32 = 6,979,321,856; + head 128,256·4096 = 525,336,576.
Llama 3.1 70B (hidden 8192, 80 layers, 8 KV heads × 128, FFN 28,672, vocab 128,256, untied):
  attention 2·8192² + 2·8192·1024 = 150,994,944; FFN 3·8192·28,672 = 704,643,072
  → 855,638,016 per layer × 80 = 68,451,041,280; + head 128,256·8192 = 1,050,673,152.
Llama 2 7B (hidden 4096, 32 layers, 32 KV heads × 128, FFN 11,008, vocab 32,000, untied):
  attention 4·4096² = 67,108,864; FFN 3·4096·11,008 = 135,266,304
  → 202,375,168 per layer × 32 = 6,476,005,376; + head 32,000·4096 = 131,072,000.
"""

WEIGHTS_READ_PER_TOKEN = {
    "llama-3.1-8b": 6_979_321_856 + 525_336_576,      # 7,504,658,432
    "llama-3.1-70b": 68_451_041_280 + 1_050_673_152,  # 69,501,714,432
    "llama-2-7b": 6_476_005_376 + 131_072_000,         # 6,607,077,376
}


# ------------------------------------------------------------------ a Llama 3.1 8B step, kernel by kernel
# The site's kernel model (docs/conventions.md) written out again from config.json, for one model in
# bf16 (2 bytes per weight, activation and KV value), so page answers can be checked without the
# package: a multiply-add is 2 FLOPs, RMSNorm 4 per element, an add 1, SiLU·up 2 per output,
# softmax 5 per score; each kernel reads its operands and writes its result once; fused attention
# reads K and V of every attended position once. A kernel takes max(FLOPs ÷ its peak, bytes ÷
# bandwidth); weight matmuls and attention run at the bf16 peak, elementwise kernels on the vector
# units (the fp32 peak where one is published); a step is the sum of its kernels.
#
# Batch 1, one cached token (two positions attended per layer), in bytes and FLOPs:
#   embedding row 4096·2 read + 4096·2 written                         16,384 B
#   2 norms × 32 layers × (4096·2 weights + 4096·2 in + 4096·2 out)     1,572,864 B      1,048,576 FLOPs
#   qkv 32·4096·6144·2 weights + 32·(4096 + 4096)·2 + 32·2048·2 (K, V)  1,611,268,096 B  1,610,612,736
#   attention 32·4096·2·2 (q in, out) + 32·2·1024·2·2 (K, V)            786,432 B        517·32·32·2 = 1,058,816
#   o_proj 32·4096²·2 + 32·(4096 + 4096)·2                              1,074,266,112 B  1,073,741,824
#   2 adds × 32·3·4096·2                                                1,572,864 B      262,144
#   gate_up 32·4096·28,672·2 + 32·(4096 + 28,672)·2                     7,518,289,920 B  7,516,192,768
#   SiLU·up 32·(28,672 + 14,336)·2                                      2,752,512 B      917,504
#   down 32·14,336·4096·2 + 32·(14,336 + 4096)·2                        3,759,276,032 B  3,758,096,384
#   final norm 4096·2·3                                                 24,576 B         16,384
#   lm_head 128,256·4096·2 + 4096·2 + 128,256·2                         1,050,937,856 B  1,050,673,152
#   total                                                               15,020,763,648 B 15,012,620,288 FLOPs
# Every kernel is below its ridge (intensity about 1), so the step takes bytes ÷ bandwidth.
L8B = dict(layers=32, d=4096, q=4096, kv=1024, heads=32, head_dim=128, ffn=14336, vocab=128256)


def llama_8b_kernels(batch, new_tokens, attended_layers, pairs_layers):
    """{kernel: (runs on "matmul" or "vector" units, FLOPs, bytes)} of one bf16 Llama 3.1 8B step.

    `attended_layers`: positions whose K and V are read, summed over layers, per sequence;
    `pairs_layers`: query-key pairs scored, summed over layers, per sequence. The head runs on
    one position per sequence.
    """
    L, d, q, kv, H, hd, f, V = (L8B[k] for k in ("layers", "d", "q", "kv", "heads", "head_dim", "ffn", "vocab"))
    T, B, a = batch * new_tokens, batch, 2
    norm = ("vector", L * 4 * T * d, L * d * 2 + 2 * L * T * d * a)
    add = ("vector", L * T * d, 3 * L * T * d * a)
    return {
        "embedding": ("vector", 0, T * d * 2 + T * d * a),
        "attn_norm": norm,
        "qkv_proj": ("matmul", L * 2 * T * d * (q + 2 * kv),
                     L * d * (q + 2 * kv) * 2 + L * T * (d + q) * a + L * T * 2 * kv * 2),
        "attention": ("matmul", (2 * (hd + hd) + 5) * B * pairs_layers * H,
                      2 * L * T * q * a + B * attended_layers * 2 * kv * 2),
        "o_proj": ("matmul", L * 2 * T * q * d, L * q * d * 2 + L * T * (q + d) * a),
        "attn_add": add,
        "mlp_norm": norm,
        "gate_up_proj": ("matmul", L * 2 * T * d * 2 * f, L * d * 2 * f * 2 + L * T * (d + 2 * f) * a),
        "mlp_act": ("vector", L * 2 * T * f, L * T * 3 * f * a),
        "down_proj": ("matmul", L * 2 * T * f * d, L * f * d * 2 + L * T * (f + d) * a),
        "mlp_add": add,
        "final_norm": ("vector", 4 * T * d, d * 2 + 2 * T * d * a),
        "lm_head": ("matmul", 2 * B * d * V, V * d * 2 + B * (d + V) * a),
    }


def step_time_s(kernels, matmul_peak, vector_peak, bandwidth):
    """Σ over kernels of max(FLOPs ÷ peak, bytes ÷ bandwidth)."""
    return sum(max(flops / (matmul_peak if unit == "matmul" else vector_peak), nbytes / bandwidth)
               for unit, flops, nbytes in kernels.values())


def totals(kernels):
    """(FLOPs, bytes) of a step."""
    return sum(k[1] for k in kernels.values()), sum(k[2] for k in kernels.values())


def llama_8b_decode(batch, context):
    """A decode step: the new token attends to `context` cached tokens and itself in each of 32 layers."""
    positions = L8B["layers"] * (context + 1)
    return llama_8b_kernels(batch, 1, positions, positions)


def llama_8b_prefill(prompt):
    """A batch-1 prefill: token i attends to i positions (the causal half), in each of 32 layers."""
    return llama_8b_kernels(1, prompt, L8B["layers"] * prompt, L8B["layers"] * prompt * (prompt + 1) / 2)
