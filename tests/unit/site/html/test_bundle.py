"""The calculator's step mode joined into one file (roofline_site.html.bundle): the same behaviour as the
separate modules under node, one class for an error whichever module throws it, and one sentence for a
module form the bundler does not know."""

from __future__ import annotations

import json
import math
import subprocess

import pytest

from roofline_site.html.bundle import SITE_SCRIPTS, SITE_STYLESHEETS, BundleError, bundle, join_files, parse
from tests.support.node import CALC_DIR, NODE, REL, requires_node, run_harness

# A module graph with what the calculator's has: a namespace import, renamed imports, a local export list,
# a helper name two modules both define, a module several import (evaluated once), and a module loaded on
# demand that imports a class the entry point uses.
TOY = {
    "log.js": "export const seen = [];\nexport function log(x) { seen.push(x); }\n",
    "a.js": ('import { log } from "./log.js";\nlog("a");\nexport class E extends Error {}\nexport const K = 2;\n'
             'const helper = () => "a";\nexport { helper as help };\n'),
    "b.js": ('import * as A from "./a.js";\nimport { K as k } from "./a.js";\nimport { log } from "./log.js";\n'
             'log("b");\nconst helper = () => "b";\n'
             'export function twice() { return 2 * k + (A.help() === "a" ? 0 : 100) + (helper() === "b" ? 0 : 1000); }\n'),
    "ui.js": ('import { twice } from "./b.js";\nimport { E } from "./a.js";\nimport { seen, log } from "./log.js";\n'
              'log("ui");\nglobalThis.result = { twice: twice(), seen: [...seen] };\n'
              'globalThis.isE = (e) => e instanceof E;\nglobalThis.later = () => import("./lazy.js");\n'),
    "lazy.js": 'import { E } from "./a.js";\nimport { seen } from "./log.js";\nexport { E };\nexport const count = seen.length;\n',
}
TOY_HARNESS = """
await import("./ui.js");
const lazy = await globalThis.later();
process.stdout.write(JSON.stringify({ ...globalThis.result, same: globalThis.isE(new lazy.E()), count: lazy.count }));
"""


def _write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@requires_node
def test_the_joined_modules_behave_as_the_separate_ones(tmp_path):
    source = _write(tmp_path / "source", TOY)
    joined = _write(tmp_path / "joined", {**TOY, **bundle(source, "ui.js")})
    assert "import" not in joined.joinpath("ui.js").read_text().split("import(")[0], "the entry still imports at load"
    apart = run_harness(source, TOY_HARNESS, {}, tmp_path / "run-apart")
    together = run_harness(joined, TOY_HARNESS, {}, tmp_path / "run-joined")
    # By ES module rules: the log module, then a, b and the entry point, each evaluated once and after what
    # it imports; 2 × K = 4 with each module's own helper; the module loaded later sees the same class and
    # the same log (three entries), not second copies of the modules it shares with the entry point.
    assert apart == {"twice": 4, "seen": ["a", "b", "ui"], "same": True, "count": 3}
    assert together == apart


@requires_node
def test_the_calculators_joined_step_mode_gives_the_packages_numbers(tmp_path):
    # The real modules, joined as the build joins them: the step's arithmetic through the joined file, and
    # the config reader (loaded on demand) throwing the joined file's CalcError, which ui.js checks for.
    from roofline.calculator_view import calculate, get_device, get_model, registry_json

    joined = tmp_path / "calc"
    _write(joined, {p.name: p.read_text(encoding="utf-8") for p in CALC_DIR.glob("*.js")})
    _write(joined, bundle(CALC_DIR, "ui.js"))
    harness = """
globalThis.window = {};
globalThis.document = { querySelectorAll: () => [], addEventListener: () => {} };  // no calculator on this "page"
const ui = await import("./ui.js");
const config = await import("./config.js");
const { readFileSync } = await import("node:fs");
const R = JSON.parse(readFileSync(0, "utf8")).registry, C = R.constants;
const out = ui.M$view.calculate(C, R.devices.find((d) => d.id === "h100-sxm5"),
  R.models.find((m) => m.id === "llama-3.1-8b"), "decode", 8, 4096, "bf16");
let same = null;
try { config.readConfigText(R.config_reader, '{"model_type": "phi3"}'); } catch (err) { same = err instanceof ui.M$calc.CalcError; }
process.stdout.write(JSON.stringify({ time_s: out.time_s, same }));
"""
    got = run_harness(joined, harness, {"registry": registry_json()}, tmp_path / "run")
    want = calculate(get_device("h100-sxm5"), get_model("llama-3.1-8b"), "decode", 8, 4096, "bf16")
    assert math.isclose(got["time_s"], want["time_s"], rel_tol=REL)
    assert got["same"] is True


@pytest.mark.parametrize("files, sentence", [
    ({"ui.js": 'import { a } from "./a.js";', "a.js": "export default 1;"},
     "./a.js: line 1 is an export the bundler does not know: export default 1;"),
    ({"ui.js": 'import { a } from "./a.js";', "a.js": "export let a = 1;"},  # a live binding a copy would freeze
     "./a.js: line 1 is an export the bundler does not know: export let a = 1;"),
    ({"ui.js": 'import "./a.js";', "a.js": ""}, './ui.js: line 1 is an import the bundler does not know: import "./a.js";'),
    ({"ui.js": 'import { a } from "./a.js";', "a.js": 'import { b } from "./b.js";\nexport const a = 1;',
      "b.js": 'import { a } from "./a.js";\nexport const b = 2;'},
     "ui.js: the modules import each other in a cycle (./ui.js -> ./a.js -> ./b.js -> ./a.js)."),
    ({"ui.js": "export const x = 1;"}, "ui.js: the entry point exports x; nothing may import it."),
])
def test_a_module_form_it_does_not_know_is_refused_in_one_sentence(tmp_path, files, sentence):
    with pytest.raises(BundleError) as err:
        bundle(_write(tmp_path, files), "ui.js")
    assert str(err.value) == sentence


def test_every_calculator_module_is_in_a_form_it_knows():
    # A new module form in docs/assets/calculator fails here, with its sentence, before a build does.
    for path in sorted(CALC_DIR.glob("*.js")):
        parse(path.name, path.read_text(encoding="utf-8"))


@requires_node
def test_joined_site_scripts_run_as_the_separate_ones_in_order(tmp_path):
    # Two scripts that end without a `;`: joined as they are, the second would be called with the first's
    # value ("(...)()(...)()"), so join_files puts one between them; each still runs, in order.
    _write(tmp_path, {"one.js": "(function () { globalThis.seen = ['one']; })()",
                      "two.js": "(function () { globalThis.seen.push('two'); })()\n"})
    (tmp_path / "joined.js").write_text(join_files(tmp_path, ("one.js", "two.js")) + "console.log(JSON.stringify(seen));")
    out = subprocess.run([NODE or "node", str(tmp_path / "joined.js")], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == ["one", "two"]


def test_the_site_files_join_every_script_and_stylesheet_they_name():
    assets = CALC_DIR.parent
    assert SITE_SCRIPTS[0] == "popover.js"  # the placement the other two use, first
    for names in (SITE_SCRIPTS, SITE_STYLESHEETS):
        text = join_files(assets, names)
        for name in names:
            assert (assets / name).read_text(encoding="utf-8").rstrip() in text, name
