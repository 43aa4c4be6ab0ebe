"""One reader per model family: the config keys it takes, transformers' defaults, and the Model fields they feed.

Each family is a table of `Spec` rows (read in order, typed, with the default the family's
`configuration_*.py` uses when a config omits the key) plus a small `finish` function that turns
the values into Model fields (layer patterns, which layers are MoE). The docs page's per-family
table is `field_table()`: the same rows, so it cannot drift from what the reader does.

Shape fields every number depends on (layers, hidden size, heads, intermediate size, vocabulary)
are required: transformers would fill them from its default model, which is never the model the
reader meant.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable

from roofline.errors import InputError
from roofline.model.formats import group_size_problem
from roofline.readfile import one_line, surrogate_problem
from roofline.registry.specfile import MODEL_SHAPE_FIELDS, model_shape_max, shape_problem
from roofline.registry.models import WEIGHT_FORMATS as CHECKPOINT_KINDS, WEIGHT_SCOPES, Model, head_dim_rule

REQUIRED = object()  # the reader refuses a config without this key
WINDOWED_LAYER_TYPES = ("sliding_attention", "chunked_attention")
LAYER_TYPES = ("full_attention", *WINDOWED_LAYER_TYPES)
QUANT_METHODS = ("mxfp4", "fp8", "gptq", "awq")
#: modules_to_not_convert entries the reader maps to tensor groups kept 16-bit: attention narrows
#: the scope to the MLP; router, embedding and head are 16-bit in every scope already.
_ATTENTION_MODULES = ("self_attn", "attn")
_ALWAYS_SIXTEEN = ("lm_head", "embed_tokens", "router", "gate", "mlp.gate", "norm")


@dataclass(frozen=True)
class Spec:
    """One config key: its type, transformers' default when absent, and what it feeds (for the table)."""

    key: str
    feeds: str
    kind: str = "int"          # int (≥ 1), count (≥ 0), int_or_null, bool, list_str, list_int
    default: Any = REQUIRED
    default_text: str = ""     # a default computed from other keys, in words

    @property
    def shape(self) -> str:
        """The model shape field whose plausible range this key is held to ('' for none):
        "ffn_size (dense layers)" is checked as an ffn_size."""
        field = self.feeds.split(" ")[0]
        return field if field in MODEL_SHAPE_FIELDS else ""

    def default_words(self) -> str:
        if self.default_text:
            return self.default_text
        if self.default is REQUIRED:
            return "required"
        if self.default is None:
            return "none"
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        if isinstance(self.default, (list, tuple)):
            return "[]" if not self.default else str(list(self.default))
        return str(self.default)


@dataclass(frozen=True)
class Fixed:
    """A property the family's modeling code hard-wires rather than reads (shown in the table)."""

    feeds: str
    value: str


