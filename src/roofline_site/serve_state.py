"""What a `mkdocs serve --dirty` session (`make serve`) keeps from one build to the next.

A dirty build renders only the pages whose Markdown changed since the last build. Two things
keep that correct here:

- `begin_build` fingerprints everything a page computes from besides its own Markdown (the
  package and its registry, the glossary, figure code, measurements, mkdocs.yml). When that
  changed, `force_full` makes every page render again, so a spec edit still reaches every number.
- `PageResults` holds the per-page pieces of site-wide outputs (glossary "Mentioned in" lists,
  numbers.json, llms.txt). Each build replaces the pages it rendered and drops pages that no
  longer exist, so those outputs cover the whole site after a dirty build too.

Hook files are executed afresh on every build of a serve session; this module is imported the
usual way, so its state lasts the session. `mkdocs build` runs once and starts empty.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

from roofline_site.paths import ROOT
# Inputs shared by many pages; docs/ is MkDocs' own business (it rebuilds the pages that changed).
SHARED_INPUTS = ("src", "glossary", "figures_gen", "measurements", "mkdocs.yml")

_session = {"command": None, "dirty": False, "fingerprint": None, "changed": True, "builds": 0}


class _DirtyNotice(logging.Filter):
    """MkDocs warns on every dirty build that other pages may go stale; with `force_full` and
    `PageResults` they do not here, and under `strict: true` that warning would stop the preview.
    It is kept, as information."""

    def filter(self, record):
        if record.levelno == logging.WARNING and "'dirty' build" in record.getMessage():
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def on_startup(command: str, dirty: bool) -> None:
    _session["command"] = command
    _session["dirty"] = bool(dirty) and command == "serve"
    build_log = logging.getLogger("mkdocs.commands.build")
    if _session["dirty"] and not any(isinstance(f, _DirtyNotice) for f in build_log.filters):
        build_log.addFilter(_DirtyNotice())


def command() -> str | None:
    """The MkDocs command this process runs ("build", "serve", "gh-deploy"), once MkDocs has started."""
    return _session["command"]


def registry_paths() -> list[Path]:
    """The spec files and measurement folder in use, which environment variables may move out of the tree."""
    from roofline.registry import hardware, measurements, models
    from roofline.registry.machine import measurements_dir

    return [hardware.REGISTRY.path(), models.REGISTRY.path(), measurements.REGISTRY.path(), measurements_dir()]


def fingerprint(paths) -> str:
    """A digest of the path, size and modification time of every file at or under `paths`."""
    h = hashlib.sha1()
    for base in paths:
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file()
                                                      and "__pycache__" not in p.parts)
        for p in files:
            st = p.stat()
            h.update(f"{p}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def begin_build(root: Path = ROOT) -> bool:
    """Start a build of the project at `root`; True when its shared inputs changed since the last
    build (always, the first time)."""
    now = fingerprint([root / part for part in SHARED_INPUTS] + registry_paths())
    _session["changed"] = now != _session["fingerprint"]
    _session["fingerprint"] = now
    _session["builds"] += 1
    return _session["changed"]


def modules_may_be_stale() -> bool:
    """Whether the package's modules (roofline, figures_gen) may predate this build's files: its shared
    inputs changed since an earlier build of this process. A process's first build imported them from
    the files as they are (`mkdocs build`'s registry check, moments before): dropping and importing them
    again, and reading the registry again, cost every build about 0.2 s of CPU before any page."""
    return _session["changed"] and _session["builds"] > 1


def force_full(doc_files) -> None:
    """In a dirty session whose shared inputs changed, make MkDocs render every page again.

    MkDocs renders a page in a dirty build when its built file is missing or older than its source.
    """
    if not (_session["dirty"] and _session["changed"]):
        return
    for f in doc_files:
        try:
            os.remove(f.abs_dest_path)
        except FileNotFoundError:
            pass


_rendered: dict[str, tuple] = {}  # generated page src_uri -> (text digest, key) of its last render
_settling: dict[str, tuple] = {}  # rendered in this build: src_uri -> (text digest, key function)


def render_when_changed(file, key=lambda: None) -> None:
    """In a dirty session, let MkDocs skip a generated page whose text and `key()` match its last render.

    Generators write every page afresh, so by timestamp each looks edited on every build.
    `key` names what else the page shows (an entry's "Mentioned in" list); it is read when MkDocs
    reaches the page, so it may only depend on pages MkDocs renders before this one.
    """
    if not _session["dirty"] or file.abs_src_path is None:
        return
    decided: list[bool] = []  # MkDocs asks twice (read, then write): answer the same both times

    def is_modified() -> bool:
        if not decided:
            state = (hashlib.sha1(Path(file.abs_src_path).read_bytes()).hexdigest(), key())
            render = (_session["changed"] or not os.path.isfile(file.abs_dest_path)
                      or _rendered.get(file.src_uri) != state)
            if render:
                _rendered[file.src_uri] = state
                _settling[file.src_uri] = (state[0], key)
            decided.append(render)
        return decided[0]

    file.is_modified = is_modified


def settle_rendered() -> None:
    """At the end of a build: record each page rendered in it under its key as the build left it.

    A key read while MkDocs reached the page saw only the pages before it; the page itself was
    written later, from everything (an entry's "Mentioned in" list names entries after it too). So
    the first edit of a session no longer renders every entry again for a list that did not change.
    """
    for uri, (digest, key) in _settling.items():
        _rendered[uri] = (digest, key())
    _settling.clear()


def on_build_error() -> None:
    """A failed build may have skipped pages it meant to render: render every generated page next time."""
    _rendered.clear()
    _settling.clear()
    _session["fingerprint"] = None


# ---------------------------------------------------------------- a failed rebuild under serve
log = logging.getLogger("mkdocs.plugins.roofline.serve")
_failure: dict[str, str] = {"error": ""}


def _one_line(err: BaseException) -> str:
    """The build's error as one line: the PluginError's own sentence where MkDocs wrapped it in Abort."""
    cause = err.__cause__ if err.__cause__ is not None and "Aborted" in str(err) else err
    return " ".join(str(cause).split())[:500] or type(cause).__name__


def guard_server(server) -> None:
    """Keep `mkdocs serve` answering after a rebuild fails (a negative bandwidth saved in hardware.toml).

    MkDocs' own server never marks a failed rebuild's epoch visible, so every request waits for a
    build that never comes. Here the builder catches the failure, says so in one line, and returns:
    the server goes on serving the last good site, and every HTML page it serves carries the error in
    a banner at its top until a rebuild succeeds (the browsers reload then, as after any rebuild).
    """
    if getattr(server, "_roofline_guarded", False):
        return
    build, inject = server.builder, server._inject_js_into_html

    def builder(*args, **kwargs):
        try:
            build(*args, **kwargs)
        except (Exception, SystemExit) as err:  # noqa: BLE001 — any failed rebuild: report, keep serving
            _failure["error"] = _one_line(err)
            log.error("the rebuild failed: serving the last good site, the error shown at the top of every page, "
                      "until a rebuild succeeds")
            return
        _failure["error"] = ""

    def with_banner(content: bytes, epoch) -> bytes:
        content = inject(content, epoch)
        return error_banner_into(content, _failure["error"])

    server.builder, server._inject_js_into_html = builder, with_banner
    server._roofline_guarded = True


#: How often `make serve` looks at the disk for an edit. MkDocs' server polls every 0.5 s, a quarter
#: of a second on average before a rebuild even starts, when the rebuild of one page takes about as
#: long (the target: edit to view at most 1 s). Polling the watched files 5 times as often costs about
#: 5 % of one core while `make serve` waits (measured on the 2-core machine).
POLL_INTERVAL_S = 0.1


def poll_faster(server, config, interval_s: float = POLL_INTERVAL_S) -> None:
    """Give `server` a polling observer of `interval_s`, carrying over what MkDocs watched before the
    `on_serve` event (the docs folder, mkdocs.yml, the theme's folders with --watch-theme).

    Only public parts of MkDocs' server are used: its `observer`, `watch` and `unwatch`.
    """
    import watchdog.observers.polling

    before = [config.docs_dir, config.config_file_path, *config.theme.dirs]
    watched = []
    for path in dict.fromkeys(p for p in before if p):
        try:
            server.unwatch(path)
        except KeyError:  # not watched (a theme folder without --watch-theme)
            continue
        watched.append(path)
    server.observer = watchdog.observers.polling.PollingObserver(timeout=interval_s)
    for path in watched:
        server.watch(path)


def error_banner_into(page: bytes, error: str) -> bytes:
    """`page` with the build error shown at the top of its body (escaped: the error may quote a spec file).

    >>> error_banner_into(b"<body><p>x</p></body>", "hardware.toml: <b>")[:60]
    b'<body><div role="alert" style="position:sticky;top:0;z-index'
    """
    if not error:
        return page
    import html

    from roofline_site.html.escape import plain

    banner = ('<div role="alert" style="position:sticky;top:0;z-index:1000;padding:.6em 1em;background:#b00020;'
              'color:#fff;font:14px/1.4 system-ui,sans-serif">The last rebuild failed; this is the last good site. '
              f'{html.escape(plain(error))}</div>').encode()
    start = page.find(b"<body")
    end = page.find(b">", start) if start != -1 else -1
    return page[:end + 1] + banner + page[end + 1:] if end != -1 else banner + page


class PageResults(dict):
    """{page src_uri: that page's result} for one site-wide output, kept across the builds of a session."""

    def keep_only(self, live_pages) -> None:
        """Drop pages that are gone from the site (deleted or renamed since an earlier build)."""
        live = set(live_pages)
        for page in [p for p in self if p not in live]:
            del self[page]


_stores: dict[str, PageResults] = {}


def page_results(name: str) -> PageResults:
    """The session's store for the output called `name` (created empty on first use)."""
    return _stores.setdefault(name, PageResults())
