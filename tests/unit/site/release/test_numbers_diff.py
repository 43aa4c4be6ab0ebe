"""`numbers_diff REF`: every quoted number that changed since a git ref, and the changelog built from it.

Each test works in a throwaway git repository holding a copy of this checkout's code
(src/, figures_gen/) and a page written here, so the expected rows do not depend on
the site's pages. The H100 SXM5 numbers below are derived by hand from hardware.toml:
dense bf16 peak 989.4 TFLOP/s, bandwidth 3.35 TB/s -> ridge 989.4 / 3.35 = 295.34,
printed "295 FLOP/byte"; with the bandwidth edited to 3.0 TB/s the ridge is
989.4 / 3.0 = 329.8, printed "330 FLOP/byte", and the bandwidth prints "3 TB/s".
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from roofline_site.release import changelog
from roofline_site.release import numbers_diff
from roofline_site.release.numbers_diff import main
from roofline_site.release.rows import ReleaseError
from tests.conftest import ROOT

GIT = ["git", "-c", "user.name=numbers-diff test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"]
PAGE = """# Test page

The H100's ridge point is {{ ridge("h100-sxm5") }}. It reads memory at {{ bandwidth("h100-sxm5") }}.

The A100 80GB has a dense peak of {{ peak("a100-sxm4-80gb") }}.

