"""From one step to a service: continuous batching with chunked prefill, in steady state.

Requests arrive with I prompt tokens and leave with O output tokens. The engine holds up to
`slots` requests at once: the client's concurrency, capped by memory (the KV cache of every
request at its full I + O tokens, per device under the layout, with the runtime reserve:
`parallel.max_batch_that_fits`) and by the reader's own cap (an engine's max-batch setting).
Each engine step runs, as ONE pass through the per-kernel model (`parallel.mixed`):

* one decode token for every request that is generating, and
* a chunk of at most K prompt tokens (`chunk_tokens`, SGLang's `chunked_prefill_size`; vLLM's
  `max_num_batched_tokens` is the same budget with the decode tokens counted in it).

A request's prompt takes n_p = ⌈I ÷ K⌉ steps; the step that finishes it emits the first output
token, and O − 1 decode steps emit the rest, so a request is n_p + O − 1 steps in the engine.
In steady state (Little's law, in steps) a replica holding s requests finishes
λ = s ÷ (n_p + O − 1) requests per step, unless its prompts need more than K prefill tokens per
step (λ·I > K): then λ = K ÷ I and the chunk is the limit. The average step holds
d = λ(O − 1) decode tokens and p = λ·I prefill tokens. A steady-state average is a fluid
model: the kernels are costed at the average step, so d and p may be fractional. Attention
reads each decoding request's context at its average over the request's life, I + O/2
positions (exact for layers without a window), and each prompt's chunks read the cache
written by the chunks before them.

From the step time t: TPOT = t; TTFT = (n_p + the wait for a slot) × t, where the wait is
what a client concurrency above the slots adds (c ÷ λ − (n_p + O − 1) steps); output tokens/s
= replicas × λ·O ÷ t; per device ÷ devices; per user 1 ÷ TPOT; request latency TTFT + (O − 1)·t.

Everything is a ceiling (datasheet peaks, every kernel at its roofline time). The *expected*
figure reruns the same step on the device derated by the registry's measured efficiencies
(`measured.derated_device`); it is an estimate, never a measurement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from roofline.errors import InputError
from roofline.model import efficiency, kernels, measured, parallel
from roofline.model.formats import Formats
from roofline.model.parallel import Layout
from roofline.registry.hardware import Device
from roofline.registry.models import Model

#: Prompt tokens one engine step takes (the prefill chunk). SGLang defaults `chunked_prefill_size`
#: to 8192 on H100-, H200- and A100-class GPUs; vLLM's `max_num_batched_tokens` (decode tokens
#: counted in it) defaults to 8192 for its OpenAI server on GPUs of 70 GiB or more.
DEFAULT_CHUNK_TOKENS = 8192
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

#: What a serving point's `bound` can say, in the order they are checked.
BOUNDS = ("chunk", "memory", "cap", "compute", "bandwidth", "link-bandwidth", "link-latency")
BOUND_MEANING = {
    "chunk": "the prefill chunk: prompts need more than the chunk's tokens per step",
    "memory": "memory: the KV cache of more requests at I + O tokens does not fit",
    "cap": "the cap on requests in flight",
    "compute": "compute: most of the step's time is in kernels past their ridge point",
    "bandwidth": "memory bandwidth: most of the step's time is in kernels below their ridge point",
    "link-bandwidth": "the link: collectives take half the step or more, most of it moving bytes",
    "link-latency": "the link: collectives take half the step or more, most of it latency",
}
DERATE_MISSES = ("scheduling gaps between steps, kernel launch overhead, sampling, the CPU's share, "
                 "ragged batches and request-length variation")


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
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS
    formats: Formats = field(default_factory=Formats.of)
    attention: str = "fused"
    usd_per_device_hour: float | None = None
    collective_latency: str | float = parallel.LATENCY_FLOOR  # the floor (ceilings), "ring" or seconds each

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen)
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

    @property
    def prefill_steps(self) -> int:
        """Steps one prompt takes: ⌈I ÷ K⌉."""
        return -(-self.input_tokens // self.chunk_tokens)

    @property
    def steps_in_engine(self) -> int:
        """Steps a request spends in the engine: its prefill chunks plus O − 1 decode steps."""
        return self.prefill_steps + self.output_tokens - 1

    @property
    def description(self) -> str:
        """The workload in words, for labels: "I 1024, O 256, weights bf16, activations bf16, KV bf16"."""
        f = self.formats
        return (f"I {self.input_tokens}, O {self.output_tokens}, weights {f.weights.name}, activations "
                f"{f.activation}, KV {f.kv}, {self.attention} attention, chunk {self.chunk_tokens}")


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

    Every figure is a ceiling except `expected_*` (derated by measured efficiencies, an estimate).
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
    usd_per_million_output_tokens: float | None = None
    usd_per_million_input_tokens: float | None = None
    model_name: str = ""
    device_name: str = ""

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
        return BOUND_MEANING[self.bound]


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


def _work(model: Model, wl: Workload, per_replica_slots: np.ndarray):
    """The steady-state average step of one replica holding `per_replica_slots` requests:
    (its MixedWork, requests finished per step λ, whether the chunk limits λ)."""
    I, O, K = wl.input_tokens, wl.output_tokens, wl.chunk_tokens
    steps = wl.steps_in_engine
    lam_free = per_replica_slots / steps
    lam = np.minimum(lam_free, K / I)
    chunk_bound = lam_free >= K / I  # a chunk exactly full binds too: more requests add nothing
    d, p = lam * (O - 1), lam * I
    reads, scored = _chunk_sums(model, I, K)
    pairs = float(kernels.causal_layer_pairs(model, I)) if wl.attention == "fused" else scored
    decode_positions = float(kernels.layer_positions(model, I + O / 2))  # the average context, see the module doc
    running = lam * steps
    work = kernels.MixedWork(decode_tokens=d, decode_positions=d * decode_positions, prefill_tokens=p,
                             prefill_positions=lam * reads, prefill_pairs=lam * pairs, head_tokens=d + lam,
                             requests=running, kv_positions=running * float(kernels.layer_positions(model, I + O)))
    return work, lam, chunk_bound


def memory_cap(model: Model, device: Device, layout: Layout, wl: Workload) -> int:
    """Requests (all replicas) whose KV cache at I + O tokens, weights, activations and the runtime
    reserve fit each device under `layout`: 0 where not even one fits.

    >>> memory_cap(get_model("llama-3.1-70b"), get_device("h100-sxm5"), Layout(), Workload(1024, 256))
    0
    """
    if model.is_bare:
        raise InputError("--model: a bare parameter count has no KV cache, so nothing caps the requests in "
                         "flight; give a registry model or a config.json")
    ctx = wl.input_tokens + wl.output_tokens - 1  # a decode at context L holds L + 1 positions: I + O

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


def _classify(step: parallel.ParallelStep, chunk_bound, slots_short, mem_binds) -> np.ndarray:
    """Which limit binds, per point, in `BOUNDS` order."""
    kernel_t = np.asarray(step.stage.time_s, float)
    coll_t = np.asarray(step.collective_time_s, float)
    link = coll_t * 2 >= kernel_t + coll_t
    latency = sum((c.latency_s for c in step.collectives), 0.0)
    latency_heavy = latency * 2 >= coll_t
    compute = np.asarray(step.stage.compute_bound_time_s, float) * 2 >= kernel_t  # as KernelStep.bound decides
    kernel_bound = np.where(compute, "compute", "bandwidth")
    out = np.where(link, np.where(latency_heavy, "link-latency", "link-bandwidth"), kernel_bound)
    out = np.where(slots_short, np.where(mem_binds, "memory", "cap"), out)
    return np.where(chunk_bound, "chunk", out)


def _points(model: Model, device: Device, layout: Layout, wl: Workload, concurrency, cap: int) -> list[ServicePoint]:
    """Service points at each client concurrency in `concurrency` (an array), one vectorised pass."""
    c = np.atleast_1d(np.asarray(concurrency, float))
    reader_cap = wl.max_concurrency or MAX_CONCURRENCY
    slots = np.minimum(c, min(cap, reader_cap))
    per_replica = slots / layout.dp
    work, lam, chunk_bound = _work(model, wl, per_replica)
    f, a = wl.formats, wl.attention
    lat = wl.collective_latency
    step = parallel.mixed(model, device, work, f, a, layout, lat)
    t = np.atleast_1d(np.asarray(step.time_s, float))
    t_exp = np.atleast_1d(np.asarray(efficiency.expected_time_s(model, device, work, f, a, layout, lat, ceiling=step),
                                     float))
    steps = wl.steps_in_engine
    in_system_steps = (c / layout.dp) / lam          # Little's law: the client's whole wait, in steps
    wait_steps = np.maximum(in_system_steps - steps, 0.0)
    ttft = (wl.prefill_steps + wait_steps) * t
    latency = ttft + (wl.output_tokens - 1) * t
    out_tps = layout.dp * lam * wl.output_tokens / t
    in_tps = layout.dp * lam * wl.input_tokens / t
    exp_tps = layout.dp * lam * wl.output_tokens / t_exp
    bound = np.atleast_1d(_classify(step, chunk_bound, slots < c, cap <= reader_cap))
    running = layout.dp * lam * steps
    price = wl.usd_per_device_hour
    usd_s = None if price is None else price * layout.devices / 3600.0
    out = []
    for i in range(len(c)):
        out.append(ServicePoint(
            model.id, device.id, layout, wl, int(c[i]), float(running[i]), int(cap), float(t[i]), float(ttft[i]),
            float(t[i]), float(out_tps[i]), float(in_tps[i]), float(latency[i]), str(bound[i]), float(exp_tps[i]),
            float(t_exp[i]),
            None if usd_s is None else usd_s / float(out_tps[i]) * 1e6,
            None if usd_s is None else usd_s / float(in_tps[i]) * 1e6, model.name, device.name))
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
    >>> p.bound, p.ttft_s == p.tpot_s  # one prompt chunk: the first token comes one step after arrival
    ('bandwidth', True)
    """
    if workload.concurrency is None:
        raise InputError("--concurrency: serve_point needs the requests in flight; offline_max sweeps them")
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


