"""The Serving mode's device comparison (docs/assets/calculator/compare.js) agrees with the package.

compare.js mirrors `roofline compare` (roofline.model.compare) for one setup at a time, through
roofline.calculator_view.compare_setup: node runs it over a grid of setups (devices with and without a
link, dense and mixture-of-experts models, at most so many devices, the registry's price and the
reader's, targets met and missed at the ceiling or at the expected figure alone) and every field of
the answer, both best points whole, and the break-even price ratio of each pair must match within
1e-9 relative; both sides refuse the same inputs. A mutation test shows a formula changed on one side
only fails the comparison.
"""

from __future__ import annotations

import math

import pytest

from tests.support.node import CALC_DIR, REL, case_harness, mutated_calculator, requires_node, run_harness

from roofline.calculator_view import compare_break_even, compare_setup, registry_json
from roofline.errors import RooflineError
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model

pytestmark = requires_node

HARNESS = case_harness('import * as cmp from "./compare.js";', """
(() => {
  const one = (s) => cmp.compareSetup(C, registry.devices.find((d) => d.id === s.device),
    registry.models.find((m) => m.id === c.model), c.I, c.O, c.opts, c.ttftS, c.tpotS, s.maxDevices, s.usd);
  const a = one(c.a), b = one(c.b);
  return { a, b, breakEven: cmp.compareBreakEven(a, b) };
})()""")

# (model, I, O, workload options, ttft_s, tpot_s, setup A, setup B); a setup: (device, max devices, USD).
CASES = [
    # the Serving page's question: H200 or B200 for Llama 3.1 8B at 128 in / 2,048 out, registry prices
    ("llama-3.1-8b", 128, 2048, {}, None, None, ("h200-sxm", None, None), ("b200", None, None)),
    # a TPOT target both meet; the reader's price on B; A held to two devices
    ("llama-3.1-8b", 128, 2048, {}, None, 0.02, ("h200-sxm", 2, None), ("b200", None, 6.0)),
    # 70B in FP8 needs several devices; a TTFT target; the same device at two sizes
    ("llama-3.1-70b", 1024, 256, {"weightFormat": "fp8", "activation": "fp8", "kvDtype": "fp8"}, 0.5, 0.03,
     ("h100-sxm5", 4, 2.0), ("h100-sxm5", 8, 2.0)),
    # a mixture of experts over EP layouts, the ring's latency and an engine's caps
    ("mixtral-8x7b", 2048, 256, {"latency": "ring", "engine": "vllm"}, None, 0.02, ("h200-sxm", None, 3.0),
     ("h100-sxm5", None, None)),
    # a target nothing meets on A: its sentence, no cost, no break-even
    ("llama-3.1-8b", 1024, 256, {}, None, 0.001, ("l40s", None, 1.0), ("h100-sxm5", None, 2.0)),
    # a device with no published price and no price given: no cost
    ("llama-3.1-8b", 1024, 256, {"chunk": 512}, 1.0, None, ("a100-sxm4-80gb", 1, None), ("h100-sxm5", 1, 2.5)),
]

REFUSED = [
    ("llama-3.1-8b", 1024, 256, {}, None, None, ("h100-sxm5", 0, None), ("b200", None, None)),     # no devices
    ("llama-3.1-8b", 1024, 256, {}, None, None, ("h100-sxm5", 2.5, None), ("b200", None, None)),   # half a device
    ("llama-3.1-70b", 1024, 256, {}, None, None, ("h100-sxm5", 1, None), ("b200", None, None)),    # 70B on one H100
    ("llama-3.1-8b", 1024, 256, {}, None, -1.0, ("h100-sxm5", None, None), ("b200", None, None)),  # a negative target
]

_PY_NAMES = {"weightFormat": "weight_format", "activation": "activation", "kvDtype": "kv_dtype", "chunk": "chunk_tokens",
             "latency": "collective_latency", "engine": "engine"}


def _python(model, I, O, opts, ttft, tpot, a, b):
    kwargs = {_PY_NAMES[k]: v for k, v in opts.items()}
    try:
        sa, sb = (compare_setup(get_device(d), get_model(model), I, O, ttft_s=ttft, tpot_s=tpot, max_devices=n,
                                usd_per_device_hour=usd, **kwargs) for d, n, usd in (a, b))
        return {"ok": {"a": sa, "b": sb, "breakEven": compare_break_even(sa, sb)}}
    except RooflineError as err:
        return {"error": str(err)}


