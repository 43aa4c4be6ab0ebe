"""One step, one schema: the JSON of `decode`, `prefill`, `layouts` and `serve` agree, and README lists it.

A key two commands share must mean the same thing in both: the same step gives the same value under
`decode` and in its `layouts` row, workload-free figures are equal across decode and prefill, every
shared key has one JSON type, a service point shares only its layout's names with a step (its own
`limited_by` is not a step's `bound`), and the calculator's reference export uses the step's names.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from roofline.calculator_view import calculate
from roofline.registry.hardware import get_device
from roofline.registry.models import get_model

from tests.conftest import ROOT
MODEL, HW, BATCH, CONTEXT = "llama-3.1-8b", "h100-sxm5", 4, 2048
LAYOUT_KEYS = {"layout", "devices", "tp", "pp", "ep", "dp"}
#: Figures no workload enters: one step's and another's must agree on the same device, formats and layout.
WORKLOAD_FREE = ("model", "hardware", "layout", "devices", "tp", "pp", "ep", "dp", "weight_format", "weight_scope",
                 "weight_scope_words", "head_format", "activation_dtype", "kv_dtype", "attention", "compute_dtype",
                 "peak_flop_per_s", "bandwidth_bytes_per_s", "ridge_point", "weights_resident_bytes",
                 "runtime_reserve_bytes", "memory_capacity_bytes", "usable_memory_bytes", "weight_format_source",
                 "link_ridge_point", "interconnect", "collective_latency", "collective_latency_used",
                 "collective_latency_per_collective_s", "collective_latency_source_url")


@pytest.fixture(scope="module")
def docs():
    from roofline.cli import main

    def run(*args):
        import contextlib
        import io
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main([*args, "--json"]) == 0
        return json.loads(buf.getvalue())

    lay = ("--tp", "2")
    decode = run("decode", "--model", MODEL, "--hardware", HW, "--batch", str(BATCH), "--context", str(CONTEXT), *lay)
    prefill = run("prefill", "--model", MODEL, "--hardware", HW, "--batch", "1", "--prompt", "512", *lay)
    layouts = run("layouts", "--model", MODEL, "--hardware", HW, "--batch", str(BATCH), "--context", str(CONTEXT))
    serve = run("serve", "--model", MODEL, "--hardware", HW, "--input-tokens", "512", "--output-tokens", "128",
                "--concurrency", "8", *lay)
    return decode, prefill, layouts, serve


def _kind(v) -> str:
    return "number" if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v).__name__


def test_a_layouts_row_is_the_decode_step_under_the_same_names(docs):
    decode, _, layouts, _ = docs
    row = next(r for r in layouts["layouts"] if r["layout"] == "TP2")
    shared = set(row) & set(decode)
    # the per-device figures a layouts row shows, under decode's names
    assert {"weights_resident_bytes", "kv_resident_bytes", "memory_required_bytes", "time_s", "bound",
            "tokens_per_s_per_device", "max_batch_that_fits", "speed_of_light_tokens_per_s"} <= shared
    assert set(row) <= set(decode), f"layouts keys decode lacks: {sorted(set(row) - set(decode))}"
    assert {k: row[k] for k in shared} == {k: decode[k] for k in shared}
    top = set(layouts) - {"layouts", "smallest_layout"}
    assert {k: layouts[k] for k in top} == {k: decode[k] for k in top}


def test_decode_and_prefill_share_names_and_workload_free_figures(docs):
    decode, prefill, _, _ = docs
    assert set(prefill) - {"time_to_first_token_s"} <= set(decode)
    assert {k: prefill[k] for k in WORKLOAD_FREE} == {k: decode[k] for k in WORKLOAD_FREE}
    assert {k: _kind(prefill[k]) for k in prefill if k in decode and prefill[k] is not None and decode[k] is not None} \
        == {k: _kind(decode[k]) for k in prefill if k in decode and prefill[k] is not None and decode[k] is not None}
    assert prefill["phase"] == "prefill" and decode["phase"] == "decode"


def test_a_service_point_shares_only_its_layout_with_a_step(docs):
    decode, _, layouts, serve = docs
    point = serve["point"]
    assert set(point) & set(decode) == LAYOUT_KEYS  # a `bound` here would mean another thing
    row = next(r for r in layouts["layouts"] if r["layout"] == "TP2")
    assert {k: point[k] for k in LAYOUT_KEYS} == {k: row[k] for k in LAYOUT_KEYS}
    wl = serve["workload"]
    for key in set(wl) & set(decode):
        assert wl[key] == decode[key], key


def test_the_calculator_export_uses_the_steps_names():
    decode_keys = set(json.loads(_decode_json()))
    out = calculate(get_device(HW), get_model(MODEL), "decode", BATCH, CONTEXT, tp=2)
    own = {"total_params", "time_to_first_token_s", "tokens_per_s_perfect_overlap",
           "expected_tokens_per_s_per_sequence"}  # what only the calculator shows
    assert set(out) - own <= decode_keys, sorted(set(out) - own - decode_keys)


def _decode_json() -> str:
    import contextlib
    import io

    from roofline.cli import main
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(["decode", "--model", MODEL, "--hardware", HW, "--tp", "2", "--json"])
    return buf.getvalue()


def _readme_keys() -> set[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("### One step, one schema")
    table = text[start:text.index("\n#", start + 5)]
    return set(re.findall(r"^\| `([a-z0-9_]+)`", table, re.M))


def test_readme_lists_every_key_of_the_one_schema(docs):
    decode, prefill, layouts, serve = docs
    keys = set(decode) | set(prefill) | set(layouts["layouts"][0]) | set(serve["point"])
    missing = keys - _readme_keys()
    assert not missing, f"keys README's schema table does not list: {sorted(missing)}"
