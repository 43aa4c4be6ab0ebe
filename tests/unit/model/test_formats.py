"""Weight formats (roofline.model.formats), in one place: a model decodes in its checkpoint's own
format; the bytes each format moves per weight and the peak it runs at; the formats a config's
quantization_config names; one sentence for a format the package cannot honour.

Every expected byte count is derived by hand below from the model's config.json shapes or the
format's published layout (OCP MX v1.0, AWQ/GPTQ); none is copied from the package's output.
"""

from __future__ import annotations

import json

import pytest

from roofline.cli import main
from roofline.configs import read_config
from roofline.errors import InputError
from roofline.model import kernels
from roofline.model.kernels import decode
from roofline.model.formats import (SOURCE_CONFIG, SOURCE_EXPLICIT, SOURCE_REGISTRY, Formats, choose_weight_format,
                                    parse_weight_format)
from roofline.registry.hardware import get_device
from roofline.registry.models import Model, get_model
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "configs"
H100 = get_device("h100-sxm5")

# ------------------------------------------------------------------ hand derivations --
# Llama-3.1-8B (config.json): 32 layers, hidden 4096, 32 heads × 128, 8 KV heads, MLP 14336, vocab 128256.
# Linear weights per layer: q 4096·4096 + k 4096·1024 + v 4096·1024 + o 4096·4096 = 41,943,040;
# gate, up, down 3·4096·14336 = 176,160,768; 218,103,808 per layer, 6,979,321,856 in 32 layers.
LLAMA_LINEAR = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336)
LLAMA_HEAD = 128256 * 4096                         # 525,336,576: the untied output head, kept 16-bit
LLAMA_NORMS = (2 * 32 + 1) * 4096                  # RMSNorm vectors, 16-bit
LLAMA_EMBED_ROW = 4096                             # one embedding row looked up per token
# AWQ/GPTQ int4 g128: qweight 0.5 B + one fp16 scale (2 B) and one packed 4-bit zero (0.5 B) per 128 weights.
INT4_G128 = 0.5 + (2 + 0.5) / 128                  # 0.51953125 bytes per weight
AWQ_BYTES = LLAMA_LINEAR * INT4_G128 + 2 * (LLAMA_HEAD + LLAMA_NORMS + LLAMA_EMBED_ROW)   # ≈ 4.677e9
BF16_BYTES = 2 * (LLAMA_LINEAR + LLAMA_HEAD + LLAMA_NORMS + LLAMA_EMBED_ROW)             # ≈ 15.01e9

# gpt-oss-20b (config.json): 24 layers, hidden 2880, 64 query heads × 64, 8 KV heads, 32 experts (4 per
# token) of intermediate 2880, vocab 201088, untied. MXFP4 (OCP MX): 32 E2M1 values + one E8M0 byte
# = 4.25 bits = 0.53125 B per weight, on the experts only; attention, router, head bf16.
D, HD, NQ, NKV, F = 2880, 64, 64, 8, 2880
OSS_ATTN = 24 * (D * NQ * HD + 2 * D * NKV * HD + NQ * HD * D + (NQ * HD + 2 * NKV * HD) + D + NQ)  # + biases, sinks
OSS_EXPERTS = 24 * 4 * (D * 2 * F + F * D)          # the 4 routed experts read at batch 1 (gate_up, down)
OSS_EXPERT_BIAS = 24 * 4 * (2 * F + D)              # their biases (bf16; the MXFP4 blocks cover weights only)
OSS_ROUTER = 24 * (D * 32 + 32)
OSS_HEAD = 201088 * D
OSS_NORMS = (2 * 24 + 1) * D
OSS_BYTES = (OSS_EXPERTS * (0.5 + 1 / 32) + 2 * (OSS_ATTN + OSS_ROUTER + OSS_HEAD + OSS_NORMS + D)
             + 2 * OSS_EXPERT_BIAS)                 # ≈ 3.706e9: the "about 3.70 GB" holds


def _awq_doc(**q):
    base = json.loads((FIXTURES / "llama-3.1-8b.json").read_text())
    return {**base, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128, **q}}


