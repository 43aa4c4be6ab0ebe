"""Every `mkdocs build` (plain, or through `make site`) fails without losing site/: the one build-and-swap.

MkDocs empties site/ before it renders anything, runs executed blocks in its own process, and an
error in the registry would surface as a traceback from deep in the first page that quotes it.
So, for `mkdocs build` (not serve, not --dirty), this hook, first of all hooks:

* loads the spec files, and a broken one stops the build with its own one-line message (file,
  entry, field) before site/ is touched;
* forks: the child builds into a sibling folder (`.site.building-<pid>`) in a process group of
  its own, with a time limit per executed block (ROOFLINE_BLOCK_TIMEOUT_S, default 60 s) and
  `sys.exit` in a block turned into a build error naming the page line; the parent waits (at most
  ROOFLINE_BUILD_TIMEOUT_S, default 540 s), then kills whatever the child's group left running;
  a parent killed outright (SIGKILL) takes the child's group with it (`die_with_parent`), and the
  next build removes scratch whose pid is no longer running (`remove_stale_scratch`);
* gives the child a temporary folder of its own (TMPDIR), removed when it ends however it ends: a
  child that exits at once (the first warning under --strict, `os._exit` in a block) runs no
  clean-up, and left a folder in /tmp for every failed build (mkdocs-gen-files' among them);
* swaps the folder into place only if the child says it finished (its last hook ran and, under
  --strict, nothing was logged as a warning). A child that exited part-way (`os._exit` in a
  block), was killed, or overran its time gives one ERROR line naming the page it was rendering,
  exit status 1, and site/ exactly as it was.

`make site` (roofline_site.build) runs `mkdocs build --strict` and reports the first problem in
one line; the swap is this hook's alone. Without `os.fork` (Windows) the build runs in-process
with the same temporary folder and swap, less the process-level guards.
"""

from __future__ import annotations

import atexit
import gc
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.utils import CountHandler

BLOCK_TIMEOUT_ENV, BUILD_TIMEOUT_ENV = "ROOFLINE_BLOCK_TIMEOUT_S", "ROOFLINE_BUILD_TIMEOUT_S"
DEFAULT_BLOCK_TIMEOUT_S, DEFAULT_BUILD_TIMEOUT_S = 60.0, 540.0
MAX_PAGE_BYTES = 16 << 20  # a page's Markdown; the largest is about 100 KB
COMPLETE = "complete"  # the child's last word in its status file when the build may be swapped in
log = logging.getLogger("mkdocs.plugins.roofline.build_hook")

_state: dict = {"command": None, "dirty": False, "real": None, "tmp": None, "warnings": None,
                "status": None, "child": False, "page": "a page", "exit_code": None}


def check_registry() -> None:
    """Load every spec file; a broken one raises PluginError with the loader's one sentence."""
    from roofline.errors import SpecError
    from roofline.registry.ep_communication import balancer_examples, ep_measurements
    from roofline.registry.hardware import devices
    from roofline.registry.measurements import published
    from roofline.registry.models import models
    from roofline.registry.prices import prices

    # Every spec file, the prices and the EP measurements too: a page that quotes one would otherwise
    # fail half-way through the build, naming the page and its binding before the file.
    try:
        devices(), models(), published(), prices(), ep_measurements(), balancer_examples()
    except SpecError as err:
        raise PluginError(f"spec error: {err}") from None
    except RecursionError:
        raise PluginError("spec error: a spec file nests too deeply to read") from None


def check_pages(docs_dir: Path) -> None:
    """Every page's front matter, before the figures and the generated pages are made: a page that holds
    what no page may (a bidi override, a title of two lines) stops the build at once. The generated pages
    are checked as they are read (on_page_read_source), with the same reader."""
    from roofline.readfile import UnreadableFile, read_capped
    from roofline_site.front_matter import page_problem

    for page in sorted(docs_dir.rglob("*.md")):
        rel = page.relative_to(docs_dir).as_posix()
        try:
            problem = page_problem(read_capped(page, MAX_PAGE_BYTES, "page").decode("utf-8"))
        except UnreadableFile as err:
            problem = str(err)
        except UnicodeDecodeError:
            problem = "is not UTF-8 text; save the page as UTF-8"
        if problem is not None:
            raise PluginError(f"{rel}: {problem}")


def _seconds(env: str, default: float) -> float:
    try:
        value = float(os.environ.get(env, default))
    except ValueError:
        raise PluginError(f"{env} must be a number of seconds, got {os.environ[env]!r}") from None
    if not 0 < value < 1e6:
        raise PluginError(f"{env} must be between 0 and 1e6 seconds, got {value:g}")
    return value


