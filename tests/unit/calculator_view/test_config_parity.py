"""The calculator's config.json reader (docs/assets/calculator/config.js) agrees with roofline.configs.

Node reads every fixture in tests/fixtures/configs/ (and a few made-up variants) with config.js;
each record must equal the package's, field by field, and each refusal must be the package's
sentence. Then calc.js runs on the records and totals and KV bytes must match the package.
"""

from __future__ import annotations

import json

import pytest

from tests.support.node import CALC_DIR, mutated_calculator, requires_node, run_harness

from roofline.calculator_view import _model_record, registry_json
from roofline.configs import parse_config_text, read_config_doc, repeated_key_words
from roofline.readfile import RepeatedKey
from roofline.errors import InputError
from roofline.model.formats import choose_weight_format
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "configs"

pytestmark = requires_node

HARNESS = r"""
import * as calc from "./calc.js";
import * as config from "./config.js";
import * as kernels from "./kernels.js";
import { readFileSync } from "node:fs";
const input = JSON.parse(readFileSync(0, "utf8"));
const R = input.registry.config_reader;
const out = input.cases.map(([label, text]) => {
  try {
    const m = config.readConfigText(R, text, label);
    const back = config.decodeModel(config.encodeModel(m), m.name, R);
    const K = input.registry.constants.kernels;
    return { record: m, total: calc.totalParams(m), active: calc.activeParams(m),
             kv: calc.kvElementsPerToken(m), link_total: calc.totalParams(back), link_kv: calc.kvElementsPerToken(back),
             choice: kernels.chooseWeightFormat(K, m), link_choice: kernels.chooseWeightFormat(K, back) };
  } catch (err) {
    if (!(err instanceof calc.CalcError)) throw err;
    return { error: err.message };
  }
});
process.stdout.write(JSON.stringify(out));
"""

