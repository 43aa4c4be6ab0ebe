"""Tokens about a single matmul: FLOPs, bytes and intensity in the two named conventions."""

from __future__ import annotations

from dataclasses import dataclass

from roofline.model import ops as _int
from roofline.model.dtypes import bytes_per_element
from roofline.quantities.core import Input, Quantity, Term


# ---------------------------------------------------------------- single ops --------------
@dataclass(frozen=True)
class OpView:
    flops: Quantity
    bytes: Quantity
    intensity: Quantity


def _op_view(cost: _int.RooflinePoint, shape: str, dtype: str, flops_line: tuple = (), bytes_line: tuple = ()) -> OpView:
    inputs = (Input("shape", shape), Input("dtype", dtype), Input("convention", cost.convention))
    return OpView(
        Quantity(cost.flops, "FLOP", f"FLOPs of {shape}", cost.convention, inputs, arithmetic=flops_line),
        Quantity(cost.bytes, "B", f"bytes moved by {shape}", cost.convention, inputs, arithmetic=bytes_line),
        Quantity(cost.arithmetic_intensity, "FLOP/byte", f"arithmetic intensity of {shape}",
                 "FLOPs ÷ bytes moved", inputs, arithmetic=(Term(cost.flops, "FLOP"), "÷", Term(cost.bytes, "B"))),
    )


def matmul(m, n, k, dtype: str = "bf16") -> OpView:
    """(m×k)·(k×n) in the site's convention (2·m·n·k; operands read, result written)."""
    m, n, k = int(float(m)), int(float(n)), int(float(k))
    size = bytes_per_element(dtype)
    return _op_view(_int.matmul_cost(m, n, k, dtype), f"({m}×{k})·({k}×{n}) in {dtype}", dtype,
                    (Term(2.0), "×", Term(m), "×", Term(n), "×", Term(k)),
                    ("(", Term(m), "×", Term(k), "+", Term(k), "×", Term(n), "+", Term(m), "×", Term(n), ")", "×",
                     Term(size)))


def intro_matmul(m, n, k, dtype: str = "fp16") -> OpView:
    """(m×k)·(k×n) in the Visual Guide introduction's convention (m·n·(2k−1) FLOPs, inputs only).

    Its labels are shown to readers, so they name the convention, never the word "seed".
    """
    m, n, k = int(float(m)), int(float(n)), int(float(k))
    size = bytes_per_element(dtype)
    return _op_view(_int.matmul_cost_intro_convention(m, n, k, dtype),
                    f"({m}×{k})·({k}×{n}) in {dtype}, the introduction's convention", dtype,
                    (Term(m), "×", Term(n), "×", "(", Term(2.0), "×", Term(k), "−", Term(1.0), ")"),
                    ("(", Term(m), "×", Term(k), "+", Term(k), "×", Term(n), ")", "×", Term(size)))


#: The token functions this topic adds to the namespace pages evaluate in.
TOKENS = (matmul, intro_matmul,)

__all__ = ['matmul', 'intro_matmul']