def swap_in(built: Path, site_dir: Path) -> None:
    """Replace `site_dir` with the finished build in `built`; if the second rename fails, put it back."""
    old = site_dir.with_name(f".{site_dir.name}.old-{os.getpid()}")
    shutil.rmtree(old, ignore_errors=True)
    had = site_dir.exists()
    if had:
        site_dir.rename(old)
    try:
        built.rename(site_dir)
    except OSError:
        if had:
            old.rename(site_dir)
        raise
    shutil.rmtree(old, ignore_errors=True)


# ---------------------------------------------------------------- executed blocks (in the child)
class BlockTimeoutError(Exception):
    """An executed block ran past its time limit."""


class BlockExit(Exception):
    """An executed block called sys.exit (or raised SystemExit)."""


# MkDocs loads hooks under their file path; tracebacks (and the one-line report) name the module.
BlockTimeoutError.__module__ = BlockExit.__module__ = "roofline_site.hooks.build_hook"


def guard_executed_blocks(limit_s: float) -> None:
    """Bound every markdown-exec Python block in time, and turn its sys.exit into an error.

    markdown-exec runs blocks in the build's own process and catches only Exception, so a
    SystemExit would end MkDocs part-way with status 0. The alarm re-fires every second after
    the limit, so a block that swallows the first one still stops.
    """
    from markdown_exec._internal.formatters import python as mx

    original = getattr(mx.exec_python, "__wrapped__", mx.exec_python)

    def guarded(code, filename, exec_globals):
        if threading.current_thread() is not threading.main_thread():
            return original(code, filename, exec_globals)

        def alarm(signum, frame):
            raise BlockTimeoutError(f"{_state['page']}: an executed block ran longer than {limit_s:g} s "
                                    f"({BLOCK_TIMEOUT_ENV})")

        previous = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, limit_s, 1.0)
        try:
            return original(code, filename, exec_globals)
        except SystemExit as exc:
            raise BlockExit(f"{_state['page']}: an executed block called sys.exit({exc.code!r}); "
                            "a page cannot end the build") from exc
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    guarded.__wrapped__ = original
    mx.exec_python = guarded


def _note(text: str) -> None:
    """One line to the parent: the page being rendered, or that the build finished."""
    if _state["status"] is not None:
        try:
            with open(_state["status"], "a", encoding="utf-8") as f:
                f.write(text + "\n")
        except OSError:  # the parent then reports a build that did not say it finished
            pass


# ---------------------------------------------------------------- a child that outlives nothing
PARENT_POLL_S = 0.2


def die_with_parent(parent_pid: int) -> threading.Thread:
    """End this process's whole group as soon as `parent_pid` is gone (a SIGKILL to `mkdocs build`).

    The parent kills the group when it ends normally; a parent killed outright cannot, and the
    child would build to the end as an orphan with its scratch folder in the checkout. A daemon
    thread polls the parent's pid (portable; PR_SET_PDEATHSIG would kill the child alone and leave
    what its executed blocks started).
    """
    def watch():
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_S)
        _kill_group(os.getpgid(0))
        os._exit(1)  # if the group could not be signalled, at least this process ends

    thread = threading.Thread(target=watch, name="die-with-parent", daemon=True)
    # It takes no lock (getppid and sleep), so a fork while it runs copies none held: the figure
    # workers may be forked beside it (roofline_site.gen.figures' `_fork_safe`).
    thread.fork_safe = True
    thread.start()
    return thread


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def remove_stale_scratch(real: Path) -> list[Path]:
    """Remove the scratch a killed build left beside `real` (`.site.building-<pid>`, its `.status`,
    `.site.old-<pid>`) whose pid is no longer running; a running build's scratch is left alone."""
    removed = []
    for p in real.parent.glob(f".{real.name}.*-*"):
        kind, _, rest = p.name.removeprefix(f".{real.name}.").partition("-")
        pid = rest.removesuffix(".status")
        if kind not in ("building", "old") or not pid.isdigit() or _alive(int(pid)):
            continue
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
        removed.append(p)
    return removed


# ---------------------------------------------------------------- the parent: wait, swap, report
def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _await_group_end(pgid: int, timeout_s: float = 2.0) -> None:
    """Return once no process of group `pgid` is still running (a killed one may linger a moment before
    the signal lands; a zombie has ended), or after `timeout_s`. The build exits without tearing down,
    so nothing else gives the kill that moment. Where /proc cannot be read, return at once."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and _group_running(pgid):
        time.sleep(0.01)


def _group_running(pgid: int) -> bool:
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return False
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # (the name in parentheses may hold spaces)
        if fields[0] != "Z" and fields[2] == str(pgid):
            return True
    return False


def _wait(pid: int, timeout_s: float) -> int | None:
    """The child's exit status (negative: killed by that signal), or None if it overran."""
    deadline = time.monotonic() + timeout_s
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)