def _run(cases, calc_dir=CALC_DIR, tmp=None):
    setup = lambda s: {"device": s[0], "maxDevices": s[1], "usd": s[2]}  # noqa: E731
    payload = {"registry": registry_json(),
               "cases": [{"model": m, "I": i, "O": o, "opts": opts, "ttftS": t1, "tpotS": t2, "a": setup(a), "b": setup(b)}
                         for m, i, o, opts, t1, t2, a, b in cases]}
    return run_harness(calc_dir, HARNESS, payload, tmp)["results"]


def _close(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return all(_close(v, b.get(k)) for k, v in a.items())
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if a is None or b is None or isinstance(a, (str, bool)) or isinstance(b, (str, bool)):
        return a == b
    # a binding limit's gains are differences of rates: held to REL absolute as well
    return math.isclose(float(a), float(b), rel_tol=REL, abs_tol=REL if abs(float(a)) < 1 else 0.0)


def _mismatches(py: dict, js: dict, path: str = "") -> list[str]:
    if isinstance(py, dict) and isinstance(js, dict):
        return [m for k, v in py.items() for m in _mismatches(v, js.get(k), f"{path}.{k}")]
    return [] if _close(py, js) else [f"{path}: {py!r} vs {js!r}"]


def test_compare_parity_on_a_grid_of_setups(tmp_path):
    js = _run(CASES, tmp=tmp_path)
    for case, j in zip(CASES, js):
        py = _python(*case)
        assert "ok" in py and "ok" in j, (case, py.get("error"), j.get("error"))
        bad = _mismatches(py["ok"], j["ok"])
        assert not bad, (case, bad[:5])
    results = [_python(*c)["ok"] for c in CASES]
    # the grid reaches what it claims: a target missed (a sentence, no cost, no ratio), a registry price, the
    # reader's price, a device with neither
    missed = results[4]
    assert missed["a"]["ceiling"] is None and missed["a"]["unmet_ceiling"].startswith("nothing meets a TPOT of 1 ms")
    assert missed["breakEven"] == {"ceiling": None, "expected": None}
    assert results[0]["a"]["price_id"] and results[1]["b"]["price_id"] is None
    assert results[5]["a"]["usd_per_device_hour"] is None and results[5]["a"]["usd_per_million_output_tokens_ceiling"] is None
    # held to two devices: no point on more
    assert max(p["devices"] for p in (results[1]["a"]["ceiling"], results[1]["a"]["expected"])) <= 2


def test_both_sides_refuse_the_same_inputs(tmp_path):
    js = _run(REFUSED, tmp=tmp_path)
    for case, j in zip(REFUSED, js):
        py = _python(*case)
        assert "error" in py and "error" in j, (case, py, j)
        # the same sentence, up to how each language prints the number it quotes (-1.0 against -1)
        assert py["error"].split(" got ")[0] == j["error"].split(" got ")[0], (case, py["error"], j["error"])


def test_cost_and_break_even_by_hand(tmp_path):
    # $3.60 an hour at 1,000 tokens/s per device buys 3.6 million tokens an hour: $1 per million. A device doing
    # 3,000 tokens/s per device against one doing 2,000 does 1.5× the work a device-hour, so it is worth up to
    # 1.5× the other's price.
    harness = case_harness('import * as cmp from "./compare.js";',
                           "[cmp.usdPerMillionTokens(3.6, 1000), cmp.breakEvenPriceRatio(3000, 2000)]")
    got = run_harness(CALC_DIR, harness, {"registry": registry_json(), "cases": [{}]}, tmp_path)["results"][0]["ok"]
    assert got[0] == pytest.approx(1.0, rel=1e-12) and got[1] == pytest.approx(1.5, rel=1e-12)


def test_the_expected_view_changed_on_one_side_fails(tmp_path):
    # TTFT left at the ceiling's in the expected view: the expected best's TTFT no longer matches the package's
    mutated = mutated_calculator(tmp_path / "mutated", "compare.js", "ttft_s: t,", "ttft_s: p.ttft_s,")
    miss = _mismatches(_python(*CASES[0])["ok"], _run(CASES[:1], calc_dir=mutated, tmp=tmp_path / "run")[0]["ok"])
    assert miss and all("expected" in m for m in miss), miss[:3]
