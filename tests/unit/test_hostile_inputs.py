"""Every bad input gets one sentence: the fuzz corpus in tests/fixtures/hostile, run against temporary copies.

Each case must end with exit status 2 and exactly one line on stderr, `roofline: error: ...`, that
holds the words the corpus names (file, entry, field or option) and no traceback. Files are planted
in temporary copies (ROOFLINE_* variables), never in the repository's data.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "hostile"
SPEC_FAULTS = json.loads((CORPUS / "spec_faults.json").read_text(encoding="utf-8"))["cases"]
CLI = json.loads((CORPUS / "cli_faults.json").read_text(encoding="utf-8"))
ENV = {"hardware.toml": "ROOFLINE_HARDWARE", "models.toml": "ROOFLINE_MODELS",
       "measurements.toml": "ROOFLINE_MEASUREMENTS"}


@pytest.fixture(autouse=True)
def fresh_registry():
    from roofline.registry import hardware, measurements, models

    def clear():
        for mod in (hardware, models, measurements):
            mod.REGISTRY.cache_clear()

    clear()
    yield
    clear()


def assert_one_line(code: int, err: str, words) -> str:
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("roofline: error: "), err
    assert "Traceback" not in err and "\x1b" not in err
    for word in words:
        assert word in lines[0], f"{word!r} missing from: {lines[0]}"
    return lines[0]


def plant(text: str, ident: str, table: str, field: str | None, value: str) -> str:
    start = text.index(f'id = "{ident}"')
    end = text.find(f"[[{table}]]", start)
    end = len(text) if end == -1 else end
    block = text[start:end]
    if field is None:
        block = block.rstrip("\n") + f"\n{value}\n\n"
    else:
        block, n = re.subn(rf"^{re.escape(field)} = .*$", lambda m: f"{field} = {value}", block, count=1, flags=re.M)
        assert n == 1, f"{field} not in {ident}"
    return text[:start] + block + text[end:]


@pytest.mark.parametrize("case", SPEC_FAULTS, ids=[f"{c[0]}:{c[2]}={c[3][:20]}" for c in SPEC_FAULTS])
def test_a_spec_fault_gets_one_line_naming_file_entry_and_field(case, tmp_path, monkeypatch, run_cli):
    name, ident, field, value, words = case
    table = {"hardware.toml": "device", "models.toml": "model"}[name]
    text = (ROOT / "src" / "roofline" / "data" / name).read_text(encoding="utf-8")
    spec = tmp_path / name
    spec.write_text(plant(text, ident, table, field, value), encoding="utf-8")
    monkeypatch.setenv(ENV[name], str(spec))
    code, _, err = run_cli("hardware" if name == "hardware.toml" else "models")
    assert_one_line(code, err, words)


@pytest.mark.parametrize("content, words", [
    (b'[[device]]\nid = "x"\nname = "Caf\xe9"\n', ["hardware.toml", "line 3", "UTF-8"]),
    (b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", ["hardware.toml", "nests"]),
    (b"a = " + b"{ b = " * 500 + b"1" + b" }" * 500 + b"\n", ["hardware.toml", "nests"]),
    (b"\x00\x01\x02", ["hardware.toml"]),
    (b"", ["hardware.toml", "[[device]]"]),
])
def test_unreadable_spec_files_get_one_line(content, words, tmp_path, monkeypatch, run_cli):
    spec = tmp_path / "hardware.toml"
    spec.write_bytes(content)
    monkeypatch.setenv("ROOFLINE_HARDWARE", str(spec))
    assert_one_line(*run_cli("hardware")[::2], words)


@pytest.mark.parametrize("value, words", [("", ["ROOFLINE_HARDWARE", "empty"]), ("/", ["folder"]),
                                          ("/no/such/hardware.toml", ["not found"])])
def test_a_bad_registry_path_gets_one_line(value, words, monkeypatch, run_cli):
    monkeypatch.setenv("ROOFLINE_HARDWARE", value)
    assert_one_line(*run_cli("hardware")[::2], words)


@pytest.mark.parametrize("case", CLI["cli"], ids=[" ".join(c[0])[:50] for c in CLI["cli"]])
def test_a_bad_command_line_gets_one_line(case, run_cli):
    args, words = case
    code, out, err = run_cli(*args)
    assert_one_line(code, err, words)
    assert out == ""


def _measurement(tmp_path: Path, path: str, value) -> Path:
    f = tmp_path / "m.json"
    if path == "<raw>":
        f.write_text("[" * 100_000 + "]" * 100_000 if value == "<nested>" else value, encoding="utf-8")
        return f
    doc = json.loads((ROOT / "measurements" / "example-shared-2vcpu-xeon.json").read_text(encoding="utf-8"))
    *parents, last = path.split(".")
    cur = doc
    for key in parents:
        cur = cur[key]
    cur[last] = value
    f.write_text(json.dumps(doc), encoding="utf-8")
    return f


@pytest.mark.parametrize("case", CLI["measurement"], ids=[f"{c[0]}={str(c[1])[:20]}" for c in CLI["measurement"]])
def test_a_bad_measurement_file_gets_one_line(case, tmp_path, run_cli):
    path, value, words = case
    f = _measurement(tmp_path, path, value)
    assert_one_line(*run_cli("measure", "--from", str(f))[::2], [*words])


def test_a_measurement_label_cannot_drive_the_terminal(tmp_path, run_cli):
    f = _measurement(tmp_path, "label", "\x1b[2J\x1b[Hroofline: error: forged\r\x07")
    code, out, err = run_cli("measure", "--from", str(f))
    assert code == 0 and err == ""
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", out)
    assert "[2J[Hroofline: error: forged" in out  # shown, defanged


def test_json_output_is_always_valid_json_with_whole_numbers_as_integers(run_cli):
    code, out, _ = run_cli("models", "--json")
    assert code == 0
    rows = json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in JSON output"))
    l8b = next(r for r in rows if r["id"] == "llama-3.1-8b")
    # models.toml: published_params_B = 8.03, so 8,030,000,000 weights; 8.03e9 in binary is 8029999999.999999.
    assert '"published_params": 8030000000,' in out and l8b["published_params"] == 8_030_000_000
    code, out, _ = run_cli("decode", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--batch", "4096",
                           "--context", "131072", "--json")
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in JSON output"))
    assert data["fits"] is False and data["tokens_per_s"] is None


def test_interrupting_a_measurement_writes_nothing(tmp_path, monkeypatch, run_cli):
    from roofline import measure

    def interrupted(**kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(measure, "run", interrupted)
    out = tmp_path / "m.json"
    assert_one_line(*run_cli("measure", "--quick", "--out", str(out))[::2], ["measurement interrupted; nothing written"])
    assert list(tmp_path.iterdir()) == []


def test_a_failed_save_keeps_the_previous_file(tmp_path, monkeypatch, run_cli):
    """A full disk mid-write (simulated) leaves the old file whole and says so in one line."""
    import os

    from roofline import atomic, measure

    doc = json.loads((ROOT / "measurements" / "example-shared-2vcpu-xeon.json").read_text(encoding="utf-8"))
    monkeypatch.setattr(measure, "run", lambda **kw: doc)
    out = tmp_path / "m.json"
    out.write_text('{"the": "previous file"}')
    real_fsync = os.fsync

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full_disk)
    line = assert_one_line(*run_cli("measure", "--quick", "--out", str(out))[::2], ["--out", "No space left"])
    monkeypatch.setattr(atomic.os, "fsync", real_fsync)
    assert out.read_text() == '{"the": "previous file"}', line
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"], "a temporary file was left behind"


# ---------------------------------------------------------------- site glue: one line each
def test_an_unclosed_token_fails_naming_page_and_line():
    from roofline_site.numbers.tokens import TokenError, expand

    with pytest.raises(TokenError, match=r"p\.md:3: token '\{\{ ridge\(\"h100-sxm5\"\) \.' is never closed"):
        expand('# T\n\nThe ridge is {{ ridge("h100-sxm5") .\n\nNext paragraph {{ ridge("h100-sxm5") }}.\n', "p.md")
    assert "{{" not in expand('Code `{{ x` and {{ ridge("h100-sxm5") }}.', "p.md").split("`")[2]


def test_a_glossary_summary_with_a_numeral_is_refused(tmp_path):
    from roofline_site.glossary.entries import GlossaryError, parse_entry

    entry = tmp_path / "glossary" / "metric" / "x.md"
    entry.parent.mkdir(parents=True)
    entry.write_text("---\nterm: X\ncategory: metric\nsummary: A term that is 8 bits wide.\n"
                     "sources:\n  - {title: T, url: \"https://example.com\"}\n---\nBody.\n", encoding="utf-8")
    with pytest.raises(GlossaryError, match=r"x\.md: field 'summary' must not contain a numeral \('8'\)"):
        parse_entry(entry, tmp_path)
    entry.write_text(entry.read_text().replace("8 bits wide", "FP32 or E4M3 wide"), encoding="utf-8")
    assert parse_entry(entry, tmp_path).summary == "A term that is FP32 or E4M3 wide."


@pytest.mark.parametrize("failure, words", [
    (ZeroDivisionError("division by zero"), ["figures_gen/ridge_overlay.py", "ZeroDivisionError"]),
    ((b"<svg/>", "x,y\n1,nan\n"), ["figures_gen/ridge_overlay.py", "nan", "not a finite number"]),
    ((b"<svg/>", "x,y\n1,-inf\n"), ["figures_gen/ridge_overlay.py", "-inf"]),
])
def test_a_figure_module_that_raises_or_publishes_nan_is_named(failure, words, monkeypatch):
    import sys

    from mkdocs.exceptions import PluginError

    monkeypatch.setitem(sys.modules, "mkdocs_gen_files", type(sys)("mkdocs_gen_files"))  # loaded as a library
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_figures_under_test", ROOT / "src/roofline_site/gen/figures.py")
    gen = importlib.util.module_from_spec(spec)
    monkeypatch.setenv("ROOFLINE_FIGURE_CACHE", "0")
    monkeypatch.setattr("figures_gen.FIGURES", [])  # no figure rendered at import
    spec.loader.exec_module(gen)

    def render(name):
        if isinstance(failure, Exception):
            raise failure
        return failure

    monkeypatch.setattr(gen, "render", render)
    with pytest.raises(PluginError) as err:
        gen._render("ridge_overlay")
    assert "\n" not in str(err.value)
    for word in words:
        assert word in str(err.value)


@pytest.mark.parametrize("address", ["javascript:alert(1)", "JAVASCRIPT:alert(1)", " https://x.org", "data:text/html,x",
                                     "//evil.example/x", "/relative", "https://", "https://x.org/a b", "vbscript:x",
                                     "https://x.org/\x00", 42, None])
def test_only_http_links_are_published(address):
    from roofline_site.html import escape

    assert not escape.is_web_url(address)
    with pytest.raises(escape.UnsafeURL):
        escape.url(address)
    assert "<a" not in escape.link("label", address)


def test_text_is_literal_in_html_and_markdown():
    import markdown

    from roofline_site.html import escape

    hostile = "<script>alert(1)</script> [x](javascript:y) *e* `c` {: onclick=z } | $m$ \\(n\\)"
    html = markdown.markdown(f"| a |\n|---|\n| {escape.text(hostile)} |", extensions=["tables", "attr_list"])
    assert "<script" not in html and "<a" not in html and "<em" not in html and "<code" not in html
    assert "onclick" not in html.split("<td")[1].split(">")[0]
    import html as h

    cell = re.search(r"<td>(.*)</td>", html).group(1)
    assert h.unescape(cell) == hostile


# ---------------------------------------------------------------- the calculator
def test_the_calculator_gives_a_sentence_or_a_finite_result_for_every_hostile_value(tmp_path):
    """Denormal, tiny, huge and junk values, typed or in a link: an inline sentence, never a page error."""
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("node not found (apt-get install nodejs): the calculator's JavaScript cannot run")
    from roofline.calculator_view import registry_json

    work = tmp_path / "calc"
    shutil.copytree(ROOT / "docs" / "assets" / "calculator", work)
    (work / "package.json").write_text('{"type": "module"}')
    shutil.copy2(CORPUS / "calculator_fuzz.mjs", work / "fuzz.mjs")
    proc = subprocess.run([node, str(work / "fuzz.mjs")], input=json.dumps(registry_json()), capture_output=True,
                          text=True, cwd=work, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    counts = json.loads(proc.stdout)
    assert counts["problems"] == []
    assert counts["tried"] == counts["sentence"] + counts["finite"] >= 400
    assert counts["sentence"] > counts["tried"] / 2  # most of the corpus is junk: refused, not computed
