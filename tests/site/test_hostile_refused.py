"""What a file may not hold is refused by the build in one line naming the file and the field.

The other half of the hostile corpus (tests/site/test_hostile_site.py builds what is published escaped): URLs
that break a Markdown destination or run script, line breaks and bidirectional overrides in front
matter, lone surrogates, numbers of thousands of digits, each planted into one file kind the build
reads. Each plant is one `make site` of a throw-away copy of the project that must stop before the
pages are written: exit status 1, one last line naming the file and the field in at most 300
characters, and site/ exactly as it was.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.site.test_gates_failure import PREVIOUS, assert_site_kept, run_build
from tests.support.hostile import DATA, toml_string
from tools.bench import copy_project

HUGE = "1" + "0" * 4400  # more digits than Python converts (sys.get_int_max_str_digits(): 4,300)
PAREN_URL = "https://x.example/a)[pwn](javascript:alert(document.domain)"
QUOTE_URL = 'https://x.example/"><script>alert(document.domain)</script>'
GLOSSARY_ENTRY = "glossary/performance-model/ridge-point.md"
PAGE = "docs/hardware.md"


def _toml_entry(file: str, table: str, ident: str, field: str, value: str):
    """A copy of spec `file` whose entry `ident` has `field = value` (TOML text), named by its variable."""
    def plant(project: Path, tmp: Path) -> dict:
        text = (DATA / file).read_text(encoding="utf-8")
        start = text.index(f'id = "{ident}"')
        end = text.find(f"[[{table}]]", start)
        end = len(text) if end == -1 else end
        block, n = re.subn(rf"^{field} = .*$", lambda m: f"{field} = {value}", text[start:end], count=1, flags=re.M)
        assert n == 1, f"{file}: {ident} has no {field}"
        (tmp / file).write_text(text[:start] + block + text[end:], encoding="utf-8")
        variable = {"hardware.toml": "HARDWARE", "models.toml": "MODELS", "measurements.toml": "MEASUREMENTS",
                    "prices.toml": "PRICES", "ep_communication.toml": "EP_COMMUNICATION"}[file]
        return {f"ROOFLINE_{variable}": str(tmp / file)}
    return plant


def _edit(rel: str, old: str, new: str):
    """The project copy's `rel` with `old` replaced by `new` (put back after the build)."""
    def plant(project: Path, tmp: Path) -> dict:
        path = project / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{rel}: {old!r} not found"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        return {}
    return plant


def _measurement_file(raw_json: str):
    """The measurement files with one more, `hostile.json`, holding `raw_json`."""
    def plant(project: Path, tmp: Path) -> dict:
        folder = tmp / "measurements"
        shutil.copytree(ROOT / "measurements", folder, ignore=shutil.ignore_patterns("local"))
        (folder / "hostile.json").write_text(raw_json, encoding="utf-8")
        return {"ROOFLINE_MEASUREMENTS_DIR": str(folder)}
    return plant


def _label(text_json: str) -> str:
    """The example measurement file with its label written as the JSON text `text_json`."""
    doc = json.loads((ROOT / "measurements" / "example-shared-2vcpu-xeon.json").read_text(encoding="utf-8"))
    return json.dumps(doc).replace(json.dumps(doc["label"]), text_json, 1)


