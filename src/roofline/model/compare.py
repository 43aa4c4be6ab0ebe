"""Which GPU to buy: one workload on several devices, each at its best layout and concurrency under
the targets, at the ceiling and at the expected figure, and what a million output tokens costs.

For each device the frontier (`serving.frontier`: every layout within one scale-up domain, or up to
`max_devices`, × concurrency) is searched twice: for the most output tokens/s per device whose TTFT
and TPOT meet the targets at the ceiling, and again with every point at its expected figure (its
step time the expected step's; TTFT scaled by the same ratio). Cost per million output tokens =
price per device-hour ÷ (output tokens/s per device × 3,600) × 10⁶.

Two devices cost the same per token when their prices stand in the ratio of their tokens/s per
device: the *break-even price ratio* price_A ÷ price_B = tokens/s per device of A ÷ of B. Device A
is the cheaper per token whenever its price is below that multiple of B's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from roofline.errors import InputError
from roofline.model import serving
from roofline.registry.hardware import Device
from roofline.registry.models import Model
from roofline.registry.prices import Price, default_price

SECONDS_PER_HOUR = 3600.0


def usd_per_million_tokens(usd_per_device_hour: float, tokens_per_s_per_device: float) -> float:
    """What a million output tokens cost at a price per device-hour and a rate per device.

    >>> usd_per_million_tokens(3.6, 1000.0)  # $3.60 an hour buys 3.6 million tokens: $1 per million
    1.0
    """
    if not tokens_per_s_per_device > 0:
        raise InputError("a cost per token needs a positive throughput")
    return usd_per_device_hour / (tokens_per_s_per_device * SECONDS_PER_HOUR) * 1e6


def break_even_price_ratio(tokens_per_s_per_device_a: float, tokens_per_s_per_device_b: float) -> float:
    """price_A ÷ price_B at which A and B cost the same per token: A's rate ÷ B's.

    >>> break_even_price_ratio(3000.0, 2000.0)  # A does 1.5× the work a device-hour: worth up to 1.5× B's price
    1.5
    """
    if not (tokens_per_s_per_device_a > 0 and tokens_per_s_per_device_b > 0):
        raise InputError("a break-even price ratio needs both devices' throughput to be positive")
    return tokens_per_s_per_device_a / tokens_per_s_per_device_b


def expected_view(p: serving.ServicePoint) -> serving.ServicePoint:
    """The same point at its expected figure: every time and rate from its expected step mix (its steps at their
    expected times, at the requests its engine holds, `ServicePoint.expected_slots`), so a target is judged on the
    expected percentile as on the ceiling's; input tokens/s at the expected rate (I per O)."""
    k = p.output_tokens_per_s / p.expected_output_tokens_per_s
    t = p.expected_ttft_s
    return replace(p, step_time_s=p.expected_step_time_s, tpot_s=p.expected_tpot_s, ttft_s=t,
                   tpot_p50_s=p.expected_tpot_p50_s, tpot_p90_s=p.expected_tpot_p90_s,
                   tpot_p99_s=p.expected_tpot_p99_s, ttft_p50_s=t, ttft_p90_s=t, ttft_p99_s=t,
                   request_latency_s=p.expected_request_latency_s,
                   output_tokens_per_s=p.expected_output_tokens_per_s, input_tokens_per_s=p.input_tokens_per_s / k,
                   usd_per_million_output_tokens=None, usd_per_million_input_tokens=None)


@dataclass(frozen=True)
class DeviceChoice:
    """One device's answer: its best point under the targets at the ceiling and at the expected figure
    (or the sentence saying which target nothing meets), and the price charged."""

    device: Device
    ceiling: serving.ServicePoint | None
    expected: serving.ServicePoint | None
    unmet_ceiling: str
    unmet_expected: str
    usd_per_device_hour: float | None
    price: Price | None            # the registry's price, where the reader gave none

    def usd_per_million(self, which: str) -> float | None:
        p = self.ceiling if which == "ceiling" else self.expected
        if p is None or self.usd_per_device_hour is None:
            return None
        return usd_per_million_tokens(self.usd_per_device_hour, p.output_tokens_per_s_per_device)


def compare(model: Model, devices: list[Device], workload: serving.Workload, ttft_s: float | None = None,
            tpot_s: float | None = None, max_devices: int | None = None,
            prices: dict[str, float] | None = None, price_kind: str = "on-demand") -> list[DeviceChoice]:
    """Each device's best point under the targets, at the ceiling and at the expected figure, with its cost.

    `prices` ({device id: USD per device-hour}) replaces the registry's; a device with neither has no cost.
    """
    if not devices:
        raise InputError("--hardware: name at least one device to compare")
    prices = prices or {}
    for ident in prices:
        if ident not in {d.id for d in devices}:
            raise InputError(f"--price {ident}=…: {ident} is not among the devices compared "
                             f"({', '.join(d.id for d in devices)})")
    out = []
    for d in devices:
        points = serving.frontier(model, d, workload, max_devices)
        best = serving.best_under_targets(points, ttft_s, tpot_s) if (ttft_s or tpot_s) else \
            max(points, key=lambda p: (p.output_tokens_per_s_per_device, -p.devices))
        views = [expected_view(p) for p in points]
        best_exp = serving.best_under_targets(views, ttft_s, tpot_s) if (ttft_s or tpot_s) else \
            max(views, key=lambda p: (p.output_tokens_per_s_per_device, -p.devices))
        given = prices.get(d.id)
        reg = None if given is not None else default_price(d.id, price_kind)
        usd = given if given is not None else (reg.usd_per_device_hour if reg else None)
        out.append(DeviceChoice(d, None if isinstance(best, str) else best,
                                None if isinstance(best_exp, str) else best_exp,
                                best if isinstance(best, str) else "", best_exp if isinstance(best_exp, str) else "",
                                usd, reg))
    return out


def break_even(choices: list[DeviceChoice], which: str = "expected") -> list[dict]:
    """The break-even price ratio of every pair of devices that both meet the targets (`which` figure)."""
    out = []
    for i, a in enumerate(choices):
        for b in choices[i + 1:]:
            pa, pb = (a.expected, b.expected) if which == "expected" else (a.ceiling, b.ceiling)
            if pa is None or pb is None:
                continue
            out.append({"a": a.device.id, "b": b.device.id, "figure": which,
                        "price_ratio": break_even_price_ratio(pa.output_tokens_per_s_per_device,
                                                              pb.output_tokens_per_s_per_device)})
    return out
