"""mkdocs-gen-files script: start every figure module's figures/<name>.svg and .csv, which fill in
while the pages render (roofline_site.pending_figures serves them; the figures hook waits for them).

Rendering the figures with matplotlib is most of a build's time, so each figure is cached in
.cache/figures/<figure>/ under a key of what it read (roofline_site.figure_cache): the code (the
figure modules, the package, matplotlib, the measurement files) and the registry entries its module
read while it rendered. A spec change renders again only the figures that read what it changed, in
worker processes (one per core) while MkDocs renders the pages, each layout (wide, narrow) once: the
dark variants are mapped from the light SVGs (figures_gen._dark), and the build fails if any figure
took more renders. A page waits only for the figures it quotes; each rendered figure is stored once
every figure is in. Keys name files by their place in the project, not their absolute path, so a
copy of the project (the tests build several) finds the figures its sources produce; a few keys are
kept per figure, so a build against an edited spec does not evict the one for the real spec.
Set ROOFLINE_FIGURE_CACHE=0 to bypass the cache (the reproducibility test and the cold
build benchmark do); ROOFLINE_FIGURE_RENDERS=<file> writes {figure: renders} of this build there
(the reproducibility test reads it).
"""

from __future__ import annotations

import gc
import json
import logging
import multiprocessing
import os
import re
import shutil
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from mkdocs.exceptions import PluginError

from figures_gen import FIGURES, MAX_RENDERS, RENDERS, VARIANTS, figure_files, figure_files_counted, module, warm_up

from roofline import memos
from roofline.model import serving_runs

from roofline_site import figure_cache, pending_figures
from roofline_site.paths import ROOT
CACHE = ROOT / ".cache" / "figures"
log = logging.getLogger("mkdocs.plugins.roofline.figures")


def start() -> "Figures":
    """This build's figures: each from the cache when what it read is unchanged (figure_cache), the
    others rendering (in the background where there are workers)."""
    use_cache = os.environ.get("ROOFLINE_FIGURE_CACHE", "1") != "0"
    stems = {name: module(name).NAME for name in FIGURES}
    RENDERS.clear()  # this build's renders (a `mkdocs serve` process builds many times)
    store, done, texts = None, {}, {}
    if use_cache:
        store = figure_cache.FigureStore(CACHE, figure_cache.code_key())
        try:
            for name, stem in stems.items():
                if (found := store.found(name, stem, VARIANTS)) is not None:
                    done[name] = found[0]
                    if found[1] is not None:
                        texts[name] = found[1]
        except OSError as err:  # a cache that cannot be read: render, and say so
            _without_cache(err)
            store, done, texts = None, {}, {}
    return Figures(stems, Rendering(in_page_order(FIGURES, ROOT / "docs"), done=done, texts=texts,
                                    metrics=CACHE if use_cache else None), store=store)


def in_page_order(names, docs: Path) -> list[str]:
    """`names` in the order MkDocs' pages first quote them (those no page quotes last): the workers take
    them in that order, so a page that waits for its figure waits for few others."""
    first: dict[str, int] = {}  # figure -> its rank among the figures quoted
    for page in pending_figures.page_order(docs):
        for name in pending_figures.quoted(page.read_text(encoding="utf-8")):
            first.setdefault(name, len(first))
    names = list(names)
    return sorted(names, key=lambda name: first.get(name, len(first) + names.index(name)))


def rendered() -> dict[str, tuple[dict[str, bytes], str]]:
    """{file stem: ({variant suffix: svg}, csv)} for every figure, from the cache when its key matches."""
    return start().finish()


