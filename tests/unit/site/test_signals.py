"""SIGTERM and SIGHUP to `make serve` or `make site` end every process they started.

Their default action ends the one process at once: no atexit, so the Markdown-copy pool's
forkserver, resource tracker and worker were left under pid 1 after a `kill` of `make serve`, and
a `kill` of `make site` left `mkdocs build` running. Each case runs in a session of its own, and
afterwards no process of that session may remain.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT

HOOK = ROOT / "src" / "roofline_site" / "hooks" / "build_hook.py"

SERVE_LIKE = f"""
import importlib.util, sys, time

if __name__ == "__main__":  # the forkserver imports this module again: nothing may run then
    spec = importlib.util.spec_from_file_location("build_hook", {str(HOOK)!r})
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    hook.on_startup(command="serve", dirty=True)  # what MkDocs calls first in `mkdocs serve`
    from roofline_site.html.markdown_copy import CopyWriter

    writer = CopyWriter()
    writer.submit("a", "<article class='md-content__inner'><p>x</p></article>")
    writer.results()
    print("ready", flush=True)
    try:
        while True:
            time.sleep(0.1)
    except KeyboardInterrupt:  # as MkDocs' server loop ends on Ctrl-C
        sys.exit(0)
"""


def _session(sid: int) -> list[str]:
    out = subprocess.run(["ps", "-ww", "-eo", "pid=,sid=,stat=,args="], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if int(line.split()[1]) == sid and " Z" not in f" {line.split()[2]}"]


def _ended_alone(proc: subprocess.Popen, sig: int, timeout_s: float = 30) -> list[str]:
    sid = proc.pid  # start_new_session: the child leads its session
    proc.send_signal(sig)
    proc.wait(timeout=timeout_s)
    deadline = time.monotonic() + 5
    while _session(sid) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _session(sid)
    for line in left:  # never leave them to the next test
        os.kill(int(line.split()[0]), signal.SIGKILL)
    return left


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_to_the_serving_process_ends_its_worker_pool(tmp_path, sig):
    script = tmp_path / "serve_like.py"
    script.write_text(SERVE_LIKE, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(script)], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    assert proc.stdout.readline().strip() == "ready"
    started = any("forkserver" in line for line in _session(proc.pid))
    left = _ended_alone(proc, sig)
    assert started, "the pool did not start: nothing tested"
    assert left == []
    assert proc.returncode == 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_to_make_site_ends_the_build_it_started(tmp_path, sig):
    root = tmp_path / "p"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("# Page\n", encoding="utf-8")
    started = tmp_path / "started"
    (root / "slow.py").write_text(f"import pathlib, time\n\ndef on_page_markdown(markdown, **kw):\n"
                                  f"    pathlib.Path({str(started)!r}).write_text('x')\n    time.sleep(120)\n"
                                  f"    return markdown\n", encoding="utf-8")
    (root / "mkdocs.yml").write_text(f"site_name: t\nhooks:\n  - {HOOK}\n  - slow.py\n", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "roofline_site.build", "--root", str(root)], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert started.exists(), "the build never reached its page"
    assert _ended_alone(proc, sig) == []
    assert "interrupted" in proc.stderr.read()
