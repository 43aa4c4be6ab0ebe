"""Shared fixtures. The built site is built once per session (see tests/site/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


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
