"""Each figure cached under a key of what it read (roofline_site.figure_cache)."""

from __future__ import annotations

import os

from roofline_site import figure_cache
from roofline_site.figure_cache import FigureStore, figure_key

VARIANTS = ("", "-dark")
FILES = ({"": b"<svg>light</svg>", "-dark": b"<svg>dark</svg>"}, "x,y\n1,2\n")


def _values(registry: dict):
    """read_values over a hand-built registry {kind: {id: value}}."""
    from roofline.registry.loader import read_values

    return lambda reads: read_values(reads, registry.get)


def test_the_key_changes_with_the_code_the_figure_the_reads_and_their_values_only():
    base = figure_key("code1", "fig", [("hardware", "a")], "hardware a: 1")
    assert figure_key("code1", "fig", [["hardware", "a"]], "hardware a: 1") == base  # lists or tuples alike
    assert figure_key("code1", "fig", [("hardware", "a"), ("hardware", "a")], "hardware a: 1") == base
    for other in (figure_key("code2", "fig", [("hardware", "a")], "hardware a: 1"),
                  figure_key("code1", "other", [("hardware", "a")], "hardware a: 1"),
                  figure_key("code1", "fig", [("hardware", "b")], "hardware a: 1"),
                  figure_key("code1", "fig", [("hardware", "a")], "hardware a: 2")):
        assert other != base


def test_a_figure_is_found_while_the_entries_it_read_are_unchanged(tmp_path):
    # The figure read device "a" only. Registry: a = 1, b = 2.
    registry = {"hardware": {"a": 1, "b": 2}}
    store = FigureStore(tmp_path, "code")
    store.store("fig", "f", FILES, [("hardware", "a")], _values(registry)([("hardware", "a")]))
    store.keys = lambda name, values_of=_values(registry): FigureStore.keys(store, name, values_of)
    assert store.lookup("fig", "f", VARIANTS) == FILES
    # "b" edited: the figure never read it, so it is found as it was.
    registry["hardware"]["b"] = 3
    assert store.lookup("fig", "f", VARIANTS) == FILES
    # "a" edited: another key, nothing stored under it: rendered again.
    registry["hardware"]["a"] = 4
    assert store.lookup("fig", "f", VARIANTS) is None
    # Back to the value it was rendered from: found again (the few latest keys are kept).
    registry["hardware"]["a"] = 1
    assert store.lookup("fig", "f", VARIANTS) == FILES


def test_a_figure_that_listed_every_entry_is_rendered_again_when_any_entry_changes(tmp_path):
    registry = {"hardware": {"a": 1, "b": 2}}
    store = FigureStore(tmp_path, "code")
    reads = [("hardware", "*")]
    store.store("map", "m", FILES, reads, _values(registry)(reads))
    store.keys = lambda name, values_of=_values(registry): FigureStore.keys(store, name, values_of)
    assert store.lookup("map", "m", VARIANTS) == FILES
    registry["hardware"]["c"] = 5  # a device added: a listing reads it
    assert store.lookup("map", "m", VARIANTS) is None


def test_code_changes_miss_and_a_few_keys_are_kept_per_figure(tmp_path):
    registry = {"hardware": {"a": 0}}
    reads = [("hardware", "a")]
    for value in range(figure_cache.KEYS_KEPT + 2):
        registry["hardware"]["a"] = value
        FigureStore(tmp_path, "code").store("fig", "f", FILES, reads, _values(registry)(reads))
    kept = [p for p in (tmp_path / "fig").iterdir() if p.is_dir()]
    assert len(kept) == figure_cache.KEYS_KEPT
    other_code = FigureStore(tmp_path, "code-edited")
    other_code.keys = lambda name, values_of=_values(registry): FigureStore.keys(other_code, name, values_of)
    assert other_code.lookup("fig", "f", VARIANTS) is None


def test_a_missing_or_broken_record_is_a_miss_not_an_error(tmp_path):
    store = FigureStore(tmp_path, "code")
    assert store.lookup("fig", "f", VARIANTS) is None
    (tmp_path / "fig").mkdir()
    (tmp_path / "fig" / "reads.json").write_text("{not json")
    assert store.lookup("fig", "f", VARIANTS) is None
    (tmp_path / "fig" / "reads.json").write_text('[[["hardware"]], "x"]')  # a pair of one: no key from it
    assert store.keys("fig", _values({})) == []


