"""Reading the sourced TOML spec files, with one-sentence errors that name file, entry and field."""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

from roofline.errors import InputError, SpecError
from roofline.readfile import UnreadableFile, one_line, read_capped, surrogate_problem

DATA_DIR = Path(str(resources.files("roofline") / "data"))

#: The plausible range of every numeric spec field, in the field's own unit (reference/spec-files.md lists them).
#: Outside it a value is a typo or a unit slip (GB/s typed as TB/s), refused in one line, so no page
#: quotes a 400-digit number and no figure axis spans a googol.
PLAUSIBLE: dict[str, tuple[float, float, str]] = {
    # hardware.toml
    "memory_bandwidth_TB_per_s": (1e-6, 1e3, "1 MB/s to 1 PB/s"),
    "memory_capacity_GB": (1e-3, 1e6, "1 MB to 1 PB"),
    "memory_capacity_GiB": (1e-3, 1e6, "1 MiB to about 1 PB"),
    "dense_peak_TFLOP_per_s": (1e-6, 1e6, "1 MFLOP/s to 1 EFLOP/s"),
    "power_W": (0.1, 1e6, "0.1 W to 1 MW"),
    "collective_latency_floor_us": (1e-3, 1e4, "1 ns to 10 ms"),
    # a NIC from 1 Gb/s Ethernet to 100 Tb/s, far past any shipping part (a GB/s figure typed as Gb/s stays inside;
    # a bytes/s figure does not); a network latency from 100 ns (below any switch hop) to 1 ms
    "scaleout_bandwidth_Gb_per_s_per_direction": (1, 1e5, "1 Gb/s to 100 Tb/s"),
    "scaleout_latency_floor_us": (0.1, 1e3, "0.1 us to 1 ms"),
    "scaleout_node_devices": (1, 1024, "1 to 1,024 devices"),
    # models.toml
    "n_layers": (1, 10_000, "1 to 10,000"),
    "hidden_size": (1, 1_000_000, "1 to 1,000,000"),
    "n_heads": (1, 100_000, "1 to 100,000"),
    "kv_heads": (1, 100_000, "1 to 100,000"),
    "head_dim": (1, 100_000, "1 to 100,000"),
    "ffn_size": (1, 10_000_000, "1 to 10,000,000"),
    "vocab_size": (1, 100_000_000, "1 to 100,000,000"),
    "n_experts": (1, 100_000, "1 to 100,000"),
    "experts_per_token": (1, 100_000, "1 to 100,000"),
    "published_params_B": (1e-6, 1e6, "a thousand to a quadrillion parameters"),
    "max_context_tokens": (1, 1e9, "1 to a billion tokens"),
    "moe_ffn_size": (1, 10_000_000, "1 to 10,000,000"),
    "n_shared_experts": (1, 100_000, "1 to 100,000"),
    "sliding_window": (1, 1e9, "1 to a billion tokens"),
    "kv_lora_rank": (1, 100_000, "1 to 100,000"),
    "q_lora_rank": (1, 100_000, "1 to 100,000"),
    "qk_nope_head_dim": (1, 100_000, "1 to 100,000"),
    "qk_rope_head_dim": (1, 100_000, "1 to 100,000"),
    "v_head_dim": (1, 100_000, "1 to 100,000"),
    # measurements.toml
    "measured_GB_per_s": (1e-3, 1e6, "1 MB/s to 1 PB/s"),
    "measured_TFLOP_per_s": (1e-6, 1e6, "1 MFLOP/s to 1 EFLOP/s"),
    "measured_tokens_per_s": (1e-3, 1e9, "0.001 to a billion tokens/s"),
    "prompt_tokens": (1, 1e9, "1 to a billion tokens"),
    "generated_tokens": (1, 1e9, "1 to a billion tokens"),
    "power_limit_W": (0.1, 1e6, "0.1 W to 1 MW"),
    "input_tokens": (1, 1e9, "1 to a billion tokens"),
    "output_tokens": (1, 1e9, "1 to a billion tokens"),
    "concurrency": (1, 1e7, "1 to ten million requests"),
    "max_concurrency": (1, 1e7, "1 to ten million requests"),
    "devices": (1, 1e6, "1 to a million devices"),
    "output_tokens_per_s_total": (1e-3, 1e10, "0.001 to ten billion tokens/s"),
    "output_tokens_per_s_per_device": (1e-3, 1e9, "0.001 to a billion tokens/s"),
}

