"""Figures render while the pages do (roofline_site.pending_figures, gen/figures.py's Rendering).

Stand-in figures hold their worker until the test releases them, so "the build goes on while a
figure renders" is shown by the build going on, not by a timing: a build that waited for every
figure first would stop at the stand-in's own error ("never released") instead.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import pytest
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

from figures_gen import RENDERS, VARIANTS
from roofline_site import pending_figures
from tests.conftest import ROOT

RELEASE_AFTER_S = 20.0


def _gen_script(monkeypatch):
    """src/roofline_site/gen/figures.py loaded as a library (FIGURES emptied: nothing starts at import)."""
    spec = importlib.util.spec_from_file_location("gen_figures_pending", ROOT / "src/roofline_site/gen/figures.py")
    gen = importlib.util.module_from_spec(spec)
    monkeypatch.setenv("ROOFLINE_FIGURE_CACHE", "0")
    monkeypatch.setattr("figures_gen.FIGURES", [])
    spec.loader.exec_module(gen)
    pending_figures.abandon()
    # A build counts its own renders (start() empties the count); these tests build Figures by hand, after
    # whatever else this process rendered.
    RENDERS.clear()
    return gen


def _held_until(release: Path):
    """A stand-in for figures_gen's figure_files: every figure waits for `release` to exist; kv_context fails."""
    def stand_in(name):
        deadline = time.monotonic() + RELEASE_AFTER_S
        while not release.exists():
            if time.monotonic() > deadline:
                raise RuntimeError("never released: the build waited for the figures before going on")
            time.sleep(0.01)
        if name == "kv_context":
            raise ZeroDivisionError("division by zero")
        return {v: b'<svg viewBox="0 0 504 302.4"/>' for v in VARIANTS}, f"figure,{name}\n"
    return stand_in


@pytest.fixture
def workers(monkeypatch):
    """Two forked workers that see the test's stand-ins."""
    monkeypatch.setenv("ROOFLINE_FIGURE_WORKERS", "2")
    monkeypatch.setattr("threading.active_count", lambda: 1)


def _two_held_figures(monkeypatch, tmp_path):
    """ridge_overlay and h100_roofline begun as a build begins them, each held until `release` exists:
    (release, MkDocs' files with every figure file listed). The caller abandons them."""
    import figures_gen._render

    gen = _gen_script(monkeypatch)
    release = tmp_path / "release"
    monkeypatch.setattr(figures_gen._render, "figure_files", _held_until(release))
    figures = gen.Figures({"ridge_overlay": "ridge", "h100_roofline": "h100"},
                          gen.Rendering(["ridge_overlay", "h100_roofline"]))
    pending_figures.begin(figures)
    config = MkDocsConfig()
    config.load_dict({"site_name": "t", "site_dir": str(tmp_path / "site")})
    return release, pending_figures.add_files(Files([]), config)


def test_pages_that_quote_no_figure_render_while_the_figures_do(monkeypatch, tmp_path, workers):
    release, files = _two_held_figures(monkeypatch, tmp_path)
    try:
        # Every variant and the CSV of each figure, listed with MkDocs before any is rendered.
        assert sorted(f.src_uri for f in files) == sorted(
            f"figures/{stem}{part}" for stem in ("ridge", "h100")
            for part in (".svg", "-dark.svg", "-narrow.svg", "-narrow-dark.svg", ".csv"))
        pending_figures.raise_failed()  # the next page goes on while both are held
        # Its figure markup declares a size to fill in when the page is written.
        marker = pending_figures.size_attributes(files.get_file_from_path("figures/h100-narrow.svg"))
        assert marker == 'data-rl-pending-size="figures/h100-narrow.svg"'
        files.get_file_from_path("figures/ridge.svg").copy_file()  # MkDocs' copy: nothing written yet
        assert not (tmp_path / "site").exists()
        release.touch()
        # The page written: the size filled in once its figure is in. viewBox 504 x 302.4 shown 700 wide:
        # 700 * 302.4 / 504 = 420 high.
        assert pending_figures.sizes_in(f"<img {marker}>", "index.md") == '<img width="700" height="420">'
        assert files.get_file_from_path("figures/h100.csv").content_string == "figure,h100_roofline\n"
        pending_figures.publish()
        assert (tmp_path / "site/figures/ridge.csv").read_text() == "figure,ridge_overlay\n"
        assert (tmp_path / "site/figures/h100.svg").read_bytes() == b'<svg viewBox="0 0 504 302.4"/>'
    finally:
        pending_figures.abandon()