def test_a_figures_texts_are_kept_beside_its_render_and_a_render_without_them_is_found_without_them(tmp_path):
    registry = {"hardware": {"a": 1}}
    reads = [("hardware", "a")]
    store = FigureStore(tmp_path, "code")
    store.keys = lambda name, values_of=_values(registry): FigureStore.keys(store, name, values_of)
    store.store("fig", "f", FILES, reads, _values(registry)(reads), ("Alt text.", "A caption."))
    assert store.found("fig", "f", VARIANTS) == (FILES, ("Alt text.", "A caption."))
    # A render stored without texts (an older cache, or alt() raised): its files, and no texts.
    registry["hardware"]["a"] = 2
    store.store("fig", "f", FILES, reads, _values(registry)(reads))
    assert store.found("fig", "f", VARIANTS) == (FILES, None)
    # texts.json that is not two strings is no texts, not an error.
    folder = next(p for p in (tmp_path / "fig").iterdir() if p.is_dir() and not (p / "texts.json").exists())
    (folder / "texts.json").write_text('["only one"]')
    assert store.found("fig", "f", VARIANTS) == (FILES, None)


def test_a_worker_sends_the_ceilings_through_a_file_and_the_build_takes_them_once(tmp_path, monkeypatch):
    import multiprocessing

    channel = multiprocessing.get_context("fork").SimpleQueue()
    assert figure_cache.ceilings_sent(channel) is None  # nothing sent yet: nothing waited for
    figure_cache.start_worker(channel, str(tmp_path))
    try:
        sent = {("run", "paths"): "ceiling"}
        monkeypatch.setattr("roofline.model.serving_runs.all_ceilings", lambda: None)
        monkeypatch.setattr("roofline.model.serving_runs.computed_ceilings", lambda: sent)
        monkeypatch.setattr(figure_cache, "traced_files", lambda name, first=None: (first(), "files")[1])
        assert figure_cache.traced_files_ceilings_first("fig") == "files"
        assert figure_cache.ceilings_sent(channel) == sent
        assert figure_cache.ceilings_sent(channel) is None  # taken once (the file goes with the workers' folder)
    finally:
        figure_cache.start_worker(None)


def test_ceilings_computed_ahead_reach_the_build_and_their_figure_with_what_they_read(tmp_path, monkeypatch):
    import multiprocessing

    from roofline.model import serving_runs
    from roofline.registry import loader

    channel = multiprocessing.get_context("fork").SimpleQueue()
    sent = {("run", "paths"): "ceiling"}
    # Computing the ceilings reads the H100's entry (a listing of the measurements too, in the package).
    monkeypatch.setattr(serving_runs, "all_ceilings", lambda: loader._record("hardware", "h100-sxm5"))
    monkeypatch.setattr(serving_runs, "computed_ceilings", lambda: sent)
    figure_cache.ceilings_ahead(channel, str(tmp_path))
    assert figure_cache.ceilings_sent(channel) == sent  # the build's process takes them from the channel

    remembered = []
    monkeypatch.setattr(serving_runs, "remember", remembered.append)

    def traced(name, first=None):
        with loader.traced_reads() as reads:
            first()
        return sorted(reads)

    monkeypatch.setattr(figure_cache, "traced_files", traced)
    # The figure's worker takes them from the file, and its record holds what computing them read.
    assert figure_cache.traced_files_after_ceilings("fig", str(tmp_path), os.getpid()) == [("hardware", "h100-sxm5")]
    assert remembered == [sent]


def test_a_figure_waits_for_no_ceilings_a_failed_or_gone_process_left(tmp_path, monkeypatch):
    import multiprocessing

    from roofline.model import serving_runs

    def fails():
        raise ValueError("a broken run")

    monkeypatch.setattr(serving_runs, "all_ceilings", fails)
    channel = multiprocessing.get_context("fork").SimpleQueue()
    figure_cache.ceilings_ahead(channel, str(tmp_path))  # (no traceback from its process: the figure says why)
    assert figure_cache.ceilings_sent(channel) is None  # the build's process computes them itself
    remembered = []
    monkeypatch.setattr(serving_runs, "remember", remembered.append)
    monkeypatch.setattr(figure_cache, "traced_files", lambda name, first=None: (first(), "files")[1])
    assert figure_cache.traced_files_after_ceilings("fig", str(tmp_path), os.getpid()) == "files"
    assert remembered == []  # (the figure computes them in its own trace, and fails with its own line)
    gone = multiprocessing.get_context("fork").Process(target=lambda: None)
    gone.start()
    gone.join()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert figure_cache.traced_files_after_ceilings("fig", str(empty), gone.pid) == "files"  # no wait for good


