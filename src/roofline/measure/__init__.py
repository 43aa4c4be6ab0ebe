"""Measure this machine's roofs: sustained memory bandwidth and large-GEMM FLOP/s.

Bandwidth is STREAM-style (McCalpin's STREAM copy and triad) with numpy on arrays
far larger than the last-level cache, split across one thread per usable CPU
(numpy releases the GIL inside its loops). Bytes are counted the STREAM way:

* copy  ``a[:] = b``          2 × array bytes (read b, write a)
* triad ``a[:] = b + s·c``    3 × array bytes (read b and c, write a)

Write-allocate traffic (a cache line read before it is overwritten) is not
counted, as in STREAM, so the hardware moves somewhat more than is reported.
The triad is computed in chunks that fit in L2, so the temporary ``s·c`` never
reaches memory and the count above is the real DRAM traffic (less write-allocate).

FLOP/s is a square GEMM through numpy (its BLAS) in fp64 and fp32, counting
2·n³ FLOPs per call; bf16/fp16 on a GPU through torch when both are present.

Every kernel gets one warm-up call, then repetitions until its share of the time
budget is spent (at least three while the whole budget allows); the median and the best are reported.
A result is a JSON document (`SCHEMA`); `load` validates one with one-sentence errors.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from roofline.errors import InputError

SCHEMA = "roofline-measurement/1"
MiB = 2**20

DEFAULT_BUDGET_S = 30.0
QUICK_BUDGET_S = 5.0
MIN_REPS = 3
MAX_REPS = 100
#: Triad chunk: 64 Ki float64 = 512 KiB per operand, so the temporary stays in a core's L2.
CHUNK_ELEMENTS = 1 << 16

#: Share of the time budget each kernel may use (the rest covers allocation and start-up).
BUDGET_SHARES = {"copy": 0.17, "triad": 0.2, "fp64": 0.22, "fp32": 0.22}

BYTE_COUNTING = ("STREAM convention: copy counts 2 × array bytes (read b, write a); triad counts "
                 "3 × array bytes (read b and c, write a); write-allocate traffic is not counted")


class MeasurementError(InputError):
    """A measurement JSON file that is malformed or not a roofline measurement."""


# --------------------------------------------------------------------- the machine -------
def usable_cpus() -> int:
    """CPUs this process may run on (the affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def cpu_model() -> str:
    """The CPU's marketing name, from /proc/cpuinfo on Linux, else the platform's guess."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if sys.platform == "darwin":
        import subprocess

        try:
            return subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True,
                                  text=True, timeout=5).stdout.strip() or platform.processor()
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or platform.machine() or "unknown CPU"


def last_level_cache_bytes() -> int | None:
    """Size of the largest CPU cache level, from Linux sysfs; None where it cannot be read."""
    best: tuple[int, int] | None = None
    for idx in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            level = int((idx / "level").read_text())
            text = (idx / "size").read_text().strip().upper()
        except (OSError, ValueError):
            continue
        mult = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
        size = int(text.rstrip("KMG")) * mult
        if best is None or level > best[0]:
            best = (level, size)
    return best[1] if best else None


def memory_bytes() -> int | None:
    """Total physical memory, where the OS reports it."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _available_memory_bytes() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def blas_info() -> dict[str, Any]:
    """numpy's BLAS as numpy.show_config reports it, plus threadpoolctl's view if installed."""
    info: dict[str, Any] = {}
    try:
        cfg = np.show_config(mode="dicts")  # numpy >= 1.25
        blas = cfg.get("Build Dependencies", {}).get("blas", {})
        info = {k: blas[k] for k in ("name", "version", "openblas configuration") if k in blas}
    except TypeError:  # older numpy: show_config prints and takes no mode
        info = {"name": "unknown (numpy too old to report its BLAS)"}
    try:
        from threadpoolctl import threadpool_info

        info["threadpools"] = [{k: p.get(k) for k in ("internal_api", "version", "num_threads", "architecture")}
                               for p in threadpool_info()]
    except ImportError:
        info["threadpools"] = "threadpoolctl not installed"
    return info


def machine_info() -> dict[str, Any]:
    """What the numbers were measured on: CPU, cores, caches, memory, numpy and its BLAS."""
    env = {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                      "OPENBLAS_CORETYPE") if k in os.environ}
    return {
        "cpu_model": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "usable_cpus": usable_cpus(),
        "last_level_cache_bytes": last_level_cache_bytes(),
        "memory_bytes": memory_bytes(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "blas": blas_info(),
        "env": env,
    }


# --------------------------------------------------------------------- progress ----------
class Progress:
    """A tiny time-based progress bar on stderr: `[#####-----]  48% triad`.

    On a terminal it redraws one line; elsewhere (logs, CI) it prints one line per phase.
    """

    WIDTH = 28

    def __init__(self, budget_s: float, stream=None, enabled: bool = True):
        self.budget_s, self.start = budget_s, time.perf_counter()
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last_phase = None

    def update(self, phase: str, detail: str = "") -> None:
        if not self.enabled:
            return
        frac = min((time.perf_counter() - self.start) / self.budget_s, 1.0)
        filled = int(round(frac * self.WIDTH))
        line = f"[{'#' * filled}{'-' * (self.WIDTH - filled)}] {frac * 100:3.0f}% {phase}"
        if self.tty:
            self.stream.write("\r" + f"{line} {detail}".ljust(self.WIDTH + 50))
            self.stream.flush()
        elif phase != self._last_phase:
            self.stream.write(line + "\n")
        self._last_phase = phase

    def note(self, text: str) -> None:
        """A line of its own (for example, why the GPU part was skipped)."""
        if self.enabled:
            self.stream.write(("\n" if self.tty else "") + text + "\n")

    def done(self) -> None:
        if self.enabled:
            self.update("done")
            if self.tty:
                self.stream.write("\n")
            self.stream.flush()


# --------------------------------------------------------------------- timing ------------
def _repeat(fn: Callable[[], None], deadline: float, progress: Progress, phase: str,
            hard_end: float | None = None) -> list[float]:
    """Time `fn` after one warm-up call until `deadline`, at most MAX_REPS times.

    At least MIN_REPS repetitions run, unless that would pass `hard_end` (the end of the
    whole budget): on a busy machine the time bound wins and fewer repetitions are recorded.
    """
    hard_end = deadline if hard_end is None else hard_end
    progress.update(phase, "warm-up")
    fn()  # warm-up: page faults, thread start, BLAS buffers
    times: list[float] = []
    while len(times) < MAX_REPS:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        progress.update(phase, f"rep {len(times)}")
        mean = sum(times) / len(times)
        next_end = time.perf_counter() + mean
        if next_end > deadline and (len(times) >= MIN_REPS or next_end > hard_end):
            break
    return times


def _summary(times: list[float], work: float, unit: str) -> dict[str, Any]:
    """Median and best rate for `work` units per call (bytes or FLOPs)."""
    rates = [work / t for t in times]
    return {f"median_{unit}": statistics.median(rates), f"best_{unit}": max(rates),
            "reps": len(times), "times_s": [round(t, 6) for t in times]}


# --------------------------------------------------------------------- bandwidth ---------
def stream_array_bytes(quick: bool) -> int:
    """Bytes per STREAM array: 4× the last-level cache, within memory limits.

    --quick caps each array at 128 MiB (or 1.25× the cache, if that is larger) so the run fits
    its budget; each array still exceeds the cache, and a kernel's two or three arrays far exceed it.
    """
    llc = last_level_cache_bytes() or 32 * MiB
    want = max(4 * llc, 64 * MiB)
    want = min(want, max(128 * MiB, int(1.25 * llc)) if quick else max(1024 * MiB, int(1.25 * llc)))
    avail = _available_memory_bytes()
    if avail:  # three arrays plus headroom must fit comfortably
        want = min(want, avail // 8)
    return int(want // 8 * 8)


def _parts(n: int, k: int) -> list[tuple[int, int]]:
    step = -(-n // k)
    return [(i, min(i + step, n)) for i in range(0, n, step)]


def measure_bandwidth(array_bytes: int, threads: int, deadline: Callable[[str], float],
                      progress: Progress, hard_end: float | None = None) -> dict[str, Any]:
    """STREAM copy and triad over float64 arrays of `array_bytes` each, on `threads` threads."""
    n = array_bytes // 8
    a, b, c = np.empty(n), np.full(n, 1.0), np.full(n, 2.0)
    a.fill(0.0)  # touch every page before timing
    parts = _parts(n, threads)
    scalar = 3.0

    def copy_part(p):
        np.copyto(a[p[0]:p[1]], b[p[0]:p[1]])

    def triad_part(p):
        tmp = np.empty(CHUNK_ELEMENTS)
        for i in range(p[0], p[1], CHUNK_ELEMENTS):
            j = min(i + CHUNK_ELEMENTS, p[1])
            t = tmp[: j - i]
            np.multiply(c[i:j], scalar, out=t)
            np.add(b[i:j], t, out=a[i:j])

    out: dict[str, Any] = {}
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for name, part_fn, arrays in (("copy", copy_part, 2), ("triad", triad_part, 3)):
            def run(fn=part_fn):
                list(pool.map(fn, parts))

            times = _repeat(run, deadline(name), progress, f"bandwidth: {name}", hard_end)
            out[name] = {"array_bytes": array_bytes, "bytes_per_call": arrays * array_bytes,
                         "threads": threads, **_summary(times, arrays * array_bytes, "bytes_per_s")}
    if not np.allclose(a[:: max(n // 1000, 1)], 1.0 + scalar * 2.0):
        raise RuntimeError("triad produced a wrong result; the measurement is not trustworthy")
    del a, b, c
    out["byte_counting"] = BYTE_COUNTING
    return out


# --------------------------------------------------------------------- matmul ------------
def _gemm_size(dtype, target_s: float, min_n: int) -> int:
    """Square size n whose GEMM takes about `target_s`, from a small probe; a multiple of 256, ≥ min_n."""
    probe = 512
    x = np.ones((probe, probe), dtype=dtype)
    x @ x  # wake the BLAS threads
    best = math.inf
    for _ in range(3):  # best of three: a shared machine stalls now and then
        t0 = time.perf_counter()
        x @ x
        best = min(best, time.perf_counter() - t0)
    rate = 2 * probe**3 / max(best, 1e-6)
    n = int((rate * target_s / 2) ** (1 / 3) // 256 * 256)
    return max(min_n, min(n, 8192))


def measure_matmul(dtype_name: str, target_s: float, deadline: float, progress: Progress,
                   min_n: int = 512, hard_end: float | None = None) -> dict[str, Any]:
    """FLOP/s of an n×n by n×n GEMM through numpy's BLAS, 2·n³ FLOPs per call.

    n is sized so one call takes about `target_s`, but never below `min_n`: a GEMM too small
    to fill the cores would measure call overhead, not the compute roof.
    """
    dtype = {"fp64": np.float64, "fp32": np.float32}[dtype_name]
    n = _gemm_size(dtype, target_s, min_n)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, n)).astype(dtype)
    y = rng.standard_normal((n, n)).astype(dtype)
    out = np.empty((n, n), dtype=dtype)
    times = _repeat(lambda: np.matmul(x, y, out=out), deadline, progress, f"matmul: {dtype_name} n={n}", hard_end)
    flops = 2.0 * n**3
    return {"n": n, "flops_per_call": flops, "backend": "numpy", **_summary(times, flops, "flop_per_s")}


def measure_gpu(quick: bool, budget_s: float, progress: Progress) -> dict[str, Any]:
    """bf16 and fp16 GEMM on a GPU through torch, or {"skipped": why}."""
    try:
        import torch  # noqa: PLC0415 — optional
    except ImportError:
        return {"skipped": "torch is not installed, so no GPU GEMM was measured"}
    if not torch.cuda.is_available():  # ROCm builds also answer through torch.cuda
        return {"skipped": f"torch {torch.__version__} found no GPU, so no GPU GEMM was measured"}
    n = 4096 if quick else 8192
    result: dict[str, Any] = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__}
    for name, dtype in (("bf16", torch.bfloat16), ("fp16", torch.float16)):
        x = torch.randn(n, n, device="cuda", dtype=dtype)
        y = torch.randn(n, n, device="cuda", dtype=dtype)

        def run():
            x @ y
            torch.cuda.synchronize()

        deadline = time.perf_counter() + budget_s / 2
        times = _repeat(run, deadline, progress, f"gpu matmul: {name} n={n}")
        result[name] = {"n": n, "flops_per_call": 2.0 * n**3, "backend": "torch",
                        **_summary(times, 2.0 * n**3, "flop_per_s")}
    return result


# --------------------------------------------------------------------- the run -----------
def run(quick: bool = False, budget_s: float | None = None, label: str = "", note: str = "",
        progress: Progress | None = None) -> dict[str, Any]:
    """Measure bandwidth and GEMM FLOP/s on this machine; return the JSON document."""
    budget = budget_s or (QUICK_BUDGET_S if quick else DEFAULT_BUDGET_S)
    gpu_budget = 0.15 * budget
    progress = progress or Progress(budget)
    t_start = time.perf_counter()
    cpu_end = t_start + 0.92 * (budget - gpu_budget)  # headroom for the last repetition's overshoot
    pending = list(BUDGET_SHARES)

    def deadline(name: str) -> float:
        """This phase's share of the time left, so time a fast phase leaves unused passes on."""
        now = time.perf_counter()
        left = sum(BUDGET_SHARES[p] for p in pending)
        pending.remove(name)
        return now + max(cpu_end - now, 0.0) * BUDGET_SHARES[name] / left

    threads = usable_cpus()
    progress.update("probing the machine")
    machine = machine_info()
    progress.update("allocating arrays")
    bandwidth = measure_bandwidth(stream_array_bytes(quick), threads, deadline, progress, cpu_end)
    target = 0.05 if quick else 0.3
    min_n = 512 if quick else 2048
    matmul = {name: measure_matmul(name, target, deadline(name), progress, min_n, cpu_end)
              for name in ("fp64", "fp32")}
    gpu = measure_gpu(quick, gpu_budget, progress)
    if "skipped" in gpu:
        progress.note(f"GPU: skipped: {gpu['skipped']}.")
    progress.done()
    from roofline import __version__

    return {
        "schema": SCHEMA,
        "label": label or machine["cpu_model"],
        "note": note,
        "created_utc": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
        "roofline_version": __version__,
        "settings": {"quick": quick, "budget_s": budget, "elapsed_s": round(time.perf_counter() - t_start, 3),
                     "warmup_calls": 1, "min_reps": MIN_REPS, "max_reps": MAX_REPS},
        "machine": machine,
        "bandwidth": bandwidth,
        "matmul": matmul,
        "gpu": gpu,
    }


# --------------------------------------------------------------------- reading back ------
@dataclass(frozen=True)
class Rate:
    """One measured kernel: median and best rate (B/s or FLOP/s)."""

    median: float
    best: float
    reps: int


@dataclass(frozen=True)
class Measurement:
    """A validated measurement file: the machine and its measured roofs."""

    source: str          # the file it came from (a name, for messages and legends)
    label: str
    note: str
    created_utc: str
    cpu_model: str
    usable_cpus: int
    blas: str
    numpy: str
    copy: Rate
    triad: Rate
    fp64: Rate
    fp32: Rate
    gpu: dict
    array_bytes: float | None = None   # bytes per STREAM array
    llc_bytes: float | None = None     # the last-level cache it had to exceed

    @property
    def bandwidth_bytes_per_s(self) -> float:
        """The sustained bandwidth roof: the triad median."""
        return self.triad.median

    @property
    def peak_flop_per_s(self) -> float:
        """The compute roof: the faster of the fp32 and fp64 GEMM medians."""
        return max(self.fp32.median, self.fp64.median)

    @property
    def ridge_point(self) -> float:
        """Measured ridge point (FLOP/byte): fp32 GEMM median ÷ triad median."""
        return self.fp32.median / self.triad.median


def _get(doc: Any, path: str, name: str) -> Any:
    cur = doc
    for key in path.split("."):
        if not isinstance(cur, dict) or key not in cur:
            raise MeasurementError(f"{name}: field '{path}' is missing")
        cur = cur[key]
    return cur


#: Plausible measured rates (README): 1 MB/s to 1 PB/s, 1 MFLOP/s to 1 EFLOP/s. Outside, a file is broken.
RATE_RANGES = {"bytes_per_s": (1e6, 1e15, "1 MB/s to 1 PB/s"), "flop_per_s": (1e6, 1e18, "1 MFLOP/s to 1 EFLOP/s")}


def _positive_rate(v: Any, field: str, unit: str, name: str) -> float:
    from roofline.registry.specfile import show

    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise MeasurementError(f"{name}: field '{field}' must be a positive number, got {show(v)}")
    lo, hi, words = RATE_RANGES[unit]
    if not lo <= v <= hi:
        raise MeasurementError(f"{name}: field '{field}' must be between {show(lo)} and {show(hi)} ({words}), "
                               f"got {show(v)}")
    return float(v)


def _rate(doc: dict, path: str, unit: str, name: str) -> Rate:
    values = []
    for stat in ("median", "best"):
        v = _get(doc, f"{path}.{stat}_{unit}", name)
        values.append(_positive_rate(v, f"{path}.{stat}_{unit}", unit, name))
    if values[1] < values[0]:
        raise MeasurementError(f"{name}: field '{path}.best_{unit}' is below the median, which cannot happen")
    reps = _get(doc, f"{path}.reps", name)
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        raise MeasurementError(f"{name}: field '{path}.reps' must be a whole number ≥ 1, got {reps!r}")
    return Rate(values[0], values[1], reps)


def _text(doc: dict, path: str, name: str, *, required: bool = True) -> str:
    try:
        v = _get(doc, path, name)
    except MeasurementError:
        if required:
            raise
        return ""
    if not isinstance(v, str):
        raise MeasurementError(f"{name}: field '{path}' must be a string, got {v!r}")
    return v


def validate(doc: Any, name: str) -> Measurement:
    """Check a parsed measurement document; raise MeasurementError naming `name` and the problem."""
    if not isinstance(doc, dict):
        raise MeasurementError(f"{name}: not a roofline measurement (the JSON is a {type(doc).__name__}, "
                               "not an object)")
    schema = doc.get("schema")
    if schema != SCHEMA:
        got = "has no 'schema' field" if schema is None else f"has schema {schema!r}"
        raise MeasurementError(f"{name}: not a roofline measurement (it {got}; expected {SCHEMA!r})")
    cpus = _get(doc, "machine.usable_cpus", name)
    if isinstance(cpus, bool) or not isinstance(cpus, int) or cpus < 1:
        raise MeasurementError(f"{name}: field 'machine.usable_cpus' must be a whole number ≥ 1, got {cpus!r}")
    blas = _get(doc, "machine.blas", name)
    blas_text = " ".join(str(blas.get(k, "")) for k in ("name", "version")).strip() if isinstance(blas, dict) else str(blas)
    gpu = _gpu(doc.get("gpu", {}), name)
    return Measurement(
        source=name, label=_text(doc, "label", name), note=_text(doc, "note", name, required=False),
        created_utc=_text(doc, "created_utc", name), cpu_model=_text(doc, "machine.cpu_model", name),
        usable_cpus=cpus, blas=blas_text or "unknown", numpy=_text(doc, "machine.numpy", name),
        copy=_rate(doc, "bandwidth.copy", "bytes_per_s", name),
        triad=_rate(doc, "bandwidth.triad", "bytes_per_s", name),
        fp64=_rate(doc, "matmul.fp64", "flop_per_s", name),
        fp32=_rate(doc, "matmul.fp32", "flop_per_s", name),
        gpu=gpu,
        array_bytes=_optional_positive(doc, "bandwidth.triad.array_bytes"),
        llc_bytes=_optional_positive(doc, "machine.last_level_cache_bytes"),
    )


def _gpu(gpu: Any, name: str) -> dict[str, Any]:
    """The optional 'gpu' section: {"skipped": reason} or {"device": name, dtype: {median_flop_per_s, ...}}."""
    if not isinstance(gpu, dict):
        raise MeasurementError(f"{name}: field 'gpu' must be an object, got {type(gpu).__name__}")
    if "skipped" in gpu and not isinstance(gpu["skipped"], str):
        raise MeasurementError(f"{name}: field 'gpu.skipped' must be a string")
    if "device" in gpu and not isinstance(gpu["device"], str):
        raise MeasurementError(f"{name}: field 'gpu.device' must be a string")
    for key, value in gpu.items():
        if key in ("skipped", "device"):
            continue
        if not isinstance(value, dict) or "median_flop_per_s" not in value:
            raise MeasurementError(f"{name}: field 'gpu.{key}' must be an object with a 'median_flop_per_s'")
        _positive_rate(value["median_flop_per_s"], f"gpu.{key}.median_flop_per_s", "flop_per_s", name)
    return gpu


def _optional_positive(doc: dict, path: str) -> float | None:
    cur: Any = doc
    for key in path.split("."):
        cur = cur.get(key) if isinstance(cur, dict) else None
    ok = isinstance(cur, (int, float)) and not isinstance(cur, bool) and math.isfinite(cur) and cur > 0
    return float(cur) if ok else None


def _no_constant(word: str):
    raise ValueError(f"'{word}' is not a JSON number")


def load(path: Path | str, name: str | None = None) -> Measurement:
    """Read and validate one measurement JSON file."""
    path = Path(path)
    name = name or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MeasurementError(f"{name}: measurement file not found") from None
    except (OSError, UnicodeDecodeError) as err:
        raise MeasurementError(f"{name}: cannot read the measurement file ({err})") from None
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise MeasurementError(f"{name}: not valid JSON ({err.msg} at line {err.lineno}, column {err.colno})") from None
    except RecursionError:
        raise MeasurementError(f"{name}: nests too deeply to be a roofline measurement") from None
    except ValueError as err:  # NaN or Infinity, which JSON does not have
        raise MeasurementError(f"{name}: not valid JSON ({err})") from None
    return validate(doc, name)


def load_folder(folder: Path | str, root: Path | str | None = None) -> list[Measurement]:
    """Every *.json directly in `folder` (not its subfolders), validated, in name order.

    Names in messages are relative to `root` when given (measurements/example.json).
    """
    folder = Path(folder)
    out = []
    for p in sorted(folder.glob("*.json")):
        name = p.relative_to(root).as_posix() if root else p.name
        out.append(load(p, name))
    return out


def save(doc: dict[str, Any], path: Path | str) -> Path:
    """Write a measurement document as indented JSON, creating the folder."""
    from roofline.atomic import atomic_write_text

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Temporary file + rename: a full disk or a kill mid-write leaves the old file, never half a new one.
    return atomic_write_text(path, json.dumps(doc, indent=2) + "\n")


def default_out_path(root: Path | str = ".") -> Path:
    """measurements/local/<UTC timestamp>.json under `root` (git-ignored)."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return Path(root) / "measurements" / "local" / f"{stamp}.json"


# --------------------------------------------------------------------- comparison --------
def compare(m: Measurement, device, dtype: str) -> dict[str, Any]:
    """Measured roofs against a registry device's spec roofs: the ratios (measured ÷ spec).

    The measured GEMM runs in fp32, so its rate is divided only by an fp32 peak: against any
    other dtype `flop_ratio` is None (a bf16 peak would make an fp32 GEMM look slow).
    """
    peak = device.peak_flop_per_s(dtype)
    bw = device.memory_bandwidth_bytes_per_s
    return {
        "hardware": device.id, "dtype": dtype,
        "spec_peak_flop_per_s": peak, "spec_bandwidth_bytes_per_s": bw, "spec_ridge_point": peak / bw,
        "measured_flop_per_s": m.fp32.median, "measured_bandwidth_bytes_per_s": m.bandwidth_bytes_per_s,
        "measured_ridge_point": m.ridge_point,
        "flop_ratio": m.fp32.median / peak if dtype == "fp32" else None,
        "bandwidth_ratio": m.bandwidth_bytes_per_s / bw,
    }


def spec_dtype(device, requested: str | None = None) -> str:
    """The dtype a spec roofline is drawn at: `requested`, else fp32 (what numpy's GEMM runs), else 16-bit."""
    if requested:
        device.peak_flop_per_s(requested)  # raises naming the dtypes the device has
        return requested
    return "fp32" if "fp32" in device.dense_peak_flop_per_s else device.sixteen_bit_dtype


MEASURED_COLOURS = ("#d81b60", "#00897b", "#f57c00", "#5e35b1", "#6d4c41", "#1e88e5")


def draw_rooflines(ax, measurements: list[Measurement], device=None, dtype: str | None = None,
                   intensity=None) -> None:
    """Draw each measured roofline (fp32 GEMM median and triad median) and a device's spec roofline."""
    from roofline.model.roofs import attainable_flop_per_s

    ai = np.logspace(-2, 4, 181) if intensity is None else np.asarray(intensity)
    if device is not None:
        dt_ = spec_dtype(device, dtype)
        peak, bw = device.peak_flop_per_s(dt_), device.memory_bandwidth_bytes_per_s
        ax.loglog(ai, attainable_flop_per_s(ai, peak, bw), color="#3f51b5", lw=2.2,
                  label=f"{device.name}, spec ({dt_} dense peak)")
        ax.plot([peak / bw], [peak], "s", color="#3f51b5", ms=6)
    for i, m in enumerate(measurements):
        colour = MEASURED_COLOURS[i % len(MEASURED_COLOURS)]
        ax.loglog(ai, attainable_flop_per_s(ai, m.fp32.median, m.triad.median), color=colour, lw=2,
                  label=f"{m.label}, measured (fp32 GEMM, triad)")
        ax.loglog(ai, attainable_flop_per_s(ai, m.fp64.median, m.triad.median), color=colour, lw=1, ls="--",
                  label=f"{m.label}, measured fp64 GEMM")
        ax.plot([m.ridge_point], [m.fp32.median], "o", color=colour, ms=6)
    ax.set_xlabel("arithmetic intensity (FLOP/byte, log)")
    ax.set_ylabel("attainable FLOP/s (log)")
    ax.legend(loc="lower right", frameon=False, fontsize=8)


def plot_svg(path: Path | str, measurements: list[Measurement], device=None, dtype: str | None = None) -> Path:
    """Write the measured roofline(s), beside a device's spec roofline, to an SVG file."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("--plot needs matplotlib, which is not installed (pip install matplotlib)") from None
    path = Path(path)
    plt.rcParams["svg.hashsalt"] = "roofline"
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    try:
        draw_rooflines(ax, measurements, device, dtype)
        ax.set_title("Measured roofline" + (f" beside the {device.name} spec" if device is not None else ""))
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, format="svg", metadata={"Date": None})
    except OSError as err:
        raise InputError(f"cannot write the plot to {path} ({err.strerror})") from None
    finally:
        plt.close(fig)
    return path


# --------------------------------------------------------------------- the repository's folder
#: The committed example measurement, quoted on the site (measurements/README.md says how it was made).
EXAMPLE_FILE = "example-shared-2vcpu-xeon.json"


def measurements_dir() -> Path:
    """The folder of measurement JSON files: $ROOFLINE_MEASUREMENTS_DIR, else measurements/ in the working directory.

    The package does not know where a repository is; the site builds from the project folder.
    """
    env = os.environ.get("ROOFLINE_MEASUREMENTS_DIR")
    return Path(env) if env else Path.cwd() / "measurements"


def example_measurement() -> Measurement:
    """The committed example measurement (always the same file, whatever else is in the folder)."""
    folder = measurements_dir()
    return load(folder / EXAMPLE_FILE, f"measurements/{EXAMPLE_FILE}")


def site_measurements() -> list[Measurement]:
    """Every measurement in the folder, the example first: what the site's figure draws."""
    folder = measurements_dir()
    found = load_folder(folder, folder.parent)
    return sorted(found, key=lambda m: (not m.source.endswith(EXAMPLE_FILE), m.source))
