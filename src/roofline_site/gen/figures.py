"""mkdocs-gen-files script: render every figure module to figures/<name>.svg and .csv.

Rendering the figures with matplotlib is most of a build's time, so the output is cached
in .cache/figures/<key>/, where the key hashes everything a figure can depend on: the
figure modules, the roofline package and the spec files it reads (including any
ROOFLINE_HARDWARE / ROOFLINE_MODELS override), the measurement JSON files, and the
matplotlib version. Any change to those renders every figure afresh. The key names files by
their place in the project, not their absolute path, so a copy of the project (the tests build
several) finds the figures its sources produce; the last few generations are kept, so a build
against an edited spec does not evict the one for the real spec.
Set ROOFLINE_FIGURE_CACHE=0 to bypass the cache (the reproducibility test and the cold
build benchmark do).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
from importlib.metadata import version
from pathlib import Path

import mkdocs_gen_files
from mkdocs.exceptions import PluginError

from figures_gen import FIGURES, VARIANTS, module, render_variants
from roofline.registry import hardware, measurements, models
from roofline.registry.machine import measurements_dir

from roofline_site.paths import ROOT
CACHE = ROOT / ".cache" / "figures"
log = logging.getLogger("mkdocs.plugins.roofline.figures")


def inputs() -> dict[str, Path]:
    """{label: file} for every file whose content can change a figure.

    Labels are places in the project, and roles for the spec files the registry reads (which
    may be an override outside the project), so a copy of the project gets the same key.
    """
    files = {p.relative_to(ROOT).as_posix(): p for p in
             [*ROOT.glob("figures_gen/*.py"), *ROOT.glob("src/roofline/**/*.py"), *ROOT.glob("src/roofline/data/*.toml")]}
    files |= {f"measurements/{p.name}": p for p in measurements_dir().glob("*.json")}
    return files | {"spec: hardware": hardware.REGISTRY.path(), "spec: models": models.REGISTRY.path(),
                    "spec: measurements": measurements.REGISTRY.path()}


def cache_key() -> str:
    h = hashlib.sha256(f"matplotlib {version('matplotlib')}; figures {','.join(FIGURES)}".encode())
    for label, path in sorted(inputs().items()):
        h.update(label.encode())
        h.update(path.read_bytes() if path.exists() else b"<missing>")
    return h.hexdigest()[:16]


GENERATIONS_KEPT = 4


def rendered() -> dict[str, tuple[dict[str, bytes], str]]:
    """{file stem: ({variant suffix: svg}, csv)} for every figure, from the cache when its key matches."""
    use_cache = os.environ.get("ROOFLINE_FIGURE_CACHE", "1") != "0"
    folder = CACHE / cache_key()
    stems = {name: module(name).NAME for name in FIGURES}
    if use_cache and all((folder / f"{s}{v}.svg").exists() for s in stems.values() for v in VARIANTS) \
            and all((folder / f"{s}.csv").exists() for s in stems.values()):
        try:
            os.utime(folder)  # most recently used: the last generation evicted
            return {s: ({v: (folder / f"{s}{v}.svg").read_bytes() for v in VARIANTS},
                        (folder / f"{s}.csv").read_text()) for s in stems.values()}
        except OSError as err:  # a read-only or unreadable cache: render, and say so
            _without_cache(err)
            use_cache = False
    out = {stems[name]: _render(name) for name in FIGURES}
    if use_cache:
        _store(folder, out)
    return out


def _without_cache(err: OSError) -> None:
    """One line saying the figures are built without the cache, and why (a read-only .cache, say).

    INFO, not WARNING: a strict build must not fail because an optimisation is unavailable.
    """
    log.info("figures: building without caching; %s cannot be used (%s)",
             CACHE.relative_to(ROOT) if CACHE.is_relative_to(ROOT) else CACHE, err.strerror or err)


# A CSV cell that is NaN or an infinity: a reader who downloads the data must never get one.
NON_FINITE = re.compile(r"(?im)(?:^|,)\s*\"?[-+]?(?:nan|inf|infinity)\"?\s*(?=,|$)")


def render(name: str) -> tuple[dict[str, bytes], str]:
    """({variant suffix: svg}, csv) of one figure."""
    return render_variants(name), module(name).data().to_csv()


def _render(name: str) -> tuple[dict[str, bytes], str]:
    """One figure's variants and CSV, or a one-line build error naming its module."""
    try:
        svg, csv_text = render(name)
    except Exception as err:  # noqa: BLE001 — any failure is reported against the module
        raise PluginError(f"figure module figures_gen/{name}.py failed: {type(err).__name__}: {err}") from None
    if (bad := NON_FINITE.search(csv_text)) is not None:
        raise PluginError(f"figure module figures_gen/{name}.py: its published data (CSV) holds "
                          f"'{bad.group().strip(', ' + chr(10) + chr(13) + chr(34))}', not a finite number")
    return svg, csv_text


def _store(folder: Path, out: dict[str, tuple[dict[str, bytes], str]]) -> None:
    """Cache one generation of figures: written into a temporary folder, renamed into place whole.

    A cache is an optimisation: a full disk or a concurrent build that got there first leaves
    the figures rendered and the cache as it was, never a folder of truncated files.
    """
    tmp = folder.with_name(folder.name + f".tmp{os.getpid()}")
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for stem, (svgs, csv_text) in out.items():
            for suffix, svg in svgs.items():
                (tmp / f"{stem}{suffix}.svg").write_bytes(svg)
            (tmp / f"{stem}.csv").write_text(csv_text)
        tmp.rename(folder)
        generations = sorted((p for p in CACHE.iterdir() if ".tmp" not in p.name),
                             key=lambda p: p.stat().st_mtime, reverse=True)
        for old in generations[GENERATIONS_KEPT:]:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as err:
        if not folder.exists():  # (a concurrent build that stored this generation first is no news)
            _without_cache(err)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


for stem, (svgs, csv_text) in rendered().items():
    for suffix, svg in svgs.items():
        with mkdocs_gen_files.open(f"figures/{stem}{suffix}.svg", "wb") as f:
            f.write(svg)
    with mkdocs_gen_files.open(f"figures/{stem}.csv", "w") as f:
        f.write(csv_text)