def _fresh_metrics(monkeypatch):
    """A process that has measured nothing yet (figures_gen._text_metrics) and kept nothing (figure_cache)."""
    from figures_gen import _text_metrics

    monkeypatch.setattr(_text_metrics, "_sizes", {})
    monkeypatch.setattr(_text_metrics, "_layouts", {})
    monkeypatch.setattr(_text_metrics, "_here", {"sizes": {}, "layouts": {}})
    monkeypatch.setattr(figure_cache, "_metrics", {"folder": None, "key": None})


def _measured_while_drawing(monkeypatch, text: str) -> list[str]:
    """The strings FreeType measured while a figure with `text` on it was drawn (inside shared_text_metrics)."""
    from matplotlib.backends.backend_agg import RendererAgg

    from figures_gen._style import style
    from figures_gen._text_metrics import shared_text_metrics

    measured, original = [], RendererAgg.get_text_width_height_descent

    def counted(self, s, prop, ismath):
        measured.append(s)
        return original(self, s, prop, ismath)

    monkeypatch.setattr(RendererAgg, "get_text_width_height_descent", counted)
    plt = style()
    fig = plt.figure()
    try:
        with shared_text_metrics():
            fig.text(0.5, 0.5, text)
            fig.canvas.draw()
    finally:
        plt.close(fig)
        monkeypatch.setattr(RendererAgg, "get_text_width_height_descent", original)
    return measured


def test_what_one_build_measured_the_next_takes_without_measuring_it_again(monkeypatch, tmp_path):
    _fresh_metrics(monkeypatch)
    figure_cache.start_text_metrics(tmp_path)
    assert "kept across builds" in _measured_while_drawing(monkeypatch, "kept across builds")
    figure_cache.leave_text_metrics()
    folder = tmp_path / figure_cache.TEXT_METRICS
    assert [p.name for p in folder.iterdir()] == [f"{os.getpid()}.pickle"]
    # The next build (a fresh process): the file each process left is folded into one, and what it
    # holds is not measured again.
    _fresh_metrics(monkeypatch)
    figure_cache.start_text_metrics(tmp_path)
    assert [p.name for p in folder.iterdir()] == ["measured.pickle"]
    assert "kept across builds" not in _measured_while_drawing(monkeypatch, "kept across builds")


def test_sizes_kept_under_other_fonts_or_an_unreadable_file_are_measured_again(monkeypatch, tmp_path):
    import figures_gen

    _fresh_metrics(monkeypatch)
    figure_cache.start_text_metrics(tmp_path)
    _measured_while_drawing(monkeypatch, "under other fonts")
    figure_cache.leave_text_metrics()
    # The same file, read where matplotlib, FreeType or a font file differ (another key): not used.
    _fresh_metrics(monkeypatch)
    monkeypatch.setattr(figures_gen, "fonts_key", lambda: "another matplotlib")
    figure_cache.start_text_metrics(tmp_path)
    assert "under other fonts" in _measured_while_drawing(monkeypatch, "under other fonts")
    monkeypatch.undo()
    # A kept file that is junk: measured as if none were kept, and no error.
    (tmp_path / figure_cache.TEXT_METRICS / "measured.pickle").write_bytes(b"not a pickle")
    _fresh_metrics(monkeypatch)
    figure_cache.start_text_metrics(tmp_path)
    assert "under other fonts" in _measured_while_drawing(monkeypatch, "under other fonts")


def test_a_read_only_cache_leaves_the_figures_measuring_as_usual(monkeypatch, tmp_path):
    # (the folder cannot be made: a file stands where it would go)
    _fresh_metrics(monkeypatch)
    (tmp_path / figure_cache.TEXT_METRICS).write_text("a file, not a folder")
    figure_cache.start_text_metrics(tmp_path)
    assert "no cache" in _measured_while_drawing(monkeypatch, "no cache")
    figure_cache.leave_text_metrics()  # (nothing can be written: no error either)
    assert (tmp_path / figure_cache.TEXT_METRICS).read_text() == "a file, not a folder"
