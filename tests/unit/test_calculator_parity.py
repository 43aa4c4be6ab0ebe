"""The calculator's JavaScript agrees with the roofline package (issue 5).

docs/assets/calculator/calc.js mirrors roofline.model.inference; format.js mirrors roofline.format;
state.js validates what the reader types. Here node runs them over a grid of devices (the
whole registry plus a custom one), models (dense, grouped-query, MoE, bare parameter counts,
custom with a KV cache), phases, batches, lengths and precisions, and every output must
match `roofline.calculator_view.calculate` within 1e-9 relative. Two mutation tests show that a
formula changed on one side only fails the comparison.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import shutil
from pathlib import Path

import pytest

from tests.support.node import requires_node, run_harness

from roofline import format as fmt
from roofline.errors import InputError, RooflineError
from roofline.calculator_view import calculate, custom_device, custom_model, registry_json
from roofline.registry.hardware import devices, get_device
from roofline.model.inference import _size
from roofline.registry.models import Model, get_model, models

ROOT = Path(__file__).resolve().parents[2]
CALC_DIR = ROOT / "docs" / "assets" / "calculator"
REL = 1e-9

pytestmark = requires_node

HARNESS = r"""
import * as calc from "./calc.js";
import * as fmt from "./format.js";
import * as state from "./state.js";
import { readFileSync } from "node:fs";
const input = JSON.parse(readFileSync(0, "utf8"));
const registry = input.registry, C = registry.constants;
const results = input.cases.map((c) => {
  try {
    const device = c.device.custom ? calc.customDevice(...c.device.custom)
      : registry.devices.find((d) => d.id === c.device.id);
    const model = c.model.custom ? calc.customModel(...c.model.custom)
      : registry.models.find((m) => m.id === c.model.id);
    return { ok: calc.calculate(C, device, model, c.phase, c.batch, c.length, c.wd, c.kvd) };
  } catch (err) {
    if (!(err instanceof calc.CalcError)) throw err;
    return { error: err.message };
  }
});
const formats = input.formats.map(([unit, v]) => fmt.UNITS[unit](v));
const parses = input.parses.map(([key, raw]) => {
  const f = state.FIELDS[key];
  return state.parseNumber(raw, f.label, registry.limits[f.limit], f.optional);
});
process.stdout.write(JSON.stringify({ results, formats, parses }));
"""

# --------------------------------------------------------------------------- the grid
CUSTOM_DEVICE = (500e12, 1.2e12, 24e9)
MODELS = [*({"id": i} for i in models()),
          {"custom": [8e9]}, {"custom": [70e9]}, {"custom": [1.5e9]},
          {"custom": [8e9, 32, 8, 128]}, {"custom": [70.6e9, 80, 8, 128, 64]}]
DEVICES = [*({"id": i} for i in devices()), {"custom": list(CUSTOM_DEVICE)}]
PHASES = ["decode", "prefill"]
BATCHES = [1, 3, 64, 1024]
LENGTHS = {"decode": [0, 1, 4096, 131072], "prefill": [1, 17, 512, 32768]}
DTYPES = [("bf16", "bf16"), ("fp8", "fp8"), ("int4", "fp8"), ("fp32", "fp16"), ("int8", "bf16"), ("fp16", "int4")]
N_SAMPLED = 320

# Corners the sample may miss: huge sizes, MoE at batch 1, a model that does not fit.
EXTRA = [
    ({"id": "h100-sxm5"}, {"id": "mixtral-8x7b"}, "decode", 1, 0, "bf16", "bf16"),
    ({"id": "h100-sxm5"}, {"id": "mixtral-8x7b"}, "prefill", 1, 1, "fp8", "fp8"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-70b"}, "decode", 1e9, 1e9, "bf16", "bf16"),
    ({"id": "l4"}, {"id": "llama-3.1-70b"}, "prefill", 8, 1e6, "int4", "int4"),
    ({"id": "m2-ultra"}, {"custom": [8e9]}, "decode", 1, 0, "fp32", "fp32"),
    ({"custom": [1e21, 1e18, 1e18]}, {"custom": [999999e9, 1e5, 1e5, 1e5]}, "prefill", 1e9, 1e9, "fp32", "fp32"),
]
# Inputs both sides must refuse (the package raises; calc.js throws a CalcError).
INVALID = [
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 0, 0, "bf16", "bf16"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1.5, 0, "bf16", "bf16"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, -1, "bf16", "bf16"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "prefill", 1, 0, "bf16", "bf16"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 2e9, 0, "bf16", "bf16"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 0, "fp4", "bf16"),
    ({"id": "h100-sxm5"}, {"id": "llama-3.1-8b"}, "decode", 1, 0, "bf16", "fp64"),
]


def _case(dev, model, phase, batch, length, wd, kvd):
    return {"device": dev, "model": model, "phase": phase, "batch": batch, "length": length, "wd": wd, "kvd": kvd}


def grid() -> list[dict]:
    """A deterministic sample of the full product, plus corners and refusals."""
    rng = random.Random(5)
    full = [(d, m, p, b, l, *dt) for d, m, p, b, dt in itertools.product(DEVICES, MODELS, PHASES, BATCHES, DTYPES)
            for l in LENGTHS[p]]
    sampled = rng.sample(full, N_SAMPLED)
    return [_case(*c) for c in sampled + EXTRA + INVALID]


def _device(spec):
    return custom_device(*spec["custom"]) if "custom" in spec else get_device(spec["id"])


def _model(spec):
    return custom_model(*spec["custom"]) if "custom" in spec else get_model(spec["id"])


def package_result(case: dict) -> dict:
    try:
        return {"ok": calculate(_device(case["device"]), _model(case["model"]), case["phase"], case["batch"],
                                case["length"], case["wd"], case["kvd"])}
    except RooflineError as err:
        return {"error": str(err)}


# --------------------------------------------------------------------------- formatting grid
PY_FORMAT = {"FLOP/s": fmt.flop_per_s, "B/s": fmt.bytes_per_s, "B": fmt.nbytes, "s": fmt.seconds,
             "FLOP/byte": fmt.intensity, "tokens/s": fmt.tokens_per_s, "FLOP": lambda v: fmt.si(v, "FLOP"),
             "": fmt.count, "int": lambda v: f"{int(v):,}"}
OUTPUT_UNITS = {"peak_flop_per_s": "FLOP/s", "attainable_flop_per_s": "FLOP/s", "attained_flop_per_s": "FLOP/s",
                "bandwidth_bytes_per_s": "B/s", "ridge_point": "FLOP/byte", "arithmetic_intensity": "FLOP/byte",
                "flops": "FLOP", "bytes": "B", "weight_bytes": "B", "kv_bytes": "B", "activation_bytes": "B",
                "kv_cache_bytes": "B", "weights_resident_bytes": "B", "memory_required_bytes": "B",
                "memory_capacity_bytes": "B", "time_s": "s", "compute_time_s": "s", "memory_time_s": "s",
                "tokens_per_s": "tokens/s", "tokens_per_s_per_sequence": "tokens/s", "total_params": "",
                "active_params": "", "critical_batch": "int", "crossover_prompt_len": "int"}
# Rounding corners: exact binary ties (0.125, 2.5), carries into the next prefix, tiny and huge values.
FORMAT_EDGES = [("", v) for v in (0, 0.125, 1.125, 12.25, 2.675, 100.5, 0.0625, 0.5625, 2.5, 4776.1, 209.375, 295.3432, 999.5, 999.96, 1e-7, 123456789,
                                  1.5e6, 8.03e9, 46.7e9, 2.5e12)] + \
    [("s", v) for v in (0.004776119, 0.0009995, 0.00099949, 1e-10, 3.5e-9, 1.0, 59.99, 1e18)] + \
    [("B", v) for v in (999.96e9, 999.5e12, 1.3e23, 5e21, 131072.0)] + \
    [("FLOP/s", v) for v in (989.4e12, 1978.9e12, 999949e9)] + \
    [("int", v) for v in (1, 296, 1048576, 1000000000)]


def format_cases(py_results) -> list[tuple[str, float]]:
    out = list(FORMAT_EDGES)
    for r in py_results:
        for key, unit in OUTPUT_UNITS.items():
            v = r.get("ok", {}).get(key)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0:
                out.append((unit, v))
    return out


PARSE_TEXT = ["1", "64", " 8 ", "0", "-3", "abc", "1.5", "1e9", "1e10", "", "1e400", "0x10", "<b>1</b>", "2.0",
              "1e3", ".5", "+7", "NaN", "Infinity", "5e-1"]


def _py_size_ok(key: str, text: str) -> float | None:
    """The package's verdict on a batch or length typed as text: the value, or None if refused."""
    try:
        value = float(text)
        name = {"batch": "batch", "ctx": "context length", "prompt": "prompt length"}[key]
        return float(_size(name, value, allow_zero=key == "ctx"))
    except (ValueError, InputError):
        return None