def test_awq_and_gptq_configs_decode_in_their_own_format_by_default():
    for name in ("llama-3.1-8b-awq.json", "llama-3.1-8b-gptq.json"):
        m = read_config(FIXTURES / name)
        c = choose_weight_format(m)
        assert (c.format, c.scope, c.source) == ("int4-g128", "linear", SOURCE_CONFIG)
        s = kernels.decode(m, H100, 1, 1, Formats.of(c.format, scope=c.scope))
        assert s.weight_bytes == pytest.approx(AWQ_BYTES, rel=1e-3)
    assert AWQ_BYTES == pytest.approx(4.68e9, rel=0.002) and BF16_BYTES == pytest.approx(15.0e9, rel=0.002)


def test_the_cli_defaults_to_the_checkpoint_and_says_why(capsys):
    path = str(FIXTURES / "llama-3.1-8b-awq.json")
    assert main(["decode", "--model", path, "--hardware", "h100-sxm5", "--json"]) == 0
    p = json.loads(capsys.readouterr().out)
    assert p["weight_format"] == "int4-g128" and p["weight_format_source"] == SOURCE_CONFIG
    assert p["weight_bytes"] == pytest.approx(AWQ_BYTES, rel=1e-3)
    # 3.35 TB/s ÷ 4.68 GB ≈ 716 tokens/s at batch 1 (the KV and activation bytes shave a little)
    assert p["tokens_per_s"] == pytest.approx(3.35e12 / AWQ_BYTES, rel=0.01)
    assert main(["decode", "--model", path, "--hardware", "h100-sxm5", "--weight-format", "bf16", "--json"]) == 0
    p = json.loads(capsys.readouterr().out)
    assert p["weight_format_source"] == SOURCE_EXPLICIT and p["weight_bytes"] == pytest.approx(BF16_BYTES, rel=1e-3)
    assert main(["decode", "--model", path, "--hardware", "h100-sxm5"]) == 0
    out = capsys.readouterr().out
    assert "weights int4-g128 on every linear layer" in out and "read from config.json quantization_config" in out
    for cmd in (["prefill", "--prompt", "8"], ["layouts", "--context", "8"]):
        assert main([cmd[0], "--model", path, "--hardware", "h100-sxm5", *cmd[1:], "--json"]) == 0
        p = json.loads(capsys.readouterr().out)
        assert p["weight_format"] == "int4-g128" and p["weight_format_source"] == SOURCE_CONFIG


def test_gpt_oss_reads_mxfp4_on_its_experts_only():
    m = get_model("gpt-oss-20b")
    c = choose_weight_format(m)
    assert (c.format, c.scope, c.source) == ("mxfp4", "experts", SOURCE_REGISTRY)
    s = kernels.decode(m, H100, 1, 1, Formats.of(c.format, scope=c.scope))
    assert s.weight_bytes == pytest.approx(OSS_BYTES, rel=2e-3)
    assert OSS_BYTES == pytest.approx(3.70e9, rel=0.005)
    qkv = next(k for k in s.ops if k.name == "qkv_proj")
    assert qkv.weight_bytes == pytest.approx(2 * 24 * D * (NQ + 2 * NKV) * HD, rel=1e-3)  # bf16, 2 B per weight
    # The same from its config.json: modules_to_not_convert lists self_attn, router, embedding and head.
    assert choose_weight_format(read_config(FIXTURES / "gpt-oss-20b.json")).scope == "experts"
    # --weight-format mxfp4 alone covers every linear layer, attention included, and says so.
    wide = kernels.decode(m, H100, 1, 1, Formats.of("mxfp4"))
    assert wide.weight_bytes < s.weight_bytes * 0.8


def test_deepseek_v3_reads_fp8_blocks_with_fp32_scales():
    m = get_model("deepseek-v3")
    c = choose_weight_format(m)
    assert (c.format, c.scope) == ("fp8-b128", "linear")
    w = parse_weight_format(c.format)
    assert w.bytes_per_weight() == 1 + 4 / (128 * 128)  # e4m3 + one float32 weight_scale_inv per 128×128 block
    s = kernels.decode(m, H100, 1, 1, Formats.of(c.format, scope=c.scope))
    head = next(k for k in s.ops if k.name == "lm_head")
    assert head.weight_bytes == 2 * 129280 * 7168      # the head stays bf16


