"""How `make bench` and the serve test start and stop `mkdocs serve` (tools/bench.py): Ctrl-C reaches it
even from a shell's background job, and a process that ignores Ctrl-C is killed, never left running."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from tools.bench import stop_serve, stoppable

# Prints whether Python made Ctrl-C a KeyboardInterrupt in this process (it does not when the process
# started with SIGINT ignored), then waits to be stopped.
REPORT_AND_WAIT = ("import signal, sys, time; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler, flush=True);"
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
