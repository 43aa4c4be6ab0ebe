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

from tests.conftest import ROOT

NODE = shutil.which("node")
#: The calculator's modules, and the relative tolerance every parity test holds them to.
CALC_DIR = ROOT / "docs" / "assets" / "calculator"
REL = 1e-9

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


def case_harness(imports: str, call: str, after: str = "", output: str = "{ results }") -> str:
    """A harness module that runs `call` (a JavaScript expression of `c`, one of the payload's `cases`,
    with `registry` and `C`, its constants, in scope) on every case: `{ ok: <value> }`, or `{ error: <its
    sentence> }` where the calculator refuses it (a CalcError; anything else fails the run). `imports`
    are the modules it needs besides calc.js; `after` runs next, and `output` is what it prints."""
    return f"""
import * as calc from "./calc.js";
{imports.strip()}
import {{ readFileSync }} from "node:fs";
const input = JSON.parse(readFileSync(0, "utf8"));
const registry = input.registry, C = registry.constants;
const results = input.cases.map((c) => {{
  try {{
    return {{ ok: {call.strip()} }};
  }} catch (err) {{
    if (!(err instanceof calc.CalcError)) throw err;
    return {{ error: err.message }};
  }}
}});
{after.strip()}
process.stdout.write(JSON.stringify({output}));
"""


def mutated_calculator(work: Path, module: str, target: str, replacement: str) -> Path:
    """A copy of the calculator in `work` with `target` in `module` replaced once, for a mutation test."""
    shutil.copytree(CALC_DIR, work)
    src = (work / module).read_text(encoding="utf-8")
    assert target in src, f"the mutation target moved in {module}: update this test"
    (work / module).write_text(src.replace(target, replacement, 1), encoding="utf-8")
    return work