BASE = json.loads((FIXTURES / "qwen3-8b.json").read_text())
VARIANTS = {
    "head-dim-float.json": {**BASE, "hidden_size": 4096.0},
    "bad-kv.json": {**BASE, "num_key_value_heads": 5},
    "bad-layer-types.json": {**BASE, "layer_types": ["full_attention", "global"]},
    "sliding.json": {**BASE, "use_sliding_window": True, "sliding_window": 4096, "max_window_layers": 28},
    "gptq.json": {**BASE, "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128}},
    "gptq-8bit-channel.json": {**BASE, "quantization_config": {"quant_method": "gptq", "bits": 8, "group_size": -1}},
    "gptq-4bit-channel.json": {**BASE, "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": -1,
                                                               "desc_act": True}},
    "awq-g64.json": {**BASE, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 64,
                                                     "modules_to_not_convert": ["lm_head"]}},
    "awq-no-attn.json": {**BASE, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128,
                                                         "modules_to_not_convert": ["self_attn", "mlp.gate"]}},
    "awq-odd-module.json": {**BASE, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128,
                                                            "modules_to_not_convert": ["model.layers.3.mlp"]}},
    "awq-bad-group.json": {**BASE, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 100}},
    "fp8-tensor.json": {**BASE, "quantization_config": {"quant_method": "fp8"}},
    "fp8-oblong.json": {**BASE, "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 64]}},
    "awq-8bit.json": {**BASE, "quantization_config": {"quant_method": "awq", "bits": 8, "group_size": 128}},
    "compressed.json": {**BASE, "quantization_config": {"quant_method": "compressed-tensors"}},
    "awq-bad-bits.json": {**BASE, "quantization_config": {"quant_method": "awq", "bits": 3}},
    "bool-layers.json": {**BASE, "num_hidden_layers": True},
    "nested-missing.json": {"model_type": "gemma3", "text_config": "none"},
    "huge.json": {**BASE, "vocab_size": 2e9},
    "no-k.json": {"model_type": "deepseek_v2", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 4,
                  "intermediate_size": 128, "vocab_size": 100, "n_routed_experts": 8, "num_experts_per_tok": None},
    "string.json": "a string",
    # shapes no checkpoint has, refused by the rules the option parser and the registry use
    "head-dim-uneven.json": {**json.loads((FIXTURES / "llama-3.1-8b.json").read_text()), "hidden_size": 4095},
    "head-dim-given.json": {**json.loads((FIXTURES / "llama-3.1-8b.json").read_text()), "hidden_size": 4095,
                            "head_dim": 128},
    "gptq-group-3.json": {**BASE, "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 3}},
    "max-position-zero.json": {**BASE, "max_position_embeddings": 0},
    "max-position-missing.json": {k: v for k, v in BASE.items() if k != "max_position_embeddings"},
    # Plausible ranges (registry.specfile.PLAUSIBLE, one table): a billion layers is no real model.
    "billion-layers.json": {**BASE, "num_hidden_layers": 10**9},
    "huge-hidden.json": {**BASE, "hidden_size": 2**24, "head_dim": 128},
    # Labels the step could not apply: mxfp4 quantizes experts, and a dense model has none; one
    # layer's module left 16-bit cannot be every layer's.
    "mxfp4-dense.json": {**BASE, "quantization_config": {"quant_method": "mxfp4"}},
    # Fields that do not apply: a layer index past the model, shared experts beside no routed ones.
    "mlp-only-past.json": {**json.loads((FIXTURES / "qwen3-30b-a3b.json").read_text()), "mlp_only_layers": [0, 48]},
    "shared-no-routed.json": {**json.loads((FIXTURES / "deepseek-v3.json").read_text()), "n_routed_experts": None,
                              "n_shared_experts": 1},
    # A name is one line: a break flattened, controls and U+202E dropped, a lone surrogate refused.
    "forged-name.json": {**BASE, "_name_or_path": "evil\nroofline: error: forged \u202e\x1b[2J line"},
    "surrogate-name.json": {**BASE, "_name_or_path": "evil\ud800"},
    "awq-one-layer.json": {**BASE, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128,
                                                           "modules_to_not_convert": ["model.layers.0.self_attn"]}},
}


def cases() -> list[tuple[str, str]]:
    out = [(p.name, p.read_text(encoding="utf-8")) for p in sorted(FIXTURES.glob("*.json"))]
    out += [(name, json.dumps(doc)) for name, doc in VARIANTS.items()]
    # A key given twice: JSON parsers keep the last in silence; both readers refuse it.
    out += [("repeated-key.json", json.dumps(BASE)[:-1] + ', "num_hidden_layers": 2}'),
            ("repeated-nested.json", json.dumps({**BASE, "quantization_config": {}})[:-3]
             + '{"quant_method": "awq", "quant_method": "gptq"}}')]
    return out


def python_side(label: str, text: str) -> dict:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        return {"error": f"{label}: not JSON"}
    try:
        parse_config_text(text)
    except RepeatedKey as err:
        return {"error": f"{label}: {repeated_key_words(err.key)}"}
    try:
        m = read_config_doc(doc, name=label)
    except InputError as err:
        return {"error": str(err)}
    record = {**_model_record(m), "family": m.family}
    c = choose_weight_format(m)
    return {"record": record, "total": m.total_params, "active": m.active_params, "kv": m.kv_elements_per_token(),
            "choice": {"format": c.format, "scope": c.scope, "source": c.source}}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    cs = cases()
    return cs, run_harness(CALC_DIR, HARNESS, {"registry": registry_json(), "cases": cs},
                           tmp_path_factory.mktemp("config-parity") / "calc")


