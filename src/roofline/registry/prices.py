"""Public prices per device-hour (data/prices.toml): the default charge of the device comparison.

Each price names its registry device, provider, kind (on-demand or reserved), the page it was read
from and the month it was read; a reader's own price replaces it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from roofline.errors import InputError
from roofline.registry import hardware
from roofline.registry.hardware import get_device
from roofline.registry.loader import SpecRegistry, load_by_id
from roofline.registry.specfile import Entry

KINDS = ("on-demand", "reserved")


@dataclass(frozen=True)
class Price:
    """One public price of one device for one hour."""

    id: str
    device_id: str
    provider: str
    kind: str
    usd_per_device_hour: float
    note: str
    source_url: str
    source_title: str
    date_read: str


def _parse(entry: Entry) -> Price:
    entry.registered("device", get_device)
    device_id = entry.text("device")
    kind = entry.text("kind")
    if kind not in KINDS:
        raise entry.fail("kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    date = entry.raw.get("date_read")
    if not isinstance(date, str) or not re.fullmatch(r"\d{4}-\d{2}", date):
        raise entry.fail("date_read", f"must be the year and month the price was read, such as \"2026-06\", got {date!r}")
    return Price(id=entry.text("id"), device_id=device_id, provider=entry.text("provider"), kind=kind,
                 usd_per_device_hour=entry.number("usd_per_device_hour"), note=entry.text("note", required=False),
                 source_url=entry.source_url(), source_title=entry.text("source_title"), date_read=date)


def load_prices(path: Path) -> dict[str, Price]:
    return load_by_id(path, {"price": _parse})


REGISTRY: SpecRegistry = SpecRegistry("ROOFLINE_PRICES", "prices.toml", "price", load_prices,
                                      depends_on=(hardware.REGISTRY,))


def prices() -> list[Price]:
    """Every published price, in file order."""
    return list(REGISTRY.entries().values())


def default_price(device_id: str, kind: str = "on-demand") -> Price | None:
    """The lowest published price of `kind` for a device (the other kind where it has none), or None."""
    if kind not in KINDS:
        raise InputError(f"--price-kind must be one of {', '.join(KINDS)}, got {kind!r}")
    mine = [p for p in prices() if p.device_id == device_id]
    chosen = [p for p in mine if p.kind == kind] or mine
    return min(chosen, key=lambda p: p.usd_per_device_hour) if chosen else None
