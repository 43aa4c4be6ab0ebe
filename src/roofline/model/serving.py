"""From one step to a service: continuous batching with chunked prefill, in steady state.

Requests arrive with I prompt tokens and leave with O output tokens. The engine holds up to
`slots` requests at once: the client's concurrency, capped by memory (the KV cache of every
request at its full I + O tokens, per device under the layout, with the runtime reserve:
`parallel.max_batch_that_fits`) and by the reader's own cap (an engine's max-batch setting).

The schedule (decode first, then prompt chunks up to the budget): each engine step runs, as ONE
pass through the per-kernel model (`parallel.mixed`), one decode token for every request that is
generating, then up to K prompt tokens (`chunk_tokens`) of the prompts waiting, first come first
served. vLLM's scheduler batches every running decode before any prefill and fills the rest of
`max_num_batched_tokens` with prompt chunks; SGLang cuts prompts at `chunked_prefill_size` and runs a
chunk beside the decodes with `--enable-mixed-chunk` (`CHUNK_SOURCES`, `SCHEDULE_SOURCES`).

A prompt takes n_p = ⌈I ÷ K⌉ steps, chunk i covering positions (i − 1)·K + 1 … min(i·K, I); the step
with its last chunk emits the first output token and O − 1 steps emit the rest, so a request is
L = n_p + O − 1 steps in the engine. A replica holding s requests in steady state, their starts
spread evenly (the closed loop of C clients, each sending its next request when one ends):

* If s·n_p ≤ L, prompts never overlap: λ = s ÷ L requests finish a step; a share f = λ·n_p of the
  steps carries one prompt's chunk beside s − 1 decodes, the rest are decode-only steps of s decodes.
  Of one request's O − 1 gaps between output tokens, g = (s − 1)·n_p ÷ (O − 1) are steps carrying
  another prompt's chunk.
* Otherwise a prompt is always in flight: λ = min(s ÷ L, K ÷ I) (the chunk limits it when
  s ÷ L ≥ K ÷ I), every step carries λ(O − 1) decodes and λ·I prompt tokens (a fluid average of the
  chunks), and g = 1.

Each kind of step is costed as the step it is, through `parallel.mixed`: decodes attend to their
average context over a life, I + O/2 positions (exact for layers without a window); chunk i reads
the K and V of positions 1 … min(i·K, I). One prompt's chunk runs on one attention rank and in one
micro-batch (EP, PP), so a step carrying it is never faster than the chunk's share of the package's
own prefill of the prompt on the layout (`parallel.prefill`, what `roofline prefill` prints).

From the steps: TTFT = the wait for a slot or the prompt budget (c ÷ λ − L steps, Little's law, at
the mean step) + the steps carrying the request's own chunks; it is never below `prefill` of the
prompt. TPOT over a request's life: a decode-only step with weight 1 − g, each chunk's step with
weight g ÷ n_p; its mean, p50, p90 and p99 (the lowest step time whose share reaches the quantile).
TTFT has no spread in this steady state (every request waits the same steps). Output tokens/s =
replicas × λ·O ÷ the mean step; per device ÷ devices; per user 1 ÷ the mean TPOT; request latency
TTFT + (O − 1) × the mean TPOT.

A prefix cache that holds a share h of each prompt serves c = min(⌊h·I⌋, I − 1) of its tokens: their
KV is read, not recomputed, so the prompt's chunks cover positions c + 1 … I (each still reading every
position before it), ⌈(I − c) ÷ K⌉ of them, and the chunk admits K ÷ (I − c) requests a step. Input
tokens/s counts all I tokens, hits included, as DeepSeek reports its input.

Layouts may span nodes (`parallel.candidate_layouts` with `nodes`): their all-to-alls and stage sends
cross the scale-out network, whose bandwidth and latency then enter the binding rule. Disaggregated
pools on nodes of their own (`disaggregated` with `prefill_nodes`) send each prompt's KV cache over
that network (`kv_network_send_s`); in one domain, over the link (`kv_send_s`).

Every throughput is a ceiling and every time a floor (datasheet peaks, every kernel at its roofline
time). The *expected* figure reruns the same steps with every kernel at its efficiency from
published kernel benchmarks plus the engine's per-step overhead (`efficiency.expected_time_s`); it is
an estimate, never a measurement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from roofline.errors import InputError
from roofline.model import efficiency, engines, kernels, measured, parallel
from roofline.model.formats import Formats
from roofline.model.parallel import Layout
from roofline.registry.hardware import Device
from roofline.registry.models import Model

#: Prompt tokens one engine step takes (the prefill chunk). SGLang defaults `chunked_prefill_size`
#: to 8192 on H100-, H200- and A100-class GPUs; vLLM's `max_num_batched_tokens` (decode tokens
#: counted in it) defaults to 8192 for its OpenAI server on GPUs of 70 GiB or more.
DEFAULT_CHUNK_TOKENS = engines.SERVE[engines.DEFAULT_SERVE].chunk_tokens
SCHEDULE_SOURCES = (
    ("vLLM optimization guide, chunked prefill: the scheduler batches all pending decodes before any prefill",
     "https://docs.vllm.ai/en/latest/configuration/optimization.html"),
    ("SGLang server arguments: chunked_prefill_size, and enable_mixed_chunk to run a chunk beside the decodes",
     "https://docs.sglang.ai/advanced_features/server_arguments.html"),
)
CHUNK_SOURCES = (
    ("SGLang server_args.py: chunked_prefill_size 8192 on H100, H200 and A100-class GPUs",
     "https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/server_args.py"),
    ("vLLM arg_utils.py: max_num_batched_tokens 8192 for the OpenAI server on GPUs of 70 GiB or more",
     "https://github.com/vllm-project/vllm/blob/main/vllm/engine/arg_utils.py"),
)

MAX_TOKENS = 10_000_000        # a prompt or an answer past ten million tokens is a typo
MAX_CONCURRENCY = 1_000_000
MAX_USD_PER_DEVICE_HOUR = 1000.0
MIN_USD_PER_DEVICE_HOUR = 0.01  # a cent an hour: below it a cost per token prints as $1e-301, about no real device
MAX_MEMORY_CAP = 1 << 20       # requests the memory search looks at

#: What a serving point's `bound` can say, decided from the model (`_binding`): each limit is relaxed by
#: `RELAX` and the point rerun. A limit of the schedule (memory, the reader's cap, the chunk) binds where
#: relaxing it raises the point's output tokens/s by `MIN_GAIN` or more; where none does, the device's
#: limit whose relaxation raises it most binds (a faster device always shortens the steps). Ties go in order.
BOUNDS = ("memory", "cap", "chunk", "compute", "bandwidth", "link-bandwidth", "link-latency", "network-bandwidth",
          "network-latency", "none")
SCHEDULE_LIMITS = ("memory", "cap", "chunk")
RELAX = 1.25           # each limit relaxed by a quarter: memory for a quarter more requests, a quarter more FLOP/s, ...
BIND_MARGIN = 0.02     # limits whose relaxation gains within two points of the binding one's bind with it
MIN_GAIN = 0.01        # a relaxation that raises output tokens/s by less than 1 % does not bind
BOUND_MEANING = {
    "memory": "memory: room for a quarter more requests' KV cache",
    "cap": "the cap on requests in flight: a cap a quarter higher",
    "chunk": "the prefill chunk: a chunk a quarter larger",
    "compute": "compute: a quarter more FLOP/s",
    "bandwidth": "memory bandwidth: a quarter more bandwidth",
    "link-bandwidth": "the link's bandwidth: a quarter more",
    "link-latency": "the link's latency: a fifth less per collective",
    "network-bandwidth": "the scale-out network's bandwidth: a quarter more",
    "network-latency": "the scale-out network's latency floor: a fifth less",
    "none": "nothing: no limit relaxed by a quarter",
}
#: Speculative decoding: a draft proposes k tokens, one target pass verifies them (k + 1 positions a request) and
#: keeps (1 − a^(k+1)) ÷ (1 − a) tokens on average (Leviathan et al., ICML 2023, eq. 1). Defaults per method:
#: (draft tokens k, per-token acceptance a, drafting cost per drafted token as a share of the target's step,
#: source). None: the reader must give it.
SPECULATION = {
    "mtp": (1, 0.85, "layer",
            "DeepSeek-V3 technical report, sec. 5.4.3: the second token's acceptance rate is 85-90 %; one MTP module "
            "(one transformer layer) drafts it", "https://arxiv.org/abs/2412.19437"),
    "eagle": (4, 0.8, "layer",
              "EAGLE (Li et al., ICML 2024): the draft's accuracy is about 0.8; its draft is one decoder layer",
              "https://arxiv.org/abs/2401.15077"),
    "medusa": (4, 0.6, 0.0,
               "EAGLE (Li et al., ICML 2024) puts Medusa's draft accuracy at about 0.6; four heads (Medusa, Cai et "
               "al., 2024) ride in the target's pass", "https://arxiv.org/abs/2401.10774"),
    "draft": (4, None, None, "a separate draft model: its acceptance and cost depend on the pair, so both are the "
                             "reader's inputs", "https://arxiv.org/abs/2211.17192"),
}
MAX_DRAFT_TOKENS = 16

#: Engines' own defaults, from the one table of them (`engines.SERVE`: the current versions' rows): their cap on
#: requests in flight, prompt tokens a step, KV block and KV share. The reader's --max-concurrency, --chunk-tokens
#: and --kv-block-tokens override them; without --engine the ceiling has no engine cap and the expected figure
#: takes `engines.DEFAULT_SERVE`'s defaults.
ENGINES = engines.SERVE
KV_MEMORY = ("reserve", "paged")   # every request's cache at I + O tokens, or the live context in blocks   # more drafted tokens than this a pass is past any published configuration

#: The statistics a latency target may be judged on; MLPerf's Server scenario judges TTFT and TPOT at p99.
PERCENTILES = ("mean", "p50", "p90", "p99")
DEFAULT_PERCENTILE = "p99"
_QUANTILE = {"p50": 0.50, "p90": 0.90, "p99": 0.99}
#: A prompt costs one step per chunk; past this many chunks a prompt the chunk is a typo.
MAX_CHUNKS_PER_PROMPT = 4096


def bound_words(bound: str, gains: dict, also: tuple = ()) -> str:
    """The binding limit in words with what relaxing it gains: "memory bandwidth: a quarter more bandwidth
    raises output tokens/s by 24.6 %", and the limits that bind with it."""
    if bound == "none" or bound not in gains:
        return (f"{BOUND_MEANING['none']} raises output tokens/s by {MIN_GAIN:.0%} or more: more requests "
                "in flight would")
    out = f"{BOUND_MEANING[bound]} raises output tokens/s by {gains[bound]:.1%}"
    if also:
        out += "; " + ", ".join(f"{BOUND_MEANING[b].split(':')[0]} ({gains[b]:.1%})" for b in also) + \
            f" within {BIND_MARGIN:.0%} of it bind together"
    return out