def test_a_page_written_while_its_figure_renders_is_written_as_is_and_sized_when_the_figures_are_in(
        monkeypatch, tmp_path, workers):
    release, files = _two_held_figures(monkeypatch, tmp_path)
    try:
        marker = pending_figures.size_attributes(files.get_file_from_path("figures/h100-narrow.svg"))
        page = tmp_path / "site" / "decode" / "index.html"
        # Written now, with the figure held: the page comes back as it is (no wait), and MkDocs writes it so.
        out = pending_figures.sizes_in(f"<p>a</p><img {marker}>", "decode.md", page)
        assert out == f"<p>a</p><img {marker}>"
        page.parent.mkdir(parents=True)
        page.write_text(out, encoding="utf-8")
        # A page without figures is not noted: publish rewrites the noted pages only.
        other = tmp_path / "site" / "index.html"
        assert pending_figures.sizes_in("<p>b</p>", "index.md", other) == "<p>b</p>"
        release.touch()
        pending_figures.publish()
        # viewBox 504 x 302.4 shown 700 wide: 700 * 302.4 / 504 = 420 high.
        assert page.read_text(encoding="utf-8") == '<p>a</p><img width="700" height="420">'
        assert not other.exists()
    finally:
        pending_figures.abandon()


def test_a_failed_figure_stops_the_build_at_the_next_page_in_the_render_s_own_words(monkeypatch, tmp_path, workers):
    import figures_gen._render

    gen = _gen_script(monkeypatch)
    release = tmp_path / "release"
    release.touch()
    monkeypatch.setattr(figures_gen._render, "figure_files", _held_until(release))
    rendering = gen.Rendering(["kv_context", "ridge_overlay"])
    pending_figures.begin(gen.Figures({"kv_context": "kv", "ridge_overlay": "ridge"}, rendering))
    try:
        deadline = time.monotonic() + RELEASE_AFTER_S
        while not rendering._futures["kv_context"].done() and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(PluginError) as err:
            pending_figures.raise_failed()  # at the next page
        assert str(err.value) == "figure module figures_gen/kv_context.py failed: ZeroDivisionError: division by zero"
    finally:
        pending_figures.abandon()


def test_a_figure_is_stored_once_it_rendered_and_found_by_what_it_read(monkeypatch, tmp_path):
    import figures_gen._render
    from roofline.registry.hardware import get_device
    from roofline_site import figure_cache

    gen = _gen_script(monkeypatch)

    def stand_in(name):
        get_device("h200-sxm")  # what the stand-in reads: its key covers this entry
        if name == "kv_context":
            raise ZeroDivisionError("division by zero")
        return {v: b"<svg/>" for v in VARIANTS}, "x,y\n1,2\n"

    monkeypatch.setattr(figures_gen._render, "figure_files", stand_in)
    store = figure_cache.FigureStore(tmp_path / "figures", "code")
    with pytest.raises(PluginError):
        gen.Figures({"kv_context": "kv"}, gen.Rendering(["kv_context"]), store=store).finish()
    assert not (tmp_path / "figures").exists()
    gen.Figures({"ridge_overlay": "ridge"}, gen.Rendering(["ridge_overlay"]), store=store).finish()
    assert (tmp_path / "figures/ridge_overlay/reads.json").read_text() == '[[["hardware", "h200-sxm"]]]'
    [folder] = [p for p in (tmp_path / "figures/ridge_overlay").iterdir() if p.is_dir()]
    assert sorted(p.name for p in folder.iterdir()) == sorted([*(f"ridge{v}.svg" for v in VARIANTS), "ridge.csv"])
    found = store.lookup("ridge_overlay", "ridge", VARIANTS)
    assert found == ({v: b"<svg/>" for v in VARIANTS}, "x,y\n1,2\n")
    # A build that finds it renders only the other figure, and stores only that one.
    rendering = gen.Rendering(["ridge_overlay", "h100_roofline"], done={"ridge_overlay": found})
    assert rendering.started and sorted(rendering.reads) == ["h100_roofline"]
    assert gen.Rendering(["ridge_overlay"], done={"ridge_overlay": found}).started is False


def test_figures_are_rendered_in_the_order_pages_first_quote_them(monkeypatch, tmp_path):
    gen = _gen_script(monkeypatch)
    (tmp_path / "guide").mkdir()
    (tmp_path / "index.md").write_text('{{ figure("c") }}')
    (tmp_path / "a.md").write_text('{{ figure("b") }} then {{ figure("c") }} and {{ figure("a") }}')
    (tmp_path / "guide" / "index.md").write_text('{{ figure("d") }}')
    # MkDocs reads index.md, a.md, then the folder guide/: c, b, a, d; e is quoted nowhere: last.
    assert gen.in_page_order(["a", "b", "c", "d", "e"], tmp_path) == ["c", "b", "a", "d", "e"]
    assert sys.modules.get("gen_figures_pending") is None  # (loaded as a library, not imported by name)


def test_figure_workers_are_forked_only_beside_threads_that_take_no_lock(monkeypatch):
    """fork copies a lock another thread holds into the child, held forever: the workers are forked only
    when every other thread is marked `fork_safe` (else forkserver, as under `mkdocs serve`)."""
    import threading

    gen = _gen_script(monkeypatch)
    stop = threading.Event()
    for marked, expected in ((True, True), (False, False)):
        thread = threading.Thread(target=stop.wait, daemon=True)
        if marked:
            thread.fork_safe = True
        thread.start()
        # (only this thread and the test's: an earlier test's pool may still be winding its threads down)
        monkeypatch.setattr(gen.threading, "enumerate", lambda: [threading.current_thread(), thread])
        monkeypatch.setattr(gen.threading, "active_count", lambda: 2)
        try:
            assert gen._fork_safe() is expected
        finally:
            stop.set()
            thread.join()
            stop.clear()