class Reader:
    """Typed reads from one config (its text_config where the family nests one), errors naming file and field."""

    def __init__(self, label: str, doc: dict[str, Any], family: "Family"):
        self.label, self.doc, self.family = label, doc, family
        self.prefix = ""
        self.cfg = doc
        if family.nested and doc.get("model_type") in family.nested:
            sub = doc.get("text_config")
            if not isinstance(sub, dict):
                raise self.fail("text_config", "is missing or not an object (a multimodal config keeps "
                                "the language model there)")
            self.cfg, self.prefix = sub, "text_config."

    def fail(self, key: str, problem: str) -> InputError:
        where = key if key.startswith(("text_config", "quantization_config")) else self.prefix + key
        return InputError(f"{self.label}: field '{where}' {problem}")

    def read(self, spec: Spec) -> Any:
        if spec.key not in self.cfg:
            if spec.default is REQUIRED:
                raise self.fail(spec.key, f"is missing; the {self.family.title} reader needs it")
            return list(spec.default) if isinstance(spec.default, (list, tuple)) else spec.default
        value = self.check(spec.key, self.cfg[spec.key], spec.kind)
        if spec.shape and isinstance(value, int) and (problem := shape_problem(spec.shape, value)):
            raise self.fail(spec.key, problem)  # a billion layers is a typo that would take minutes to compute
        return value

    def check(self, key: str, value: Any, kind: str) -> Any:
        if kind == "bool":
            if not isinstance(value, bool):
                raise self.fail(key, f"must be true or false, got {_show(value)}")
            return value
        if kind in ("list_str", "list_int"):
            if value is None:
                return None
            if not isinstance(value, list):
                raise self.fail(key, f"must be a list, got {_show(value)}")
            inner = "str" if kind == "list_str" else "count"
            return [self.check(key, v, inner) for v in value]
        if kind == "str":
            if not isinstance(value, str):
                raise self.fail(key, f"must be a string, got {_show(value)}")
            return value
        if kind == "int_or_null" and value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value != int(value):
            raise self.fail(key, f"must be a whole number, got {_show(value)}")
        low = 0 if kind == "count" else 1
        if value < low:
            raise self.fail(key, f"must be {'≥ 0' if low == 0 else 'positive'}, got {_show(value)}")
        if value > 1e9:
            raise self.fail(key, f"must be at most 1e9, got {_show(value)}")
        return int(value)

    def values(self) -> dict[str, Any]:
        return {s.key: self.read(s) for s in self.family.specs}