class Figures:
    """One build's figures by file stem: each one's files when asked, all of them (checked, cached) at the end."""

    variants = VARIANTS

    def __init__(self, stems: dict[str, str], rendering: "Rendering", store: "figure_cache.FigureStore | None" = None):
        self.stems, self._rendering, self._store = stems, rendering, store
        self._names = {stem: name for name, stem in stems.items()}

    def files(self, stem: str) -> tuple[dict[str, bytes], str]:
        """The figure's (variants, csv), waiting for that figure alone; a failure is `_render`'s build error."""
        return self._rendering.files(self._names[stem])

    def raise_failed(self) -> None:
        """The build error of the first figure that has failed by now, if any (waits for none)."""
        self._rendering.raise_failed()

    def ready(self, stem: str) -> bool:
        """Whether the figure is in (its files then wait for nothing); a failed one is not."""
        return self._rendering.ready(self._names[stem])

    def texts(self, name: str) -> tuple[str, str] | None:
        """Figure `name`'s (alt text, caption) as its finished render or the cache holds them, else None
        (waits for nothing; a failed render's error is `files`')."""
        return self._rendering.texts_of(name)

    def finish(self) -> dict[str, tuple[dict[str, bytes], str]]:
        """Every figure, by stem, once all are in: the render counts checked, the cache stored."""
        out = {self.stems[name]: files for name, files in self._rendering.all().items()}
        if self._rendering.started:
            _check_renders()
        if self._store is not None:
            try:
                for name, (reads, values) in self._rendering.reads.items():
                    self._store.store(name, self.stems[name], self._rendering.done[name], reads, values,
                                      self._rendering.texts.get(name))
            except OSError as err:
                _without_cache(err)
        return out

    def close(self) -> None:
        self._rendering.close()


def _without_cache(err: OSError) -> None:
    """One line saying the figures are built without the cache, and why (a read-only .cache, say).

    INFO, not WARNING: a strict build must not fail because an optimisation is unavailable.
    """
    log.info("figures: building without caching; %s cannot be used (%s)",
             CACHE.relative_to(ROOT) if CACHE.is_relative_to(ROOT) else CACHE, err.strerror or err)


# A CSV cell that is NaN or an infinity: a reader who downloads the data must never get one.
NON_FINITE = re.compile(r"(?im)(?:^|,)\s*\"?[-+]?(?:nan|inf|infinity)\"?\s*(?=,|$)")


#: ({variant suffix: svg}, csv) of one figure.
render = figure_files


#: Figures each worker holds at once (the one it draws): the rest wait in `Rendering`'s queue, where the
#: build's process takes the last ones itself once its pages are done (a figure a worker holds cannot be
#: taken back; the pages take most of a spec edit's steps from the store, so the figures end last).
FIGURES_HELD_PER_WORKER = 1


def workers() -> int:
    """Processes to render figures in: one per core this process may run on, or ROOFLINE_FIGURE_WORKERS
    (1 renders in the build's own process, as a profile of it wants)."""
    if (asked := os.environ.get("ROOFLINE_FIGURE_WORKERS", "").strip()).isdigit() and int(asked) > 0:
        return int(asked)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def render_all(names) -> dict[str, tuple[dict[str, bytes], str]]:
    """{figure: (variants, csv)}, in worker processes where there are two figures or more and two cores or
    more, else here; a failure is the one-line build error `_render` gives, and the figures not yet
    started are not rendered."""
    return Rendering(names).all()


