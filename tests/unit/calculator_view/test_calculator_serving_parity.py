"""The calculator's service model (docs/assets/calculator/serving.js) agrees with the package.

serving.js mirrors roofline.model.serving over kernels.js and parallel.js; node runs it over a grid
of workloads (devices with and without a link, dense, windowed, mixture-of-experts and MLA models,
prompts of one chunk and of several, formats, both attention variants, the reader's cap, a price,
targets met and not met) and every frontier point, its envelope mark, the best point under the
targets and the refusal sentence must match roofline.calculator_view.serving within 1e-9
relative; both sides refuse the same inputs. A mutation test shows that a formula changed on one
side only fails the comparison.
"""

from __future__ import annotations

import math

import pytest

from tests.support.node import CALC_DIR, REL, case_harness, mutated_calculator, requires_node, run_harness

from roofline.calculator_view import _model_record, registry_json, serving
from roofline.errors import RooflineError
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model


pytestmark = requires_node

HARNESS = case_harness('import * as serving from "./serving.js";', """
serving.calculateServing(C, registry.devices.find((d) => d.id === c.device),
                         c.model_record || registry.models.find((m) => m.id === c.model), c.I, c.O, c.opts)""")

# (device, model, I, O, options): each exercises a path of the model.
CASES = [
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {}),
    ("h100-sxm5", "llama-3.1-70b", 1024, 256, {"weightFormat": "fp8", "activation": "fp8", "kvDtype": "fp8",
                                               "price": 2.5, "tpotS": 0.03, "ttftS": 0.5}),
    ("h100-sxm5", "llama-3.1-70b", 9000, 128, {"weightFormat": "fp8", "activation": "fp8", "kvDtype": "fp8",
                                               "tpotS": 0.002}),               # two chunks; a target nothing meets
    ("h200-sxm", "mixtral-8x7b", 512, 512, {"maxConcurrency": 100}),          # EP layouts, the reader's cap
    ("h100-sxm5", "gemma-3-27b", 3000, 300, {"chunk": 512}),                   # windowed layers, many chunks
    ("h100-sxm5", "mistral-7b", 6000, 64, {"chunk": 1000, "attention": "unfused"}),  # window in chunks, unfused
    ("a100-sxm4-80gb", "llama-3.1-8b", 200, 2000, {"weightFormat": "int4", "price": 1.0}),
    ("h200-sxm", "deepseek-v3", 1024, 256, {"weightFormat": "fp8", "activation": "fp8"}),  # MLA, needs 8 GPUs
    ("h100-sxm5", "qwen3-30b-a3b", 100, 50, {"chunk": 64}),                    # the chunk binds
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"concurrency": 1000}),           # past memory: requests wait
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"concurrency": 300, "maxConcurrency": 100, "tp": 2}),  # the cap
    ("h200-sxm", "mixtral-8x7b", 2048, 128, {"concurrency": 64, "ep": 4, "dp": 2, "price": 3.0}),
    ("h100-sxm5", "llama-3.1-70b", 1024, 256, {"concurrency": 16, "pp": 4}),
    # what the calculator's Serving mode adds: the collective latency, the checkpoint's own scope, FP4
    ("h100-sxm5", "llama-3.1-70b", 2048, 512, {"latency": "ring", "tpotS": 0.02, "concurrency": 32, "tp": 8}),
    ("h100-sxm5", "mixtral-8x7b", 1024, 256, {"latency": 2e-5, "ttftS": 0.05}),
    ("h100-sxm5", "gpt-oss-120b", 1024, 1024, {"weightFormat": "mxfp4", "weightScope": "experts", "price": 4.0}),
    ("b200", "llama-3.1-70b", 1024, 256, {"weightFormat": "nvfp4", "activation": "fp4", "kvDtype": "fp8",
                                          "ttftS": 10.0, "tpotS": 0.001}),  # FP4 peak; a TPOT nothing meets
    ("h200-sxm", "qwen3-235b-a22b", 4096, 1024, {"weightFormat": "fp8", "activation": "fp8", "maxConcurrency": 256}),
    # the expected figure at an engine's caps: SGLang's static KV share at TP4, TensorRT-LLM's share of the free
    # memory and its cap on requests in flight binding
    ("h100-sxm5", "llama-3.1-70b", 1024, 256, {"engine": "sglang", "layouts": "set", "tp": 4, "concurrency": 2000}),
    ("h200-sxm", "llama-3.1-8b", 128, 128, {"engine": "trtllm", "concurrency": 4096, "layouts": "set"}),
    # the frontier held to the layout the reader set: TP8 alone, a mixed layout with the reader's cap, a
    # target nothing on that layout meets (its sentence names the layout)
    ("h100-sxm5", "llama-3.1-70b", 1024, 256, {"layouts": "set", "tp": 8, "tpotS": 0.03}),
    ("h200-sxm", "mixtral-8x7b", 2048, 128, {"layouts": "set", "ep": 4, "dp": 2, "maxConcurrency": 40,
                                             "concurrency": 64}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"layouts": "set", "ttftS": 1e-4}),
    # targets judged at a percentile other than the default p99: the mean, p50 and p90
    ("h100-sxm5", "llama-3.1-70b", 2048, 128, {"weightFormat": "fp8", "activation": "fp8", "kvDtype": "fp8",
                                               "tpotS": 0.03, "tpotPercentile": "mean", "ttftS": 2.0,
                                               "ttftPercentile": "p50"}),
    ("h200-sxm", "llama-3.1-70b", 2048, 128, {"tpotS": 0.03, "tpotPercentile": "p90", "tp": 4, "layouts": "set"}),
    # prefill and decode on separate pools: dense over every layout, a mixture of experts with the ring's
    # latency and a prompt of two chunks, one layout held (both pools on it), one device with no link
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"disaggregated": True}),
    ("h200-sxm", "mixtral-8x7b", 9000, 128, {"disaggregated": True, "latency": "ring", "maxConcurrency": 64}),
    ("h100-sxm5", "llama-3.1-70b", 2048, 256, {"disaggregated": True, "layouts": "set", "tp": 4,
                                               "weightFormat": "fp8", "activation": "fp8"}),
    ("l40s", "llama-3.1-8b", 1024, 256, {"disaggregated": True}),
    # speculative decoding: each method's defaults, one set by hand (with a two-chunk prompt and the pools
    # apart), every drafted token accepted; engines' caps and paged KV memory in blocks
    ("h200-sxm", "deepseek-v3", 1024, 256, {"weightFormat": "fp8", "activation": "fp8", "speculation": "mtp"}),
    ("h100-sxm5", "llama-3.1-70b", 1024, 256, {"speculation": "eagle", "engine": "vllm", "tpotS": 0.02}),
    ("h200-sxm", "llama-3.1-70b", 9000, 512, {"speculation": "medusa", "disaggregated": True, "layouts": "set",
                                              "tp": 8, "kvMemory": "paged"}),
    ("h100-sxm5", "llama-3.1-8b", 2048, 128, {"speculation": "draft", "draftTokens": 6, "acceptance": 0.7,
                                              "draftCost": 0.05, "engine": "trtllm", "kvMemory": "paged",
                                              "kvBlockTokens": 64}),
    ("h100-sxm5", "mixtral-8x7b", 1024, 256, {"speculation": "eagle", "acceptance": 1.0, "engine": "sglang",
                                              "kvMemory": "paged", "concurrency": 32, "ep": 2}),
]

