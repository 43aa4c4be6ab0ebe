"""Byte accounting that no step-time model enters: KV-cache bytes per token.

Step times, and the bytes a step moves (weight bytes per token included:
`kernels.weight_bytes_per_token`), come from the per-kernel model (`roofline.model.kernels`).
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
