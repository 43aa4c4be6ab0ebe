"""Tokens about which GPU to buy (docs/serving.md): one workload on one device at its best layout and
concurrency under the targets, at the ceiling or the expected figure, its cost per million output
tokens at the registry's dated price, and the break-even price ratio of two devices.

Every label names the model, the device, I and O, the formats, the targets and which figure it is.
"""

from __future__ import annotations

from functools import lru_cache

from roofline.errors import InputError
from roofline.model import compare as _cmp
from roofline.quantities.core import Input, Quantity, Source, Term, as_device, as_model, bandwidth_input, \
    model_inputs, peak_input
from roofline.quantities.serving import service_workload, whole
from roofline.registry.prices import default_price

FIGURES = ("ceiling", "expected")

#: What `buy` can return: unit and words of each number; "layout_name" and "refusal" are text.
_FIELDS = {
    "output_tokens_per_s_per_device": ("tokens/s", "best output tokens/s per device under the targets"),
    "usd_per_million_output_tokens": ("USD", "$ per million output tokens at the best point under the targets"),
    "tpot_s": ("s", "time per output token at the best point under the targets"),
    "ttft_s": ("s", "time to first token at the best point under the targets"),
    "concurrency": ("", "requests in flight at the best point under the targets"),
    "devices": ("", "devices at the best point under the targets"),
}
_TEXT = ("layout_name", "refusal")
_PRICE_FIELDS = ("usd_per_device_hour", "date_read", "provider", "kind")


def _opt(x) -> float | None:
    return None if x is None else float(x)


@lru_cache(maxsize=32)
def _choice(model, hw, I, O, ttft_s, tpot_s, weights, activations, kv, price, price_kind):
    m, d = as_model(model), as_device(hw)
    wl = service_workload(I, O, None, weights, activations, kv)
    prices = None if price is None else {d.id: price}
    (c,) = _cmp.compare(m, [d], wl, ttft_s, tpot_s, prices=prices, price_kind=price_kind)
    return m, d, wl, c


def _figure(figure: str) -> str:
    if figure not in FIGURES:
        raise InputError(f"figure must be ceiling or expected, got {figure!r}")
    return figure


def _targets(ttft_s, tpot_s) -> str:
    parts = [f"TTFT ≤ {float(ttft_s) * 1e3:g} ms" if ttft_s is not None else "",
             f"TPOT ≤ {float(tpot_s) * 1e3:g} ms" if tpot_s is not None else ""]
    return " and ".join(p for p in parts if p) or "no target"


def _price_inputs(c) -> tuple[Input, ...]:
    if c.usd_per_device_hour is None:
        return ()
    if c.price is None:
        return (Input("price per device-hour (the reader's input)", c.usd_per_device_hour, "USD"),)
    p = c.price
    return (Input(f"{p.kind} price of one {c.device.name} for an hour, {p.provider}, read {p.date_read}",
                  p.usd_per_device_hour, "USD", Source(p.source_title, p.source_url)),)


