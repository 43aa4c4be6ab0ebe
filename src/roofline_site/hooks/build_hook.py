"""A plain `mkdocs build` fails as safely as `make site`: one line, and the old site/ kept.

Readers rebuild with `mkdocs build` after editing a spec. MkDocs empties site/ before it
renders anything, and an error in the registry would surface as a traceback from deep in
the first page that quotes it. So, for `mkdocs build` (not serve, not --dirty):

* the spec files are loaded up front, and a broken one stops the build with its own
  one-line message (file, entry, field) before site/ is touched;
* the build goes into a sibling folder, moved into place only after every other hook has
  run and no warning was logged under --strict; on failure the folder is removed.

`make site` (roofline_site.build) does the same swap from outside and prints one line.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.utils import CountHandler

from roofline_site.build import swap_in

_state: dict = {"command": None, "dirty": False, "real": None, "tmp": None, "warnings": None}


def check_registry() -> None:
    """Load every spec file; a broken one raises PluginError with the loader's one sentence."""
    from roofline.errors import SpecError
    from roofline.registry.hardware import devices
    from roofline.registry.measurements import published
    from roofline.registry.models import models

    try:
        devices(), models(), published()
    except SpecError as err:
        raise PluginError(f"spec error: {err}") from None


def on_startup(command, dirty, **kwargs):
    _state.update(command=command, dirty=dirty)


@event_priority(100)  # first: before any other hook reads the registry or the site folder
def on_config(config, **kwargs):
    if _state["command"] != "build":
        return config
    check_registry()
    if _state["dirty"]:
        return config  # a dirty build adds to site/ in place by design
    real = Path(config["site_dir"])
    tmp = real.with_name(f".{real.name}.building-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    _state.update(real=real, tmp=tmp)
    config["site_dir"] = str(tmp)
    if config["strict"]:
        # MkDocs' own counter, as --strict uses it: a build that will abort is not swapped in.
        _state["warnings"] = CountHandler(level=logging.WARNING)
        logging.getLogger("mkdocs").addHandler(_state["warnings"])
    return config


def _discard() -> None:
    if _state["tmp"] is not None:
        shutil.rmtree(_state["tmp"], ignore_errors=True)
    if _state["warnings"] is not None:
        logging.getLogger("mkdocs").removeHandler(_state["warnings"])
    _state.update(real=None, tmp=None, warnings=None)


@event_priority(-1000)  # last: every other hook has written its files into the folder
def on_post_build(config, **kwargs):
    real, tmp, counter = _state["real"], _state["tmp"], _state["warnings"]
    if real is None:
        return
    if counter is not None and counter.get_counts():
        _discard()  # MkDocs aborts next ("in strict mode"); site/ stays as it was
        return
    swap_in(tmp, real)
    config["site_dir"] = str(real)
    _state["tmp"] = None
    _discard()


def on_build_error(error, **kwargs):
    _discard()
