"""Parameter counts computed from architecture, against the totals each model card publishes."""

import pytest

from roofline.model.accounting import kv_bytes_per_token
from roofline.model.kernels import decode, experts_touched
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model, models


#: Totals a model card quotes rounded, with half the rounding step as the tolerance: Kimi K2's card
#: says "1T" (to the trillion); its config counts 1.026T (see test_kimi_k2_by_hand).
TOTAL_QUOTE_UNIT = {"kimi-k2": 0.05e12}


@pytest.mark.parametrize("model_id", list(models()))
def test_param_count_within_1pct_of_published(model_id):
    m = get_model(model_id)
    if model_id in TOTAL_QUOTE_UNIT:
        assert abs(m.total_params - m.published_params) <= TOTAL_QUOTE_UNIT[model_id]
    else:
        assert m.total_params == pytest.approx(m.published_params, rel=0.01)


def test_kimi_k2_by_hand():
    # Kimi-K2-Instruct config.json: d 7168, 61 layers (1 dense, 60 MoE), 64 heads, MLA with q_lora 1536,
    # kv_lora 512, rope key 64, nope 128, v 128; 384 routed experts of width 2048, 8 per token, 1 shared;
    # dense MLP 18432; vocabulary 163,840, untied.
    # MLA per layer: q_a 7168·1536 + q_b 1536·64·192 + kv_a 7168·576 + kv_b 512·64·256 + o 64·128·7168
    #   = 11,010,048 + 18,874,368 + 4,128,768 + 8,388,608 + 58,720,256 = 101,122,048
    # dense MLP: 3·7168·18432 = 396,361,728; one expert: 3·7168·2048 = 44,040,192; router 384·7168 = 2,752,512
    # MoE layer: 385 experts (routed + shared) + router = 16,955,473,920 + 2,752,512 = 16,958,226,432
    # embeddings: 2·163,840·7168 = 2,348,810,240
    # total = 61·101,122,048 + 396,361,728 + 60·16,958,226,432 + 2,348,810,240 = 1,026,407,202,816 (+ norms)
    # active (less the input embedding, as DeepSeek-style cards count): 61·101,122,048 + 396,361,728
    #   + 60·(9·44,040,192 + 2,752,512) + 163,840·7168 = 31,686,066,176 (+ norms)
    m = get_model("kimi-k2")
    assert m.total_params == pytest.approx(1_026_407_202_816, rel=1e-5)
    assert m.active_params - m.embedding_params == pytest.approx(31_686_066_176, rel=1e-4)
    assert m.n_experts == 384 and m.attention_kind == "MLA"
    # the card's rounded "1T" and "32B" hold to their rounding
    assert abs(m.total_params - 1e12) <= 0.05e12 and abs(m.active_params - m.embedding_params - 32e9) <= 0.5e9


def test_required_models_present():
    ids = set(models())
    assert {"llama-2-7b", "llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b"} <= ids
    assert any(m.kv_heads < m.n_heads and not m.is_moe and m.id not in {"llama-3.1-8b", "llama-3.1-70b"}
               for m in models().values()), "one more grouped-query-attention model"


def test_llama2_7b_by_hand():
    # 32 layers × (4·4096² attention + 3·4096·11008 FFN + 2·4096 norms) + 2·32000·4096 + 4096
    # = 32 × (67,108,864 + 135,266,304 + 8,192) + 262,144,000 + 4,096 = 6,738,415,616.
    assert get_model("llama-2-7b").total_params == 6_738_415_616


def test_mixtral_active_params():
    # Mixtral paper: 13B active of 47B. Per layer 6 of 8 experts idle: 6 × 3·4096·14336 × 32 layers.
    m = get_model("mixtral-8x7b")
    assert m.total_params - m.active_params == 6 * 3 * 4096 * 14336 * 32
    assert m.active_params == pytest.approx(12.9e9, rel=0.01)


def test_tied_embeddings_are_counted_once():
    # Llama 3.2 1B ties its output head to the embedding table (config: tie_word_embeddings true).
    m = get_model("llama-3.2-1b")
    assert m.lm_head_params == 0
    assert m.total_params == pytest.approx(1.236e9, rel=0.002)