def offline_max(model: Model, device: Device, layout: Layout, workload: Workload) -> ServicePoint:
    """The largest output tokens/s over client concurrency 1 … min(memory cap, the reader's cap):
    what engines' "max throughput" benchmarks report. Its `bound` says what stops it growing."""
    cap = _require_fit(model, device, layout, workload)
    top = min(cap, workload.max_concurrency or cap)
    grid = _dense_grid(top)
    c = grid.astype(float)
    slots = np.minimum(c, top) / layout.dp
    work, lam, _ = _work(model, workload, slots)
    t = np.atleast_1d(np.asarray(parallel.mixed(model, device, work, workload.formats, workload.attention,
                                                layout, workload.collective_latency).time_s, float))
    tps = lam * workload.output_tokens / t
    best = int(grid[int(np.argmax(tps))])
    point = _points(model, device, layout, workload, [best], cap)[0]
    if best == top and point.bound not in ("chunk",):
        point = replace(point, bound="memory" if top == cap else "cap")
    return point


def frontier(model: Model, device: Device, workload: Workload, max_devices: int | None = None) -> list[ServicePoint]:
    """Service points over every layout that fits within one scale-up domain (or `max_devices`) and
    client concurrency on `concurrency_grid` up to each layout's memory cap (and the reader's cap).

    >>> pts = frontier(get_model("llama-3.1-8b"), get_device("h100-sxm5"), Workload(1024, 256), 2)
    >>> sorted({p.layout_name for p in pts})
    ['1 device', 'DP2', 'PP2', 'TP2']
    """
    if max_devices is not None:
        _whole("--devices", max_devices, 1, parallel.MAX_DEGREE)
    out: list[ServicePoint] = []
    for lay in parallel.candidate_layouts(model, device, max_devices):
        cap = memory_cap(model, device, lay, workload)
        if cap < lay.dp:
            continue
        top = min(cap, workload.max_concurrency or cap)
        grid = concurrency_grid(top)
        grid = grid[grid >= lay.dp]
        out += _points(model, device, lay, workload, grid, cap)
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
                       min_tokens_per_s_per_user: float | None = None) -> ServicePoint | str:
    """The point with the most output tokens/s per device whose TTFT, TPOT and tokens/s per user meet
    the targets; or one sentence saying which target nothing reaches, and the closest any point gets."""
    if not points:
        raise InputError("best_under_targets needs at least one service point")
    checks = []
    if ttft_s is not None:
        ttft_s = _positive("--ttft-ms", ttft_s, 1e6)
        checks.append(("TTFT", lambda p: p.ttft_s <= ttft_s, min(p.ttft_s for p in points), f"a TTFT of {_ms(ttft_s)}",
                       lambda v: f"the shortest is {_ms(v)}"))
    if tpot_s is not None:
        tpot_s = _positive("--tpot-ms", tpot_s, 1e6)
        checks.append(("TPOT", lambda p: p.tpot_s <= tpot_s, min(p.tpot_s for p in points), f"a TPOT of {_ms(tpot_s)}",
                       lambda v: f"the shortest is {_ms(v)}"))
    if min_tokens_per_s_per_user is not None:
        u = _positive("--min-tokens-per-s-per-user", min_tokens_per_s_per_user, 1e9)
        checks.append(("per-user", lambda p: p.output_tokens_per_s_per_user >= u,
                       max(p.output_tokens_per_s_per_user for p in points), f"{u:.4g} tokens/s per user",
                       lambda v: f"the most is {v:.4g}"))
    ok = [p for p in points if all(test(p) for _, test, *_ in checks)]
    if ok:
        return max(ok, key=lambda p: (p.output_tokens_per_s_per_device, -p.devices))
    p0 = points[0]
    devices = max(p.devices for p in points)
    where = (f"{p0.model_name or p0.model} on the {p0.device_name or p0.device} at any layout within {devices} device{'s' if devices > 1 else ''} "
             f"and any concurrency (I {p0.workload.input_tokens}, O {p0.workload.output_tokens})")
    for name, test, closest, target, says in checks:
        if not any(test(p) for p in points):
            return f"nothing meets {target}: {says(closest)} for {where}"
    wanted = " and ".join(target for *_, target, _ in checks)
    return f"no single point meets {wanted} together for {where}, though each is met alone"


