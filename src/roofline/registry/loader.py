"""Which spec file is in use, read once per path: the plumbing hardware, models and measurements share.

A `SpecRegistry` names its environment variable and bundled file; `entries()` parses the file the
variable names (else the bundled one) through `specfile`, caches it by path, and `get(id)` looks an
entry up with a one-line error naming the closest ids.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Callable, Generic, Iterable, Iterator, Mapping, Protocol, TypeVar

from roofline.errors import SpecError
from roofline.registry.specfile import DATA_DIR, Entry, check_unique, load_document, lookup, parse_entries


class _HasId(Protocol):
    id: str


T = TypeVar("T", bound=_HasId)


def env_path(var: str, default: Path) -> Path:
    """The spec file named by environment variable `var`, else `default`; set but empty is an error."""
    value = os.environ.get(var)
    if value is None:
        return default
    if not value.strip():
        raise SpecError(f"{var} is set but empty; unset it to use the bundled {default.name}, or name a file")
    return _path(value)


@lru_cache(maxsize=64)
def _path(value: str) -> Path:
    """`Path(value)`, made once per value: every registry look-up asks where its file is, and under a
    variable, building the same Path each time is a tenth of a serving frontier's time."""
    return Path(value)


def load_by_id(path: Path, tables: Mapping[str, Callable[[Entry], T]]) -> dict[str, T]:
    """parse(entry) for every [[table]] of each table name in order, as {id: item}; an id twice is an error."""
    doc = load_document(path)
    items = [item for key, parse in tables.items() for item in parse_entries(path, doc, key, parse)]
    check_unique(path, (item.id for item in items))
    return {item.id: item for item in items}


#: A read of every entry of one registry (a listing), in a traced read: `(kind, ALL)`.
ALL = "*"
_tracing: list[set[tuple[str, str]]] = []  # the reads being recorded, innermost last
_by_kind: dict[str, "SpecRegistry"] = {}


@contextmanager
def traced_reads() -> Iterator[set[tuple[str, str]]]:
    """Record the registry reads made inside the block: `(kind, id)` for one entry looked up,
    `(kind, ALL)` for a listing of every entry (the set fills in as the block runs).

    What a computation read, with `read_values`, keys what it produced: an entry it did not read
    cannot have changed its result (a build keeps each figure under such a key).
    """
    reads: set[tuple[str, str]] = set()
    _tracing.append(reads)
    try:
        yield reads
    finally:
        _tracing.remove(reads)


def _record(kind: str, ident: str) -> None:
    for reads in _tracing:
        reads.add((kind, ident))


def replay_reads(reads: Iterable[tuple[str, str]]) -> None:
    """Record in every trace open now the reads a computation made elsewhere (another process) whose
    result this one takes instead of computing it: what it read is what that result depends on."""
    for kind, ident in reads:
        _record(kind, ident)


def read_values(reads: Iterable[tuple[str, str]], entries_of: Callable[[str], Mapping[str, object]] | None = None) -> str:
    """The current value of every read in `reads`, as one text: each entry's repr (a listing: every
    entry's, in file order), `<missing>` for an id or kind that is not there.

    Entries are frozen dataclasses whose repr names every field (an entry that refers to another,
    a measurement's device, holds it whole), so equal text means equal entries. `entries_of(kind)`
    gives a registry's entries (default: the registries in use now).

    >>> print(read_values([("hardware", "b"), ("hardware", "*"), ("model", "m")], {"hardware": {"a": 1, "b": 2}}.get))
    hardware *: [('a', 1), ('b', 2)]
    hardware b: 2
    model m: <missing>
    """
    if entries_of is None:
        entries_of = lambda kind: _by_kind[kind]._entries() if kind in _by_kind else None  # noqa: E731
    lines = []
    for kind, ident in sorted(set(reads)):
        entries = entries_of(kind)
        if entries is None:
            value = "<missing>"
        elif ident == ALL:
            value = repr(list(entries.items()))
        else:
            value = repr(entries[ident]) if ident in entries else "<missing>"
        lines.append(f"{kind} {ident}: {value}")
    return "\n".join(lines)


class SpecRegistry(Generic[T]):
    """One spec file's entries by id: $`env_var` if set (tests, what-ifs), else data/`filename`.

    Parsed once per path. A registry whose entries are validated against others (measurements name
    devices and models) lists them in `depends_on`, so pointing one of those elsewhere reparses it.
    """

    def __init__(self, env_var: str, filename: str, kind: str, load: Callable[[Path], dict[str, T]],
                 depends_on: tuple["SpecRegistry", ...] = ()):
        self.env_var, self.default, self.kind = env_var, DATA_DIR / filename, kind
        self._load, self._depends_on = load, depends_on
        self._cache: dict[tuple[Path, ...], dict[str, T]] = {}
        _by_kind.setdefault(kind, self)

    def path(self) -> Path:
        """The file in use now."""
        return env_path(self.env_var, self.default)

    def entries(self) -> dict[str, T]:
        """Every entry, in file order (the cached dict: callers that may change it copy it)."""
        _record(self.kind, ALL)
        return self._entries()

    def _entries(self) -> dict[str, T]:
        key = (self.path(), *(d.path() for d in self._depends_on))
        if key not in self._cache:
            self._cache[key] = self._load(key[0])
        return self._cache[key]

    def get(self, ident: str) -> T:
        """The entry with this id, or an InputError naming the closest ids."""
        _record(self.kind, ident)
        return lookup(self.kind, ident, self._entries())

    def cache_clear(self) -> None:
        """Forget every parsed file (tests that edit a spec file in place)."""
        self._cache.clear()
