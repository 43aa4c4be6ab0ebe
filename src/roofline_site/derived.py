"""Values a build derives from the package and its registry alone, kept between builds.

A warm build spent about two seconds recomputing, unchanged, the ceilings of every published
serving run, every figure's alt text and caption, and the calculator's registry. They are pure
functions of the files `inputs()` names (the package, the figure modules, the spec files, the measurements), so they are stored in
.cache/derived/<key>.pickle, where the key hashes those files exactly as the figure cache does,
and a build whose files hash alike takes them from there. Any edit to those files (a spec edited
while `mkdocs serve` runs included) makes a new key, so nothing stale is read. A cache that
cannot be read or written is not an error: the values are computed. ROOFLINE_FIGURE_CACHE=0
(a cold build) bypasses it too.

Per page, the steps of a build (its tokens, its Markdown conversion, its content passes, its
glossary marking, its search entries, its Markdown copy) are kept apart, in .cache/pages/store.pickle,
each under a key that hashes everything it reads (`keyed`): the page's text as it reaches the step,
and derived's key where the step reads the package or registry (the tokens, an executed example).
They do not belong to one key's generation, so a spec change re-renders only the pages whose
numbers it changed: a glossary entry with no number takes every step from the store. Each value is
kept pickled on its own: a build unpickles only the values it finds under its keys (reading the
whole store as objects took half a second of every build), and writes the others back as they were.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import pickle
from importlib.metadata import version
from pathlib import Path

from roofline_site.paths import ROOT

CACHE = ROOT / ".cache" / "derived"
GENERATIONS_KEPT = 4


def inputs() -> dict[str, Path]:
    """{label: file} for every file whose content can change a figure or a derived value.

    Labels are places in the project, and roles for the spec files the registry reads (which
    may be an override outside the project), so a copy of the project gets the same key.
    """
    from roofline.registry import hardware, measurements, models
    from roofline.registry.machine import measurements_dir

    files = {p.relative_to(ROOT).as_posix(): p for p in
             [*ROOT.glob("figures_gen/*.py"), *ROOT.glob("src/roofline/**/*.py"), *ROOT.glob("src/roofline/data/*.toml")]}
    files |= {f"measurements/{p.name}": p for p in measurements_dir().glob("*.json")}
    return files | {"spec: hardware": hardware.REGISTRY.path(), "spec: models": models.REGISTRY.path(),
                    "spec: measurements": measurements.REGISTRY.path()}


def cache_key() -> str:
    """A hash of every file `inputs()` names, with matplotlib's version and the list of figures."""
    from figures_gen import FIGURES

    h = hashlib.sha256(f"matplotlib {version('matplotlib')}; figures {','.join(FIGURES)}".encode())
    for label, path in sorted(inputs().items()):
        h.update(label.encode())
        h.update(input_bytes(path))
    return h.hexdigest()[:16]


#: The largest input a key reads: a spec or measurement file past it is refused by its own reader.
MAX_INPUT_BYTES = 64 * 1024 * 1024


def input_bytes(path: Path) -> bytes:
    """What a key hashes for one input: its bytes, or why it cannot be read.

    Through the package's safe reader: a FIFO named zz.json in measurements/ would block a plain
    read for good, and /dev/zero would read until memory runs out. A file that cannot be read is
    hashed by its reason; the reader that loads it for the build then stops it with one line
    naming the file.
    """
    from roofline.readfile import UnreadableFile, read_capped

    try:
        return read_capped(path, MAX_INPUT_BYTES, "build input")
    except UnreadableFile as err:
        return f"<unreadable: {err}>".encode()


_build: dict = {"key": None, "loaded": {}, "values": {}, "changed": False}
_last: dict = {}  # {"key", "stored", "pages"}: what the last build of this process ended with
ENTRIES_PER_PAGE = 3  # the real registry's and a few edited ones' (the tests build both) do not evict each other
_pages: dict = {"entries": None, "changed": False}  # name -> {key: value}, most recent last


def _enabled() -> bool:
    return os.environ.get("ROOFLINE_FIGURE_CACHE", "1") != "0"


def cache_dir(kind: str) -> Path | None:
    """.cache/`kind`, where a build keeps what it may reuse; None on a cold build (ROOFLINE_FIGURE_CACHE=0)."""
    return ROOT / ".cache" / kind if _enabled() else None


