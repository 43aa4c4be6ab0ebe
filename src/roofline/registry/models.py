"""Models: transformer architecture -> parameter, weight-byte and KV-cache accounting."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from roofline.errors import InputError
from roofline.registry.loader import SpecRegistry, load_by_id
from roofline.registry.specfile import Entry

#: How far a model card's parameter count may sit from the one its architecture fields give (CONTRIBUTING.md, "Add a model").
PUBLISHED_TOLERANCE = 0.05

WEIGHT_FORMATS = ("mxfp4", "nvfp4", "fp8-block", "fp8", "int4", "int8")  # quantization_config formats a Model records
WEIGHT_SCOPES = ("linear", "mlp", "experts")  # formats.WEIGHT_SCOPES: which tensors the checkpoint quantizes


@dataclass(frozen=True)
class Model:
    """A decoder-only transformer described by its config.json fields.

    A model built from a bare parameter count (`Model.from_param_count`) has
    `n_layers == 0`: it is one dense matrix of that many weights, with no
    attention, no KV cache and no embedding table (the seeds' back-of-envelope).

    Every field after `experts_per_token` defaults to "absent", so a Llama-shaped
    model needs none of them: `moe_ffn_size` 0 means experts are `ffn_size` wide
    (Mixtral); `n_dense_layers` counts the MoE model's layers that keep a dense
    `ffn_size` MLP (DeepSeek-V3's first three); `kv_lora_rank` > 0 means multi-head
    latent attention; `sliding_window` > 0 caps the KV cache of `n_window_layers`
    layers at that many tokens.

    >>> get_model("llama-3.1-8b").kv_heads
    8
    """

    id: str
    name: str
    n_layers: int
    hidden_size: int
    n_heads: int
    kv_heads: int
    head_dim: int
    ffn_size: int
    gated_ffn: bool
    vocab_size: int
    tied_embeddings: bool
    n_experts: int = 1
    experts_per_token: int = 1
    published_params: float = 0.0
    source_url: str = ""
    source_title: str = ""
    note: str = ""
    bare_params: float = 0.0  # only for Model.from_param_count
    # --- mixture of experts beyond Mixtral's shape ------------------------------------------
    moe_ffn_size: int = 0        # a routed expert's intermediate size; 0: ffn_size
    n_shared_experts: int = 0    # experts every token uses (DeepSeek, Llama 4), each moe_ffn_size wide
    n_dense_layers: int = 0      # MoE models only: layers with one dense ffn_size MLP instead of experts
    # --- multi-head latent attention (DeepSeek-V2/V3) ----------------------------------------
    kv_lora_rank: int = 0        # the cached latent's width; > 0 means MLA
    q_lora_rank: int = 0         # 0: queries projected straight from the hidden state
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0    # the rotary key, cached beside the latent
    v_head_dim: int = 0
    # --- sliding-window (local) attention ----------------------------------------------------
    sliding_window: int = 0      # tokens a windowed layer attends to and caches; 0: none
    n_window_layers: int = 0     # how many of n_layers are windowed (the rest attend to everything)
    # --- biases and extras that add weights ----------------------------------------------------
    qkv_bias: bool = False       # Qwen2, gpt-oss
    o_bias: bool = False         # gpt-oss
    mlp_bias: bool = False       # gpt-oss: expert and router biases
    attention_sinks: bool = False  # gpt-oss: one learned logit per head per layer
    # --- the checkpoint's stored weight format (quantization_config), "" when unquantized ---------
    # mxfp4 (gpt-oss) covers the experts only; attention, router, embeddings and head stay bf16.
    # fp8-block (DeepSeek-V3) covers the linear layers; embeddings, head and router stay bf16.
    weight_format: str = ""
    weight_group_size: int = 0   # elements sharing one scale; 0 when not grouped
    weight_scope: str = ""       # which tensors it covers (formats.WEIGHT_SCOPES); "" = the method's default
    weight_format_origin: str = ""  # "config" (read from config.json) or "registry"
    family: str = ""             # config.json model_type, for models read from a config
    published_active_params: float = 0.0
    published_active_counts_embedding: bool = True  # False where the publisher leaves the embedding out
    # --- the most tokens a sequence may hold (config.json max_position_embeddings); 0: not recorded
    max_context_tokens: int = 0

    @classmethod
    def from_param_count(cls, params: float) -> "Model":
        """A dense weights-only stand-in: Model.from_param_count(8e9) streams 8e9 weights per token."""
        return cls(id=f"{params:g} params", name=f"dense model, {params:g} parameters", n_layers=0,
                   hidden_size=0, n_heads=0, kv_heads=0, head_dim=0, ffn_size=0,
                   gated_ffn=False, vocab_size=0, tied_embeddings=True, bare_params=float(params),
                   published_params=float(params))

    @property
    def is_bare(self) -> bool:
        return self.n_layers == 0

    @property
    def is_moe(self) -> bool:
        return self.n_experts > 1

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def n_full_layers(self) -> int:
        """Layers whose attention (and KV cache) spans the whole context."""
        return self.n_layers - self.n_window_layers

    @property
    def n_moe_layers(self) -> int:
        """Layers whose MLP is routed experts (every layer of a dense model counts as one 'expert')."""
        return self.n_layers - self.n_dense_layers

    @property
    def expert_ffn_size(self) -> int:
        return self.moe_ffn_size or self.ffn_size

    @property
    def attention_kind(self) -> str:
        """MLA, MHA (one KV head per query head), MQA (one KV head) or GQA; 'none' for a bare count.

        >>> get_model("llama-3.1-8b").attention_kind
        'GQA'
        """
        if self.is_bare:
            return "none"
        if self.is_mla:
            return "MLA"
        if self.kv_heads == self.n_heads:
            return "MHA"
        return "MQA" if self.kv_heads == 1 else "GQA"

    @property
    def attention_description(self) -> str:
        """attention_kind plus the window, e.g. 'GQA, sliding window 128 on 12 of 24 layers'."""
        if not self.n_window_layers:
            return self.attention_kind
        return (f"{self.attention_kind}, sliding window {self.sliding_window} on "
                f"{self.n_window_layers} of {self.n_layers} layers")

    # --- the weight matmuls of one layer, as (inputs, outputs) -------------------------------
    def attention_matmul_shapes(self) -> tuple[tuple[str, int, int], ...]:
        """(name, in features, out features) of each attention projection in one layer.

        MLA is counted as stored (q_a, q_b, kv_a, kv_b, o); an engine that absorbs kv_b into
        q and o at decode reads the same weights.

        >>> get_model("llama-3.1-8b").attention_matmul_shapes()[1]
        ('k_proj', 4096, 1024)
        """
        d, h = self.hidden_size, self.n_heads
        if self.is_mla:
            qk = self.qk_nope_head_dim + self.qk_rope_head_dim
            q = ((("q_a_proj", d, self.q_lora_rank), ("q_b_proj", self.q_lora_rank, h * qk))
                 if self.q_lora_rank else (("q_proj", d, h * qk),))
            return (*q, ("kv_a_proj", d, self.kv_lora_rank + self.qk_rope_head_dim),
                    ("kv_b_proj", self.kv_lora_rank, h * (self.qk_nope_head_dim + self.v_head_dim)),
                    ("o_proj", h * self.v_head_dim, d))
        q, kv = h * self.head_dim, self.kv_heads * self.head_dim
        return (("q_proj", d, q), ("k_proj", d, kv), ("v_proj", d, kv), ("o_proj", q, d))

    def mlp_matmul_shapes(self, ffn_size: int) -> tuple[tuple[str, int, int], ...]:
        """(name, in, out) of one MLP (or one expert) of intermediate size `ffn_size`."""
        d = self.hidden_size
        gate = (("gate_proj", d, ffn_size),) if self.gated_ffn else ()
        return (*gate, ("up_proj", d, ffn_size), ("down_proj", ffn_size, d))

    def _mlp_params(self, ffn_size: int) -> int:
        weights = sum(i * o for _, i, o in self.mlp_matmul_shapes(ffn_size))
        biases = sum(o for _, _, o in self.mlp_matmul_shapes(ffn_size)) if self.mlp_bias else 0
        return weights + biases

    # --- per-layer weight counts -------------------------------------------------------
    @property
    def attention_params_per_layer(self) -> int:
        """Attention projections of one layer, with their biases, MLA's latent norms and gpt-oss's sinks."""
        shapes = self.attention_matmul_shapes()
        params = sum(i * o for _, i, o in shapes)
        if self.qkv_bias:
            params += sum(o for name, _, o in shapes if name != "o_proj")
        if self.o_bias:
            params += self.hidden_size
        if self.is_mla:  # RMSNorms on the compressed query and KV latents
            params += self.q_lora_rank + self.kv_lora_rank
        if self.attention_sinks:
            params += self.n_heads
        return params

    @property
    def expert_params(self) -> int:
        """One FFN expert (or a dense model's MLP): up (and gate, if gated) and down projections."""
        return self._mlp_params(self.expert_ffn_size)

    @property
    def shared_expert_params(self) -> int:
        """The always-on shared experts of one MoE layer (0 when the model has none)."""
        return self.n_shared_experts * self.expert_params

    @property
    def dense_mlp_params(self) -> int:
        """The dense MLP of one of an MoE model's `n_dense_layers` (ffn_size wide)."""
        return self._mlp_params(self.ffn_size)

    @property
    def router_params_per_layer(self) -> int:
        if not self.is_moe:
            return 0
        return self.hidden_size * self.n_experts + (self.n_experts if self.mlp_bias else 0)

    @property
    def norm_params_per_layer(self) -> int:
        """Two RMSNorm weight vectors per layer (the extra norms of Gemma and Qwen3 add < 0.01 % and are left out)."""
        return 2 * self.hidden_size

    @property
    def embedding_params(self) -> int:
        return self.vocab_size * self.hidden_size

    @property
    def lm_head_params(self) -> int:
        """The output projection; zero extra weights when tied to the embedding table."""
        return 0 if self.tied_embeddings else self.vocab_size * self.hidden_size

    def params_by_group(self) -> dict[str, float]:
        """Every weight of the checkpoint by kernel group, summing to total_params.

        >>> get_model("llama-2-7b").params_by_group()["embedding"]
        131072000
        """
        if self.is_bare:
            return {"matmul": self.bare_params}
        groups = {
            "attention": self.n_layers * self.attention_params_per_layer,
            "dense_mlp": self.n_dense_layers * self.dense_mlp_params if self.is_moe
            else self.n_layers * self.expert_params,
            "routed_experts": self.n_moe_layers * self.n_experts * self.expert_params if self.is_moe else 0,
            "shared_experts": self.n_moe_layers * self.shared_expert_params if self.is_moe else 0,
            "router": self.n_moe_layers * self.router_params_per_layer,
            "norms": self.n_layers * self.norm_params_per_layer + self.hidden_size,
            "embedding": self.embedding_params,
            "lm_head": self.lm_head_params,
        }
        return {k: v for k, v in groups.items() if v}

    # --- totals ----------------------------------------------------------------------------
    @property
    def total_params(self) -> float:
        """Every weight in the checkpoint."""
        if self.is_bare:
            return self.bare_params
        return float(sum(self.params_by_group().values()))

    @property
    def active_params(self) -> float:
        """Weights one token uses: all of them for a dense model, `experts_per_token` experts for MoE.

        The embedding table counts whole (Mistral's and Qwen's convention); OpenAI and DeepSeek
        quote active counts without it: `active_params - embedding_params`.
        """
        if self.is_bare:
            return self.bare_params
        inactive = self.n_moe_layers * (self.n_experts - self.experts_per_token) * self.expert_params
        return self.total_params - inactive

    @property
    def active_params_excluding_embedding(self) -> float:
        """Weights one token uses, the input embedding table left out: a lookup reads one row of it
        (a tied table stays: it is the output head). OpenAI's and DeepSeek's active counts.

        >>> round(get_model("gpt-oss-20b").active_params_excluding_embedding / 1e9, 2)
        3.61
        """
        if self.is_bare or self.tied_embeddings:
            return self.active_params
        return self.active_params - self.embedding_params

    def _moe_layer_matmul(self, k):
        """Matmul weights of one MoE layer's MLP when `k` experts are read (array-friendly)."""
        if not self.is_moe:
            return k * self.expert_params
        return k * self.expert_params + self.shared_expert_params + self.router_params_per_layer

    def matmul_params(self, experts_touched: float | None = None) -> float:
        """Weights in matrix multiplies per token (the output head included, the embedding lookup not).

        `experts_touched` is the number of routed experts per MoE layer whose weights are read
        (defaults to experts_per_token, the batch-1 case); shared experts are always read.
        """
        if self.is_bare:
            return self.bare_params
        k = self.experts_per_token if experts_touched is None else experts_touched
        dense = self.n_dense_layers * self.dense_mlp_params if self.is_moe else 0
        return (self.n_layers * self.attention_params_per_layer + self.n_moe_layers * self._moe_layer_matmul(k)
                + dense + self.vocab_size * self.hidden_size)

    def activation_elements_per_token(self, experts_touched_per_token: float | None = None) -> float:
        """Inputs read plus outputs written by every weight matmul, for one token (see model/accounting.py)."""
        if self.is_bare:
            return 0.0
        k = self.experts_per_token if experts_touched_per_token is None else experts_touched_per_token
        attn = sum(i + o for _, i, o in self.attention_matmul_shapes())
        expert = sum(i + o for _, i, o in self.mlp_matmul_shapes(self.expert_ffn_size))
        moe = (k + self.n_shared_experts) * expert if self.is_moe else k * expert
        dense = self.n_dense_layers * sum(i + o for _, i, o in self.mlp_matmul_shapes(self.ffn_size))
        d = self.hidden_size
        return self.n_layers * attn + self.n_moe_layers * moe + dense + (d + self.vocab_size)

    # --- KV cache ------------------------------------------------------------------------------
    @property
    def kv_elements_per_token_per_layer(self) -> int:
        """Values one layer caches per token: K and V per KV head, or MLA's latent plus rotary key.

        >>> get_model("deepseek-v3").kv_elements_per_token_per_layer  # 512 latent + 64 rotary key
        576
        """
        if self.is_mla:
            return self.kv_lora_rank + self.qk_rope_head_dim
        return 2 * self.kv_heads * self.head_dim

    def kv_elements_per_token(self) -> int:
        """K and V values one new token adds to the cache across all layers, below any window.

        Past the window a windowed layer stops growing: see `kv_elements_for_context`.
        """
        return self.n_layers * self.kv_elements_per_token_per_layer

    def kv_elements_per_token_by_layer_type(self) -> dict[str, int]:
        """{'full': ..., 'sliding': ...}: what each kind of layer adds per token, summed over its layers."""
        per = self.kv_elements_per_token_per_layer
        out = {"full": self.n_full_layers * per}
        if self.n_window_layers:
            out["sliding"] = self.n_window_layers * per
        return out

    def kv_elements_for_context(self, context_len):
        """Values cached for a sequence of `context_len` tokens: windowed layers hold at most the window.

        >>> m = get_model("mistral-7b")  # every layer windowed at 4096
        >>> m.kv_elements_for_context(32768) == m.kv_elements_for_context(4096)
        True
        """
        per = self.kv_elements_per_token_per_layer
        ctx = np.asarray(context_len, dtype=float)
        windowed = np.minimum(ctx, self.sliding_window) if self.n_window_layers else ctx
        out = per * (self.n_full_layers * ctx + self.n_window_layers * windowed)
        return out.item() if out.ndim == 0 else out

    def attention_flops_per_token(self, context_len: float) -> float:
        """FLOPs of QK^T and softmax(QK^T)V for one new token attending to `context_len` tokens.

        A windowed layer attends to at most `sliding_window` positions. MLA counts the
        unabsorbed form: scores over qk_nope + qk_rope dims, the weighted sum over v_head_dim.
        """
        ctx = np.asarray(context_len, dtype=float)
        if self.is_mla:
            per_position = 2 * self.n_heads * (self.qk_nope_head_dim + self.qk_rope_head_dim + self.v_head_dim)
        else:
            per_position = 4 * self.n_heads * self.head_dim
        windowed = np.minimum(ctx, self.sliding_window) if self.n_window_layers else ctx
        out = 1.0 * per_position * (self.n_full_layers * ctx + self.n_window_layers * windowed)
        return out.item() if out.ndim == 0 else out

    def prefill_attention_flops(self, prompt_len):
        """Attention FLOPs of a causal prefill of `prompt_len` tokens (token i attends to i positions).

        A windowed layer's token i attends to min(i, window): W(W+1)/2 + (T − W)·W past the window.
        """
        t = np.asarray(prompt_len, dtype=float)
        full = t * (t + 1) / 2
        if self.n_window_layers:
            w = float(self.sliding_window)
            capped = np.where(t <= w, full, w * (w + 1) / 2 + (t - w) * w)
        else:
            capped = full
        one = self.attention_flops_per_token(1.0)  # per position, over all layers as if full
        per_position = one / self.n_layers if self.n_layers else 0.0
        out = per_position * (self.n_full_layers * full + self.n_window_layers * capped)
        return out.item() if np.ndim(out) == 0 else out


def _flag(entry: Entry, field: str, default: bool | None = None) -> bool:
    value = entry.raw.get(field, default)
    if not isinstance(value, bool):
        raise entry.fail(field, "must be true or false")
    return value


def _count(entry: Entry, field: str) -> int:
    """An optional whole number ≥ 0 (0 when absent)."""
    value = entry.number(field, required=False, integer=True, allow_zero=True)
    return int(value or 0)


def _parse_model(entry: Entry) -> Model:
    n_heads = int(entry.number("n_heads", integer=True))
    hidden = int(entry.number("hidden_size", integer=True))
    head_dim = entry.number("head_dim", required=False, integer=True)
    kv_heads = int(entry.number("kv_heads", integer=True))
    n_layers = int(entry.number("n_layers", integer=True))
    if n_heads % kv_heads:
        raise entry.fail("kv_heads", f"must divide n_heads ({n_heads}), got {kv_heads}")
    n_experts = int(entry.number("n_experts", required=False, integer=True) or 1)
    k = int(entry.number("experts_per_token", required=False, integer=True) or 1)
    if k > n_experts:
        raise entry.fail("experts_per_token", f"cannot exceed n_experts ({n_experts}), got {k}")
    head_dim_problem = head_dim_rule(hidden, n_heads, head_dim)
    if head_dim_problem:
        raise entry.fail("hidden_size", head_dim_problem)
    ident = entry.text("id")
    try:
        float(ident)
    except ValueError:
        pass
    else:  # `--model 8e9` means a bare parameter count: an id that parses as one could never be named
        raise entry.fail("id", f"must not read as a number ({ident!r} would be taken as a parameter count)")
    n_dense = _count(entry, "n_dense_layers")
    if n_dense >= n_layers or (n_dense and n_experts == 1):
        raise entry.fail("n_dense_layers", f"must be below n_layers ({n_layers}) and only set for MoE, got {n_dense}")
    mla = {f: _count(entry, f) for f in ("kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
                                          "v_head_dim")}
    if mla["kv_lora_rank"] and not (mla["qk_nope_head_dim"] and mla["qk_rope_head_dim"] and mla["v_head_dim"]):
        raise entry.fail("kv_lora_rank", "needs qk_nope_head_dim, qk_rope_head_dim and v_head_dim")
    window = _count(entry, "sliding_window")
    window_layers = entry.number("window_layers", required=False, integer=True, allow_zero=True)
    window_layers = n_layers if window and window_layers is None else int(window_layers or 0)
    if window_layers > n_layers or (window_layers and not window):
        raise entry.fail("window_layers", f"must be at most n_layers ({n_layers}) and needs sliding_window")
    weight_format = entry.text("weight_format", required=False)
    if weight_format and weight_format not in WEIGHT_FORMATS:
        raise entry.fail("weight_format", f"must be one of {', '.join(WEIGHT_FORMATS)}, got {weight_format!r}")
    scope = entry.text("weight_scope", required=False)
    if scope and scope not in WEIGHT_SCOPES:
        raise entry.fail("weight_scope", f"must be one of {', '.join(WEIGHT_SCOPES)}, got {scope!r}")
    active = entry.number("published_active_params_B", required=False)
    model = Model(
        id=ident,
        name=entry.text("name"),
        n_layers=n_layers,
        hidden_size=hidden,
        n_heads=n_heads,
        kv_heads=kv_heads,
        head_dim=int(head_dim) if head_dim else hidden // n_heads,
        ffn_size=int(entry.number("ffn_size", integer=True)),
        gated_ffn=_flag(entry, "gated_ffn"),
        vocab_size=int(entry.number("vocab_size", integer=True)),
        tied_embeddings=_flag(entry, "tied_embeddings"),
        n_experts=n_experts,
        experts_per_token=k,
        # A count of weights: whole, not 8.03 × 1e9 = 8029999999.999999.
        published_params=float(round(entry.number("published_params_B") * 1e9)),
        source_url=entry.source_url(),
        source_title=entry.text("source_title"),
        note=entry.text("note", required=False),
        moe_ffn_size=_count(entry, "moe_ffn_size"),
        n_shared_experts=_count(entry, "n_shared_experts"),
        n_dense_layers=n_dense,
        **mla,
        sliding_window=window,
        n_window_layers=window_layers,
        qkv_bias=_flag(entry, "qkv_bias", False),
        o_bias=_flag(entry, "o_bias", False),
        mlp_bias=_flag(entry, "mlp_bias", False),
        attention_sinks=_flag(entry, "attention_sinks", False),
        weight_format=weight_format,
        weight_group_size=_count(entry, "weight_group_size"),
        weight_scope=scope or "",
        weight_format_origin="registry" if weight_format else "",
        published_active_params=float(round((active or 0.0) * 1e9)),
        published_active_counts_embedding=_flag(entry, "active_counts_embedding", True),
        max_context_tokens=int(entry.number("max_context_tokens", integer=True)),
    )
    computed = model.total_params
    if abs(computed / model.published_params - 1) > PUBLISHED_TOLERANCE:
        raise entry.fail("published_params_B", f"is {model.published_params / 1e9:.4g} B but the architecture "
                                               f"fields give {computed / 1e9:.4g} B, more than "
                                               f"{PUBLISHED_TOLERANCE * 100:g} % apart: check the fields against the source")
    return model



def head_dim_rule(hidden_size: int, n_heads: int, head_dim: int | None) -> str:
    """Why these shape fields describe no checkpoint, or '' (the rule the registry and the config reader share).

    Without an explicit head_dim, each head is hidden_size ÷ heads wide, and that must be whole:
    4095 ÷ 32 is no head width a checkpoint has, so it is refused rather than rounded down.

    >>> head_dim_rule(4095, 32, None)
    'is 4095, which 32 attention heads do not divide; give head_dim if the heads are narrower'
    >>> head_dim_rule(4095, 32, 128), head_dim_rule(4096, 32, None)
    ('', '')
    """
    if head_dim or not n_heads or hidden_size % n_heads == 0:
        return ""
    return (f"is {hidden_size}, which {n_heads} attention heads do not divide; give head_dim if the heads "
            "are narrower")


def check_context(model: Model, tokens: int, option: str, allow_beyond: bool = False) -> str:
    """'' when `tokens` (a context or prompt) fits the model's maximum; past it, an InputError naming the
    maximum, or with `allow_beyond` the sentence the output prints to say it extrapolates.

    >>> check_context(get_model("llama-2-7b"), 4096, "--context")
    ''
    >>> print(check_context(get_model("llama-2-7b"), 100000, "--context", allow_beyond=True))
    context 100000 is beyond Llama 2 7B's maximum of 4096 tokens (max_position_embeddings): extrapolated
    """
    limit = model.max_context_tokens
    if not limit or tokens <= limit:
        return ""
    what = "context" if option == "--context" else "prompt"
    if allow_beyond:
        return f"{what} {tokens} is beyond {model.name}'s maximum of {limit} tokens (max_position_embeddings): extrapolated"
    raise InputError(f"{option} {tokens}: {model.name} holds at most {limit} tokens (its max_position_embeddings); "
                     f"give --allow-beyond-max-context to extrapolate past it")


#: Each table list of models.toml and its reader (the spec-file reference is generated from these).
SPEC_TABLES = {"model": _parse_model}


def load_models(path: Path) -> dict[str, Model]:
    """Parse and validate a model spec file into {id: Model}, in file order."""
    return load_by_id(path, SPEC_TABLES)


REGISTRY: SpecRegistry[Model] = SpecRegistry("ROOFLINE_MODELS", "models.toml", "model", load_models)


def models() -> dict[str, Model]:
    """Every model in the registry, in file order."""
    return dict(REGISTRY.entries())


def get_model(model_id: str) -> Model:
    """A registry model by id, or a bare dense model from a parameter count such as '8e9'."""
    try:
        params = float(model_id)
    except ValueError:
        return REGISTRY.get(model_id)
    if not params > 0 or params != params:
        raise InputError(f"parameter count must be a positive number, got {model_id!r}")
    if params >= 1e15:
        raise InputError(f"parameter count must be below 1e15, got {model_id[:40]!r}")
    if params < 1e3:  # 1e-30 "parameters" would print 40-digit token rates
        raise InputError(f"parameter count must be at least 1e3, got {model_id[:40]!r}")
    return Model.from_param_count(params)