def test_every_fixture_and_variant_reads_the_same_in_javascript(results):
    cs, js = results
    assert len(js) == len(cs)
    for (label, text), j in zip(cs, js):
        p = python_side(label, text)
        if "error" in p:
            assert "error" in j, (label, p, j)
            if p["error"].endswith("not JSON"):
                assert j["error"].startswith(p["error"]), (label, j)
            else:
                assert j["error"] == p["error"], label
            continue
        assert "record" in j, (label, j)
        want = p["record"]
        got = {k: j["record"].get(k, "<missing>") for k in want}
        assert got == want, label
        assert j["total"] == pytest.approx(p["total"], rel=1e-12)
        assert j["active"] == pytest.approx(p["active"], rel=1e-12)
        assert j["kv"] == p["kv"]
        # The share link carries the parsed fields: the model it rebuilds has the same numbers.
        assert j["link_total"] == pytest.approx(p["total"], rel=1e-12) and j["link_kv"] == p["kv"], label
        # ... and the same weight format by the same rule (formats.choose_weight_format).
        assert j["choice"] == p["choice"] and j["link_choice"] == p["choice"], label


def test_the_fixtures_cover_refusals_and_every_family(results):
    cs, js = results
    assert sum("error" in j for j in js) >= 12
    families = {j["record"]["family"] for j in js if "record" in j}
    assert families >= {"llama", "llama4", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe", "gemma2", "gemma3",
                        "deepseek_v3", "gpt_oss"}


def test_a_rule_changed_in_javascript_only_fails(tmp_path):
    mutant = mutated_calculator(tmp_path / "calc", "config.js", "(i) => Boolean((i + 1) % v.sliding_window_pattern)",
                                "(i) => Boolean(i % v.sliding_window_pattern)")
    text = (FIXTURES / "gemma-3-27b.json").read_text()
    got = run_harness(mutant, HARNESS, {"registry": registry_json(), "cases": [["g.json", text]]}, tmp_path / "run",
                      timeout=60)[0]["record"]["n_window_layers"]
    assert got != python_side("g.json", text)["record"]["n_window_layers"]


REGISTRY_CHOICE_HARNESS = r"""
import * as kernels from "./kernels.js";
import { readFileSync } from "node:fs";
const input = JSON.parse(readFileSync(0, "utf8"));
const K = input.registry.constants.kernels;
const tried = (f) => { try { return f(); } catch (err) { return { error: err.message }; } };
const out = input.registry.models.map((m) => [m.id, kernels.chooseWeightFormat(K, m),
  kernels.chooseWeightFormat(K, m, "int4-g64", null), tried(() => kernels.chooseWeightFormat(K, m, "mxfp4", "experts"))]);
process.stdout.write(JSON.stringify(out));
"""


def test_the_registry_models_choose_the_same_weight_format_in_javascript(tmp_path):
    # The one rule, both sides: the checkpoint's own format (gpt-oss mxfp4 on its experts, DeepSeek-V3
    # fp8 128×128 blocks, the rest bf16), and an explicit format over every linear layer unless narrowed.
    reg = registry_json()
    got = run_harness(CALC_DIR, REGISTRY_CHOICE_HARNESS, {"registry": reg}, tmp_path / "calc")
    from roofline.registry.models import get_model

    def py(c):
        return {"format": c.format, "scope": c.scope, "source": c.source}

    for mid, own, explicit, narrowed in got:
        m = get_model(mid)
        assert own == py(choose_weight_format(m)), mid
        assert explicit == py(choose_weight_format(m, "int4-g64")), mid
        if m.is_moe or m.is_bare:
            assert narrowed == py(choose_weight_format(m, "mxfp4", "experts")), mid
        else:  # a dense model has no experts for the scope to select: refused alike, never computed in 16-bit
            with pytest.raises(InputError) as err:
                choose_weight_format(m, "mxfp4", "experts")
            assert narrowed == {"error": str(err.value)}, mid
    own = {mid: o["format"] for mid, o, _, _ in got}
    assert own["gpt-oss-20b"] == "mxfp4" and own["deepseek-v3"] == "fp8-b128" and own["llama-3.1-8b"] == "bf16"