def begin_build() -> None:
    """At the start of each build (after `mkdocs serve` reloaded the package): hand the stored
    ceilings for this build's key to the package, and the other values to `memo`."""
    _build.update(key=None, loaded={}, values={}, changed=False)
    _pages.update(entries=None, changed=False)
    if not _enabled():
        return
    key = _build["key"] = cache_key()
    _pages["entries"] = _load_pages()
    if _last.get("key") == key:  # `mkdocs serve` after a page edit: what the last build held
        stored = _last["stored"]
    else:
        try:
            stored = pickle.loads((CACHE / f"{key}.pickle").read_bytes())
        except Exception:  # noqa: BLE001 — none yet, or unreadable (truncated, another numpy): computed as usual
            return
    from roofline.model import serving_runs
    from roofline.registry import hardware, models

    # Stored by run alone: the key already covers the spec files' content, wherever they lie.
    registries = (hardware.REGISTRY.path(), models.REGISTRY.path())
    serving_runs.remember({(run, registries): c for run, c in stored.get("ceilings", {}).items()})
    _build["values"] = dict(stored.get("values", {}))
    _build["loaded"] = stored


def memo(name: tuple, compute):
    """`compute()`, a pure function of the files `inputs()` names, stored under `name` for this key.

    Outside a build (or on a cold one) it is simply computed.
    """
    values = _build["values"]
    if _build["key"] is None:
        return compute()
    if name not in values:
        values[name] = compute()
        _build["changed"] = True
    return values[name]


def _pages_file() -> Path:
    return CACHE.parent / "pages" / "store.pickle"


def _load_pages() -> dict:
    if "pages" in _last:  # `mkdocs serve`: the last build's, in memory
        return _last["pages"]
    try:
        entries = pickle.loads(_pages_file().read_bytes())
        return entries if isinstance(entries, dict) else {}
    except Exception:  # noqa: BLE001 — none yet, or unreadable: every step runs
        return {}


def build_key() -> str:
    """This build's key (see `cache_key`), for a `keyed` step that reads the package or registry; '' outside a build."""
    return _build["key"] or ""


def keyed(name: tuple, key: str, compute):
    """`compute()`, a pure function of what `key` hashes, stored under `name` (a step of one page).

    `key` must hash everything `compute` reads (with `build_key()` where it reads the package or the
    registry). A name keeps its ENTRIES_PER_PAGE most recent keys, so a page edited a hundred times
    under `mkdocs serve` keeps three entries, not a hundred. Outside a build (or on a cold one) it is
    computed.
    """
    found, value = lookup(name, key)
    if found:
        return value
    value = compute()
    remember(name, key, value)
    return value


_MISSING = object()


def lookup(name: tuple, key: str) -> tuple[bool, object]:
    """(True, value) if a value is stored under `name` with `key`, else (False, None).

    The value is unpickled here, afresh for each lookup: a caller may change what it gets."""
    entries = _pages["entries"]
    held = entries.get(name, {}).get(key, _MISSING) if entries is not None else _MISSING
    if type(held) is not bytes:  # (none, or a store written before values were kept pickled)
        return False, None
    try:
        return True, pickle.loads(held)
    except Exception:  # noqa: BLE001 — unreadable (another numpy, a class since renamed): computed again
        return False, None


def remember(name: tuple, key: str, value) -> None:
    """Store `value` under `name` with `key`, dropping the oldest key past ENTRIES_PER_PAGE; nothing outside a build.

    Pickled now, so what is stored is the value as it is now; one that cannot be pickled is not stored."""
    entries = _pages["entries"]
    if entries is None:
        return
    try:
        held = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return
    kept = {k: v for k, v in entries.get(name, {}).items() if k != key}
    kept[key] = held
    entries[name] = dict(list(kept.items())[-ENTRIES_PER_PAGE:])
    _pages["changed"] = True


