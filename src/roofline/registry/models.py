"""Models: transformer architecture -> parameter, weight-byte and KV-cache accounting."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from roofline.errors import InputError
from roofline.registry.specfile import DATA_DIR, Entry, check_unique, env_path, lookup, parse_entries

#: How far a model card's parameter count may sit from the one its architecture fields give (README).
PUBLISHED_TOLERANCE = 0.05


@dataclass(frozen=True)
class Model:
    """A decoder-only transformer described by its config.json fields.

    A model built from a bare parameter count (`Model.from_param_count`) has
    `n_layers == 0`: it is one dense matrix of that many weights, with no
    attention, no KV cache and no embedding table (the seeds' back-of-envelope).

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

    # --- per-layer weight counts -------------------------------------------------------
    @property
    def attention_params_per_layer(self) -> int:
        """Q, K, V and output projections (no biases)."""
        q_out = self.n_heads * self.head_dim
        kv_out = self.kv_heads * self.head_dim
        return self.hidden_size * q_out + 2 * self.hidden_size * kv_out + q_out * self.hidden_size

    @property
    def expert_params(self) -> int:
        """One FFN expert: up (and gate, if gated) and down projections."""
        mats = 3 if self.gated_ffn else 2
        return mats * self.hidden_size * self.ffn_size

    @property
    def router_params_per_layer(self) -> int:
        return self.hidden_size * self.n_experts if self.is_moe else 0

    @property
    def norm_params_per_layer(self) -> int:
        return 2 * self.hidden_size

    @property
    def embedding_params(self) -> int:
        return self.vocab_size * self.hidden_size

    @property
    def lm_head_params(self) -> int:
        """The output projection; zero extra weights when tied to the embedding table."""
        return 0 if self.tied_embeddings else self.vocab_size * self.hidden_size

    # --- totals ----------------------------------------------------------------------------
    @property
    def total_params(self) -> float:
        """Every weight in the checkpoint."""
        if self.is_bare:
            return self.bare_params
        per_layer = (self.attention_params_per_layer + self.n_experts * self.expert_params
                     + self.router_params_per_layer + self.norm_params_per_layer)
        return float(self.n_layers * per_layer + self.embedding_params + self.lm_head_params
                     + self.hidden_size)

    @property
    def active_params(self) -> float:
        """Weights one token uses: all of them for a dense model, `experts_per_token` experts for MoE."""
        if self.is_bare:
            return self.bare_params
        inactive = self.n_layers * (self.n_experts - self.experts_per_token) * self.expert_params
        return self.total_params - inactive

    def matmul_params(self, experts_touched: float | None = None) -> float:
        """Weights in matrix multiplies per token (the output head included, the embedding lookup not).

        `experts_touched` is the number of experts per layer whose weights are read
        (defaults to experts_per_token, the batch-1 case).
        """
        if self.is_bare:
            return self.bare_params
        k = self.experts_per_token if experts_touched is None else experts_touched
        per_layer = self.attention_params_per_layer + k * self.expert_params + self.router_params_per_layer
        return self.n_layers * per_layer + self.vocab_size * self.hidden_size

    def activation_elements_per_token(self, experts_touched_per_token: float | None = None) -> float:
        """Inputs read plus outputs written by every weight matmul, for one token (see inference.py)."""
        if self.is_bare:
            return 0.0
        d, q, kv = self.hidden_size, self.n_heads * self.head_dim, self.kv_heads * self.head_dim
        k = self.experts_per_token if experts_touched_per_token is None else experts_touched_per_token
        attn = (d + q) + 2 * (d + kv) + (q + d)
        ffn_mats = 2 if self.gated_ffn else 1
        ffn = k * (ffn_mats * (d + self.ffn_size) + (self.ffn_size + d))
        return self.n_layers * (attn + ffn) + (d + self.vocab_size)

    def kv_elements_per_token(self) -> int:
        """K and V values cached per token across all layers."""
        return 2 * self.n_layers * self.kv_heads * self.head_dim

    def attention_flops_per_token(self, context_len: float) -> float:
        """FLOPs of QK^T and softmax(QK^T)V for one new token attending to `context_len` tokens."""
        return 4.0 * self.n_layers * self.n_heads * self.head_dim * context_len


def _parse_model(entry: Entry) -> Model:
    n_heads = int(entry.number("n_heads", integer=True))
    hidden = int(entry.number("hidden_size", integer=True))
    head_dim = entry.number("head_dim", required=False, integer=True)
    kv_heads = int(entry.number("kv_heads", integer=True))
    if n_heads % kv_heads:
        raise entry.fail("kv_heads", f"must divide n_heads ({n_heads}), got {kv_heads}")
    n_experts = int(entry.number("n_experts", required=False, integer=True) or 1)
    k = int(entry.number("experts_per_token", required=False, integer=True) or 1)
    if k > n_experts:
        raise entry.fail("experts_per_token", f"cannot exceed n_experts ({n_experts}), got {k}")
    for flag in ("gated_ffn", "tied_embeddings"):
        if not isinstance(entry.raw.get(flag), bool):
            raise entry.fail(flag, "must be true or false")
    ident = entry.text("id")
    try:
        float(ident)
    except ValueError:
        pass
    else:  # `--model 8e9` means a bare parameter count: an id that parses as one could never be named
        raise entry.fail("id", f"must not read as a number ({ident!r} would be taken as a parameter count)")
    model = Model(
        id=ident,
        name=entry.text("name"),
        n_layers=int(entry.number("n_layers", integer=True)),
        hidden_size=hidden,
        n_heads=n_heads,
        kv_heads=kv_heads,
        head_dim=int(head_dim) if head_dim else hidden // n_heads,
        ffn_size=int(entry.number("ffn_size", integer=True)),
        gated_ffn=entry.raw["gated_ffn"],
        vocab_size=int(entry.number("vocab_size", integer=True)),
        tied_embeddings=entry.raw["tied_embeddings"],
        n_experts=n_experts,
        experts_per_token=k,
        # A count of weights: whole, not 8.03 × 1e9 = 8029999999.999999.
        published_params=float(round(entry.number("published_params_B") * 1e9)),
        source_url=entry.source_url(),
        source_title=entry.text("source_title"),
        note=entry.text("note", required=False),
    )
    computed = model.total_params
    if abs(computed / model.published_params - 1) > PUBLISHED_TOLERANCE:
        raise entry.fail("published_params_B", f"is {model.published_params / 1e9:.4g} B but the architecture "
                                               f"fields give {computed / 1e9:.4g} B, more than "
                                               f"{PUBLISHED_TOLERANCE * 100:g} % apart: check the fields against the source")
    return model


def load_models(path: Path) -> dict[str, Model]:
    """Parse and validate a model spec file into {id: Model}, in file order."""
    models = parse_entries(path, "model", _parse_model)
    check_unique(path, (m.id for m in models))
    return {m.id: m for m in models}


@lru_cache(maxsize=None)
def _registry(path: Path) -> dict[str, Model]:
    return load_models(path)


def models_path() -> Path:
    return env_path("ROOFLINE_MODELS", DATA_DIR / "models.toml")


def models() -> dict[str, Model]:
    """Every model in the registry, in file order."""
    return dict(_registry(models_path()))


def get_model(model_id: str) -> Model:
    """A registry model by id, or a bare dense model from a parameter count such as '8e9'."""
    try:
        params = float(model_id)
    except ValueError:
        return lookup("model", model_id, _registry(models_path()))
    if not params > 0 or params != params:
        raise InputError(f"parameter count must be a positive number, got {model_id!r}")
    if params >= 1e15:
        raise InputError(f"parameter count must be below 1e15, got {model_id[:40]!r}")
    if params < 1e3:  # 1e-30 "parameters" would print 40-digit token rates
        raise InputError(f"parameter count must be at least 1e3, got {model_id[:40]!r}")
    return Model.from_param_count(params)
