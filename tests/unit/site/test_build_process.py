"""The building process's own settings (src/roofline_site/hooks/build_hook.py, `on_startup`)."""

import gc

from roofline_site.hooks import build_hook


def test_a_build_collects_young_objects_less_often(monkeypatch):
    """Python's collector starts a young collection after 700 new objects by default; a build raises that
    to 10,000 and keeps the older generations' thresholds."""
    before = gc.get_threshold()
    monkeypatch.setattr(build_hook, "_state", dict(build_hook._state))
    monkeypatch.setattr(build_hook, "end_cleanly_on", lambda *signals: None)  # no handlers in the test process
    monkeypatch.setattr(build_hook.atexit, "register", lambda f: f)
    try:
        gc.set_threshold(700, *before[1:])
        build_hook.on_startup(command="build", dirty=False)
        assert gc.get_threshold() == (10_000, *before[1:])
    finally:
        gc.set_threshold(*before)