class Rendering:
    """Figures being rendered: in worker processes (one per core, started here and left running while
    the caller goes on) where there are two figures or more to render and two cores or more, else here,
    at once. `done` holds the figures already in (from the cache): they are not rendered.

    `files(name)` waits for that figure alone; `all()` for every one, in order, so a failure is the first
    failing figure's one-line build error (`_render`), and the figures not yet started are not rendered.
    `reads[name]` is (what a rendered figure read, those entries' values), for its cache key;
    `texts[name]` its (alt text, caption), from the cache or from its render.
    """

    def __init__(self, names, done: dict | None = None, texts: dict | None = None, metrics: Path | None = None):
        self.names = list(names)
        self.done: dict[str, tuple[dict[str, bytes], str]] = dict(done or {})
        self.texts: dict[str, tuple[str, str]] = dict(texts or {})
        self.reads: dict[str, tuple[list, str]] = {}
        self._futures: dict = {}
        self._pool = None
        self._channel = self._drop = None
        self._with_ceilings: str | None = None  # the figure whose worker computes the runs' ceilings
        self._ahead = None  # the process that computes them ahead of the figure workers (fork only)
        self._forked = False  # workers forked from this process (`mkdocs build`), not from a forkserver
        # Figures not yet handed to a worker, in order: forked, each worker holds one at a time and takes
        # the next as each finishes (`_feed`), so that the build's process can take the last ones itself.
        self._queue: list[tuple[str, tuple]] = []
        self._lock = threading.Lock()
        self._closed = False
        todo = [name for name in self.names if name not in self.done]
        self.started = bool(todo)  # (figures read from the cache were not rendered in this build)
        if not todo:
            return
        # The figures take the text sizes earlier builds kept in `metrics` (figure_cache.start_text_metrics),
        # read here before the workers fork, after the runs' ceilings have started (they need none).
        if len(todo) < 2 or workers() < 2:
            if metrics is not None:
                figure_cache.start_text_metrics(metrics)
            for name in todo:
                self.done[name] = _render(name, lambda name=name: self._here(name))
            return
        # fork shares what this process imported (roofline, the registry read): a fresh interpreter per
        # worker (forkserver) imported and read them again, 0.7 s of CPU each. matplotlib too: imported
        # here once, not once in each worker (0.6 s of CPU each, on the figures' road, the longer one:
        # no page waits for a figure). A process with other threads (mkdocs serve's) gets forkserver,
        # as fork is unsafe there.
        fork = self._forked = _fork_safe()
        context = multiprocessing.get_context("fork" if fork else "forkserver")
        self._channel = context.SimpleQueue()  # the published runs' ceilings, before their figure is drawn
        self._drop = tempfile.mkdtemp(prefix="roofline-figures-")  # (the files the channel names)
        # A figure whose data is every published run's ceiling: the pages quote them too, and the build's
        # process, which has the most to do, takes them from the process that computed them when it first
        # needs one (about two seconds of CPU it would spend again otherwise). Forked, they are computed
        # in a process of their own, started before matplotlib is imported here: they need none, and they
        # run while this process imports it (a core the build left idle). Else that figure's worker
        # computes them first, before it draws.
        first = [name for name in todo if _uses_run_ceilings(name)][:1]
        # A forked process's collector would walk every object it inherited at each full collection
        # (MkDocs' pages, the registry): frozen, they are left out of it.
        if fork:
            gc.freeze()
        try:
            if fork and first:
                self._ahead = context.Process(target=figure_cache.ceilings_ahead, args=(self._channel, self._drop),
                                              name="roofline-ceilings", daemon=True)
                self._ahead.start()
            if metrics is not None:
                figure_cache.start_text_metrics(metrics)  # (it imports matplotlib's font manager)
            if fork:
                warm_up()
            self._pool = ProcessPoolExecutor(min(workers(), len(todo)), mp_context=context,
                                             initializer=figure_cache.start_worker, initargs=(self._channel, self._drop))
            # (the workers start at the first submit; the figure that waits for the ceilings goes last)
            self._queue = [(name, (figure_cache.traced_files, name)) for name in todo if name not in first]
            for name in first:
                self._queue.append((name, (figure_cache.traced_files_after_ceilings, name, self._drop, self._ahead.pid)
                                    if self._ahead is not None else (figure_cache.traced_files_ceilings_first, name)))
            if not fork:  # (a forkserver's: every figure at once, none drawn here)
                self._queue.sort(key=lambda item: item[0] not in first)
            for _ in range(FIGURES_HELD_PER_WORKER * workers() if fork else len(self._queue)):
                self._feed()
        finally:
            if fork:
                gc.unfreeze()
        if first:
            self._with_ceilings = first[0]
            serving_runs.supply_with(self._ceilings_from_worker)

    def _feed(self, _done=None) -> None:
        """Hand the next queued figure to the workers (and again when it is done)."""
        with self._lock:
            if self._closed or not self._queue or self._pool is None:
                return
            name, task = self._queue.pop(0)
            try:
                future = self._pool.submit(*task)
            except RuntimeError:  # (the pool is shutting down: the build failed)
                return
            self._futures[name] = future
        future.add_done_callback(self._feed)

    def _take_queued(self) -> tuple[str, tuple] | None:
        """The last figure still queued, taken off the queue (None when none is)."""
        with self._lock:
            return self._queue.pop() if self._queue else None

    def _ceilings_from_worker(self) -> None:
        """Wait for every published run's ceiling from the worker that computes them (sent before it draws
        their figure), and keep them here; nothing where it sent none (the figure failed: its own error is
        the figure's, and the ceilings are computed here)."""
        if self._ahead is not None:
            working = self._ahead.is_alive
        else:  # (every figure handed to the workers at once: its future is there)
            future = self._futures[self._with_ceilings]
            working = lambda: not future.done()  # noqa: E731
        while self._channel.empty() and working():
            time.sleep(0.005)
        if (sent := figure_cache.ceilings_sent(self._channel)) is not None:
            serving_runs.remember(sent)

    def _here(self, name: str, task: tuple | None = None) -> tuple[dict[str, bytes], str]:
        """One figure rendered in this process (its renders counted here as it draws), its reads kept:
        by `task`, (function, its arguments) as queued for a worker, else `figure_cache.traced_files`."""
        run, *args = task or (figure_cache.traced_files, name)
        svgs, csv_text, _, reads, values, texts = run(*args)
        self.reads[name] = (reads, values)
        if texts is not None:
            self.texts[name] = texts
        return svgs, csv_text

    def files(self, name: str) -> tuple[dict[str, bytes], str]:
        if name not in self.done and name not in self._futures:
            self._take_unstarted()  # (a figure still queued: this process renders the queue's tail, then waits)
        if name not in self.done:
            future = self._futures[name]
            try:
                self.done[name] = _render(name, lambda: _collect(name, future, self.reads, self.texts))
            except BaseException:
                self.close()  # a failed figure ends the build: nothing more to render
                raise
        return self.done[name]

    def texts_of(self, name: str) -> tuple[str, str] | None:
        """The figure's (alt text, caption) if it is in (from the cache, or its render done): a page never
        waits for a drawing to get them (None: the page works them out itself)."""
        if name not in self.texts:
            self.ready(name)  # (a render that is done is collected, its texts with it)
        return self.texts.get(name)

    def ready(self, name: str) -> bool:
        future = self._futures.get(name)
        if name not in self.done and future is not None and future.done():
            try:
                self.files(name)  # (collected, its renders counted, once)
            except PluginError:  # not in: its error is for `raise_failed` (the next page) or `files` to give
                return False
        return name in self.done

    def raise_failed(self) -> None:
        for name, future in list(self._futures.items()):
            if name not in self.done and future.done():
                self.files(name)  # (a success is collected, its renders counted, once)

    def all(self) -> dict[str, tuple[dict[str, bytes], str]]:
        try:
            self._take_unstarted()
            return {name: self.files(name) for name in self.names}
        finally:
            self.close()

    def _take_unstarted(self) -> None:
        """Render here the figures still queued, the last first, while the workers take the others from the
        front: once the pages are done, this process would otherwise wait with its core idle while the
        workers draw them one by one (`mkdocs build` only).

        The package's memos are emptied first (`roofline.memos`): a value the pages computed would answer
        the figure without the registry reads its cache key records. Each figure runs the task queued for
        its worker (the ceilings' figure takes them, with what computing them read, from the process that
        computed them ahead). A figure that has failed by then ends the build, as in `files`.
        """
        if not self._forked:  # (`mkdocs serve`: its next build keeps the memos its pages use)
            return
        forgotten = False
        while (item := self._take_queued()) is not None:
            name, task = item
            self.raise_failed()
            if not forgotten:
                memos.forget_all()
                forgotten = True
            self.done[name] = _render(name, lambda: self._here(name, task))

    def close(self) -> None:
        with self._lock:
            self._closed = True  # (nothing more is handed to the workers)
        if self._with_ceilings is not None:
            serving_runs.supply_with(None)  # (nothing more to wait for: what is not in is computed where asked)
        for future in list(self._futures.values()):
            future.cancel()  # (after a failure: nothing more to wait for)
        if self._pool is not None:
            # Joined when nothing runs (every build that finished): a pool left to the collector at
            # interpreter exit printed "Exception ignored ... weakref_cb" after a test run. A render
            # still running (a failed build) is not waited for.
            idle = all(future.done() for future in list(self._futures.values()))
            self._pool.shutdown(wait=idle, cancel_futures=True)
            self._pool = None
        if self._ahead is not None:  # (done by now, unless the build failed first)
            self._ahead.join(timeout=0)
            if self._ahead.is_alive():
                self._ahead.terminate()
                self._ahead.join()
            self._ahead = None
        if self._drop is not None:  # (ceilings never asked for, or sent by a worker the build did not wait for)
            shutil.rmtree(self._drop, ignore_errors=True)
            self._drop = None