def test_the_build_watcher_is_marked_fork_safe_so_the_figure_workers_are_forked():
    """The building child runs `die_with_parent`'s thread from the start: unmarked, every build would fall
    back to forkserver workers, each importing matplotlib and reading the registry again."""
    import subprocess

    script = ("import os, importlib.util\n"
              "from roofline_site.hooks import build_hook\n"
              "build_hook.die_with_parent(os.getppid())\n"
              "import figures_gen\n"
              "figures_gen.FIGURES = []\n"
              f"spec = importlib.util.spec_from_file_location('g', {str(ROOT / 'src/roofline_site/gen/figures.py')!r})\n"
              "gen = importlib.util.module_from_spec(spec)\n"
              "spec.loader.exec_module(gen)\n"
              "print(gen._fork_safe())\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                         env={**__import__("os").environ, "ROOFLINE_FIGURE_CACHE": "0"})
    assert out.stdout.strip().splitlines()[-1:] == ["True"], out.stderr


def test_the_run_ceilings_come_from_the_worker_of_the_figure_that_computes_them(monkeypatch, workers):
    """expected_vs_published's data is every published run's ceiling, which the pages quote too: with
    workers, it renders first, and this process takes the ceilings from its worker when it first needs
    one, computing none. Its files are those of the figure rendered here, computing the ceilings itself."""
    from roofline.model import serving_runs
    from roofline_site import figure_cache

    gen = _gen_script(monkeypatch)
    monkeypatch.setattr("figures_gen.FIGURES", ["ridge_overlay", "expected_vs_published"])
    monkeypatch.setattr(serving_runs, "_CEILINGS", {})  # (none held: the worker computes them)
    computed_here = []
    real = serving_runs._ceiling
    monkeypatch.setattr(serving_runs, "_ceiling", lambda run: computed_here.append(run) or real(run))
    rendering = gen.Rendering(["ridge_overlay", "expected_vs_published"])
    ceilings = serving_runs.all_ceilings()  # (as a page quoting one: waits for that figure's worker)
    in_workers = rendering.all()
    assert ceilings and computed_here == []

    monkeypatch.setattr(serving_runs, "_CEILINGS", {})
    svgs, csv_text, _, _, _, _ = figure_cache.traced_files("expected_vs_published")
    assert in_workers["expected_vs_published"] == (svgs, csv_text)
    assert len(computed_here) == len(ceilings)  # (here they were computed: the comparison is a real one)
    assert serving_runs.all_ceilings() == ceilings


def test_a_build_that_ends_before_it_needs_the_run_ceilings_stops_asking_for_them(monkeypatch, workers):
    from roofline.model import serving_runs

    gen = _gen_script(monkeypatch)
    monkeypatch.setattr("figures_gen.FIGURES", ["ridge_overlay", "expected_vs_published"])
    rendering = gen.Rendering(["ridge_overlay", "expected_vs_published"])
    assert serving_runs._SUPPLIER[0] is not None
    rendering.close()
    assert serving_runs._SUPPLIER[0] is None


def test_the_build_renders_the_figures_still_queued_itself_once_its_pages_are_done(monkeypatch, tmp_path, workers):
    """Forked workers hold one figure each; the rest wait in a queue. At the end of the pages the build's
    process renders the queue's tail itself, last first, while the workers draw theirs and take the queue's
    front: it would otherwise wait with its core idle. The workers here draw nothing until the build's
    process has rendered one."""
    import os

    import figures_gen._render

    gen = _gen_script(monkeypatch)
    names = ["ridge_overlay", "h100_roofline", "intensity_line", "sol_bandwidth", "hardware_map", "real_vs_sol"]
    release, me, here = tmp_path / "release", os.getpid(), []
    held = _held_until(release)

    def stand_in(name):
        if os.getpid() != me:
            return held(name)
        here.append(name)
        release.touch()  # (the workers may go on once this process has taken one)
        return {v: b'<svg viewBox="0 0 504 302.4"/>' for v in VARIANTS}, f"figure,{name}\n"

    monkeypatch.setattr(figures_gen._render, "figure_files", stand_in)
    rendering = gen.Rendering(names)
    out = rendering.all()
    # The workers held the first two; the build's process took the queue from its end, last first, and the
    # workers its front: what it drew is the queue's tail, reversed (how far it got is the workers' race).
    assert here and here == names[len(names) - len(here):][::-1] and not {"ridge_overlay", "h100_roofline"} & set(here)
    assert sorted(out) == sorted(names) and all(out[n][1] == f"figure,{n}\n" for n in names)
