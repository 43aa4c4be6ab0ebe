"""Every bad input gets one sentence: the fuzz corpus in tests/fixtures/hostile, run against temporary copies.

Each case must end with exit status 2 and exactly one line on stderr, `roofline: error: ...`, that
holds the words the corpus names (file, entry, field or option) and no traceback. Files are planted
in temporary copies (ROOFLINE_* variables), never in the repository's data.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from tests.conftest import ROOT

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
    # The Devices field once gave no message for these (0x4 was read as 4 devices), and "" got the
    # CLI's "--devices must be ... got 0". Each now gets its own sentence, in the field's words.
    for value, message in counts["devices"].items():
        assert message and message.startswith(("Devices ", "Enter a value for devices")), (value, message)
        assert "--devices" not in message
    assert counts["beyond_max_context"] == ("Context length must be at most 4,096 tokens for Llama 2 7B "
                                            "(its max_position_embeddings).")


# ---------------------------------------------------------------- no traceback, no hang
@pytest.mark.parametrize("args, words", [
    # A bare count has no KV heads: the layout note divided by zero (ZeroDivisionError, exit 1).
    (["layouts", "--model", "8e9", "--hardware", "h100-sxm5", "--context", "1", "--json"], None),
    # os.stat on a 300-character name raised OSError "File name too long" (exit 1).
    (["decode", "--model", "a" * 300, "--hardware", "h100-sxm5"], ["unknown model", "..."]),
    (["model", "a" * 300], ["unknown model"]),
    (["decode", "--model", "a" * 300 + ".json", "--hardware", "h100-sxm5"], ["cannot be read"]),
    (["decode", "--model", "a\x00b", "--hardware", "h100-sxm5"], ["unknown model"]),
])
def test_no_traceback_for_a_bare_count_layout_or_a_long_name(args, words, run_cli):
    code, out, err = run_cli(*args)
    if words is None:  # layouts of a bare count: answered, and its largest batch not invented
        rows = json.loads(out)["layouts"]
        assert code == 0 and rows[0]["layout"] == "1 device", err
        assert all(r["max_batch_that_fits"] is None for r in rows)
        return
    line = assert_one_line(code, err, words)
    assert len(line) < 600, "a 300-character name is shown shortened"


@pytest.fixture
def special_files(tmp_path) -> dict[str, Path]:
    """A FIFO named like a config, a listening Unix socket and the endless character devices."""
    import os
    import socket
    import tempfile

    fifo = tmp_path / "f.json"
    os.mkfifo(fifo)
    # A socket path must be short (108 bytes): its own folder in /tmp, removed with the socket after.
    with tempfile.TemporaryDirectory(prefix="rl-") as sock_dir, socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(Path(sock_dir) / "s.json"))
        sock.listen()
        yield {"/dev/zero": Path("/dev/zero"), "/dev/urandom": Path("/dev/urandom"), "/dev/null": Path("/dev/null"),
               "fifo": fifo, "socket": Path(sock_dir) / "s.json"}


SPECIAL = ["/dev/zero", "/dev/urandom", "/dev/null", "fifo", "socket"]
READERS = {  # how each reader is pointed at a file: (arguments, environment variable)
    "model PATH": (lambda p: ["model", str(p)], None),
    "decode --model PATH": (lambda p: ["decode", "--model", str(p), "--hardware", "h100-sxm5"], None),
    "measure --from": (lambda p: ["measure", "--from", str(p)], None),
    "ROOFLINE_HARDWARE": (lambda p: ["hardware"], "ROOFLINE_HARDWARE"),
    "ROOFLINE_MODELS": (lambda p: ["models"], "ROOFLINE_MODELS"),
}


# One child process runs every reader on every special file, printing each case as it starts: a reader that
# hangs (before the fix, /dev/zero was read until memory ran out, out of reach of any signal handler) fails
# the test by the timeout and names the case, instead of hanging the suite.
SPECIAL_CHILD = r"""
import contextlib, importlib, io, json, os, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # an endless read ends in MemoryError, not the machine's memory
from pathlib import Path
from roofline.cli import main
from roofline.registry import hardware, measurements, models
for args, var, path in json.loads(sys.argv[1]):
    print("START", json.dumps([args, var]), flush=True)
    for mod in (hardware, models, measurements):
        mod.REGISTRY.cache_clear()
    os.environ.pop("ROOFLINE_HARDWARE", None); os.environ.pop("ROOFLINE_MODELS", None)
    if var:
        os.environ[var] = path
    if args[0] == "py":  # a reader the site calls: its error's class and sentence
        module, name = args[1].split(":")
        try:
            getattr(importlib.import_module(module), name)(Path(path))
            print("DONE", json.dumps(["read", ""]), flush=True)
        except Exception as exc:
            print("DONE", json.dumps([type(exc).__name__, str(exc)]), flush=True)
        continue
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(args)
        except SystemExit as exc:
            code = exc.code
    print("DONE", json.dumps([code, err.getvalue()]), flush=True)
