"""A step's tokens read its one record: `StepView` and `OpView` compute no quantity the record has.

Every quantity property of the views must be in `STEP_TOKENS` / `OP_TOKENS` (a token name -> the
record's key), and its value must be the record's under that key. A property added that computes a
step quantity itself, or a token whose value drifts from the record, fails here.
"""

from __future__ import annotations

from functools import cached_property

import pytest

from roofline.quantities.inference import OP_TOKENS, STEP_TOKENS, OpView, StepView, decode, prefill

#: What the views have besides quantities read from the record: plumbing, and OpView's own `share`
#: (a kernel's time ÷ the step's: a ratio of two record figures, not a figure of the step).
NOT_QUANTITIES = {"step", "record", "op", "view", "index", "share"}


def own_quantities(cls) -> set[str]:
    """The public properties of `cls` that no token name maps to a record key."""
    names = {n for c in cls.__mro__ for n, v in vars(c).items()
             if not n.startswith("_") and isinstance(v, (property, cached_property))}
    tokens = STEP_TOKENS if issubclass(cls, StepView) else OP_TOKENS
    return names - set(tokens) - NOT_QUANTITIES


def test_the_views_compute_nothing_the_record_names():
    assert own_quantities(StepView) == set()
    assert own_quantities(OpView) == set()


def test_a_view_computing_its_own_quantity_is_caught():
    class Drifted(StepView):
        @property
        def tokens_per_s_per_user(self):  # the record calls it tokens_per_s_per_sequence
            return self.step.tokens_per_s_per_sequence

    assert own_quantities(Drifted) == {"tokens_per_s_per_user"}


WORKLOADS = {
    "bare 8e9, batch 64": lambda: decode(8e9, "h100-sxm5", 64),
    "llama-3.1-8b, batch 64, 4096 cached": lambda: decode("llama-3.1-8b", "h100-sxm5", 64, 4096),
    "llama-3.1-8b fp8 w8a8, batch 256": lambda: decode("llama-3.1-8b", "h100-sxm5", 256, 1024, "fp8", activation="fp8"),
    "llama-3.1-8b prefill 512": lambda: prefill("llama-3.1-8b", "h100-sxm5", 512),
}


@pytest.mark.parametrize("workload", WORKLOADS)
def test_every_token_is_the_records_figure_under_its_name(workload):
    view = WORKLOADS[workload]()
    for token, key in STEP_TOKENS.items():
        value = getattr(view, token)
        assert getattr(value, "value", value) == view.record[key], (token, key)
    for i, op in enumerate(view.record["ops"]):
        kernel = view.op(op["name"])
        for token, key in OP_TOKENS.items():
            value = getattr(kernel, token)
            assert getattr(value, "value", value) == op[key], (op["name"], token, key)


def test_the_tokens_of_a_bare_count_by_hand():
    # 8e9 parameters in bf16 on an H100 SXM5 (989.4e12 FLOP/s dense bf16, 3.35e12 B/s), batch 64, 1 token cached.
    # A bare count reads its 16e9 weight bytes once and nothing else; FLOPs = 2 × 8e9 × 64 = 1.024e12.
    v = decode(8e9, "h100-sxm5", 64)
    expect = {
        "weight_bytes": 16e9, "bytes": 16e9, "kv_bytes": 0.0, "flops": 1.024e12,
        "intensity": 64.0,                                   # 1.024e12 ÷ 16e9
        "time": 16e9 / 3.35e12,                              # memory: 4.776 ms > compute 1.024e12 ÷ 989.4e12 = 1.035 ms
        "tokens_per_s": 13400.0,                             # 64 ÷ 4.776 ms
        "tokens_per_s_per_seq": 209.375,                     # 1 ÷ 4.776 ms
        "attained": 2.144e14,                                # 1.024e12 ÷ 4.776 ms
        "utilization": 2.144e14 / 989.4e12,                  # 21.67 %
        "memory_required": 16e9 + 2 * 2**30,                 # weights + the 2 GiB runtime reserve
        "ridge": 989.4e12 / 3.35e12,                         # 295.3 FLOP/byte
    }
    got = {k: getattr(v, k).value for k in expect}
    assert got == pytest.approx(expect, rel=1e-12)
    assert (v.bound, v.fits) == ("memory-bound", True)
