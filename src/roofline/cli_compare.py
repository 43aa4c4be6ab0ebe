"""`roofline compare`: which GPU to buy for one workload (model, formats, I, O, targets).

Per device: the most output tokens/s per device under the targets at the ceiling and at the
expected figure, the layout and concurrency that give it, $ per million output tokens at both, and
the break-even price ratio between every pair. Prices come from the registry (data/prices.toml,
with the provider and the month read) unless `--price DEVICE=USD` gives the reader's own.
"""

from __future__ import annotations

import json
from typing import Any

from roofline import format as fmt
from roofline.errors import InputError
from roofline.model.compare import break_even, compare
from roofline.registry.hardware import get_device
from roofline.registry.prices import KINDS

MAX_DEVICES_COMPARED = 12


def _hardware_list(text: str) -> list[str]:
    ids = [t.strip() for t in str(text).split(",") if t.strip()]
    if not ids:
        raise InputError("--hardware: name one or more registry device ids, separated by commas")
    if len(ids) > MAX_DEVICES_COMPARED:
        raise InputError(f"--hardware: at most {MAX_DEVICES_COMPARED} devices at once, got {len(ids)}")
    if len(set(ids)) != len(ids):
        raise InputError(f"--hardware: a device is named twice in {text!r}")
    return ids


def _prices(items: list[str] | None) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in items or []:
        ident, sep, value = item.partition("=")
        try:
            usd = float(value)
        except ValueError:
            usd = float("nan")
        if not sep or not ident.strip() or not (0 < usd <= 1000):
            raise InputError(f"--price must read DEVICE=USD with a price per device-hour above 0 and at most 1000, "
                             f"got {item!r}")
        out[ident.strip()] = usd
    return out


def _choice_payload(c) -> dict[str, Any]:
    from roofline.model import record

    def point(p):
        return None if p is None else record.service_record(p)

    reg = c.price
    return {"hardware": c.device.id, "hardware_name": c.device.name,
            "ceiling": point(c.ceiling), "expected": point(c.expected),
            "targets_unmet_ceiling": c.unmet_ceiling or None, "targets_unmet_expected": c.unmet_expected or None,
            "usd_per_device_hour": c.usd_per_device_hour,
            "price_source": None if c.usd_per_device_hour is None else (
                "yours (--price)" if reg is None else
                {"provider": reg.provider, "kind": reg.kind, "url": reg.source_url, "date_read": reg.date_read}),
            "usd_per_million_output_tokens_ceiling": c.usd_per_million("ceiling"),
            "usd_per_million_output_tokens_expected": c.usd_per_million("expected")}


def _line(c) -> list[str]:
    name = c.device.name
    out = []
    for which, p, unmet in (("ceiling", c.ceiling, c.unmet_ceiling), ("expected", c.expected, c.unmet_expected)):
        if p is None:
            out.append(f"  {which}: {unmet}")
            continue
        usd = c.usd_per_million(which)
        cost = "" if usd is None else f", ${usd:.3g} per million output tokens"
        out.append(f"  {which}: {fmt.sig(p.output_tokens_per_s_per_device)} output tokens/s per device "
                   f"({p.layout_name}, concurrency {p.concurrency}, TTFT {fmt.seconds(p.ttft_s)}, "
                   f"TPOT {fmt.seconds(p.tpot_s)}){cost}")
    if c.usd_per_device_hour is None:
        price = "no price: give --price " + c.device.id + "=USD"
    elif c.price is None:
        price = f"${c.usd_per_device_hour:g} per device-hour (yours)"
    else:
        price = (f"${c.usd_per_device_hour:g} per device-hour ({c.price.kind}, {c.price.provider}, "
                 f"read {c.price.date_read})")
    return [f"{name}: {price}", *out]


def _emit(args, payload: dict[str, Any], text: str) -> None:
    """JSON (valid always: null, never NaN) or the text with no escapes from a file's names, as every command prints."""
    print(json.dumps(fmt.json_safe(payload), indent=2, allow_nan=False) if args.json else fmt.terminal(text))