"""
SITE_READERS = {"roofline.registry.machine:load": "MeasurementError",
                "roofline.registry.measurements:load_measurements": "SpecError",
                "roofline_site.glossary.entries:parse_entry": "GlossaryError"}


def test_a_special_file_is_refused_in_one_line_not_read_forever(tmp_path, special_files):
    import subprocess
    import sys

    files = special_files
    cases = [(args(files[special]), var, str(files[special]), reader, special)
             for reader, (args, var) in READERS.items() for special in SPECIAL]
    cases += [(["py", reader], None, str(files[special]), reader, special) for reader in SITE_READERS
              for special in SPECIAL]
    try:
        proc = subprocess.run([sys.executable, "-c", SPECIAL_CHILD, json.dumps([c[:3] for c in cases])],
                              capture_output=True, text=True, timeout=60, cwd=tmp_path)
    except subprocess.TimeoutExpired as exc:
        started = [ln for ln in (exc.stdout or b"").decode().splitlines() if ln.startswith("START")]
        pytest.fail(f"hung on {started[-1] if started else 'the first case'}")
    done = [json.loads(ln[5:]) for ln in proc.stdout.splitlines() if ln.startswith("DONE ")]
    assert len(done) == len(cases), proc.stderr[-2000:]
    for (code, err), (_, _, path, reader, special) in zip(done, cases):
        words = [path, "not a regular file" if special != "socket" else "not a"]
        if reader in SITE_READERS:
            assert code == SITE_READERS[reader] and "not a" in err and "\n" not in err, (reader, special, code, err)
            continue
        try:
            assert_one_line(code, err, words)
        except AssertionError as exc:
            raise AssertionError(f"{reader} on {special}: {exc}") from None


@pytest.mark.parametrize("reader, limit_mb", [("model PATH", 10), ("measure --from", 10), ("ROOFLINE_MODELS", 64)])
def test_a_file_past_the_limit_is_refused_before_it_is_read(reader, limit_mb, tmp_path, monkeypatch, run_cli):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate((limit_mb + 1) * 1024 * 1024)  # sparse: no disk used
    args, var = READERS[reader]
    if var:
        monkeypatch.setenv(var, str(big))
    assert_one_line(*run_cli(*args(big))[::2], ["too large", f"at most {limit_mb} MB"])


def test_the_reader_stops_at_the_limit_whatever_stat_says(monkeypatch, tmp_path):
    """A file that reports 0 bytes (as /proc files and devices do) is still read no further than the limit."""
    import os

    from roofline import readfile

    real_fstat = os.fstat
    monkeypatch.setattr(readfile.os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 0, *real_fstat(fd)[7:])))
    two_mb = tmp_path / "two.json"
    two_mb.write_bytes(b" " * (2 << 20))
    with pytest.raises(readfile.UnreadableFile, match="more than 1 MB is too large"):
        readfile.read_capped(two_mb, 1 << 20, "test file")
    assert readfile.read_capped(Path(__file__), 10 * 1024 * 1024, "test file").startswith(b'"""')


