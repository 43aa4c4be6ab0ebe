"""Each figure kept under a key of what it read, so a spec change renders only the figures it changes.

A figure's files are a pure function of the code (the figure modules, the package, matplotlib) and
of the registry entries its module read while it rendered. The code is hashed whole (`code_key`);
the entries are recorded as the figure renders (`roofline.registry.loader.traced_reads`: one
device, one model, or a whole listing) and hashed by value. So an edit to the H100 renders again
the figures that read the H100, and none of those that read only other devices.

On disk, per figure, in .cache/figures/<figure>/:

* `reads.json`: the read sets its recent renders recorded, most recent first;
* `<key>/`: one render's files, where key = `figure_key(code, figure, reads, values of those reads)`,
  and `texts.json`, the figure's alt text and caption, read in the same trace (the pages quote them).

A build looks a figure up by computing, for each recorded read set, the key the entries have now;
a folder of that name holds files rendered from exactly those values (a figure reads what its code
and those values make it read, so the same values read the same way). Measurement files under
measurements/ are read outside the registries: they are in the code key, whole.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import sys
import time
from importlib.metadata import version
from pathlib import Path

from roofline_site.derived import input_bytes, write_pickle
from roofline_site.paths import ROOT

#: Renders kept per figure (the real registry's and a few edited ones' do not evict each other).
KEYS_KEPT = 4
#: Read sets remembered per figure (a figure reads the same entries for most values).
READ_SETS_KEPT = 4


def code_inputs(root: Path = ROOT) -> dict[str, Path]:
    """{label: file} for what every figure may depend on besides the registry entries it reads: the
    figure modules, the package's code, and the measurement files (read outside the registries)."""
    from roofline.registry.machine import measurements_dir

    files = {p.relative_to(root).as_posix(): p for p in [*root.glob("figures_gen/*.py"), *root.glob("src/roofline/**/*.py")]}
    return files | {f"measurements/{p.name}": p for p in measurements_dir().glob("*.json")}


def code_key(root: Path = ROOT) -> str:
    """A hash of matplotlib's version and every file `code_inputs` names (by its place in the project)."""
    h = hashlib.sha256(f"matplotlib {version('matplotlib')}".encode())
    for label, path in sorted(code_inputs(root).items()):
        h.update(label.encode() + b"\0")
        h.update(input_bytes(path) if path.exists() else b"<missing>")
        h.update(b"\0")
    return h.hexdigest()[:16]


def canonical(reads) -> list[list[str]]:
    """A read set as stored: sorted [kind, id] pairs, each once."""
    return [list(r) for r in sorted({tuple(r) for r in reads})]


