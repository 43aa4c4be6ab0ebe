"""Which spec file is in use, read once per path: the plumbing hardware, models and measurements share.

A `SpecRegistry` names its environment variable and bundled file; `entries()` parses the file the
variable names (else the bundled one) through `specfile`, caches it by path, and `get(id)` looks an
entry up with a one-line error naming the closest ids.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Generic, Mapping, Protocol, TypeVar

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
    return Path(value)


def load_by_id(path: Path, tables: Mapping[str, Callable[[Entry], T]]) -> dict[str, T]:
    """parse(entry) for every [[table]] of each table name in order, as {id: item}; an id twice is an error."""
    doc = load_document(path)
    items = [item for key, parse in tables.items() for item in parse_entries(path, doc, key, parse)]
    check_unique(path, (item.id for item in items))
    return {item.id: item for item in items}


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

    def path(self) -> Path:
        """The file in use now."""
        return env_path(self.env_var, self.default)

    def entries(self) -> dict[str, T]:
        """Every entry, in file order (the cached dict: callers that may change it copy it)."""
        key = (self.path(), *(d.path() for d in self._depends_on))
        if key not in self._cache:
            self._cache[key] = self._load(key[0])
        return self._cache[key]

    def get(self, ident: str) -> T:
        """The entry with this id, or an InputError naming the closest ids."""
        return lookup(self.kind, ident, self.entries())

    def cache_clear(self) -> None:
        """Forget every parsed file (tests that edit a spec file in place)."""
        self._cache.clear()