# ---------------------------------------------------------------- a context the model cannot hold
# Each checkpoint's stated maximum, its config.json max_position_embeddings (read from the published files):
# https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json (4096; Touvron et al. 2023: "context
# length 4k"), https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json (131072, rope_scaling
# llama3 factor 8 over 8192: the field is already the scaled maximum), DeepSeek-V3's (163840, yarn factor 40
# over 4096), Qwen3-8B's (40960).
CITED_MAX_CONTEXT = {"llama-2-7b": 4096, "llama-2-70b": 4096, "llama-3.1-8b": 131072, "llama-3.1-70b": 131072,
                     "deepseek-v3": 163840, "qwen3-8b": 40960, "mistral-7b": 32768, "gpt-oss-120b": 131072}


def test_every_registry_model_records_its_cited_maximum_context():
    from roofline.registry.models import models

    got = {i: m.max_context_tokens for i, m in models().items()}
    assert all(v >= 1 for v in got.values()), got
    assert {i: got[i] for i in CITED_MAX_CONTEXT} == CITED_MAX_CONTEXT


@pytest.mark.parametrize("fixture, expected", [
    ("llama-3.1-8b.json", 131072),   # rope_scaling factor 8: not 8 × 131072
    ("deepseek-v3.json", 163840),    # yarn factor 40: not 40 × 163840
    ("gemma-3-27b.json", 131072),    # the fixture omits it: Gemma3TextConfig's default, 131072
    ("gemma-2-9b.json", 8192),
])
def test_the_config_reader_takes_the_stated_maximum_context(fixture, expected, run_cli):
    from roofline.configs import read_config

    path = ROOT / "tests" / "fixtures" / "configs" / fixture
    assert read_config(path).max_context_tokens == expected
    assert json.loads(run_cli("model", str(path), "--json")[1])["max_context_tokens"] == expected  # shown too


