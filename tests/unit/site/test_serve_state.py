"""The dirty-serve state (roofline_site.serve_state): `make serve` re-renders every page when a spec
file in use changes, wherever it lives, and only then."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from roofline_site import serve_state


def test_every_spec_file_moved_out_of_the_tree_is_watched(tmp_path, monkeypatch):
    moved = {}
    for var in ("ROOFLINE_HARDWARE", "ROOFLINE_MODELS", "ROOFLINE_MEASUREMENTS"):
        moved[var] = tmp_path / f"{var.lower()}.toml"
        moved[var].write_text("")
        monkeypatch.setenv(var, str(moved[var]))
    monkeypatch.setenv("ROOFLINE_MEASUREMENTS_DIR", str(tmp_path / "runs"))
    watched = [p.resolve() for p in serve_state.registry_paths()]
    for var, path in moved.items():
        assert path.resolve() in watched, f"{var} is not watched"
    assert (tmp_path / "runs").resolve() in watched


def test_the_fingerprint_changes_with_a_file_and_not_without(tmp_path):
    (tmp_path / "src").mkdir()
    spec = tmp_path / "src" / "hardware.toml"
    spec.write_text("a = 1\n")
    before = serve_state.fingerprint([tmp_path / "src"])
    assert serve_state.fingerprint([tmp_path / "src"]) == before
    spec.write_text("a = 2\n")
    os.utime(spec, ns=(spec.stat().st_atime_ns, spec.stat().st_mtime_ns + 1_000_000))
    assert serve_state.fingerprint([tmp_path / "src"]) != before


def test_page_results_drop_pages_that_are_gone():
    store = serve_state.PageResults({"a.md": 1, "b.md": 2})
    store.keep_only(["b.md", "c.md"])
    assert store == {"b.md": 2}


def _page_file(tmp_path: Path, name: str) -> SimpleNamespace:
    dest = tmp_path / f"{name}.html"
    dest.write_text("built")
    return SimpleNamespace(abs_dest_path=str(dest), abs_src_path=None, src_uri=f"{name}.md")


def test_only_a_dirty_session_whose_inputs_changed_renders_every_page(tmp_path, monkeypatch):
    files = [_page_file(tmp_path, "a"), _page_file(tmp_path, "b")]
    monkeypatch.setitem(serve_state._session, "dirty", True)
    monkeypatch.setitem(serve_state._session, "changed", False)
    serve_state.force_full(files)
    assert all(Path(f.abs_dest_path).exists() for f in files), "nothing changed: keep the built pages"
    monkeypatch.setitem(serve_state._session, "changed", True)
    serve_state.force_full(files)
    assert not any(Path(f.abs_dest_path).exists() for f in files), "inputs changed: every page renders"


def test_a_generated_page_renders_again_only_when_its_text_or_key_changed(tmp_path, monkeypatch):
    monkeypatch.setitem(serve_state._session, "dirty", True)
    monkeypatch.setitem(serve_state._session, "changed", False)
    monkeypatch.setattr(serve_state, "_rendered", {})
    src = tmp_path / "entry.md"
    src.write_text("# Entry\n")
    key = {"mentions": frozenset({"ridge-point.md"})}

    def build_once() -> bool:
        f = _page_file(tmp_path, "entry")
        f.abs_src_path, f.is_modified = str(src), lambda: True
        serve_state.render_when_changed(f, lambda: key["mentions"])
        first = f.is_modified()
        assert f.is_modified() is first, "MkDocs asks twice per build: the same answer"
        return first

    assert build_once() is True       # never rendered in this session
    assert build_once() is False      # same text, same mentions
    key["mentions"] = frozenset({"ridge-point.md", "decode.md"})
    assert build_once() is True       # its "Mentioned in" list changed
    src.write_text("# Entry, edited\n")
    assert build_once() is True       # its text changed


def test_a_key_completed_after_the_page_was_reached_is_recorded_as_the_page_was_written(tmp_path, monkeypatch):
    # The first build of a session: when MkDocs reaches entry A its "Mentioned in" key has only the pages
    # before it; entry B, after it, mentions it too, and A is written with both (the list is filled in
    # once every page is read). The next build sees both from the start: A must not render again.
    monkeypatch.setitem(serve_state._session, "dirty", True)
    monkeypatch.setitem(serve_state._session, "changed", False)
    monkeypatch.setattr(serve_state, "_rendered", {})
    monkeypatch.setattr(serve_state, "_settling", {})
    src = tmp_path / "a.md"
    src.write_text("# A\n")
    mentions = {"decode.md"}

    def reach_a() -> bool:
        f = _page_file(tmp_path, "a")
        f.abs_src_path = str(src)
        serve_state.render_when_changed(f, lambda: frozenset(mentions))
        return f.is_modified()

    assert reach_a() is True
    mentions.add("glossary/b.md")      # B is read after A reached MkDocs, in the same build
    serve_state.settle_rendered()      # the build ends: A was written with both mentions
    assert reach_a() is False          # the first edit of the session: A's list is as written


def test_serve_polls_every_tenth_of_a_second_and_keeps_what_mkdocs_watched(tmp_path):
    # MkDocs' server polls the disk every 0.5 s (its PollingObserver's default in LiveReloadServer).
    # poll_faster swaps in one of 0.1 s, with the docs folder and mkdocs.yml MkDocs watched before
    # on_serve still watched, once each; a theme folder it did not watch is not added.
    from mkdocs.livereload import LiveReloadServer

    docs, cfg, theme = tmp_path / "docs", tmp_path / "mkdocs.yml", tmp_path / "theme"
    docs.mkdir(), theme.mkdir()
    cfg.write_text("site_name: x\n")
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path))
    server.watch(str(docs))
    server.watch(str(cfg))
    old = server.observer
    assert old.timeout == 0.5
    watched = sorted(e.watch.path for e in old.emitters)  # the docs folder, and mkdocs.yml's folder
    assert len(watched) == 2 and str(docs) in watched
    config = SimpleNamespace(docs_dir=str(docs), config_file_path=str(cfg), theme=SimpleNamespace(dirs=[str(theme)]))
    serve_state.poll_faster(server, config)
    assert server.observer is not old and server.observer.timeout == 0.1
    assert sorted(e.watch.path for e in server.observer.emitters) == watched
    assert not old.emitters


def test_the_package_is_imported_again_only_after_an_earlier_build_when_its_inputs_changed(tmp_path, monkeypatch):
    """A process's first build keeps the modules it imported moments before (`mkdocs build` imports the
    package for its registry check): importing them again cost every build 0.2 s. A later build of a
    serve session drops them when a shared input changed, so a spec or code edit shows, and only then."""
    monkeypatch.setattr(serve_state, "_session", {"dirty": True, "fingerprint": None, "changed": True, "builds": 0})
    monkeypatch.setattr(serve_state, "SHARED_INPUTS", ("src",))
    monkeypatch.setattr(serve_state, "registry_paths", lambda: [])
    (tmp_path / "src").mkdir()
    spec = tmp_path / "src" / "hardware.toml"
    spec.write_text("a = 1\n")
    assert serve_state.begin_build(tmp_path) is True  # (a first build renders every page)
    assert serve_state.modules_may_be_stale() is False
    serve_state.begin_build(tmp_path)
    assert serve_state.modules_may_be_stale() is False  # nothing changed
    spec.write_text("a = 2\n")
    os.utime(spec, ns=(spec.stat().st_atime_ns, spec.stat().st_mtime_ns + 1_000_000))
    serve_state.begin_build(tmp_path)
    assert serve_state.modules_may_be_stale() is True
