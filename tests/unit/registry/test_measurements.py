"""Published measurements: every entry sourced, and every ratio shown equal to one recomputed here.

The recomputation reads the TOML files directly (not through the package's loaders), so a
mistake in the package's units, lookups or formulas shows up as a mismatch.
"""

from __future__ import annotations

import html
import math
import re
import statistics
import tomllib

import pytest

from tests.support.hand_values import WEIGHTS_READ_PER_TOKEN
from roofline import quantities as q
from roofline.errors import SpecError
from roofline.format import percent
from roofline.model.measured import bandwidth_derate, share
from roofline.registry.measurements import (KINDS, get_measurement, load_measurements, of_kind,
                                   published)
from tests.conftest import ROOT

DATA = ROOT / "src" / "roofline" / "data"
RAW = tomllib.loads((DATA / "measurements.toml").read_text())
HW = {d["id"]: d for d in tomllib.loads((DATA / "hardware.toml").read_text())["device"]}
ALL = [(kind, e) for kind in KINDS for e in RAW[kind]]
MODELS = {m["id"]: m for m in tomllib.loads((DATA / "models.toml").read_text())["model"]}
#: Shares recomputed exactly from the raw TOML: every kind but parallel_decode, whose ceiling is the
#: whole per-kernel tensor-parallel model (hand-checked to 2 % in test_parallel.py instead).
EXACT = [(kind, e) for kind, e in ALL if kind != "parallel_decode"]
BYTES = {"bf16": 2, "fp16": 2, "fp8": 1, "fp32": 4}


@pytest.mark.parametrize("kind, entry", ALL, ids=lambda x: x if isinstance(x, str) else x["id"])
def test_every_entry_has_a_source_and_says_what_was_measured(kind, entry):
    assert entry["source_url"].startswith("https://")
    for field in ("source_title", "what", "software", "date", "tool", "device"):
        assert isinstance(entry[field], str) and entry[field].strip(), field
    assert re.fullmatch(r"\d{4}(-\d{2})?", entry["date"])
    assert entry["device"] in HW
    if "measured_on" in entry:  # a stand-in device must say why
        assert entry.get("mapping"), f"{entry['id']}: measured_on without a mapping sentence"


def _expected_share(kind: str, e: dict) -> float:
    """measured ÷ ceiling, from the raw TOML values."""
    hw = HW[e["device"]]
    if kind == "bandwidth":
        return e["measured_GB_per_s"] * 1e9 / (hw["memory_bandwidth_TB_per_s"] * 1e12)
    if kind == "gemm":
        peaks = hw["dense_peak_TFLOP_per_s"]
        return e["measured_TFLOP_per_s"] / peaks[e["dtype"]]
    if kind == "collective":  # bus bandwidth ÷ one direction of the link
        return e["measured_busbw_GB_per_s"] / hw["scaleup_bandwidth_GB_per_s_per_direction"]
    # Speed of light = bandwidth ÷ (weights a decode step reads × bytes per weight), the matmul
    # weights counted by hand from each model's config (tests/support/hand_values.py), plus the norm
    # vectors (2 per layer and a final one) and the one embedding row the step looks up.
    cfg = MODELS[e["model"]]
    extra = (2 * cfg["n_layers"] + 1) * cfg["hidden_size"] + cfg["hidden_size"]
    weights_bytes = (WEIGHTS_READ_PER_TOKEN[e["model"]] + extra) * BYTES[e["weight_dtype"]]
    return e["measured_tokens_per_s"] / (hw["memory_bandwidth_TB_per_s"] * 1e12 / weights_bytes)


@pytest.mark.parametrize("kind, entry", EXACT, ids=lambda x: x if isinstance(x, str) else x["id"])
def test_package_share_equals_independent_recomputation(kind, entry):
    expected = _expected_share(kind, entry)
    assert math.isclose(share(get_measurement(entry["id"])), expected, rel_tol=1e-12)
    assert math.isclose(float(q.measured_share(entry["id"])), expected, rel_tol=1e-12)


