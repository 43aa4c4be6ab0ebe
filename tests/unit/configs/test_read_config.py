"""The config.json reader: published parameter counts, hand-derived KV caches, refusals.

Fixtures in tests/fixtures/configs/ are written by hand from each model's published config.json.
Published figures are cited beside each expectation; KV bytes are derived by hand in comments.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import pytest

from roofline.cli import main
from roofline.configs import MAX_CONFIG_BYTES, field_table, read_config, read_config_doc
from roofline.configs.families import FAMILIES
from roofline.errors import InputError
from roofline.model.accounting import kv_bytes_per_token
from roofline.model.kernels import decode
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model, models
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "configs"
GOOD = sorted(p for p in FIXTURES.glob("*.json") if not p.name.startswith("broken-"))


def fixture(name: str):
    return read_config(FIXTURES / name)


# (total, active, active counts the embedding table, source). Active is the publisher's own
# figure; OpenAI and DeepSeek leave the input embedding out of theirs, Mistral and Qwen keep it.
PUBLISHED = {
    "llama-3.1-8b.json": (8.03e9, None, True, "Llama 3.1 model card: 8.03B"),
    # Quantized checkpoints keep the architecture: the same 8.03B weights, stored in 4 bits.
    "llama-3.1-8b-awq.json": (8.03e9, None, True, "Llama 3.1 model card: 8.03B (AWQ INT4 of the same model)"),
    "llama-3.1-8b-gptq.json": (8.03e9, None, True, "Llama 3.1 model card: 8.03B (GPTQ INT4 of the same model)"),
    "llama-4-maverick.json": (400e9, 17e9, True, "Llama 4 model card: 17B active, 400B total"),
    "mistral-7b.json": (7.24e9, None, True, "Mistral 7B: 7.24B"),
    "mixtral-8x7b.json": (46.7e9, 12.9e9, True, "Mixtral announcement: 46.7B total, 12.9B active"),
    "qwen2.5-72b.json": (72.7e9, None, True, "Qwen2.5-72B-Instruct model card: 72.7B"),
    "qwen3-8b.json": (8.2e9, None, True, "Qwen3-8B model card: 8.2B"),
    "qwen3-30b-a3b.json": (30.5e9, 3.3e9, True, "Qwen3-30B-A3B model card: 30.5B total, 3.3B activated"),
    "gemma-2-9b.json": (9.24e9, None, True, "google/gemma-2-9b on Hugging Face: 9.24B"),
    "gemma-3-27b.json": (27.016e9, None, True, "Gemma 3 report Table 1: 1,416M embedding + 25,600M non-embedding"),
    "deepseek-v3.json": (671e9, 36.6e9, False, "DeepSeek-V3 README_WEIGHTS: 671B, 36.6B activated incl. 0.9B head"),
    "gpt-oss-20b.json": (20.91e9, 3.61e9, False, "gpt-oss model card Table 1: 20.91B total, 3.61B active"),
    "gpt-oss-120b.json": (116.83e9, 5.13e9, False, "gpt-oss model card Table 1: 116.83B total, 5.13B active"),
}
# Active figures quoted to two significant figures, where 1 % is finer than the quote:
# Llama 4's "17B" (17.19B counted here) and Qwen3-30B-A3B's "3.3B" (3.35B counted here,
# so Qwen's figure is truncated, not rounded). They are held to one unit of the last digit.
QUOTE_UNIT = {"llama-4-maverick.json": 1e9, "qwen3-30b-a3b.json": 0.1e9}


def test_every_good_fixture_has_a_published_figure():
    assert {p.name for p in GOOD} == set(PUBLISHED)
    assert {read_config(p).family for p in GOOD} >= {"llama", "llama4", "mistral", "mixtral", "qwen2", "qwen3",
                                                       "qwen3_moe", "gemma2", "gemma3", "deepseek_v3", "gpt_oss"}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_fixture_params_match_the_published_counts(name):
    total, active, with_embedding, _ = PUBLISHED[name]
    m = fixture(name)
    assert m.total_params == pytest.approx(total, rel=0.01)
    if active is not None:
        got = m.active_params - (0 if with_embedding else m.embedding_params)
        if name in QUOTE_UNIT:
            assert abs(got - active) <= QUOTE_UNIT[name]
        else:
            assert got == pytest.approx(active, rel=0.01)


@pytest.mark.parametrize("model_id", [m.id for m in models().values() if m.published_active_params])
def test_registry_active_params_match_the_published_counts(model_id):
    m = get_model(model_id)
    got = m.active_params - (0 if m.published_active_counts_embedding else m.embedding_params)
    # quoted as 3.3B, 3.35B counted (see QUOTE_UNIT); Kimi K2's "32B" to the billion, 31.7B counted
    unit = {"qwen3-30b-a3b": 0.1e9, "kimi-k2": 0.5e9}.get(model_id)
    if unit:
        assert abs(got - m.published_active_params) <= unit
    else:
        assert got == pytest.approx(m.published_active_params, rel=0.01)


# KV bytes per token in bf16, derived by hand from each published config.
KV_BF16 = {
    "llama-3.1-8b.json": 2 * 32 * 8 * 128 * 2,        # 131,072: K and V × 32 layers × 8 KV heads × 128 × 2 B
    "mistral-7b.json": 2 * 32 * 8 * 128 * 2,          # 131,072 (until the 4096-token window fills)
    "mixtral-8x7b.json": 2 * 32 * 8 * 128 * 2,        # 131,072
    "qwen2.5-72b.json": 2 * 80 * 8 * 128 * 2,         # 327,680: hidden 8192 / 64 heads = 128
    "qwen3-8b.json": 2 * 36 * 8 * 128 * 2,            # 147,456
    "qwen3-30b-a3b.json": 2 * 48 * 4 * 128 * 2,       # 98,304: 4 KV heads
    "gemma-2-9b.json": 2 * 42 * 8 * 256 * 2,          # 344,064: head_dim 256 (not 3584/16 = 224)
    "gemma-3-27b.json": 2 * 62 * 16 * 128 * 2,        # 507,904: head_dim 128 (not 5376/32 = 168)
    "llama-4-maverick.json": 2 * 48 * 8 * 128 * 2,    # 196,608
    "gpt-oss-20b.json": 2 * 24 * 8 * 64 * 2,          # 49,152
    "gpt-oss-120b.json": 2 * 36 * 8 * 64 * 2,         # 73,728
    "deepseek-v3.json": 61 * (512 + 64) * 2,          # 70,272: MLA caches the latent + rotary key only
}


@pytest.mark.parametrize("name", sorted(KV_BF16))
def test_kv_bytes_per_token_by_hand(name):
    assert kv_bytes_per_token(fixture(name), "bf16") == KV_BF16[name]


def test_qwen3_head_dim_comes_from_the_config_not_hidden_over_heads():
    # Qwen3-32B: hidden 5120 / 64 heads = 80, but the config says head_dim 128 (the calculators' slip).
    m = get_model("qwen3-32b")
    assert m.head_dim == 128 and m.hidden_size // m.n_heads == 80
    assert kv_bytes_per_token(m, "bf16") == 2 * 64 * 8 * 128 * 2 == 262_144


def test_mla_cache_is_latent_plus_rotary_key():
    m = fixture("deepseek-v3.json")
    assert m.attention_kind == "MLA"
    assert m.kv_elements_per_token_per_layer == 512 + 64
    # Read as ordinary attention (128 heads × K and V per layer), the cache would be
    # 2 × 61 × 128 × head bytes: 25× larger at head 56 (7168/128), 57× at 128, 71× at K 192 + V 128.
    mla = 61 * 576 * 2
    assert 2 * 61 * 128 * 56 * 2 / mla == pytest.approx(24.9, abs=0.05)
    assert 61 * 128 * (192 + 128) * 2 / mla == pytest.approx(71.1, abs=0.05)
    assert m == read_config(FIXTURES / "deepseek-v3.json")  # deterministic
    assert m.n_dense_layers == 3 and m.n_shared_experts == 1 and m.moe_ffn_size == 2048


def test_windowed_cache_stops_growing_at_the_window():
    m = fixture("mistral-7b.json")  # every layer windowed at 4096
    per_token = 2 * 32 * 8 * 128     # elements
    assert m.kv_elements_for_context(1000) == 1000 * per_token
    assert m.kv_elements_for_context(32768) == 4096 * per_token
    g = fixture("gemma-3-27b.json")  # 52 sliding layers at 1024, 10 global
    per_layer = 2 * 16 * 128
    assert g.n_window_layers == 52
    assert g.kv_elements_for_context(32768) == per_layer * (10 * 32768 + 52 * 1024)


def test_decode_reads_only_the_window():
    # Mistral 7B at 32k context reads the same KV bytes as at 4096 (the last 4096 tokens per layer).
    m, h = get_model("mistral-7b"), get_device("h100-sxm5")
    assert decode(m, h, 1, 32767).kv_read_bytes == decode(m, h, 1, 4095).kv_read_bytes == 4096 * 131_072


def test_registry_twins_match_their_config():
    # A registry model and the reading of its published config describe the same architecture.
    arch = ("n_layers", "hidden_size", "n_heads", "kv_heads", "head_dim", "ffn_size", "gated_ffn", "vocab_size",
            "tied_embeddings", "n_experts", "experts_per_token", "moe_ffn_size", "n_shared_experts", "n_dense_layers",
            "kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
            "sliding_window", "n_window_layers", "qkv_bias", "o_bias", "mlp_bias", "attention_sinks",
            "weight_format", "weight_group_size")
    pairs = {"llama-3.1-8b": "llama-3.1-8b.json", "mistral-7b": "mistral-7b.json", "mixtral-8x7b": "mixtral-8x7b.json",
             "qwen2.5-72b": "qwen2.5-72b.json", "qwen3-8b": "qwen3-8b.json", "qwen3-30b-a3b": "qwen3-30b-a3b.json",
             "gemma-3-27b": "gemma-3-27b.json", "deepseek-v3": "deepseek-v3.json",
             "gpt-oss-20b": "gpt-oss-20b.json", "gpt-oss-120b": "gpt-oss-120b.json"}
    for model_id, name in pairs.items():
        reg, cfg = get_model(model_id), fixture(name)
        diff = {f: (getattr(reg, f), getattr(cfg, f)) for f in arch if getattr(reg, f) != getattr(cfg, f)}
        assert not diff, (model_id, diff)


def test_layer_patterns_and_moe_layers():
    assert fixture("gpt-oss-120b.json").n_window_layers == 18    # layer_types alternates, 36 layers
    assert fixture("gemma-2-9b.json").n_window_layers == 21      # every other layer of 42
    mav = fixture("llama-4-maverick.json")
    assert mav.n_dense_layers == 24 and mav.n_moe_layers == 24   # interleave_moe_layer_step 2
    assert mav.n_window_layers == 36 and mav.sliding_window == 8192  # three RoPE (chunked) layers in four
    assert mav.n_shared_experts == 1 and mav.ffn_size == 16384 and mav.moe_ffn_size == 8192


def test_defaults_follow_transformers():
    base = {"num_hidden_layers": 2, "hidden_size": 256, "num_attention_heads": 4, "intermediate_size": 512,
            "vocab_size": 1000}
    # Mistral without sliding_window: MistralConfig's default 4096; with null: no window.
    assert read_config({**base, "model_type": "mistral"}).sliding_window == 4096
    assert read_config({**base, "model_type": "mistral", "sliding_window": None}).n_window_layers == 0
    # Qwen3's head_dim defaults to 128, Llama's to hidden / heads; KV heads default to the query heads.
    assert read_config({**base, "model_type": "qwen3"}).head_dim == 128
    llama = read_config({**base, "model_type": "llama"})
    assert llama.head_dim == 64 and llama.kv_heads == 4 and llama.attention_kind == "MHA"
    assert read_config({**base, "model_type": "llama", "num_key_value_heads": 1}).attention_kind == "MQA"
    # Gemma 3 in text_config, vocab defaulted to 262,208, five sliding layers in six.
    text = {k: v for k, v in base.items() if k != "vocab_size"}
    g = read_config({"model_type": "gemma3", "text_config": {**text, "num_hidden_layers": 12}})
    assert g.vocab_size == 262_208 and g.n_window_layers == 10 and g.tied_embeddings
    # Qwen2: q/k/v biases always; Qwen2 windows only layers at or past max_window_layers.
    q2 = read_config({**base, "model_type": "qwen2", "use_sliding_window": True, "max_window_layers": 1})
    assert q2.qkv_bias and q2.n_window_layers == 1


BROKEN = {
    "broken-not-json.json": "not JSON",
    "broken-not-object.json": "not a model config",
    "broken-no-model-type.json": "field 'model_type' is missing",
    "broken-unknown-family.json": "field 'model_type' is 'phi3', not a family the reader knows (llama, ",
    "broken-missing-field.json": "field 'hidden_size' is missing",
    "broken-wrong-type.json": "field 'num_hidden_layers' must be a whole number, got '36'",
    "broken-negative.json": "field 'num_key_value_heads' must be positive, got -8",
    "broken-quant-method.json": "field 'quantization_config.quant_method' is 'bitsandbytes'",
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_bad_configs_are_refused_in_one_line(name, capsys):
    path = FIXTURES / name
    with pytest.raises(InputError) as err:
        read_config(path)
    text = str(err.value)
    assert text.startswith(str(path)) and BROKEN[name] in text and "\n" not in text
    assert main(["model", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1 and BROKEN[name] in out.err


def test_every_broken_fixture_is_tested():
    assert {p.name for p in FIXTURES.glob("broken-*.json")} == set(BROKEN)


def test_huge_file_is_refused_before_reading(tmp_path):
    big = tmp_path / "config.json"
    with open(big, "wb") as f:
        f.truncate(100 * 1024 * 1024)  # a 100 MB sparse file
    with pytest.raises(InputError, match=r"config.json: 105 MB is too large for a config.json \(at most 10 MB\)"):
        read_config(big)
    assert MAX_CONFIG_BYTES == 10 * 1024 * 1024


def test_missing_file_and_bad_values(tmp_path):
    with pytest.raises(InputError, match="config.json not found"):
        read_config(tmp_path / "nope.json")
    base = json.loads((FIXTURES / "qwen3-8b.json").read_text())
    for key, value, words in (("num_attention_heads", 32.5, "must be a whole number"),
                              ("hidden_size", True, "must be a whole number"),
                              ("tie_word_embeddings", "no", "must be true or false"),
                              ("num_key_value_heads", 5, "must divide num_attention_heads (32)"),
                              ("layer_types", ["full_attention"], "lists 1 layers but num_hidden_layers is 36"),
                              ("vocab_size", float("nan"), "must be a whole number")):
        with pytest.raises(InputError, match=f"field '{key}' {words}".replace("(", r"\(").replace(")", r"\)")):
            read_config({**base, key: value}, name="cfg.json")


def test_integral_floats_are_whole_numbers():
    # JSON cannot tell 4096.0 from 4096 in JavaScript, so the reader accepts both (as the browser must).
    base = json.loads((FIXTURES / "qwen3-8b.json").read_text())
    assert read_config({**base, "hidden_size": 4096.0}) == read_config(base)


def test_cli_runs_every_command_on_a_config_path(capsys):
    path = str(FIXTURES / "llama-3.1-8b.json")
    for argv in (["decode", "--model", path, "--hardware", "h100-sxm5", "--context", "1024", "--json"],
                 ["prefill", "--model", path, "--hardware", "h100-sxm5", "--prompt", "512", "--json"]):
        assert main(argv) == 0
        by_path = json.loads(capsys.readouterr().out)
        assert main([*argv[:2], "llama-3.1-8b", *argv[3:]]) == 0
        by_id = json.loads(capsys.readouterr().out)
        assert by_path["flops"] == by_id["flops"] and by_path["bytes"] == by_id["bytes"]


def test_model_command_json(capsys):
    assert main(["model", "deepseek-v3", "--json"]) == 0
    p = json.loads(capsys.readouterr().out)
    assert {"params", "active_params", "kv_bytes_per_token", "attention", "layers"} <= set(p)
    assert p["kv_bytes_per_token"]["total"] == 61 * 576 * 2
    assert p["attention"]["kind"] == "MLA" and p["layers"]["dense"] == 3 and p["layers"]["moe"] == 58
    assert sum(p["params_by_group"].values()) == p["params"]
    assert main(["model", str(FIXTURES / "gpt-oss-20b.json"), "--kv-dtype", "fp8", "--json"]) == 0
    g = json.loads(capsys.readouterr().out)
    # fp8: 1 B per element. 12 full + 12 sliding layers, each 2 × 8 KV heads × 64 = 1,024 elements.
    assert g["kv_bytes_per_token"] == {"total": 24 * 1024, "full": 12 * 1024, "sliding": 12 * 1024}
    assert g["attention"]["sliding_window"] == 128


def test_model_command_text_runs_as_a_subprocess():
    out = subprocess.run([sys.executable, "-m", "roofline", "model", "gemma-3-27b"], capture_output=True, text=True)
    assert out.returncode == 0 and "sliding window 1024 on 52 of 62 layers" in out.stdout


def test_field_table_covers_every_family():
    rows = field_table()
    assert {r["family"] for r in rows} == {f.title for f in FAMILIES}
    ds = {r["key"]: r for r in rows if r["family"].startswith("DeepSeek")}
    assert ds["kv_lora_rank"]["default"] == "512" and ds["first_k_dense_replace"]["feeds"] == "n_dense_layers"
    assert all(r["feeds"] for r in rows)
    assert not any(math.isnan(float(r["default"])) for r in rows if r["default"].isdigit())


def test_the_page_table_is_the_readers_own():
    from roofline_site.numbers.tables import table

    import html

    text = html.unescape(str(table("config-fields")))  # cells are escaped at the boundary
    rows = field_table()
    # One table per family (its name in bold above it), one line per key: each reader row once.
    assert len([ln for ln in text.splitlines() if ln.startswith("| <code>") or ln.startswith("| (")]) == len(rows)
    assert text.count("**") == 2 * len({r["family"] for r in rows})
    # A nested key may break after its dot; it reads whole once the break opportunity is taken out.
    assert "<code>text_config.sliding_window_pattern</code>" in text.replace("<wbr>", "") and "DeepSeek-V2 / V3 (R1)" in text


@pytest.mark.parametrize("key,value,field", [("num_hidden_layers", 10**9, "10,000"),
                                             ("intermediate_size", 10**8, "10,000,000"),
                                             ("vocab_size", 5 * 10**8, "100,000,000")])
def test_a_shape_no_real_model_has_is_refused_by_the_shared_plausible_range(key, value, field):
    # registry.specfile.PLAUSIBLE: at most 10,000 layers, 10,000,000 wide MLPs, 100,000,000 tokens of
    # vocabulary (models.toml's own ranges); a billion layers would take a minute and all memory.
    doc = {**json.loads((ROOT / "tests" / "fixtures" / "configs" / "qwen3-8b.json").read_text()), key: value}
    with pytest.raises(InputError, match=f"field '{key}' must be at most {field} for a real model"):
        read_config_doc(doc, name="c.json")


@pytest.mark.parametrize("fixture,edit,said", [
    ("qwen3-30b-a3b.json", {"mlp_only_layers": [0, 48]}, "mlp_only_layers' lists layer 48, but the model's layers are 0 to 47"),
    ("deepseek-v3.json", {"n_routed_experts": None, "n_shared_experts": 1}, "n_shared_experts' is 1, but shared experts"),
])
def test_a_field_that_does_not_apply_is_refused_never_set_aside(fixture, edit, said):
    # Qwen3-30B-A3B has 48 layers (its config.json), numbered 0 to 47; DeepSeek's shared experts sit
    # beside routed ones, so a dense config that names some describes no model.
    doc = {**json.loads((ROOT / "tests" / "fixtures" / "configs" / fixture).read_text()), **edit}
    with pytest.raises(InputError, match=re.escape(said)):
        read_config_doc(doc, name=fixture)


def test_a_key_given_twice_is_refused(tmp_path):
    path = tmp_path / "c.json"
    path.write_text((ROOT / "tests" / "fixtures" / "configs" / "qwen3-8b.json").read_text().rstrip()[:-1]
                    + ', "num_hidden_layers": 2}')
    with pytest.raises(InputError, match="field 'num_hidden_layers' is given twice"):
        read_config(path)