{{ figure("h100_roofline") }}
"""
H100_BW = 'memory_bandwidth_TB_per_s = 3.35\ndense_peak_TFLOP_per_s = { bf16 = 989.4'

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def base_repo(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("numbers-diff") / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "src", repo / "src", ignore=ignore)
    shutil.copytree(ROOT / "figures_gen", repo / "figures_gen", ignore=ignore)
    (repo / "docs" / "_data").mkdir(parents=True)
    shutil.copy(ROOT / "docs" / "_data" / "changelog.toml", repo / "docs" / "_data" / "changelog.toml")
    (repo / "docs" / "index.md").write_text(PAGE, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def tree_digest(tree: Path) -> str:
    """A hash of every file the worker can read in `tree` (paths and bytes; .git and caches left out)."""
    paths = []
    for folder, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d not in (".git", "__pycache__")]
        paths += [Path(folder) / name for name in files]
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(path.relative_to(tree).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


_RENDERS: dict[str, dict] = {}
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()
REAL_RENDER = numbers_diff.render


def memo_render(tree: Path, scratch: Path, fresh: bool = False) -> dict:
    """numbers_diff.render, run once per distinct tree content in this module (`fresh`: run anyway).

    Most tests render the same base commit (and some the same edited tree) again; the worker
    is a pure function of the tree's files (it drops ROOFLINE_* from its environment), so a
    second render of identical files gives the same JSON. Each distinct tree still goes through
    the real worker in a fresh interpreter once; a failing render (ReleaseError) is not kept, and
    a result that names its own tree's path is not reused for another path.
    """
    key = tree_digest(tree)
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:  # the two sides of a no-change diff share one render rather than racing
        if fresh or key not in _RENDERS:
            result = REAL_RENDER(tree, scratch)
            if str(tree) in json.dumps(result, ensure_ascii=False):
                return result
            _RENDERS[key] = result
        return copy.deepcopy(_RENDERS[key])


def fresh_render(tree: Path, scratch: Path) -> dict:
    """The real worker, always; what it renders is kept for the tests after (see memo_render)."""
    return memo_render(tree, scratch, fresh=True)


@pytest.fixture(autouse=True)
def _memoized_render(request, monkeypatch):
    """Every test renders through memo_render, but those asking for `unmemoized`: through fresh_render."""
    fresh = "unmemoized" in request.fixturenames
    monkeypatch.setattr(numbers_diff, "render", fresh_render if fresh else memo_render)


@pytest.fixture
def unmemoized():
    """Asked for by a test that must run the real worker on both sides, end to end."""
    assert numbers_diff.render is fresh_render


@pytest.fixture
def repo(base_repo, tmp_path) -> Path:
    """A private clone of the base repository (history included), free to edit. It reads the base's
    objects (`--shared`) and writes its own: a copy of the whole .git was 320 files for each test."""
    dest = tmp_path / "repo"
    git(base_repo, "clone", "-q", "--shared", "--template=", str(base_repo), str(dest))
    return dest


def set_h100_bandwidth(repo: Path, tb_per_s: str) -> None:
    path = repo / "src" / "roofline" / "data" / "hardware.toml"
    text = path.read_text(encoding="utf-8")
    assert text.count(H100_BW) == 1, "hardware.toml's H100 SXM5 entry changed shape; update this test"
    path.write_text(text.replace(H100_BW, H100_BW.replace("3.35", tb_per_s)), encoding="utf-8")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def number_rows(rows: list[dict]) -> set[tuple[str, str, str]]:
    return {(r["page"], r["old"], r["new"]) for r in rows if r["kind"] == "number"}


def test_a_spec_change_in_the_working_tree_lists_every_dependent_number(repo, capsys, unmemoized):
    # Unmemoized: both sides go through the real worker, in fresh interpreters, end to end.
    set_h100_bandwidth(repo, "3.0")
    code, out, err = run(capsys, "HEAD", "--repo", str(repo), "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert number_rows(rows) == {("docs/index.md", "295 FLOP/byte", "330 FLOP/byte"),
                                 ("docs/index.md", "3.35 TB/s", "3 TB/s")}
    ridge = next(r for r in rows if r["old"] == "295 FLOP/byte")
    assert ridge["sentence"] == "The H100's ridge point is 330 FLOP/byte."
    assert ridge["expr"] == 'ridge("h100-sxm5")'
    figures = {r["page"]: r["sentence"] for r in rows if r["kind"] == "figure"}
    assert "h100_roofline" in figures, "the H100 roofline's data depends on its bandwidth"
    assert "data rows differ" in figures["h100_roofline"]


def test_a_committed_change_is_found_against_the_previous_commit_and_reads_as_a_table(repo, capsys):
    set_h100_bandwidth(repo, "3.0")
    git(repo, "commit", "-q", "-am", "H100 bandwidth")
    code, out, _ = run(capsys, "HEAD~1", "--repo", str(repo))
    assert code == 0
    assert out.splitlines()[0].startswith("2 quoted numbers changed since HEAD~1")
    line = next(l for l in out.splitlines() if "295 FLOP/byte" in l)
    assert "docs/index.md" in line and "330 FLOP/byte" in line and "ridge point is 330 FLOP/byte" in line
    assert "h100_roofline" in out


def test_no_change_gives_an_empty_list_and_one_line(repo, capsys, monkeypatch):
    # A what-if registry in the environment must not leak into either side.
    monkeypatch.setenv("ROOFLINE_HARDWARE", str(repo / "no-such-file.toml"))
    code, out, _ = run(capsys, "HEAD", "--repo", str(repo), "--json")
    assert (code, json.loads(out)) == (0, [])
    code, out, _ = run(capsys, "HEAD", "--repo", str(repo))
    assert code == 0
    assert out.strip().splitlines() == [out.strip()] and out.startswith("no quoted number changed since HEAD")


def test_moving_a_sentence_changes_no_number(repo, capsys):
    text = PAGE.split("\n\n")
    (repo / "docs" / "index.md").write_text("\n\n".join([text[0], text[2], text[1], text[3]]), encoding="utf-8")
    code, out, _ = run(capsys, "HEAD", "--repo", str(repo), "--json")
    assert (code, json.loads(out)) == (0, [])


def test_a_token_rewritten_in_place_is_one_change_and_a_same_text_rewrite_is_none(repo, capsys):
    # A100 80GB dense bf16 peak: 312 TFLOP/s (hardware.toml); to two significant figures, 310.
    text = PAGE.replace('{{ peak("a100-sxm4-80gb") }}', '{{ peak("a100-sxm4-80gb").sig(2) }}')
    text = text.replace('{{ ridge("h100-sxm5") }}', '{{ ridge("h100-sxm5", "bf16") }}')
    (repo / "docs" / "index.md").write_text(text, encoding="utf-8")
    code, out, _ = run(capsys, "HEAD", "--repo", str(repo), "--json")
    rows = json.loads(out)
    assert code == 0
    assert [(r["kind"], r["old"], r["new"], r["expr"]) for r in rows] == [
        ("number", "312 TFLOP/s", "310 TFLOP/s", 'peak("a100-sxm4-80gb") -> peak("a100-sxm4-80gb").sig(2)')]


def test_a_page_missing_at_the_ref_is_listed_as_added_not_as_an_error(repo, capsys):
    (repo / "docs" / "new.md").write_text('# New\n\nThe H200 reads memory at {{ bandwidth("h200-sxm") }}.\n')
    code, out, err = run(capsys, "HEAD", "--repo", str(repo), "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["kind"], r["page"]) for r in rows] == [("page-added", "docs/new.md")]


def test_a_page_that_fails_to_render_is_named_and_exits_1(repo, capsys):
    (repo / "docs" / "index.md").write_text(PAGE + '\nBroken: {{ ridge("no-such-chip") }}.\n')
    code, out, _ = run(capsys, "HEAD", "--repo", str(repo), "--json")
    errors = [r for r in json.loads(out) if r["kind"] == "error"]
    assert code == 1
    assert [r["page"] for r in errors] == ["docs/index.md"] and "no-such-chip" in errors[0]["sentence"]


def test_a_bad_ref_gives_one_line_and_exit_2(repo, capsys):
    code, out, err = run(capsys, "no-such-tag", "--repo", str(repo))
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [err.strip()] and "'no-such-tag' is not a commit" in err


def test_a_broken_spec_in_the_working_tree_gives_its_one_line_and_exit_2(repo, capsys):
    set_h100_bandwidth(repo, "-3.35")
    code, out, err = run(capsys, "HEAD", "--repo", str(repo))
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [err.strip()]
    assert "hardware.toml: h100-sxm5: field 'memory_bandwidth_TB_per_s' must be positive" in err


def test_outside_a_repository_gives_one_line_and_exit_2(tmp_path, capsys):
    code, _, err = run(capsys, "HEAD", "--repo", str(tmp_path))
    assert code == 2 and "not inside a git repository" in err and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------- changelog ---------------
def test_record_appends_a_release_that_the_changelog_page_renders(repo, capsys):
    set_h100_bandwidth(repo, "3.0")
    data = repo / changelog.DATA_RELPATH
    code, _, err = run(capsys, "HEAD", "--repo", str(repo), "--record", "99.0.0", "--note", "H100 bandwidth corrected.")
    assert code == 0, err
    releases = changelog.load(data)
    assert [r.version for r in releases][-1] == "99.0.0"
    new = releases[-1]
    assert new.note == "H100 bandwidth corrected."
    assert {(c.page, c.old, c.new) for c in new.changes if c.kind == "number"} == {
        ("docs/index.md", "295 FLOP/byte", "330 FLOP/byte"), ("docs/index.md", "3.35 TB/s", "3 TB/s")}
    page = changelog.changelog_markdown(data, repo / "docs")
    assert page.index("## v99.0.0") < page.index("## v0.1.0"), "newest release first"
    assert '<summary><a href="../">index</a>: 2 numbers</summary>' in page
    assert ("<tr><td>The H100&#x27;s ridge point is 330 FLOP/byte.</td><td><code>295 FLOP/byte</code></td>"
            "<td><code>330 FLOP/byte</code></td></tr>") in page
    # The same version twice is refused with one line.
    code, _, err = run(capsys, "HEAD", "--repo", str(repo), "--record", "99.0.0", "--note", "again")
    assert code == 2 and "already" in err


def test_record_needs_a_note_and_a_version(repo, capsys):
    code, _, err = run(capsys, "HEAD", "--repo", str(repo), "--record", "0.2.0")
    assert code == 2 and "--note" in err
    code, _, err = run(capsys, "HEAD", "--repo", str(repo), "--record", "next", "--note", "x")
    assert code == 2 and "version" in err


def test_the_seed_release_is_the_first_publication_with_no_number_changed():
    releases = changelog.load()
    assert releases[0].version == "0.1.0" and releases[0].changes == ()
    first = changelog.release_markdown(releases[0], ROOT / "docs")
    assert first.startswith("## v0.1.0") and "No quoted number changed." in first


def test_a_malformed_changelog_names_the_file_and_release(tmp_path):
    bad = tmp_path / "changelog.toml"
    bad.write_text('[[release]]\nversion = "next"\ndate = 2026-01-01\nnote = "x"\n')
    with pytest.raises(ReleaseError, match=r"changelog.toml: release 1: 'version'"):
        changelog.load(bad)
    bad.write_text('[[release]]\nversion = "0.3.0"\ndate = 2026-01-01\nnote = ""\n')
    with pytest.raises(ReleaseError, match="note"):
        changelog.load(bad)


def test_the_changelog_page_is_generated_from_the_data_file():
    text = (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8")
    assert "{{ changelog() }}" in text


def test_the_unreleased_section_renders_first_and_keeps_each_rows_expression(tmp_path):
    from roofline_site.release import changelog as cl
    from roofline_site.release.rows import Row

    data = tmp_path / "changelog.toml"
    data.write_text('[[release]]\nversion = "0.2.0"\ndate = 2026-11-23\nnote = "a fix"\n', encoding="utf-8")
    rows = [Row("number", "docs/memory-bandwidth.md", "446 tokens/s", "417 tokens/s", "s.", 'sol("a", "b", "int8")', "sol"),
            Row("quote-added", "docs/x.md", "", "1 B", "s.", "x", "x")]
    cl.write_unreleased(cl.load(data)[0], "abc", rows, tmp_path / "unreleased.toml")
    u = cl.load_unreleased(tmp_path / "unreleased.toml")
    assert [c.expr for c in u.changes] == ['sol("a", "b", "int8")']  # only the kinds a release records
    md = cl.changelog_markdown(data, tmp_path)
    assert md.index("## Unreleased") < md.index("## v0.2.0") and "417 tokens/s" in md