def digest(*parts: str) -> str:
    """A short hash of `parts`, in order (a key for `keyed`)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()[:24]


_glue: dict[Path, str] = {}


def glue_key() -> str:
    """A hash of the site glue's code (src/roofline_site), the data its pages read (docs/_data) and the
    versions of the libraries a page goes through, taken once per process: the code a long `mkdocs
    serve` runs is the code it imported."""
    if ROOT not in _glue:
        files = sorted(f for f in [*ROOT.glob("src/roofline_site/**/*.py"), *ROOT.glob("docs/_data/*")] if f.is_file())
        # The libraries the steps run, too: an upgrade converts, marks and indexes pages anew.
        tools = ("mkdocs", "mkdocs-material", "markdown", "pymdown-extensions", "markdown-exec", "markdownify",
                 "beautifulsoup4", "jinja2")
        h = hashlib.sha256(repr([(t, version(t)) for t in tools]).encode())
        for f in files:
            h.update(f.relative_to(ROOT).as_posix().encode())
            h.update(input_bytes(f))
        _glue[ROOT] = h.hexdigest()[:16]
    return _glue[ROOT]


def figure_texts(name: str, mod) -> tuple[str, str]:
    """(alt text, caption) of figure module `mod` (figures_gen/`name`.py): in a build, those worked out
    beside its drawing (`pending_figures.texts`, from the figure cache or its render), else stored or computed."""
    from roofline_site import pending_figures

    return pending_figures.texts(name) or memo(("figure texts", name), lambda: (mod.alt(), mod.caption()))


def end_build() -> None:
    """After a build that succeeded: store what it derived when that adds to the stored values."""
    if not _enabled() or _build["key"] is None:
        return
    from roofline.model import serving_runs
    from roofline.registry import hardware, models

    registries = (hardware.REGISTRY.path(), models.REGISTRY.path())
    ceilings = {run: c for (run, where), c in serving_runs.computed_ceilings().items() if where == registries}
    now = {"ceilings": {**_build["loaded"].get("ceilings", {}), **ceilings},
           "values": {**_build["loaded"].get("values", {}), **_build["values"]}}
    later = "pages" in _last  # not this process's first build: `mkdocs serve` after an edit
    _last.update(key=_build["key"], stored=now)
    if _pages["entries"] is not None:
        _last["pages"] = _pages["entries"]
        if _pages["changed"] and later:
            _write_pages_at_exit()
        elif _pages["changed"]:
            write_pickle(_pages_file(), _pages["entries"])
    if not _build["changed"] and all(len(now[k]) == len(_build["loaded"].get(k, {})) for k in now):
        return
    if write_pickle(CACHE / f"{_build['key']}.pickle", now):
        generations = sorted((p for p in CACHE.glob("*.pickle")), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in generations[GENERATIONS_KEPT:]:
            old.unlink(missing_ok=True)


def _write_pages_at_exit() -> None:
    """Store the pages' steps when the process ends, not after each rebuild of a `mkdocs serve`:
    pickling the whole store (tens of MB) took a third of a second of every edit's wait for its page.
    Whatever the last build held is written then (a process killed outright loses it: recomputed)."""
    if _exit_write.get("target") is None:
        target = _exit_write["target"] = _pages_file()
        atexit.register(lambda: _last.get("pages") is not None and write_pickle(target, _last["pages"]))


_exit_write: dict = {"target": None}


def write_pickle(target: Path, value) -> bool:
    """Pickle `value` to `target`, whole or not at all; False when it could not be written (an
    optimisation: the next build computes it again; two builds at once: the last one's is kept)."""
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        tmp.replace(target)
        return True
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        return False
    finally:
        try:  # on a read-only .cache the unlink itself fails: it is no error either
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def template_cache(env) -> "object | None":
    """A Jinja bytecode cache for `env` in .cache/jinja (None on a cold build, or when it cannot be made).

    Every build (and every rebuild under `mkdocs serve`) compiled Material's templates afresh: about
    half a second. Jinja keys each compiled template by its name and a checksum of its source; the
    folder is named by what else shapes the compiled code (Jinja's version, the environment's syntax
    and extensions), so a change there never reads code compiled under other settings.
    """
    import jinja2

    folder = cache_dir("jinja")
    if folder is None:
        return None
    settings = repr((jinja2.__version__, sorted(env.extensions), env.autoescape, env.block_start_string,
                     env.block_end_string, env.variable_start_string, env.variable_end_string,
                     env.comment_start_string, env.comment_end_string, env.line_statement_prefix,
                     env.line_comment_prefix, env.trim_blocks, env.lstrip_blocks, env.newline_sequence,
                     env.keep_trailing_newline, env.optimized))
    folder = folder / hashlib.sha256(settings.encode()).hexdigest()[:16]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(folder))