REFUSED = [
    ("h100-sxm5", "llama-3.1-8b", 0, 256, {}),
    ("h100-sxm5", "llama-3.1-8b", 1.5, 256, {}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 1, {}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"chunk": 0}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"price": -1}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"maxConcurrency": 0}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"weightFormat": "mxfp4", "activation": "fp4"}),  # no FP4 peak
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"tpotS": 0}),
    ("h100-sxm5", "llama-3.1-70b", 1024, 256, {"concurrency": 1}),             # one device does not hold it
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"concurrency": 0}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"concurrency": 4, "tp": 3}),       # 3 does not divide the heads
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"latency": -1e-6}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"weightScope": "heads"}),
    ("b200", "llama-3.1-8b", 1024, 256, {"ttftS": -1.0}),
    ("h100-sxm5", "llama-3.1-70b", 1024, 256, {"layouts": "set"}),                # one device does not hold it
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"layouts": "set", "tp": 3}),       # 3 does not divide the heads
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"layouts": "some"}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"layouts": "set", "maxConcurrency": 2.5}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"tpotS": 0.03, "tpotPercentile": "p95"}),   # not a percentile offered
    ("h100-sxm5", "llama-3.1-8b", 100_000, 256, {"chunk": 10}),                         # 10,000 chunks a prompt
    ("h100-sxm5", "llama-3.1-70b", 1024, 256, {"disaggregated": True, "layouts": "set", "dp": 2, "tp": 2}),  # no pool
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"speculation": "eagle", "acceptance": 0}),       # outside (0, 1]
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"speculation": "eagle", "acceptance": 1.2}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"speculation": "eagle", "draftTokens": 0}),      # fewer than one
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"speculation": "eagle", "draftTokens": 17}),     # past any published
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"speculation": "draft"}),                         # acceptance needed
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"speculation": "draft", "acceptance": 0.7}),      # its cost needed
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"acceptance": 0.7}),                              # no speculation
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"speculation": "lookahead"}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"engine": "tgi"}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"kvMemory": "paged", "kvBlockTokens": 0}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"kvMemory": "virtual"}),
    ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"concurrency": 1, "dp": 2}),                      # a replica idle
]

