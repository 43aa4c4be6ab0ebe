"""What a computation read from the registries (loader.traced_reads) and those entries' values (read_values)."""

from __future__ import annotations

import pytest

from roofline.errors import SpecError
from roofline.registry import loader
from roofline.registry.hardware import devices, get_device
from roofline.registry.loader import ALL, read_values, traced_reads
from roofline.registry.measurements import serving_measurements
from roofline.registry.models import get_model


def test_a_lookup_records_its_entry_and_a_listing_records_every_entry():
    with traced_reads() as reads:
        get_device("h100-sxm5")
        get_model("llama-3.1-8b")
    assert reads == {("hardware", "h100-sxm5"), ("model", "llama-3.1-8b")}
    with traced_reads() as listing:
        devices()
    assert listing == {("hardware", ALL)}


def test_nothing_is_recorded_outside_a_trace_and_nested_traces_both_see_inner_reads():
    get_device("b200")  # no trace open: nothing to record, nothing kept
    with traced_reads() as outer:
        get_device("l4")
        with traced_reads() as inner:
            get_device("mi300x")
    assert outer == {("hardware", "l4"), ("hardware", "mi300x")} and inner == {("hardware", "mi300x")}
    assert not loader._tracing


def test_values_name_each_read_entry_whole_and_nothing_else():
    # Hand-built registries: entry "a" is 1, "b" is 2; kind "model" holds "m" only.
    registries = {"hardware": {"a": 1, "b": 2}, "model": {"m": "x"}}
    one = read_values([("hardware", "a")], registries.get)
    assert one == "hardware a: 1"
    # Another entry of the same file changing leaves a read of "a" alike ...
    assert read_values([("hardware", "a")], {"hardware": {"a": 1, "b": 3}}.get) == one
    # ... but not a listing, which reads every entry, nor a read of "a" itself.
    assert read_values([("hardware", ALL)], registries.get) == "hardware *: [('a', 1), ('b', 2)]"
    assert read_values([("hardware", ALL)], {"hardware": {"a": 1, "b": 3}}.get) != read_values(
        [("hardware", ALL)], registries.get)
    assert read_values([("hardware", "a")], {"hardware": {"a": 5}}.get) == "hardware a: 5"
    # An id or a kind that is not there is a value too (an entry added later changes it).
    assert read_values([("hardware", "z"), ("other", "q")], registries.get) == "hardware z: <missing>\nother q: <missing>"
    # The order reads were made in does not matter; each is named once.
    assert read_values([("model", "m"), ("hardware", "a"), ("model", "m")], registries.get) == \
        "hardware a: 1\nmodel m: 'x'"


def test_the_real_entries_read_as_text_that_names_every_field_and_no_address():
    # A device's value is its dataclass repr: an edited bandwidth shows in it. A repr that held an
    # object's address (" at 0x") would differ between processes and never match again.
    text = read_values([("hardware", "h100-sxm5")])
    assert "memory_bandwidth_bytes_per_s=3350000000000.0" in text  # 3.35 TB/s (hardware.toml) x 1e12
    listing = read_values([("hardware", ALL), ("model", ALL), ("measurement", ALL)])
    assert " at 0x" not in listing
    # A serving run holds its device whole, so a read of every measurement sees an edited device too.
    run = next(iter(serving_measurements().values()))
    assert repr(run.device) in listing


def test_the_file_in_use_follows_the_variable_each_time_it_is_asked(monkeypatch, tmp_path):
    # env_path keeps each value's Path: a kept one must never outlive the variable's value.
    from roofline.registry import hardware

    bundled = hardware.REGISTRY.default
    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    monkeypatch.setenv("ROOFLINE_HARDWARE", str(first))
    assert hardware.REGISTRY.path() == first
    monkeypatch.setenv("ROOFLINE_HARDWARE", str(second))
    assert hardware.REGISTRY.path() == second
    monkeypatch.delenv("ROOFLINE_HARDWARE")
    assert hardware.REGISTRY.path() == bundled
    monkeypatch.setenv("ROOFLINE_HARDWARE", "  ")
    with pytest.raises(SpecError, match="ROOFLINE_HARDWARE is set but empty"):
        hardware.REGISTRY.path()
