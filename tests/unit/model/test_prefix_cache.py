"""Prefix caching: a hit rate of 0 changes nothing, 1 leaves only the last token to compute, a hit reads KV."""

import pytest

from roofline.errors import InputError
from roofline.model import kernels, parallel, record
from roofline.model.parallel import Layout
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model

H100 = get_device("h100-sxm5")
LLAMA8 = get_model("llama-3.1-8b")

MATMULS = ("qkv_proj", "o_proj", "gate_up_proj", "down_proj", "lm_head")


@pytest.mark.parametrize("model_id, layout", [("llama-3.1-8b", Layout()), ("llama-3.1-70b", Layout(tp=8)),
                                              ("deepseek-v3", Layout(ep=16))])
def test_hit_rate_zero_leaves_every_figure_unchanged(model_id, layout):
    m = get_model(model_id)
    plain = record.step_record(parallel.prefill(m, H100, 2000, 1, layout=layout))
    zero = record.step_record(parallel.prefill(m, H100, 2000, 1, layout=layout, cache_hit_rate=0.0))
    assert zero == plain


def test_hit_rate_one_removes_the_prefill_of_the_cached_part():
    # Llama 3.1 8B, a 1,024-token prompt wholly cached: only the last token is computed (its logits give
    # the first output token), so every weight matmul does one token's work: 2 · 1 · K · N FLOPs, as a
    # one-token prefill does.
    hit = kernels.prefill(LLAMA8, H100, 1024, cache_hit_rate=1.0)
    one = kernels.prefill(LLAMA8, H100, 1, 1)
    for name in MATMULS:
        assert float(next(k for k in hit.ops if k.name == name).flops) == pytest.approx(
            float(next(k for k in one.ops if k.name == name).flops))
    # What the hit costs: the new token reads the whole prompt's K and V: 1,024 positions × 32 layers ×
    # 8 KV heads × 128 × (K and V) × 2 bytes = 1,024 × 131,072 = 134,217,728 bytes.
    assert sum(float(k.kv_read_bytes) for k in hit.ops) == pytest.approx(134_217_728, rel=1e-6)
    # one token through the model over 1,023 cached positions is a decode step's work at that context
    assert float(hit.time_s) == pytest.approx(float(kernels.decode(LLAMA8, H100, 1, 1023).time_s), rel=0.02)
    assert float(hit.time_s) < 0.3 * float(kernels.prefill(LLAMA8, H100, 1024).time_s)


def test_half_the_prompt_cached_computes_the_other_half():
    # 2,000 tokens at h = 0.5: 1,000 cached, 1,000 computed; the matmuls do 1,000 tokens' work
    half = kernels.prefill(LLAMA8, H100, 2000, cache_hit_rate=0.5)
    thousand = kernels.prefill(LLAMA8, H100, 1000)
    assert float(half.tokens_per_sequence) == 1000
    qkv = [float(next(k for k in s.ops if k.name == "qkv_proj").flops) for s in (half, thousand)]
    assert qkv[0] == pytest.approx(qkv[1])
    assert float(kernels.prefill(LLAMA8, H100, 2000).time_s) > float(half.time_s) > float(thousand.time_s)


@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan"), True])
def test_hit_rate_outside_zero_to_one_is_refused(value):
    with pytest.raises(InputError, match="cache hit rate must be a number from 0 to 1"):
        kernels.prefill(LLAMA8, H100, 1000, cache_hit_rate=value)


@pytest.mark.parametrize("value", ["-0.1", "1.5", "nan", "half"])
def test_cli_refuses_a_bad_hit_rate_in_one_line(run_cli, value):
    code, out, err = run_cli("prefill", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--prompt", "1000",
                             "--cache-hit-rate", value)
    assert code == 2 and out == "" and "--cache-hit-rate" in err and "Traceback" not in err and err.count("\n") == 1


def test_cli_says_what_the_cache_served(run_cli):
    code, out, _ = run_cli("prefill", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--prompt", "2000",
                           "--cache-hit-rate", "0.5")
    assert code == 0 and "1,000 of 2,000 prompt tokens served from the cache" in out
    code, out, _ = run_cli("prefill", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--prompt", "2000")
    assert "cache hit rate 0, the default" in out
