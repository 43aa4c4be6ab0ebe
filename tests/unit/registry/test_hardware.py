"""The hardware registry: required devices, dense peaks, sources, and one clear error per bad spec."""

import math
import re

import pytest

from roofline.errors import SpecError
from roofline.registry.hardware import devices, get_device

REQUIRED = ["h100-sxm5", "h100-pcie", "h200-sxm", "a100-sxm4-40gb", "a100-sxm4-80gb", "a100-pcie-80gb",
            "b200", "mi300x", "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "l4", "l40s", "rtx-4090"]


def test_required_devices_and_count():
    ds = devices()
    assert len(ds) >= 20
    assert set(REQUIRED) <= set(ds)
    assert any(d.vendor == "Apple" for d in ds.values())
    assert any(d.kind == "cpu" for d in ds.values())


@pytest.mark.parametrize("device", list(devices().values()), ids=lambda d: d.id)
def test_every_device_is_sourced_and_sane(device):
    assert device.source_url.startswith("https://")
    assert device.note and device.checked
    assert math.isfinite(device.memory_bandwidth_bytes_per_s) and device.memory_bandwidth_bytes_per_s > 1e10
    for dtype, peak in device.dense_peak_flop_per_s.items():
        assert 1e12 <= peak <= 2e16, (dtype, peak)


def test_dense_not_sparse():
    # H100 SXM5 product page prints 1,979 TFLOPS BF16 *with sparsity*; dense is 989.4
    # (H100 whitepaper v1.04 Table 1). A registry holding the sparse value would double the ridge.
    assert get_device("h100-sxm5").peak_flop_per_s("bf16") == pytest.approx(989.4e12)
    assert get_device("h100-sxm5").peak_flop_per_s("fp8") == pytest.approx(1978.9e12)


def test_gib_capacity_is_binary():
    # Cloud TPU v4 docs: "32 GiB" = 34.36e9 bytes.
    assert get_device("tpu-v4").memory_capacity_bytes == 32 * 2**30


def _edit(text, device_id, old, new):
    start = text.index(f'id = "{device_id}"')
    end = text.find("[[device]]", start)
    end = len(text) if end == -1 else end
    block = text[start:end]
    assert old in block
    return text[:start] + block.replace(old, new, 1) + text[end:]


@pytest.mark.parametrize("old, new, message", [
    ("memory_bandwidth_TB_per_s = 3.35\n", "", "hardware.toml: h100-sxm5: field 'memory_bandwidth_TB_per_s' is missing"),
    ("memory_bandwidth_TB_per_s = 3.35", "memory_bandwidth_TB_per_s = -3.35", "must be positive"),
    ("memory_bandwidth_TB_per_s = 3.35", "memory_bandwidth_TB_per_s = nan", "must be finite"),
    ("memory_bandwidth_TB_per_s = 3.35", "memory_bandwidth_TB_per_s = 0", "must be positive"),
    ("bf16 = 989.4", "bf17 = 989.4", "unknown dtype 'bf17'"),
    ('source_url = "https://www.nvidia.com/en-us/data-center/h100/"\n', "", "field 'source_url' is missing"),
    ('id = "h100-sxm5"', 'id = "h100-pcie"', "duplicate id 'h100-pcie'"),
    # A field no parser reads is a typo or a unit the registry does not take, never ignored:
    ("power_W = ", "power_w = ", "field 'power_w' is not a field of this file (did you mean 'power_W'?)"),
    ("memory_bandwidth_TB_per_s = 3.35", "memory_bandwidth_TB_per_s = 3.35\nmemory_bandwidth_GB_per_s = 3350",
     "field 'memory_bandwidth_GB_per_s' is not a field of this file (did you mean 'memory_bandwidth_TB_per_s'?)"),
    # a link's latency floor is required, sourced and plausible (a floor of 2.3 s is a unit slip)
    ("collective_latency_floor_us = 2.3\n", "", "field 'collective_latency_floor_us' is missing"),
    ("collective_latency_floor_us = 2.3", "collective_latency_floor_us = 2.3e6", "must be between"),
    ('collective_latency_floor_source_url = "https://github.com/NVIDIA/nccl/issues/1940"',
     'collective_latency_floor_source_url = "nccl issue 1940"', "must be an https:// URL"),
])
def test_bad_spec_gives_one_clear_line(spec_copy, run_cli, old, new, message):
    spec_copy("hardware.toml", lambda t: _edit(t, "h100-sxm5", old, new))
    with pytest.raises(SpecError, match=re.escape(message)):
        devices()
    code, out, err = run_cli("ridge", "h100-pcie")
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_broken_toml_names_the_file(spec_copy, run_cli):
    spec_copy("hardware.toml", lambda t: t.replace("\n[[device]]\n", "\n[[device\n", 1))
    code, _, err = run_cli("hardware")
    assert code == 2 and "hardware.toml: not valid TOML" in err
