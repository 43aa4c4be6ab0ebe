"""`roofline measure`: a real --quick run, honest byte and FLOP counts, and one-line errors for bad files."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from roofline import measure
from roofline.measure import kernels
from roofline.registry.hardware import get_device
from tests.conftest import ROOT

EXAMPLE = ROOT / "measurements" / measure.EXAMPLE_FILE


#: The real run's budget: the least the CLI takes, so the suite spends 2 s of kernels here, not 5
#: (the quick budget a run without --budget records is checked below with the kernels stubbed).
RUN_BUDGET_S = 2.0


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """One real `roofline measure --quick --budget 2 --json` in a subprocess, as a user runs it."""
    out = tmp_path_factory.mktemp("measure") / "quick.json"
    # The environment is passed through (OPENBLAS_CORETYPE etc. stay as they are), but for numpy's
    # huge-page advice: on this project's VM it made touching the arrays take 4 s of the run's 5 s
    # (docs/measure.md). The record's kernels and numbers are checked below either way.
    proc = subprocess.run([sys.executable, "-m", "roofline", "measure", "--quick", "--budget", f"{RUN_BUDGET_S:g}",
                           "--out", str(out), "--json"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NUMPY_MADVISE_HUGEPAGE": "0"})
    return proc, out


def test_quick_run_succeeds_and_saves_what_it_prints(quick_run):
    proc, out = quick_run
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    assert printed == json.loads(out.read_text())
    assert printed["schema"] == measure.SCHEMA


def test_quick_numbers_are_positive_finite_and_plausible(quick_run):
    doc = json.loads(quick_run[1].read_text())
    for kernel in ("copy", "triad"):
        for stat in ("median", "best"):
            v = doc["bandwidth"][kernel][f"{stat}_bytes_per_s"]
            assert math.isfinite(v) and 1e8 <= v <= 1e13, (kernel, stat, v)
    for dtype in ("fp64", "fp32"):
        for stat in ("median", "best"):
            v = doc["matmul"][dtype][f"{stat}_flop_per_s"]
            assert math.isfinite(v) and 1e8 <= v <= 1e15, (dtype, stat, v)
    m = measure.validate(doc, "quick.json")
    assert m.copy.best >= m.copy.median and m.fp32.reps >= 1


def test_quick_run_records_its_budget(quick_run):
    doc = json.loads(quick_run[1].read_text())
    assert doc["settings"]["quick"] is True
    assert doc["settings"]["budget_s"] == RUN_BUDGET_S
    assert 0 < doc["settings"]["elapsed_s"]


@pytest.mark.parametrize("quick, budget_s", [(True, measure.QUICK_BUDGET_S), (False, measure.DEFAULT_BUDGET_S)])
def test_a_run_without_a_budget_records_its_default(monkeypatch, quick, budget_s):
    # --quick without --budget is 5 s (`roofline measure --help`), a full run 30 s. The kernels
    # are stubbed: what is checked is the budget the record states and the share each phase is given.
    from roofline.measure import runner

    shares: list[float] = []
    t0 = runner.time.perf_counter()
    monkeypatch.setattr(runner, "machine_info", lambda: {"cpu_model": "test CPU"})
    monkeypatch.setattr(runner, "measure_bandwidth", lambda size, threads, deadline, progress, end: {
        k: shares.append(deadline(k) - t0) for k in ("copy", "triad")})
    monkeypatch.setattr(runner, "measure_matmul", lambda name, target, deadline, *rest: shares.append(deadline - t0))
    monkeypatch.setattr(runner, "measure_gpu", lambda quick, budget, progress: {"skipped": "stubbed"})
    doc = runner.run(quick=quick, progress=measure.Progress(budget_s, enabled=False))
    assert (doc["settings"]["quick"], doc["settings"]["budget_s"]) == (quick, budget_s)
    # The last CPU phase ends at 0.92 of the 85 % of the budget left after the GPU's share.
    assert shares[-1] == pytest.approx(0.92 * 0.85 * budget_s, abs=0.05)


@pytest.mark.parametrize("alloc_s, said", [(3.0, True), (0.5, False)])
def test_a_run_that_outlasts_its_budget_says_so(monkeypatch, alloc_s, said):
    # Allocating the arrays is not cut short: a 2 s run whose arrays took 3 s says it went over, once.
    import io

    from roofline.measure import runner

    clock = _Clock(alloc_s)
    monkeypatch.setattr(runner.time, "perf_counter", clock)
    monkeypatch.setattr(runner, "machine_info", lambda: {"cpu_model": "test CPU"})
    monkeypatch.setattr(runner, "measure_bandwidth", lambda *a: clock.kernel() or {})
    monkeypatch.setattr(runner, "measure_matmul", lambda *a: {})
    monkeypatch.setattr(runner, "measure_gpu", lambda *a: {})
    err = io.StringIO()
    doc = runner.run(quick=True, budget_s=2.0, progress=measure.Progress(2.0, stream=err))
    assert doc["settings"]["elapsed_s"] == alloc_s
    assert err.getvalue().count("over its 2 s budget") == (1 if said else 0), err.getvalue()


class _Clock:
    """A fake perf_counter: each timed call of the kernel advances it by `call_s`."""

    def __init__(self, call_s: float):
        self.now_s, self.call_s = 0.0, call_s

    def __call__(self) -> float:
        return self.now_s

    def kernel(self) -> None:
        self.now_s += self.call_s


def _repeat_on(clock: _Clock, monkeypatch, **kw) -> list[float]:
    from roofline.measure import timing

    monkeypatch.setattr(timing.time, "perf_counter", clock)
    return timing.repeat(clock.kernel, progress=timing.Progress(10, enabled=False), phase="t", **kw)


def test_repetitions_stop_before_the_deadline(monkeypatch):
    # The budget is what bounds a run (its wall time is not asserted: CI hosts are shared).
    # 1 s calls, deadline at 10 s: the warm-up ends at 1 s, repetition k at 1 + k s; the loop
    # stops when the next one would end past 10 s, i.e. after k = 9 (ending at exactly 10 s).
    clock = _Clock(1.0)
    times = _repeat_on(clock, monkeypatch, deadline=10.0)
    assert times == [1.0] * 9 and clock.now_s == 10.0


def test_a_slow_kernel_gets_fewer_than_the_minimum_only_when_the_whole_budget_would_pass(monkeypatch):
    # Deadline 2 s: the warm-up ends at 1 s, the first repetition at 2 s; a second would end at 3 s.
    # With the whole budget ending at 2.5 s the time bound wins: one repetition (MIN_REPS is 3).
    assert _repeat_on(_Clock(1.0), monkeypatch, deadline=2.0, hard_end=2.5) == [1.0]
    # With the whole budget ending at 10 s, MIN_REPS (3) repetitions run, ending at 4 s.
    clock = _Clock(1.0)
    assert _repeat_on(clock, monkeypatch, deadline=2.0, hard_end=10.0) == [1.0] * 3 and clock.now_s == 4.0


def test_counts_are_honest(quick_run):
    doc = json.loads(quick_run[1].read_text())
    bw, mm = doc["bandwidth"], doc["matmul"]
    # STREAM convention: copy reads b and writes a (2 arrays), triad reads b, c and writes a (3 arrays).
    assert bw["copy"]["bytes_per_call"] == 2 * bw["copy"]["array_bytes"]
    assert bw["triad"]["bytes_per_call"] == 3 * bw["triad"]["array_bytes"]
    # A square GEMM of size n does n² dot products of length n, each n multiply-adds = 2n³ FLOPs.
    for dtype in ("fp64", "fp32"):
        n = mm[dtype]["n"]
        assert mm[dtype]["flops_per_call"] == 2 * n**3
    # The reported median is the median of work ÷ time over the recorded times (rounded to 1 µs).
    import statistics

    for kernel in ("copy", "triad"):
        k = bw[kernel]
        assert math.isclose(k["median_bytes_per_s"],
                            statistics.median(k["bytes_per_call"] / t for t in k["times_s"]), rel_tol=1e-3)
        assert math.isclose(k["best_bytes_per_s"], k["bytes_per_call"] / min(k["times_s"]), rel_tol=1e-3)


def test_arrays_exceed_the_last_level_cache(quick_run):
    doc = json.loads(quick_run[1].read_text())
    llc = doc["machine"]["last_level_cache_bytes"]
    if llc:  # --quick: each array exceeds the cache; the triad's three arrays together are ≥ 3× it
        assert doc["bandwidth"]["triad"]["array_bytes"] > llc
    example = json.loads(EXAMPLE.read_text())  # a default run: four times the cache
    assert example["bandwidth"]["triad"]["array_bytes"] >= 4 * example["machine"]["last_level_cache_bytes"]


def test_machine_is_described(quick_run):
    machine = json.loads(quick_run[1].read_text())["machine"]
    assert machine["cpu_model"] and machine["usable_cpus"] >= 1 and machine["numpy"]
    assert "name" in machine["blas"]


def test_progress_bar_and_gpu_line_on_stderr(quick_run):
    proc, _ = quick_run
    assert "%" in proc.stderr and "[" in proc.stderr and "bandwidth: triad" in proc.stderr
    gpu = json.loads(proc.stdout)["gpu"]
    if "skipped" in gpu:  # one clear line saying why
        assert sum("GPU: skipped:" in line for line in proc.stderr.splitlines()) == 1


def test_gpu_part_says_why_it_was_skipped(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    result = kernels.measure_gpu(True, 1.0, measure.Progress(1.0, enabled=False))
    assert result == {"skipped": "torch is not installed, so no GPU GEMM was measured"}


def _fake_torch(cuda_available: bool, calls: list):
    """A stand-in for torch with (or without) one GPU: the path a real GPU takes, on a machine with none."""

    class Tensor:
        def __matmul__(self, other):
            calls.append("matmul")
            return self

    def randn(*shape, device, dtype):
        calls.append(("randn", shape, device, dtype))
        return Tensor()

    cuda = types.SimpleNamespace(is_available=lambda: cuda_available, get_device_name=lambda i: "Fake GPU 80GB",
                                 synchronize=lambda: calls.append("synchronize"))
    return types.SimpleNamespace(__version__="9.9.9", cuda=cuda, bfloat16="torch.bfloat16", float16="torch.float16",
                                 randn=randn)


def test_gpu_part_says_when_torch_finds_no_gpu(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(False, []))
    result = kernels.measure_gpu(True, 1.0, measure.Progress(1.0, enabled=False))
    assert result == {"skipped": "torch 9.9.9 found no GPU, so no GPU GEMM was measured"}


def test_gpu_part_times_bf16_and_fp16_gemms_waiting_for_each(monkeypatch):
    calls: list = []
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(True, calls))
    result = kernels.measure_gpu(True, 0.2, measure.Progress(1.0, enabled=False))
    assert result["device"] == "Fake GPU 80GB" and result["torch"] == "9.9.9"
    for name, dtype in (("bf16", "torch.bfloat16"), ("fp16", "torch.float16")):
        r = result[name]
        # --quick multiplies 4096 × 4096 matrices: 2 · 4096³ = 137,438,953,472 FLOPs per call.
        assert (r["n"], r["flops_per_call"], r["backend"]) == (4096, 137_438_953_472, "torch")
        assert 1 <= r["reps"] == len(r["times_s"]) <= 100 and r["best_flop_per_s"] >= r["median_flop_per_s"] > 0
        assert calls.count(("randn", (4096, 4096), "cuda", dtype)) == 2
    # Every timed product is waited for (GPU calls return before the work is done), warm-up included.
    timed = calls.count("matmul")
    assert timed == result["bf16"]["reps"] + result["fp16"]["reps"] + 2 == calls.count("synchronize")
    assert all(b == "synchronize" for a, b in zip(calls, calls[1:]) if a == "matmul")


# ------------------------------------------------------------------ reading files ---------
def _write(tmp_path, name, content) -> Path:
    p = tmp_path / name
    p.write_text(content if isinstance(content, str) else json.dumps(content))
    return p


def _example_doc() -> dict:
    return json.loads(EXAMPLE.read_text())


def _without(doc, path):
    doc = json.loads(json.dumps(doc))
    *parents, last = path.split(".")
    cur = doc
    for k in parents:
        cur = cur[k]
    del cur[last]
    return doc


@pytest.mark.parametrize("name, content, expected", [
    ("broken.json", '{"schema": "roofline-measurement/1",', "not valid JSON"),
    ("foreign.json", {"benchmark": "stream", "triad": 1e10}, "not a roofline measurement (it has no 'schema' field"),
    ("other.json", {"schema": "someone-else/2"}, "has schema 'someone-else/2'"),
    ("list.json", [1, 2, 3], "the JSON is a list"),
])
def test_malformed_or_foreign_file_gives_one_line_and_exit_2(run_cli, tmp_path, name, content, expected):
    p = _write(tmp_path, name, content)
    code, out, err = run_cli("measure", "--from", str(p))
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("roofline: error: ") and str(p) in lines[0]
    assert expected in lines[0]


@pytest.mark.parametrize("path, expected", [
    ("bandwidth.triad.median_bytes_per_s", "field 'bandwidth.triad.median_bytes_per_s' is missing"),
    ("machine", "field 'machine.usable_cpus' is missing"),
    ("matmul.fp32", "field 'matmul.fp32.median_flop_per_s' is missing"),
])
def test_missing_field_is_named(run_cli, tmp_path, path, expected):
    p = _write(tmp_path, "partial.json", _without(_example_doc(), path))
    code, _, err = run_cli("measure", "--from", str(p))
    assert code == 2 and expected in err and len(err.strip().splitlines()) == 1


def test_bad_value_is_named(run_cli, tmp_path):
    doc = _example_doc()
    doc["matmul"]["fp64"]["median_flop_per_s"] = -5
    code, _, err = run_cli("measure", "--from", str(_write(tmp_path, "neg.json", doc)))
    assert code == 2 and "'matmul.fp64.median_flop_per_s' must be a positive number, got -5" in err


def test_the_committed_example_is_valid_and_says_where_it_came_from():
    m = measure.load(EXAMPLE)
    doc = _example_doc()
    assert doc["machine"]["cpu_model"] and "other engineers" in doc["note"] and "noisy" in doc["note"]
    assert doc["settings"]["quick"] is False and doc["settings"]["elapsed_s"] <= measure.DEFAULT_BUDGET_S
    assert m.triad.median > 0 and m.fp32.median > 0


def test_from_file_with_hardware_compares_and_plots(run_cli, tmp_path):
    svg = tmp_path / "mine.svg"
    code, out, _ = run_cli("measure", "--from", str(EXAMPLE), "--hardware", "h100-sxm5", "--plot", str(svg), "--json")
    assert code == 0
    c = json.loads(out)["comparison"]
    m = measure.load(EXAMPLE)
    # Independent: the H100 SXM5 spec is 3.35 TB/s and 67 TFLOP/s in fp32 (hardware.toml).
    assert math.isclose(c["bandwidth_ratio"], m.triad.median / 3.35e12)
    assert math.isclose(c["flop_ratio"], m.fp32.median / 67e12)
    text = svg.read_text()
    assert text.startswith("<?xml") and "H100 SXM5" in text and m.label in text


def test_unknown_hardware_is_one_line(run_cli):
    code, _, err = run_cli("measure", "--from", str(EXAMPLE), "--hardware", "h100-sxm9")
    assert code == 2 and "unknown hardware 'h100-sxm9'" in err


# ------------------------------------------------------------------ the site's folder -----
@pytest.fixture
def measurements_dir(tmp_path, monkeypatch):
    folder = tmp_path / "measurements"
    folder.mkdir()
    shutil.copy(EXAMPLE, folder / measure.EXAMPLE_FILE)
    monkeypatch.setenv("ROOFLINE_MEASUREMENTS_DIR", str(folder))
    return folder


def test_a_dropped_file_is_drawn_by_the_next_build(measurements_dir):
    from figures_gen import render

    doc = _example_doc()
    doc["label"] = "reader's workstation"
    (measurements_dir / "mine.json").write_text(json.dumps(doc))
    (measurements_dir / "local").mkdir()
    (measurements_dir / "local" / "ignored.json").write_text("not json")  # subfolders are not read
    svg, csv_text = render("measured_roofline")
    assert "reader's workstation" in csv_text and "reader's workstation" in svg.decode()
    assert [m.source for m in measure.site_measurements()] == [f"measurements/{measure.EXAMPLE_FILE}",
                                                               "measurements/mine.json"]


def test_a_bad_file_in_the_folder_names_itself(measurements_dir):
    (measurements_dir / "zz-broken.json").write_text("{")
    with pytest.raises(measure.MeasurementError, match=r"^measurements/zz-broken\.json: not valid JSON"):
        measure.site_measurements()


def test_a_bad_file_stops_the_build_with_one_sentence(measurements_dir):
    (measurements_dir / "foreign.json").write_text(json.dumps({"results": []}))
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true",
           "ROOFLINE_MEASUREMENTS_DIR": str(measurements_dir)}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(measurements_dir.parent / "site")], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode != 0
    assert ("measurements/foreign.json: not a roofline measurement (it has no 'schema' field; "
            "expected 'roofline-measurement/1')") in proc.stderr
    assert "Traceback" not in proc.stderr


def test_fp32_gemm_is_never_divided_by_a_16_bit_peak(run_cli):
    # The TPU v4 publishes no fp32 peak: the comparison runs at bf16 and leaves compute out.
    m = measure.load(EXAMPLE)
    c = measure.compare(m, get_device("tpu-v4"), "bf16")
    assert c["flop_ratio"] is None and c["bandwidth_ratio"] == m.triad.median / get_device("tpu-v4").memory_bandwidth_bytes_per_s
    code, out, _ = run_cli("measure", "--from", str(EXAMPLE), "--hardware", "tpu-v4")
    assert code == 0 and "compute not compared" in out
