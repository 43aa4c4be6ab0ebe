"""Running the calculator's JavaScript under node, for the parity tests.

Each parity test copies docs/assets/calculator/ (or a mutated copy) into a folder, adds a harness
module, pipes a JSON payload in and reads JSON back: one implementation for all of them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

NODE = shutil.which("node")

#: Skip where node is missing, unless CI requires the browser and node tests to run.
requires_node = pytest.mark.skipif(
    NODE is None and os.environ.get("ROOFLINE_REQUIRE_BROWSER") != "1",
    reason="node not found (apt-get install nodejs): the calculator's JavaScript cannot run",
)


def run_harness(calc_dir: Path, harness: str, payload: dict, work: Path, timeout: int = 120):
    """Copy `calc_dir` into `work`, run `harness` there with `payload` on stdin; its parsed JSON output."""
    shutil.copytree(calc_dir, work, dirs_exist_ok=True)
    (work / "package.json").write_text('{"type": "module"}')  # the repo's package.json is not ESM
    (work / "harness.mjs").write_text(harness)
    proc = subprocess.run([NODE or "node", str(work / "harness.mjs")], input=json.dumps(payload),
                          capture_output=True, text=True, cwd=work, timeout=timeout)
    assert proc.returncode == 0, f"node failed:\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout)
