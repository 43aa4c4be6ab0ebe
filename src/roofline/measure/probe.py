"""What a measurement ran on: CPU, cores, caches, memory, numpy and its BLAS."""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np


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


def available_memory_bytes() -> int | None:
    """Memory the OS could hand out now (Linux's MemAvailable); None where it cannot be read."""
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