def _uses_run_ceilings(name: str) -> bool:
    """Whether figure `name` declares that its data is every published run's ceiling (USES_RUN_CEILINGS)."""
    try:
        return bool(getattr(module(name), "USES_RUN_CEILINGS", False))
    except Exception:  # noqa: BLE001 — a module that cannot load: its own render says why, in one line
        return False


def _fork_safe() -> bool:
    """Whether the figure workers may be forked from this process: no thread but this one, or only
    threads marked `fork_safe` (the build's parent watcher, build_hook.die_with_parent, takes no lock)."""
    if threading.active_count() == 1:  # (kept apart: the tests force fork by reporting one thread)
        return True
    me = threading.current_thread()
    return all(t is me or getattr(t, "fork_safe", False) for t in threading.enumerate())


def _collect(name: str, future, reads: dict, texts: dict) -> tuple[dict[str, bytes], str]:
    """A worker's figure, its renders counted and its reads and texts kept here; rendered here (and not
    cached) if the worker could not run."""
    try:
        svgs, csv_text, renders, read, values, own_texts = future.result()
    except BrokenProcessPool:  # (a host that cannot start workers): the same figure, drawn here
        return render(name)
    RENDERS[name] += renders
    reads[name] = (read, values)
    if own_texts is not None:
        texts[name] = own_texts
    return svgs, csv_text


