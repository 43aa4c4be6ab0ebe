"""`make compare-aic`: NVIDIA's AIConfigurator beside this package's expected figure, on the registry's
published NVIDIA serving runs.

AIConfigurator (PyPI `aiconfigurator`) predicts from a per-kernel database NVIDIA collected on its GPUs.
This script installs it into its own virtual environment (.cache/aic-venv, never the site's .venv),
asks it for each published NVIDIA run's best aggregated (in-flight batching) output tokens/s per GPU at
the run's GPU count, input and output lengths and formats, with no latency target (the runs are
offline maximum-throughput runs), and writes reports/aic-comparison.json and .md: per run the
published figure, ours and AIConfigurator's, and for each the validation statistics
(roofline.model.validation.stats). The site build never needs any of this.

Environment: AIC_VERSION (default 0.12.0), AIC_VENV (default .cache/aic-venv), AIC_ONLY (a substring
of run ids to keep), AIC_LIMIT (the first N runs only), AIC_REUSE=1 (take AIConfigurator's answers from
the last report where it holds them for the same version, and recompute only ours: the package changed,
AIConfigurator did not).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / "reports"
VERSION = os.environ.get("AIC_VERSION", "0.12.0")
VENV = Path(os.environ.get("AIC_VENV", ROOT / ".cache" / "aic-venv"))

#: Registry model -> the Hugging Face id whose config AIConfigurator bundles (Llama 3.3 70B has 3.1's shapes).
MODELS = {"llama-3.1-8b": "meta-llama/Meta-Llama-3.1-8B", "llama-3.1-70b": "meta-llama/Meta-Llama-3.1-70B",
          "llama-3.1-405b": "meta-llama/Meta-Llama-3.1-405B", "qwen3-235b-a22b": "Qwen/Qwen3-235B-A22B",
          "qwen3-30b-a3b": "Qwen/Qwen3-30B-A3B"}
#: Registry device -> AIConfigurator system.
SYSTEMS = {"h100-sxm5": "h100_sxm", "h200-sxm": "h200_sxm", "b200": "b200_sxm", "gb200-per-gpu": "gb200"}

# Runs inside AIConfigurator's environment: reads the runs as JSON on stdin, prints one JSON line per run.
DRIVER = r'''
import json, logging, sys, time, traceback
logging.disable(logging.WARNING)
from aiconfigurator.cli.api import _execute_and_wrap_result
from aiconfigurator.sdk import common
from aiconfigurator.sdk.task_v2 import Task

for run in json.load(sys.stdin):
    t0 = time.time()
    try:
        q = run["quant"]
        kw = dict(serving_mode="agg", model_path=run["model"], system_name=run["system"], backend_name="trtllm",
                  isl=run["isl"], osl=run["osl"], ttft=1e9, tpot=1e9, total_gpus=run["gpus"],
                  gemm_quant_mode=common.GEMMQuantMode[q["gemm"]], kvcache_quant_mode=common.KVCacheQuantMode[q["kv"]],
                  fmha_quant_mode=common.FMHAQuantMode[q["fmha"]])
        if q.get("moe"):
            kw["moe_quant_mode"] = common.MoEQuantMode[q["moe"]]
        if run.get("tp"):
            kw["agg_tp_candidates"] = [run["tp"]]
        result = _execute_and_wrap_result({"agg": Task(**kw)}, mode="default", top_n=1, strict_sla=False)
        best = result.best_configs["agg"].iloc[0]
        out = {"id": run["id"], "tokens_per_s_per_gpu": float(best["tokens/s/gpu"]),
               "concurrency": int(best["concurrency"]), "parallel": str(best["parallel"]),
               "seconds": round(time.time() - t0, 1)}
    except Exception as err:  # one run's failure is reported beside the others
        out = {"id": run["id"], "error": f"{type(err).__name__}: {err}"[:300], "seconds": round(time.time() - t0, 1)}
    print(json.dumps(out), flush=True)
'''


def ensure_venv() -> Path:
    """AIConfigurator's own environment, created and filled on first use; its python."""
    py = VENV / "bin" / "python"
    if not py.exists():
        print(f"creating {VENV} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = subprocess.run([str(py), "-c", "import importlib.metadata as m; print(m.version('aiconfigurator'))"],
                           capture_output=True, text=True)
    if probe.returncode != 0 or probe.stdout.strip() != VERSION:
        print(f"installing aiconfigurator=={VERSION} into {VENV} (about 1 GB) ...", flush=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", f"aiconfigurator=={VERSION}"], check=True)
    return py


def _quant(run) -> dict:
    """AIConfigurator's quantization modes for a run's formats (TensorRT-LLM's per-tensor FP8 or NVFP4)."""
    w, kv = run.weight_format, run.kv_format
    gemm = {"fp8": "fp8", "nvfp4": "nvfp4"}.get(w, "bfloat16")
    out = {"gemm": gemm, "kv": "fp8" if kv == "fp8" else "bfloat16", "fmha": "fp8" if kv == "fp8" else "bfloat16"}
    if run.model.is_moe:
        out["moe"] = gemm
    return out


def runs_to_predict():
    """The registry's published NVIDIA serving runs AIConfigurator has a model and a system for."""
    from roofline.model.serving_runs import ceiling
    from roofline.registry.measurements import serving_measurements

    only, limit = os.environ.get("AIC_ONLY", ""), int(os.environ.get("AIC_LIMIT", "0") or 0)
    out, skipped = [], []
    for r in serving_measurements().values():
        if only and only not in r.id:
            continue
        if r.device_id not in SYSTEMS or r.model_id not in MODELS:
            skipped.append({"id": r.id, "why": "no AIConfigurator system or model for it"})
            continue
        tp = None if "layout" in r.assumed else r.layout_degrees["tp"]
        out.append((r, ceiling(r), {"id": r.id, "model": MODELS[r.model_id], "system": SYSTEMS[r.device_id],
                                    "isl": r.input_tokens, "osl": r.output_tokens, "gpus": r.devices, "tp": tp,
                                    "quant": _quant(r)}))
    return (out[:limit] if limit else out), skipped


def _reused() -> dict:
    """AIConfigurator's answers in the last report, where it was written by the same version."""
    path = REPORTS / "aic-comparison.json"
    if not path.exists():
        return {}
    last = json.loads(path.read_text())
    if last.get("summary", {}).get("aiconfigurator_version") != VERSION:
        return {}
    return {x["id"]: {"id": x["id"], "tokens_per_s_per_gpu": x["aic_tokens_per_s_per_gpu"],
                      "parallel": x["aic_parallel"], "concurrency": x["aic_concurrency"], "error": x["aic_error"]}
            for x in last["runs"] if x["aic_tokens_per_s_per_gpu"] or x["aic_error"]}


def main() -> int:
    from roofline.model import validation

    todo, skipped = runs_to_predict()
    answers = _reused() if os.environ.get("AIC_REUSE") == "1" else {}
    ask = [spec for _, _, spec in todo if spec["id"] not in answers]
    t0 = time.time()
    if ask:
        py = ensure_venv()
        print(f"asking AIConfigurator {VERSION} for {len(ask)} runs (about half a minute each) ...", flush=True)
        proc = subprocess.Popen([str(py), "-c", DRIVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        proc.stdin.write(json.dumps(ask))
        proc.stdin.close()
        for line in proc.stdout:
            a = json.loads(line)
            answers[a["id"]] = a
            print(f"  {a['id']}: " + (f"{a['tokens_per_s_per_gpu']:.0f} tokens/s per GPU" if "error" not in a
                                       else a["error"]), flush=True)
        proc.wait()
    rows = []
    for r, c, spec in todo:
        a = answers.get(r.id, {"error": "no answer"})
        published = r.output_tokens_per_s_per_device
        ours = c.expected_tokens_per_s / r.devices
        aic = a.get("tokens_per_s_per_gpu")
        rows.append({"id": r.id, "engine": r.engine, "published_tokens_per_s_per_gpu": published,
                     "ours_expected_tokens_per_s_per_gpu": ours, "ours_ceiling_tokens_per_s_per_gpu":
                         c.ceiling_tokens_per_s / r.devices, "aic_tokens_per_s_per_gpu": aic,
                     "aic_parallel": a.get("parallel"), "aic_concurrency": a.get("concurrency"),
                     "aic_error": a.get("error"), "published_over_ours": published / ours,
                     "published_over_aic": published / aic if aic else None})
    both = [x for x in rows if x["aic_tokens_per_s_per_gpu"]]
    summary = {"date": dt.date.today().isoformat(), "aiconfigurator_version": VERSION, "runs": len(rows),
               "runs_aic_answered": len(both), "seconds": round(time.time() - t0, 1), "skipped": skipped}
    if both:
        summary["ours_on_runs_aic_answered"] = validation.stats([x["published_over_ours"] for x in both]).as_dict()
        summary["aic"] = validation.stats([x["published_over_aic"] for x in both]).as_dict()
    summary["ours_on_every_run"] = validation.stats([x["published_over_ours"] for x in rows]).as_dict() if rows else None
    REPORTS.mkdir(exist_ok=True)
    (REPORTS / "aic-comparison.json").write_text(json.dumps({"summary": summary, "runs": rows}, indent=1) + "\n")
    (REPORTS / "aic-comparison.md").write_text(markdown(summary, rows))
    print(markdown(summary, rows))
    return 0


def markdown(summary: dict, rows: list[dict]) -> str:
    def stat_row(name, s):
        if not s:
            return f"| {name} | — | — | — | — | — |"
        return (f"| {name} | {s['count']} | {s['median_ratio']:.3f} | {s['within_25']:.1%} | {s['within_50']:.1%} | "
                f"×{s['geo_mean_error']:.3f} |")

    lines = ["# AIConfigurator beside the expected figure", "",
             f"Written by `make compare-aic` on {summary['date']} with AIConfigurator {summary['aiconfigurator_version']} "
             f"(TensorRT-LLM backend, aggregated serving, no latency target, the run's GPU count, lengths and "
             f"formats). Published ÷ predicted, output tokens/s per GPU.", "",
             "| predictor | runs | median ratio | within ±25 % | within ±50 % | geometric-mean error |",
             "|---|---|---|---|---|---|",
             stat_row("AIConfigurator", summary.get("aic")),
             stat_row("ours (expected), same runs", summary.get("ours_on_runs_aic_answered")),
             stat_row("ours (expected), every NVIDIA run", summary.get("ours_on_every_run")), "",
             "| run | published | ours | AIConfigurator | AIConfigurator's layout |", "|---|---|---|---|---|"]
    for x in rows:
        aic = f"{x['aic_tokens_per_s_per_gpu']:.0f}" if x["aic_tokens_per_s_per_gpu"] else f"— ({x['aic_error']})"
        lines.append(f"| {x['id']} | {x['published_tokens_per_s_per_gpu']:.0f} | "
                     f"{x['ours_expected_tokens_per_s_per_gpu']:.0f} | {aic} | {x['aic_parallel'] or ''} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.CalledProcessError as err:
        print(f"make compare-aic: {' '.join(map(str, err.cmd))} failed (exit {err.returncode}); is PyPI reachable?",
              file=sys.stderr)
        sys.exit(1)