_PY_NAMES = {"weightFormat": "weight_format", "activation": "activation", "kvDtype": "kv_dtype",
             "attention": "attention", "chunk": "chunk_tokens", "maxConcurrency": "max_concurrency",
             "price": "usd_per_device_hour", "ttftS": "ttft_s", "tpotS": "tpot_s", "concurrency": "concurrency",
             "tp": "tp", "pp": "pp", "ep": "ep", "dp": "dp",
             "latency": "collective_latency", "weightScope": "weight_scope", "layouts": "layouts",
             "ttftPercentile": "ttft_percentile", "tpotPercentile": "tpot_percentile", "disaggregated": "disaggregated",
             "speculation": "speculation", "draftTokens": "draft_tokens", "acceptance": "acceptance",
             "draftCost": "draft_cost", "engine": "engine", "kvMemory": "kv_memory", "kvBlockTokens": "kv_block_tokens"}


def _python(device, model, I, O, opts):
    try:
        return {"ok": serving(get_device(device), get_model(model), I, O,
                              **{_PY_NAMES[k]: v for k, v in opts.items()})}
    except RooflineError as err:
        return {"error": str(err)}


def _run(cases, calc_dir=CALC_DIR, tmp=None):
    payload = {"registry": registry_json(),
               "cases": [{"device": d, "model": m, "I": i, "O": o, "opts": opts} for d, m, i, o, opts in cases]}
    return run_harness(calc_dir, HARNESS, payload, tmp)["results"]


