"""Facts the expert review of the pages corrected, each re-derived by hand in a comment."""

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


def test_prefill_turns_compute_bound_where_the_mlp_matmuls_cross():
    # Llama-3.1-8B on the H100 SXM5, bf16 (ridge 989.4e12 / 3.35e12 = 295.34 FLOP/byte). A matmul
    # (T×K)·(K×N) moving weights and activations in bf16 runs at T·K·N / (K·N + T·(K + N)) =
    # T / (1 + T·(1/K + 1/N)).
    #   gate/up (K = 4096, N = 2·14336): 1/K + 1/N = 2.7902e-4 -> T ≥ 295.34 / (1 − 0.08241) = 321.9 -> 322
    #   down    (K = 14336, N = 4096):   1/K + 1/N = 3.1390e-4 -> T ≥ 295.34 / (1 − 0.09271) = 325.5 -> 326
    # Gate/up alone is under half the step (3.89 of 8.46 ms at 512 tokens); with down it is more:
    # the prefill turns compute-bound at 326, well before the whole prefill's intensity (405).
    from roofline.quantities import NAMESPACE

    assert NAMESPACE["compute_bound_prompt"]("llama-3.1-8b", "h100-sxm5").value == 326
    assert NAMESPACE["crossover_prompt"]("llama-3.1-8b", "h100-sxm5").value > 326
    # A weights-only model is one matmul per token with no activations: T ≥ 295.34 -> 296.
    assert NAMESPACE["compute_bound_prompt"](8e9, "h100-sxm5").value == 296


def test_batching_raises_tpot_by_the_kv_reads_below_the_critical_batch():
    # The TPOT entry used to say batching "barely moves" TPOT below the critical batch. Llama-3.1-8B,
    # bf16, H100 SXM5 (3.35e12 B/s), 1,024 tokens cached. Weight bytes per step: (6,979,321,856 layer
    # weights + 525,336,576 head) × 2 B = 15.009e9 B. KV read per sequence: (1,024 + 1) positions ×
    # 131,072 B (2 × 32 layers × 8 KV heads × 128 × 2 B) = 0.13435e9 B.
    #   batch 1:  (15.009 + 0.134) e9 / 3.35e12 = 4.520 ms (activations add well under 1 %)
    #   batch 64: (15.009 + 64 × 0.13435) e9 / 3.35e12 = 7.047 ms before activations: +56 %, not "barely".
    from roofline.model.kernels import decode
    from roofline.registry.hardware import get_device
    from roofline.registry.models import get_model

    m, h = get_model("llama-3.1-8b"), get_device("h100-sxm5")
    one, many = decode(m, h, 1, 1024), decode(m, h, 64, 1024)
    assert abs(float(one.time_s) - 4.520e-3) / 4.520e-3 < 0.01
    assert float(many.time_s) >= 7.047e-3
    assert float(many.time_s) / float(one.time_s) > 1.5


def test_figure_captions_say_sku_dtype_dense_and_context():
    # The review found captions that left out the device, the dtype, dense vs sparse, or (for
    # decode) the context: "Decode uses 0.34% of peak compute", "At batch 1, 8 GPUs give 3.21× ...".
    import importlib

    from roofline.registry.hardware import get_device

    h100, h200 = get_device("h100-sxm5").name, get_device("h200-sxm").name
    expect = {"batch_sweep": (h100, "bf16", "dense", "tokens cached"),
              "h100_roofline": (h100, "bf16", "dense", "token cached"),
              "intensity_line": (h100, "bf16", "dense", "token cached"),
              "many_chips_tp": (h200, "bf16", "dense", "tokens cached"),
              "prefill_intensity": (h100, "bf16", "dense"),
              "hardware_map": ("bf16", "dense"),
              "serving_frontier": (h100, "fp8", "dense", "ceilings", "1024 prompt and 256 output tokens")}
    for name, words in expect.items():
        caption = importlib.import_module(f"figures_gen.{name}").caption()
        for word in words:
            assert word in caption, (name, word, caption)


def test_decode_attention_intensity_is_a_limit_reached_at_long_context():
    # Batching said attention "runs at 4.04 FLOP/byte at any batch and any context". 4.04 is the
    # limit: per cached position and layer (4·128 + 5)·32 = 16,544 FLOPs over 2·8·128 values × 2 B =
    # 4,096 B -> 4.039. With one token cached a sequence attends to 2 positions (33,088 FLOPs) and
    # also reads its query (32·128·2 = 8,192 B) and writes its output (8,192 B): 33,088 ÷ (2·4,096 +
    # 16,384) = 1.346 FLOP/byte, a third of the limit, whatever the batch.
    from roofline.model.kernels import decode
    from roofline.registry.hardware import get_device
    from roofline.registry.models import get_model

    m, h = get_model("llama-3.1-8b"), get_device("h100-sxm5")
    for batch in (1, 64):
        short = {k.name: k for k in decode(m, h, batch, 1).ops}["attention"]
        assert abs(float(short.arithmetic_intensity) - 33088 / 24576) < 1e-3
    long_ = {k.name: k for k in decode(m, h, 64, 4096).ops}["attention"]
    assert 4.0 < float(long_.arithmetic_intensity) < 16544 / 4096