#: name -> (plant, words the last line must hold). Each is refused where its file is read.
PLANTS = {
    # URLs: a `)` that would end a Markdown destination, a script scheme, quotes and angle brackets.
    "hardware url )": (_toml_entry("hardware.toml", "device", "h100-sxm5", "source_url", toml_string(PAREN_URL)),
                       ("hardware.toml", "h100-sxm5", "source_url", "%29")),
    "model url javascript:": (_toml_entry("models.toml", "model", "llama-3.1-8b", "source_url",
                                          toml_string("javascript:alert(document.domain)")),
                              ("models.toml", "llama-3.1-8b", "source_url", "https://")),
    "kernel row url quotes": (_toml_entry("measurements.toml", "kernel", "deepgemm-h800-dense-m64-n2112-k7168",
                                          "source_url", toml_string(QUOTE_URL)),
                              ("measurements.toml", "deepgemm-h800-dense-m64-n2112-k7168", "source_url", "%22")),
    "cross-node url )": (_toml_entry("measurements.toml", "cross_node", "deepseek-h800-decode", "source_url",
                                     toml_string(PAREN_URL)),
                         ("measurements.toml", "deepseek-h800-decode", "source_url", "%29")),
    "price url javascript:": (_toml_entry("prices.toml", "price", "packet-h200-on-demand", "source_url",
                                          toml_string("javascript:alert(document.domain)")),
                              ("prices.toml", "packet-h200-on-demand", "source_url", "https://")),
    "ep row url <": (_toml_entry("ep_communication.toml", "measurement", "deepep-normal-intranode-dispatch-ep8",
                                 "source_url", toml_string("https://x.example/<svg/onload=alert(document.domain)>")),
                     ("ep_communication.toml", "deepep-normal-intranode-dispatch-ep8", "source_url", "%3C")),
    "glossary source url )": (_edit(GLOSSARY_ENTRY, '"https://www.nvidia.com/en-us/data-center/h100/"',
                                    json.dumps(PAREN_URL)),
                              ("ridge-point.md", "sources", "%29")),
    # Numbers of thousands of digits, which Python will not convert (a raw ValueError otherwise).
    "hardware huge number": (_toml_entry("hardware.toml", "device", "h100-sxm5", "memory_capacity_GB", HUGE),
                             ("hardware.toml", "memory_capacity_GB", "thousands of digits")),
    "kernel row huge number": (_toml_entry("measurements.toml", "kernel", "deepgemm-h800-dense-m64-n2112-k7168", "m",
                                           HUGE), ("measurements.toml", "'m'", "thousands of digits")),
    "glossary huge number": (_edit(GLOSSARY_ENTRY, "see_also: [", f"see_also: [{HUGE}, "),
                             ("ridge-point.md", "see_also", "thousands of digits")),
    "page huge number": (_edit(PAGE, "search:\n", f"description: {HUGE}\nsearch:\n"),
                         ("hardware.md", "description", "thousands of digits")),
    "binding huge number": (_edit(PAGE, "bindings:\n", f"bindings:\n  big: '{HUGE}'\n"),
                            ("hardware.md", "binding 'big'", "thousands of digits")),
    "measurement file huge number": (_measurement_file(_label(HUGE)), ("hostile.json", "label")),
    # Lone surrogates: no encoding can write them.
    "measurement file surrogate": (_measurement_file(_label('"XSS-sur \\ud800"')),
                                   ("hostile.json", "label", "surrogate")),
    "glossary surrogate": (_edit(GLOSSARY_ENTRY, "summary: The ridge point", 'summary: "\\ud800 The ridge point'),
                           ("ridge-point.md", "line 5")),
    # Bidirectional overrides and line breaks in front matter (spec fields flatten them: test_hostile_site).
    "glossary bidi": (_edit(GLOSSARY_ENTRY, "summary: The ridge", "summary: The \u202eridge"),
                      ("ridge-point.md", "summary", "U+202E")),
    "glossary line break": (_edit(GLOSSARY_ENTRY, "summary: The ridge point",
                                  'summary: "The ridge point\\n- [forged](https://x.example/)"  #'),
                            ("ridge-point.md", "summary", "line break")),
    "page title bidi": (_edit(PAGE, "search:\n", "title: XSS \u202eevil\nsearch:\n"),
                        ("hardware.md", "title", "U+202E")),
    "page title line break": (_edit(PAGE, "search:\n", 'title: "XSS\\n# forged heading"\nsearch:\n'),
                              ("hardware.md", "title", "line break")),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return copy_project(tmp_path_factory.mktemp("refused") / "project")


@pytest.mark.parametrize("name", list(PLANTS))
def test_a_hostile_plant_is_refused_in_one_line_naming_file_and_field(project, tmp_path, name):
    plant, words = PLANTS[name]
    shutil.rmtree(project / "site", ignore_errors=True)
    (project / "site").mkdir()
    (project / "site" / "index.html").write_text(PREVIOUS)
    saved = {rel: (project / rel).read_text(encoding="utf-8") for rel in (GLOSSARY_ENTRY, PAGE)}
    try:
        env = plant(project, tmp_path)
        proc = run_build(project, **env)
    finally:
        for rel, text in saved.items():
            (project / rel).write_text(text, encoding="utf-8")
    assert_site_kept(project, proc)
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("build failed, site/ left as it was: "), proc.stderr[-2000:]
    said = last.removeprefix("build failed, site/ left as it was: ").removesuffix(" (full log: .cache/last-build.log)")
    assert len(said) <= 300, f"{len(said)} characters: {said}"
    for word in words:
        assert word in said, f"the line does not name {word!r}: {said}"
    assert "Error reading page" not in said or words[0].endswith(".md"), f"a spec file blamed on a page: {said}"
