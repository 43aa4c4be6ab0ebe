"""`make site`: a strict build into a temporary folder, swapped into site/ only on success.

A failed build leaves the previous site/ untouched and ends with one line naming
the file and the problem.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ERROR_LINE = re.compile(r"^(ERROR|WARNING)\s+-\s+(.*)$")


def first_problem(log: str) -> str:
    """The most useful line of a failed mkdocs log: its first error or warning, else its last line."""
    lines = [l.strip() for l in log.splitlines() if l.strip()]
    for line in lines:
        m = ERROR_LINE.match(line)
        if m:
            return m.group(2)
    for line in reversed(lines):
        if "Error" in line or "error" in line:
            return line
    return lines[-1] if lines else "mkdocs failed without output"


def build(site_dir: Path = ROOT / "site", extra_args: list[str] | None = None) -> int:
    tmp = site_dir.with_name(site_dir.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "--site-dir", str(tmp), *(extra_args or [])]
    print(f"building the site (mkdocs build --strict) into {site_dir.name}/ ...", flush=True)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        (ROOT / ".cache").mkdir(exist_ok=True)
        (ROOT / ".cache" / "last-build.log").write_text(proc.stdout + proc.stderr)
        print(f"build failed, {site_dir.name}/ left as it was: {first_problem(proc.stderr + proc.stdout)}"
              f" (full log: .cache/last-build.log)", file=sys.stderr)
        return 1
    old = site_dir.with_name(site_dir.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if site_dir.exists():
        site_dir.rename(old)
    tmp.rename(site_dir)
    shutil.rmtree(old, ignore_errors=True)
    print(f"built {site_dir.name}/ in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(build())
