"""`make serve` re-renders every page when a spec file in use changes, wherever it lives."""

from __future__ import annotations

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
