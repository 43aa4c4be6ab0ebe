"""The one formatter: significant figures, SI prefixes and units for every number the site prints."""

from __future__ import annotations

import functools
import math
import re

from roofline.errors import InputError

_PREFIXES = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")]
_SUB_PREFIXES = [(1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n")]


# C0/C1 controls (escape sequences, carriage return, bell) and bidirectional overrides, which let
# text from a file clear a terminal, move its cursor or forge a line; newline and tab are kept.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal(text: object) -> str:
    r"""`text` for a terminal: control characters and escape sequences removed, the rest as is.

    >>> terminal("ok\x1b[2J\rroofline: error: forged")
    'ok[2Jroofline: error: forged'
    """
    return _CONTROL.sub("", str(text))


#: The longest one-line error, in characters (most stay under 200: a quoted input longer than 120
#: characters keeps only its ends): a 60 KB expression or a 5,000-character path would bury the reason.
MAX_ERROR_CHARS = 300


def one_line_error(text: object, limit: int = MAX_ERROR_CHARS) -> str:
    """An error message as one terminal line of at most about `limit` characters: controls and
    line breaks gone, a long middle (the quoted input, mostly) elided so the start (what, where)
    and the end (why) remain.

    >>> one_line_error("--model " + "a" * 500 + ": not found") == "--model " + "a" * 60 + "…" + "a" * 39 + ": not found"
    True
    """
    # A long run without a space is a quoted input (a path, an expression): its middle goes first.
    words = [w if len(w) <= 120 else f"{w[:60]}…{w[-40:]}" for w in terminal(text).split()]
    flat = " ".join(words)
    if len(flat) <= limit:
        return flat
    head = (limit - 3) * 2 // 3
    tail = limit - 3 - head
    return f"{flat[:head]} … {flat[-tail:]}"


def json_safe(value):
    """`value` for JSON output: NaN and infinities as null, whole floats as integers, recursively.

    >>> json_safe({"a": float("inf"), "b": [8030000000.0, 0.5]})
    {'a': None, 'b': [8030000000, 0.5]}
    """
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        if value.is_integer() and abs(value) < 2**63:
            return int(value)
    return value


def _check(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"cannot format {value!r}: not a finite number")
    return float(value)


@functools.lru_cache(maxsize=1 << 16, typed=True)
def sig(value: float, digits: int = 3) -> str:
    """`value` to `digits` significant figures, trailing zeros dropped, thousands separated.

    >>> sig(295.3432), sig(0.5625, 4), sig(4776.1), sig(209.375)
    ('295', '0.5625', '4,780', '209')
    """
    value = _check(value)
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    decimals = max(digits - 1 - exponent, 0)
    rounded = round(value, digits - 1 - exponent)
    text = f"{rounded:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def si(value: float, unit: str, digits: int = 3, *, small: bool = False) -> str:
    """`value` with a decimal SI prefix on `unit`: si(3.35e12, "B/s") == "3.35 TB/s".

    `small=True` also allows milli, micro and nano (for seconds).
    """
    value = _check(value)
    mag = abs(value)
    table = _PREFIXES + (_SUB_PREFIXES[1:] if small else [])
    for scale, prefix in table:
        if mag >= scale * 0.9995 or scale == table[-1][0]:
            scaled = value / scale
            # rounding may carry into the next prefix (999.96 -> 1,000): step up once
            if abs(float(sig(scaled, digits).replace(",", ""))) >= 1000 and prefix != table[0][1]:
                continue
            return f"{sig(scaled, digits)} {prefix}{unit}"
    return f"{sig(value, digits)} {unit}"


def flop_per_s(value: float, digits: int = 3) -> str:
    """si(989.4e12) -> '989 TFLOP/s'."""
    return si(value, "FLOP/s", digits)


def bytes_per_s(value: float, digits: int = 3) -> str:
    return si(value, "B/s", digits)


def nbytes(value: float, digits: int = 3) -> str:
    return si(value, "B", digits)


def gib(value_bytes: float, digits: int = 3) -> str:
    return f"{sig(value_bytes / 2**30, digits)} GiB"


#: Past a thousand seconds a time reads in hours, days or years: "908 Gs" says nothing to a reader.
_LONG_TIMES = ((365.25 * 86400, "years"), (86400, "days"), (3600, "h"))


def seconds(value: float, digits: int = 3) -> str:
    """seconds(0.004776) -> '4.78 ms'; past a thousand seconds in hours, days or years.

    >>> seconds(0.004776), seconds(5400), seconds(9.08e11)
    ('4.78 ms', '1.5 h', '28,800 years')
    """
    value = _check(value)
    if abs(value) < 999.5:
        return si(value, "s", digits, small=True)
    scale, unit = next(((scale, unit) for scale, unit in _LONG_TIMES if abs(value) >= scale * 2), _LONG_TIMES[-1])
    return f"{sig(value / scale, digits)} {unit}"


def intensity(value: float, digits: int = 3) -> str:
    return f"{sig(value, digits)} FLOP/byte"


def tokens_per_s(value: float, digits: int = 3) -> str:
    return f"{sig(value, digits)} tokens/s"


def count(value: float, digits: int = 3) -> str:
    """A plain count with an SI-style word suffix for large values: count(8.03e9) -> '8.03 billion'."""
    value = _check(value)
    for scale, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if abs(value) >= scale:
            return f"{sig(value / scale, digits)} {word}"
    return sig(value, digits)


def percent(fraction: float, digits: int = 2) -> str:
    return f"{sig(fraction * 100, digits)}%"


FORMATTERS = {
    "FLOP/s": flop_per_s,
    "OP/s": lambda v, d=3: f"{sig(v / 1e12, d)} TOP/s",  # integer formats: vendors quote TOPS, so always tera
    "B/s": bytes_per_s,
    "B": nbytes,
    "GiB": gib,
    "s": seconds,
    "FLOP/byte": intensity,
    "tokens/s": tokens_per_s,
    "FLOP": lambda v, d=3: si(v, "FLOP", d),
    "": count,
    "%": percent,
    "x": lambda v, d=3: f"{sig(v, d)}×",
    "W": lambda v, d=3: si(v, "W", d),
    "J": lambda v, d=3: si(v, "J", d, small=True),
    "USD": lambda v, d=3: f"${sig(v, d)}",
}


# Pure and called for every number of every table (tens of thousands per device-heavy build): cached.
@functools.lru_cache(maxsize=1 << 16, typed=True)
def render(value: float, unit: str, digits: int = 3) -> str:
    """Format `value` in `unit` through the formatter registered for it."""
    try:
        fn = FORMATTERS[unit]
    except KeyError:
        raise InputError(f"no formatter for unit {unit!r}; known: {', '.join(repr(u) for u in FORMATTERS)}") from None
    return fn(value, digits)


_PARSE_PREFIX = {"P": 15, "T": 12, "G": 9, "M": 6, "k": 3, "": 0, "m": -3, "µ": -6, "n": -9}
_PARSE_WORD = {"trillion": 12, "billion": 9, "million": 6, "%": -2, "TOP/s": 12}
_PARSE = re.compile(r"\s*\$?(-?[\d,]*\.?\d+)\s*(.*?)\s*")  # "$1.50": dollars, as render writes USD


def parse(text: str) -> float:
    """The value a rendered number stands for, as `render` wrote it: the inverse of `render` at its precision.

    >>> parse("3.35 TB/s"), parse("15 GB"), parse("4.48 ms"), parse("8.03 billion"), parse("86%"), parse("1.87×")
    (3350000000000.0, 15000000000.0, 0.00448, 8030000000.0, 0.86, 1.87)
    >>> parse("8,830 tokens/s"), parse("61.2 FLOP/byte"), parse("624 TOP/s"), parse("1 GiB")
    (8830.0, 61.2, 624000000000000.0, 1073741824.0)
    >>> parse("$1,230"), parse("700 W"), parse("12.3 mJ")
    (1230.0, 700.0, 0.0123)
    """
    m = _PARSE.fullmatch(str(text))
    if m is None:
        raise InputError(f"cannot read a number from {text!r}")
    digits, unit = m.group(1).replace(",", ""), m.group(2)
    if unit == "GiB":
        return float(digits) * 2**30
    if unit in ("", "×", "tokens/s", "FLOP/byte"):
        return float(digits)
    exponent = _PARSE_WORD.get(unit)
    for base in ("FLOP/s", "B/s", "FLOP", "B", "s", "W", "J"):
        prefix = unit[: len(unit) - len(base)]
        if exponent is None and unit.endswith(base) and prefix in _PARSE_PREFIX:
            exponent = _PARSE_PREFIX[prefix]
    if exponent is None:
        raise InputError(f"cannot read a number from {text!r}: unknown unit {unit!r}")
    return float(f"{digits}e{exponent}")  # decimal digits and a power of ten: no binary rounding between
