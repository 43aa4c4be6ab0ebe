"""Every memo the package keeps, emptied at once (roofline.memos)."""

from __future__ import annotations

from roofline import memos
from roofline.quantities.serving import serve_best
from roofline.registry.loader import traced_reads

H100 = ("hardware", "h100-sxm5")


def test_a_value_computed_again_after_forget_all_records_every_read_it_depends_on():
    args = ("llama-3.1-8b", "h100-sxm5", 128, 128)
    serve_best(*args)  # computed: the quantity's frontier is kept (an lru cache keyed by the ids)
    with traced_reads() as kept:
        first = serve_best(*args)
    # Answered from the memo, the call read no entry: a trace alone would miss the H100 it depends on.
    assert H100 not in kept
    memos.forget_all()
    with traced_reads() as afresh:
        again = serve_best(*args)
    assert H100 in afresh and ("model", "llama-3.1-8b") in afresh
    assert again.value == first.value