def _show(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        value = int(value)  # JSON cannot tell 2e9 from 2000000000, so neither does the message
    text = repr(value) if not isinstance(value, str) else f"'{value}'"
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Family:
    key: str
    title: str
    model_types: tuple[str, ...]
    specs: tuple[Spec, ...]
    finish: Callable[[dict[str, Any], Reader], dict[str, Any]]
    fixed: tuple[Fixed, ...] = ()
    nested: tuple[str, ...] = ()  # top-level model_types whose language model sits in text_config
    example: str = ""

    def build(self, r: Reader, *, ident: str) -> Model:
        kw = self.finish(r.values(), r)
        fmt, group, scope = read_quantization(r)
        if scope == "experts" and kw.get("n_experts", 1) <= 1:  # a label the step could not apply: refused
            raise r.fail("quantization_config", f"quantizes the routed experts only ({fmt}), and this "
                         f"{self.title} model has none")
        name = r.doc.get("_name_or_path")
        name = name if isinstance(name, str) and name.strip() else ident
        if (problem := surrogate_problem(name)) is not None:
            raise r.fail("_name_or_path", problem)
        name = one_line(name)[:200]  # a name is shown on one line: a break in it would forge the CLI's output
        return Model(id=ident, name=name, family=r.doc["model_type"], weight_format=fmt,
                     weight_group_size=group, weight_scope=scope, weight_format_origin="config" if fmt else "",
                     source_title=f"{ident} ({self.title} reader)", **kw)


# ------------------------------------------------------------------------ shared pieces --
def _base(*, max_pos: int, head_dim: Any = None, head_dim_text: str = "hidden_size / num_attention_heads",
          tie: bool = False, vocab: Any = REQUIRED, ffn_feeds: str = "ffn_size") -> tuple[Spec, ...]:
    return (
        Spec("num_hidden_layers", "n_layers"),
        Spec("hidden_size", "hidden_size"),
        Spec("num_attention_heads", "n_heads"),
        Spec("num_key_value_heads", "kv_heads", "int_or_null", None, "num_attention_heads"),
        Spec("head_dim", "head_dim", "int_or_null", head_dim, "" if head_dim else head_dim_text),
        Spec("intermediate_size", ffn_feeds),
        Spec("vocab_size", "vocab_size", default=vocab),
        Spec("tie_word_embeddings", "tied_embeddings", "bool", tie),
        _max_position(max_pos),
    )


def _max_position(default: int) -> Spec:
    # The checkpoint's stated maximum; with rope_scaling set it already is the scaled one (never multiplied).
    return Spec("max_position_embeddings", "max_context_tokens", default=default)


def _attention(v: dict[str, Any], r: Reader) -> dict[str, Any]:
    heads, hidden = v["num_attention_heads"], v["hidden_size"]
    kv = v["num_key_value_heads"] if v["num_key_value_heads"] is not None else heads
    if kv < 1 or heads % kv:
        raise r.fail("num_key_value_heads", f"must divide num_attention_heads ({heads}), got {kv}")
    if head_dim_rule(hidden, heads, v["head_dim"]):  # the registry's rule: no head width rounded down
        raise r.fail("hidden_size", head_dim_rule(hidden, heads, v["head_dim"]))
    head_dim = v["head_dim"] if v["head_dim"] is not None else hidden // heads
    if head_dim < 1:
        raise r.fail("head_dim", f"is missing and hidden_size / num_attention_heads rounds to 0")
    return {"n_layers": v["num_hidden_layers"], "hidden_size": hidden, "n_heads": heads, "kv_heads": kv,
            "head_dim": head_dim, "vocab_size": v["vocab_size"], "tied_embeddings": v["tie_word_embeddings"],
            "gated_ffn": True, "max_context_tokens": v["max_position_embeddings"]}


def _layer_types(r: Reader, types: list[str] | None, n_layers: int) -> int | None:
    """How many layers `layer_types` marks windowed; None when the config gives no list."""
    if types is None:
        return None
    if len(types) != n_layers:
        raise r.fail("layer_types", f"lists {len(types)} layers but num_hidden_layers is {n_layers}")
    for t in types:
        if t not in LAYER_TYPES:
            raise r.fail("layer_types", f"has '{t}', not a layer type the reader knows ({', '.join(LAYER_TYPES)})")
    return sum(t in WINDOWED_LAYER_TYPES for t in types)


def _window(r: Reader, window: int | None, n_window: int) -> dict[str, int]:
    if not window or not n_window:
        return {}
    return {"sliding_window": window, "n_window_layers": n_window}


def _experts(r: Reader, n_experts: int | None, k: int | None, key_e: str, key_k: str) -> dict[str, int]:
    if not n_experts or n_experts == 1:
        return {}
    if k is None:
        raise r.fail(key_k, f"is missing; {key_e} is {n_experts}, so the reader needs the experts per token")
    if k > n_experts:
        raise r.fail(key_k, f"cannot exceed {key_e} ({n_experts}), got {k}")
    return {"n_experts": n_experts, "experts_per_token": k}


def _moe_layer_count(r: Reader, n_layers: int, n_dense: int, key: str) -> int:
    if n_dense >= n_layers:
        raise r.fail(key, f"leaves no MoE layer among {n_layers}")
    return n_dense


# ------------------------------------------------------------------------ the families --
def _llama(v, r):
    return {**_attention(v, r), "ffn_size": v["intermediate_size"], "qkv_bias": v["attention_bias"],
            "o_bias": v["attention_bias"], "mlp_bias": v["mlp_bias"]}


def _mistral(v, r):
    return {**_attention(v, r), "ffn_size": v["intermediate_size"],
            **_window(r, v["sliding_window"], v["num_hidden_layers"])}


def _mixtral(v, r):
    return {**_attention(v, r), "ffn_size": v["intermediate_size"],
            **_experts(r, v["num_local_experts"], v["num_experts_per_tok"], "num_local_experts", "num_experts_per_tok"),
            **_window(r, v["sliding_window"], v["num_hidden_layers"])}


def _qwen_window(v, r) -> dict[str, int]:
    """Qwen2/3: layers at or past max_window_layers slide, and only with use_sliding_window."""
    n = v["num_hidden_layers"]
    typed = _layer_types(r, v["layer_types"], n)
    if typed is not None:
        return _window(r, v["sliding_window"], typed)
    if not v["use_sliding_window"]:
        return {}
    return _window(r, v["sliding_window"], max(0, n - v["max_window_layers"]))


def _qwen2(v, r):
    return {**_attention(v, r), "ffn_size": v["intermediate_size"], "qkv_bias": True, **_qwen_window(v, r)}


def _qwen3(v, r):
    return {**_attention(v, r), "ffn_size": v["intermediate_size"], "qkv_bias": v["attention_bias"],
            "o_bias": v["attention_bias"], **_qwen_window(v, r)}


def _qwen3_moe(v, r):
    n, step, only = v["num_hidden_layers"], v["decoder_sparse_step"], set(v["mlp_only_layers"] or [])
    if only and max(only) >= n:  # an index past the model would be set aside in silence
        raise r.fail("mlp_only_layers", f"lists layer {max(only)}, but the model's layers are 0 to {n - 1}")
    experts = _experts(r, v["num_experts"], v["num_experts_per_tok"], "num_experts", "num_experts_per_tok")
    if not experts:
        return _qwen3(v, r)
    moe = [i for i in range(n) if i not in only and (i + 1) % step == 0]
    dense = _moe_layer_count(r, n, n - len(moe), "mlp_only_layers" if only else "decoder_sparse_step")
    return {**_qwen3(v, r), **experts, "moe_ffn_size": v["moe_intermediate_size"], "n_dense_layers": dense}


def _gemma_pattern(v, r, default_windowed: Callable[[int], bool]) -> dict[str, int]:
    n = v["num_hidden_layers"]
    typed = _layer_types(r, v["layer_types"], n)
    count = typed if typed is not None else sum(default_windowed(i) for i in range(n))
    return _window(r, v["sliding_window"], count)


def _gemma2(v, r):
    # Gemma 2: layer i slides when (i + 1) is odd, i.e. every other layer from the first
    return {**_attention(v, r), "ffn_size": v["intermediate_size"], "qkv_bias": v["attention_bias"],
            "o_bias": v["attention_bias"], **_gemma_pattern(v, r, lambda i: bool((i + 1) % 2))}


def _gemma3(v, r):
    p = v["sliding_window_pattern"]  # 6: five local layers, then one global
    return {**_attention(v, r), "ffn_size": v["intermediate_size"], "qkv_bias": v["attention_bias"],
            "o_bias": v["attention_bias"], **_gemma_pattern(v, r, lambda i: bool((i + 1) % p))}


def _deepseek(v, r):
    n, heads = v["num_hidden_layers"], v["num_attention_heads"]
    mla = {"kv_lora_rank": v["kv_lora_rank"], "q_lora_rank": v["q_lora_rank"] or 0,
           "qk_nope_head_dim": v["qk_nope_head_dim"], "qk_rope_head_dim": v["qk_rope_head_dim"],
           "v_head_dim": v["v_head_dim"]}
    experts = _experts(r, v["n_routed_experts"], v["num_experts_per_tok"], "n_routed_experts", "num_experts_per_tok")
    out = {"n_layers": n, "hidden_size": v["hidden_size"], "n_heads": heads, "kv_heads": heads,
           "head_dim": v["qk_nope_head_dim"] + v["qk_rope_head_dim"], "ffn_size": v["intermediate_size"],
           "gated_ffn": True, "vocab_size": v["vocab_size"], "tied_embeddings": v["tie_word_embeddings"],
           "max_context_tokens": v["max_position_embeddings"], **mla}
    if not experts and "n_shared_experts" in r.cfg and v["n_shared_experts"]:
        raise r.fail("n_shared_experts", f"is {v['n_shared_experts']}, but shared experts sit beside routed ones, "
                     "and n_routed_experts gives none")
    if experts:
        # DeepSeek's modeling code: layer i is MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0
        moe = [i for i in range(n) if i >= v["first_k_dense_replace"] and i % v["moe_layer_freq"] == 0]
        out.update(experts, moe_ffn_size=v["moe_intermediate_size"], n_shared_experts=v["n_shared_experts"] or 0,
                   n_dense_layers=_moe_layer_count(r, n, n - len(moe), "first_k_dense_replace"))
    return out


def _gpt_oss(v, r):
    n = v["num_hidden_layers"]
    return {**_attention(v, r), "ffn_size": v["intermediate_size"],
            **_experts(r, v["num_local_experts"], v["num_experts_per_tok"], "num_local_experts", "num_experts_per_tok"),
            "qkv_bias": v["attention_bias"], "o_bias": v["attention_bias"], "mlp_bias": True, "attention_sinks": True,
            **_gemma_pattern(v, r, lambda i: bool((i + 1) % 2))}


def _llama4(v, r):
    n = v["num_hidden_layers"]
    moe = v["moe_layers"]
    if moe is None:
        step = v["interleave_moe_layer_step"]
        moe = list(range(step - 1, n, step))
    if any(i >= n for i in moe):
        raise r.fail("moe_layers", f"names a layer past num_hidden_layers ({n})")
    experts = _experts(r, v["num_local_experts"], v["num_experts_per_tok"], "num_local_experts", "num_experts_per_tok")
    typed = _layer_types(r, v["layer_types"], n)
    if typed is None:  # no_rope_layers[i] == 1 marks a RoPE layer, which uses chunked attention
        flags = v["no_rope_layers"] or [int((i + 1) % v["no_rope_layer_interval"] != 0) for i in range(n)]
        if len(flags) != n:
            raise r.fail("no_rope_layers", f"lists {len(flags)} layers but num_hidden_layers is {n}")
        typed = sum(bool(f) for f in flags)
    out = {**_attention(v, r), "ffn_size": v["intermediate_size_mlp"], "qkv_bias": v["attention_bias"],
           "o_bias": v["attention_bias"], **_window(r, v["attention_chunk_size"], typed)}
    if experts:
        out.update(experts, moe_ffn_size=v["intermediate_size"], n_shared_experts=1,
                   n_dense_layers=_moe_layer_count(r, n, n - len(set(moe)), "moe_layers"))
    return out


_QWEN_WINDOW = (
    Spec("use_sliding_window", "windowed layers on or off", "bool", False),
    Spec("sliding_window", "sliding_window", "int_or_null", 4096),
    Spec("max_window_layers", "layers below it attend fully", "count", 28),
    Spec("layer_types", "n_window_layers (sliding_attention entries)", "list_str", None),
)
_BIAS = Spec("attention_bias", "q/k/v/o biases", "bool", False)

FAMILIES: tuple[Family, ...] = (
    Family("llama", "Llama 1–3.x", ("llama",),
           (*_base(max_pos=2048), _BIAS, Spec("mlp_bias", "MLP biases", "bool", False)), _llama,
           example="llama-3.1-8b.json"),
    Family("llama4", "Llama 4 (text)", ("llama4", "llama4_text"),
           (*_base(max_pos=131072, head_dim=128, ffn_feeds="moe_ffn_size (experts and the shared expert)"),
            Spec("intermediate_size_mlp", "ffn_size (dense layers)", default=16384),
            Spec("num_local_experts", "n_experts", default=16),
            Spec("num_experts_per_tok", "experts_per_token", default=1),
            Spec("interleave_moe_layer_step", "every n-th layer is MoE", default=1),
            Spec("moe_layers", "n_dense_layers (layers not listed)", "list_int", None,
                 "every interleave_moe_layer_step-th layer"),
            Spec("attention_chunk_size", "sliding_window (chunked attention)", "int_or_null", 8192),
            Spec("layer_types", "n_window_layers (chunked_attention entries)", "list_str", None),
            Spec("no_rope_layers", "n_window_layers (RoPE layers are chunked)", "list_int", None,
                 "three of every no_rope_layer_interval layers"),
            Spec("no_rope_layer_interval", "every n-th layer attends fully", default=4),
            _BIAS), _llama4,
           fixed=(Fixed("n_shared_experts", "1 (Llama4TextMoe's shared_expert)"),), nested=("llama4",),
           example="llama-4-maverick.json"),
    Family("mistral", "Mistral", ("mistral",),
           (*_base(max_pos=131072), Spec("sliding_window", "sliding_window (every layer)", "int_or_null", 4096)), _mistral,
           example="mistral-7b.json"),
    Family("mixtral", "Mixtral", ("mixtral",),
           (*_base(max_pos=131072, ffn_feeds="ffn_size (each expert)"), Spec("num_local_experts", "n_experts", default=8),
            Spec("num_experts_per_tok", "experts_per_token", default=2),
            Spec("sliding_window", "sliding_window (every layer)", "int_or_null", None)), _mixtral,
           example="mixtral-8x7b.json"),
    Family("qwen2", "Qwen2 / Qwen2.5", ("qwen2",), (*_base(max_pos=32768), *_QWEN_WINDOW), _qwen2,
           fixed=(Fixed("qkv_bias", "true (Qwen2Attention's q/k/v projections)"),), example="qwen2.5-72b.json"),
    Family("qwen3", "Qwen3", ("qwen3",), (*_base(max_pos=32768, head_dim=128), _BIAS, *_QWEN_WINDOW), _qwen3,
           example="qwen3-8b.json"),
    Family("qwen3_moe", "Qwen3-MoE", ("qwen3_moe",),
           (*_base(max_pos=32768, head_dim=128, ffn_feeds="ffn_size (mlp_only_layers)"), _BIAS,
            Spec("moe_intermediate_size", "moe_ffn_size", default=768),
            Spec("num_experts", "n_experts", default=128),
            Spec("num_experts_per_tok", "experts_per_token", default=8),
            Spec("decoder_sparse_step", "every n-th layer is MoE", default=1),
            Spec("mlp_only_layers", "n_dense_layers", "list_int", []),
            *_QWEN_WINDOW), _qwen3_moe, example="qwen3-30b-a3b.json"),
    Family("gemma2", "Gemma 2", ("gemma2",),
           (*_base(max_pos=8192, head_dim=256, tie=True), _BIAS,
            Spec("sliding_window", "sliding_window", "int_or_null", 4096),
            Spec("layer_types", "n_window_layers (sliding_attention entries)", "list_str", None,
                 "every other layer, from the first")), _gemma2, example="gemma-2-9b.json"),
    Family("gemma3", "Gemma 3", ("gemma3", "gemma3_text"),
           (*_base(max_pos=131072, head_dim=256, tie=True, vocab=262208), _BIAS,
            Spec("sliding_window", "sliding_window", "int_or_null", 4096),
            Spec("sliding_window_pattern", "every n-th layer attends fully", default=6),
            Spec("layer_types", "n_window_layers (sliding_attention entries)", "list_str", None,
                 "all but every sliding_window_pattern-th layer")), _gemma3, nested=("gemma3",),
           example="gemma-3-27b.json"),
    Family("deepseek", "DeepSeek-V2 / V3 (R1)", ("deepseek_v2", "deepseek_v3"),
           (Spec("num_hidden_layers", "n_layers"), Spec("hidden_size", "hidden_size"),
            Spec("num_attention_heads", "n_heads"), Spec("intermediate_size", "ffn_size (dense layers)"),
            Spec("vocab_size", "vocab_size"), Spec("tie_word_embeddings", "tied_embeddings", "bool", False),
            Spec("moe_intermediate_size", "moe_ffn_size", default=2048),
            Spec("n_routed_experts", "n_experts", "int_or_null", 256),
            Spec("n_shared_experts", "n_shared_experts", "int_or_null", 1),
            Spec("num_experts_per_tok", "experts_per_token", "int_or_null", 8),
            Spec("first_k_dense_replace", "n_dense_layers", "count", 3),
            Spec("moe_layer_freq", "every n-th layer past the dense ones is MoE", default=1),
            Spec("kv_lora_rank", "kv_lora_rank (the cached latent)", default=512),
            Spec("q_lora_rank", "q_lora_rank", "int_or_null", 1536),
            Spec("qk_nope_head_dim", "qk_nope_head_dim", default=128),
            Spec("qk_rope_head_dim", "qk_rope_head_dim (the cached rotary key)", default=64),
            Spec("v_head_dim", "v_head_dim", default=128), _max_position(4096)), _deepseek,
           fixed=(Fixed("attention", "MLA: KV cache = kv_lora_rank + qk_rope_head_dim per layer"),
                  Fixed("num_nextn_predict_layers", "left out (the multi-token-prediction layer is a draft "
                        "model, not part of a decode step)")),
           example="deepseek-v3.json"),
    Family("gpt_oss", "gpt-oss", ("gpt_oss",),
           (*_base(max_pos=131072, head_dim=64, ffn_feeds="ffn_size (each expert)"),
            Spec("num_local_experts", "n_experts", default=128),
            Spec("num_experts_per_tok", "experts_per_token", default=4),
            Spec("sliding_window", "sliding_window", "int_or_null", 128),
            Spec("layer_types", "n_window_layers (sliding_attention entries)", "list_str", None,
                 "every other layer, from the first"),
            Spec("attention_bias", "q/k/v/o biases", "bool", True)), _gpt_oss,
           fixed=(Fixed("mlp_bias", "true (expert and router biases)"),
                  Fixed("attention_sinks", "true (one learned logit per head)")),
           example="gpt-oss-120b.json"),
)
# DeepSeek-V2's own defaults differ from V3's (no dense prefix, 64 routed experts of 1407):
# the reader takes them from the config when given, which every published V2 config does.

MODEL_TYPES: dict[str, Family] = {t: f for f in FAMILIES for t in f.model_types}


# ------------------------------------------------------------------------ quantization --
def read_quantization(r: Reader) -> tuple[str, int, str]:
    """(weight_format, elements per scale, scope) from quantization_config; ('', 0, '') when there is none.

    mxfp4: blocks of 32 (the OCP Microscaling spec's block size), the routed experts only
    (transformers' Mxfp4 integration converts the expert modules and nothing else); fp8 with
    weight_block_size [a, b]: one fp32 scale per a·b block; gptq: bits 4 or 8, awq: bits 4, and
    group_size (-1: per channel). `modules_to_not_convert`
    naming the attention modules narrows the scope to the MLP; naming the router, embedding or head
    changes nothing (they stay 16-bit anyway); anything else is refused, never guessed. GPTQ's
    `desc_act` reorders the rows and does not change the bytes (its g_idx, 4 bytes per input row,
    is left out: under 0.2 % of a 4-bit layer 4096 wide).
    """
    q = r.doc.get("quantization_config")
    if q is None:
        return "", 0, ""
    if not isinstance(q, dict):
        raise r.fail("quantization_config", f"must be an object, got {_show(q)}")
    method = q.get("quant_method")
    if method not in QUANT_METHODS:
        raise r.fail("quantization_config.quant_method",
                     f"is {_show(method)}, not a format the reader knows ({', '.join(QUANT_METHODS)}), "
                     "so the weights' bytes are unknown")
    scope = _scope(r, q, "experts" if method == "mxfp4" else "linear")
    if method == "mxfp4":
        return "mxfp4", 32, "experts"
    if method == "fp8":
        block = q.get("weight_block_size")
        if block is None:
            return "fp8", 0, scope
        if not (isinstance(block, list) and len(block) == 2):
            raise r.fail("quantization_config.weight_block_size", f"must be two whole numbers, got {_show(block)}")
        a, b = (r.check("quantization_config.weight_block_size", x, "int") for x in block)
        if a * b > 1 << 24:
            raise r.fail("quantization_config.weight_block_size", f"must hold at most 16777216 weights, got {_show(block)}")
        return "fp8-block", a * b, scope
    bits = q.get("bits", q.get("w_bit"))
    allowed = (4,) if method == "awq" else (4, 8)
    if bits not in allowed or isinstance(bits, bool):
        raise r.fail("quantization_config.bits", f"is {_show(bits)}; the package models {method} at "
                     f"{' or '.join(map(str, allowed))} bits only")
    group = q.get("group_size", q.get("q_group_size", -1))
    if group != -1:
        group = r.check("quantization_config.group_size", group, "int")
        if group_size_problem(group):  # the rule --weight-format int4-gN is held to
            raise r.fail("quantization_config.group_size", group_size_problem(group))
    return f"int{int(bits)}", 0 if group == -1 else group, scope


def _scope(r: Reader, q: dict[str, Any], default: str) -> str:
    """The tensors the checkpoint quantizes, from `modules_to_not_convert` (absent: the method's default)."""
    skip = q.get("modules_to_not_convert")
    if skip is None:
        return default
    if not isinstance(skip, list) or not all(isinstance(x, str) for x in skip):
        raise r.fail("quantization_config.modules_to_not_convert", f"must be a list of module names, got {_show(skip)}")
    scope = default
    for name in skip:
        if any(re.fullmatch(r"[0-9]+", p) for p in name.split(".")):  # one layer's module: the scope is every layer's alike
            raise r.fail("quantization_config.modules_to_not_convert",
                         f"names {_show(name)}, one layer's module; the reader keeps every layer in one format, "
                         "so it cannot leave a single layer 16-bit")
        last = [p for p in name.replace("*", "").split(".") if p]
        tail = last[-1] if last else ""
        if tail in _ATTENTION_MODULES or any(p in _ATTENTION_MODULES for p in last[-2:]):
            scope = "experts" if default == "experts" else "mlp"
        elif tail in _ALWAYS_SIXTEEN or ".".join(last[-2:]) in _ALWAYS_SIXTEEN:
            continue
        else:
            raise r.fail("quantization_config.modules_to_not_convert",
                         f"names {_show(name)}, which the reader cannot map to a tensor group it keeps 16-bit "
                         "(attention, router, embedding or head)")
    return scope


def field_table() -> list[dict[str, str]]:
    """Every family's rows: config key, the Model field it feeds, and the default when absent.

    >>> next(r for r in field_table() if r["family"] == "Mistral" and r["key"] == "sliding_window")["default"]
    '4096'
    """
    rows = []
    for f in FAMILIES:
        where = "text_config." if f.nested else ""
        for s in f.specs:
            rows.append({"family": f.title, "model_types": ", ".join(f.model_types),
                         "key": s.key, "where": where, "feeds": s.feeds, "default": s.default_words()})
        for x in f.fixed:
            rows.append({"family": f.title, "model_types": ", ".join(f.model_types),
                         "key": "", "where": "", "feeds": x.feeds, "default": x.value})
    return rows


def reader_json() -> dict[str, Any]:
    """The reader's tables for the calculator's JavaScript mirror (docs/assets/calculator/config.js).

    Keys, kinds and defaults travel as data, so config.js declares none of them; the per-family
    `finish` logic is mirrored there by hand and held to this module by the parity test.
    """
    return {
        "layer_types": list(LAYER_TYPES), "windowed_layer_types": list(WINDOWED_LAYER_TYPES),
        "quant_methods": list(QUANT_METHODS), "attention_modules": list(_ATTENTION_MODULES),
        "always_sixteen_modules": list(_ALWAYS_SIXTEEN), "checkpoint_kinds": list(CHECKPOINT_KINDS),
        "weight_scopes": list(WEIGHT_SCOPES), "shape_max": model_shape_max(), "model_types": {t: f.key for f in FAMILIES for t in f.model_types},
        "families": {f.key: {"title": f.title, "nested": list(f.nested),
                             "specs": [{"key": s.key, "kind": s.kind, "required": s.default is REQUIRED,
                                        "default": None if s.default is REQUIRED else s.default,
                                        **({"shape": s.shape} if s.shape else {})} for s in f.specs]}
                     for f in FAMILIES},
    }


__all__ = ["FAMILIES", "Family", "Fixed", "MODEL_TYPES", "QUANT_METHODS", "Reader", "Spec", "field_table",
           "read_quantization", "reader_json"]
