"""What a build keeps between builds (#26): the same output as computing afresh, and never a stale value."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_site import derived
from roofline_site.html import slim


def _site(root: Path, page: str) -> tuple[Path, dict[str, Path]]:
    """A built site of one page and one theme stylesheet (`theme/assets/stylesheets/main.css`)."""
    site = root / "site"
    (site / "assets" / "stylesheets").mkdir(parents=True, exist_ok=True)
    (site / "index.html").write_text(page, encoding="utf-8")
    theme = root / "theme" / "assets" / "stylesheets" / "main.css"
    theme.parent.mkdir(parents=True, exist_ok=True)
    theme.write_text(".a{color:red}.b{color:blue}", encoding="utf-8")
    (site / "assets" / "stylesheets" / "main.css").write_text(theme.read_text(), encoding="utf-8")
    return site, {"assets/stylesheets/main.css": theme}


def _purged(site: Path) -> str:
    return (site / "assets" / "stylesheets" / "main.css").read_text(encoding="utf-8")


def test_slim_cache_gives_what_a_fresh_purge_gives_and_follows_an_edit(tmp_path):
    cache = tmp_path / "cache"
    # By hand: the page uses class "a" only, so the purge keeps `.a{color:red}` and drops `.b`.
    site, theme = _site(tmp_path / "one", '<p class="a">x</p>')
    slim.slim_site(site, theme, cache)
    assert _purged(site) == ".a{color:red}"
    stored = sorted(p.name for p in cache.glob("*.json"))
    assert len(stored) == 2  # by the texts and by the names
    site, theme = _site(tmp_path / "one", '<p class="a">x</p>')  # the same site again: read from the cache
    slim.slim_site(site, theme, cache)
    assert _purged(site) == ".a{color:red}" and sorted(p.name for p in cache.glob("*.json")) == stored
    # An edit that adds no name: a new text key, the same names key (three files), the same sheet.
    site, theme = _site(tmp_path / "one", '<p class="a">y</p>')
    slim.slim_site(site, theme, cache)
    assert _purged(site) == ".a{color:red}" and len(list(cache.glob("*.json"))) == 3
    # An edit that uses class "b" too must not get the stored sheet: both rules stay.
    site, theme = _site(tmp_path / "one", '<p class="a b">y</p>')
    slim.slim_site(site, theme, cache)
    assert _purged(site) == ".a{color:red}.b{color:blue}"


@pytest.fixture
def derived_cache(tmp_path, monkeypatch):
    """`derived` storing in `tmp_path`, with a key the test sets (`key["now"]`)."""
    key = {"now": "k1"}
    monkeypatch.setattr(derived, "CACHE", tmp_path / "derived")
    monkeypatch.setattr(derived, "cache_key", lambda: key["now"])
    monkeypatch.delenv("ROOFLINE_FIGURE_CACHE", raising=False)
    derived._last.clear()
    yield key
    derived._last.clear()
    derived._build.update(key=None, loaded={}, values={})


def test_derived_values_are_reused_for_the_same_key_only(derived_cache):
    calls = []

    def compute():
        calls.append(1)
        return f"value {len(calls)}"

    derived.begin_build()
    assert derived.memo(("x",), compute) == "value 1"
    derived.end_build()
    assert (derived.CACHE / "k1.pickle").is_file()
    derived._last.clear()  # a new process: read from the file
    derived.begin_build()
    assert derived.memo(("x",), compute) == "value 1" and len(calls) == 1
    derived.end_build()
    derived_cache["now"] = "k2"  # a spec or package edit: a new key, computed again
    derived.begin_build()
    assert derived.memo(("x",), compute) == "value 2" and len(calls) == 2


def test_a_cold_build_computes_every_derived_value(derived_cache, monkeypatch):
    monkeypatch.setenv("ROOFLINE_FIGURE_CACHE", "0")
    calls = []
    for _ in range(2):
        derived.begin_build()
        derived.memo(("x",), lambda: calls.append(1))
        derived.end_build()
    assert len(calls) == 2 and not derived.CACHE.exists()


def test_an_unreadable_derived_cache_is_computed_not_an_error(derived_cache):
    derived.CACHE.mkdir(parents=True)
    (derived.CACHE / "k1.pickle").write_bytes(b"\x80\x05truncated")
    derived.begin_build()
    assert derived.memo(("x",), lambda: "fresh") == "fresh"
