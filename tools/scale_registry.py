"""Edited registries for measures: N extra generated devices, or the H100's bandwidth changed.

`python -m tools.scale_registry N OUT.toml` writes hardware.toml plus N plausible made-up
devices (ids scale-0001...). `make bench` builds with 1,000 of them (tools/bench.py), and times a
spec change as `with_h100_bandwidth` makes it (the tests build the same edit).
"""

from __future__ import annotations

import sys
from pathlib import Path

from roofline.atomic import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]


H100_BANDWIDTH = "memory_bandwidth_TB_per_s = 3.35"


def with_h100_bandwidth(registry_text: str, new_bandwidth: str) -> str:
    """hardware.toml's text with the H100 SXM5's memory bandwidth (TB/s) set to `new_bandwidth`."""
    block = registry_text.index('id = "h100-sxm5"')
    end = registry_text.index("[[device]]", block)
    h100 = registry_text[block:end]
    if h100.count(H100_BANDWIDTH) != 1:
        raise ValueError("the H100 SXM5 entry no longer reads 3.35 TB/s; update tools/scale_registry.py")
    return (registry_text[:block] + h100.replace(H100_BANDWIDTH, f"memory_bandwidth_TB_per_s = {new_bandwidth}")
            + registry_text[end:])


def scaled_registry(extra: int) -> str:
    """hardware.toml's text with `extra` generated devices appended (bandwidth and peaks vary)."""
    text = (ROOT / "src" / "roofline" / "data" / "hardware.toml").read_text(encoding="utf-8")
    blocks = [text.rstrip("\n")]
    for i in range(1, extra + 1):
        bw = 0.5 + (i * 37 % 100) / 20  # 0.5 .. 5.45 TB/s
        peak = 50 + (i * 53 % 200) * 5   # 50 .. 1045 TFLOP/s
        blocks.append(f'''[[device]]
id = "scale-{i:05d}"
name = "Generated device {i}"
vendor = "Generated"
kind = "gpu"
memory_type = "HBM3"
memory_capacity_GB = {16 + i % 8 * 16}
memory_bandwidth_TB_per_s = {bw:.3f}
dense_peak_TFLOP_per_s = {{ bf16 = {peak}, fp16 = {peak}, fp8 = {2 * peak} }}
source_url = "https://example.com/generated/{i}"
source_title = "Generated for a scale test"
note = "generated device {i}, not a real part"
confidence = "low"
checked = 2026-11-23''')
    return "\n\n".join(blocks) + "\n"


def main(argv: list[str]) -> int:
    extra, out = int(argv[0]), Path(argv[1])
    atomic_write_text(out, scaled_registry(extra))
    print(f"{out}: hardware.toml + {extra} generated devices")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
