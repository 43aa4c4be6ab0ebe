"""Every registry device on one map: memory bandwidth against dense 16-bit peak, ridges as diagonals."""

from __future__ import annotations

import numpy as np

from figures_gen import Table, log_ticks, point_labels
from roofline import device_ridge_point, devices, format as fmt, get_device

NAME = "hardware-map"
#: Devices whose ridges are drawn as diagonal guides, and which get a label.
GUIDES = ("m4-max", "h100-sxm5", "tpu-v6e")
LABELLED = ("a100-sxm4-80gb", "h100-sxm5", "b200", "mi300x", "tpu-v4", "tpu-v6e", "gaudi3", "l4", "rtx-4090",
            "m4-max", "epyc-9654", "xeon-8480plus")
#: Points the map tries to label (more than the registry's devices today: every one gets a try).
MAX_LABEL_TRIES = 60
KIND_LABEL = {"gpu": "GPU", "tpu": "TPU", "accelerator": "other accelerator", "soc": "system-on-chip", "cpu": "CPU"}
KIND_STYLE = {"gpu": ("o", "#3f51b5"), "tpu": ("s", "#43a047"), "accelerator": ("D", "#ef6c00"),
              "soc": ("^", "#6d4c41"), "cpu": ("v", "#757575")}


def data() -> Table:
    rows = tuple((d.id, d.kind, d.memory_bandwidth_bytes_per_s, d.peak_flop_per_s(d.sixteen_bit_dtype),
                  device_ridge_point(d, d.sixteen_bit_dtype)) for d in devices().values())
    return Table(("device_id", "kind", "bandwidth_bytes_per_s", "dense_16bit_peak_flop_per_s", "ridge_flop_per_byte"),
                 rows)


def draw(fig, table: Table) -> None:
    ax = fig.add_subplot()
    bw = np.array(table.column("bandwidth_bytes_per_s")) / 1e12
    pk = np.array(table.column("dense_16bit_peak_flop_per_s")) / 1e12
    kinds = table.column("kind")
    for kind, (marker, colour) in KIND_STYLE.items():
        sel = np.array([k == kind for k in kinds])
        if sel.any():
            ax.loglog(bw[sel], pk[sel], marker, color=colour, ms=6, ls="none", label=KIND_LABEL[kind])
    xs = np.array([bw.min() / 1.5, bw.max() * 1.5])
    guides = []
    for dev_id in GUIDES:
        r = device_ridge_point(get_device(dev_id))
        ax.loglog(xs, xs * r, color="#9e9e9e", lw=0.8, ls=":")
        guides.append((xs[-1] / 1.6, xs[-1] / 1.6 * r, f"ridge {fmt.intensity(r)}"))
    point_labels(ax, guides, fontsize=8, colour="#616161")
    ids = table.column("device_id")
    named = []
    # The named devices first, then others where a free spot remains: at most MAX_LABEL_TRIES in all, since
    # each try measures text against every label placed (a registry of thousands would take minutes).
    for i in sorted(range(len(ids)), key=lambda i: (ids[i] not in LABELLED, i))[:MAX_LABEL_TRIES]:
        name = get_device(ids[i]).name.replace("NVIDIA ", "").replace("AMD Instinct ", "").replace("Google ", "")
        named.append((bw[i], pk[i], name.split(" (")[0]))
    point_labels(ax, named, fontsize=7.5)
    ax.set_xlabel("memory bandwidth (TB/s, log)")
    ax.set_ylabel("dense 16-bit peak (TFLOP/s, log)")
    ax.set_title("Every registry device: up and left means a higher ridge")
    log_ticks(ax, "x", [])
    log_ticks(ax, "y", [])
    ax.minorticks_off()  # keeps the SVG small
    ax.legend(loc="upper left", frameon=False, fontsize=8.5)


def alt() -> str:
    ds = list(devices().values())
    lo = min(ds, key=device_ridge_point)
    hi = max(ds, key=device_ridge_point)
    fast = max(ds, key=lambda d: d.memory_bandwidth_bytes_per_s)
    return (f"Log-log scatter of the {fmt.sig(float(len(ds)), 6)} registry devices, memory bandwidth across and "
            f"dense bf16 (or fp16) peak up, marked by kind (GPU, TPU, accelerator, system-on-chip, CPU). Dotted diagonals "
            f"are lines of constant ridge point. The lowest ridge is the {lo.name} at "
            f"{fmt.intensity(device_ridge_point(lo))}, the highest the {hi.name} at "
            f"{fmt.intensity(device_ridge_point(hi))}; bandwidth reaches {fmt.bytes_per_s(fast.memory_bandwidth_bytes_per_s)}.")


def caption() -> str:
    ds = list(devices().values())
    return (f"The registry's {fmt.sig(float(len(ds)), 6)} devices at their dense sixteen-bit peaks (bf16, or fp16 where "
            f"no bf16 figure is published) and spec bandwidth. Ridges span "
            f"{fmt.intensity(min(device_ridge_point(d) for d in ds))} to "
            f"{fmt.intensity(max(device_ridge_point(d) for d in ds))}.")