def test_an_unknown_or_unhonoured_quantization_is_refused_never_read_as_bf16(capsys):
    with pytest.raises(InputError, match=r"quant_method' is 'bitsandbytes', not a format the reader knows"):
        read_config({**_awq_doc(), "quantization_config": {"quant_method": "bitsandbytes"}})
    with pytest.raises(InputError, match=r"bits' is 3; the package models awq at 4 bits only"):
        read_config(_awq_doc(bits=3))
    with pytest.raises(InputError, match=r"group_size' must be a positive power of two up to 1048576, got 100"):
        read_config(_awq_doc(group_size=100))
    with pytest.raises(InputError, match=r"names 'model.layers.3.mlp', one layer's module"):
        read_config(_awq_doc(modules_to_not_convert=["model.layers.3.mlp"]))
    with pytest.raises(InputError, match=r"names 'model.layers.mlp', which the reader cannot map"):
        read_config(_awq_doc(modules_to_not_convert=["model.layers.mlp"]))
    # One layer's attention left 16-bit is not every layer's: refused, never applied to all of them.
    with pytest.raises(InputError, match=r"names 'model.layers.0.self_attn', one layer's module"):
        read_config(_awq_doc(modules_to_not_convert=["model.layers.0.self_attn"]))
    assert read_config(_awq_doc(modules_to_not_convert=["self_attn"])).weight_scope == "mlp"
    assert main(["decode", "--model", str(FIXTURES / "broken-quant-method.json"), "--hardware", "h100-sxm5"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "bitsandbytes" in err


def test_a_bare_parameter_count_answers_int8_and_states_its_scale_assumption(capsys):
    # 8e9 weights × 1 byte = 8 GB; 3.35 TB/s ÷ 8 GB = 418.75 tokens/s, per-channel scales left out.
    assert main(["decode", "--model", "8e9", "--hardware", "h100-sxm5", "--weight-dtype", "int8", "--json"]) == 0
    p = json.loads(capsys.readouterr().out)
    assert p["weight_bytes"] == 8e9 and p["tokens_per_s"] == pytest.approx(418.75, rel=1e-12)
    assert any("per-channel scales" in a for a in p["assumptions"])
    assert main(["decode", "--model", "8e9", "--hardware", "h100-sxm5", "--weight-dtype", "int8"]) == 0
    assert "per-channel scales" in capsys.readouterr().out


def test_nvfp4_is_four_and_a_half_bits_and_runs_at_the_fp4_peak_where_there_is_one(capsys):
    # NVIDIA: 16 E2M1 values share an FP8 E4M3 scale: (16·4 + 8) / 16 = 4.5 bits = 0.5625 bytes.
    assert parse_weight_format("nvfp4").bytes_per_weight() == 0.5625
    b200 = get_device("b200")
    s = kernels.decode(get_model("llama-3.1-8b"), b200, 64, 1, Formats.of("nvfp4", "fp4"))
    mm = next(k for k in s.ops if k.name == "gate_up_proj")
    assert mm.compute_dtype == "fp4" and mm.peak_flop_per_s == b200.peak_flop_per_s("fp4")
    assert main(["decode", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--weight-format", "nvfp4",
                 "--activation-dtype", "fp4"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "fp4" in err and "H100" in err


def test_mla_prefill_is_costed_expanded_and_decode_absorbed():
    # DeepSeek-V2-Lite: 27 layers, 16 heads, kv_lora 512, qk_nope 128, qk_rope 64, v 128. Batch 4, prompt
    # 4096: scores = 4 · 27 · 16 · 4096·4097/2 = 14.50e9. Expanded: 2·(192 + 128) + 5 = 645 FLOPs per score,
    # 9.35 TFLOP (the issue's ≈ 9.3); absorbed: 2·(576 + 512) + 5 = 2181, 31.6 TFLOP (what it found before).
    doc = {"model_type": "deepseek_v2", "num_hidden_layers": 27, "hidden_size": 2048, "num_attention_heads": 16,
           "intermediate_size": 10944, "moe_intermediate_size": 1408, "n_routed_experts": 64, "n_shared_experts": 2,
           "num_experts_per_tok": 6, "first_k_dense_replace": 1, "kv_lora_rank": 512, "q_lora_rank": None,
           "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 102400}
    m = read_config(doc)
    scores = 4 * 27 * 16 * 4096 * 4097 / 2
    pre = kernels.prefill(m, H100, 4096, 4)
    attn = next(k for k in pre.ops if k.name == "attention")
    assert attn.flops == pytest.approx(645 * scores, rel=1e-12) and attn.flops == pytest.approx(9.35e12, rel=0.002)
    # The expansion itself, kv_b_proj over every prompt token: 2 · 16384 · 27 · 512·16·(128 + 128) = 1.86 TFLOP,
    # inside the projection kernel (the issue's ≈ 1.9).
    qkv = next(k for k in pre.ops if k.name == "qkv_proj")
    assert qkv.flops >= 2 * 16384 * 27 * 512 * 16 * 256
    dec = kernels.decode(m, H100, 4, 4096)
    attn_d = next(k for k in dec.ops if k.name == "attention")
    assert attn_d.flops == pytest.approx((2 * (576 + 512) + 5) * 4 * 27 * 16 * 4097, rel=1e-12)


def test_roofline_model_leaves_gpt_oss_input_embedding_out_of_active(capsys):
    assert main(["model", "gpt-oss-20b", "--json"]) == 0
    p = json.loads(capsys.readouterr().out)
    assert p["active_params"] == pytest.approx(3.61e9, rel=0.005)  # OpenAI model card, Table 1: 3.61B active
    assert p["checkpoint_weight_format"] == "mxfp4" and p["checkpoint_weight_scope"] == "experts"


# ------------------------------------------------ bytes per weight and the peak a format runs at --
def ops(step):
    return {k.name: k for k in step.ops}


def test_int4_g128_bytes_per_weight():
    # 4 bits + an fp16 scale and a 4-bit zero point per 128 weights: 0.5 + 2.5/128
    assert parse_weight_format("int4-g128").bytes_per_weight() == 0.5 + 2.5 / 128 == 0.51953125
    assert parse_weight_format("int4").group_size == 128
    assert parse_weight_format("int4-g32").bytes_per_weight() == 0.5 + 2.5 / 32
    assert parse_weight_format("fp8").bytes_per_weight() == 1.0


def test_int4_g128_llama31_8b_bytes_per_token():
    """The issue's figure: ≈ 4.7 GB per token, ≈ 710 tokens/s on an H100 SXM5, ≈ 3.2× bf16.

    Layer matmul weights: 32 · (4096·6144 + 4096·4096 + 3·4096·14336) = 6,979,321,856 at 0.51953125 B
    = 3,489,660,928 + 6,979,321,856/128·2.5 (136,314,880) = 3,625,975,808 B; head 4096·128256 = 525,336,576 weights kept bf16 = 1,050,673,152 B;
    embedding row 4096·2 = 8,192 B; norms 32·2·4096·2 + 4096·2 = 532,480 B. Total 4,677,189,632 B.
    """
    m, d = get_model("llama-3.1-8b"), H100
    s = decode(m, d, 1, 1, Formats.of("int4-g128"))
    assert s.weight_bytes == 3_625_975_808 + 1_050_673_152 + 8_192 + 532_480
    # Speed of light from weight bytes: 3.35e12 / 4.6772e9 = 716 tokens/s; with KV and activations ≈ 715
    assert 700 < s.tokens_per_s < 717
    bf16 = decode(m, d, 1, 1)
    assert s.tokens_per_s / bf16.tokens_per_s == pytest.approx(3.2, abs=0.02)


def test_fp8_weights_and_activations_run_on_the_fp8_peak():
    d = H100
    k = ops(decode(get_model("llama-3.1-8b"), d, 512, 1, Formats.of("fp8", "fp8", "fp8")))
    assert k["gate_up_proj"].peak_flop_per_s == 1978.9e12
    assert k["lm_head"].peak_flop_per_s == 989.4e12        # the head stays 16-bit
    int4 = ops(decode(get_model("llama-3.1-8b"), d, 512, 1, Formats.of("int4-g128")))
    assert int4["gate_up_proj"].peak_flop_per_s == 989.4e12  # dequantized to bf16


@pytest.mark.parametrize("text", ["int3", "int4-g100", "int4-g0", "nf4", "int4-gx"])
def test_bad_weight_formats_name_the_choices(text):
    with pytest.raises(InputError) as err:
        parse_weight_format(text)
    assert "int4" in str(err.value) or "power of two" in str(err.value)


def test_activation_dtype_without_a_peak_is_refused():
    with pytest.raises(InputError, match="no published fp8 peak"):
        decode(get_model("llama-3.1-8b"), get_device("a100-sxm4-80gb"), 1, 1, Formats.of("fp8", "fp8"))


# ------------------------------------------------------------------ mxfp4 -------------------
def test_mxfp4_bytes_per_weight_from_the_ocp_spec():
    # OCP MX v1.0: a block of 32 E2M1 elements (4 bits) shares one E8M0 scale (8 bits):
    # (32 · 4 + 8) / 32 = 4.25 bits = 0.53125 bytes; no zero point.
    f = parse_weight_format("mxfp4")
    assert (f.element, f.group_size, f.zero_points, f.scale_bytes) == ("fp4", 32, False, 1.0)
    assert f.bytes_per_weight() == 0.53125


def test_mxfp4_bare_model_bytes_per_token():
    # 8e9 weights × 0.53125 B = 4.25e9 B
    assert kernels.weight_bytes_per_token(Model.from_param_count(8e9), "mxfp4") == 4.25e9


def test_mxfp4_runs_dequantized_on_the_h100_and_natively_on_the_b200():
    m = Model.from_param_count(8e9)
    # H100: no fp4 tensor cores; mxfp4 weights with bf16 activations run at the bf16 peak.
    h = kernels.decode(m, get_device("h100-sxm5"), 1, 1, Formats.of("mxfp4"))
    assert h.matmul_dtype == "bf16" and h.peak_flop_per_s == 989.4e12
    # B200 with fp4 activations: the fp4 peak, 9,000 TFLOP/s dense (144 PF sparse per 8 GPUs ÷ 8 ÷ 2).
    b = kernels.decode(m, get_device("b200"), 1, 1, Formats.of("mxfp4", "fp4"))
    assert b.matmul_dtype == "fp4" and b.peak_flop_per_s == 9000e12
    # With bf16 activations the B200 dequantizes too.
    assert kernels.decode(m, get_device("b200"), 1, 1, Formats.of("mxfp4")).matmul_dtype == "bf16"
    with pytest.raises(InputError, match="no published fp4 peak"):
        kernels.decode(m, get_device("h100-sxm5"), 1, 1, Formats.of("mxfp4", "fp4"))


def test_mxfp4_head_stays_bf16():
    # gpt-oss keeps its embedding and head in bf16: Llama 3.1 8B's head 128,256 × 4,096 × 2 B.
    s = kernels.decode(get_model("llama-3.1-8b"), get_device("h100-sxm5"), 1, 1, Formats.of("mxfp4"))
    head = next(k for k in s.ops if k.name == "lm_head")
    assert head.weight_bytes == 128_256 * 4_096 * 2


def test_cli_accepts_mxfp4_and_refuses_fp4_without_a_peak(capsys):
    from roofline.cli import main

    assert main(["decode", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--weight-format", "mxfp4",
                 "--json"]) == 0
    capsys.readouterr()
    assert main(["decode", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--weight-format", "mxfp4",
                 "--activation-dtype", "fp4"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "fp4" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------ a config's quantization_config --
def fixture(name: str):
    return read_config(FIXTURES / name)


def test_quantization_formats():
    assert (fixture("gpt-oss-20b.json").weight_format, fixture("gpt-oss-20b.json").weight_group_size) == ("mxfp4", 32)
    assert fixture("deepseek-v3.json").weight_format == "fp8-block"
    assert fixture("deepseek-v3.json").weight_group_size == 128 * 128
    base = json.loads((FIXTURES / "llama-3.1-8b.json").read_text())
    gptq = read_config({**base, "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128}})
    assert (gptq.weight_format, gptq.weight_group_size) == ("int4", 128)
    awq = read_config({**base, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": -1}})
    assert (awq.weight_format, awq.weight_group_size) == ("int4", 0)
    with pytest.raises(InputError, match=r"quantization_config.bits' is 3; the package models gptq at 4 or 8 bits only"):
        read_config({**base, "quantization_config": {"quant_method": "gptq", "bits": 3}})


def test_a_weight_label_the_step_cannot_apply_is_refused(run_cli):
    # Llama-3.1-8B is dense: an experts scope selects no tensor, so "int4 on the experts" would print
    # int4 and compute every weight in bf16 (about 16 GB of weights read per step).
    code, out, err = run_cli("decode", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--weight-format", "int4",
                             "--weight-scope", "experts")
    assert code == 2 and out == "" and "selects no tensors" in err and err.count("\n") == 1
    # A scope alone narrows no format: refused rather than ignored.
    code, out, err = run_cli("decode", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--weight-scope", "mlp")
    assert code == 2 and "none is given" in err
    # An mxfp4 checkpoint quantizes experts only; on a dense config it is refused at the reader.
    doc = json.loads((FIXTURES / "llama-3.1-8b.json").read_text())
    with pytest.raises(InputError, match="quantizes the routed experts only"):
        read_config({**doc, "quantization_config": {"quant_method": "mxfp4"}})
