"""Tokens for the "Your model" page: what a config's architecture fields do to the KV cache.

>>> kv_cache("mistral-7b", 32768).text()  # every layer windowed at 4096: 4096 × 131,072 B
'537 MB'
"""

from __future__ import annotations

from roofline.model.dtypes import bytes_per_element, check_storage_dtype
from roofline.quantities.core import Input, Quantity, Source, Term, as_model, model_inputs
from roofline.registry.models import Model

#: How a calculator that ignores MLA might size DeepSeek-V3's per-head K and V.
MHA_READINGS = {
    "hidden": "head size hidden_size ÷ heads",
    "v": "head size v_head_dim for both K and V",
    "qk_v": "K at qk_nope_head_dim + qk_rope_head_dim, V at v_head_dim",
}


def _src(m: Model) -> Source:
    return Source(m.source_title, m.source_url)


def config_value(model, field: str) -> Quantity:
    """One architecture field of a registry model (n_layers, kv_lora_rank, sliding_window, ...)."""
    m = as_model(model)
    if not hasattr(m, field) or isinstance(getattr(m, field), (bool, str)):
        raise KeyError(f"config_value: {field!r} is not a numeric Model field")
    return Quantity(float(getattr(m, field)), "", f"{field} of {m.name}", "from its config.json",
                    (Input(f"{m.name} config.json", float(getattr(m, field)), "", _src(m)),), digits=6)


def kv_per_token_per_layer(model, kv_dtype: str = "bf16") -> Quantity:
    """KV-cache bytes one token adds in one layer: 2 × KV heads × head_dim, or MLA's latent + rotary key."""
    m = as_model(model)
    b = bytes_per_element(check_storage_dtype(kv_dtype, "KV dtype"))
    formula = ("(kv_lora_rank + qk_rope_head_dim) × bytes per element" if m.is_mla
               else "2 × KV heads × head_dim × bytes per element")
    line = (("(", Term(float(m.kv_lora_rank)), "+", Term(float(m.qk_rope_head_dim)), ")", "×", Term(float(b))) if m.is_mla
            else (Term(2.0), "×", Term(float(m.kv_heads)), "×", Term(float(m.head_dim)), "×", Term(float(b))))
    return Quantity(m.kv_elements_per_token_per_layer * b, "B", f"KV-cache bytes per token per layer of {m.name}",
                    formula, model_inputs(m), arithmetic=() if m.is_bare else line)


def kv_cache(model, context, kv_dtype: str = "bf16") -> Quantity:
    """KV-cache bytes one sequence holds at `context` tokens; a windowed layer holds at most its window."""
    m = as_model(model)
    b = bytes_per_element(check_storage_dtype(kv_dtype, "KV dtype"))
    ctx = float(context)
    layer = Term(m.kv_elements_per_token_per_layer * b, "B")
    full = (Term(float(m.n_full_layers)), "×", Term(ctx)) if m.n_full_layers else ()
    windowed = ((Term(float(m.n_window_layers)), "×", Term(min(ctx, float(m.sliding_window))))
                if m.n_window_layers else ())
    layers = (*full, *(("+",) if full and windowed else ()), *windowed)
    return Quantity(float(m.kv_elements_for_context(ctx)) * b, "B",
                    f"KV cache of one {m.name} sequence at {ctx:g} tokens ({kv_dtype})",
                    "per-layer bytes × (full layers × context + windowed layers × min(context, window))",
                    model_inputs(m), arithmetic=() if m.is_bare else (layer, "×", "(", *layers, ")"))


def kv_cache_unwindowed(model, context, kv_dtype: str = "bf16") -> Quantity:
    """The same cache if no layer were windowed: every layer keeps every token."""
    m = as_model(model)
    b = bytes_per_element(check_storage_dtype(kv_dtype, "KV dtype"))
    return Quantity(m.kv_elements_per_token() * float(context) * b, "B",
                    f"KV cache of one {m.name} sequence at {float(context):g} tokens if no layer were windowed",
                    "KV bytes per token × context", model_inputs(m),
                    arithmetic=(Term(m.kv_elements_per_token() * b, "B"), "×", Term(float(context))))


def kv_per_token_as_mha(model, reading: str = "qk_v", kv_dtype: str = "bf16") -> Quantity:
    """An MLA model's KV bytes per token misread as ordinary attention: K and V per head in every layer."""
    m = as_model(model)
    if not m.is_mla:
        raise ValueError(f"kv_per_token_as_mha: {m.name} does not use multi-head latent attention")
    if reading not in MHA_READINGS:
        raise KeyError(f"kv_per_token_as_mha: reading must be one of {', '.join(MHA_READINGS)}")
    b = bytes_per_element(check_storage_dtype(kv_dtype, "KV dtype"))
    k, v = {"hidden": (m.hidden_size // m.n_heads,) * 2, "v": (m.v_head_dim,) * 2,
            "qk_v": (m.qk_nope_head_dim + m.qk_rope_head_dim, m.v_head_dim)}[reading]
    return Quantity(m.n_layers * m.n_heads * (k + v) * b, "B",
                    f"{m.name}'s KV bytes per token read as ordinary attention ({MHA_READINGS[reading]})",
                    "layers × heads × (K head size + V head size) × bytes per element", model_inputs(m),
                    arithmetic=(Term(float(m.n_layers)), "×", Term(float(m.n_heads)), "×", "(", Term(float(k)), "+",
                                Term(float(v)), ")", "×", Term(float(b))))


def kv_cache_as_mha(model, context, reading: str = "qk_v", kv_dtype: str = "bf16") -> Quantity:
    """One sequence's cache at `context` tokens under an ordinary-attention misreading of an MLA model."""
    per_token = kv_per_token_as_mha(model, reading, kv_dtype)
    return Quantity(float(per_token) * float(context), "B", f"{per_token.label}, at {float(context):g} tokens",
                    "misread KV bytes per token × context", per_token.inputs,
                    arithmetic=(Term(float(per_token), "B"), "×", Term(float(context))))


TOKENS = (config_value, kv_per_token_per_layer, kv_cache, kv_cache_unwindowed, kv_per_token_as_mha, kv_cache_as_mha)
__all__ = [f.__name__ for f in TOKENS]