def figure_key(code: str, name: str, reads, values: str) -> str:
    """The key of figure `name` rendered by code `code` after reading `reads`, whose values are `values`
    (`roofline.registry.loader.read_values`)."""
    text = json.dumps([code, name, canonical(reads), values], ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: The folder (in the figures' cache) where the strings' sizes and texts' layouts the figures measured
#: (figures_gen.measured_here) are kept between builds: one file of what earlier builds measured, and one
#: per process that rendered since (named by its pid), folded into it by the next build's `start_text_metrics`.
TEXT_METRICS = "text-metrics"
_METRICS_FILE = "measured.pickle"
#: The largest file of them read (a few hundred KB in practice).
_MAX_METRICS_BYTES = 64 * 1024 * 1024
_metrics: dict = {"folder": None, "key": None}


def _read_metrics(path: Path, key: str) -> dict:
    """The sizes and layouts in one kept file, {} where it holds another key's or cannot be read."""
    from roofline.readfile import read_capped

    try:
        found = pickle.loads(read_capped(path, _MAX_METRICS_BYTES, "cache file"))
    except Exception:  # noqa: BLE001 — unreadable, truncated, another matplotlib's classes: measured again
        return {}
    return found["measured"] if isinstance(found, dict) and found.get("key") == key else {}


def _merged(found: list[dict]) -> dict:
    out: dict = {"sizes": {}, "layouts": {}}
    for measured in found:
        for kind, entries in measured.items():
            if kind in out and isinstance(entries, dict):
                out[kind].update(entries)
    return out


#: Entries of either kind kept at most: past it, what earlier builds measured is dropped, the newest kept.
METRICS_KEPT = 20000


def start_text_metrics(cache: Path) -> None:
    """Hand the figures the sizes and layouts earlier builds measured under the same matplotlib and fonts
    (figures_gen.fonts_key), each process's file folded into one first; the figures rendered
    from now on, here or in a process forked from here, leave what they measure in `cache` (`leave_text_metrics`)."""
    import figures_gen

    folder = cache / TEXT_METRICS
    key = figures_gen.fonts_key()
    try:
        left = [p for p in folder.glob("*.pickle") if p.name != _METRICS_FILE]
    except OSError:
        left = []
    kept, new = _read_metrics(folder / _METRICS_FILE, key), _merged([_read_metrics(p, key) for p in left])
    merged = _merged([kept, new])
    if any(len(entries) > METRICS_KEPT for entries in merged.values()):
        merged = new
    figures_gen.keep_measured(merged)
    if left:
        write_pickle(folder / _METRICS_FILE, {"key": key, "measured": merged})
        for path in left:
            try:
                path.unlink(missing_ok=True)
            except OSError:
                pass
    _metrics.update(folder=folder, key=key)


def leave_text_metrics() -> None:
    """What this process measured itself since it started, left for the next build (`<pid>.pickle`); nothing
    outside a build that called `start_text_metrics`."""
    import figures_gen

    if _metrics["folder"] is None:
        return
    measured = figures_gen.measured_here()
    if any(measured.values()):
        write_pickle(_metrics["folder"] / f"{os.getpid()}.pickle", {"key": _metrics["key"], "measured": measured})


def traced_files(name: str, first=None) -> tuple[dict[str, bytes], str, int, list[list[str]], str, tuple[str, str] | None]:
    """Render figure `name` recording what it read: (variants, csv, renders, reads, values of the reads,
    (alt text, caption)).

    What a worker process of the build returns. The alt text and caption are worked out here, after the
    data they quote (a figure module keeps its data in memo caches): the build's process would otherwise
    compute the same frontier or sweep again for them. They are None where either raised; the page then
    computes them and says why in its own line. The figure module's own memo caches (lru_cache) are
    emptied first: a value one of them held from an earlier build of the process was read then,
    not now, and would leave its read out of the record.
    """
    from figures_gen import figure_files_counted
    from roofline.registry.loader import read_values, traced_reads

    mod = sys.modules.get(f"figures_gen.{name}")  # (not imported yet: nothing held)
    for value in list(vars(mod).values()) if mod is not None else []:
        if callable(getattr(value, "cache_clear", None)) and getattr(value, "__module__", None) == mod.__name__:
            value.cache_clear()
    with traced_reads() as reads:
        if first is not None:  # (inside the trace: what it reads is the figure's too)
            first()
        behind_pages()
        svgs, csv_text, renders = figure_files_counted(name)
        texts = figure_texts(name)
    leave_text_metrics()
    return svgs, csv_text, renders, canonical(reads), read_values(reads), texts


def figure_texts(name: str) -> tuple[str, str] | None:
    """(alt text, caption) of figure `name`, or None where either raised (the page that quotes the
    figure computes them again and reports the error there, naming the figure)."""
    from figures_gen import module

    try:
        mod = module(name)
        alt, caption = mod.alt(), mod.caption()
    except Exception:  # noqa: BLE001 — reported by the page, in its one line
        return None
    return (alt, caption) if isinstance(alt, str) and isinstance(caption, str) else None


def traced_files_ceilings_first(name: str) -> tuple:
    """`traced_files(name)` for a figure whose data is every published run's ceiling (USES_RUN_CEILINGS),
    which the build's pages quote too: they are computed first, inside the figure's trace, at the build's
    own priority, and sent on the workers' channel (`start_worker`, `ceilings_sent`) before the figure is
    drawn, since the build's process is waiting for them."""
    from roofline.model import serving_runs

    def ceilings_first():
        serving_runs.all_ceilings()
        if _worker["channel"] is not None:  # (their reads are this figure's own: it computed them)
            _leave_ceilings(_worker["channel"], _worker["folder"], (serving_runs.computed_ceilings(), None))

    return traced_files(name, first=ceilings_first)


#: The file a process that computed every run's ceiling leaves in the workers' folder: (the ceilings, what
#: computing them read), or (None, None) where one raised.
CEILINGS_FILE = "ceilings.pickle"


def _leave_ceilings(channel, folder: str, result: tuple) -> None:
    """`result` written to the workers' folder whole or not at all (a figure's worker may be looking for
    it), and named on `channel`: through a file, as a pipe holds 64 KB, and a larger message would hold
    the sender until the build's process read it, which it may never need to."""
    target = Path(folder) / CEILINGS_FILE
    tmp = target.with_name(target.name + ".tmp")
    with open(tmp, "wb") as out:
        pickle.dump(result, out)
    tmp.replace(target)
    channel.put(str(target))


def ceilings_ahead(channel, folder: str) -> None:
    """A process of its own, forked before matplotlib is imported: every published run's ceiling, computed
    while the build's process still starts its figure workers, left in `folder` (CEILINGS_FILE) with
    what computing them read, and named on `channel` for the build's process (`ceilings_sent`). The
    figure that draws them takes them from there (`traced_files_after_ceilings`)."""
    import signal

    from roofline.model import serving_runs
    from roofline.registry.loader import traced_reads

    # Ended quietly by the build's process when the build fails first (the handler it inherited would
    # print a traceback from wherever SIGTERM found it).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with traced_reads() as reads:
            serving_runs.all_ceilings()
        result = (serving_runs.computed_ceilings(), canonical(reads))
    except Exception:  # noqa: BLE001 — the figure computes them, and says why in its own line (here: a traceback)
        result = (None, None)
    _leave_ceilings(channel, folder, result)


def traced_files_after_ceilings(name: str, folder: str, pid: int) -> tuple:
    """`traced_files(name)` for the figure whose data is every run's ceiling, taking them from the process
    that computes them ahead (`ceilings_ahead`, process `pid`): waited for, and their reads recorded in
    the figure's trace. Where that process ended without them, the figure computes them itself."""
    from roofline.model import serving_runs
    from roofline.registry.loader import replay_reads

    def take_ceilings():
        target = Path(folder) / CEILINGS_FILE
        while not target.exists() and _alive(pid):
            time.sleep(0.01)
        try:
            with open(target, "rb") as src:
                ceilings, reads = pickle.load(src)
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError):  # (computed in the trace)
            return
        if ceilings is None:
            return
        serving_runs.remember(ceilings)
        replay_reads(tuple(r) for r in reads)

    return traced_files(name, first=take_ceilings)


def _alive(pid: int) -> bool:
    """Whether process `pid` is still at work: running, not ended and waiting to be reaped by its parent
    (a sibling's exit leaves a zombie that `kill` still finds)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except FileNotFoundError:
        return False
    except (OSError, IndexError):  # (no /proc on this host: ask kill)
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's process: it exists)
        return True
    return True


def ceilings_sent(channel) -> dict | None:
    """The published runs' ceilings a worker sent on `channel`, if it has, else None (the file stays in the
    workers' folder, removed with it: the figure's worker may read it too)."""
    if channel.empty():
        return None
    path = channel.get()
    try:
        with open(path, "rb") as src:
            ceilings, _ = pickle.load(src)
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError):  # (computed here instead)
        return None
    return ceilings


#: How much lower a figure worker runs than the build's process once it draws (os.nice's increment).
WORKER_NICENESS = 10
_worker: dict = {"channel": None, "folder": None, "behind": False}


def start_worker(channel=None, folder: str | None = None) -> None:
    """A figure worker's start (the pool's initializer): `channel`, a queue to the build's process
    (`ceilings_sent` reads what it carries), and `folder`, where it leaves what the queue names (the
    build's process removes the folder when the figures end, with anything a late worker left)."""
    _worker.update(channel=channel, folder=folder, behind=False)


def behind_pages() -> None:
    """In a figure worker, from its first drawing on: yield the core to the build's process, which renders
    every page in turn (the longer road to the end of a build); the workers fill the time it leaves."""
    if _worker["behind"] or _worker["channel"] is None:  # (not a worker: rendering in the build's process)
        return
    _worker["behind"] = True
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # (a host that refuses: the worker runs at the build's priority)
        pass


class FigureStore:
    """The figures' cache folder: a figure's files looked up by what it read, stored after a render."""

    def __init__(self, folder: Path, code: str):
        self.folder, self.code = folder, code

    def _read_sets(self, name: str) -> list[list[list[str]]]:
        try:
            sets = json.loads((self.folder / name / "reads.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        return [s for s in sets if isinstance(s, list)] if isinstance(sets, list) else []

    def keys(self, name: str, values_of=None) -> list[str]:
        """The keys figure `name` would have now, one per read set it recorded."""
        from roofline.registry.loader import read_values

        values_of = values_of or read_values
        out = []
        for reads in self._read_sets(name):
            try:
                out.append(figure_key(self.code, name, reads, values_of([tuple(r) for r in reads])))
            except (TypeError, ValueError):  # a hand-edited reads.json: no key from it
                continue
        return out

    def lookup(self, name: str, stem: str, variants) -> tuple[dict[str, bytes], str] | None:
        """(variants, csv) stored for what figure `name` reads now, or None (render it)."""
        found = self.found(name, stem, variants)
        return None if found is None else found[0]

    def found(self, name: str, stem: str, variants) -> tuple[tuple[dict[str, bytes], str], tuple[str, str] | None] | None:
        """((variants, csv), (alt text, caption) or None) stored for what figure `name` reads now, or None."""
        for key in self.keys(name):
            folder = self.folder / name / key
            try:
                files = ({v: (folder / f"{stem}{v}.svg").read_bytes() for v in variants},
                         (folder / f"{stem}.csv").read_text(encoding="utf-8"))
            except OSError:
                continue
            try:
                os.utime(folder)  # most recently used: the last to be evicted
            except OSError:
                pass
            return files, _texts(folder / "texts.json")
        return None

    def store(self, name: str, stem: str, files: tuple[dict[str, bytes], str], reads, values: str,
              texts: tuple[str, str] | None = None) -> None:
        """Keep one render: its files in a folder renamed into place whole, its read set remembered.

        A cache is an optimisation: a full disk or a read-only .cache leaves it as it was (OSError
        is the caller's to report)."""
        base = self.folder / name
        key = figure_key(self.code, name, reads, values)
        target = base / key
        base.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            tmp = base / f"{key}.tmp{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            try:
                tmp.mkdir()
                svgs, csv_text = files
                for suffix, svg in svgs.items():
                    (tmp / f"{stem}{suffix}.svg").write_bytes(svg)
                (tmp / f"{stem}.csv").write_text(csv_text, encoding="utf-8")
                if texts is not None:
                    (tmp / "texts.json").write_text(json.dumps(list(texts)), encoding="utf-8")
                try:
                    tmp.rename(target)
                except OSError:
                    if not target.exists():  # (a concurrent build that stored it first is no news)
                        raise
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        sets = [canonical(reads)] + [s for s in self._read_sets(name) if s != canonical(reads)]
        tmp_json = base / f"reads.json.tmp{os.getpid()}"
        tmp_json.write_text(json.dumps(sets[:READ_SETS_KEPT]), encoding="utf-8")
        tmp_json.replace(base / "reads.json")
        kept = sorted((p for p in base.iterdir() if p.is_dir() and ".tmp" not in p.name),
                      key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[KEYS_KEPT:]:
            if old != target:
                shutil.rmtree(old, ignore_errors=True)


def _texts(path: Path) -> tuple[str, str] | None:
    """The (alt text, caption) stored beside a render, or None (none stored, or not two strings)."""
    try:
        texts = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(texts, list) and len(texts) == 2 and all(isinstance(t, str) for t in texts)
    return (texts[0], texts[1]) if ok else None


def stored_for_registry(folder: Path, code: str, names) -> list[Path]:
    """What a build with the registry in use now would find of figures `names` in `folder`: each one's
    read sets and the folders its recorded reads key to now (existing or not). `make bench` sets them
    aside so every timed spec change renders what the edit changed, from the same start."""
    store = FigureStore(folder, code)
    return [p for name in names for p in [folder / name / "reads.json", *(folder / name / k for k in store.keys(name))]]
