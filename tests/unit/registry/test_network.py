"""The scale-out network in the hardware registry: sourced per device, refused in one line when absurd."""

import re

import pytest

from roofline.errors import SpecError
from roofline.registry.hardware import devices, get_device


def test_hgx_nodes_have_one_400_gbit_nic_per_gpu():
    # DGX BasePOD reference: eight single-port ConnectX-7 at 400 Gb/s per 8-GPU node, one per GPU.
    # 400e9 bit/s ÷ 8 bit/byte = 50e9 bytes/s each way.
    for dev in ("h100-sxm5", "h200-sxm", "h800-sxm", "b200"):
        net = get_device(dev).network
        assert net.bandwidth_bytes_per_s_per_direction == 50e9
        assert net.node_devices == 8
        # DeepSeek's hardware paper: 2.8 us for 64 bytes between nodes under one InfiniBand leaf
        assert net.latency_floor_s == pytest.approx(2.8e-6)
        assert net.source_url.startswith("https://") and net.latency_source_url.startswith("https://")


def test_h800_is_h100_silicon_with_400_gb_per_s_nvlink():
    h800, h100 = get_device("h800-sxm"), get_device("h100-sxm5")
    # 400 GB/s NVLink, both directions added (as NVIDIA quotes the H100's 900): 200 GB/s each way
    assert h800.interconnect.bandwidth_bytes_per_s_per_direction == 200e9
    assert h800.interconnect.domain_devices == 8
    assert h800.dense_peak_flop_per_s == h100.dense_peak_flop_per_s
    assert h800.memory_bandwidth_bytes_per_s == h100.memory_bandwidth_bytes_per_s


def test_mi355x_has_an_eight_gpu_domain():
    # AMD: 7 Infinity Fabric links × 153.6 GB/s = 1,075.2 GB/s both directions = 537.6 GB/s each way
    ic = get_device("mi355x").interconnect
    assert ic.domain_devices == 8
    assert ic.bandwidth_bytes_per_s_per_direction == pytest.approx(537.6e9)


def test_gb200_nvl72_is_one_72_gpu_domain_of_4_gpu_trays():
    d = get_device("gb200-per-gpu")
    assert d.interconnect.domain_devices == 72
    assert d.network.node_devices == 4


def test_mi355x_nodes_have_one_400_gb_per_s_pollara_nic_per_gpu():
    # AMD's ROCm guide for MI355X clusters: 8 GPUs and 8 Pensando Pollara 400 AI NICs per node, one per GPU;
    # 400 Gb/s ÷ 8 bits = 50 GB/s each way. No Pollara latency is published: the fastest 400 Gb/s node-to-node
    # transfer found (InfiniBand, 2.8 µs, DeepSeek ISCA 2025) stands as the floor.
    net = get_device("mi355x").network
    assert net.node_devices == 8
    assert net.bandwidth_bytes_per_s_per_direction == pytest.approx(50e9)
    assert net.latency_floor_s == pytest.approx(2.8e-6)
    assert "Pollara" in net.link


def test_devices_without_a_network_say_so():
    assert get_device("mi300x").network is None
    assert "no scale-out network" in get_device("mi300x").network_note
    assert all(d.network is None or d.interconnect is not None for d in devices().values())


def _edit(text, device_id, old, new):
    start = text.index(f'id = "{device_id}"')
    end = text.find("[[device]]", start)
    end = len(text) if end == -1 else end
    block = text[start:end]
    assert old in block
    return text[:start] + block.replace(old, new, 1) + text[end:]


@pytest.mark.parametrize("old, new, message", [
    ("scaleout_bandwidth_Gb_per_s_per_direction = 400", "scaleout_bandwidth_Gb_per_s_per_direction = 0",
     "field 'scaleout_bandwidth_Gb_per_s_per_direction' must be positive"),
    ("scaleout_bandwidth_Gb_per_s_per_direction = 400", "scaleout_bandwidth_Gb_per_s_per_direction = -400",
     "field 'scaleout_bandwidth_Gb_per_s_per_direction' must be positive"),
    # 50 GB/s typed in bytes per second: absurd for a NIC
    ("scaleout_bandwidth_Gb_per_s_per_direction = 400", "scaleout_bandwidth_Gb_per_s_per_direction = 50e9",
     "field 'scaleout_bandwidth_Gb_per_s_per_direction' must be between"),
    ("scaleout_latency_floor_us = 2.8", "scaleout_latency_floor_us = 0", "field 'scaleout_latency_floor_us' must be positive"),
    ("scaleout_latency_floor_us = 2.8", "scaleout_latency_floor_us = -2.8", "must be positive"),
    # 2.8 s typed in microseconds
    ("scaleout_latency_floor_us = 2.8", "scaleout_latency_floor_us = 2.8e6", "field 'scaleout_latency_floor_us' must be between"),
    ("scaleout_node_devices = 8", "scaleout_node_devices = 3",
     "field 'scaleout_node_devices' must divide the scale-up domain (8)"),
    ("scaleout_latency_floor_us = 2.8\n", "", "field 'scaleout_latency_floor_us' is missing"),
])
def test_bad_network_gives_one_line_naming_file_and_field(spec_copy, run_cli, old, new, message):
    spec_copy("hardware.toml", lambda t: _edit(t, "h100-sxm5", old, new))
    with pytest.raises(SpecError, match=re.escape(message)):
        devices()
    code, out, err = run_cli("ridge", "h100-pcie")
    assert code == 2 and out == ""
    assert "hardware.toml: h100-sxm5:" in err and message in err and "Traceback" not in err
    assert err.count("\n") == 1
