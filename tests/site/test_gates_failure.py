"""Gate 7: a failing build leaves the previous site/ intact and ends with one line naming the file and the problem.

Each case breaks a throw-away copy of the project (or points the registry at a broken copy of a
spec), runs `python -m roofline_site.build --root <copy>`, and checks what is left behind.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tools.bench import copy_project
from tests.conftest import ROOT

PREVIOUS = "<html><body>the previous site</body></html>"


@pytest.fixture
def project_copy(tmp_path) -> Path:
    """A copy of the project's sources with a previous site/ already built."""
    root = copy_project(tmp_path / "project")
    (root / "site").mkdir()
    (root / "site" / "index.html").write_text(PREVIOUS)
    return root


def run_build(root: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "roofline_site.build", "--root", str(root)],
                          cwd=root, env={**os.environ, **env}, capture_output=True, text=True, timeout=600)


def assert_site_kept(root: Path, proc: subprocess.CompletedProcess) -> None:
    """The build failed without a traceback, and site/ and its surroundings are as they were."""
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert sorted(p.name for p in (root / "site").iterdir()) == ["index.html"]
    assert (root / "site" / "index.html").read_text() == PREVIOUS
    assert not (root / "site.tmp").exists()
    assert not [p.name for p in root.iterdir() if p.name.startswith(".site.")], "a temporary build folder was left"
    assert "Traceback" not in proc.stderr


def broken_hardware_spec(tmp_path: Path) -> Path:
    """A copy of hardware.toml whose first bandwidth is negative."""
    spec = tmp_path / "hardware.toml"
    text = (ROOT / "src" / "roofline" / "data" / "hardware.toml").read_text()
    spec.write_text(re.sub(r"(memory_bandwidth_TB_per_s\s*=\s*)[\d.]+", r"\g<1>-3.35", text, count=1))
    return spec


def assert_failed_cleanly(root: Path, proc: subprocess.CompletedProcess, *must_name: str) -> str:
    assert_site_kept(root, proc)
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("build failed, site/ left as it was: "), proc.stderr
    for name in must_name:
        assert name in last, f"the last line does not name {name!r}: {last}"
    return last


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def test_bad_spec_names_the_file_entry_and_field(project_copy, tmp_path):
    proc = run_build(project_copy, ROOFLINE_HARDWARE=str(broken_hardware_spec(tmp_path)))
    assert_failed_cleanly(project_copy, proc, "hardware.toml", "memory_bandwidth_TB_per_s", "positive")


def test_raising_block_names_the_page_and_the_exception(project_copy):
    _append(project_copy / "docs" / "index.md",
            '\n\n```python exec="on"\nraise ValueError("a deliberately broken block")\n```\n')
    proc = run_build(project_copy)
    lines = (project_copy / "docs" / "index.md").read_text().splitlines()
    raising = lines.index('raise ValueError("a deliberately broken block")') + 1
    assert_failed_cleanly(project_copy, proc, f"docs/index.md:{raising}:", "ValueError: a deliberately broken block")


def test_a_block_printing_nan_fails_the_build_naming_the_page(project_copy):
    # Source that mentions float("nan") is fine; the printed nan is what a reader would see.
    _append(project_copy / "docs" / "index.md",
            '\n\n```python exec="on" source="above" result="text"\nprint(float("nan"))\n```\n')
    proc = run_build(project_copy)
    assert_failed_cleanly(project_copy, proc, "index.md", "non-finite value", "nan")


def test_a_figure_module_that_raises_fails_the_build_in_the_render_s_own_line(project_copy):
    # Figures render while the pages do (roofline_site.pending_figures): the failure still ends the
    # build with _render's one line, wherever the build notices it (at the next page or the figure's
    # own, which MkDocs names first: "Error building page 'index.md': ...", or at the end).
    # The home page's figure is the first the workers take (gen/figures.in_page_order), so the build
    # stops within seconds; the last one (ridge_overlay) kept it rendering every other for 10 s here.
    _append(project_copy / "figures_gen" / "h100_roofline.py",
            '\n\ndef draw(fig, table):\n    raise ZeroDivisionError("a deliberately broken figure")\n')
    proc = run_build(project_copy, ROOFLINE_FIGURE_CACHE="0")
    assert_failed_cleanly(project_copy, proc, "figure module figures_gen/h100_roofline.py failed: "
                                              "ZeroDivisionError: a deliberately broken figure")


def test_broken_link_names_the_page_and_the_link(project_copy):
    _append(project_copy / "docs" / "index.md", "\n\nSee [this page](no-such-page.md).\n")
    _append(project_copy / "docs" / "ridge-point.md", "\n\nSee [that page](no-such-other-page.md).\n")
    proc = run_build(project_copy)
    assert_failed_cleanly(project_copy, proc, "index.md", "no-such-page.md")
    # The build stops at the first warning (hooks/build_hook.py, StopAtFirstWarning): the home page
    # is rendered first, so the later page's broken link is never reached.
    log = (project_copy / ".cache" / "last-build.log").read_text()
    assert "Aborted: --strict stops at the first warning above" in log
    assert "no-such-other-page.md" not in log


def test_stale_claim_names_the_page_and_the_statement(project_copy):
    _append(project_copy / "docs" / "index.md",
            '\n\n{{ claim(ridge("h100-sxm5").value < 0, "the H100 ridge point is negative") }}\n')
    proc = run_build(project_copy)
    assert_failed_cleanly(project_copy, proc, "index.md", "the H100 ridge point is negative")



@pytest.mark.parametrize("old, new, must_name", [
    # A misspelt binding in a token, then a binding whose own expression names an unknown model.
    ("{{ paging.paged_batch }}", "{{ pagin.paged_batch }}", ("playbook.md:", "'pagin'", "binding 'paging'")),
    ('paging: paged("llama-3.1-8b"', 'paging: paged("llama-3.1-8bb"', ("playbook.md: binding 'paging'", "llama-3.1-8bb")),
])
def test_bad_binding_names_the_page_and_the_binding(project_copy, old, new, must_name):
    page = project_copy / "docs" / "playbook.md"
    assert old in page.read_text()
    page.write_text(page.read_text().replace(old, new, 1))
    proc = run_build(project_copy)
    assert_failed_cleanly(project_copy, proc, *must_name)


# ---- the same guarantees for a plain `mkdocs build` (how readers rebuild after editing a spec) ----
def run_mkdocs_build(root: Path, **env) -> subprocess.CompletedProcess:
    quiet = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=root,
                          env={**os.environ, **quiet, **env}, capture_output=True, text=True, timeout=600)


def assert_plain_build_failed_cleanly(root: Path, proc: subprocess.CompletedProcess, *must_name: str) -> str:
    assert_site_kept(root, proc)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1, proc.stderr
    for name in must_name:
        assert name in errors[0], f"the error line does not name {name!r}: {errors[0]}"
    return errors[0]


def test_plain_mkdocs_build_with_a_bad_spec_keeps_the_site(project_copy, tmp_path):
    proc = run_mkdocs_build(project_copy, ROOFLINE_HARDWARE=str(broken_hardware_spec(tmp_path)))
    assert_plain_build_failed_cleanly(project_copy, proc, "hardware.toml", "memory_bandwidth_TB_per_s", "positive")


def test_plain_mkdocs_build_with_a_broken_link_keeps_the_site(project_copy):
    _append(project_copy / "docs" / "index.md", "\n\nSee [this page](no-such-page.md).\n")
    proc = run_mkdocs_build(project_copy)
    assert_site_kept(project_copy, proc)
    assert "no-such-page.md" in proc.stderr
