"""Byte accounting that no step-time model enters: KV-cache bytes per token, weight bytes as stored.

Step times, and the bytes a step moves, come from the per-kernel model (`roofline.model.kernels`).
These are the sizes that model and the pages both start from.
"""

from __future__ import annotations

from roofline.model.dtypes import bytes_per_element, check_storage_dtype
from roofline.registry.models import Model


def kv_bytes_per_token(model: Model, kv_dtype: str = "bf16") -> float:
    """KV-cache bytes one token adds: 2 (K and V) · layers · KV heads · head_dim · bytes.

    For MLA it is layers · (kv_lora_rank + qk_rope_head_dim) · bytes; a windowed layer adds
    this only until the cache holds its window (`Model.kv_elements_for_context`).

    >>> kv_bytes_per_token(get_model("llama-3.1-8b"), "bf16")  # 2·32·8·128·2
    131072.0
    """
    return model.kv_elements_per_token() * bytes_per_element(check_storage_dtype(kv_dtype, "KV dtype"))


def weight_bytes_resident(model: Model, weight_dtype: str) -> float:
    """Every weight of the checkpoint (all experts) at one plain element size, no group metadata.

    The per-kernel model's `kernels.weights_resident_bytes` counts formats as checkpoints store
    them (group scales, 16-bit head); this plain count is what the calculator's whole-step mirror reads.
    """
    return model.total_params * bytes_per_element(weight_dtype)


def weight_bytes_per_token(model: Model, weight_dtype: str = "bf16") -> float:
    """Matmul weight bytes a batch-1 decode step reads at one plain element size (the output head
    included, the embedding table a lookup; for MoE the routed experts only).

    The per-kernel model's `kernels.weight_bytes_per_token` adds the norm vectors and the embedding
    row and counts group metadata; this plain count is what the calculator's whole-step mirror reads.

    >>> round(weight_bytes_per_token(get_model("llama-3.1-8b")) / 1e9, 2)  # 7.50e9 weights · 2 B
    15.01
    """
    return model.matmul_params() * bytes_per_element(check_storage_dtype(weight_dtype, "weight dtype"))
