"""The per-kernel model on the architectures beyond a plain dense transformer: MLA, shared experts, dense-before-MoE layers,
fine-grained experts and sliding windows. Every expected value is derived by hand in its comment."""

from __future__ import annotations

import pytest

from roofline.model import kernels
from roofline.model.formats import Formats
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model

H200 = get_device("h200-sxm")


def matmul_weight_bytes(step) -> float:
    return sum(float(k.weight_bytes) for k in step.ops if k.name in kernels.WEIGHT_MATMULS)


def kv_read(step) -> float:
    return sum(float(k.kv_read_bytes) for k in step.ops)


def test_fine_grained_experts_read_their_own_width():
    # Qwen3-30B-A3B at batch 1, bf16. Per layer: q 2048·4096 + k, v 2·2048·512 + o 4096·2048 = 18,874,368;
    # 8 experts · 3·2048·768 = 37,748,736; router 2048·128 = 262,144 -> 56,885,248 × 48 = 2,730,491,904;
    # output head 151,936·2048 = 311,164,928. (3,041,656,832 weights) × 2 B = 6,083,313,664 B.
    s = kernels.decode(get_model("qwen3-30b-a3b"), H200, 1, 1023)
    assert matmul_weight_bytes(s) == 6_083_313_664


def test_deepseek_v3_reads_dense_shared_and_routed_weights():
    # Batch 1, bf16. Attention per layer (q_a 7168·1536, q_b 1536·128·192, kv_a 7168·576, kv_b 512·128·256,
    # o 128·128·7168) = 187,105,280 × 61 = 11,413,422,080. Three dense MLPs 3·7168·18432 = 1,189,085,184.
    # 58 MoE layers × ((8 routed + 1 shared) · 3·7168·2048 + router 7168·256) = 23,095,410,688.
    # Output head 129,280·7168 = 926,679,040. Sum 36,624,596,992 weights (DeepSeek's "36.6B activated")
    # × 2 B = 73,249,193,984 B.
    s = kernels.decode(get_model("deepseek-v3"), H200, 1, 1023)
    assert matmul_weight_bytes(s) == 73_249_193_984
    names = [k.name for k in s.ops]
    assert {"gate_up_proj", "down_proj", "shared_gate_up", "shared_down", "experts_gate_up", "router"} <= set(names)
    assert len(names) == len(set(names)), "kernel names are unique within a step"


def test_mla_reads_the_latent_cache_once():
    # 1,024 positions (1,023 cached + the new token) × 61 layers × (512 + 64) × 2 B = 71,958,528 B.
    s = kernels.decode(get_model("deepseek-v3"), H200, 1, 1023)
    assert kv_read(s) == 1024 * 61 * 576 * 2 == 71_958_528
    # The step's cache: the same 1,024 positions.
    assert s.kv_resident_bytes == 71_958_528
    unfused = kernels.decode(get_model("deepseek-v3"), H200, 1, 1023, attention="unfused")
    assert unfused.flops == pytest.approx(s.flops)


def test_mla_attention_intensity_is_set_by_the_latent():
    # Absorbed MLA decode: per cached position and layer, 128 heads × (2·(576 + 512) + 5) FLOPs over one
    # 576-value latent in bf16: 128 · 2181 / 1152 = 242.3 FLOP/byte, far above GQA's ~2·(heads/KV heads)/2.
    assert kernels.attention_intensity_limit(get_model("deepseek-v3")) == pytest.approx(128 * 2181 / 1152)


def test_windowed_kv_reads_stop_at_the_window():
    # gpt-oss-120b: 18 full and 18 windowed (128) layers, 8 KV heads × 64 × K and V = 1,024 values each.
    # At 32,768 + 1 positions: (18 · 32,769 + 18 · 128) × 1,024 × 2 B.
    s = kernels.decode(get_model("gpt-oss-120b"), H200, 1, 32768)
    assert kv_read(s) == (18 * 32769 + 18 * 128) * 1024 * 2


def test_resident_weights_count_every_expert_once():
    # bf16 resident bytes = 2 B × (every weight) less the biases, sinks and extra norms the kernel model
    # leaves out; DeepSeek-V3 has no biases, so the two differ only by MLA's latent norms (2,048 per layer).
    m = get_model("deepseek-v3")
    assert kernels.weights_resident_bytes(m, Formats.of("bf16")) == 2 * (m.total_params - 61 * 2048)
    q = get_model("qwen3-30b-a3b")
    assert kernels.weights_resident_bytes(q, Formats.of("bf16")) == 2 * q.total_params