def _check_renders() -> None:
    """Fail the build when a figure took more than MAX_RENDERS renders; write the counts where asked."""
    if target := os.environ.get("ROOFLINE_FIGURE_RENDERS"):
        Path(target).write_text(json.dumps(dict(sorted(RENDERS.items()))))
    over = {name: n for name, n in RENDERS.items() if n > MAX_RENDERS}
    if over:
        name, n = next(iter(over.items()))
        raise PluginError(f"figure module figures_gen/{name}.py was rendered {n} times in one build "
                          f"(at most {MAX_RENDERS}: the wide and the narrow layout)")


def _render(name: str, produce=None) -> tuple[dict[str, bytes], str]:
    """One figure's variants and CSV (from `produce()`, else rendered here), or a one-line build error
    naming its module."""
    try:
        svg, csv_text = produce() if produce is not None else render(name)
    except Exception as err:  # noqa: BLE001 — any failure is reported against the module
        raise PluginError(f"figure module figures_gen/{name}.py failed: {type(err).__name__}: {err}") from None
    if (bad := NON_FINITE.search(csv_text)) is not None:
        raise PluginError(f"figure module figures_gen/{name}.py: its published data (CSV) holds "
                          f"'{bad.group().strip(', ' + chr(10) + chr(13) + chr(34))}', not a finite number")
    return svg, csv_text


def begin() -> None:
    """Start this build's figures, unless they already are: `mkdocs build` starts them as soon as its
    building process exists (figures_hook), a second before gen-files runs this script, so that the
    workers draw while that process reads the glossary, the page store and the files."""
    if not pending_figures.started():
        pending_figures.begin(start())


if __name__ != "roofline_site.gen.figures":  # run by gen-files (or loaded by a test, FIGURES emptied first)
    begin()
