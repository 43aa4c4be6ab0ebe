"""Minifying our scripts keeps every string they show: each string literal and each template literal's text
is the same before and after `slim.minify_js`, read by a real JavaScript parser (acorn, in node_modules).

rjsmin reads a template literal nested inside another's `${ }` as code and squeezes the spaces out of its
text (" (latency: " comes out "(latency:"), so the calculator writes such text as plain
strings; this test finds any that comes back.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from roofline_site.html.slim import minify_js
from tests.conftest import ROOT
from tests.support.node import NODE, requires_node

ACORN = ROOT / "node_modules" / "acorn" / "dist" / "acorn.mjs"
SCRIPTS = sorted((ROOT / "docs" / "assets").rglob("*.js"))

# Every string literal and template text of a module, in source order: a JSON list per input on stdin.
TEXTS = f"""
import * as acorn from {json.dumps(ACORN.as_uri())};
import {{ readFileSync }} from "node:fs";
const texts = (src) => {{
  const out = [];
  const walk = (n) => {{
    if (!n || typeof n.type !== "string") return;
    if (n.type === "TemplateElement") out.push(n.value.cooked);
    if (n.type === "Literal" && typeof n.value === "string") out.push(n.value);
    for (const v of Object.values(n)) (Array.isArray(v) ? v : [v]).forEach((x) => x && typeof x.type === "string" && walk(x));
  }};
  walk(acorn.parse(src, {{ ecmaVersion: "latest", sourceType: "module" }}));
  return out;
}};
process.stdout.write(JSON.stringify(JSON.parse(readFileSync(0, "utf8")).map(texts)));
"""

pytestmark = [requires_node, pytest.mark.skipif(not ACORN.is_file(), reason="acorn not in node_modules (npm ci)")]


def _texts(sources: list[str], tmp_path) -> list[list[str]]:
    (tmp_path / "package.json").write_text('{"type": "module"}')
    (tmp_path / "texts.mjs").write_text(TEXTS)
    proc = subprocess.run([NODE or "node", str(tmp_path / "texts.mjs")], input=json.dumps(sources),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_minifying_keeps_every_string_a_script_shows(tmp_path):
    sources = [p.read_text(encoding="utf-8") for p in SCRIPTS]
    before = _texts(sources, tmp_path)
    after = _texts([minify_js(s) for s in sources], tmp_path)
    changed = {p.relative_to(ROOT).as_posix(): [(a, b) for a, b in zip(x, y) if a != b][:3]
               for p, x, y in zip(SCRIPTS, before, after) if x != y}
    assert not changed, changed


def test_the_check_sees_a_squeezed_nested_template(tmp_path):
    # The form that broke the calculator's summary: a template inside another's ${ }, its text led by a space.
    src = 'const f = (o) => `step${o ? ` (latency: ${o})` : ""}`;\n'
    before, after = _texts([src, minify_js(src)], tmp_path)
    assert " (latency: " in before and before != after
