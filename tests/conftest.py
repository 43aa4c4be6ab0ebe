"""Shared fixtures. The built site is built once per session (see tests/site/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]

# Property tests check values, not time: a run shares two cores with site builds and browsers, and a
# 0.3 ms example once took 297 ms there (Hypothesis' 200 ms deadline then fails it as flaky). Speed
# is measured in `make bench`. One setting for every test instead of `deadline=None` on each.
settings.register_profile("roofline", deadline=None)
settings.load_profile("roofline")


@pytest.hookimpl(trylast=True)  # after the tmp_path plugin has set up the run's temporary folder
def pytest_configure(config):
    """In the pytest-xdist controller of a run that collects tests/site: start the session's site
    build now, in the background, so the workers run the unit tests (collected first) meanwhile
    instead of one building and the other waiting on it (tests/support/session_site.py)."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    from tests.support.session_site import start_in_background, wants_site

    if wants_site(config.args, Path(config.rootpath)):
        start_in_background(config._tmp_path_factory.getbasetemp())


@pytest.fixture(autouse=True)
def _fresh_steps():
    """Each test starts with no remembered decode or prefill steps (roofline.model.kernels.remembered):
    a test may patch a constant the steps read, and no other test may see what it computed then."""
    from roofline.model.kernels import forget_steps

    forget_steps()


@pytest.fixture
def run_cli(capsys):
    """Run `roofline ...` in-process; return (exit status, stdout, stderr)."""
    from roofline.cli import main

    def run(*args: str):
        try:
            code = main(list(args))
        except SystemExit as exc:  # the not-fit path exits 2 itself
            code = exc.code
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


@pytest.fixture
def spec_copy(tmp_path, monkeypatch):
    """Point the registry at an editable copy of a spec file; returns (path, text)."""
    from roofline.registry import hardware, models

    def make(name: str, text_transform=None) -> Path:
        src = ROOT / "src" / "roofline" / "data" / name
        dst = tmp_path / name
        text = src.read_text()
        dst.write_text(text_transform(text) if text_transform else text)
        var = {"hardware.toml": "ROOFLINE_HARDWARE", "models.toml": "ROOFLINE_MODELS"}[name]
        monkeypatch.setenv(var, str(dst))
        hardware.REGISTRY.cache_clear()
        models.REGISTRY.cache_clear()
        return dst

    yield make
    hardware.REGISTRY.cache_clear()
    models.REGISTRY.cache_clear()
