"""What each key of the CLI's JSON means: `decode`, `prefill`, `layouts` and `serve`, one sentence a key.

The records themselves are `record.step_record`, `record.limits_record` and `record.service_record`; this
module only says what their keys mean, so the reference (reference/json.md, written by `make reference`)
is generated from it and from the commands' own output, never typed twice. tests/unit/model/test_record.py
holds the two together: a key a command prints and no table here names fails, and so does a key named
here that no command prints.

>>> STEP_KEYS["ridge_point"]
"the weight matmuls' ridge, FLOP/byte"
"""

from __future__ import annotations

#: A decode or prefill step (`decode --json`, `prefill --json`); a `layouts` row keeps some of these names.
STEP_KEYS: dict[str, str] = {
    "phase": "`decode` or `prefill`",
    "model": "the model's id",
    "hardware": "the device's id",
    "batch": "sequences in the step (all devices)",
    "context_len": "tokens cached per sequence (decode)",
    "tokens_per_sequence": "tokens each sequence runs through the step: one in decode, the prompt in prefill",
    "layout": "the layout's name (`1 device`, `TP8`, `TP4 × PP2`)",
    "devices": "devices the layout uses, replicas included",
    "tp": "tensor-parallel degree",
    "pp": "pipeline stages",
    "ep": "expert-parallel degree",
    "dp": "data-parallel replicas",
    "weight_format": "the weights' format (`--weight-format` names)",
    "weight_scope": "which tensors it covers: `linear`, `mlp`, `experts`",
    "weight_scope_words": "the same, in words",
    "weight_format_source": "why that format: the config's `quantization_config`, the registry's checkpoint "
                            "format, `--weight-format`, or the 16-bit default",
    "weight_bytes_per_weight": "bytes per weight, group scales included",
    "weight_formats_by_group": "attention, mlp, experts, shared: the format each group is read in",
    "assumptions": "what the step assumed that the inputs do not say (a bare count's left-out scales)",
    "head_format": "the output head's format (16-bit)",
    "activation_dtype": "the activations' format",
    "kv_dtype": "the KV cache's format",
    "attention": "`fused` or `unfused`",
    "compute_dtype": "the format the weight matmuls run in",
    "peak_flop_per_s": "the weight matmuls' peak",
    "bandwidth_bytes_per_s": "the memory bandwidth",
    "ridge_point": "the weight matmuls' ridge, FLOP/byte",
    "flops": "FLOPs of one device's kernels (one stage)",
    "bytes": "bytes they move: `weight_bytes` + `kv_bytes` + `activation_bytes`",
    "weight_bytes": "weight bytes read",
    "kv_bytes": "KV-cache bytes read and written",
    "kv_read_bytes": "the KV-cache bytes attention reads (every cached position, per sequence and layer)",
    "activation_bytes": "activation bytes read and written",
    "arithmetic_intensity": "`flops` ÷ `bytes` (a perfect-overlap view compares it with the ridge)",
    "bound": "`compute-bound` where compute-bound kernels take at least half the time, else `memory-bound`; "
             "under a layout whose collectives take half a stage, `collective latency-bound` or "
             "`link-bandwidth-bound`",
    "time_s": "the step's time: pp × (kernels + collectives) + sends; one device: the sum of the kernels' "
              "roofline times",
    "time_perfect_overlap_s": "the lower bound: each stage's max(Σ compute time, Σ memory time), or its "
                              "collectives where longer",
    "compute_time_s": "Σ of the kernels' FLOPs ÷ their peaks (one stage)",
    "memory_time_s": "Σ of the kernels' bytes ÷ bandwidth (one stage)",
    "attained_flop_per_s": "`flops` ÷ `stage_time_s`: the FLOP/s one device attains while its stage runs",
    "flop_utilization": "`attained_flop_per_s` ÷ `peak_flop_per_s`",
    "kernel_time_s": "time in the devices' own kernels: pp × one stage's",
    "stage_time_s": "one stage: its kernels plus its collectives",
    "collective_time_s": "one stage's collectives: Σ latency + bytes ÷ link bandwidth",
    "collective_latency_share": "the share of `collective_time_s` that is latency",
    "tokens_per_s": "tokens per second, whole batch",
    "tokens_per_s_per_sequence": "tokens per second one sequence sees",
    "tokens_per_s_per_device": "`tokens_per_s` ÷ `devices`",
    "link_bytes": "bytes one device sends over its link per step",
    "link_intensity": "a stage's FLOPs per byte sent over the link (null without a link)",
    "network_bytes": "bytes one device sends across nodes per step (0 inside one scale-up domain)",
    "network_time_s": "the scale-out network's time carrying those bytes at its bandwidth, latency aside",
    "network_share": "that time as a share of the step's time",
    "link_ridge_point": "peak FLOP/s ÷ link bandwidth: the third roof (null without a link)",
    "micro_batch": "sequences in one pipeline micro-batch",
    "micro_batches": "micro-batches per device (at most pp: fewer leave stages idle)",
    "bubble_fraction": "share of each stage's time it idles",
    "collective_latency": "which latency each collective pays, in words (empty on one device)",
    "collective_latency_used": "`floor`, `ring` or `set` (a layout of more than one device)",
    "collective_latency_per_collective_s": "that latency per collective (null for a ring's, which grows with "
                                           "its steps)",
    "collective_latency_source_url": "where the floor or the ring's latency comes from",
    "interconnect": "the link: `link`, `bandwidth_bytes_per_s_per_direction`, `domain_devices`, "
                    "`latency_base_s`, `latency_per_step_s`, `source_url`, `latency_source_url`",
    "kv_note": "where KV heads are replicated over tensor-parallel devices",
    "weights_resident_bytes": "the weights one device holds",
    "kv_resident_bytes": "the KV cache one device holds for its sequences",
    "activation_peak_bytes": "the largest activations alive at once",
    "runtime_reserve_bytes": "what the CUDA context and library workspaces take (an assumption)",
    "memory_required_bytes": "their sum",
    "memory_capacity_bytes": "the vendor's capacity",
    "usable_memory_bytes": "what the runtime reports, where sourced (else the capacity)",
    "fits": "`memory_required_bytes` ≤ `usable_memory_bytes`; where false, the throughputs and times are null",
    "ops": "one object per kernel and collective: `name`, `count` (runs per step), `flops`, `bytes`, "
           "`weight_bytes`, `activation_read_bytes`, `activation_written_bytes`, `kv_read_bytes`, "
           "`kv_written_bytes`, `arithmetic_intensity`, `compute_dtype`, `peak_flop_per_s`, `ridge_point`, "
           "`bound`, `time_s` (each the step's total over its runs); a collective adds `kind`, `devices`, "
           "`link`, `link_bytes`, `latency_s`, `link_bandwidth_bytes_per_s` (its `bytes` are the bytes it "
           "sends, its `ridge_point` the link's, its `bound` `latency-bound` or `link-bandwidth-bound`)",
    "max_context_tokens": "the model's maximum context (`max_position_embeddings`; null for a bare count)",
    "beyond_max_context": "whether the answer extrapolates past it (`--allow-beyond-max-context`)",
    "critical_batch": "decode: the batch at which the weight matmuls, counting weight bytes only, reach the "
                      "ridge (the sources' definition)",
    "whole_step_crossing_batch": "decode: the batch at which the whole step's intensity reaches the ridge (a "
                                 "perfect-overlap figure; null where attention's KV reads keep it below)",
    "attention_intensity": "decode: attention's FLOP/byte as the context grows",
    "max_batch_that_fits": "the largest batch that fits at this context (null for a bare count)",
    "speed_of_light_tokens_per_s": "the layout's speed of light: bandwidth ÷ (stages × the weight bytes one "
                                   "device reads per token at batch one)",
    "limits": "decode: every limit of the layout (`parallel.limits`): `speed_of_light_tokens_per_s`, "
              "`weight_bytes_per_device`, `bandwidth_bytes_per_s`, `link_time_s` and `link_tokens_per_s` (the "
              "collectives and sends alone at batch one), `link_ridge_point`, `max_batch_that_fits`, "
              "`assumes` (what the speed of light leaves out)",
    "expected_with_ring_latency": "decode under a layout at the floor or a set latency: the same step at an "
                                  "NCCL ring's latency (`time_s`, `collective_time_s`, "
                                  "`tokens_per_s_per_sequence`, `bound`, `latency`)",
    "time_to_first_token_s": "prefill: `time_s` (null where it does not fit)",
    "cache_hit_rate": "prefill: the share of the prompt a prefix cache holds (`--cache-hit-rate`; 0: no hits)",
    "cached_prompt_tokens": "prefill: prompt tokens the prefix cache serves (their KV read, not recomputed)",
    "computed_prompt_tokens": "prefill: prompt tokens computed (the prompt less the cached ones)",
}