def test_hand_checked_shares():
    # FlashMLA on the H800: 3000 GB/s of the H100 SXM5's 3350 GB/s = 0.8955.
    assert round(share(get_measurement("flashmla-h800")), 4) == 0.8955
    # MAMF H100 SXM BF16: 794.5 / 989.4 = 0.80301 (the source prints 80.3%).
    assert round(share(get_measurement("mamf-h100-sxm-bf16")), 4) == 0.8030
    # MAMF Gaudi 2: 418.7 / 432 = 0.96921 (the source prints 96.9%).
    assert round(share(get_measurement("mamf-gaudi2-bf16")), 4) == 0.9692


def test_derate_is_the_median_bandwidth_share():
    # 3000/3350 = 0.8955, 6914/8000 = 0.86425, 1700/2039 = 0.8337 (the A800 "1727 GB/s" is a
    # cache-resident test, not recorded); sorted 0.8337 0.86425 0.8955, median 0.86425 (0.8642 at 4 places).
    assert round(bandwidth_derate(), 4) == 0.8642
    shares = [_expected_share("bandwidth", e) for e in RAW["bandwidth"]]
    assert bandwidth_derate() == pytest.approx(statistics.median(shares), rel=1e-12)
    assert float(q.derated_bandwidth("h100-sxm5")) == pytest.approx(3.35e12 * statistics.median(shares))


# A number's shown text, then (in its popover, rendered inline here) its unrounded value on the label.
SPAN = re.compile(r'<span class="rl-num"[^>]*>([^<]+)<.*?<strong class="rl-prov-label" data-rl-value="([^"]+)"', re.S)


@pytest.mark.parametrize("kind", ["bandwidth", "gemm", "decode"])
def test_ratio_shown_in_each_table_row_is_the_recomputed_one(kind):
    from roofline_site.numbers.tables import table

    html_text = str(table(f"measured-{kind}", "real-systems.md", []))
    header = re.findall(r'<th scope="col"[^>]*data-label="([^"]*)"', html_text)
    body = [row for row in html_text.split("<tbody>")[1].split("</tbody>")[0].splitlines() if row.startswith("<tr>")]
    column = next(i for i, h in enumerate(header) if h.strip().startswith("Measured ÷"))
    assert column == 1  # the headline column comes second, beside the row's name
    entries = RAW[kind]
    assert len(body) == len(entries)
    for line, e in zip(body, entries):
        cells = line[len("<tr>"):].split("<td")[1:]
        text, value = SPAN.search(cells[column]).groups()
        expected = _expected_share(kind, e)
        assert math.isclose(float(value), expected, rel_tol=1e-12), e["id"]
        assert html.unescape(text) == percent(expected, 2), e["id"]


def test_every_kind_is_present_and_ids_are_unique():
    ids = [e["id"] for _, e in ALL]
    assert len(ids) == len(set(ids)) == len(published())
    assert all(of_kind(k) for k in KINDS)


def _edited_copy(tmp_path, old: str, new: str):
    """A copy of measurements.toml with the first `old` replaced by `new`."""
    text = (DATA / "measurements.toml").read_text()
    assert old in text, f"measurements.toml no longer holds {old!r}; update this test"
    bad = tmp_path / "measurements.toml"
    bad.write_text(text.replace(old, new, 1))
    return bad


def test_a_missing_source_is_one_sentence(tmp_path):
    bad = _edited_copy(tmp_path, 'source_url = "https://github.com/deepseek-ai/FlashMLA"\n', "")
    with pytest.raises(SpecError, match=r"^measurements\.toml: flashmla-h800: field 'source_url' is missing$"):
        load_measurements(bad)


def test_an_unknown_device_is_named(tmp_path):
    bad = _edited_copy(tmp_path, 'device = "gaudi2"', 'device = "gaudi9"')
    with pytest.raises(SpecError, match=r"^measurements\.toml: mamf-gaudi2-bf16: field 'device' is not in the registry \(unknown hardware 'gaudi9'"):
        load_measurements(bad)


def test_the_measurements_file_is_parsed_once_for_all_its_kinds(monkeypatch):
    # One [[table]] list per kind, and the serving runs: each list used to parse the whole file again.
    from roofline.registry import specfile

    parsed: list[str] = []
    real = specfile.tomllib.loads
    monkeypatch.setattr(specfile.tomllib, "loads", lambda text: parsed.append(text) or real(text))
    load_measurements(DATA / "measurements.toml")
    # (The devices and models it names are read too, each once, when their registries are not yet.)
    assert len(KINDS) >= 2 and parsed.count((DATA / "measurements.toml").read_text(encoding="utf-8")) == 1
