"""`make serve` (mkdocs serve --dirty) stays correct while it re-renders only what changed.

One serve session on a throw-away copy of the project, with the hardware registry copied beside
it (ROOFLINE_HARDWARE). Three edits, three checks:
- a docs page: the edit shows, and a glossary entry the page now mentions lists it under
  "Mentioned in" (entry pages are skipped when nothing they show changed, so this can go stale);
- the search index still covers every page after the dirty rebuilds;
- the registry: every page renders again, so the home page's H100 ridge follows the new bandwidth.

And how it is stopped (tools/bench.py, shared with `make bench`): Ctrl-C reaches it even from a shell's
background job, and a process that ignores Ctrl-C is killed, never left running.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from tests.support.site_helpers import visible_text, with_h100_bandwidth
from tools.bench import copy_project, fetch_text as _get, start_serve, stop_serve, stoppable
from tools.server import free_port
from tests.conftest import ROOT



def _wait_for(check, what: str, timeout_s: float):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.2)
    pytest.fail(f"mkdocs serve --dirty: {what} within {timeout_s:.0f} s", pytrace=False)


@pytest.fixture(scope="module")
def serve_session(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dirty-serve")
    project = copy_project(tmp / "project")
    spec = tmp / "hardware.toml"
    spec.write_text((ROOT / "src" / "roofline" / "data" / "hardware.toml").read_text(encoding="utf-8"),
                    encoding="utf-8")
    port = free_port()
    log = (tmp / "serve.log").open("w")
    proc = start_serve(project, port, env={"ROOFLINE_HARDWARE": str(spec)}, output=log)
    base = f"http://127.0.0.1:{port}/"
    try:
        _wait_for(lambda: proc.poll() is not None or _get(base), "the first build did not come up", 300)
        assert proc.poll() is None, (tmp / "serve.log").read_text()[-3000:]
        yield {"base": base, "project": project, "spec": spec, "log": tmp / "serve.log"}
    finally:
        stop_serve(proc)
        log.close()


def _unmentioning_entry(base: str):
    """A glossary entry whose "Mentioned in" does not list the ridge-point page yet, with a name to write."""
    from roofline_site.glossary.entries import load_glossary

    for entry in load_glossary().entries:
        page = _get(f"{base}glossary/{entry.slug}/")
        if page and "ridge-point/" not in page.split('data-gl-mentioned', 1)[-1]:
            return entry
    pytest.skip("every glossary entry already lists the ridge-point page")


def test_a_page_edit_shows_and_updates_the_mentioned_in_list(serve_session):
    base, page = serve_session["base"], serve_session["project"] / "docs" / "ridge-point.md"
    entry = _unmentioning_entry(base)
    marker = f"Dirty serve marker {time.time_ns()}"
    page.write_text(page.read_text(encoding="utf-8") + f"\n\n{marker}: {entry.names[0]}.\n", encoding="utf-8")
    _wait_for(lambda: marker in _get(f"{base}ridge-point/"), "the edit to ridge-point.md did not show", 60)
    listed = _get(f"{base}glossary/{entry.slug}/").split('data-gl-mentioned', 1)[-1]
    assert "ridge-point/" in listed, f"glossary/{entry.slug}/ does not list the page that now mentions it"


def test_search_index_still_covers_every_page(serve_session):
    docs = json.loads(_get(serve_session["base"] + "search/search_index.json"))["docs"]
    pages = {d["location"].split("#", 1)[0] for d in docs}
    # every docs page and every glossary entry (by the Markdown sources of the copy)
    expected = {"" if p.name == "index.md" and p.parent.name == "docs" else p.relative_to(
        serve_session["project"] / "docs").with_suffix("").as_posix() + "/"
                for p in (serve_session["project"] / "docs").glob("*.md")}
    assert expected <= pages, f"pages missing from the search index: {sorted(expected - pages)}"
    assert sum(p.startswith("glossary/") for p in pages) >= 30


def test_a_registry_edit_renders_every_page_again(serve_session):
    spec, base = serve_session["spec"], serve_session["base"]
    spec.write_text(with_h100_bandwidth(spec.read_text(encoding="utf-8"), "4.0"), encoding="utf-8")
    # 989.4 TFLOP/s ÷ 4.0 TB/s = 247.35 FLOP/byte (was 295.3). A registry edit re-renders every
    # figure and page (two minutes when the other test worker is building too): a bound, not a timing.
    home = _wait_for(lambda: (t := visible_text(_get(base))) and "247 FLOP/byte" in t and t,
                     "the home page did not follow the registry edit", 300)
    assert "295 FLOP/byte" not in home, "a stale H100 ridge survived the registry edit"
    log = serve_session["log"].read_text(encoding="utf-8")
    assert "Traceback" not in log and "ERROR" not in log, log[-3000:]


# ---- stopping it ----
# Prints whether Python made Ctrl-C a KeyboardInterrupt in this process (it does not when the process
# started with SIGINT ignored), then waits to be stopped.
REPORT_AND_WAIT = ("import signal, time; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler, flush=True);"
                   " time.sleep(60)")


def test_ctrl_c_stops_a_child_started_from_a_background_job():
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a shell starts `make bench &`
    try:
        proc = stoppable([sys.executable, "-c", REPORT_AND_WAIT], output=subprocess.PIPE)
    finally:
        signal.signal(signal.SIGINT, before)
    try:
        assert proc.stdout.readline().strip() == b"True"
        start = time.monotonic()
        stop_serve(proc, timeout_s=20)
        assert proc.returncode not in (None, -signal.SIGKILL), "Ctrl-C did not stop it: it was killed"
        assert time.monotonic() - start < 20
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()


def test_a_child_that_ignores_ctrl_c_is_killed_with_its_group():
    ignoring = "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"
    proc = stoppable([sys.executable, "-c", ignoring], output=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == b"ready"
        stop_serve(proc, timeout_s=0.5)
        assert proc.returncode == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()


def test_stopping_a_child_that_has_ended_is_no_error():
    proc = stoppable([sys.executable, "-c", "pass"])
    proc.wait()
    stop_serve(proc)
    assert proc.returncode == 0
