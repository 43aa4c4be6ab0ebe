"""`make site`'s one line when a build fails for no reason of its own: killed, or with nowhere to keep its log."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from roofline_site import build, derived
from roofline_site.html import slim

KILL_HOOK = "import os, signal\n\ndef on_config(config):\n    os.kill(os.getpid(), signal.SIGKILL)\n"
BROKEN = "def on_config(config):\n    raise SystemExit('the hook gave up')\n"


def _project(root: Path, hook: str) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("# Page\n", encoding="utf-8")
    (root / "hook.py").write_text(hook, encoding="utf-8")
    (root / "mkdocs.yml").write_text("site_name: t\nhooks:\n  - hook.py\n", encoding="utf-8")
    return root


def test_a_killed_build_is_reported_as_killed_never_by_an_info_line(tmp_path, capsys):
    root = _project(tmp_path / "p", KILL_HOOK)
    assert build.build(root=root) == 1
    err = capsys.readouterr().err
    assert "the build was killed (SIGKILL)" in err and "INFO" not in err, err


def test_a_build_that_cannot_keep_its_log_still_says_why_it_failed(tmp_path, capsys):
    root = _project(tmp_path / "p", BROKEN)
    (root / ".cache").write_text("a file where the cache folder goes")  # as a read-only .cache: unwritable
    assert build.build(root=root) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "full log not saved" in err[0] and "Traceback" not in err[0], err


def test_an_info_line_is_never_quoted_as_the_problem():
    assert build.first_problem("INFO    -  Building documentation...\nINFO    -  Cleaning site directory\n") \
        == "mkdocs stopped without saying why"


def test_caches_that_cannot_be_written_are_no_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    site = tmp_path / "site"
    (site / "assets" / "stylesheets").mkdir(parents=True)
    (site / "index.html").write_text('<p class="a">x</p>', encoding="utf-8")
    theme = tmp_path / "main.css"
    theme.write_text(".a{color:red}.b{color:blue}", encoding="utf-8")
    (site / "assets" / "stylesheets" / "main.css").write_text(theme.read_text(), encoding="utf-8")
    # A cache folder that cannot be made (a file stands in its path, as a read-only .cache refuses it):
    slim.slim_site(site, {"assets/stylesheets/main.css": theme}, blocker / "slim")
    assert (site / "assets" / "stylesheets" / "main.css").read_text() == ".a{color:red}"
    assert derived.write_pickle(blocker / "derived" / "k.pickle", {"a": 1}) is False
