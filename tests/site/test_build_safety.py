"""No failure loses the site: executed blocks that exit, kill the process, hang or start processes.

A minimal MkDocs project (one page, the build hook, markdown-exec) is built with a hostile
executed block, by a plain `mkdocs build` and by `make site`'s `python -m roofline_site.build`.
After every failure site/ is byte-identical, the build says so in one line naming the page, the
exit status is non-zero, and no process the block started is still alive.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.conftest import ROOT

HOOK = ROOT / "src" / "roofline_site" / "hooks" / "build_hook.py"
QUIET = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


def make_project(folder: Path, block: str) -> Path:
    (folder / "docs").mkdir(parents=True)
    (folder / "mkdocs.yml").write_text(
        f"site_name: t\nstrict: true\nhooks:\n  - {HOOK}\nplugins:\n  - markdown-exec\nmarkdown_extensions:\n  - pymdownx.superfences\n", encoding="utf-8")
    (folder / "docs" / "index.md").write_text(
        f'# Page\n\nText.\n\n```python exec="on" result="text"\n{block}\n```\n', encoding="utf-8")
    site = folder / "site"
    site.mkdir()
    (site / "index.html").write_text("the previous site")
    (site / "deep").mkdir()
    (site / "deep" / "a.css").write_bytes(b"\x00\x01 binary")
    return folder


def snapshot(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def plain_build(root: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=root, env={**os.environ, **QUIET, **env},
                          capture_output=True, text=True, timeout=120)


def make_site(root: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "roofline_site.build", "--root", str(root)], cwd=root,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=120)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but not yet reaped by init: read its state.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


SPAWN = ("import subprocess, pathlib\n"
         "p = subprocess.Popen(['sleep', '300'])\n"
         "pathlib.Path({pidfile!r}).write_text(str(p.pid))\n")

CASES = {
    "sys.exit": ("import sys\nsys.exit(0)", {}, ["index.md", "sys.exit(0)"]),
    "os._exit": ("import os\nos._exit(0)", {}, ["index.md", "stopped before it finished"]),
    "hang": ("import time\ntime.sleep(300)", {"ROOFLINE_BLOCK_TIMEOUT_S": "1"}, ["index.md", "longer than 1 s"]),
    "swallowed alarm": ("import time\nwhile True:\n    try:\n        time.sleep(1)\n    except Exception:\n        pass",
                        {"ROOFLINE_BLOCK_TIMEOUT_S": "1", "ROOFLINE_BUILD_TIMEOUT_S": "6"},
                        ["index.md", "longer than 6 s"]),
    "spawn then os._exit": (SPAWN + "import os\nos._exit(0)", {}, ["index.md", "stopped before it finished"]),
}


@pytest.mark.parametrize("runner", [plain_build, make_site], ids=["mkdocs build", "make site"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_block_that_ends_or_hangs_the_build_keeps_the_site(tmp_path, case, runner):
    pidfile = tmp_path / "child.pid"
    block, env, named = CASES[case]
    root = make_project(tmp_path / "p", block.format(pidfile=str(pidfile)) if "{pidfile" in block else block)
    before = snapshot(root / "site")
    start = time.monotonic()
    proc = runner(root, **env)
    assert time.monotonic() - start < 90
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert snapshot(root / "site") == before, "site/ changed"
    assert [p.name for p in root.iterdir() if p.name.startswith(".site")] == [], "a temporary folder was left"
    assert "Traceback" not in (proc.stderr if runner is make_site else "".join(
        l for l in out.splitlines(True) if not l.startswith("  ")))
    errors = [l for l in out.splitlines() if l.startswith(("ERROR", "build failed"))]
    last = errors[-1] if errors else out
    for name in named:
        assert name in out, f"the output does not name {name!r}: {out[-1500:]}"
    if pidfile.exists():
        assert not alive(int(pidfile.read_text())), "a process the block started outlived the build"
    assert last


def test_processes_a_block_starts_do_not_outlive_a_good_build(tmp_path):
    pidfile = tmp_path / "child.pid"
    root = make_project(tmp_path / "p", SPAWN.format(pidfile=str(pidfile)) + "print('ok')")
    proc = plain_build(root)
    assert proc.returncode == 0, proc.stderr
    assert "ok" in (root / "site" / "index.html").read_text()
    assert not alive(int(pidfile.read_text()))


def test_a_good_build_replaces_the_site(tmp_path):
    root = make_project(tmp_path / "p", "print('fresh')")
    proc = make_site(root)
    assert proc.returncode == 0, proc.stderr
    assert "fresh" in (root / "site" / "index.html").read_text()
    assert not (root / "site" / "deep").exists()


@pytest.mark.parametrize("runner", [plain_build, make_site], ids=["mkdocs build", "make site"])
def test_a_build_that_ends_at_once_leaves_nothing_in_the_temporary_folder(tmp_path, runner):
    # A child that ends without its clean-up (here `os._exit`; under --strict, the first warning) left
    # what it had made in /tmp: mkdocs-gen-files' folder, one per failed build of the site.
    system_temp = tmp_path / "system-temp"
    system_temp.mkdir()
    root = make_project(tmp_path / "p", "import os, tempfile\ntempfile.mkdtemp(prefix='left-')\nos._exit(0)")
    proc = runner(root, TMPDIR=str(system_temp))
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert sorted(p.name for p in system_temp.iterdir()) == []