#: `layouts --json`, besides the step's names it repeats once (model, device, formats, context, batch).
LAYOUTS_KEYS: dict[str, str] = {
    "smallest_layout": "the fewest devices, replicas aside, on which the model fits at that batch and context "
                       "(null if none in one domain)",
    "layouts": "one row per layout within one scale-up domain, under the step's names (the times and "
               "throughputs null where it does not fit)",
}

#: `serve --json` at its top level.
SERVE_KEYS: dict[str, str] = {
    "model": "the model's id",
    "hardware": "the device's id",
    "max_context_tokens": STEP_KEYS["max_context_tokens"],
    "beyond_max_context": STEP_KEYS["beyond_max_context"],
    "workload": "what the service runs (the table below)",
    "targets": "`ttft_s` and `tpot_s`, the targets given (null where none), and `ttft_percentile` and "
               "`tpot_percentile`, the statistic each is judged on (`mean`, `p50`, `p90` or `p99`; p99 unless told)",
    "layouts_searched": "the layouts the frontier and the offline maximum searched",
    "layouts_searched_why": "why those: the layout options named, `--devices`, `--nodes` (every layout over their "
                            "devices), or every layout within one domain",
    "disaggregated": "with `--disaggregated`: every point with prefill and decode on separate pools in balance "
                     "(`prefill_layout`, `decode_layout`, `prefill_devices_per_decode_device`, `kv_transfer_s`, "
                     "TTFT, TPOT, tokens/s in all, per device and per user, `limited_by`, `on_envelope`; with the pools on "
                     "separate nodes also `prefill_instances_per_decode_instance`)",
    "disaggregated_ttft": "with `--disaggregated`: its TTFT in words (the prompt's prefill on the prefill pool "
                          "plus one send of its KV cache)",
    "disaggregated_pools": "with `--disaggregated`: where the pools sit and how the KV cache crosses between them: "
                           "`apart` (the prefill pool on nodes of its own, `--prefill-nodes` or `--nodes`), "
                           "`prefill_nodes` (null in one domain), `prefill_layout`, `prefill_devices`, `kv_bytes` (one "
                           "prompt's cache), `kv_bytes_per_sending_device` (the part one prefill device holds and "
                           "sends through its own NIC), `kv_path` (the link or network crossed), "
                           "`kv_bandwidth_bytes_per_s` (each way), `kv_transfer_s`, `words`",
    "ceiling": "a sentence: which figures are ceilings and which are expected",
    "point": "with `--concurrency`: the service point (a service point's keys, below)",
    "offline": "without `--concurrency`: the point of the most output tokens/s (every request queued at once)",
    "frontier": "without `--concurrency`: every point over the layouts searched (within one scale-up domain "
                "unless told) and concurrency up to each layout's memory cap",
    "best_under_targets": "the point with the most output tokens/s per device meeting every target (null when "
                          "none does or no target is given)",
    "targets_unmet": "where a target is met by no point: the sentence saying which, and the closest any point gets",
    "assumptions": "what the service assumed: `chunk_tokens`, `collective_latency` (in words), "
                   "`chunk_default_sources`, `chunk_meaning`, `runtime_reserve_bytes`, `memory_cap`, "
                   "`decode_context`, `steady_state`, `schedule`, `schedule_sources`, `first_token`, `decoding`, "
                   "`prefix_cache` (what a cache hit costs), "
                   "`expected` (`what`, `engine`, `engine_defaults`, `step_overhead_s`, `efficiencies`, `not_captured`), `cost`",
}

