"""Special files where a build or `roofline measure` expects a regular one: one line naming the file, never a hang.

A FIFO blocks a plain read until a writer comes, /dev/zero never ends, and renaming over a device
node or a FIFO turns it into a regular file; every reader and writer of the project must see them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from roofline import measure
from roofline.atomic import atomic_write_text
from roofline.errors import InputError
from tests.conftest import ROOT

KEY = "from roofline_site import derived; print(derived.cache_key())"
LOAD = "from roofline.registry.machine import site_measurements; site_measurements()"


def _folder_with(tmp_path: Path, kind: str) -> Path:
    folder = tmp_path / "measurements"
    folder.mkdir()
    for f in (ROOT / "measurements").glob("*.json"):
        shutil.copy2(f, folder / f.name)
    odd = folder / "zz.json"
    if kind == "fifo":
        os.mkfifo(odd)
    elif kind == "folder":
        odd.mkdir()
    else:
        odd.symlink_to("/dev/zero")
    return folder


@pytest.mark.parametrize("kind,said", [("fifo", "FIFO"), ("folder", "folder"), ("dev-zero", "character device")])
def test_a_special_file_in_measurements_is_named_in_one_line_and_never_hangs(tmp_path, kind, said):
    folder = _folder_with(tmp_path, kind)
    env = {**os.environ, "ROOFLINE_MEASUREMENTS_DIR": str(folder)}
    # The build's cache key reads every measurement file first: it must return, not block on the FIFO.
    key = subprocess.run([sys.executable, "-c", KEY], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert key.returncode == 0, key.stderr[-800:]
    load = subprocess.run([sys.executable, "-c", LOAD], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    last = load.stderr.strip().splitlines()[-1]
    assert "zz.json" in last and said in last and "IsADirectoryError" not in load.stderr, load.stderr[-800:]


@pytest.mark.parametrize("kind,said", [("fifo", "FIFO"), ("device", "character device"), ("folder", "folder")])
def test_measure_out_refuses_a_path_that_is_not_a_regular_file_before_measuring(run_cli, tmp_path, monkeypatch,
                                                                                kind, said):
    def no_run(**_):
        raise AssertionError("measured before refusing the output path")

    monkeypatch.setattr(measure, "run", no_run)
    if kind == "fifo":
        target = tmp_path / "pipe"
        os.mkfifo(target)
    elif kind == "device":
        target = tmp_path / "null"
        target.symlink_to("/dev/null")  # a link to the real device: refused as the device it names
    else:
        target = tmp_path
    code, out, err = run_cli("measure", "--quick", "--out", str(target))
    assert code == 2 and said in err and err.count("\n") == 1, err
    assert "measuring" not in err.lower() and out == ""
    assert Path("/dev/null").is_char_device()


def test_a_symlink_out_path_writes_its_target_and_keeps_the_link(tmp_path):
    target = tmp_path / "real" / "m.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    measure.save({"a": 1}, link)
    assert link.is_symlink() and target.read_text() == '{\n  "a": 1\n}\n'


def test_the_writer_never_replaces_a_fifo(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(OSError, match="FIFO"):
        atomic_write_text(pipe, "x")
    assert pipe.is_fifo()
    with pytest.raises(InputError, match="FIFO"):
        measure.plot_svg(pipe, [measure.load(ROOT / "measurements" / measure.EXAMPLE_FILE)])
    assert pipe.is_fifo()
