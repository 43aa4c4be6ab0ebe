"""A model from a share link (model_link.js decodeModel): impossible or absurd models refused in one sentence.

The link carries the parsed fields ("n_layers:32,..."); what the config reader would refuse, the
link must refuse too, or the step calculator and the Serving mode compute a model no file describes.
"""

from __future__ import annotations

import pytest

from roofline.calculator_view import registry_json, split_registry
from roofline.registry.specfile import MODEL_SHAPE_FIELDS, PLAUSIBLE
from tests.support.node import CALC_DIR, requires_node, run_harness

pytestmark = requires_node

HARNESS = r"""
import { decodeModel } from "./model_link.js";
import { CalcError } from "./calc.js";
import { readFileSync } from "node:fs";
const input = JSON.parse(readFileSync(0, "utf8"));
const out = input.links.map((text) => {
  try { return { model: decodeModel(text, "your model", input.reader) }; }
  catch (err) { if (!(err instanceof CalcError)) return { crash: String(err) }; return { error: err.message }; }
});
process.stdout.write(JSON.stringify(out));
"""

# Llama-3.1-8B's shape (its config.json: 32 layers, 4096 wide, 32 heads, 8 KV heads, 14336, 128256).
DENSE = ("n_layers:32,hidden_size:4096,n_heads:32,kv_heads:8,head_dim:128,ffn_size:14336,gated_ffn:1,"
         "vocab_size:128256,tied_embeddings:0")
LINKS = {
    "dense": (DENSE, None),
    "no expert per token": (DENSE + ",n_experts:8,experts_per_token:0", "experts_per_token must be at least 1"),
    "a billion layers": (DENSE.replace("n_layers:32", "n_layers:1000000000"),
                         "n_layers must be at most 10,000 for a real model"),
    "a repeated key": (DENSE + ",n_layers:64", "gives n_layers twice"),
    "no experts at all": (DENSE + ",n_experts:0", "n_experts must be at least 1"),
    "a scope without a format": (DENSE + ",weight_scope:experts", "without its weight format"),
}


@pytest.fixture(scope="module")
def decoded(tmp_path_factory):
    # The step mode's part of the registry: a page opened from a link has only that.
    reader = split_registry(registry_json())[0]["config_reader"]
    return run_harness(CALC_DIR, HARNESS, {"reader": reader, "links": [t for t, _ in LINKS.values()]},
                       tmp_path_factory.mktemp("links") / "calc")


@pytest.mark.parametrize("i,case", list(enumerate(LINKS)))
def test_a_link_model_is_computed_or_refused_in_one_sentence(decoded, i, case):
    _, said = LINKS[case]
    got = decoded[i]
    if said is None:
        assert got["model"]["n_layers"] == 32
    else:
        assert "error" in got and said in got["error"], got
        assert got["error"].endswith(".") and "\n" not in got["error"]


def test_every_shape_range_starts_at_one():
    # The readers check only the top of each range: below 1 their type checks refuse already.
    assert all(PLAUSIBLE[f][0] == 1 for f in MODEL_SHAPE_FIELDS)


SERVE_HARNESS = r"""
import { defaultRaw, decodeState } from "./state.js";
import { defaultServeRaw, resolveServing, SERVE_FIELDS } from "./serve_state.js";
import { readFileSync } from "node:fs";
const input = JSON.parse(readFileSync(0, "utf8"));
const R = input.registry;
const out = input.queries.map((q) => {
  const base = defaultServeRaw(R, defaultRaw(R));
  const raw = decodeState(R, q, "s_", base, SERVE_FIELDS);
  return resolveServing(R, raw.raw).errors;
});
process.stdout.write(JSON.stringify(out));
"""


def test_serving_mode_refuses_a_request_longer_than_the_models_window(tmp_path):
    # Llama 2's config.json: max_position_embeddings 4096; 100,000 + 1,000 tokens is past it, as the
    # CLI's `serve --input-tokens 100000 --output-tokens 1000` refuses. 1,000 + 1,000 fits.
    queries = ["?mode=serve&s_model=llama-2-7b&s_in=100000&s_out=1000", "?mode=serve&s_model=llama-2-7b&s_in=1000&s_out=1000"]
    errors = run_harness(CALC_DIR, SERVE_HARNESS, {"registry": registry_json(), "queries": queries}, tmp_path / "calc")
    assert "4,096" in errors[0].get("in", "") and "Llama 2 7B" in errors[0]["in"], errors[0]
    assert errors[1] == {}


WORDS_HARNESS = r"""
import { inReaderWords } from "./state.js";
import { readFileSync } from "node:fs";
const input = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(input.map(inReaderWords)));
"""


def test_a_layout_refusal_speaks_the_forms_words_not_the_clis(tmp_path):
    said = run_harness(CALC_DIR, WORDS_HARNESS, ["--devices 9: --pp 9: Llama has only 8 layers to give the stages",
                                                 "--ep 2 with --tp 2: combine it with --tp 1"], tmp_path / "calc")
    assert said == ["9 devices: PP 9: Llama has only 8 layers to give the stages",
                    "EP 2 with TP 2: combine it with TP 1"]