#: The model shape fields every reader of a model checks against PLAUSIBLE: models.toml, a config.json
#: in the CLI or the calculator, and a calculator link. One table, exported to the calculator's JSON,
#: so a config of a billion layers is refused in one line everywhere instead of computed for a minute.
MODEL_SHAPE_FIELDS = ("n_layers", "hidden_size", "n_heads", "kv_heads", "head_dim", "ffn_size", "vocab_size",
                      "n_experts", "experts_per_token", "max_context_tokens", "moe_ffn_size", "n_shared_experts",
                      "sliding_window", "kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
                      "v_head_dim")


def shape_problem(field: str, value: int) -> str | None:
    """Why `value` is no real model's `field` (the end of a sentence), or None. Every shape field's
    plausible range starts at 1, which the readers' type checks already hold, so only the top is checked.

    >>> shape_problem("n_layers", 10**9)
    'must be at most 10,000 for a real model, got 1000000000'
    """
    hi = int(PLAUSIBLE[field][1])
    return f"must be at most {hi:,} for a real model, got {value}" if value > hi else None


def model_shape_max() -> dict[str, int]:
    """{field: largest plausible value} for every model shape field: what the calculator's readers check."""
    return {f: int(PLAUSIBLE[f][1]) for f in MODEL_SHAPE_FIELDS}


#: A spec file larger than this is not one (the bundled ones are tens of KB; a 14,000-device registry is
#: about 10 MB): refused rather than read to the end.
MAX_SPEC_BYTES = 64 * 1024 * 1024

#: The longest text a spec field may hold, in characters: ids and names go into every table and legend,
#: notes into popovers. The longest note in the bundled registry is under 800.
MAX_TEXT_CHARS: dict[str, int] = {"id": 100, "name": 200, "*": 2000}

#: Deeper than this, a TOML document is hostile, not a spec (and Python's parser would recurse out).
MAX_NESTING = 64