def _close(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        # a binding limit's gains are differences of two rates (relaxed ÷ base − 1): held to REL absolute
        return a.keys() == b.keys() and all(math.isclose(a[k], b[k], rel_tol=REL, abs_tol=REL) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if a is None or b is None or isinstance(a, (str, bool, list, tuple, dict)) or isinstance(b, (str, bool, list, tuple, dict)):
        return a == b
    return math.isclose(float(a), float(b), rel_tol=REL, abs_tol=0.0)


def _mismatches(py: dict, js: dict) -> list[str]:
    if "error" in py or "error" in js:
        return [] if ("error" in py) == ("error" in js) else [f"one side refused: {py} vs {js}"]
    p, j = py["ok"], js["ok"]
    out = []
    if len(p["frontier"]) != len(j["frontier"]):
        return [f"{len(p['frontier'])} points against {len(j['frontier'])}"]
    for a, b in zip(p["frontier"], j["frontier"]):
        for key, value in a.items():
            if not _close(value, b.get(key)):
                out.append(f"{a['layout']} c={a['concurrency']} {key}: {value} vs {b.get(key)}")
    if (p["best"] is None) != (j["best"] is None):
        out.append(f"best: {p['best']} vs {j['best']}")
    elif p["best"] is not None:
        out += [f"best {k}: {v} vs {j['best'].get(k)}" for k, v in p["best"].items()
                if not _close(v, j["best"].get(k))]
    if (p["point"] is None) != (j["point"] is None):
        out.append(f"point: {p['point']} vs {j['point']}")
    elif p["point"] is not None:
        out += [f"point {k}: {v} vs {j['point'].get(k)}" for k, v in p["point"].items()
                if not _close(v, j["point"].get(k))]
    if p["refusal"] != j["refusal"]:
        out.append(f"refusal: {p['refusal']!r} vs {j['refusal']!r}")
    if (p["disaggregated"] is None) != (j.get("disaggregated") is None):
        out.append(f"disaggregated: {p['disaggregated'] is None} vs {j.get('disaggregated') is None}")
    elif p["disaggregated"] is not None:
        if len(p["disaggregated"]) != len(j["disaggregated"]):
            return out + [f"{len(p['disaggregated'])} disaggregated points against {len(j['disaggregated'])}"]
        for a, b in zip(p["disaggregated"], j["disaggregated"]):
            out += [f"disaggregated {a['decode_layout']} c={a['concurrency']} {k}: {v} vs {b.get(k)}"
                    for k, v in a.items() if not _close(v, b.get(k))]
    return out


def test_serving_parity_on_a_grid_of_workloads(tmp_path):
    js = _run(CASES, tmp=tmp_path)
    for case, j in zip(CASES, js):
        py = _python(*case)
        assert "ok" in py, (case, py)
        bad = _mismatches(py, j)
        assert not bad, (case, bad[:5])
    # the grid reaches every path it claims to: a refusal, the chunk, EP and the reader's cap
    results = [_python(*c)["ok"] for c in CASES]
    kinds = {p["limited_by"] for r in results for p in r["frontier"] + ([r["point"]] if r["point"] else [])}
    assert {"chunk", "memory", "cap", "bandwidth", "compute"} <= kinds, kinds
    # the expected figure holds fewer requests than the ceiling somewhere: an engine's KV share or cap binds
    held = [p for r in results for p in r["frontier"] + ([r["point"]] if r["point"] else [])]
    assert any(p["expected_requests_in_flight"] < min(p["concurrency"], p["memory_cap"]) for p in held)
    assert _python(*CASES[2])["ok"]["refusal"].startswith("nothing meets a TPOT of 2 ms")


def test_a_layout_set_holds_the_frontier_to_it():
    # Devices 8 and TP 8 with "only the layout set": every point on TP8 (eight devices), none on another
    # layout; the best under a 30 ms TPOT is on TP8 too, and a TTFT of 0.1 ms, which no layout reaches
    # (one 8B step reads 15 GB of weights: at least 4.5 ms on an H100), is refused naming the one layout.
    got = _python(*CASES[-14])["ok"]
    assert {(p["layout"], p["devices"]) for p in got["frontier"]} == {("TP8", 8)}
    assert got["best"]["layout"] == "TP8"
    mixed = _python(*CASES[-13])["ok"]
    assert {p["layout"] for p in mixed["frontier"]} == {"EP4 × DP2"}
    assert max(p["concurrency"] for p in mixed["frontier"]) == 40  # the reader's cap
    refusal = _python(*CASES[-12])["ok"]["refusal"]
    assert refusal.startswith("nothing meets a TTFT of 100 µs") and "on 1 device and any concurrency" in refusal, refusal


def test_both_sides_refuse_the_same_inputs(tmp_path):
    js = _run(REFUSED, tmp=tmp_path)
    for case, j in zip(REFUSED, js):
        py = _python(*case)
        assert "error" in py and "error" in j, (case, py, j)


def test_a_formula_changed_on_one_side_fails(tmp_path):
    mutated = mutated_calculator(tmp_path / "mutated", "serving.js", "layerPositions(m, I + O / 2)",
                                 "layerPositions(m, I + O)")
    js = _run(CASES[:1], calc_dir=mutated, tmp=tmp_path / "run")
    assert _mismatches(_python(*CASES[0]), js[0])


@pytest.mark.parametrize("target, replacement", [
    # a chunk's attention timed at its whole prompt's pairs per position, not at the causal length they match
    ("2.0 * ppairs / ppos - 1.0", "ppairs / ppos"),
    # the engine's per-step overhead left out
    ("sendS + E.step_overhead_s[E.engine[engine || \"\"]]", "sendS"),
])
def test_the_expected_figure_changed_on_one_side_fails_there_alone(tmp_path, target, replacement):
    case = CASES[1] if "ppos" in target else next(c for c in CASES if c[4].get("engine") == "vllm")
    mutated = mutated_calculator(tmp_path / "mutated", "expected.js", target, replacement)
    miss = _mismatches(_python(*case), _run([case], calc_dir=mutated, tmp=tmp_path / "run")[0])
    # only the expected figure's own fields move: its rate, and the times of its step mix
    assert miss and all(" expected_" in m for m in miss), miss[:3]


def test_disaggregated_ttft_is_the_colocated_one_of_a_request_alone_plus_the_kv_send():
    # One definition of TTFT: on TP4 (both pools held to it), one request with no contention co-located waits
    # for nothing and runs its own prompt's chunk steps; disaggregated it runs the same steps on the prefill
    # pool and then sends its KV cache once. So the two differ by the send alone, and the send is positive
    # (70B in FP8 with a BF16 cache: 2,048 tokens × 80 layers × 2 × 8 × 128 values × 2 bytes = 671 MB over NVLink).
    got = _python(*CASES[-7])["ok"]
    alone = next(p for p in got["frontier"] if p["concurrency"] == 1)
    assert alone["layout"] == "TP4" and alone["ttft_s"] == pytest.approx(alone["prefill_s"], rel=0.05)
    dis = got["disaggregated"]
    assert {p["prefill_layout"] for p in dis} == {"TP4"}
    send = dis[0]["kv_transfer_s"]
    assert send > 671e6 / 450e9  # the bytes over the H100's 450 GB/s a direction, before any latency
    assert dis[0]["ttft_s"] == pytest.approx(alone["ttft_s"] + send, rel=1e-12)


def test_speculation_per_user_is_accepted_tokens_a_pass_over_the_pass(tmp_path):
    # EAGLE's defaults: k = 4 drafted tokens, each accepted with a = 0.8, so a pass keeps on average
    # (1 − 0.8^5) ÷ (1 − 0.8) = (1 − 0.32768) ÷ 0.2 = 3.3616 tokens (Leviathan et al., eq. 1). With one request
    # in flight every gap is a pass of decodes only, so the calculator's tokens/s per user is 3.3616 ÷ that pass.
    case = ("h100-sxm5", "llama-3.1-8b", 1024, 256, {"speculation": "eagle", "concurrency": 1})
    js = _run([case], tmp=tmp_path)
    point = js[0]["ok"]["point"]
    assert point["output_tokens_per_s_per_user"] * point["decode_step_s"] == pytest.approx(3.3616, rel=1e-12)
    plain = _run([case[:4] + ({"concurrency": 1},)], tmp=tmp_path / "plain")[0]["ok"]["point"]
    # the pass verifies five positions and runs the one-layer draft four times: longer than a plain step, but
    # by far less than 3.36 times, so speculation raises the per-user ceiling
    assert plain["decode_step_s"] < point["decode_step_s"] < 1.2 * plain["decode_step_s"]
    assert point["output_tokens_per_s_per_user"] > 2.5 * plain["output_tokens_per_s_per_user"]