# -------------------------------------------------------------------- disaggregation -------
@dataclass(frozen=True)
class DisaggregatedPoint(_Rates):
    """Prefill and decode on separate pools, in balance: the decode pool's layout and concurrency,
    the prefill pool's layout, and how many prefill devices each decode device needs.

    Throughput per device counts both pools. TTFT is the prompt's chunks on the prefill pool
    plus one send of its KV cache over the link; TPOT is a decode-only step.
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

    @property
    def devices(self) -> float:
        """Devices per decode replica set, both pools: decode devices × (1 + the ratio)."""
        return self.decode_layout.devices * (1 + self.prefill_devices_per_decode_device)

    @property
    def layout_name(self) -> str:
        return f"prefill {self.prefill_layout.name} : decode {self.decode_layout.name}"


def _prefill_pool(model: Model, device: Device, wl: Workload, max_devices: int | None):
    """The prefill layout that prefills the most requests a second per device, running full chunks
    (K prompt tokens a step, no decode tokens): (layout, requests/s per device, step time)."""
    best = None
    I, K = wl.input_tokens, wl.chunk_tokens
    lam = K / I
    reads, scored = _chunk_sums(model, I, K)
    pairs = float(kernels.causal_layer_pairs(model, I)) if wl.attention == "fused" else scored
    for lay in parallel.candidate_layouts(model, device, max_devices):
        if lay.dp > 1 or memory_cap(model, device, lay, wl) < 1:
            continue  # replicas of a prefill pool are the same layout again
        work = kernels.MixedWork(decode_tokens=0.0, decode_positions=0.0, prefill_tokens=lam * I,
                                 prefill_positions=lam * reads, prefill_pairs=lam * pairs, head_tokens=lam,
                                 requests=max(lam * wl.prefill_steps, 1.0),
                                 kv_positions=lam * float(kernels.layer_positions(model, I)))
        t = float(parallel.mixed(model, device, work, wl.formats, wl.attention, lay, wl.collective_latency).time_s)
        rate = lam / t / lay.devices
        if best is None or rate > best[1]:
            best = (lay, rate, t)
    return best


def disaggregated(model: Model, device: Device, workload: Workload,
                  max_devices: int | None = None) -> list[DisaggregatedPoint]:
    """Disaggregated serving's points: every decode layout × concurrency (as `frontier`), each with
    the prefill pool that balances it (prefill devices per decode device = the decode pool's requests
    a second per device ÷ the best prefill layout's). The KV cache of each prompt crosses the link once.

    >>> pts = disaggregated(get_model("llama-3.1-8b"), get_device("h100-sxm5"), Workload(1024, 256), 1)
    >>> 0 < pts[0].prefill_devices_per_decode_device < 1
    True
    """
    wl = workload
    pool = _prefill_pool(model, device, wl, max_devices)
    if pool is None:
        raise InputError(f"no layout holds a {wl.input_tokens}-token prompt of {model.name} on the {device.name}")
    p_lay, p_rate, p_step = pool
    kv_bytes = wl.input_tokens * model.kv_elements_per_token() * wl.formats.kv_bytes
    ic = device.interconnect
    send = (parallel.collective("send", kv_bytes, 2, ic, device.peak_flop_per_s(),
                                  latency=wl.collective_latency).time_s if ic is not None else 0.0)
    ttft = wl.prefill_steps * p_step + send
    positions = float(kernels.layer_positions(model, wl.input_tokens + wl.output_tokens / 2))
    out: list[DisaggregatedPoint] = []
    for lay in parallel.candidate_layouts(model, device, max_devices):
        cap = memory_cap(model, device, lay, wl)
        if cap < lay.dp:
            continue
        grid = concurrency_grid(min(cap, wl.max_concurrency or cap)).astype(float)
        grid = grid[grid >= lay.dp]
        s = grid / lay.dp
        work = kernels.MixedWork(decode_tokens=s, decode_positions=s * positions, prefill_tokens=0 * s,
                                 prefill_positions=0 * s, prefill_pairs=0 * s, head_tokens=s, requests=s,
                                 kv_positions=s * float(kernels.layer_positions(model, wl.input_tokens + wl.output_tokens)))
        step = parallel.mixed(model, device, work, wl.formats, wl.attention, lay, wl.collective_latency)
        t = np.atleast_1d(np.asarray(step.time_s, float))
        req_per_s = lay.dp * (s / (wl.output_tokens - 1)) / t
        ratio = req_per_s / lay.devices / p_rate
        bound = np.atleast_1d(_classify(step, np.zeros_like(s, bool), np.zeros_like(s, bool), False))
        for i in range(len(s)):
            out.append(DisaggregatedPoint(model.id, device.id, wl, p_lay, lay, int(grid[i]), float(ratio[i]), ttft,
                                          float(t[i]), float(req_per_s[i] * wl.output_tokens), float(send),
                                          str(bound[i])))
    return out


# ----------------------------------------------------------------------- assumptions -------
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
        "memory_cap": "every request's KV cache at its full I + O tokens, with weights, activations and the reserve",
        "decode_context": "each decoding request attends to its average context over its life, I + O/2 positions",
        "steady_state": "continuous batching in steady state: a fluid average step (fractional tokens allowed)",
        "first_token": "the step that finishes a prompt emits the first output token; O − 1 decode steps follow",
        "derates": {
            "bandwidth": {"value": measured.bandwidth_derate(),
                          "what": "median share of spec memory bandwidth in the registry's published bandwidth measurements"},
            "gemm": {"value": measured.gemm_derate(),
                     "what": "median share of the dense peak in the registry's MAMF large-GEMM measurements "
                             "(best shape of a search: generous to real shapes)"},
            "collective": {"value": measured.collective_derate(),
                           "what": "median share of link bandwidth in the registry's NCCL ring bus bandwidths"},
            "not_captured": DERATE_MISSES,
        },
        "cost": "price per device-hour × devices ÷ tokens per hour; each of the output and input figures charges "
                "all the devices' time to that stream alone",
    }