#: `serve --json`'s `workload`.
WORKLOAD_KEYS: dict[str, str] = {
    "input_tokens": "prompt tokens per request",
    "output_tokens": "output tokens per request",
    "concurrency": "requests the clients keep in flight (null for the sweep)",
    "max_concurrency": "the engine's cap on requests in flight (null for none)",
    "chunk_tokens": "prompt tokens an engine step takes",
    "weight_format": STEP_KEYS["weight_format"],
    "weight_format_source": STEP_KEYS["weight_format_source"],
    "weight_scope": STEP_KEYS["weight_scope"],
    "activation_dtype": STEP_KEYS["activation_dtype"],
    "kv_dtype": STEP_KEYS["kv_dtype"],
    "attention": STEP_KEYS["attention"],
    "usd_per_device_hour": "your price per device-hour (null: no cost shown)",
    "collective_latency_used": STEP_KEYS["collective_latency_used"],
    "collective_latency_per_collective_s": "the seconds each collective pays (null for the ring's)",
    "decoding": "how the service decodes, in words: `plain decoding` or the speculative method with k and acceptance",
    "speculative": "`--speculative`: `mtp`, `eagle`, `medusa` or `draft` (null: plain decoding)",
    "draft_tokens": "k, the tokens drafted a pass (null: plain decoding)",
    "acceptance": "each drafted token's acceptance rate (null: plain decoding)",
    "draft_cost": "a drafted token's cost as a share of the target's step (null: plain decoding)",
    "tokens_per_pass": "tokens one target pass keeps per request on average, (1 − a^(k+1)) ÷ (1 − a); 1 plain",
    "speculation_source": "the source of the method's default k and acceptance (`title`, `url`; null: plain)",
    "engine": "`--engine`: `vllm`, `sglang` or `trtllm`, whose current defaults apply: its cap, chunk and KV block to "
              "both figures, its KV share of memory to the expected one (null: none; the expected figure then "
              "takes vLLM's defaults)",
    "kv_memory": "`reserve`: every request's KV cache at I + O tokens; `paged`: its live context in whole blocks",
    "kv_block_tokens": "tokens a KV block holds with `paged` (null with `reserve`)",
    "caps": "the caps on requests in flight, in words, with the engine's default named",
    "cache_hit_rate": "`--cache-hit-rate`: the share of each prompt a prefix cache holds (0: no hits)",
    "cached_prompt_tokens": "prompt tokens per request the cache serves: their KV is read, not recomputed",
}