def test_kv_bytes_per_token_llama31_8b():
    # 2 (K, V) × 32 layers × 8 KV heads × 128 head_dim × 2 bytes = 131,072 bytes = 128 KiB.
    assert kv_bytes_per_token(get_model("llama-3.1-8b"), "bf16") == 131_072
    assert kv_bytes_per_token(get_model("llama-3.1-8b"), "fp8") == 65_536


def test_moe_experts_touched_grows_with_batch():
    m = get_model("mixtral-8x7b")
    # One token touches its 2 experts; 8·(1 − (6/8)^4) = 5.47 at 4 tokens; all 8 in the limit.
    assert experts_touched(m, 1) == pytest.approx(2)
    assert experts_touched(m, 4) == pytest.approx(8 * (1 - 0.75 ** 4))
    assert experts_touched(m, 10_000) == pytest.approx(8)
    h = get_device("h100-sxm5")
    assert decode(m, h, 64).weight_bytes > 3 * decode(m, h, 1).weight_bytes


def test_70b_does_not_fit_one_h100():
    # 70.6e9 × 2 bytes = 141 GB > the 85.5 GB nvidia-smi reports usable.
    s = decode(get_model("llama-3.1-70b"), get_device("h100-sxm5"))
    assert not s.fits
    assert s.memory_required_bytes > 141e9


def test_kv_cache_decides_fit_at_long_context():
    # Llama 3.1 8B: 16.06 GB of weights; 64 × 32768 tokens × 131072 B = 275 GB of KV cache.
    s = decode(get_model("llama-3.1-8b"), get_device("h100-sxm5"), 64, 32768)
    assert not s.fits
    assert decode(get_model("llama-3.1-8b"), get_device("h100-sxm5"), 1, 32768).fits


def test_llama_2_70b_params_by_hand():
    # config.json: d 8192, 80 layers, 64 heads of 128, 8 KV heads, FFN 28672, vocab 32000, untied.
    # per layer: Q 8192·8192 = 67,108,864; K,V 2·8192·1024 = 16,777,216; O 67,108,864;
    # MLP 3·8192·28672 = 704,643,072; norms 2·8192 = 16,384 -> 855,654,400; ×80 = 68,452,352,000
    # + embedding and head 2·32000·8192 = 524,288,000 + final norm 8192 = 68,976,648,192
    assert get_model("llama-2-70b").total_params == 68_976_648_192


def test_llama31_405b_by_hand():
    # config.json: 126 layers, hidden 16384, 128 heads and 8 KV heads of 128, FFN 53248, vocab 128256.
    # Per layer: q and o 2·16384·16384 = 536,870,912; k and v 2·16384·1024 = 33,554,432;
    # FFN 3·16384·53248 = 2,617,245,696; norms 2·16384 = 32,768: 3,187,703,808.
    # × 126 = 401,650,679,808; + embedding and head 2·128256·16384 = 4,202,692,608; + final norm 16384
    # = 405,853,388,800, 0.2 % above the card's 405B.
    assert get_model("llama-3.1-405b").total_params == 405_853_388_800


def test_qwen3_235b_a22b_by_hand():
    # config.json: 94 layers, hidden 4096, 64 query heads and 4 KV heads of 128, 128 experts of 1536, 8 per token.
    # Per layer: q and o 2·4096·8192 = 67,108,864; k and v 2·4096·512 = 4,194,304; router 4096·128 = 524,288;
    # norms 8192; one expert 3·4096·1536 = 18,874,368. Embedding and head 2·151936·4096 = 1,244,659,712, + 4096.
    # Active: 94 × (71,303,168 + 8·18,874,368 + 524,288 + 8192) + 1,244,663,808 = 22,190,739,456 (card: 22B).
    # Total:  94 × (71,303,168 + 128·18,874,368 + 524,288 + 8192) + 1,244,663,808 = 235,093,610,496 (card: 235B).
    m = get_model("qwen3-235b-a22b")
    assert (m.active_params, m.total_params) == (22_190_739_456, 235_093_610_496)
