"""`make site`: a strict `mkdocs build`, swapped into site/ only on success (by hooks/build_hook.py), reported in one line.

A failed build leaves the previous site/ untouched and ends with one line naming
the file and the problem.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from roofline.atomic import atomic_write_text
from roofline.format import one_line_error
from roofline_site.paths import ROOT

ERROR_LINE = re.compile(r"^(ERROR|WARNING)\s+-\s+(.*)$")


EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Warning|Exit)\b(: .*)?$")


def first_problem(log: str) -> str:
    """The most useful line of a failed mkdocs log: its first error or warning, else its last line.

    A warning followed by a traceback (a raising executed block) gets the exception line appended.
    """
    lines = [l.strip() for l in log.splitlines() if l.strip()]
    for i, line in enumerate(lines):
        m = ERROR_LINE.match(line)
        if m:
            nxt = ERROR_LINE.match(lines[i + 1]) if i + 1 < len(lines) else None
            if m.group(2).endswith(":") and nxt:  # "Error reading page 'x.md':" then the reason
                return f"{m.group(2)} {nxt.group(2)}"
            detail = []
            for follow in lines[i + 1:]:
                if ERROR_LINE.match(follow) or follow.startswith(("INFO", "DEBUG", "Aborted")):
                    break
                if EXCEPTION_LINE.match(follow):
                    detail = [follow]
            problem = m.group(2).rstrip(".:")
            return f"{problem}: {detail[0]}" if detail else m.group(2)
    for line in reversed(lines):
        if "Error" in line or "error" in line:
            return line
    # An INFO line ("Building documentation...") is progress, never the reason a build failed.
    said = [line for line in lines if not line.startswith(("INFO", "DEBUG"))]
    return said[-1] if said else "mkdocs stopped without saying why"


BLOCK_ERROR = re.compile(
    r"(?P<page>[\w./-]+\.md): markdown_exec: [^\n]*\n\s*\nCode block is:\n\n(?P<code>.*?)\n\nOutput is:"
    r".*?File \"<code block: [^>]*>\", line (?P<line>\d+)", re.S)


def block_error_location(log: str, root: Path) -> tuple[str, str] | None:
    """(page, page:line) of the line that raised in an executed block, found by its code in the page.

    markdown-exec reports the page and the line within the block; a reader wants the line in
    the Markdown file, so locate the block's code there.
    """
    m = BLOCK_ERROR.search(log)
    if not m:
        return None
    code = "\n".join(line[2:] for line in m.group("code").splitlines())
    try:
        text = (root / m.group("page")).read_text(encoding="utf-8")
    except OSError:
        return None
    at = text.find(code)
    if at == -1:
        return None
    line = text[:at].count("\n") + int(m.group("line"))
    return m.group("page"), f"{m.group('page')}:{line}"


class _Ended:
    """SIGTERM and SIGHUP as a KeyboardInterrupt while a build runs, remembering which came.

    Their default action ended this process alone and left `mkdocs build` (and its workers)
    running as orphans; Ctrl-C reaches the whole process group, these two only this process.
    """

    def __init__(self):
        self.signum: int | None = None

    @classmethod
    @contextlib.contextmanager
    def caught(cls):
        import signal

        ended = cls()

        def interrupt(signum, frame):
            ended.signum = signum
            raise KeyboardInterrupt

        wanted = (signal.SIGTERM, getattr(signal, "SIGHUP", None))
        previous = {s: signal.signal(s, interrupt) for s in wanted if s is not None
                    and threading.current_thread() is threading.main_thread()}
        try:
            yield ended
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)


def _save_log(path: Path, log: str) -> str:
    """Keep a failed build's whole log at `path`; the words that say where it is, or why it is not."""
    try:
        path.parent.mkdir(exist_ok=True)
        atomic_write_text(path, log)
    except OSError as err:  # a read-only or full .cache: the one-line reason still reaches the reader
        return f"full log not saved: {path.parent.name}/ cannot be written ({err.strerror or err})"
    return f"full log: {path.parent.name}/{path.name}"


_SIGNAL_EXITS = (128 + 9, 128 + 15)  # SIGKILL, SIGTERM as a shell reports a child they ended


def _signal_name(number: int) -> str:
    """'SIGKILL' for 9; the number where the platform has no name for it."""
    import signal

    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def build(site_dir: Path | None = None, extra_args: list[str] | None = None, root: Path = ROOT) -> int:
    """Build the project at `root` into `site_dir` (default root/site); 0 on success, 1 on failure.

    The build-and-swap itself is the build hook's (the first hook of every `mkdocs build`): this runs
    MkDocs strictly and turns its log into one line. The log goes to a file, not a pipe, so a
    process an executed block left behind can never hold this one open.
    """
    site_dir = (site_dir or root / "site").resolve()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "--site-dir", str(site_dir),
           *(extra_args or [])]
    print(f"building the site (mkdocs build --strict) into {site_dir.name}/ ...", flush=True)
    start = time.perf_counter()
    cache = root / ".cache"
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as out, _Ended.caught() as ended:
        try:
            proc = subprocess.Popen(cmd, cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT)
            code = proc.wait()
        except KeyboardInterrupt:
            if ended.signum is not None:  # SIGTERM or SIGHUP reached this process only: pass it on
                proc.send_signal(ended.signum)
            proc.wait()  # MkDocs' own supervisor (the build hook) stops the build and keeps site/
            print(f"build interrupted, {site_dir.name}/ left as it was", file=sys.stderr)
            return 130
        out.seek(0)
        log = out.read()
    if code != 0:
        saved = _save_log(cache / "last-build.log", log)
        if code < 0 or code in _SIGNAL_EXITS:  # ended by a signal (or a shell's 128 + N for one): no line
            # of its log says why, so none is quoted as the reason
            problem = f"the build was killed ({_signal_name(-code if code < 0 else code - 128)})"
        else:
            problem = first_problem(log)
            if (where := block_error_location(log, root)) and problem.startswith(where[0] + ":"):
                problem = where[1] + problem[len(where[0]):]  # the raising line in the page, not only the page
        print(f"build failed, {site_dir.name}/ left as it was: {one_line_error(problem)} ({saved})", file=sys.stderr)
        return 1
    print(f"built {site_dir.name}/ in {time.perf_counter() - start:.1f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m roofline_site.build", description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="project folder holding mkdocs.yml")
    parser.add_argument("--site-dir", type=Path, default=None, help="where the site goes (default ROOT/site)")
    args = parser.parse_args(argv)
    return build(args.site_dir, root=args.root.resolve())


if __name__ == "__main__":
    sys.exit(main())
