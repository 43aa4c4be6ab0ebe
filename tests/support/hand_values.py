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