# --------------------------------------------------------------------------- running node
def run_node(calc_dir: Path, cases, formats, parses, tmp_path: Path, registry=None) -> dict:
    payload = {"registry": registry or registry_json(), "cases": cases, "formats": formats, "parses": parses}
    return run_harness(calc_dir, HARNESS, payload, tmp_path / "calc")


def mismatches(cases, py_results, js_results) -> list[str]:
    """One line per output where the JavaScript and the package disagree."""
    bad = []
    for case, py, js in zip(cases, py_results, js_results):
        where = json.dumps(case)
        if "error" in py or "error" in js:
            if ("error" in py) != ("error" in js):
                bad.append(f"{where}: package {py} vs calculator {js}")
            continue
        p, j = py["ok"], js["ok"]
        for key, pv in p.items():
            jv = j.get(key, "<missing>")
            if pv is None or isinstance(pv, (bool, str)):
                ok = jv == pv
            else:
                ok = isinstance(jv, (int, float)) and not isinstance(jv, bool) and (
                    abs(jv - pv) <= REL * abs(pv) if pv != 0 else jv == 0)
            if not ok:
                bad.append(f"{where}: {key}: package {pv!r} vs calculator {jv!r}")
        extra = set(j) - set(p)
        if extra:
            bad.append(f"{where}: calculator outputs the package does not: {sorted(extra)}")
    return bad


