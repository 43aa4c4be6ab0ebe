"""Parameter counts computed from architecture, against the totals each model card publishes."""

import pytest

from roofline.model.accounting import kv_bytes_per_token
from roofline.model.kernels import decode, experts_touched
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model, models


@pytest.mark.parametrize("model_id", list(models()))
def test_param_count_within_1pct_of_published(model_id):
    m = get_model(model_id)
    assert m.total_params == pytest.approx(m.published_params, rel=0.01)


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