def buy(model, hw, I, O, what: str = "output_tokens_per_s_per_device", figure: str = "ceiling", ttft_s=None,
        tpot_s=None, weights: str = "bf16", activations: str = "bf16", kv: str = "bf16", price=None,
        price_kind: str = "on-demand") -> Quantity | str:
    """One device's best point under the targets at the ceiling or the expected figure, as `roofline compare`
    prints it: {{ buy("llama-3.1-8b", "b200", 128, 2048, "usd_per_million_output_tokens", "expected", tpot_s=0.03) }}.

    The cost charges the registry's lowest `price_kind` price of the device unless `price` gives the reader's own.
    `what="refusal"` is the sentence saying which target nothing meets.
    """
    figure = _figure(figure)
    if what not in _FIELDS and what not in _TEXT:
        raise InputError(f"buy: what must be one of {', '.join((*_FIELDS, *_TEXT))}, got {what!r}")
    m, d, wl, c = _choice(model, hw, whole(I), whole(O), _opt(ttft_s), _opt(tpot_s), weights, activations, kv,
                          _opt(price), price_kind)
    p = c.ceiling if figure == "ceiling" else c.expected
    unmet = c.unmet_ceiling if figure == "ceiling" else c.unmet_expected
    if what == "refusal":
        if p is not None:
            raise InputError(f"buy: {d.name} meets {_targets(ttft_s, tpot_s)} at the {figure}: no refusal to show")
        return unmet
    if p is None:
        raise InputError(f"buy: {d.name} meets no point under {_targets(ttft_s, tpot_s)} at the {figure}: {unmet}")
    if what == "layout_name":
        return p.layout_name
    unit, words = _FIELDS[what]
    tps = p.output_tokens_per_s_per_device
    line: tuple = ()
    if what == "usd_per_million_output_tokens":
        if c.usd_per_device_hour is None:
            raise InputError(f"buy: the registry has no price for {d.name}; give price=USD per device-hour")
        value = c.usd_per_million(figure)
        # price ÷ (tokens/s per device × seconds an hour) × a million tokens
        line = (Term(c.usd_per_device_hour, "USD"), "÷", "(", Term(tps, "tokens/s"), "×", Term(3600.0), ")", "×",
                Term(1e6))
    elif what == "output_tokens_per_s_per_device":
        value = tps
        line = (Term(p.output_tokens_per_s, "tokens/s"), "÷", Term(float(p.devices)))
    else:
        value = float(getattr(p, what))
    f = wl.formats
    which = ("ceiling: dense peaks, spec bandwidth, every kernel at its roofline" if figure == "ceiling" else
             "expected (an estimate): every kernel at its published efficiency plus the engine's per-step overhead")
    label = (f"{words}: {m.name} on {d.name}, {p.layout_name} at concurrency {p.concurrency}, I {wl.input_tokens}, "
             f"O {wl.output_tokens}, weights {f.weights.name}, activations {f.activation}, KV {f.kv}, "
             f"{_targets(ttft_s, tpot_s)}; {which}")
    inputs = (*model_inputs(m), bandwidth_input(d), peak_input(d, f.activation),
              Input("prompt tokens I", wl.input_tokens), Input("output tokens O", wl.output_tokens))
    if what == "usd_per_million_output_tokens":
        inputs += _price_inputs(c)
    return Quantity(float(value), unit, label,
                    "the most output tokens/s per device over every layout within one scale-up domain and every "
                    "concurrency whose TTFT and TPOT meet the targets" +
                    ("; cost = price per device-hour ÷ (tokens/s per device × 3,600) × 10⁶" if unit == "USD" else ""),
                    inputs, 6 if unit == "" else 3, line)


def buy_break_even(model, a, b, I, O, figure: str = "expected", ttft_s=None, tpot_s=None, weights: str = "bf16",
                   activations: str = "bf16", kv: str = "bf16") -> Quantity:
    """The price of device `a` per hour, as a share of `b`'s, at which both cost the same per output token:
    `a` is the cheaper per token only below it. It is `a`'s best tokens/s per device ÷ `b`'s."""
    figure = _figure(figure)
    qa = buy(model, a, I, O, "output_tokens_per_s_per_device", figure, ttft_s, tpot_s, weights, activations, kv)
    qb = buy(model, b, I, O, "output_tokens_per_s_per_device", figure, ttft_s, tpot_s, weights, activations, kv)
    da, db = as_device(a), as_device(b)
    value = _cmp.break_even_price_ratio(float(qa), float(qb))
    return Quantity(value, "%", f"break-even price of one {da.name}-hour as a share of one {db.name}-hour "
                    f"({figure}, {as_model(model).name}, I {whole(I)}, O {whole(O)}, {_targets(ttft_s, tpot_s)}, "
                    f"{weights} weights): below it the {da.name} is the cheaper per token",
                    f"{da.name}'s best output tokens/s per device ÷ {db.name}'s, each under the targets",
                    (*qa.inputs, bandwidth_input(db), peak_input(db, activations)), 3,
                    (Term(float(qa), "tokens/s"), "÷", Term(float(qb), "tokens/s")))


def buy_price(hw, what: str = "usd_per_device_hour", kind: str = "on-demand") -> Quantity | str:
    """The registry's price a comparison charges for a device by default: its value, the month it was read,
    its provider or its kind (the other kind where the device has none of `kind`)."""
    d = as_device(hw)
    if what not in _PRICE_FIELDS:
        raise InputError(f"buy_price: what must be one of {', '.join(_PRICE_FIELDS)}, got {what!r}")
    p = default_price(d.id, kind)
    if p is None:
        raise InputError(f"buy_price: the price registry has no price for {d.name}")
    if what != "usd_per_device_hour":
        return str(getattr(p, what))
    return Quantity(p.usd_per_device_hour, "USD",
                    f"{p.kind} price of one {d.name} for an hour, {p.provider}, read {p.date_read}",
                    "as published (an instance's price ÷ its devices where the source prices instances)",
                    (Input(p.note or p.source_title, p.usd_per_device_hour, "USD", Source(p.source_title, p.source_url)),),
                    3)


#: The token functions this topic adds to the namespace pages evaluate in.
TOKENS = (buy, buy_break_even, buy_price)

__all__ = [fn.__name__ for fn in TOKENS]