@pytest.mark.parametrize("args, words", [
    # Before: 51 tokens/s for Llama 2 at 100,000 tokens, though it holds 4,096 positions.
    (["decode", "--model", "llama-2-7b", "--hardware", "h100-sxm5", "--context", "100000"],
     ["--context 100000", "at most 4096", "--allow-beyond-max-context"]),
    (["decode", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--context", "131073"], ["at most 131072"]),
    (["prefill", "--model", "llama-2-7b", "--hardware", "h100-sxm5", "--prompt", "4097"], ["--prompt 4097", "4096"]),
    (["layouts", "--model", "llama-2-7b", "--hardware", "h100-sxm5", "--context", "5000"], ["at most 4096"]),
    # Before: exit 2 as a table, 0 with --json. Now one refusal either way.
    (["decode", "--model", "llama-3.1-8b", "--hardware", "h100-sxm5", "--context", "1000000000"], ["at most 131072"]),
    (["model", "tests/fixtures/configs/gemma-2-9b.json"], None),
])
@pytest.mark.parametrize("json_flag", [False, True])
def test_a_context_past_the_maximum_is_refused_the_same_with_and_without_json(args, words, json_flag, run_cli,
                                                                              monkeypatch):
    monkeypatch.chdir(ROOT)
    if words is None:  # a config's own maximum: `decode` on it past 8192 is refused too
        path = args[1]
        args, words = ["decode", "--model", path, "--hardware", "h100-sxm5", "--context", "8193"], ["at most 8192"]
    code, out, err = run_cli(*args, *(["--json"] if json_flag else []))
    assert out == ""
    assert_one_line(code, err, words)


def test_the_maximum_is_passed_only_when_asked_and_the_output_says_so(run_cli):
    base = ["decode", "--model", "llama-2-7b", "--hardware", "h100-sxm5", "--context", "100000",
            "--allow-beyond-max-context"]
    code, out, err = run_cli(*base)
    assert code == 0 and "beyond Llama 2 7B's maximum of 4096 tokens" in out and "extrapolated" in out, out + err
    code, out, _ = run_cli(*base, "--json")
    data = json.loads(out)
    assert code == 0 and data["beyond_max_context"] is True and data["max_context_tokens"] == 4096
    code, out, _ = run_cli("decode", "--model", "llama-2-7b", "--hardware", "h100-sxm5", "--context", "4096", "--json")
    assert code == 0 and json.loads(out)["beyond_max_context"] is False  # the maximum itself is held
    assert json.loads(run_cli("decode", "--model", "8e9", "--hardware", "h100-sxm5", "--json")[1])["max_context_tokens"] is None


def test_a_registry_model_without_its_maximum_context_is_a_spec_error(tmp_path, monkeypatch, run_cli):
    text = (ROOT / "src" / "roofline" / "data" / "models.toml").read_text(encoding="utf-8")
    spec = tmp_path / "models.toml"
    spec.write_text(text.replace("max_context_tokens = 4096  # config.json max_position_embeddings\n", "", 1))
    monkeypatch.setenv("ROOFLINE_MODELS", str(spec))
    assert_one_line(*run_cli("models")[::2], ["models.toml", "llama-2-7b", "max_context_tokens", "missing"])


# ---------------------------------------------------------------- shapes no checkpoint has
def _llama_config(**changes) -> dict:
    return {**json.loads((ROOT / "tests/fixtures/configs/llama-3.1-8b.json").read_text()), **changes}


def test_a_hidden_size_the_heads_do_not_divide_is_refused_unless_head_dim_is_given():
    from roofline.configs import read_config_doc
    from roofline.errors import InputError

    # Before: 4095 // 32 = 127, a head width no checkpoint has, read in silence.
    with pytest.raises(InputError, match=r"field 'hidden_size' is 4095, which 32 attention heads do not divide"):
        read_config_doc(_llama_config(hidden_size=4095))
    assert read_config_doc(_llama_config(hidden_size=4095, head_dim=128)).head_dim == 128


def test_a_config_group_size_follows_the_option_rule(run_cli):
    from roofline.configs import read_config_doc
    from roofline.errors import InputError

    line = assert_one_line(*run_cli("decode", "--model", "8e9", "--hardware", "h100-sxm5",
                                    "--weight-format", "int4-g3")[::2], ["power of two"])
    rule = line.split("the group size ")[1]
    q = {"quant_method": "gptq", "bits": 4, "group_size": 3}
    with pytest.raises(InputError) as err:  # before: accepted as "int4, 3 elements per scale"
        read_config_doc(_llama_config(quantization_config=q))
    assert "quantization_config.group_size" in str(err.value) and str(err.value).endswith(rule)
    assert read_config_doc(_llama_config(quantization_config={**q, "group_size": 64})).weight_group_size == 64


# ---------------------------------------------------------------- Markdown copies, long spec text
HOSTILE_NAME = "H100 <script>alert(1)</script> [md](javascript:alert(3)) `c` | ```"


def _copy_of(fragment: str) -> str:
    from roofline_site.html.markdown_copy import article_markdown

    return article_markdown(f'<article class="md-content__inner md-typeset">{fragment}</article>')


def test_the_markdown_copy_keeps_file_text_literal_everywhere_a_page_puts_it():
    """A device name in a figure's alt text, a link's title, a table cell and executed output stays text.

    Before: the alt text and the title were copied raw (`<script>` and a live `[md](javascript:...)`), a
    pipe split its table cell, and "```" in executed output closed the code fence.
    """
    from roofline_site.html import escape

    h = HOSTILE_NAME
    md = _copy_of(f'<p><img alt="{escape.attr(h)}" src="../figures/x.svg" title="{escape.attr(h)}"></p>'
                  f'<table><tr><th>device</th><th>x</th></tr><tr><td>{escape.text(h)}</td><td>1</td></tr></table>'
                  f'<p><a href="https://x.org/" title="{escape.attr(h)}">{escape.text(h)}</a></p>'
                  f'<div class="result"><pre><code>{escape._html.escape(h)}\n[y](javascript:alert(4))</code></pre></div>'
                  f'<p><a href="javascript:alert(5)">label</a> <img alt="a" src="javascript:alert(6)"></p>')
    outside_code = re.sub(r"^(`{3,})\n.*?^\1$", "", md, flags=re.S | re.M)
    assert "[y](javascript" in md and "[y](javascript" not in outside_code  # the fence held it
    assert not re.search(r"(?<!\\)<script", outside_code), md
    assert not re.search(r"(?<!\\)\[[^\]]*(?<!\\)\]\(\s*javascript:", outside_code), md
    assert "javascript:alert(5)" not in md and "javascript:alert(6)" not in md
    row = next(ln for ln in md.splitlines() if ln.startswith("| H100"))
    assert len(re.findall(r"(?<!\\)\|", row)) == 3, row  # two cells: the name's pipe is escaped


@pytest.mark.parametrize("file, ident, field, length, words", [
    ("hardware.toml", "h100-sxm5", "note", 100_000, ["note", "100,000 characters", "at most 2,000"]),
    ("hardware.toml", "h100-sxm5", "name", 201, ["name", "at most 200"]),
    ("models.toml", "llama-2-7b", "name", 5_000, ["name", "at most 200"]),
])
def test_a_spec_text_field_past_its_bound_gets_one_line(file, ident, field, length, words, tmp_path, monkeypatch,
                                                        run_cli):
    # Before: a 100 kB note was accepted, and published in every popover.
    text = (ROOT / "src" / "roofline" / "data" / file).read_text(encoding="utf-8")
    spec = tmp_path / file
    value = '"' + "x" * length + '"'
    table = {"hardware.toml": "device", "models.toml": "model"}[file]
    if field == "note" and not re.search(r"^note = ", text[text.index(f'id = "{ident}"'):], flags=re.M):
        pytest.skip("no note to replace")
    spec.write_text(plant(text, ident, table, field, value), encoding="utf-8")
    monkeypatch.setenv(ENV[file], str(spec))
    assert_one_line(*run_cli("hardware" if file == "hardware.toml" else "models")[::2], [file, ident, *words])


def test_a_measurement_label_past_the_bound_gets_one_line(tmp_path, run_cli):
    f = _measurement(tmp_path, "label", "x" * 3000)
    assert_one_line(*run_cli("measure", "--from", str(f))[::2], ["label", "3,000 characters"])


# ---------------------------------------------------------------- a killed build, a read-only cache
def _running(pid: int) -> bool:
    """True while `pid` runs (a zombie no container init reaps counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def test_the_build_worker_dies_with_a_parent_killed_outright(tmp_path):
    """A stand-in for `mkdocs build`: it forks the worker as build_hook does, then is SIGKILLed.

    Before: the worker (in a process group of its own) built on to the end as an orphan.
    """
    import signal
    import subprocess
    import sys
    import time

    script = ("import os, sys, time\n"
              "from roofline_site.hooks import build_hook\n"
              "parent = os.getpid()\n"
              "pid = os.fork()\n"
              "if pid == 0:\n"
              "    os.setpgid(0, 0)\n"
              "    build_hook.die_with_parent(parent)\n"
              "    print('ready', os.getpid(), flush=True)\n"
              "    time.sleep(120)\n"
              "    os._exit(0)\n"
              "time.sleep(120)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    ready = proc.stdout.readline().split()
    if ready[:1] != ["ready"]:
        proc.kill()
        pytest.fail("the worker did not start watching its parent")
    worker = int(ready[1])
    assert _running(worker)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while _running(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = _running(worker)
    if alive:
        os.kill(worker, signal.SIGKILL)
    assert not alive, "the build worker outlived its parent"


def test_the_next_build_removes_scratch_whose_build_is_dead(tmp_path):
    import subprocess

    dead = subprocess.run(["true"]).args and subprocess.Popen(["true"])
    dead.wait()
    site = tmp_path / "site"
    stale = [tmp_path / f".site.building-{dead.pid}", tmp_path / f".site.old-{dead.pid}"]
    for folder in stale:
        (folder / "index.html").parent.mkdir(parents=True)
        (folder / "index.html").write_text("x")
    stale.append(tmp_path / f".site.building-{dead.pid}.status")
    stale[-1].write_text("page index.md\n")
    live = [tmp_path / f".site.building-{os.getpid()}", tmp_path / f".site.building-{os.getpid()}.status"]
    live[0].mkdir()
    live[1].write_text("")
    other = tmp_path / ".site.building-notapid"
    other.mkdir()
    from roofline_site.hooks.build_hook import remove_stale_scratch

    assert sorted(remove_stale_scratch(site)) == sorted(stale)
    assert not any(p.exists() for p in stale) and all(p.exists() for p in [*live, other])


def test_a_read_only_figure_cache_builds_without_caching_and_says_so(monkeypatch, tmp_path, caplog):
    """A .cache that cannot be written (or read) must not end the build: the figures render afresh and
    one INFO line says the cache was set aside, and why."""
    import importlib.util
    import logging
    import sys

    from roofline_site import figure_cache

    monkeypatch.setitem(sys.modules, "mkdocs_gen_files", type(sys)("mkdocs_gen_files"))
    spec = importlib.util.spec_from_file_location("gen_figures_ro", ROOT / "src/roofline_site/gen/figures.py")
    gen = importlib.util.module_from_spec(spec)
    import figures_gen

    every = figures_gen.FIGURES
    monkeypatch.setenv("ROOFLINE_FIGURE_CACHE", "0")
    monkeypatch.setattr("figures_gen.FIGURES", [])
    spec.loader.exec_module(gen)  # renders nothing at import
    monkeypatch.setattr("figures_gen.FIGURES", every)
    monkeypatch.setattr(gen, "FIGURES", ["ridge_overlay"])
    monkeypatch.setattr(gen, "CACHE", tmp_path / "figures")
    monkeypatch.setenv("ROOFLINE_FIGURE_CACHE", "1")

    def read_only(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(figure_cache.FigureStore, "lookup", read_only)
    monkeypatch.setattr(figure_cache.FigureStore, "store", read_only)
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.roofline.figures"):
        out = gen.rendered()
    assert list(out) == [gen.module("ridge_overlay").NAME]  # rendered afresh
    svgs, csv = next(iter(out.values()))
    assert svgs and csv.startswith("device_id,")
    lines = [r.getMessage() for r in caplog.records if "without caching" in r.getMessage()]
    assert len(lines) == 1 and "Read-only file system" in lines[0], caplog.records
    assert all(r.levelno < logging.WARNING for r in caplog.records)  # a strict build goes on


# ---------------------------------------------------------------- a broken spec under serve
def test_serve_answers_every_request_after_a_failed_rebuild(tmp_path):
    """MkDocs' own server, with the guard the numbers hook installs: a rebuild that raises (a negative
    bandwidth saved in hardware.toml) leaves the last good site served, the error at the top of each page.

    Before: every request waited for a rebuild that never came (mkdocs' LiveReloadServer never marks a
    failed build's epoch visible), so this GET timed out.
    """
    import threading
    import time
    import urllib.request

    from mkdocs.exceptions import Abort, PluginError
    from mkdocs.livereload import LiveReloadServer

    from roofline_site import serve_state

    site, watched = tmp_path / "site", tmp_path / "src"
    site.mkdir()
    watched.mkdir()
    (site / "index.html").write_text("<html><body><p>last good</p></body></html>")
    error = "spec error: hardware.toml: h100-sxm5: field 'memory_bandwidth_TB_per_s' must be positive, got -3.35 <b>"
    builds = []

    def builder():
        builds.append(time.monotonic())
        try:
            raise PluginError(error)
        except PluginError as err:
            raise Abort("Aborted with a BuildError!") from err

    server = LiveReloadServer(builder=builder, host="127.0.0.1", port=0, root=str(site))
    serve_state.guard_server(server)
    server.watch(str(watched))
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not getattr(server, "server_address", (None, 0))[1] and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        (watched / "hardware.toml").write_text("edited")  # the edit that triggers the failing rebuild
        while not builds and time.monotonic() < deadline:
            time.sleep(0.05)
        assert builds, "the edit did not trigger a rebuild"
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        page = urllib.request.urlopen(url, timeout=10).read().decode()
        assert "last good" in page and 'role="alert"' in page
        assert "must be positive, got -3.35 &lt;b&gt;" in page and "<b>" not in page.split("</div>")[0]
    finally:
        server.shutdown()
        serve_state._failure["error"] = ""


# ---------------------------------------------------------------- every command × every bad-value class
BAD_VALUES = {  # class: the value typed
    "empty": "", "blank": " ", "negative": "-1", "zero": "0", "fraction": "1.5", "nan": "nan", "infinity": "inf",
    "overflow": "1e400", "hex": "0x10", "word": "abc", "escape": "\x1b[2J", "long": "9" * 400, "markup": "<b>1</b>",
}
D = ["--model", "llama-3.1-8b", "--hardware", "h100-sxm5"]
COMMAND_OPTIONS = {  # command: (arguments before, the option taking the bad value, arguments after)
    "model ID": (["model"], None, []),
    "model --kv-dtype": (["model", "llama-3.1-8b", "--kv-dtype"], None, []),
    "ridge HW": (["ridge"], None, []),
    "ridge --dtype": (["ridge", "h100-sxm5", "--dtype"], None, []),
    "matmul M": (["matmul"], None, ["8", "8"]),
    "matmul K": (["matmul", "8", "8"], None, []),
    "matmul --hardware": (["matmul", "8", "8", "8", "--hardware"], None, []),
    **{f"decode {o}": (["decode", *D], o, []) for o in ("--batch", "--context", "--weight-format",
                                                        "--activation-dtype", "--kv-dtype", "--attention", "--tp",
                                                        "--pp", "--ep", "--dp", "--devices")},
    "decode --model": (["decode", "--hardware", "h100-sxm5"], "--model", []),
    "decode --hardware": (["decode", "--model", "llama-3.1-8b"], "--hardware", []),
    **{f"prefill {o}": (["prefill", *D, "--prompt", "8"], o, []) for o in ("--batch", "--weight-format", "--tp")},
    "prefill --prompt": (["prefill", *D], "--prompt", []),
    **{f"layouts {o}": (["layouts", *D, *(["--context", "8"] if o != "--context" else [])], o, [])
       for o in ("--context", "--batch", "--weight-format")},
    "measure --budget": (["measure", "--quick", "--out", "/dev/null/x.json"], "--budget", []),
    "measure --from": (["measure"], "--from", []),
    "measure --hardware": (["measure", "--from", "measurements/example-shared-2vcpu-xeon.json"], "--hardware", []),
    "measure --dtype": (["measure", "--from", "measurements/example-shared-2vcpu-xeon.json", "--hardware",
                         "h100-sxm5"], "--dtype", []),
    "hardware --json": (["hardware", "--json"], None, []),  # no value to take: an extra argument
    "models": (["models"], None, []),
}
# Paths: any name is a file name, so the bad classes are the ones no file can have (checked before measuring).
BAD_PATHS = {"empty": "", "blank": " ", "long": "a" * 300 + ".json", "folder": "/", "under a file": "/dev/null/x.svg"}
PATH_OPTIONS = {"measure --out": (["measure", "--quick"], "--out"),
                "measure --plot": (["measure", "--from", str(ROOT / "measurements/example-shared-2vcpu-xeon.json")],
                                   "--plot")}


@pytest.mark.parametrize("bad", list(BAD_PATHS))
@pytest.mark.parametrize("command", list(PATH_OPTIONS))
def test_every_path_option_refuses_a_path_no_file_can_have(command, bad, run_cli, monkeypatch, tmp_path):
    # Before: an empty --out or --plot was read as "not given" (--out "" saved to the default folder).
    from roofline import measure

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(measure, "run", lambda **kw: pytest.fail("measured before refusing the path"))
    before, option = PATH_OPTIONS[command]
    code, out, err = run_cli(*before, f"{option}={BAD_PATHS[bad]}")
    assert_one_line(code, err, [option])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad", list(BAD_VALUES))
@pytest.mark.parametrize("command", list(COMMAND_OPTIONS))
def test_every_command_refuses_every_bad_value_class_in_one_line(command, bad, run_cli, monkeypatch):
    """No traceback, no answer: a bad value gets one line naming what was wrong, and exit 2."""
    monkeypatch.chdir(ROOT)
    before, option, after = COMMAND_OPTIONS[command]
    value = BAD_VALUES[bad]
    args = [*before, *([f"{option}={value}"] if option else [value]), *after]
    code, out, err = run_cli(*args)
    assert "Traceback" not in err
    line = assert_one_line(code, err, [])
    assert out == "", f"{args!r} printed an answer and an error"
    assert "\x1b" not in line and len(line) < 700, line
