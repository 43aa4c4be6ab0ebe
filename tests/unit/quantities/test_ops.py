"""roofline.quantities.ops: the matmul views the pages quote, re-derived by hand in a comment."""

from roofline.examples import example
from roofline.quantities.ops import intro_matmul


def test_introduction_convention_labels_never_say_seed():
    # Popovers show these labels to readers; the reader knows "A Visual Guide to the Roofline
    # Model", not the build's word for it. (3×2)·(2×1) in fp16 in that convention: 3 outputs ×
    # (2 multiplies + 1 add) = 9 FLOPs over 8 input numbers × 2 B = 16 B.
    m, k, n = (example(x) for x in ("intro_m", "intro_k", "intro_n"))
    view = intro_matmul(m, n, k)
    assert (view.flops.value, view.bytes.value, view.intensity.value) == (9, 16, 0.5625)
    for q in (view.flops, view.bytes, view.intensity):
        assert "seed" not in q.label.lower()
        assert "introduction" in q.label