@pytest.fixture(scope="module")
def parity(tmp_path_factory):
    """The grid, the package's results and the calculator's, computed once for this module."""
    cases = grid()
    py = [package_result(c) for c in cases]
    formats = format_cases(py)
    parses = [(key, t) for key in ("batch", "ctx", "prompt") for t in PARSE_TEXT]
    js = run_node(CALC_DIR, cases, formats, parses, tmp_path_factory.mktemp("parity"))
    return cases, py, formats, parses, js


# --------------------------------------------------------------------------- tests
def test_grid_is_large_and_covers_every_axis(parity):
    cases, py, *_ = parity
    valid = [c for c, r in zip(cases, py) if "ok" in r]
    assert len(valid) >= 200
    for axis, values in (("phase", PHASES), ("wd", [d for d, _ in DTYPES]), ("kvd", [k for _, k in DTYPES])):
        assert {c[axis] for c in valid} >= set(values), axis
    assert any("custom" in c["device"] for c in valid)
    kinds = {json.dumps(c["model"]) for c in valid}
    assert json.dumps({"id": "mixtral-8x7b"}) in kinds
    assert any('"custom": [8000000000.0]' in k for k in kinds) and any(len(json.loads(k).get("custom", [])) >= 4 for k in kinds)
    assert sum(r["ok"]["fits"] is False for r in py if "ok" in r) >= 5, "the grid should include configurations that do not fit"
    assert sum(r["ok"]["critical_batch"] is None for r in py if "ok" in r) >= 5
    assert sum(r["ok"]["bound"] == "compute-bound" for r in py if "ok" in r) >= 20


def test_every_output_matches_the_package(parity):
    cases, py, _, _, js = parity
    bad = mismatches(cases, py, js["results"])
    assert not bad, f"{len(bad)} mismatches, first ones:\n" + "\n".join(bad[:15])


def test_refusals_match(parity):
    cases, py, _, _, js = parity
    refused = [i for i, r in enumerate(py) if "error" in r]
    assert len(refused) == len(INVALID)
    assert all("error" in js["results"][i] for i in refused)


def test_formatter_matches_format_py(parity):
    _, _, formats, _, js = parity
    bad = [(u, v, PY_FORMAT[u](v), got) for (u, v), got in zip(formats, js["formats"]) if PY_FORMAT[u](v) != got]
    assert len(formats) > 1000
    assert not bad, "format.js differs from format.py:\n" + "\n".join(map(repr, bad[:15]))


def test_typed_sizes_are_refused_exactly_where_the_package_refuses_them(parity):
    *_, parses, js = parity
    for (key, text), got in zip(parses, js["parses"]):
        want = _py_size_ok(key, text)
        if want is None:
            assert "message" in got and got["message"], (key, text, got)
        else:
            assert got.get("value") == want, (key, text, got)


def test_a_formula_changed_in_javascript_only_fails(parity, tmp_path):
    cases, py, _, _, _ = parity
    mutant = tmp_path / "mutant"
    shutil.copytree(CALC_DIR, mutant)
    src = (mutant / "calc.js").read_text()
    changed = src.replace("full = t * (t + 1) / 2", "full = t * t / 2")
    assert changed != src, "the mutation target moved: update this test"
    (mutant / "calc.js").write_text(changed)
    js = run_node(mutant, cases, [], [], tmp_path)
    bad = mismatches(cases, py, js["results"])
    assert any(": flops:" in b and '"prefill"' in b for b in bad)