def cmd_compare(args) -> None:
    from roofline.configs import model_from_arg
    from roofline.model import serving
    from roofline.model.formats import Formats, choose_weight_format

    m = model_from_arg(args.model)
    devs = [get_device(i) for i in _hardware_list(args.hardware)]
    choice = choose_weight_format(m, args.weight_format, args.weight_scope)
    f = Formats.of(choice.format, args.activation_dtype, args.kv_dtype, scope=choice.scope)
    wl = serving.Workload(args.input_tokens, args.output_tokens, None, args.max_concurrency, args.chunk_tokens, f,
                          args.attention)
    ttft = None if args.ttft_ms is None else args.ttft_ms / 1e3
    tpot = None if args.tpot_ms is None else args.tpot_ms / 1e3
    choices = compare(m, devs, wl, ttft, tpot, args.devices, _prices(args.price), args.price_kind)
    pairs = break_even(choices, "expected") + break_even(choices, "ceiling")
    payload = {"model": m.id, "hardware": [d.id for d in devs],
               "workload": {"input_tokens": wl.input_tokens, "output_tokens": wl.output_tokens,
                            "weight_format": f.weights.name, "weight_format_source": choice.source,
                            "activation_dtype": f.activation, "kv_dtype": f.kv, "chunk_tokens": wl.chunk_tokens,
                            "max_devices": args.devices},
               "targets": {"ttft_s": ttft, "tpot_s": tpot},
               "meaning": "ceiling: datasheet peaks, every kernel at its roofline (a throughput ceiling); expected: "
                          "every kernel at its efficiency from published kernel benchmarks plus the engine's "
                          "per-step overhead (an estimate, never a measurement)",
               "devices": [_choice_payload(c) for c in choices], "break_even": pairs}
    lines = [f"compare · {m.name} · {wl.description}"
             + (f" · TTFT ≤ {fmt.seconds(ttft)}" if ttft else "") + (f" · TPOT ≤ {fmt.seconds(tpot)}" if tpot else "")]
    for c in choices:
        lines += _line(c)
    for pair in pairs:
        a, b = get_device(pair["a"]).name, get_device(pair["b"]).name
        lines.append(f"break-even ({pair['figure']}): the {a} costs the same per token as the {b} at "
                     f"{pair['price_ratio']:.3g}× its price per device-hour; below that it is the cheaper")
    lines.append("ceiling: datasheet peaks, every kernel at its roofline; expected: every kernel at its published "
                 "efficiency plus the engine's per-step overhead (an estimate)")
    _emit(args, payload, "\n".join(lines))


def add_parser(add, add_weight_options, whole_number, number, activation_dtypes, storage_dtypes, attention_variants,
               positive_int) -> None:
    """Register `roofline compare` with the CLI's helpers (cli.build_parser calls it)."""
    sp = add("compare", cmd_compare, "which GPU to buy: per device, the most output tokens/s per device under the "
                                     "targets (ceiling and expected) and $ per million output tokens")
    sp.add_argument("--model", required=True, help="registry id or a path to a Hugging Face config.json")
    sp.add_argument("--hardware", required=True, metavar="IDS",
                    help="registry device ids separated by commas, e.g. h100-sxm5,h200-sxm,b200")
    sp.add_argument("--input-tokens", type=whole_number("--input-tokens", 1, 10**7), required=True, metavar="I",
                    help="prompt tokens per request")
    sp.add_argument("--output-tokens", type=whole_number("--output-tokens", 2, 10**7), required=True, metavar="O",
                    help="output tokens per request (at least 2)")
    sp.add_argument("--ttft-ms", type=number("--ttft-ms", 0, 1e9, "milliseconds", low_inclusive=False), metavar="T",
                    help="target: time to first token at most T ms")
    sp.add_argument("--tpot-ms", type=number("--tpot-ms", 0, 1e9, "milliseconds", low_inclusive=False), metavar="T",
                    help="target: time per output token at most T ms")
    sp.add_argument("--devices", type=positive_int("--devices"), metavar="N",
                    help="at most N devices per replica (default: one scale-up domain)")
    sp.add_argument("--max-concurrency", type=whole_number("--max-concurrency", 1, 10**6), metavar="C",
                    help="the engine's cap on requests in flight")
    sp.add_argument("--price", action="append", metavar="DEVICE=USD",
                    help="your price per device-hour for one device (repeat for each); replaces the registry's")
    sp.add_argument("--price-kind", default="on-demand", choices=KINDS,
                    help="which registry price to charge where you give none")
    sp.add_argument("--chunk-tokens", type=whole_number("--chunk-tokens", 1, 10**7), default=8192, metavar="K",
                    help="prompt tokens an engine step takes")
    add_weight_options(sp)
    sp.add_argument("--activation-dtype", default="bf16", choices=activation_dtypes, help="format of activations")
    sp.add_argument("--kv-dtype", default="bf16", choices=storage_dtypes, help="format of the KV cache")
    sp.add_argument("--attention", default="fused", choices=attention_variants, help="attention variant")