def check_percentile(option: str, value) -> str:
    """`value` if it is one of `PERCENTILES`, else one sentence naming `option`."""
    if value not in PERCENTILES:
        raise InputError(f"{option} must be one of {', '.join(PERCENTILES)}, got {value!r}")
    return value


#: What a prefix-cache hit costs and what it is assumed not to change.
PREFIX_CACHE_WORDS = ("a hit's tokens are not recomputed: the computed tokens' attention reads their KV from device "
                      "memory (that read is the hit's cost; loading it from host memory or disk is not counted); each "
                      "request still holds its whole cache; input tokens/s counts every prompt token, hits included")

DERATE_MISSES = ("what the engine's per-step overhead row leaves out (sampling and scheduling on engines without "
                 "an overlap scheduler), ragged batches and request-length variation")


# --------------------------------------------------------------------------- workload ------
def _whole(option: str, value, low: int, high: float) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or value != int(value) or value < low:
        raise InputError(f"{option} must be a whole number ≥ {low}, got {value!r}")
    if value > high:
        raise InputError(f"{option} must be at most {high:,.0f}, got {value!r}")
    return int(value)


def _positive(option: str, value, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or value <= 0:
        raise InputError(f"{option} must be a positive number, got {value!r}")
    if value > high:
        raise InputError(f"{option} must be at most {high:g}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Workload:
    """What a service runs: I prompt tokens and O output tokens per request, how many requests are
    in flight, the engine's caps, its formats and attention, and the reader's price.

    >>> Workload(1024, 256).chunk_tokens
    8192
    """

    input_tokens: int
    output_tokens: int
    concurrency: int | None = None       # requests the clients keep in flight; None: sweep it
    max_concurrency: int | None = None   # the engine's cap on requests in flight (max-num-seqs)
    chunk_tokens: int | None = None      # None: the engine's (`ENGINES`), else DEFAULT_CHUNK_TOKENS
    formats: Formats = field(default_factory=Formats.of)
    attention: str = "fused"
    usd_per_device_hour: float | None = None
    collective_latency: str | float = parallel.LATENCY_FLOOR  # the floor (ceilings), "ring" or seconds each
    speculation: str | None = None       # None: plain decoding; else a key of SPECULATION
    draft_tokens: int | None = None      # k drafted tokens a pass (None: the method's default)
    acceptance: float | None = None      # each drafted token's acceptance rate in (0, 1] (None: the default)
    draft_cost: float | None = None      # a drafted token's cost as a share of the target's step (None: default)
    engine: str | None = None            # a key of ENGINES: its caps by default; None: memory alone
    kv_memory: str = "reserve"           # "reserve": I + O tokens a request; "paged": the live context in blocks
    kv_block_tokens: int | None = None   # a KV block's tokens (paged; default the engine's, else 16)
    cache_hit_rate: float = 0.0          # the share of each prompt a prefix cache holds (0: no hits)

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen)
        if self.engine is not None and self.engine not in ENGINES:
            raise InputError(f"--engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        if self.kv_memory not in KV_MEMORY:
            raise InputError(f"--kv-memory must be one of {', '.join(KV_MEMORY)}, got {self.kv_memory!r}")
        eng = ENGINES.get(self.engine)
        if self.max_concurrency is None and eng is not None and eng.max_requests is not None:
            set_("max_concurrency", eng.max_requests)
        if self.chunk_tokens is None:
            set_("chunk_tokens", eng.chunk_tokens if eng is not None else DEFAULT_CHUNK_TOKENS)
        block = self.kv_block_tokens if self.kv_block_tokens is not None else (eng.kv_block_tokens if eng else 16)
        set_("kv_block_tokens", _whole("--kv-block-tokens", block, 1, 4096))
        set_("input_tokens", _whole("--input-tokens", self.input_tokens, 1, MAX_TOKENS))
        if isinstance(self.output_tokens, (int, float)) and not isinstance(self.output_tokens, bool) \
                and self.output_tokens == 1:
            raise InputError("--output-tokens must be a whole number ≥ 2: time per output token needs a second "
                             "token (for a prompt alone, see `roofline prefill`), got 1")
        set_("output_tokens", _whole("--output-tokens", self.output_tokens, 2, MAX_TOKENS))
        if self.concurrency is not None:
            set_("concurrency", _whole("--concurrency", self.concurrency, 1, MAX_CONCURRENCY))
        if self.max_concurrency is not None:
            set_("max_concurrency", _whole("--max-concurrency", self.max_concurrency, 1, MAX_CONCURRENCY))
        set_("chunk_tokens", _whole("--chunk-tokens", self.chunk_tokens, 1, MAX_TOKENS))
        h = self.cache_hit_rate
        if isinstance(h, bool) or not isinstance(h, (int, float, np.integer, np.floating)) or not math.isfinite(h) \
                or not 0 <= h <= 1:
            raise InputError(f"--cache-hit-rate must be a number from 0 to 1 (the share of each prompt a prefix cache "
                             f"holds), got {h!r}")
        set_("cache_hit_rate", float(h))
        if self.prefill_steps > MAX_CHUNKS_PER_PROMPT:
            raise InputError(f"--chunk-tokens must be at least {-(-self.input_tokens // MAX_CHUNKS_PER_PROMPT):,} for a "
                             f"prompt of {self.input_tokens:,} tokens (at most {MAX_CHUNKS_PER_PROMPT:,} chunks a "
                             f"prompt), got {self.chunk_tokens:,}")
        if self.usd_per_device_hour is not None:
            set_("usd_per_device_hour", _positive("--price-per-device-hour", self.usd_per_device_hour,
                                                  MAX_USD_PER_DEVICE_HOUR))
            if self.usd_per_device_hour < MIN_USD_PER_DEVICE_HOUR:
                raise InputError(f"--price-per-device-hour must be at least {MIN_USD_PER_DEVICE_HOUR:g} USD, "
                                 f"got {self.usd_per_device_hour:g}")
        if self.attention not in kernels.ATTENTION_VARIANTS:
            raise InputError(f"--attention must be one of {', '.join(kernels.ATTENTION_VARIANTS)}, "
                             f"got {self.attention!r}")
        set_("collective_latency", parallel.check_latency(self.collective_latency))
        if not isinstance(self.formats, Formats):
            raise InputError(f"formats must be a Formats (Formats.of(...)), got {self.formats!r}")
        if self.speculation is None:
            for name, opt in (("draft_tokens", "--draft-tokens"), ("acceptance", "--acceptance"),
                              ("draft_cost", "--draft-cost")):
                if getattr(self, name) is not None:
                    raise InputError(f"{opt} needs --speculative (mtp, eagle, medusa or draft): plain decoding drafts "
                                     "nothing")
            return
        if self.speculation not in SPECULATION:
            raise InputError(f"--speculative must be one of {', '.join(SPECULATION)}, got {self.speculation!r}")
        k0, a0, c0, _, _ = SPECULATION[self.speculation]
        set_("draft_tokens", _whole("--draft-tokens", k0 if self.draft_tokens is None else self.draft_tokens, 1,
                                    MAX_DRAFT_TOKENS))
        a = a0 if self.acceptance is None else self.acceptance
        if a is None:
            raise InputError("--acceptance is needed with --speculative draft: a separate draft model's acceptance "
                             "rate depends on the pair; give it in (0, 1]")
        if isinstance(a, bool) or not isinstance(a, (int, float, np.integer, np.floating)) or not math.isfinite(a) \
                or not 0 < a <= 1:
            raise InputError(f"--acceptance must be a number in (0, 1], got {a!r}")
        set_("acceptance", float(a))
        c = c0 if self.draft_cost is None else self.draft_cost
        if c is None:
            raise InputError("--draft-cost is needed with --speculative draft: a drafted token's cost as a share of "
                             "the target's step (the draft model's size ÷ the target's, roughly), in [0, 1]")
        if c == "layer":
            set_("draft_cost", "layer")
        else:
            if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(c) or not 0 <= c <= 1:
                raise InputError(f"--draft-cost must be a number in [0, 1], got {c!r}")
            set_("draft_cost", float(c))

    @property
    def kv_tokens_per_request(self) -> int:
        """KV positions memory holds for each request: I + O ("reserve"), or, paged, its live context averaged over
        its life, I + O/2, plus half a block (the last block is half empty on average), in whole tokens."""
        if self.kv_memory == "reserve":
            return self.input_tokens + self.output_tokens
        return int(math.ceil(self.input_tokens + self.output_tokens / 2 + self.kv_block_tokens / 2))

    @property
    def caps_words(self) -> str:
        """The engine's caps and the KV reservation, named: what the memory cap and the reader's cap assume."""
        eng = ENGINES.get(self.engine)
        cap = (f"at most {self.max_concurrency:,} requests in flight" if self.max_concurrency is not None
               else "no engine cap on requests in flight (memory alone)")
        who = "" if eng is None else f"{eng.engine}'s defaults ({eng.source}; {eng.url}): "
        kv = ("KV cache reserved at I + O tokens a request" if self.kv_memory == "reserve" else
              f"paged KV cache: each request's live context, I + O/2 on average, in blocks of {self.kv_block_tokens} "
              "tokens")
        return f"{who}{cap}; {kv}"

    @property
    def verify_tokens(self) -> int:
        """Positions one target pass runs for each decoding request: k + 1 (1 in plain decoding)."""
        return 1 if self.speculation is None else self.draft_tokens + 1

    @property
    def tokens_per_pass(self) -> float:
        """Tokens one target pass keeps for a request on average: (1 − a^(k+1)) ÷ (1 − a) (1 in plain decoding)."""
        if self.speculation is None:
            return 1.0
        k, a = self.draft_tokens, self.acceptance
        return float(k + 1) if a == 1.0 else (1.0 - a ** (k + 1)) / (1.0 - a)

    def draft_share(self, model: Model) -> float:
        """Drafting time as a share of the target's step: k × a drafted token's cost (one layer's share,
        1 ÷ the model's layers, for MTP and EAGLE)."""
        if self.speculation is None:
            return 0.0
        c = 1.0 / model.n_layers if self.draft_cost == "layer" else self.draft_cost
        return self.draft_tokens * c

    @property
    def decoding(self) -> str:
        """How the service decodes, in words: "plain decoding" or the method with its k and acceptance."""
        if self.speculation is None:
            return "plain decoding"
        return (f"speculative decoding ({self.speculation}, {self.draft_tokens} drafted tokens a pass, acceptance "
                f"{self.acceptance:g}: {self.tokens_per_pass:.3g} tokens a pass)")

    @property
    def cached_tokens(self) -> int:
        """Prompt tokens a prefix cache serves (`kernels.cached_prompt_tokens`): their KV is read, not recomputed."""
        return int(kernels.cached_prompt_tokens(self.input_tokens, self.cache_hit_rate)) if self.cache_hit_rate else 0

    @property
    def computed_tokens(self) -> int:
        """Prompt tokens the engine computes: the prompt less the cached ones (I without hits)."""
        return self.input_tokens - self.cached_tokens

    @property
    def prefill_steps(self) -> int:
        """Steps one prompt takes: ⌈computed prompt tokens ÷ K⌉ (⌈I ÷ K⌉ without cache hits)."""
        return -(-self.computed_tokens // self.chunk_tokens)

    @property
    def decode_steps(self) -> float:
        """Target passes a request decodes in after its first token: (O − 1) ÷ tokens a pass."""
        return (self.output_tokens - 1) / self.tokens_per_pass

    @property
    def steps_in_engine(self) -> float:
        """Steps a request spends in the engine: its prefill chunks plus O − 1 decode steps."""
        return self.prefill_steps + self.decode_steps

    @property
    def description(self) -> str:
        """The workload in words, for labels: "I 1024, O 256, weights bf16, activations bf16, KV bf16"."""
        f = self.formats
        return (f"I {self.input_tokens}, O {self.output_tokens}, weights {f.weights.name}, activations "
                f"{f.activation}, KV {f.kv}, {self.attention} attention, chunk {self.chunk_tokens}, {self.decoding}"
                + (f", cache hits {self.cache_hit_rate:g} of each prompt ({self.cached_tokens:,} tokens)"
                   if self.cache_hit_rate else ""))


# ---------------------------------------------------------------------------- points -------
class _Rates:
    """What a point's rates give per device and per user (its `output_tokens_per_s`, `devices`, `tpot_s`)."""

    @property
    def output_tokens_per_s_per_device(self) -> float:
        return self.output_tokens_per_s / self.devices

    @property
    def output_tokens_per_s_per_user(self) -> float:
        """Tokens per second one user sees while the answer streams: 1 ÷ TPOT."""
        return 1.0 / self.tpot_s


@dataclass(frozen=True)
class ServicePoint(_Rates):
    """One operating point of a service: a layout, a concurrency, and what the service delivers there.

    Every throughput is a ceiling and every time a floor, except `expected_*` (an estimate from published
    kernel efficiencies).
    """

    model: str
    device: str
    layout: Layout
    workload: Workload
    concurrency: int                 # requests the clients keep in flight
    running: float                   # requests the engine holds in steady state (≤ the slots)
    memory_cap: int                  # requests whose KV cache at I + O tokens fits the layout
    step_time_s: float
    ttft_s: float
    tpot_s: float
    output_tokens_per_s: float
    input_tokens_per_s: float
    request_latency_s: float
    bound: str
    expected_output_tokens_per_s: float
    expected_step_time_s: float
    expected_slots: int              # requests the expected figure holds in flight: its engine's KV share and caps
    # the expected figure's own step mix (its steps at their expected times, its engine's requests): TTFT and
    # TPOT with their percentiles, as the ceiling's below
    expected_ttft_s: float
    expected_tpot_s: float
    expected_tpot_p50_s: float
    expected_tpot_p90_s: float
    expected_tpot_p99_s: float
    expected_request_latency_s: float
    prefill_s: float                 # `roofline prefill` of one prompt on this layout: TTFT never goes below it
    decode_step_s: float             # a step with no prompt tokens
    prompt_step_s: float             # a step carrying a prompt's chunk, the mean over the prompt's chunks
    prompt_step_share: float         # the share of steps that carry prompt tokens
    prompt_gap_share: float          # the share of a request's gaps between output tokens that carry a prompt
    wait_steps: float                # steps a request waits for a slot or the prompt budget before its chunks
    tpot_p50_s: float
    tpot_p90_s: float
    tpot_p99_s: float
    ttft_p50_s: float
    ttft_p90_s: float
    ttft_p99_s: float
    usd_per_million_output_tokens: float | None = None
    usd_per_million_input_tokens: float | None = None
    model_name: str = ""
    device_name: str = ""
    bound_also: tuple = ()           # other limits whose relaxation gains within BIND_MARGIN of `bound`'s
    bound_gains: dict = field(default_factory=dict)  # each limit: the rise in output tokens/s when relaxed by RELAX

    @property
    def devices(self) -> int:
        return self.layout.devices

    @property
    def layout_name(self) -> str:
        return self.layout.name

    @property
    def expected_output_tokens_per_s_per_device(self) -> float:
        return self.expected_output_tokens_per_s / self.devices

    @property
    def bound_meaning(self) -> str:
        return bound_words(self.bound, self.bound_gains, self.bound_also)

    def tpot_at(self, percentile: str) -> float:
        """TPOT at `percentile` (one of `PERCENTILES`): "mean" is `tpot_s`."""
        return self.tpot_s if check_percentile("--tpot-percentile", percentile) == "mean" \
            else getattr(self, f"tpot_{percentile}_s")

    def ttft_at(self, percentile: str) -> float:
        """TTFT at `percentile` (one of `PERCENTILES`): "mean" is `ttft_s`."""
        return self.ttft_s if check_percentile("--ttft-percentile", percentile) == "mean" \
            else getattr(self, f"ttft_{percentile}_s")


# ------------------------------------------------------------------------ the model -------
def _chunk_sums(model: Model, prompt: int, chunk: int) -> tuple[float, float]:
    """(Σ over a prompt's chunks of the layer-summed positions each chunk's attention reads,
    Σ of the layer-summed positions at each chunk's end counted once per chunk token).

    Chunk i (of n = ⌈I ÷ K⌉) ends at e_i = min(i·K, I) and reads the K and V of positions
    1…e_i. The second sum is what unfused attention scores (each chunk token against e_i).
    """
    full, n_win, window = kernels.window_layers(model)
    n = -(-prompt // chunk)
    last = prompt - (n - 1) * chunk

    def ends(f_full, f_win):
        # Σ_{i<n} of positions at i·K, full and windowed layers, in closed form
        s = f_full * chunk * (n - 1) * n / 2
        if n_win:
            m = min(n - 1, window // chunk)
            s += f_win * (chunk * m * (m + 1) / 2 + (n - 1 - m) * window)
        return s

    at_end = float(kernels.layer_positions(model, prompt))
    reads = ends(full, n_win) + at_end
    scored = chunk * ends(full, n_win) + last * at_end
    return reads, scored


def _chunks(model: Model, wl: Workload) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each chunk of one prompt as the engine cuts it: (tokens, layer-summed positions its attention
    reads, layer-summed query-key pairs it scores), chunk i covering positions (i−1)·K + 1 … min(i·K, I).
    With cache hits the chunks start after the c cached positions, c + (i−1)·K + 1 … min(c + i·K, I), each
    still reading the K and V of every position before its end (the cached ones included)."""
    I, K, c = wl.input_tokens, wl.chunk_tokens, float(wl.cached_tokens)
    ends = np.minimum(c + np.arange(1, wl.prefill_steps + 1, dtype=float) * K, I)
    starts = np.concatenate([[c], ends[:-1]])
    size = ends - starts
    reads = np.asarray(kernels.layer_positions(model, ends), float)
    if wl.attention == "fused":  # the causal pairs of positions start+1 … end, each against all before it
        pairs = np.asarray(kernels.causal_layer_pairs(model, ends), float) - \
            np.asarray(kernels.causal_layer_pairs(model, starts), float)
    else:  # unfused scores every chunk token against the chunk's end (as `_chunk_sums`)
        pairs = size * reads
    return size, reads, pairs


def _prompt_sums(model: Model, wl: Workload) -> tuple[float, float]:
    """(Σ over one prompt's chunks of the layer-summed positions each reads, Σ of the layer-summed query-key
    pairs they score): closed form without cache hits, else summed over `_chunks`."""
    I, K = wl.input_tokens, wl.chunk_tokens
    if not wl.cached_tokens:
        reads, scored = _chunk_sums(model, I, K)
        return reads, (float(kernels.causal_layer_pairs(model, I)) if wl.attention == "fused" else scored)
    _, reads, pairs = _chunks(model, wl)
    return float(reads.sum()), float(pairs.sum())


def _work(model: Model, wl: Workload, per_replica_slots: np.ndarray):
    """The steady-state average step of one replica holding `per_replica_slots` requests:
    (its MixedWork, requests finished per step λ, whether the chunk limits λ)."""
    I, O, K = wl.input_tokens, wl.output_tokens, wl.chunk_tokens
    n = wl.computed_tokens   # the prompt tokens a step's budget carries: I less the cache hits
    steps = wl.steps_in_engine
    lam_free = per_replica_slots / steps
    lam = np.minimum(lam_free, K / n)
    chunk_bound = lam_free >= K / n  # a chunk exactly full binds too: more requests add nothing
    v = wl.verify_tokens
    d, p = lam * wl.decode_steps * v, lam * n   # decoding requests × the positions each verifies
    reads, pairs = _prompt_sums(model, wl)
    decode_positions = float(kernels.layer_positions(model, I + O / 2))  # the average context, see the module doc
    running = lam * steps
    work = kernels.MixedWork(decode_tokens=d, decode_positions=d * decode_positions, prefill_tokens=p,
                             prefill_positions=lam * reads, prefill_pairs=lam * pairs, head_tokens=d + lam,
                             requests=running, kv_positions=running * float(kernels.layer_positions(model, I + O)))
    return work, lam, chunk_bound


@dataclass(frozen=True)
class StepMix:
    """The steps of one replica in steady state, per point (arrays over the points asked).

    `lam`: requests finished a step; `overlap`: prompts overlap (every step carries prompt tokens);
    `prompt_share`: the share f of steps that carry prompt tokens; `gap_share`: the share g of one
    request's O − 1 gaps between output tokens that are steps carrying another prompt's chunk (its own
    chunks come before its first token); `decode_step_s`: a decode-only
    step; `chunk_steps_s`: (points × ⌈I ÷ K⌉) each step carrying one of a prompt's chunks, costed
    as the step it is; `mean_step_s`: the mean over the mix; `wait_steps`: steps a request waits
    for a slot or for the prompt budget before its own chunks run.
    """

    lam: np.ndarray
    chunk_bound: np.ndarray
    overlap: np.ndarray
    prompt_share: np.ndarray
    gap_share: np.ndarray
    decode_step_s: np.ndarray
    chunk_steps_s: np.ndarray
    mean_step_s: np.ndarray
    wait_steps: np.ndarray
    tokens_per_pass: float = 1.0   # tokens a decode step keeps per request: TPOT is a step ÷ it

    @property
    def mean_gap_s(self) -> np.ndarray:
        """The mean time between two of a request's output tokens: its mean TPOT."""
        return ((1.0 - self.gap_share) * self.decode_step_s
                + self.gap_share * self.chunk_steps_s.mean(axis=1)) / self.tokens_per_pass

    @property
    def own_prefill_s(self) -> np.ndarray:
        """The steps that carry a request's own chunks, summed: TTFT less the wait."""
        return self.chunk_steps_s.sum(axis=1)

    @property
    def ttft_s(self) -> np.ndarray:
        return self.wait_steps * self.mean_step_s + self.own_prefill_s

    def tpot_quantile_s(self, q: float) -> np.ndarray:
        """The q-quantile (lowest value whose share of a request's gaps reaches q) of the time between
        two output tokens: a decode-only step with weight 1 − g, each chunk step with weight g ÷ ⌈I ÷ K⌉."""
        n = self.chunk_steps_s.shape[1]
        vals = np.concatenate([self.decode_step_s[:, None], self.chunk_steps_s], axis=1)
        f = self.gap_share[:, None]
        w = np.concatenate([1.0 - f, np.repeat(f / n, n, axis=1)], axis=1)
        order = np.argsort(vals, axis=1, kind="stable")
        vals = np.take_along_axis(vals, order, axis=1)
        cum = np.cumsum(np.take_along_axis(w, order, axis=1), axis=1)
        idx = np.argmax(cum >= q - 1e-12, axis=1)
        return vals[np.arange(len(vals)), idx] / self.tokens_per_pass


#: The engine whose per-step overhead row the expected figure takes, per `--engine`; none given (or an
#: engine with no published row): the default row, named in the assumptions.
_EXPECTED_ENGINE = {"vllm": "vLLM", "trtllm": "TensorRT-LLM"}


def expected_engine(wl: Workload) -> str:
    """The engine whose per-step overhead the expected figure adds (`efficiency.engines()`)."""
    return _EXPECTED_ENGINE.get(wl.engine or "", efficiency.DEFAULT_ENGINE)


def expected_defaults(wl: Workload) -> engines.EngineDefaults:
    """The engine defaults the expected figure holds requests under: --engine's, else `engines.DEFAULT_SERVE`'s."""
    return ENGINES[wl.engine or engines.DEFAULT_SERVE]


def engine_requests(model: Model, device: Device, layout: Layout, wl: Workload, cap: int) -> int:
    """Requests (all replicas) the expected figure's engine (`expected_defaults`) holds at most on `layout`: those
    whose KV cache fits its KV share of memory (`engines.requests_that_fit` on each replica's share of the
    ceiling's memory cap `cap`: the cache grows by the same bytes with each request, and a replica holds whole
    requests), within the cap on requests in flight (the reader's, else the engine's, over all replicas as the
    ceiling's cap is), and at least one a replica.

    >>> m, d = get_model("llama-3.1-8b"), get_device("h100-sxm5")
    >>> wl = Workload(1024, 256)
    >>> engine_requests(m, d, Layout(), wl, memory_cap(m, d, Layout(), wl)) <= memory_cap(m, d, Layout(), wl)
    True
    """
    d = expected_defaults(wl)
    per = cap // layout.dp             # each replica's share of the memory cap, whole requests
    step = parallel.decode(model, device, float(per * layout.dp), wl.kv_tokens_per_request - 1, wl.formats,
                           wl.attention, layout)
    st = step.stage
    budget = d.kv_budget_bytes(kernels.usable_memory_bytes(device), float(st.weights_resident_bytes),
                               float(st.activation_peak_bytes), float(st.runtime_reserve_bytes), layout.tp)
    fit = layout.dp * engines.requests_that_fit(per, float(step.kv_resident_bytes), budget)
    limit = wl.max_concurrency if wl.max_concurrency is not None else (d.max_requests or MAX_CONCURRENCY)
    return max(min(fit, limit), layout.dp)


def _step_mix(model: Model, device: Device, layout: Layout, wl: Workload, per_replica_clients: np.ndarray,
              per_replica_slots: np.ndarray, prefill_s: float, expected: bool = False,
              engine: str | None = None) -> StepMix:
    """The schedule in steady state (module doc): which steps run, and what each costs.
    `expected`: each step at the expected figure's kernel efficiencies and engine overhead, not its roofline time
    (the overhead of `engine`, an `efficiency.engines()` name, else of the workload's engine).

    `prefill_s`: the package's own prefill of one prompt on this layout (`parallel.prefill`); a step
    carrying a chunk of one prompt is never faster than that chunk's share of it."""
    I, O = wl.input_tokens, wl.output_tokens
    n_p, L = wl.prefill_steps, wl.steps_in_engine
    f_, a, lat = wl.formats, wl.attention, wl.collective_latency
    s = np.asarray(per_replica_slots, float)
    lam_free = s / L
    overlap = lam_free * n_p > 1.0
    fluid, lam, chunk_bound = _work(model, wl, s)
    ctx = float(kernels.layer_positions(model, I + O / 2))
    kv = s * float(kernels.layer_positions(model, I + O))
    size, reads, pairs = _chunks(model, wl)
    share_floor = prefill_s * size / wl.computed_tokens      # each chunk's share of the prompt's own prefill

    # Three kinds of step, costed in one vectorised pass: decode-only (every slot decodes), one prompt's
    # chunk i beside the other s − 1 slots decoding (points × chunks), and the fluid average step that
    # runs when prompts overlap (λ(O − 1) decodes and λ·I prompt tokens).
    # With speculation each decoding request verifies v = k + 1 positions a pass (v = 1 plain).
    n, v = len(s), wl.verify_tokens
    d = np.repeat(s - 1.0, n_p) * v
    last = np.tile(np.arange(n_p) == n_p - 1, n).astype(float)
    zero = np.zeros(n)
    cat = np.concatenate
    work = kernels.MixedWork(
        decode_tokens=cat([s * v, d, fluid.decode_tokens]),
        decode_positions=cat([s * v * ctx, d * ctx, fluid.decode_positions]),
        prefill_tokens=cat([zero, np.tile(size, n), fluid.prefill_tokens]),
        prefill_positions=cat([zero, np.tile(reads, n), fluid.prefill_positions]),
        prefill_pairs=cat([zero, np.tile(pairs, n), fluid.prefill_pairs]),
        head_tokens=cat([s * v, d + last, fluid.head_tokens]),
        requests=cat([s, np.repeat(s, n_p), fluid.requests]),
        kv_positions=cat([kv, np.repeat(kv, n_p), fluid.kv_positions]))
    times = np.atleast_1d(np.asarray(
        efficiency.expected_time_s(model, device, work, f_, a, layout, lat, engine=engine or expected_engine(wl))
        if expected
        else parallel.mixed(model, device, work, f_, a, layout, lat).time_s, float))
    decoders = cat([s, np.repeat(s - 1.0, n_p), fluid.decode_tokens])
    times = times * np.where(decoders > 0, 1.0 + wl.draft_share(model), 1.0)  # the draft runs for the decoders
    t_dec, t_chunk, t_fluid = times[:n], times[n:n + n * n_p].reshape(n, n_p), times[n + n * n_p:]
    # a step carrying chunk i of one prompt is never faster than that chunk alone: its share of the prefill
    t_chunk = np.maximum(t_chunk, share_floor[None, :])
    f = np.where(overlap, 1.0, lam * n_p)
    chunk_steps = np.where(overlap[:, None], np.maximum(t_fluid[:, None], share_floor[None, :]), t_chunk)
    decode_step = np.where(overlap, t_fluid, t_dec)
    mean_step = np.where(overlap, chunk_steps.mean(axis=1), (1.0 - f) * t_dec + f * t_chunk.mean(axis=1))
    # the other s − 1 slots' prompts, n_p steps each a lifetime of L, fall in this request's decode steps
    g = np.where(overlap, 1.0, (s - 1.0) * n_p / wl.decode_steps)
    c = np.asarray(per_replica_clients, float)
    wait = np.maximum(c / lam - L, 0.0)     # Little's law: the steps a client's request spends beyond its own L
    return StepMix(lam, chunk_bound, overlap, f, g, decode_step, chunk_steps, mean_step, wait, wl.tokens_per_pass)


def memory_cap(model: Model, device: Device, layout: Layout, wl: Workload) -> int:
    """Requests (all replicas) whose KV cache at I + O tokens, weights, activations and the runtime
    reserve fit each device under `layout`: 0 where not even one fits.

    >>> memory_cap(get_model("llama-3.1-70b"), get_device("h100-sxm5"), Layout(), Workload(1024, 256))
    0
    """
    if model.is_bare:
        raise InputError("--model: a bare parameter count has no KV cache, so nothing caps the requests in "
                         "flight; give a registry model or a config.json")
    ctx = wl.kv_tokens_per_request - 1  # a decode at context L holds L + 1 positions

    def fits(b):
        return np.atleast_1d(np.asarray(parallel.decode(model, device, b, ctx, wl.formats, wl.attention, layout).fits))

    # Memory is affine in the requests at multiples of g (the ceilings of dp, ep and pp repeat every g
    # requests): two evaluations estimate the cap, one window around the estimate confirms it.
    g = layout.dp * layout.ep * layout.pp
    two = np.asarray(parallel.decode(model, device, np.array([g, 2 * g], float), ctx, wl.formats, wl.attention,
                                     layout).memory_required_bytes, float)
    slope = (two[1] - two[0]) / g
    guess = int((kernels.usable_memory_bytes(device) - (two[0] - slope * g)) // slope) if slope > 0 else 0
    lo = max(guess - 2 * g, 1)
    window = np.arange(lo, min(guess + 2 * g, MAX_MEMORY_CAP) + 1)
    if window.size:
        ok = fits(window.astype(float))
        if ok[0] and not ok[-1]:
            return int(window[int(np.argmin(ok)) - 1])
    first = kernels.first_true(lambda b: ~fits(b), MAX_MEMORY_CAP)  # the estimate missed: search
    return MAX_MEMORY_CAP if first is None else first - 1


def expected_rate(model: Model, device: Device, layout: Layout, wl: Workload, slots: int,
                  engine: str | None = None) -> float:
    """Expected output tokens/s (all replicas) with `slots` requests held by an engine whose queue never runs
    dry (an offline run, or clients at least as many as the slots): the steady state's steps at the kernels'
    efficiencies plus `engine`'s per-step overhead (`efficiency.step_overhead_s`).

    >>> m, d = get_model("llama-3.1-8b"), get_device("h100-sxm5")
    >>> wl = Workload(1024, 256, 64)
    >>> expected_rate(m, d, Layout(), wl, 64) == serve_point(m, d, Layout(), wl).expected_output_tokens_per_s
    True
    """
    s = _whole("slots", slots, layout.dp, MAX_CONCURRENCY)
    c = np.array([float(s)]) / layout.dp
    mix = _step_mix(model, device, layout, wl, c, c, _prefill_s(model, device, layout, wl), expected=True,
                    engine=engine)
    return float(layout.dp * mix.lam[0] * wl.output_tokens / mix.mean_step_s[0])


def _rates(model: Model, device: Device, layout: Layout, wl: Workload, concurrency, cap: int) -> np.ndarray:
    """Output tokens/s at each client concurrency (all replicas): the throughput alone, for searches."""
    c = np.atleast_1d(np.asarray(concurrency, float))
    slots = np.minimum(c, min(cap, wl.max_concurrency or MAX_CONCURRENCY))
    mix = _step_mix(model, device, layout, wl, c / layout.dp, slots / layout.dp, _prefill_s(model, device, layout, wl))
    return layout.dp * mix.lam * wl.output_tokens / mix.mean_step_s


def _relaxations(device: Device, layout: Layout, wl: Workload, cap: int) -> dict[str, tuple[Device, Workload, int]]:
    """Each limit relaxed by `RELAX`, as (device, workload, memory cap) to rerun the point on."""
    import dataclasses as dc

    up = lambda x: int(math.ceil(x * RELAX))  # noqa: E731

    def relaxed(limit: str, make) -> Device:
        # one object per device and limit: the steps remembered for it (`kernels.remembered`) are found again
        return kernels.recall((__name__, "relaxed", id(device), limit), (device,), make)

    out = {"memory": (device, wl, up(cap)),
           "chunk": (device, replace(wl, chunk_tokens=up(wl.chunk_tokens)) if up(wl.chunk_tokens) <= MAX_TOKENS
                     and -(-wl.input_tokens // up(wl.chunk_tokens)) <= MAX_CHUNKS_PER_PROMPT else wl, cap),
           "compute": (relaxed("compute", lambda: dc.replace(device, dense_peak_flop_per_s={
               k: v * RELAX for k, v in device.dense_peak_flop_per_s.items()})), wl, cap),
           "bandwidth": (relaxed("bandwidth", lambda: dc.replace(
               device, memory_bandwidth_bytes_per_s=device.memory_bandwidth_bytes_per_s * RELAX)), wl, cap)}
    if wl.max_concurrency is not None:
        out["cap"] = (device, replace(wl, max_concurrency=up(wl.max_concurrency)), cap)
    ic = device.interconnect
    if ic is not None and not layout.is_single:
        out["link-bandwidth"] = (relaxed("link-bandwidth", lambda: dc.replace(device, interconnect=dc.replace(
            ic, bandwidth_bytes_per_s_per_direction=ic.bandwidth_bytes_per_s_per_direction * RELAX))), wl, cap)
        lat = wl.collective_latency
        out["link-latency"] = (relaxed("link-latency", lambda: dc.replace(device, interconnect=dc.replace(
            ic, latency_base_s=ic.latency_base_s / RELAX, latency_per_step_s=ic.latency_per_step_s / RELAX,
            latency_floor_s=ic.latency_floor_s / RELAX))),
            wl if isinstance(lat, str) else replace(wl, collective_latency=lat / RELAX), cap)
    net = device.network
    if net is not None and parallel.domains_spanned(layout.replica_devices, device) > 1:
        # a replica across nodes: its all-to-alls and stage sends cross the scale-out network too
        out["network-bandwidth"] = (relaxed("network-bandwidth", lambda: dc.replace(device, network=dc.replace(
            net, bandwidth_bytes_per_s_per_direction=net.bandwidth_bytes_per_s_per_direction * RELAX))), wl, cap)
        out["network-latency"] = (relaxed("network-latency", lambda: dc.replace(device, network=dc.replace(
            net, latency_floor_s=net.latency_floor_s / RELAX))), wl, cap)
    return out


def _binding(gains: dict[str, np.ndarray]) -> tuple[np.ndarray, list[tuple[str, ...]]]:
    """Per point: the binding limit (`BOUNDS`' rule) and every other limit whose gain is within
    `BIND_MARGIN` of its gain (they bind together)."""
    names = [b for b in BOUNDS if b in gains]
    g = np.stack([np.atleast_1d(gains[b]) for b in names])           # limits × points
    sched = np.array([b in SCHEDULE_LIMITS for b in names])
    masked_sched = np.where(sched[:, None], g, -np.inf)
    masked_hw = np.where(~sched[:, None], g, -np.inf)
    sched_best, hw_best = np.argmax(masked_sched, axis=0), np.argmax(masked_hw, axis=0)
    cols = np.arange(g.shape[1])
    use_sched = masked_sched[sched_best, cols] >= MIN_GAIN
    best = np.where(use_sched, sched_best, hw_best)
    top = g[best, cols]
    primary = np.where(top >= MIN_GAIN, np.array(names)[best], "none")
    also = [tuple(names[j] for j in range(len(names)) if j != best[i] and g[j, i] >= MIN_GAIN
                  and abs(g[j, i] - top[i]) <= BIND_MARGIN) if top[i] >= MIN_GAIN else () for i in cols]
    return primary, also


def _point_gains(model: Model, device: Device, layout: Layout, wl: Workload, c: np.ndarray, cap: int,
                 base: np.ndarray) -> dict[str, np.ndarray]:
    """How much each relaxation raises output tokens/s at the point. A point whose clients fill the slots
    memory (or the reader's cap) allows is rerun with the room a quarter larger and its clients filling
    it; a point below them does not move. The chunk is rerun only where prompts span chunks or fill the
    chunk. The label depends on the layout, the concurrency and the workload alone, so a point carries
    one label in every output."""
    c = np.asarray(c, float)
    reader = wl.max_concurrency or MAX_CONCURRENCY
    slots = np.minimum(c, min(cap, reader)) / layout.dp
    fill = {"memory": (c >= cap) & (cap <= reader), "cap": (c >= reader) & (reader <= cap),
            "chunk": np.full(c.shape, wl.prefill_steps > 1) | (slots * wl.prefill_steps >= wl.steps_in_engine)}
    out = {}
    for k, (d, w, m) in _relaxations(device, layout, wl, cap).items():
        g = np.zeros(c.shape)
        idx = np.flatnonzero(fill.get(k, np.ones(c.shape, bool)))
        if idx.size:
            room = m if k == "memory" else (w.max_concurrency if k == "cap" else None)
            cc = c[idx] if room is None else np.maximum(c[idx], room)
            g[idx] = _rates(model, d, layout, w, cc, m) / base[idx] - 1.0
        out[k] = g
    return out


def _prefill_s(model: Model, device: Device, layout: Layout, wl: Workload) -> float:
    """The package's own prefill of one prompt on `layout` (`roofline prefill --prompt I`)."""
    return float(parallel.prefill(model, device, wl.input_tokens, 1, wl.formats, wl.attention, layout,
                                  wl.collective_latency, wl.cache_hit_rate).time_s)


def _points(model: Model, device: Device, layout: Layout, wl: Workload, concurrency, cap: int,
            gains: dict[str, np.ndarray] | None = None) -> list[ServicePoint]:
    """Service points at each client concurrency in `concurrency` (an array), one vectorised pass."""
    c = np.atleast_1d(np.asarray(concurrency, float))
    reader_cap = wl.max_concurrency or MAX_CONCURRENCY
    slots = np.minimum(c, min(cap, reader_cap))
    per_replica = slots / layout.dp
    prefill_s = _prefill_s(model, device, layout, wl)
    mix = _step_mix(model, device, layout, wl, c / layout.dp, per_replica, prefill_s)
    # the expected figure holds the requests its engine's KV share and cap allow; its steps keep the ceiling's
    # prefill floor: an expected step is never faster than its ceiling
    exp_slots = np.minimum(slots, engine_requests(model, device, layout, wl, cap))
    exp_mix = _step_mix(model, device, layout, wl, c / layout.dp, exp_slots / layout.dp, prefill_s, expected=True)
    lam, t = mix.lam, mix.mean_step_s
    ttft, tpot_mean = mix.ttft_s, mix.mean_gap_s
    tpot = {k: mix.tpot_quantile_s(q) for k, q in _QUANTILE.items()}
    latency = ttft + (wl.output_tokens - 1) * tpot_mean
    out_tps = layout.dp * lam * wl.output_tokens / t
    in_tps = layout.dp * lam * wl.input_tokens / t
    exp_tps = layout.dp * exp_mix.lam * wl.output_tokens / exp_mix.mean_step_s
    exp_ttft, exp_tpot = exp_mix.ttft_s, exp_mix.mean_gap_s
    exp_q = {k: exp_mix.tpot_quantile_s(q) for k, q in _QUANTILE.items()}
    if gains is None:
        gains = _point_gains(model, device, layout, wl, c, cap, out_tps)
    bound, also = _binding(gains)
    running = layout.dp * lam * wl.steps_in_engine
    price = wl.usd_per_device_hour
    usd_s = None if price is None else price * layout.devices / 3600.0
    out = []
    for i in range(len(c)):
        # every request in the steady state waits the same steps and runs its chunks in the same kind of
        # steps: its TTFT has no spread (arrival variation, which the closed loop has none of, would add it)
        tt = float(ttft[i])
        out.append(ServicePoint(
            model=model.id, device=device.id, layout=layout, workload=wl, concurrency=int(c[i]),
            running=float(running[i]), memory_cap=int(cap), step_time_s=float(t[i]), ttft_s=tt, tpot_s=float(tpot_mean[i]),
            output_tokens_per_s=float(out_tps[i]), input_tokens_per_s=float(in_tps[i]),
            request_latency_s=float(latency[i]), bound=str(bound[i]), bound_also=also[i],
            bound_gains={k: float(np.atleast_1d(v)[i]) for k, v in gains.items()}, expected_output_tokens_per_s=float(exp_tps[i]),
            expected_step_time_s=float(exp_mix.mean_step_s[i]), expected_slots=int(exp_slots[i]), prefill_s=prefill_s,
            expected_ttft_s=float(exp_ttft[i]), expected_tpot_s=float(exp_tpot[i]),
            expected_tpot_p50_s=float(exp_q["p50"][i]), expected_tpot_p90_s=float(exp_q["p90"][i]),
            expected_tpot_p99_s=float(exp_q["p99"][i]),
            expected_request_latency_s=float(exp_ttft[i] + (wl.output_tokens - 1) * exp_tpot[i]),
            decode_step_s=float(mix.decode_step_s[i]), prompt_step_s=float(mix.chunk_steps_s[i].mean()),
            prompt_step_share=float(mix.prompt_share[i]), prompt_gap_share=float(mix.gap_share[i]),
            wait_steps=float(mix.wait_steps[i]),
            tpot_p50_s=float(tpot["p50"][i]), tpot_p90_s=float(tpot["p90"][i]), tpot_p99_s=float(tpot["p99"][i]),
            ttft_p50_s=tt, ttft_p90_s=tt, ttft_p99_s=tt,
            usd_per_million_output_tokens=None if usd_s is None else usd_s / float(out_tps[i]) * 1e6,
            usd_per_million_input_tokens=None if usd_s is None else usd_s / float(in_tps[i]) * 1e6,
            model_name=model.name, device_name=device.name))
    return out


def _require_fit(model: Model, device: Device, layout: Layout, wl: Workload) -> int:
    parallel.check_layout(model, device, layout)
    cap = memory_cap(model, device, layout, wl)
    if cap < layout.dp:
        where = "one device" if layout.is_single else f"{layout.name} ({layout.devices} devices)"
        raise InputError(f"--tp/--pp/--ep/--dp: {model.name} with one request of I + O = "
                         f"{wl.input_tokens + wl.output_tokens} tokens does not fit {where} of the {device.name} "
                         f"(weights, KV cache, activations and the runtime reserve); try more devices")
    return cap


def serve_point(model: Model, device: Device, layout: Layout, workload: Workload) -> ServicePoint:
    """The service at the workload's concurrency on one layout.

    >>> p = serve_point(get_model("llama-3.1-8b"), get_device("h100-sxm5"), Layout(), Workload(1024, 256, 1))
    >>> p.bound, p.ttft_s == p.prefill_s  # one request, one chunk: its first token after its own prefill
    ('bandwidth', True)
    """
    if workload.concurrency is None:
        raise InputError("--concurrency: serve_point needs the requests in flight; offline_max sweeps them")
    if workload.concurrency < layout.dp:
        raise InputError(f"--concurrency {workload.concurrency} is below --dp {layout.dp}: each replica needs at least "
                         "one request in flight; give more requests or fewer replicas")
    cap = _require_fit(model, device, layout, workload)
    return _points(model, device, layout, workload, [workload.concurrency], cap)[0]


def concurrency_grid(top: int) -> np.ndarray:
    """1, 2, 3, 4, 6, 8, 12, 16, … (powers of two and halfway above them) up to `top`, and `top`.

    >>> concurrency_grid(20).tolist()
    [1, 2, 3, 4, 6, 8, 12, 16, 20]
    """
    top = int(top)
    vals = {1, top}
    p = 1
    while p <= top:
        vals.update(v for v in (p, p + p // 2) if v <= top)
        p *= 2
    return np.array(sorted(vals), dtype=np.int64)


def _dense_grid(top: int) -> np.ndarray:
    """Every concurrency 1…top (up to 65,536 of them), else a geometric grid of as many plus `top`."""
    if top <= 65536:
        return np.arange(1, top + 1)
    return np.unique(np.concatenate([np.geomspace(1, top, 65536).astype(np.int64), [top]]))


def _best_concurrency(model: Model, device: Device, layout: Layout, wl: Workload, cap: int) -> tuple[int, float]:
    """(client concurrency, output tokens/s) of the most output tokens/s over 1 … min(cap, the reader's cap):
    a coarse geometric grid, then every concurrency (or 257 of them) between the best one's neighbours."""
    top = min(cap, wl.max_concurrency or cap)
    grid = np.unique(np.concatenate([concurrency_grid(top), np.geomspace(1, top, 256).astype(np.int64)]))
    tps = _rates(model, device, layout, wl, grid, cap)
    i = int(np.argmax(tps))
    lo, hi = int(grid[max(i - 1, 0)]), int(grid[min(i + 1, len(grid) - 1)])
    fine = np.unique(np.linspace(lo, hi, min(hi - lo + 1, 257)).astype(np.int64))
    tps_fine = _rates(model, device, layout, wl, fine, cap)
    j = int(np.argmax(tps_fine))
    return (int(fine[j]), float(tps_fine[j])) if tps_fine[j] >= tps[i] else (int(grid[i]), float(tps[i]))


def offline_max(model: Model, device: Device, layout: Layout, workload: Workload) -> ServicePoint:
    """The largest output tokens/s over client concurrency 1 … min(memory cap, the reader's cap):
    what engines' "max throughput" benchmarks report. Its `bound` is the point's, as everywhere (`_binding`):
    where the maximum sits at the memory cap, memory binds if room for more requests raises it."""
    cap = _require_fit(model, device, layout, workload)
    best, _ = _best_concurrency(model, device, layout, workload, cap)
    return _points(model, device, layout, workload, [best], cap)[0]


def frontier(model: Model, device: Device, workload: Workload, max_devices: int | None = None,
             layouts: list[Layout] | None = None) -> list[ServicePoint]:
    """Service points over every layout that fits within one scale-up domain (or `max_devices`; or only
    `layouts`, where the reader named them) and client concurrency on `concurrency_grid` up to each layout's memory cap (and the reader's cap).

    >>> pts = frontier(get_model("llama-3.1-8b"), get_device("h100-sxm5"), Workload(1024, 256), 2)
    >>> sorted({p.layout_name for p in pts})
    ['1 device', 'DP2', 'PP2', 'TP2']
    """
    if max_devices is not None:
        _whole("--devices", max_devices, 1, parallel.MAX_DEGREE)
    out: list[ServicePoint] = []
    search = parallel.candidate_layouts(model, device, max_devices) if layouts is None else list(layouts)
    for lay in search:
        parallel.check_layout(model, device, lay)
        cap = memory_cap(model, device, lay, workload)
        if cap < lay.dp:
            continue
        top = min(cap, workload.max_concurrency or cap)
        grid = concurrency_grid(top)
        grid = grid[grid >= lay.dp]
        out += _points(model, device, lay, workload, grid, cap)
    if not out and layouts is not None:
        raise InputError(f"--tp/--pp/--ep/--dp/--devices: {model.name} with one request of I + O = "
                         f"{workload.input_tokens + workload.output_tokens} tokens fits none of the layouts asked "
                         f"({', '.join(x.name for x in search)}) on the {device.name}; try more devices")
    if not out:
        domain = max_devices or (device.interconnect.domain_devices if device.interconnect else 1)
        raise InputError(f"no layout within {domain} {device.name}s holds {model.name} with one request of "
                         f"I + O = {workload.input_tokens + workload.output_tokens} tokens")
    return out


def pareto(points: list[ServicePoint]) -> list[ServicePoint]:
    """The envelope: points no other point beats on both output tokens/s per device and tokens/s
    per user, ordered by tokens/s per user (rising; throughput per device falls along it)."""
    ordered = sorted(points, key=lambda p: (-p.output_tokens_per_s_per_user, -p.output_tokens_per_s_per_device))
    out, best = [], -math.inf
    for p in ordered:
        if p.output_tokens_per_s_per_device > best:
            out.append(p)
            best = p.output_tokens_per_s_per_device
    return out[::-1]


def _ms(s: float) -> str:
    from roofline import format as fmt

    return fmt.seconds(s)


def best_under_targets(points: list[ServicePoint], ttft_s: float | None = None, tpot_s: float | None = None,
                       min_tokens_per_s_per_user: float | None = None, ttft_percentile: str = DEFAULT_PERCENTILE,
                       tpot_percentile: str = DEFAULT_PERCENTILE) -> ServicePoint | str:
    """The point with the most output tokens/s per device whose TTFT and TPOT at their percentiles (p99
    unless told: MLPerf Server's statistic) and tokens/s per user meet the targets; or one sentence saying
    which target nothing reaches, the closest any point gets, and whether the mean would have met it."""
    if not points:
        raise InputError("best_under_targets needs at least one service point")
    ttft_percentile = check_percentile("--ttft-percentile", ttft_percentile)
    tpot_percentile = check_percentile("--tpot-percentile", tpot_percentile)
    checks = []
    for name, option, target, pct, at in (("TTFT", "--ttft-ms", ttft_s, ttft_percentile, ServicePoint.ttft_at),
                                          ("TPOT", "--tpot-ms", tpot_s, tpot_percentile, ServicePoint.tpot_at)):
        if target is None:
            continue
        target = _positive(option, target, 1e6)
        get = (lambda pct_, at_: lambda p: at_(p, pct_))(pct, at)
        mean = (lambda at_: lambda p: at_(p, "mean"))(at)
        words = "" if pct == "mean" else f" at {pct}"
        closest = min(get(p) for p in points)
        on_mean = [p for p in points if mean(p) <= target] if pct != "mean" else []
        mean_words = ("" if not on_mean else
                      f"; the mean {name} meets it ({_ms(min(mean(p) for p in on_mean))} at best), but the target "
                      f"is judged at {pct}")
        checks.append((name, (lambda g, t: lambda p: g(p) <= t)(get, target), f"a {name} of {_ms(target)}{words}",
                       f"the shortest {name}{words} is {_ms(closest)}{mean_words}"))
    if min_tokens_per_s_per_user is not None:
        u = _positive("--min-tokens-per-s-per-user", min_tokens_per_s_per_user, 1e9)
        checks.append(("per-user", lambda p: p.output_tokens_per_s_per_user >= u, f"{u:.4g} tokens/s per user",
                       f"the most is {max(p.output_tokens_per_s_per_user for p in points):.4g}"))
    ok = [p for p in points if all(test(p) for _, test, *_ in checks)]
    if ok:
        return max(ok, key=lambda p: (p.output_tokens_per_s_per_device, -p.devices))
    p0 = points[0]
    devices = max(p.devices for p in points)
    where = (f"{p0.model_name or p0.model} on the {p0.device_name or p0.device} at any layout within {devices} device{'s' if devices > 1 else ''} "
             f"and any concurrency (I {p0.workload.input_tokens}, O {p0.workload.output_tokens})")
    for name, test, target, says in checks:
        if not any(test(p) for p in points):
            return f"nothing meets {target}: {says} for {where}"
    wanted = " and ".join(target for _, _, target, _ in checks)
    return f"no single point meets {wanted} together for {where}, though each is met alone"


# -------------------------------------------------------------------- disaggregation -------
@dataclass(frozen=True)
class DisaggregatedPoint(_Rates):
    """Prefill and decode on separate pools, in balance: the decode pool's layout and concurrency,
    the prefill pool's layout, and how many prefill devices each decode device needs.

    Throughput per device counts both pools. TTFT has the co-located definition at one request with no
    contention: the steps carrying the prompt's chunks with nothing else in them (`prompt_alone_s`), on the
    prefill pool's layout, plus one send of its KV cache over the link (`kv_send_s`), or over the scale-out
    network where the pools sit on separate nodes (`kv_network_send_s`); a queue at the prefill pool is not
    modelled. TPOT is a decode-only step.
    """

    model: str
    device: str
    workload: Workload
    prefill_layout: Layout
    decode_layout: Layout
    concurrency: int                   # requests decoding in the decode pool
    prefill_devices_per_decode_device: float
    ttft_s: float
    tpot_s: float
    output_tokens_per_s: float         # the decode pool's, all of it
    kv_transfer_s: float
    bound: str                         # the decode pool's limit, as ServicePoint.bound
    prefill_nodes: int | None = None   # pools on separate nodes: the prefill pool's nodes (None: one domain)
    kv_over_network: bool = False      # the KV send crosses the scale-out network (else the scale-up link)

    @property
    def prefill_instances_per_decode_instance(self) -> float:
        """Prefill pools (each one `prefill_layout`) per decode pool (one `decode_layout`) in balance."""
        return self.prefill_devices_per_decode_device * self.decode_layout.devices / self.prefill_layout.devices

    @property
    def devices(self) -> float:
        """Devices per decode replica set, both pools: decode devices × (1 + the ratio)."""
        return self.decode_layout.devices * (1 + self.prefill_devices_per_decode_device)

    @property
    def layout_name(self) -> str:
        return f"prefill {self.prefill_layout.name} : decode {self.decode_layout.name}"


def _prefill_pool(model: Model, device: Device, wl: Workload, search: list[Layout]):
    """The prefill layout that prefills the most requests a second per device, running full chunks
    (K prompt tokens a step, no decode tokens): (layout, requests/s per device, step time)."""
    best = None
    I, K, n = wl.input_tokens, wl.chunk_tokens, wl.computed_tokens
    lam = K / n
    reads, pairs = _prompt_sums(model, wl)
    for lay in search:
        if lay.dp > 1 or memory_cap(model, device, lay, wl) < 1:
            continue  # replicas of a prefill pool are the same layout again
        work = kernels.MixedWork(decode_tokens=0.0, decode_positions=0.0, prefill_tokens=lam * n,
                                 prefill_positions=lam * reads, prefill_pairs=lam * pairs, head_tokens=lam,
                                 requests=max(lam * wl.prefill_steps, 1.0),
                                 kv_positions=lam * float(kernels.layer_positions(model, I)))
        t = float(parallel.mixed(model, device, work, wl.formats, wl.attention, lay, wl.collective_latency).time_s)
        rate = lam / t / lay.devices
        if best is None or rate > best[1]:
            best = (lay, rate, t)
    return best


def prefill_pool_layouts(model: Model, device: Device, nodes) -> list[Layout]:
    """The layouts a prefill pool on `nodes` machines of its own may run: over all their devices
    (`parallel.candidate_layouts` with `nodes`), or any layout within one node."""
    n = parallel.node_devices(device, nodes, "--prefill-nodes")
    if device.network is None:
        raise InputError(f"--prefill-nodes {nodes}: {device.network_note}, so the pools cannot sit on separate nodes")
    return parallel.candidate_layouts(model, device, nodes=nodes) if nodes > 1 else \
        parallel.candidate_layouts(model, device, max_devices=n)


def disaggregated(model: Model, device: Device, workload: Workload, max_devices: int | None = None,
                  layouts: list[Layout] | None = None, prefill_nodes: int | None = None) -> list[DisaggregatedPoint]:
    """Disaggregated serving's points: every decode layout × concurrency (as `frontier`), each with
    the prefill pool that balances it (prefill devices per decode device = the decode pool's requests
    a second per device ÷ the best prefill layout's). The KV cache of each prompt crosses the link once.
    `layouts`, where the reader named them, are the layouts both pools are drawn from. With
    `prefill_nodes`, the prefill pool sits on that many nodes of its own (`prefill_pool_layouts`), the decode
    pool on the layouts given, and each prompt's KV cache crosses the scale-out network instead (`kv_send_s`).

    >>> pts = disaggregated(get_model("llama-3.1-8b"), get_device("h100-sxm5"), Workload(1024, 256), 1)
    >>> 0 < pts[0].prefill_devices_per_decode_device < 1
    True
    """
    wl = workload
    search = parallel.candidate_layouts(model, device, max_devices) if layouts is None else list(layouts)
    if prefill_nodes is None:
        pool = _prefill_pool(model, device, wl, search)
    else:
        pool = _prefill_pool(model, device, wl, prefill_pool_layouts(model, device, prefill_nodes))
        if pool is None:
            raise InputError(f"--prefill-nodes {prefill_nodes}: no layout over {prefill_nodes} node"
                             f"{'s' if prefill_nodes > 1 else ''} of {device.name}s holds a prefill pool (one "
                             f"{wl.input_tokens}-token prompt of {model.name}, one replica); give another node count")
    if pool is None:
        raise InputError(f"--disaggregated: no layout{' asked' if layouts is not None else ''} holds a prefill pool "
                         f"(one {wl.input_tokens}-token prompt of {model.name}, one replica) on the {device.name}; "
                         "give a layout without --dp that holds one request, or more devices")
    p_lay, p_rate, p_step = pool
    alone, link_send = prompt_alone_s(model, device, p_lay, wl), kv_send_s(model, device, wl)
    net_send = None if prefill_nodes is None else kv_network_send_s(model, device, wl, p_lay)

    def send_for(lay: Layout) -> tuple[float, bool]:
        """(the KV send, whether it crosses the network) to a decode pool on `lay`: pools on nodes of their own
        cross the network unless a rack-scale domain (larger than a node) holds both, whose link carries it."""
        if net_send is None:
            return link_send, False
        ic = device.interconnect
        if ic.domain_devices > device.network.node_devices and p_lay.devices + lay.devices <= ic.domain_devices:
            return link_send, False
        return net_send, True
    positions = float(kernels.layer_positions(model, wl.input_tokens + wl.output_tokens / 2))
    kv_pos = float(kernels.layer_positions(model, wl.input_tokens + wl.output_tokens))

    def decode_rate(dev: Device, lay: Layout, s: np.ndarray, lat) -> tuple[np.ndarray, np.ndarray]:
        """(decode step time, output tokens/s) of the decode pool holding s requests a replica."""
        v = wl.verify_tokens   # positions each request verifies a pass (1 in plain decoding)
        work = kernels.MixedWork(decode_tokens=s * v, decode_positions=s * v * positions, prefill_tokens=0 * s,
                                 prefill_positions=0 * s, prefill_pairs=0 * s, head_tokens=s * v, requests=s,
                                 kv_positions=s * kv_pos)
        t = np.atleast_1d(np.asarray(parallel.mixed(model, dev, work, wl.formats, wl.attention, lay, lat).time_s, float))
        t = t * (1.0 + wl.draft_share(model))
        return t / wl.tokens_per_pass, lay.dp * (s / wl.decode_steps) / t * wl.output_tokens

    out: list[DisaggregatedPoint] = []
    for lay in search:
        cap = memory_cap(model, device, lay, wl)
        if cap < lay.dp:
            continue
        grid = concurrency_grid(min(cap, wl.max_concurrency or cap)).astype(float)
        grid = grid[grid >= lay.dp]
        s = grid / lay.dp
        t, tps = decode_rate(device, lay, s, wl.collective_latency)
        req_per_s = tps / wl.output_tokens
        ratio = req_per_s / lay.devices / p_rate
        # the decode pool's limit, as a co-located point's: the device limit whose relaxation raises it most
        gains = {k: decode_rate(d, lay, s, w.collective_latency)[1] / tps - 1.0
                 for k, (d, w, _) in _relaxations(device, lay, wl, cap).items()
                 if k not in ("memory", "cap", "chunk")}
        bound, also = _binding(gains)
        send, crosses = send_for(lay)
        for i in range(len(s)):
            out.append(DisaggregatedPoint(model.id, device.id, wl, p_lay, lay, int(grid[i]), float(ratio[i]),
                                          alone + send, float(t[i]), float(tps[i]), float(send), str(bound[i]),
                                          prefill_nodes, crosses))
    return out


def kv_send_s(model: Model, device: Device, wl: Workload) -> float:
    """One prompt's KV cache (I tokens at the KV format) sent once from the prefill pool to the decode pool over
    the scale-up link, a point-to-point send at the workload's collective latency (0 where the device has no link)."""
    kv_bytes = wl.input_tokens * model.kv_elements_per_token() * wl.formats.kv_bytes
    ic = device.interconnect
    return float(parallel.collective("send", kv_bytes, 2, ic, device.peak_flop_per_s(),
                                     latency=wl.collective_latency).time_s) if ic is not None else 0.0


def kv_network_send_s(model: Model, device: Device, wl: Workload, prefill_layout: Layout) -> float:
    """One prompt's KV cache (I tokens at the KV format) sent from a prefill pool on nodes of its own to the
    decode pool over the scale-out network: the bytes one prefill device holds of it (`parallel.kv_transfer`
    with the layout) through its NIC at the network's bandwidth each way, plus its latency floor (or the
    latency set). Replicas the decode pool keeps of that cache fan out over its scale-up link, not counted."""
    return float(parallel.kv_transfer(model, device, wl.input_tokens, wl.formats.kv, parallel.NETWORK,
                                      wl.collective_latency, prefill_layout).time_s)


def prompt_alone_s(model: Model, device: Device, layout: Layout, wl: Workload) -> float:
    """The steps carrying one prompt's chunks with nothing else in the engine: the TTFT of one request with
    no contention, the same definition co-located and on a disaggregated prefill pool."""
    one = np.ones(1)
    return float(_step_mix(model, device, layout, wl, one, one, _prefill_s(model, device, layout, wl)).own_prefill_s[0])


# ----------------------------------------------------------------------- assumptions -------
def expected_defaults_words(wl: Workload) -> dict:
    """Whose defaults the expected figure holds its requests under, and whether the reader named the engine."""
    d = expected_defaults(wl)
    key = wl.engine or engines.DEFAULT_SERVE
    why = "--engine" if wl.engine else "no --engine given: the default engine's"
    return {"engine": key, "named": wl.engine is not None, "words": f"{d.words} ({why})",
            "source": d.source, "url": d.url}


def assumptions(workload: Workload) -> dict:
    """Every assumption a serving figure rests on, with its value and source: for JSON and pages."""
    return {
        "chunk_tokens": workload.chunk_tokens,
        "collective_latency": ("floor: the link's fastest published small-message all-reduce per collective (a ceiling)"
                               if workload.collective_latency == parallel.LATENCY_FLOOR else
                               "NCCL ring: a ring's base latency plus one per ring step (expected, not a ceiling)"
                               if workload.collective_latency == parallel.LATENCY_RING else
                               f"set: {workload.collective_latency * 1e6:g} µs per collective"),
        "chunk_default_sources": [{"title": t, "url": u} for t, u in CHUNK_SOURCES],
        "chunk_meaning": "prompt tokens per engine step; the decode tokens of the requests in flight ride beside them",
        "runtime_reserve_bytes": kernels.RUNTIME_RESERVE_BYTES,
        "memory_cap": f"{workload.caps_words}, with weights, activations and the reserve",
        "decode_context": "each decoding request attends to its average context over its life, I + O/2 positions",
        "steady_state": "continuous batching in steady state, the requests' starts spread evenly: decode-only steps "
                        "and steps carrying one prompt's chunk; where prompts overlap, every step the average one "
                        "(fractional tokens allowed)",
        "schedule": "each step: every generating request's decode first, then prompt chunks up to the chunk, first "
                    "come first served",
        "schedule_sources": [{"title": t, "url": u} for t, u in SCHEDULE_SOURCES],
        "first_token": "the step carrying a prompt's last chunk emits the first output token; TTFT = the wait for a "
                       "slot + the steps carrying the request's own chunks, never below `roofline prefill` of it",
        "decoding": workload.decoding,
        "prefix_cache": PREFIX_CACHE_WORDS if workload.cache_hit_rate else "no cache hits: every prompt token computed",
        "expected": {
            "what": "the same steps with every kernel at its efficiency from published kernel benchmarks "
                    "(a line in the log of its size per kernel class, clamped outside the measured sizes) plus the "
                    "engine's per-step overhead once per step; an estimate, never fitted to a serving run",
            "engine": expected_engine(workload),
            "engine_defaults": expected_defaults_words(workload),
            "step_overhead_s": efficiency.step_overhead_s(expected_engine(workload)),
            "efficiencies": efficiency.describe(),
            "not_captured": DERATE_MISSES,
        },
        "cost": "price per device-hour × devices ÷ tokens per hour; each of the output and input figures charges "
                "all the devices' time to that stream alone",
    }