def test_a_formula_changed_in_the_package_only_fails(parity, monkeypatch):
    cases, _, _, _, js = parity
    # Count attention with 2 FLOPs per position instead of 4: the JavaScript must disagree.
    monkeypatch.setattr(Model, "attention_flops_per_token",
                        lambda self, context_len: 2.0 * self.n_layers * self.n_heads * self.head_dim * context_len)
    py = [package_result(c) for c in cases]
    assert any(": flops:" in b for b in mismatches(cases, py, js["results"]))


# --------------------------------------------------------------------------- export unit tests
def test_custom_model_kv_cache_by_hand():
    # Llama 3.1 8B's attention shape: 2 (K, V) × 32 layers × 8 KV heads × 128 head dim × 2 bytes = 131,072 B/token.
    m = custom_model(8e9, 32, 8, 128)
    from roofline.model.inference import kv_bytes_per_token
    assert kv_bytes_per_token(m, "bf16") == 2 * 32 * 8 * 128 * 2 == 131_072
    assert m.total_params == m.active_params == 8e9
    assert m.activation_elements_per_token() == 0  # no hidden size given, so no activation traffic
    assert m.n_heads == 8  # query heads default to KV heads


def test_custom_model_decode_bytes_by_hand():
    # Batch 2, 99 tokens cached, bf16: weights 8e9 × 2 B = 16e9 B; KV read and written
    # 2 × (99 + 1) × 131,072 = 26,214,400 B; FLOPs 2 × 8e9 × 2 + 2 × 4·32·8·128·100 = 32e9 + 26,214,400.
    r = calculate(get_device("h100-sxm5"), custom_model(8e9, 32, 8, 128), "decode", 2, 99)
    assert r["weight_bytes"] == 16e9
    assert r["kv_bytes"] == 26_214_400
    assert r["flops"] == 32e9 + 26_214_400
    assert r["kv_cache_bytes"] == 26_214_400


def test_bare_param_count_matches_the_seeds_back_of_envelope():
    # 8e9 fp16 weights on an H100 SXM5 (3.35 TB/s): 3.35e12 / 16e9 = 209.375 tokens/s.
    r = calculate(get_device("h100-sxm5"), custom_model(8e9), "decode", 1, 0, "fp16")
    assert r["tokens_per_s"] == pytest.approx(209.375, rel=1e-12)
    assert r["kv_bytes_per_token"] == 0


def test_custom_device_ridge_by_hand():
    # 500 TFLOP/s ÷ 1.2 TB/s = 416.67 FLOP/byte; fp8 weights still compute at the only (16-bit) peak.
    r = calculate(custom_device(*CUSTOM_DEVICE), get_model("llama-3.1-8b"), "decode", 1, 0, "fp8")
    assert r["ridge_point"] == pytest.approx(500 / 1.2, rel=1e-12)
    assert r["compute_dtype"] == "bf16"


@pytest.mark.parametrize("args, fragment", [
    ((0, 1e12, 1e9), "peak FLOP/s"), ((1e15, 0, 1e9), "memory bandwidth"), ((1e15, 1e12, -1), "memory capacity"),
    ((1e15, float("inf"), 1e9), "memory bandwidth"),
])
def test_custom_device_refuses_non_positive(args, fragment):
    with pytest.raises(InputError, match=fragment):
        custom_device(*args)


@pytest.mark.parametrize("args, fragment", [
    ((0,), "positive"), ((8e9, 32, 0, 128), "KV heads"), ((8e9, 32, 8), "head dim"),
    ((8e9, 32, 8, 128, 12), "multiple of KV heads"),
])
def test_custom_model_refuses_bad_shapes(args, fragment):
    with pytest.raises(InputError, match=fragment):
        custom_model(*args)


def test_registry_export_is_complete_and_json():
    data = json.loads(json.dumps(registry_json()))
    assert [d["id"] for d in data["devices"]] == list(devices())
    assert [m["id"] for m in data["models"]] == list(models())
    assert data["constants"]["critical_batch_max"] == 1 << 20
    h100 = next(d for d in data["devices"] if d["id"] == "h100-sxm5")
    assert h100["memory_bandwidth_bytes_per_s"] == get_device("h100-sxm5").memory_bandwidth_bytes_per_s
