"""Gate 3: two clean builds produce byte-identical site trees; a successful `make site` swaps the new tree in.

The second build goes through `roofline_site.build` (what `make site` runs) into a folder that
already holds a stale site, and is compared file by file with the session's build.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from figures_gen import FIGURES
from roofline_site import build
from tools import sitecheck


def tree_differences(a: Path, b: Path, limit: int = 10) -> list[str]:
    """What differs between two site trees: missing files, then the first differing line of each changed file."""
    files_a, files_b = set(sitecheck.site_files(a)), set(sitecheck.site_files(b))
    out = [f"only in the first build: {f}" for f in sorted(files_a - files_b)]
    out += [f"only in the second build: {f}" for f in sorted(files_b - files_a)]
    for rel in sorted(files_a & files_b):
        x, y = (a / rel).read_bytes(), (b / rel).read_bytes()
        if x != y:
            lines = difflib.unified_diff(x.decode("utf-8", "replace").splitlines(),
                                         y.decode("utf-8", "replace").splitlines(), lineterm="", n=0)
            changed = [l for l in lines if l[:1] in "+-" and not l.startswith(("+++", "---"))][:2]
            out.append(f"{rel} differs: {' | '.join(c[:160] for c in changed) or 'binary'}")
    return out[:limit]


def test_tree_differences_sees_a_changed_byte(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "x.txt").write_text("same\n")
    (tmp_path / "b" / "x.txt").write_text("same\nextra\n")
    (tmp_path / "b" / "y.txt").write_text("")
    diffs = tree_differences(tmp_path / "a", tmp_path / "b")
    assert diffs == ["only in the second build: y.txt", "x.txt differs: +extra"]


def test_two_clean_builds_are_byte_identical(site_dir, tmp_path, capsys, monkeypatch):
    # Render the figures afresh (no figure cache), so matplotlib's output itself is compared.
    monkeypatch.setenv("ROOFLINE_FIGURE_CACHE", "0")
    renders = tmp_path / "renders.json"
    monkeypatch.setenv("ROOFLINE_FIGURE_RENDERS", str(renders))  # the build's count of renders per figure
    second = tmp_path / "site"
    second.mkdir()
    (second / "stale.html").write_text("from an older build")
    assert build.build(second) == 0, capsys.readouterr().err
    # Each figure rendered at most twice in the build (wide, narrow; the dark variants are mapped from
    # those): before, every figure was saved four times.
    counts = json.loads(renders.read_text())
    assert set(counts) == set(FIGURES), f"renders counted for {sorted(counts)}"
    assert {name: n for name, n in counts.items() if not 1 <= n <= 2} == {}  # wide and narrow: two renders a figure, not four
    assert not (second / "stale.html").exists(), "the successful build was not swapped in"
    assert not second.with_name("site.tmp").exists() and not second.with_name("site.old").exists()
    diffs = tree_differences(site_dir, second)
    if diffs:
        # Sources may have changed since the session's build (a live edit): compare two
        # back-to-back builds instead; real nondeterminism shows up there too.
        third = tmp_path / "third"
        assert build.build(third) == 0, capsys.readouterr().err
        diffs = tree_differences(second, third)
    assert diffs == []
