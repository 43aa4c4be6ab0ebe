"""The CLI: documented JSON fields, readable tables, and exit status 2 with one line on bad input."""

import json
import subprocess
import sys

import pytest

from roofline.registry.hardware import get_device
from roofline.model.kernels import decode
from roofline.registry.models import get_model

DOCUMENTED = {"flops", "bytes", "arithmetic_intensity", "time_s", "tokens_per_s", "bound", "ridge_point",
              "tokens_per_s_per_sequence", "fits", "critical_batch", "memory_required_bytes"}


def test_decode_json_has_the_documented_fields(run_cli):
    code, out, _ = run_cli("decode", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--json")
    assert code == 0
    data = json.loads(out)
    assert DOCUMENTED <= set(data)
    s = decode(get_model("llama-3.1-8b"), get_device("h100-sxm5"))
    assert data["time_s"] == s.time_s and data["bound"] == "memory-bound"
    assert {"ops", "time_perfect_overlap_s", "max_batch_that_fits", "whole_step_crossing_batch"} <= set(data)
    assert data["time_s"] == sum(op["time_s"] for op in data["ops"]) and data["critical_batch"] == 296
    assert {"name", "flops", "bytes", "arithmetic_intensity", "bound", "time_s"} <= set(data["ops"][0])


def test_bare_param_count(run_cli):
    code, out, _ = run_cli("decode", "--model", "8e9", "--hardware", "h100-sxm5", "--json")
    data = json.loads(out)
    assert code == 0 and data["bytes"] == 16e9 and round(data["tokens_per_s"]) == 209


def test_python_dash_m_and_console_script():
    out = subprocess.run([sys.executable, "-m", "roofline", "ridge", "tpu-v4", "--json"],
                         capture_output=True, text=True, check=True).stdout
    assert round(json.loads(out)["ridge_point"]) == 229


@pytest.mark.parametrize("args", [["hardware"], ["models"], ["ridge", "h100-sxm5"], ["matmul", "8", "4096", "4096", "--hardware", "h100-sxm5"],
                                  ["prefill", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--prompt", "512"]])
def test_every_command_prints_text_and_json(run_cli, args):
    code, text, _ = run_cli(*args)
    assert code == 0 and text.strip()
    code, out, _ = run_cli(*args, "--json")
    assert code == 0 and json.loads(out)


@pytest.mark.parametrize("args, message", [
    (["ridge", "h100"], "unknown hardware 'h100'; did you mean"),
    (["matmul", "1e30", "1", "1", "--hardware", "h100-sxm5"], "matrix dimension m must be at most 1e+09"),
    (["decode", "--model", "1e30", "--hardware", "h100-sxm5"], "parameter count must be below 1e15"),
    (["decode", "--model", "nan", "--hardware", "h100-sxm5"], "parameter count must be a positive number"),
    (["measure", "--from", "saved.json", "--out", "copy.json"], "--out only apply to a new measurement"),
    (["decode", "--model", "llama-3-8b", "--hardware", "h100-sxm5"], "unknown model 'llama-3-8b'; did you mean"),
    (["decode", "--model", "8e9", "--hardware", "h100-sxm5", "--batch", "-3"], "batch must be a whole number ≥ 1"),
    (["decode", "--model", "8e9", "--hardware", "h100-sxm5", "--batch", "0"], "batch must be a whole number ≥ 1"),
    (["decode", "--model", "8e9", "--hardware", "h100-sxm5", "--batch", "lots"], "batch must be a whole number"),
    (["decode", "--model", "8e9", "--hardware", "h100-sxm5", "--context", "-1"], "context must be a whole number ≥ 1"),
    (["decode", "--model", "8e9", "--hardware", "h100-sxm5", "--context", "0"], "at least one cached token"),
    (["decode", "--model", "8e9", "--hardware", "h100-sxm5", "--weight-format", "int4-g96"], "power of two"),
    (["decode", "--model", "8e9", "--hardware", "h100-sxm5", "--weight-format", "nf4"], "expected one of fp32, bf16"),
    (["decode", "--model", "8e9", "--hardware", "h100-sxm5", "--attention", "flash"], "choose from 'fused', 'unfused'"),
    (["decode", "--model", "8e9", "--hardware", "a100-sxm4-80gb", "--weight-format", "fp8", "--activation-dtype", "fp8"],
     "has no published fp8 peak"),
    (["prefill", "--model", "8e9", "--hardware", "h100-sxm5", "--prompt", "1.5"], "prompt must be a whole number ≥ 1"),
    (["matmul", "0", "4", "4"], "M must be a whole number ≥ 1"),
    (["decode", "--model=-8e9", "--hardware", "h100-sxm5"], "parameter count must be a positive number"),
    (["decode", "--model", "8e9", "--hardware", "h100-sxm5", "--weight-dtype", "fp12"], "unknown weight format 'fp12'"),
    (["ridge", "m2-ultra", "--dtype", "fp8"], "m2-ultra has no published dense fp8 peak"),
])
def test_bad_input_one_line_exit_2(run_cli, args, message):
    code, out, err = run_cli(*args)
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_config_that_does_not_fit_says_so(run_cli):
    code, out, err = run_cli("decode", "--model", "llama-3.1-70b", "--hardware", "h100-sxm5")
    assert code == 2
    assert "does not fit" in out and "tokens/s" not in out
    code, out, _ = run_cli("decode", "--model", "llama-3.1-70b", "--hardware", "h100-sxm5", "--json")
    data = json.loads(out)
    assert data["fits"] is False and data["tokens_per_s"] is None


def test_version_and_bare_command(run_cli):
    from roofline import __version__

    code, out, _ = run_cli("--version")
    assert code == 0 and out.strip() == f"roofline {__version__}"
    code, out, err = run_cli()
    assert code == 2 and out == "" and "COMMAND" in err and "decode" in err  # the overview, on stderr


def test_help_shows_meaningful_defaults_only():
    from roofline.cli import build_parser

    sub = build_parser()._subparsers._group_actions[0].choices["decode"]
    text = sub.format_help()
    assert "(default: bf16)" in text and "(default: 1)" in text and "(default: fused)" in text
    assert "(default: None)" not in text and "(default: False)" not in text


def test_step_table_aligns_values_and_says_what_a_bare_model_leaves_out(run_cli):
    code, out, _ = run_cli("decode", "--model", "8e9", "--hardware", "h100-sxm5", "--context", "1000")
    rows = [line for line in out.splitlines()[1:] if not line.lstrip().startswith("(")]
    labels = ("FLOPs", "bytes", "intensity", "time", "perfect overlap", "tokens/s", "speed of light", "critical batch",
              "whole step",
              "max batch", "memory")
    assert [r.split("  ")[1].strip() for r in rows] == list(labels)
    starts = {len(r) - len(r[2:].split("  ", 1)[1].lstrip()) for r in rows}
    assert code == 0 and len(starts) == 1, out  # every value starts in the same column
    assert "no KV cache" in out


def test_ops_table_lists_every_kernel(run_cli):
    code, out, _ = run_cli("decode", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--batch", "400",
                           "--context", "1024", "--ops")
    assert code == 0
    for name in ("qkv_proj", "attention", "o_proj", "gate_up_proj", "down_proj", "lm_head"):
        assert f"\n{name} " in out
    # batch 400 past the critical batch (296): the MLP matmuls are compute-bound, attention is not
    line = {l.split()[0]: l for l in out.splitlines() if l.split()}
    assert "compute-bound" in line["gate_up_proj"] and "memory-bound" in line["attention"]
