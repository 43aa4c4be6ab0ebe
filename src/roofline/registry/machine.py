"""This machine's measured roofs as `roofline measure` records them: the schema, the protocol, the files.

A record is a JSON document (`SCHEMA`) that the runner (`roofline.measure`) writes and everything
else reads: the CLI, the number tokens (quantities/machine.py), the site's tables and figure.
`load` validates one with one-sentence errors naming the file and field; the protocol constants
(budget, repetitions) live here because a record states them and the pages quote them.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roofline.errors import InputError
from roofline.readfile import RepeatedKey, UnreadableFile, json_int, one_line, read_capped, surrogate_problem, unique_keys
from roofline.registry.specfile import MAX_TEXT_CHARS, show

SCHEMA = "roofline-measurement/1"

# --- the protocol a record states in its "settings" ------------------------------------------
DEFAULT_BUDGET_S = 30.0
QUICK_BUDGET_S = 5.0
MIN_REPS = 3
MAX_REPS = 100

#: The committed example measurement, quoted on the site (measurements/README.md says how it was made).
EXAMPLE_FILE = "example-shared-2vcpu-xeon.json"


class MeasurementError(InputError):
    """A measurement JSON file that is malformed or not a roofline measurement."""


# --------------------------------------------------------------------- reading back ------
@dataclass(frozen=True)
class Rate:
    """One measured kernel: median and best rate (B/s or FLOP/s)."""

    median: float
    best: float
    reps: int


@dataclass(frozen=True)
class Measurement:
    """A validated measurement file: the machine and its measured roofs."""

    source: str          # the file it came from (a name, for messages and legends)
    label: str
    note: str
    created_utc: str
    cpu_model: str
    usable_cpus: int
    blas: str
    numpy: str
    copy: Rate
    triad: Rate
    fp64: Rate
    fp32: Rate
    gpu: dict
    array_bytes: float | None = None   # bytes per STREAM array
    llc_bytes: float | None = None     # the last-level cache it had to exceed

    @property
    def bandwidth_bytes_per_s(self) -> float:
        """The sustained bandwidth roof: the triad median."""
        return self.triad.median

    @property
    def peak_flop_per_s(self) -> float:
        """The compute roof: the faster of the fp32 and fp64 GEMM medians."""
        return max(self.fp32.median, self.fp64.median)

    @property
    def ridge_point(self) -> float:
        """Measured ridge point (FLOP/byte): fp32 GEMM median ÷ triad median."""
        return self.fp32.median / self.triad.median


def _get(doc: Any, path: str, name: str) -> Any:
    cur = doc
    for key in path.split("."):
        if not isinstance(cur, dict) or key not in cur:
            raise MeasurementError(f"{name}: field '{path}' is missing")
        cur = cur[key]
    return cur


#: Plausible measured rates: 1 MB/s to 1 PB/s, 1 MFLOP/s to 1 EFLOP/s. Outside, a file is broken.
RATE_RANGES = {"bytes_per_s": (1e6, 1e15, "1 MB/s to 1 PB/s"), "flop_per_s": (1e6, 1e18, "1 MFLOP/s to 1 EFLOP/s")}


def _positive_rate(v: Any, field: str, unit: str, name: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise MeasurementError(f"{name}: field '{field}' must be a positive number, got {show(v)}")
    lo, hi, words = RATE_RANGES[unit]
    if not lo <= v <= hi:
        raise MeasurementError(f"{name}: field '{field}' must be between {show(lo)} and {show(hi)} ({words}), "
                               f"got {show(v)}")
    return float(v)


def _rate(doc: dict, path: str, unit: str, name: str) -> Rate:
    values = []
    for stat in ("median", "best"):
        v = _get(doc, f"{path}.{stat}_{unit}", name)
        values.append(_positive_rate(v, f"{path}.{stat}_{unit}", unit, name))
    if values[1] < values[0]:
        raise MeasurementError(f"{name}: field '{path}.best_{unit}' is below the median, which cannot happen")
    reps = _get(doc, f"{path}.reps", name)
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        raise MeasurementError(f"{name}: field '{path}.reps' must be a whole number ≥ 1, got {reps!r}")
    return Rate(values[0], values[1], reps)


def _text(doc: dict, path: str, name: str, *, required: bool = True) -> str:
    try:
        v = _get(doc, path, name)
    except MeasurementError:
        if required:
            raise
        return ""
    if not isinstance(v, str):
        raise MeasurementError(f"{name}: field '{path}' must be a string, got {show(v)}")
    if len(v) > MAX_TEXT_CHARS["*"]:  # the spec files' bound: a label or a note, not a document
        raise MeasurementError(f"{name}: field '{path}' is {len(v):,} characters long; at most "
                               f"{MAX_TEXT_CHARS['*']:,}")
    if (problem := surrogate_problem(v)) is not None:
        raise MeasurementError(f"{name}: field '{path}' {problem}")
    return one_line(v)


def validate(doc: Any, name: str) -> Measurement:
    """Check a parsed measurement document; raise MeasurementError naming `name` and the problem."""
    if not isinstance(doc, dict):
        raise MeasurementError(f"{name}: not a roofline measurement (the JSON is a {type(doc).__name__}, "
                               "not an object)")
    schema = doc.get("schema")
    if schema != SCHEMA:
        got = "has no 'schema' field" if schema is None else f"has schema {schema!r}"
        raise MeasurementError(f"{name}: not a roofline measurement (it {got}; expected {SCHEMA!r})")
    cpus = _get(doc, "machine.usable_cpus", name)
    if isinstance(cpus, bool) or not isinstance(cpus, int) or cpus < 1:
        raise MeasurementError(f"{name}: field 'machine.usable_cpus' must be a whole number ≥ 1, got {cpus!r}")
    blas = _get(doc, "machine.blas", name)
    blas_text = " ".join(str(blas.get(k, "")) for k in ("name", "version")).strip() if isinstance(blas, dict) else str(blas)
    gpu = _gpu(doc.get("gpu", {}), name)
    return Measurement(
        source=name, label=_text(doc, "label", name), note=_text(doc, "note", name, required=False),
        created_utc=_text(doc, "created_utc", name), cpu_model=_text(doc, "machine.cpu_model", name),
        usable_cpus=cpus, blas=blas_text or "unknown", numpy=_text(doc, "machine.numpy", name),
        copy=_rate(doc, "bandwidth.copy", "bytes_per_s", name),
        triad=_rate(doc, "bandwidth.triad", "bytes_per_s", name),
        fp64=_rate(doc, "matmul.fp64", "flop_per_s", name),
        fp32=_rate(doc, "matmul.fp32", "flop_per_s", name),
        gpu=gpu,
        array_bytes=_optional_positive(doc, "bandwidth.triad.array_bytes"),
        llc_bytes=_optional_positive(doc, "machine.last_level_cache_bytes"),
    )


def _gpu(gpu: Any, name: str) -> dict[str, Any]:
    """The optional 'gpu' section: {"skipped": reason} or {"device": name, dtype: {median_flop_per_s, ...}}."""
    if not isinstance(gpu, dict):
        raise MeasurementError(f"{name}: field 'gpu' must be an object, got {type(gpu).__name__}")
    if "skipped" in gpu and not isinstance(gpu["skipped"], str):
        raise MeasurementError(f"{name}: field 'gpu.skipped' must be a string")
    if "device" in gpu and not isinstance(gpu["device"], str):
        raise MeasurementError(f"{name}: field 'gpu.device' must be a string")
    for key, value in gpu.items():
        if key in ("skipped", "device"):
            continue
        if not isinstance(value, dict) or "median_flop_per_s" not in value:
            raise MeasurementError(f"{name}: field 'gpu.{key}' must be an object with a 'median_flop_per_s'")
        _positive_rate(value["median_flop_per_s"], f"gpu.{key}.median_flop_per_s", "flop_per_s", name)
    return gpu


def _optional_positive(doc: dict, path: str) -> float | None:
    cur: Any = doc
    for key in path.split("."):
        cur = cur.get(key) if isinstance(cur, dict) else None
    ok = isinstance(cur, (int, float)) and not isinstance(cur, bool) and math.isfinite(cur) and cur > 0
    return float(cur) if ok else None


def _no_constant(word: str):
    raise ValueError(f"'{word}' is not a JSON number")


#: A measurement record is a few KB; past this a file is not one (and is not read to its end).
MAX_MEASUREMENT_BYTES = 10 * 1024 * 1024


def load(path: Path | str, name: str | None = None) -> Measurement:
    """Read and validate one measurement JSON file."""
    name = name or str(path)
    return validate(load_doc(path, name), name)


def load_doc(path: Path | str, name: str | None = None) -> Any:
    """The parsed JSON of one measurement file, not yet validated (`load` validates it)."""
    name = name or str(path)
    try:
        text = read_capped(path, MAX_MEASUREMENT_BYTES, "measurement file").decode("utf-8")
    except UnreadableFile as err:
        raise MeasurementError(f"{name}: {err}") from None
    except UnicodeDecodeError as err:
        raise MeasurementError(f"{name}: cannot read the measurement file ({err})") from None
    try:
        doc = json.loads(text, parse_constant=_no_constant, object_pairs_hook=unique_keys, parse_int=json_int)
    except RepeatedKey as err:
        raise MeasurementError(f"{name}: field {show(err.key)} is given twice; which value is meant is unknown") from None
    except json.JSONDecodeError as err:
        raise MeasurementError(f"{name}: not valid JSON ({err.msg} at line {err.lineno}, column {err.colno})") from None
    except RecursionError:
        raise MeasurementError(f"{name}: nests too deeply to be a roofline measurement") from None
    except ValueError as err:  # NaN or Infinity, which JSON does not have
        raise MeasurementError(f"{name}: not valid JSON ({err})") from None
    return doc


def load_folder(folder: Path | str, root: Path | str | None = None) -> list[Measurement]:
    """Every *.json directly in `folder` (not its subfolders), validated, in name order.

    Names in messages are relative to `root` when given (measurements/example-shared-2vcpu-xeon.json).
    """
    folder = Path(folder)
    out = []
    for p in sorted(folder.glob("*.json")):
        name = p.relative_to(root).as_posix() if root else p.name
        out.append(load(p, name))
    return out


# --------------------------------------------------------------------- writing -----------
def save(doc: dict[str, Any], path: Path | str) -> Path:
    """Write a measurement document as indented JSON, creating the folder."""
    from roofline.atomic import atomic_write_text

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Temporary file + rename: a full disk or a kill mid-write leaves the old file, never half a new one.
    return atomic_write_text(path, json.dumps(doc, indent=2) + "\n")


def default_out_path(root: Path | str = ".") -> Path:
    """measurements/local/<UTC timestamp>.json under `root` (git-ignored)."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return Path(root) / "measurements" / "local" / f"{stamp}.json"


# --------------------------------------------------------------------- the folder --------
def measurements_dir() -> Path:
    """The folder of measurement JSON files: $ROOFLINE_MEASUREMENTS_DIR, else measurements/ in the working directory.

    The package does not know where a repository is; the site builds from the project folder.
    """
    env = os.environ.get("ROOFLINE_MEASUREMENTS_DIR")
    return Path(env) if env else Path.cwd() / "measurements"


def example_measurement() -> Measurement:
    """The committed example measurement (always the same file, whatever else is in the folder)."""
    folder = measurements_dir()
    return load(folder / EXAMPLE_FILE, f"measurements/{EXAMPLE_FILE}")


def site_measurements() -> list[Measurement]:
    """Every measurement in the folder, the example first: what the site's figure draws."""
    folder = measurements_dir()
    found = load_folder(folder, folder.parent)
    return sorted(found, key=lambda m: (not m.source.endswith(EXAMPLE_FILE), m.source))
