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
