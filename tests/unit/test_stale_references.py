"""No comment or docstring names a module, a module's function or a file the tree no longer has.

Scanned: every Python file under src/, figures_gen/, tools/ and tests/ (comments and docstrings),
and the calculator's docs/assets/calculator/*.js (comments). What counts as one of ours is in
tests/support/stale_refs.py; the fake references below show the check fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.stale_refs import stale_in, stale_in_file

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("src/**/*.py", "figures_gen/**/*.py", "tools/**/*.py", "tests/**/*.py", "docs/assets/calculator/*.js")


def test_no_comment_or_docstring_names_what_does_not_exist():
    files = sorted({f for pattern in SCANNED for f in ROOT.glob(pattern)})
    assert len(files) > 100  # the globs found the tree
    stale = [str(s) for f in files for s in stale_in_file(f, ROOT)]
    assert not stale, "\n".join(stale)


HERE = ROOT / "src" / "roofline" / "cli.py"


@pytest.mark.parametrize("text, name", [
    ("mirrors roofline.calculator_view.kernel_outputs", "roofline.calculator_view.kernel_outputs"),  # gone function
    ("see roofline.model.perfect_overlap", "roofline.model.perfect_overlap"),  # gone module
    ("uses kernels._scalar here", "kernels._scalar"),  # a module basename of ours, gone name
    ("(tests/unit/test_calculator_kernels_parity.py)", "tests/unit/test_calculator_kernels_parity.py"),
    ("written by src/roofline_site/gen_figures.py", "src/roofline_site/gen_figures.py"),
    ("parity-tested by test_calculator_kernels_parity.py", "test_calculator_kernels_parity.py"),
    ("mirrored in perfect_overlap.js", "perfect_overlap.js"),
])
def test_a_fake_stale_reference_is_caught(text, name):
    assert [s.name for s in stale_in(text, HERE, ROOT)] == [name]


@pytest.mark.parametrize("text", [
    "mirrors roofline.calculator_view.calculate and kernels.decode",  # live function, module basename
    "see roofline.model.kernels and tests/unit/test_cli.py, kernels.js and view.js",
    "vLLM's vllm/v1/attention/backends/mla/common.py and self.stage.flops",  # not ours: another repo, a method
    "https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/server_args.py",  # a URL
    "a [[release.change]] table; the site's calculator/registry.json",  # TOML syntax; a built file
])
def test_live_or_foreign_names_pass(text):
    assert stale_in(text, HERE, ROOT) == []
