"""The session's built site: one strict build per test run, shared by every pytest-xdist worker.

Whoever comes first builds it into the run's shared temporary folder under a file lock: the
controller, in a background thread as the run starts (so workers run the unit tests, collected
first, while it builds), or else the first worker that asks for the `site_dir` fixture. The others
wait on the lock and read the same tree, or the same failure.
"""

from __future__ import annotations

import threading
from pathlib import Path

from tests.conftest import ROOT

SITE_TESTS = ROOT / "tests" / "site"


def paths(shared: Path) -> tuple[Path, Path, Path]:
    """(the site, its failure report, the lock) in the run's shared folder."""
    return shared / "session-site", shared / "session-site.failed", shared / "session-site.lock"


def build_once(shared: Path) -> tuple[Path, Path]:
    """(site, failure report): build the site unless it, or its failure, is already there."""
    from filelock import FileLock

    from tests.support.browser import build_site

    dest, failed, lock = paths(shared)
    with FileLock(str(lock)):
        if not dest.exists() and not failed.exists():
            proc = build_site(dest)
            if proc.returncode != 0:
                failed.write_text(proc.stderr[-4000:])
    return dest, failed


def wants_site(args: list[str], rootdir: Path) -> bool:
    """Whether a run over these command-line paths collects tests/site (no paths: testpaths, which does).

    >>> wants_site([], ROOT), wants_site(["tests/unit", "src"], ROOT), wants_site(["tests"], ROOT)
    (True, False, True)
    >>> wants_site(["tests/site/test_build.py::test_x"], ROOT), wants_site(["src"], ROOT)
    (True, False)
    """
    named = [a.split("::")[0] for a in args]  # pytest has parsed the options out of config.args
    if not named:
        return True
    for arg in named:
        path = (rootdir / arg).resolve()
        if path == SITE_TESTS or SITE_TESTS in path.parents or path in SITE_TESTS.parents:
            return True
    return False


def start_in_background(shared: Path) -> threading.Thread:
    """Build the session's site in a daemon thread of this process (the xdist controller)."""
    thread = threading.Thread(target=build_once, args=(shared,), name="session-site", daemon=True)
    thread.start()
    return thread