def show(value: Any) -> str:
    """A number as an error message quotes it: never hundreds of digits.

    >>> show(1e308), show(2**63 - 1), show(3.35)
    ('1e+308', '9.223372e+18', '3.35')
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return repr(value)[:60]
    if isinstance(value, int) and abs(value) < 10**15:
        return str(value)
    try:
        return f"{float(value):.7g}"
    except OverflowError:
        return "a number with hundreds of digits"


_BRACKETS = re.compile(r"[\[\]{}]")


def _nesting(text: str) -> int:
    """The deepest bracket nesting in a TOML text, strings ignored roughly (an upper bound).
    Only the brackets are visited (a loop over every character took 4 ms of each spec file's load)."""
    depth = deepest = 0
    for ch in _BRACKETS.findall(text):
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(depth - 1, 0)
    return deepest


def load_document(path: Path) -> dict[str, Any]:
    """The TOML file at `path`, parsed: once per load, though a file may hold several table lists
    (measurements.toml has one per kind, and parsing it takes 13 ms each time)."""
    try:
        data = read_capped(path, MAX_SPEC_BYTES, "spec file")
    except UnreadableFile as err:
        raise SpecError(f"{path}: {err}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise SpecError(f"{path.name}: line {line}: not UTF-8 text (byte 0x{data[err.start]:02x}); "
                        "save the file as UTF-8") from None
    if _nesting(text) > MAX_NESTING:
        raise SpecError(f"{path.name}: nests brackets more than {MAX_NESTING} deep; not a spec file")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise SpecError(f"{path.name}: not valid TOML ({err})") from None
    except RecursionError:
        raise SpecError(f"{path.name}: nests too deeply to read; not a spec file") from None
    except ValueError:  # an integer of more than 4,300 digits, which Python will not convert
        raise SpecError(f"{path.name}: {_huge_number_at(text)}holds a number of thousands of digits; "
                        "no spec value is one") from None
    return doc


def _huge_number_at(text: str) -> str:
    """'line 12: field 'm' ' for the first run of thousands of digits in TOML `text` (tomllib names no place)."""
    found = re.search(r"^\s*([A-Za-z0-9_.\"-]+)\s*=.*?[0-9_]{4301,}", text, re.M)
    if found is None:
        return ""
    return f"line {text.count(chr(10), 0, found.start()) + 1}: field {show(found.group(1).strip(chr(34)))} "


def table_list(path: Path, doc: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The array of tables `[[key]]` in `doc`, the parsed file at `path`."""
    entries = doc.get(key)
    if not isinstance(entries, list) or not entries:
        raise SpecError(f"{path}: expected at least one [[{key}]] table")
    return entries


class _ReadTracking(dict):
    """A spec entry's fields, remembering which ones the parser looked at."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.read: set[str] = set()

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)

    def __contains__(self, key):
        self.read.add(key)
        return super().__contains__(key)


def parse_entries(path: Path, doc: dict[str, Any], key: str, parse) -> list:
    """parse(Entry) for every [[key]] table in `doc`, the parsed file at `path`; a field no parser
    reads is an error.

    An unread field is almost always a typo (`power_w` for `power_W`) or a unit the registry
    does not take (`memory_bandwidth_GB_per_s`): silently ignoring it would build a site from
    values the editor did not write.
    """
    out = []
    for i, raw in enumerate(table_list(path, doc, key)):
        entry = Entry(path, raw, i)
        out.append(parse(entry))
        entry.check_all_read()
    return out


class Entry:
    """Field access on one spec entry that raises a SpecError naming file, entry and field."""

    def __init__(self, path: Path, raw: dict[str, Any], index: int):
        self.path, self.raw = path, _ReadTracking(raw)
        ident = raw.get("id")
        self.id = ident if isinstance(ident, str) and ident else f"entry #{index + 1}"

    def fail(self, field: str, problem: str) -> SpecError:
        return SpecError(f"{self.path.name}: {self.id}: field '{field}' {problem}")

    def registered(self, field: str, lookup):
        """What `lookup` (another registry's get_device, get_model) gives for the id in `field`; an
        unknown id fails naming file, entry and field, with the registry's own suggestion."""
        try:
            return lookup(self.text(field))
        except Exception as err:
            raise self.fail(field, f"is not in the registry ({err})") from None

    def check_all_read(self) -> None:
        """Raise for the first field the parser never read, suggesting the closest known one."""
        for field in self.raw:
            if field not in self.raw.read:
                # The parser asked for every field it knows, present or not: suggest from those.
                close = difflib.get_close_matches(field, sorted(self.raw.read), n=1, cutoff=0.6)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                raise self.fail(field, f"is not a field of this file{hint}")

    def has(self, field: str) -> bool:
        return field in self.raw

    def text(self, field: str, *, required: bool = True) -> str:
        value = self.raw.get(field)
        if value is None:
            if required:
                raise self.fail(field, "is missing")
            return ""
        if not isinstance(value, str) or not value.strip():
            raise self.fail(field, "must be a non-empty string")
        limit = MAX_TEXT_CHARS.get(field, MAX_TEXT_CHARS["*"])
        if len(value) > limit:
            raise self.fail(field, f"is {len(value):,} characters long; at most {limit:,} (a spec field is a name "
                                   "or a note, not a document)")
        if (problem := surrogate_problem(value)) is not None:
            raise self.fail(field, problem)
        return one_line(value)  # every spec text field is shown on one line: a table cell, a legend, a popover

    def number(self, field: str, *, required: bool = True, integer: bool = False,
               allow_zero: bool = False) -> float | None:
        if field not in self.raw:
            if required:
                raise self.fail(field, "is missing")
            return None
        return self.check_number(field, self.raw[field], integer=integer, allow_zero=allow_zero)

    def check_number(self, field: str, value: Any, *, integer: bool = False,
                     allow_zero: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(field, f"must be a number, got {show(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise self.fail(field, f"must be finite, got {value!r}")
        if value < 0 or (value == 0 and not allow_zero):
            raise self.fail(field, f"must be positive, got {show(value)}")
        if integer and value != int(value):
            raise self.fail(field, f"must be a whole number, got {show(value)}")
        lo, hi, words = PLAUSIBLE.get(field.split(".")[0], (0, math.inf, ""))
        if value and not lo <= value <= hi:
            raise self.fail(field, f"must be between {show(lo)} and {show(hi)} ({words}), got {show(value)}")
        return int(value) if integer else float(value)

    def source_url(self, field: str = "source_url") -> str:
        from roofline.urls import url_problem

        self.text(field)  # present, text, not too long
        url = self.raw[field]  # as written: the one-line flattening would hide a control or a bidi override
        if (problem := url_problem(url)) is not None:
            raise self.fail(field, f"{problem}, got {show(url)}")
        return url


def check_unique(path: Path, ids: Iterable[str]) -> None:
    """Raise if an id appears twice in one spec file."""
    seen: set[str] = set()
    for ident in ids:
        if ident in seen:
            raise SpecError(f"{path.name}: duplicate id '{ident}'")
        seen.add(ident)


def lookup(kind: str, ident: str, table: dict[str, Any]) -> Any:
    """table[ident], or an InputError naming the closest known ids."""
    try:
        return table[ident]
    except KeyError:
        close = difflib.get_close_matches(ident, list(table), n=3, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(sorted(table))}"
        shown = ident if len(ident) <= 60 else ident[:57] + "..."  # a 300-character name stays one short line
        raise InputError(f"unknown {kind} '{shown}'{hint}") from None
