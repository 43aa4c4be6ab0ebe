"""roofline.quantities.inference: the prompt lengths at which a prefill turns compute-bound."""


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


def test_weights_size_of_a_checkpoint_keeps_its_own_scope():
    import pytest

    from roofline.quantities.inference import weights_size

    # gpt-oss-120b ships only its routed experts in MXFP4; attention, router and head stay bf16.
    # OpenAI's model card (arXiv:2508.10925, table 1) gives the checkpoint as 60.8 GiB = 65.28e9 B.
    shipped = weights_size("gpt-oss-120b", "checkpoint")
    assert shipped.value == pytest.approx(60.8 * 2**30, rel=0.005)
    # MXFP4 applied to attention too is smaller than what ships: the scope changes the answer.
    assert weights_size("gpt-oss-120b", "mxfp4").value < shipped.value - 1e9
