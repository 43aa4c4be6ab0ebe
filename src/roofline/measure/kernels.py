"""The kernels a measurement times: STREAM copy and triad, a numpy GEMM, and a GEMM on a GPU through torch.

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
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

from roofline.measure.probe import available_memory_bytes, last_level_cache_bytes
from roofline.measure.timing import Progress, repeat, summary

MiB = 2**20
#: Triad chunk: 64 Ki float64 = 512 KiB per operand, so the temporary stays in a core's L2.
CHUNK_ELEMENTS = 1 << 16

BYTE_COUNTING = ("STREAM convention: copy counts 2 × array bytes (read b, write a); triad counts "
                 "3 × array bytes (read b and c, write a); write-allocate traffic is not counted")


# --------------------------------------------------------------------- bandwidth ---------
def stream_array_bytes(quick: bool) -> int:
    """Bytes per STREAM array: 4× the last-level cache, within memory limits.

    --quick caps each array at 128 MiB (or 1.25× the cache, if that is larger) so the run fits
    its budget; each array still exceeds the cache, and a kernel's two or three arrays far exceed it.
    """
    llc = last_level_cache_bytes() or 32 * MiB
    want = max(4 * llc, 64 * MiB)
    want = min(want, max(128 * MiB, int(1.25 * llc)) if quick else max(1024 * MiB, int(1.25 * llc)))
    avail = available_memory_bytes()
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

            times = repeat(run, deadline(name), progress, f"bandwidth: {name}", hard_end)
            out[name] = {"array_bytes": array_bytes, "bytes_per_call": arrays * array_bytes,
                         "threads": threads, **summary(times, arrays * array_bytes, "bytes_per_s")}
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
    times = repeat(lambda: np.matmul(x, y, out=out), deadline, progress, f"matmul: {dtype_name} n={n}", hard_end)
    flops = 2.0 * n**3
    return {"n": n, "flops_per_call": flops, "backend": "numpy", **summary(times, flops, "flop_per_s")}


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
        times = repeat(run, deadline, progress, f"gpu matmul: {name} n={n}")
        result[name] = {"n": n, "flops_per_call": 2.0 * n**3, "backend": "torch",
                        **summary(times, 2.0 * n**3, "flop_per_s")}
    return result
