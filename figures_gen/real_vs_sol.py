"""Every published measurement as a share of the package's speed of light for it.

Decode tokens/s ÷ speed of light, large-GEMM TFLOP/s ÷ dense peak, bandwidth ÷ spec,
from src/roofline/data/measurements.toml; the dashed line is the derated bandwidth share.
"""

from __future__ import annotations

from figures_gen import Table, narrow
from roofline import format as fmt, measured, measurements_of_kind as of_kind

NAME = "real-vs-sol"
NARROW_SIZE_IN = (5.0, 11.5)  # a row per measurement at the phone's type size
KIND_LABELS = {"decode": "decode ÷ speed of light", "gemm": "GEMM ÷ dense peak",
               "bandwidth": "bandwidth ÷ spec"}
KIND_COLOURS = {"decode": "#d81b60", "gemm": "#00897b", "bandwidth": "#3f51b5"}


def _short_device(p) -> str:
    name = p.measured_on or p.device.name
    for vendor in ("NVIDIA GeForce ", "NVIDIA ", "AMD Instinct ", "Intel ", "Apple "):
        name = name.removeprefix(vendor)
    return name.split(" (")[0].split(",")[0]


def _label(p) -> str:
    if p.kind == "decode":
        return f"{_short_device(p)} · {p.model_name} · {p.tool}"
    if p.kind == "gemm":
        return f"{_short_device(p)} · {p.dtype} {p.tool}"
    return f"{_short_device(p)} · {p.tool}"


def data() -> Table:
    rows = []
    for kind in ("decode", "gemm", "bandwidth"):
        for p in of_kind(kind):
            rows.append((p.id, kind, _label(p), p.value, measured.reference(p), measured.share(p)))
    return Table(("id", "kind", "label", "measured", "ceiling", "share_of_ceiling"), tuple(rows))


def draw(fig, table: Table) -> None:
    ax = fig.add_subplot()
    kinds, labels, shares = table.column("kind"), table.column("label"), table.column("share_of_ceiling")
    y = list(range(len(labels)))[::-1]
    seen = set()
    for yi, kind, share in zip(y, kinds, shares):
        ax.barh(yi, share * 100, color=KIND_COLOURS[kind], height=0.72,
                label=KIND_LABELS[kind] if kind not in seen else None)
        seen.add(kind)
    if narrow():  # a phone: the label's first part on one line, the rest on the next
        labels = [label.replace(" · ", "\n", 1) for label in labels]
    ax.set_yticks(y, labels, fontsize=6.2)
    ax.axvline(100, color="#333", lw=1)
    derate = measured.bandwidth_derate() * 100
    ax.axvline(derate, color="#3f51b5", ls="--", lw=1)
    ax.annotate("derated bandwidth", (derate, y[0] + 0.6), ha="right", fontsize=7, color="#3f51b5",
                xytext=(-3, 0), textcoords="offset points", annotation_clip=False)
    ax.set_xlim(0, 105)
    ax.set_xlabel("measured ÷ the package's ceiling for it (%)")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.03), ncol=3, frameon=False, fontsize=7)


def _spread(kind: str) -> tuple[float, float]:
    shares = [measured.share(p) for p in of_kind(kind)]
    return min(shares), max(shares)


def alt() -> str:
    dlo, dhi = _spread("decode")
    glo, ghi = _spread("gemm")
    blo, bhi = _spread("bandwidth")
    return (f"Horizontal bars, one per published measurement. Batch-1 decode, at the context each source states, reaches "
            f"{fmt.percent(dlo)} to {fmt.percent(dhi)} of the speed of light; large GEMMs reach "
            f"{fmt.percent(glo)} to {fmt.percent(ghi)} of the dense peak; sustained bandwidth reaches "
            f"{fmt.percent(blo)} to {fmt.percent(bhi)} of spec, with a median of "
            f"{fmt.percent(measured.bandwidth_derate())}, drawn as a dashed line.")


def caption() -> str:
    return (f"How close published systems get to the package's ceilings. The dashed line is the median "
            f"bandwidth share, {fmt.percent(measured.bandwidth_derate())}, which the derated columns use.")
