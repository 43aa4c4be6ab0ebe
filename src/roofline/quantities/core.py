"""Quantity types and the helpers every topic shares: a number with its unit, label, formula and sourced inputs."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import total_ordering

from roofline import examples as _examples
from roofline.errors import InputError
from roofline.format import parse, render
from roofline.model.dtypes import peak_unit
from roofline.registry.hardware import Device, get_device
from roofline.registry.models import Model, get_model


@dataclass(frozen=True)
class Source:
    title: str
    url: str


@dataclass(frozen=True)
class Input:
    """One input of a computed number, as the provenance popover shows it."""

    label: str
    value: float | str
    unit: str = ""
    source: Source | None = None

    def text(self) -> str:
        return self.value if isinstance(self.value, str) else render(self.value, self.unit, 4)


@dataclass(frozen=True)
class Term:
    """One operand of a number's arithmetic line: a value in a unit, printed by the unit's formatter."""

    value: float
    unit: str = ""


#: The operators an arithmetic line may use, and what each means when the line is evaluated.
OPERATORS = {"×": "*", "÷": "/", "+": "+", "−": "-", "(": "(", ")": ")"}


def evaluate_line(left: str) -> float:
    """The value of an arithmetic line's left-hand side as printed ("3.35 TB/s ÷ 15 GB").

    Operands are read back with `format.parse`, so the line is evaluated at the precision it shows.

    >>> round(evaluate_line("3.35 TB/s ÷ 15 GB"), 6), evaluate_line("(2 + 2) × 3")
    (223.333333, 12.0)
    """
    expr, operand = [], []
    for part in left.replace("(", " ( ").replace(")", " ) ").split():
        if part in OPERATORS:
            if operand:
                expr.append(repr(parse(" ".join(operand))))
                operand = []
            expr.append(OPERATORS[part])
        elif part:
            operand.append(part)
    if operand:
        expr.append(repr(parse(" ".join(operand))))
    return float(eval(" ".join(expr), {"__builtins__": {}}, {}))  # noqa: S307 — numbers and operators only


def _term_text(t: Term, digits: int) -> str:
    # A count (a context length, layers, a window) prints whole: "131,072", never "131,100".
    if not t.unit and float(t.value).is_integer() and abs(t.value) < 1e9:
        digits = max(digits, len(str(int(abs(t.value)))))
    return render(t.value, t.unit, digits)


def _line(parts: tuple, digits: int) -> str:
    text = " ".join(p if isinstance(p, str) else _term_text(p, digits) for p in parts)
    return text.replace("( ", "(").replace(" )", ")")


@total_ordering
@dataclass(frozen=True)
class Quantity:
    """A number the site prints, with what it is and where it came from."""

    value: float
    unit: str
    label: str
    formula: str
    inputs: tuple[Input, ...] = ()
    digits: int = 3
    #: The arithmetic that gives the value, as Terms and operators (OPERATORS): the popover prints it
    #: as one line, "3.35 TB/s ÷ 15 GB = 223 tokens/s". Empty for a value read from a datasheet.
    arithmetic: tuple = ()

    def text(self) -> str:
        return render(self.value, self.unit, self.digits)

    def arithmetic_line(self) -> str:
        """The arithmetic as one line that reproduces the shown value ('' when there is none).

        Operands are printed with the fewest significant figures (3 to 6) at which the line, read
        back as printed, gives the value as shown; a line that cannot is a wrong formula, refused.
        """
        if not self.arithmetic:
            return ""
        shown = self.text()
        for digits in range(3, 7):
            left = _line(self.arithmetic, digits)
            try:
                got = evaluate_line(left)
                # A line that lands exactly on a rounding tie (7,572 ÷ 8 = 946.5, shown 947) reproduces
                # the value as a reader rounds: accept either side of the tie, as the site test does.
                if shown in {render(got * (1 + s * 1e-12), self.unit, self.digits) for s in (0, 1, -1)}:
                    return f"{left} = {shown}"
            except (InputError, ZeroDivisionError):
                break
        raise InputError(f"{self.label}: its arithmetic {_line(self.arithmetic, 6)} does not give {shown}")

    __str__ = text

    def __float__(self) -> float:
        return float(self.value)

    def sig(self, digits: int) -> "Quantity":
        """The same quantity printed to `digits` significant figures."""
        return replace(self, digits=digits)

    def __eq__(self, other):
        return float(self) == float(other)

    def __lt__(self, other):
        return float(self) < float(other)

    def __hash__(self):
        # Equality compares values only (a token compares with a plain number), so hash the value
        # alone: equal quantities must hash equal.
        return hash(float(self))


# ---------------------------------------------------------------- inputs ------------------
def as_device(hw: str | Device) -> Device:
    return hw if isinstance(hw, Device) else get_device(hw)


def as_model(model: str | float | Model) -> Model:
    if isinstance(model, Model):
        return model
    if isinstance(model, Quantity):
        model = model.value
    if isinstance(model, (int, float)):
        return Model.from_param_count(float(model))
    return get_model(model)


def device_source(d: Device) -> Source:
    return Source(d.source_title, d.source_url)


def bandwidth_input(d: Device) -> Input:
    return Input(f"{d.name} memory bandwidth", d.memory_bandwidth_bytes_per_s, "B/s", device_source(d))


def peak_input(d: Device, dtype: str) -> Input:
    return Input(f"{d.name} dense {dtype} peak", d.peak_flop_per_s(dtype), peak_unit(dtype), device_source(d))


def model_inputs(m: Model) -> tuple[Input, ...]:
    if m.is_bare:
        return (Input("parameters (dense, weights only)", m.bare_params, ""),)
    src = Source(m.source_title, m.source_url)
    return (Input(f"{m.name} parameters (computed from its config)", m.total_params, "", src),)


def example(name: str) -> Quantity:
    value, unit, why = _examples.EXAMPLES.get(name) or (_examples.example(name), "", "")
    return Quantity(float(value), unit, why, "a worked-example input", (), digits=6)


# ---------------------------------------------------------------- combinators -------------
def ratio(a: Quantity, b: Quantity, unit: str = "x", digits: int = 3) -> Quantity:
    return Quantity(float(a) / float(b), unit, f"{a.label} ÷ {b.label}", "ratio", (*a.inputs, *b.inputs), digits,
                    (Term(float(a), a.unit), "÷", Term(float(b), b.unit)))


def share(a: Quantity, b: Quantity, digits: int = 2) -> Quantity:
    return ratio(a, b, "%", digits)


def rounded(q: Quantity, digits: int = 3) -> Quantity:
    """`q` with its value rounded to `digits` significant figures: the number as a page or seed prints it."""
    value = float(f"{float(q):.{int(digits)}g}")
    # No arithmetic line: the rounded value is the page's choice, and the exact one no longer equals it.
    return replace(q, value=value, label=f"{q.label}, rounded to {int(digits)} significant figures", arithmetic=())


def claim(condition: bool, statement: str) -> str:
    """A build-time assertion: renders nothing, fails the build naming `statement` when false."""
    if not condition:
        raise ClaimFailed(statement)
    return ""


#: Ratio words and the factor each says. A page writes one only through `ratio_word`, which checks it.
RATIO_WORDS = {
    **dict.fromkeys(("double", "doubles", "doubled", "doubling", "twice"), 2.0),
    **dict.fromkeys(("halve", "halves", "halved", "halving", "half"), 0.5),
    **dict.fromkeys(("triple", "triples", "tripled", "tripling", "thrice"), 3.0),
    **dict.fromkeys(("quadruple", "quadruples", "quadrupled"), 4.0),
}


def ratio_word(word: str, new, old, within: float = 0.05) -> str:
    """A ratio word on a checked claim: renders `word`, and fails the build unless `new` ÷ `old` lies
    within `within` (relative) of the factor the word says: "doubles" is 2 ± 5 % by default.

    {{ ratio_word("doubles", sol("llama-3.1-8b", "h100-sxm5", "int8"), sol("llama-3.1-8b", "h100-sxm5")) }}
    fails (1.87×, 6.5 % short of 2); say "rises" and give the ratio instead.
    """
    factor = RATIO_WORDS.get(word.lower())
    if factor is None:
        raise InputError(f"{word!r} is not a ratio word; known: {', '.join(sorted(RATIO_WORDS))}")
    actual = float(new) / float(old)
    claim(abs(actual / factor - 1) <= within,
          f"{word!r} says {factor:g}× but the ratio is {actual:.4g}× (tolerance {within:.0%})")
    return word


class ClaimFailed(InputError):
    def __init__(self, statement: str):
        super().__init__(f"claim no longer holds: {statement}")
        self.statement = statement

#: The token functions this topic adds to the namespace pages evaluate in.
TOKENS = (example, ratio, share, rounded, claim, ratio_word,)

__all__ = ['example', 'ratio', 'share', 'rounded', 'claim', 'ratio_word']