#: A service point (`record.service_record`): the layout's names from the step, then these. Every figure
#: is a ceiling but the `expected_*` ones.
SERVICE_KEYS: dict[str, str] = {
    **{k: STEP_KEYS[k] for k in ("layout", "devices", "tp", "pp", "ep", "dp")},
    "concurrency": "requests the clients keep in flight",
    "running": "requests the engine holds in steady state",
    "memory_cap": "requests whose KV cache at I + O tokens fits each device",
    "limited_by": "the limit whose relaxation raises the point's output tokens/s (each relaxed by a quarter, "
                  "the point rerun): `memory`, `cap` or `chunk` where that raises it by 1 % or more; else the "
                  "device's limit that raises it most: `compute`, `bandwidth`, `link-bandwidth`, `link-latency`, or for a "
                  "replica across nodes `network-bandwidth` or `network-latency`; "
                  "`none` where nothing gains 1 %",
    "limited_by_also": "other limits whose gain is within two points of the binding one's: they bind together",
    "limited_by_gains": "each limit relaxed by a quarter: the share by which the point's output tokens/s rises",
    "limited_by_meaning": "the binding limit in words, with its gain and the limits binding with it",
    "prefill_s": "`roofline prefill` of one prompt on the same layout and formats: `ttft_s` is never below it",
    "decode_step_s": "a step with no prompt tokens",
    "prompt_step_s": "a step carrying a prompt's chunk, the mean over its chunks",
    "prompt_step_share": "the share of steps that carry prompt tokens",
    "prompt_gap_share": "the share of a request's gaps between output tokens that are steps carrying a prompt's chunk",
    "tpot_p50_s": "TPOT's median over a request's gaps between output tokens (decode-only steps and steps "
                  "carrying another prompt's chunk): the lowest step time half the gaps reach",
    "tpot_p90_s": "TPOT's 90th percentile over those gaps",
    "tpot_p99_s": "TPOT's 99th percentile over those gaps",
    "ttft_p50_s": "TTFT's median (equal to `ttft_s`: in steady state every request waits the same steps)",
    "ttft_p90_s": "TTFT's 90th percentile (likewise)",
    "ttft_p99_s": "TTFT's 99th percentile (likewise)",
    "step_time_s": "the average engine step",
    "ttft_s": "time to first token: the wait for a slot plus the steps carrying the request's own prompt chunks",
    "tpot_s": "time per output token, its mean over the request's life",
    "request_latency_s": "TTFT + (O − 1) × the mean TPOT",
    "output_tokens_per_s": "all devices",
    "output_tokens_per_s_per_device": "÷ `devices`",
    "output_tokens_per_s_per_user": "1 ÷ TPOT",
    "input_tokens_per_s": "prompt tokens per second, cache hits included (as DeepSeek reports its input)",
    "expected_output_tokens_per_s": "the same steps with every kernel at its efficiency from published kernel "
                                    "benchmarks plus the engine's per-step overhead: an estimate, never a measurement",
    "expected_output_tokens_per_s_per_device": "÷ `devices`",
    "expected_requests_in_flight": "requests the expected figure holds at most (all replicas): the point's, within "
                                   "what its engine's KV share of memory fits and its cap on requests in flight "
                                   "(`assumptions.expected.engine_defaults`)",
    "expected_ttft_s": "TTFT from the expected step mix (each step at its expected time, the expected requests in "
                       "flight): an estimate",
    "expected_tpot_s": "mean TPOT from the expected step mix: an estimate",
    "expected_tpot_p50_s": "TPOT's median from the expected step mix",
    "expected_tpot_p90_s": "TPOT's 90th percentile from the expected step mix",
    "expected_tpot_p99_s": "TPOT's 99th percentile from the expected step mix",
    "expected_request_latency_s": "expected TTFT + (O − 1) × expected mean TPOT",
    "usd_per_million_output_tokens": "price × devices ÷ output tokens an hour (all the devices' time charged to "
                                     "it; null without a price)",
    "usd_per_million_input_tokens": "the same for input tokens",
    "on_envelope": "frontier rows: not beaten on both tokens/s per device and tokens/s per user by any other point",
}