def _last_page(status: Path) -> str:
    try:
        lines = status.read_text(encoding="utf-8").splitlines()
    except OSError:
        return ""
    pages = [l.removeprefix("page ") for l in lines if l.startswith("page ")]
    return pages[-1] if pages else ""


def supervise(pid: int, real: Path, tmp: Path, status: Path, timeout_s: float, child_temp: Path | None = None) -> int:
    """Wait for the building child, kill what its group left, swap on success; the exit status.
    `child_temp`, the child's temporary folder, is removed whatever happened."""
    problem = ""
    try:
        code = _wait(pid, timeout_s)
    except KeyboardInterrupt:
        _kill_group(pid)
        os.waitpid(pid, 0)
        code, problem = 130, "the build was interrupted"
    _kill_group(pid)  # processes an executed block started, and the child itself if it overran
    _await_group_end(pid)
    if code is None:
        os.waitpid(pid, 0)
    lines = status.read_text(encoding="utf-8").splitlines() if status.exists() else []
    page = _last_page(status)
    where = f" while rendering {page}" if page else ""
    try:
        if code == 0 and COMPLETE in lines:
            swap_in(tmp, real)
            return 0
        if code is None:
            problem = f"the build ran longer than {timeout_s:g} s ({BUILD_TIMEOUT_ENV}){where} and was stopped"
        elif not problem and "reported" not in lines:
            problem = (f"the build stopped before it finished{where} (exit status {code}; does an executed "
                       "block call os._exit or end the process?)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        status.unlink(missing_ok=True)
        if child_temp is not None:
            shutil.rmtree(child_temp, ignore_errors=True)
    if problem:
        log.error(f"{problem}; {real.name}/ left as it was")
    return code if code else 1


# ---------------------------------------------------------------- hooks
#: The collector's first threshold in a build (Python's default is 700). A build allocates many short-lived
#: objects (Markdown trees, parsed pages, matplotlib's artists): with an H100 edit, the building process and
#: each figure worker ran about 450 young and 3 full collections, 1.07 s of CPU over the processes; set
#: here, about 140 young and 1 full, most of them during MkDocs' imports before it, 0.77 s (process time,
#: two builds each). Forked workers inherit it.
GC_THRESHOLD = 10_000


def on_startup(command, dirty, **kwargs):
    _state.update(command=command, dirty=dirty)
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    end_cleanly_on(signal.SIGTERM, signal.SIGHUP)
    if command == "build":
        atexit.register(_end_without_teardown)  # early, so it runs after every exit handler registered later


def _end_without_teardown() -> None:
    """At exit, once the outcome is settled (`_state["exit_code"]`, (pid, status): the parent's status, or
    the child's 0 after a complete build), end that process without tearing the interpreter down.

    Freeing a build's objects one by one (the page store, every page, the figures) took the child
    about 0.6 s and the parent 0.3 s after the site was complete: the last second of every build. The
    exit handlers registered after this one (the Markdown copies' worker, the page store's writer)
    have run; output is flushed here.
    """
    settled = _state.get("exit_code")
    if settled is None or settled[0] != os.getpid():  # (a forked child inherits its parent's state)
        return
    code = settled[1]
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _interrupt(signum, frame):
    raise KeyboardInterrupt(signal.Signals(signum).name)


def end_cleanly_on(*signals) -> None:
    """Let SIGTERM and SIGHUP end MkDocs as Ctrl-C does, not at once.

    Their default action ends the process where it stands: no `finally`, no atexit, so the worker
    pools' forkserver, resource tracker and workers were left running under pid 1 after every
    `kill` of `make serve`. As a KeyboardInterrupt, MkDocs shuts its server down and the pools
    are closed on the way out. A handler someone else set is left alone.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in signals:
        if signal.getsignal(sig) in (signal.SIG_DFL, None):
            signal.signal(sig, _interrupt)


@event_priority(100)  # first: before any other hook reads the registry or the site folder
def on_config(config, **kwargs):
    if _state["command"] != "build":
        return config
    check_registry()
    check_pages(Path(config["docs_dir"]))
    if _state["dirty"]:
        return config  # a dirty build adds to site/ in place by design
    real = Path(config["site_dir"])
    real.parent.mkdir(parents=True, exist_ok=True)
    stale = remove_stale_scratch(real)  # what a build killed outright left behind
    if stale:
        log.info(f"removed {len(stale)} scratch file(s) a killed build left beside {real.name}/")
    tmp = real.with_name(f".{real.name}.building-{os.getpid()}")
    status = real.with_name(f".{real.name}.building-{os.getpid()}.status")
    shutil.rmtree(tmp, ignore_errors=True)
    status.unlink(missing_ok=True)
    block_limit, build_limit = _seconds(BLOCK_TIMEOUT_ENV, DEFAULT_BLOCK_TIMEOUT_S), _seconds(
        BUILD_TIMEOUT_ENV, DEFAULT_BUILD_TIMEOUT_S)
    if hasattr(os, "fork"):
        sys.stdout.flush(), sys.stderr.flush()
        parent = os.getpid()
        child_temp = Path(tempfile.mkdtemp(prefix="roofline-build-"))
        pid = os.fork()
        if pid:
            code = supervise(pid, real, tmp, status, build_limit, child_temp)
            _state["exit_code"] = (os.getpid(), code)
            raise SystemExit(code)
        tempfile.tempdir = os.environ["TMPDIR"] = str(child_temp)  # what the child leaves, the parent removes
        os.setpgid(0, 0)  # the child leads a group: the parent kills it, and all it started, at the end
        die_with_parent(parent)  # ... and if the parent is killed outright, the group ends itself
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        _state.update(child=True, status=status)
        guard_executed_blocks(block_limit)
    _state.update(real=real, tmp=tmp)
    config["site_dir"] = str(tmp)
    if config["strict"]:
        # MkDocs' own counter, as --strict uses it: a build that will abort is not swapped in.
        _state["warnings"] = CountHandler(level=logging.WARNING)
        logging.getLogger("mkdocs").addHandler(_state["warnings"])
        if _state["child"]:
            logging.getLogger("mkdocs").addHandler(StopAtFirstWarning(real.name))
    return config


class StopAtFirstWarning(logging.Handler):
    """In the building child under --strict: the first warning ends the build at once.

    Strict MkDocs would render every other page before aborting on it, so a broken block or link
    cost a whole build to report. Added after MkDocs' console handler, so the warning (and any
    traceback in it) is printed first; the parent then keeps site/ and exits 1, as for the abort.
    An error is left to MkDocs: it raises at once, and its cause is logged after the first line.
    """

    def __init__(self, site_name: str):
        super().__init__(level=logging.WARNING)
        self.site_name = site_name

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno != logging.WARNING:
            return
        sys.stdout.flush()
        print(f"Aborted: --strict stops at the first warning above; {self.site_name}/ left as it was.",
              file=sys.stderr, flush=True)
        _note("reported")
        os._exit(1)


@event_priority(100)
def on_page_read_source(page, config, **kwargs):
    """The page's source, its front matter checked first: MkDocs parses it next with a loader of its own,
    which raises a bare ValueError at a number of thousands of digits and publishes `title: [7, 8]`."""
    from roofline_site.front_matter import page_problem

    _state["page"] = page.file.src_uri
    source = page.file.content_string
    if (problem := page_problem(source)) is not None:
        raise PluginError(f"{page.file.src_uri}: {problem}")
    return source


@event_priority(100)
def on_page_markdown(markdown, page, **kwargs):
    _state["page"] = page.file.src_uri
    if _state["child"]:
        _note(f"page {page.file.src_uri}")
    return markdown


def _discard() -> None:
    if _state["tmp"] is not None and not _state["child"]:
        shutil.rmtree(_state["tmp"], ignore_errors=True)
    if _state["warnings"] is not None:
        logging.getLogger("mkdocs").removeHandler(_state["warnings"])
    _state.update(real=None, tmp=None, warnings=None)


@event_priority(-1000)  # last: every other hook has written its files into the folder
def on_env(env, config, files, **kwargs):
    # Compiled templates kept between builds (roofline_site.derived.template_cache).
    from roofline_site import derived

    if env.bytecode_cache is None:
        env.bytecode_cache = derived.template_cache(env)
    # For a script written into every page (overrides/partials/palette.html): sent without its comments.
    from roofline_site.html.slim import minify_js

    env.filters["minify_js"] = minify_js
    return env


@event_priority(-1000)  # last: every other hook has written its files into the folder
def on_post_build(config, **kwargs):
    real, tmp, counter = _state["real"], _state["tmp"], _state["warnings"]
    if real is None:
        return
    if counter is not None and counter.get_counts():
        _note("reported")  # MkDocs aborts next ("in strict mode"), having logged why
        _discard()
        return
    if _state["child"]:
        _note(COMPLETE)  # the parent swaps the folder in
        _state["exit_code"] = (os.getpid(), 0)  # nothing can fail now: the child ends without tearing down
    else:
        swap_in(tmp, real)
        config["site_dir"] = str(real)
        _state["tmp"] = None
    _discard()


def on_build_error(error, **kwargs):
    _note("reported")  # MkDocs logs the error itself
    _discard()
