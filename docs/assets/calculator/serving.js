// A service in the browser: mirrors roofline.model.serving (continuous batching with chunked
// prefill in steady state, the frontier over layouts and concurrency, targets, cost) over
// kernels.js, parallel.js and mixed.js. Parity-tested within 1e-9 against roofline.calculator_view.serving
// (tests/unit/calculator_view/test_calculator_serving_parity.py). Constants come from registry.json
// (constants.serving), never typed here.

import { CalcError, kvElementsPerToken } from "./calc.js";
import { bytesPerWeight, causalLayerPairs, check, formatsOf, isBare, layerPositions, usableMemory,
  weightsFor } from "./kernels.js";
import { checkLatency, maxBatchThatFits, parallelStep } from "./parallel.js";
import { checkLayout, ringSteps } from "./many.js";
import { candidateLayouts, layoutWithDp, mixedParallelStep } from "./mixed.js";
import { expectedTime } from "./expected.js";
import * as fmt from "./format.js";

function whole(option, value, low, high) {
  if (typeof value !== "number" || !Number.isFinite(value) || value !== Math.floor(value) || value < low) {
    throw new CalcError(`${option} must be a whole number ≥ ${low}, got ${value}`);
  }
  if (value > high) throw new CalcError(`${option} must be at most ${high.toLocaleString("en-US")}, got ${value}`);
  return value;
}

function positive(option, value, high) {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new CalcError(`${option} must be a positive number, got ${value}`);
  }
  if (value > high) throw new CalcError(`${option} must be at most ${high}, got ${value}`);
  return value;
}

/** A number in [low, high] (the low end left out where `open`), or one sentence naming `option`. */
function inRange(option, value, low, high, open, words) {
  if (typeof value !== "number" || !Number.isFinite(value) || (open ? value <= low : value < low) || value > high) {
    throw new CalcError(`${option} must be a number in ${words}, got ${value}`);
  }
  return value;
}

/** serving.Workload: I, O, the caps (the engine's, where one is named), the chunk, formats (weights over
 *  `weightScope`'s tensors), attention, the reader's price, the collective latency ("floor", "ring" or seconds
 *  per collective), the KV memory held (reserved at I + O or paged) and the decoding (plain or speculative),
 *  checked. */
export function workloadOf(C, K, input, output, { maxConcurrency = null, chunk = null, weightFormat = "bf16",
  activation = "bf16", kvDtype = "bf16", attention = "fused", price = null, latency = "floor", weightScope = "linear",
  speculation = null, draftTokens = null, acceptance = null, draftCost = null, engine = null, kvMemory = "reserve",
  kvBlockTokens = null } = {}) {
  const S = C.serving;
  if (engine !== null && !(engine in S.engines)) throw new CalcError(`--engine must be one of ${Object.keys(S.engines).join(", ")}, got ${engine}`);
  if (!S.kv_memory.includes(kvMemory)) throw new CalcError(`--kv-memory must be one of ${S.kv_memory.join(", ")}, got ${kvMemory}`);
  const eng = engine === null ? null : S.engines[engine];
  if (maxConcurrency === null && eng && eng[1] !== null) maxConcurrency = eng[1];
  const block = whole("--kv-block-tokens", kvBlockTokens !== null ? kvBlockTokens : eng ? eng[2] : 16, 1, 4096);
  const wl = {
    I: whole("--input-tokens", input, 1, S.max_tokens),
    O: output === 1 ? (() => { throw new CalcError("--output-tokens must be a whole number ≥ 2: time per output "
      + "token needs a second token, got 1"); })() : whole("--output-tokens", output, 2, S.max_tokens),
    maxConcurrency: maxConcurrency === null ? null : whole("--max-concurrency", maxConcurrency, 1, S.max_concurrency),
    K: whole("--chunk-tokens", chunk !== null ? chunk : eng ? eng[8] : S.default_chunk_tokens, 1, S.max_tokens),
    price: price === null ? null : positive("--price-per-device-hour", price, S.max_usd_per_device_hour),
    f: formatsOf(K, weightFormat, activation, kvDtype, weightScope),
    attention,
    latency: checkLatency(K, latency),
    engine, kvMemory, block, speculation: null, k: 0, a: 1, cost: 0,
  };
  if (!K.attention_variants.includes(attention)) throw new CalcError(`--attention must be one of fused, unfused`);
  const most = S.max_chunks_per_prompt;
  if (Math.ceil(wl.I / wl.K) > most) {
    throw new CalcError(`--chunk-tokens must be at least ${Math.ceil(wl.I / most).toLocaleString("en-US")} for a prompt `
      + `of ${wl.I.toLocaleString("en-US")} tokens (at most ${most.toLocaleString("en-US")} chunks a prompt), got `
      + `${wl.K.toLocaleString("en-US")}`);
  }
  if (speculation === null) {
    for (const [v, opt] of [[draftTokens, "--draft-tokens"], [acceptance, "--acceptance"], [draftCost, "--draft-cost"]]) {
      if (v !== null) throw new CalcError(`${opt} needs --speculative (mtp, eagle, medusa or draft): plain decoding drafts nothing`);
    }
  } else {
    if (!(speculation in S.speculation)) {
      throw new CalcError(`--speculative must be one of ${Object.keys(S.speculation).join(", ")}, got ${speculation}`);
    }
    const [k0, a0, c0] = S.speculation[speculation];
    wl.speculation = speculation;
    wl.k = whole("--draft-tokens", draftTokens === null ? k0 : draftTokens, 1, S.max_draft_tokens);
    const a = acceptance === null ? a0 : acceptance;
    if (a === null) {
      throw new CalcError("--acceptance is needed with --speculative draft: a separate draft model's acceptance rate "
        + "depends on the pair; give it in (0, 1]");
    }
    wl.a = inRange("--acceptance", a, 0, 1, true, "(0, 1]");
    const c = draftCost === null ? c0 : draftCost;
    if (c === null) {
      throw new CalcError("--draft-cost is needed with --speculative draft: a drafted token's cost as a share of the "
        + "target's step (the draft model's size ÷ the target's, roughly), in [0, 1]");
    }
    wl.cost = c === "layer" ? "layer" : inRange("--draft-cost", c, 0, 1, false, "[0, 1]");
  }
  // Workload.verify_tokens, tokens_per_pass, decode_steps, kv_tokens_per_request
  wl.v = wl.speculation === null ? 1 : wl.k + 1;
  wl.E = wl.speculation === null ? 1 : wl.a === 1 ? wl.k + 1 : (1 - wl.a ** (wl.k + 1)) / (1 - wl.a);
  wl.D = (wl.O - 1) / wl.E;
  wl.kvTokens = kvMemory === "reserve" ? wl.I + wl.O : Math.ceil(wl.I + wl.O / 2 + block / 2);
  return Object.assign(wl, withChunk(wl, wl.K));
}

/** Workload.draft_share: drafting time as a share of the target's step (k × one drafted token's cost; one layer's
 *  share, 1 ÷ the model's layers, for MTP and EAGLE). */
const draftShare = (wl, m) => (wl.speculation === null ? 0 : wl.k * (wl.cost === "layer" ? 1 / m.n_layers : wl.cost));

/** The workload `wl` with a chunk of K prompt tokens: its steps per prompt and in the engine recounted. */
function withChunk(wl, K) {
  const prefillSteps = Math.ceil(wl.I / K);
  return { ...wl, K, prefillSteps, steps: prefillSteps + wl.D };
}

/** serving._chunk_sums: Σ over a prompt's chunks of the positions each reads, and what unfused attention scores. */
function chunkSums(m, I, K) {
  const nWin = m.sliding_window ? (m.n_window_layers || 0) : 0;
  const full = m.n_layers - nWin, window = m.sliding_window || 0;
  const n = Math.ceil(I / K);
  const last = I - (n - 1) * K;
  let ends = full * K * (n - 1) * n / 2;
  if (nWin) {
    const mm = Math.min(n - 1, Math.floor(window / K));
    ends += nWin * (K * mm * (mm + 1) / 2 + (n - 1 - mm) * window);
  }
  const atEnd = layerPositions(m, I);
  return [ends + atEnd, K * ends + last * atEnd];
}

/** serving._work: the steady-state average step of one replica holding `s` requests. */
function work(m, wl, s) {
  const { I, O, K, steps } = wl;
  const lamFree = s / steps;
  const lam = Math.min(lamFree, K / I);
  const d = lam * wl.D * wl.v, p = lam * I; // decoding requests × the positions each verifies
  const [reads, scored] = chunkSums(m, I, K);
  const pairs = wl.attention === "fused" ? causalLayerPairs(m, I) : scored;
  const decodePositions = layerPositions(m, I + O / 2);
  const running = lam * steps;
  return { w: { decode_tokens: d, decode_positions: d * decodePositions, prefill_tokens: p, prefill_positions: lam * reads,
                prefill_pairs: lam * pairs, head_tokens: d + lam, requests: running,
                kv_positions: running * layerPositions(m, I + O) }, lam };
}

// The memory cap depends on the device, model, formats, I + O and layout only: kept between recomputes
// (its search takes dozens of step evaluations per layout, most of a frontier's time).
const capCache = new Map();

/** serving.memory_cap: requests whose KV cache at I + O tokens fits each device under the layout. */
export function memoryCap(C, K, m, device, lay, wl) {
  if (isBare(m)) {
    throw new CalcError("--model: a bare parameter count has no KV cache, so nothing caps the requests in flight; "
      + "give a registry model or a config.json");
  }
  const key = JSON.stringify([device, m, wl.f, wl.attention, wl.kvTokens, lay.name]);
  if (!capCache.has(key)) {
    if (capCache.size > 256) capCache.clear();
    capCache.set(key, capSearch(C, K, m, device, lay, wl));
  }
  return capCache.get(key);
}

/** serving.memory_cap's search: memory is affine in the requests at multiples of g = dp·ep·pp, so two
 *  steps estimate the cap and a bisection inside a window of ±2g around the estimate confirms it (a
 *  few steps where a search from one request takes dozens); where the window misses, the full search. */
function capSearch(C, K, m, device, lay, wl) {
  const ctx = wl.kvTokens - 1; // a decode at context L holds L + 1 positions
  const bpw = (x) => bytesPerWeight(K, weightsFor(wl.f, "experts"), x);
  const at = (b) => parallelStep(C, K, m, device, wl.f, wl.attention, "decode", b, ctx, lay, bpw);
  const g = lay.dp * lay.ep * lay.pp;
  const top = K.max_batch_limit;
  const m1 = at(g).memory, m2 = at(2 * g).memory;
  const slope = (m2 - m1) / g;
  const guess = slope > 0 ? Math.floor((usableMemory(device) - (m1 - slope * g)) / slope) : 0;
  let lo = Math.max(guess - 2 * g, 1), hi = Math.min(guess + 2 * g, top);
  if (hi > lo && at(lo).fits && !at(hi).fits) {
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (at(mid).fits) lo = mid; else hi = mid;
    }
    return lo;
  }
  return maxBatchThatFits(C, K, m, device, wl.f, wl.attention, ctx, lay, bpw);
}

/** serving.engine_requests: requests (all replicas) the expected figure's engine holds at most on `lay`: those
 *  whose KV cache fits its KV share of memory (each replica's share of the memory cap `cap` scaled by its KV
 *  budget ÷ the KV that share holds), within the cap on requests in flight (the reader's, else the engine's), at least one a replica. */
function engineRequests(C, K, m, device, lay, wl, cap) {
  const S = C.serving, e = S.engines[wl.engine || S.default_engine];
  const bpw = (x) => bytesPerWeight(K, weightsFor(wl.f, "experts"), x);
  const per = Math.floor(cap / lay.dp); // each replica's share of the memory cap, whole requests
  const st = parallelStep(C, K, m, device, wl.f, wl.attention, "decode", per * lay.dp, wl.kvTokens - 1, lay, bpw);
  const M = usableMemory(device), W = st.stage.weightsResident, A = st.stage.activationPeak;
  const R = C.kernels.runtime_reserve_bytes, least = e[7].find(([t]) => lay.tp >= t), f = least ? least[1] : e[5];
  const kv = Math.max(e[6] === "device" ? f * M - W - A - R : e[6] === "static" ? f * M - W : f * (M - W - A - R), 0);
  const fit = lay.dp * (per === 0 || st.kvResident === 0 ? per
    : Math.min(per, Math.floor(per * kv / st.kvResident * (1 + 1e-12))));
  const limit = wl.maxConcurrency !== null ? wl.maxConcurrency : e[1] || S.max_concurrency;
  return Math.max(Math.min(fit, limit), lay.dp);
}

/** The step's time on a device whose peaks, memory bandwidth, link bandwidth and collective latencies are
 *  this device's times `x` ({peak, bw, link, lat}): the same kernels and collectives, each re-timed, summed
 *  as parallel.js's finish sums them. Equal to rerunning the step on that device (the relaxed devices of
 *  serving._relaxations), at a fraction of the cost. */
function scaledTime(step, lay, x) {
  let stageS = 0;
  for (const o of step.stage.ops) stageS += Math.max(o.flops / (o.peak * x.peak), o.bytes / (o.bandwidth * x.bw));
  const link = (c) => c.latency_s * x.lat + c.bytes / (c.linkBandwidth * x.link);
  let collS = 0;
  for (const c of step.collectives) collS += link(c);
  const single = !step.collectives.length && lay.pp === 1;
  return (single ? stageS : lay.pp * (stageS + collS)) + (step.sends ? link(step.sends) : 0);
}

/** serving._binding: the binding limit of one point from its gains (each limit relaxed by a quarter: the
 *  rise in output tokens/s), and the others within the margin of it. A limit of the schedule (memory, the
 *  cap, the chunk) binds where its gain reaches the least that counts; else the device's largest. */
function binding(C, gains) {
  const S = C.serving, names = S.bounds.filter((b) => b in gains);
  let sb = null, hb = null;
  for (const b of names) {
    if (S.schedule_limits.includes(b)) { if (sb === null || gains[b] > gains[sb]) sb = b; }
    else if (hb === null || gains[b] > gains[hb]) hb = b;
  }
  const best = sb !== null && gains[sb] >= S.min_gain ? sb : hb, top = gains[best];
  if (!(top >= S.min_gain)) return { bound: "none", also: [] };
  return { bound: best, also: names.filter((b) => b !== best && gains[b] >= S.min_gain
    && Math.abs(gains[b] - top) <= S.bind_margin) };
}

const pct = (x, digits) => (x * 100).toFixed(digits) + "%";

/** serving.bound_words: the binding limit in words with what relaxing it gains, and those binding with it. */
export function boundWords(C, bound, gains, also = []) {
  const S = C.serving, M = S.bound_meaning;
  if (bound === "none" || !(bound in gains)) {
    return M.none + " raises output tokens/s by " + pct(S.min_gain, 0) + " or more: more requests in flight would";
  }
  let out = M[bound] + " raises output tokens/s by " + pct(gains[bound], 1);
  if (also.length) {
    out += "; " + also.map((b) => M[b].split(":")[0] + " (" + pct(gains[b], 1) + ")").join(", ")
      + " within " + pct(S.bind_margin, 0) + " of it bind together";
  }
  return out;
}

/** serving._chunks: each chunk of one prompt as the engine cuts it (tokens, the layer-summed positions its
 *  attention reads, the query-key pairs it scores), chunk i covering positions (i − 1)·K + 1 … min(i·K, I). */
function chunksOf(m, wl) {
  const size = [], reads = [], pairs = [];
  for (let i = 1; i <= wl.prefillSteps; i++) {
    const end = Math.min(i * wl.K, wl.I), start = (i - 1) * wl.K;
    const r = layerPositions(m, end);
    size.push(end - start);
    reads.push(r);
    pairs.push(wl.attention === "fused" ? causalLayerPairs(m, end) - causalLayerPairs(m, start) : (end - start) * r);
  }
  return { size, reads, pairs };
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** StepMix.tpot_quantile_s: the lowest step time whose share of a request's gaps reaches q (a decode-only step
 *  with weight 1 − g, each chunk's step with weight g ÷ ⌈I ÷ K⌉), sorted stably as numpy's argsort. */
function quantile(dec, chunk, g, q) {
  const vals = [dec, ...chunk], w = [1 - g, ...chunk.map(() => g / chunk.length)];
  const order = vals.map((_, i) => i).sort((a, b) => vals[a] - vals[b]);
  let cum = 0;
  for (const i of order) { cum += w[i]; if (cum >= q - 1e-12) return vals[i]; }
  return vals[order[0]]; // numpy's argmax of all-false: the first
}

/** serving._step_mix for one point: the steps a replica holding `s` requests runs (a decode-only step and
 *  one step per chunk of a prompt, or with prompts overlapping the fluid average step), each timed by
 *  `time` (a step's time on the device or its expected time), never below the chunk's share of `prefillS`. */
function stepMix(wl, steps, s, c, lam, timeOf, prefillS) {
  const { I, prefillSteps: nP } = wl;
  const floors = steps.size.map((z) => prefillS * z / I);
  // the draft runs for the decoders: a step with any is longer by the draft's share
  const time = (st) => timeOf(st) * (st.decoders > 0 ? 1 + steps.draft : 1);
  let chunk, dec, meanStep, f, g;
  if (steps.overlap) {
    const tFluid = time(steps.fluid);
    chunk = floors.map((fl) => Math.max(tFluid, fl));
    dec = tFluid; f = 1; g = 1;
    meanStep = mean(chunk);
  } else {
    chunk = steps.chunks.map((st, i) => Math.max(time(st), floors[i]));
    dec = time(steps.dec); f = lam * nP; g = (s - 1) * nP / wl.D;
    meanStep = (1 - f) * dec + f * mean(chunk);
  }
  const wait = Math.max(c / lam - wl.steps, 0);
  const own = chunk.reduce((a, b) => a + b, 0);
  return { chunk, dec, meanStep, f, g, wait, ttft: wait * meanStep + own, tpot: ((1 - g) * dec + g * mean(chunk)) / wl.E };
}

/** The steps one replica holding `s` requests runs under workload `w` (serving._step_mix's three kinds: a
 *  decode-only step and one per chunk of a prompt, or with prompts overlapping the fluid average step). */
function stepsAt(env, w, s) {
  const { m, mps, ctx, full } = env;
  const ch = w === env.wl ? env.ch : chunksOf(m, w), kv = s * full, v = w.v;
  const { w: fluidWork, lam } = work(m, w, s);
  const steps = { size: ch.size, overlap: (s / w.steps) * w.prefillSteps > 1, fluid: null, dec: null, chunks: null, lam,
    draft: draftShare(w, m) };
  if (steps.overlap) {
    // prompts overlapping: every step the fluid average (the only kind timed then)
    steps.fluid = Object.assign(mps(fluidWork), { decoders: fluidWork.decode_tokens });
  } else {
    // each decoding request verifies v positions a pass (v = 1 in plain decoding)
    steps.dec = mps({ decode_tokens: s * v, decode_positions: s * v * ctx, prefill_tokens: 0, prefill_positions: 0,
      prefill_pairs: 0, head_tokens: s * v, requests: s, kv_positions: kv });
    steps.dec.decoders = s;
    const d = (s - 1) * v;
    steps.chunks = ch.size.map((size, i) => Object.assign(mps({ decode_tokens: d, decode_positions: d * ctx,
      prefill_tokens: size, prefill_positions: ch.reads[i], prefill_pairs: ch.pairs[i],
      head_tokens: d + (i === ch.size.length - 1 ? 1 : 0), requests: s, kv_positions: kv }), { decoders: s - 1 }));
  }
  return steps;
}

/** serving._rates for one point: output tokens/s (all replicas) at client concurrency `c` under workload `w`
 *  and memory cap `cap`, each step timed at the device scaled by `x` (scaledTime). */
function rateAt(C, env, w, cap, c, x, built = null) {
  const { lay } = env;
  const s = Math.min(c, Math.min(cap, w.maxConcurrency || C.serving.max_concurrency)) / lay.dp;
  const steps = built || stepsAt(env, w, s);
  const mix = stepMix(w, steps, s, c / lay.dp, steps.lam, (st) => scaledTime(st, lay, x), scaledTime(env.prefill, lay, x));
  return lay.dp * steps.lam * w.O / mix.meanStep;
}

/** serving._point_gains for one point: how much each limit relaxed by a quarter raises its output tokens/s. */
function pointGains(C, env, device, cap, c, s, steps, base) {
  const { wl, lay } = env, S = C.serving, R = S.relax, one = { peak: 1, bw: 1, link: 1, lat: 1 };
  const up = (v) => Math.ceil(v * R);
  const reader = wl.maxConcurrency || S.max_concurrency;
  const again = (x) => rateAt(C, env, wl, cap, c, x, steps) / base - 1; // the same steps, re-timed
  const kUp = up(wl.K);
  const chunkWl = kUp <= S.max_tokens && Math.ceil(wl.I / kUp) <= S.max_chunks_per_prompt ? withChunk(wl, kUp) : wl;
  const g = {
    memory: c >= cap && cap <= reader ? rateAt(C, env, wl, up(cap), Math.max(c, up(cap)), one) / base - 1 : 0,
    chunk: wl.prefillSteps > 1 || s * wl.prefillSteps >= wl.steps ? rateAt(C, env, chunkWl, cap, c, one) / base - 1 : 0,
    compute: again({ ...one, peak: R }),
    bandwidth: again({ ...one, bw: R }),
  };
  if (wl.maxConcurrency !== null) {
    const capWl = { ...wl, maxConcurrency: up(wl.maxConcurrency) };
    g.cap = c >= reader && reader <= cap ? rateAt(C, env, capWl, cap, Math.max(c, capWl.maxConcurrency), one) / base - 1 : 0;
  }
  if (device.interconnect && lay.devices > 1) {
    g["link-bandwidth"] = again({ ...one, link: R });
    g["link-latency"] = again({ ...one, lat: 1 / R });
  }
  return g;
}

/** serving._points: one service point per client concurrency. */
function points(C, K, m, device, lay, wl, concurrencies, cap) {
  const readerCap = wl.maxConcurrency || C.serving.max_concurrency;
  const bpw = (x) => bytesPerWeight(K, weightsFor(wl.f, "experts"), x);
  // each step keeps its work: the expected figure splits its attention by it
  const mps = (w) => Object.assign(mixedParallelStep(C, K, m, device, wl.f, wl.attention, w, lay, bpw, wl.latency), { work: w });
  const expTime = (st) => expectedTime(C, K, m, device, wl.f, wl.attention, st.work, lay, bpw, wl.latency, wl.engine, st);
  const prefill = parallelStep(C, K, m, device, wl.f, wl.attention, "prefill", 1, wl.I, lay, bpw, wl.latency);
  const env = { m, mps, lay, wl, prefill, ch: chunksOf(m, wl), ctx: layerPositions(m, wl.I + wl.O / 2),
    full: layerPositions(m, wl.I + wl.O) };
  const prefillS = prefill.timeS;
  const engineSlots = engineRequests(C, K, m, device, lay, wl, cap);
  return concurrencies.map((c) => {
    const slots = Math.min(c, Math.min(cap, readerCap));
    const s = slots / lay.dp;
    const steps = stepsAt(env, wl, s), lam = steps.lam;
    const mix = stepMix(wl, steps, s, c / lay.dp, lam, (st) => st.timeS, prefillS);
    // the expected figure holds the requests its engine's KV share and cap allow; its steps keep the ceiling's
    // prefill floor: an expected step is never faster than its ceiling
    const expSlots = Math.min(slots, engineSlots), es = expSlots / lay.dp;
    const expSteps = expSlots === slots ? steps : stepsAt(env, wl, es);
    const exp = stepMix(wl, expSteps, es, c / lay.dp, expSteps.lam, expTime, prefillS);
    const t = mix.meanStep;
    const outTps = lay.dp * lam * wl.O / t, inTps = lay.dp * lam * wl.I / t;
    const expTps = lay.dp * expSteps.lam * wl.O / exp.meanStep;
    const usdS = wl.price === null ? null : wl.price * lay.devices / 3600.0;
    const q = (x) => quantile(mix.dec, mix.chunk, mix.g, x) / wl.E;
    const eq = (x) => quantile(exp.dec, exp.chunk, exp.g, x) / wl.E;
    const gains = pointGains(C, env, device, cap, c, s, steps, outTps);
    const { bound, also } = binding(C, gains);
    return {
      layout: lay.name, devices: lay.devices, tp: lay.tp, pp: lay.pp, ep: lay.ep, dp: lay.dp,
      concurrency: c, running: lay.dp * lam * wl.steps, memory_cap: cap,
      limited_by: bound, limited_by_also: also, limited_by_gains: gains, limited_by_meaning: boundWords(C, bound, gains, also),
      step_time_s: t, ttft_s: mix.ttft, tpot_s: mix.tpot, request_latency_s: mix.ttft + (wl.O - 1) * mix.tpot,
      output_tokens_per_s: outTps, output_tokens_per_s_per_device: outTps / lay.devices,
      output_tokens_per_s_per_user: 1.0 / mix.tpot, input_tokens_per_s: inTps,
      expected_output_tokens_per_s: expTps, expected_output_tokens_per_s_per_device: expTps / lay.devices,
      expected_step_time_s: exp.meanStep, expected_requests_in_flight: expSlots,
      expected_ttft_s: exp.ttft, expected_tpot_s: exp.tpot, expected_tpot_p50_s: eq(0.5),
      expected_tpot_p90_s: eq(0.9), expected_tpot_p99_s: eq(0.99),
      expected_request_latency_s: exp.ttft + (wl.O - 1) * exp.tpot,
      usd_per_million_output_tokens: usdS === null ? null : usdS / outTps * 1e6,
      usd_per_million_input_tokens: usdS === null ? null : usdS / inTps * 1e6,
      prefill_s: prefillS, decode_step_s: mix.dec, prompt_step_s: mean(mix.chunk), prompt_step_share: mix.f,
      prompt_gap_share: mix.g, wait_steps: mix.wait, tpot_p50_s: q(0.5), tpot_p90_s: q(0.9), tpot_p99_s: q(0.99),
      ttft_p50_s: mix.ttft, ttft_p90_s: mix.ttft, ttft_p99_s: mix.ttft,
    };
  });
}

/** serving.concurrency_grid: 1, 2, 3, 4, 6, 8, 12, 16, … up to `top`, and `top`. */
export function concurrencyGrid(top) {
  const vals = new Set([1, top]);
  for (let p = 1; p <= top; p *= 2) for (const v of [p, p + Math.floor(p / 2)]) if (v <= top) vals.add(v);
  return [...vals].sort((a, b) => a - b);
}

/** serving.frontier: every layout within one scale-up domain (or `maxDevices`; or only `layouts`, where the reader named
 *  them) × concurrency on the grid up to its caps. */
export function frontier(C, K, m, device, wl, layouts = null, maxDevices = null) {
  if (maxDevices !== null) whole("--devices", maxDevices, 1, K.max_degree);
  check(K, wl.f, wl.attention, device);
  const out = [];
  const search = layouts === null ? candidateLayouts(K, m, device, maxDevices) : layouts;
  for (const lay of search) {
    checkLayout(m, device, lay);
    const cap = memoryCap(C, K, m, device, lay, wl);
    if (cap < lay.dp) continue;
    const top = Math.min(cap, wl.maxConcurrency || cap);
    const grid = concurrencyGrid(top).filter((g) => g >= lay.dp);
    out.push(...points(C, K, m, device, lay, wl, grid, cap));
  }
  if (!out.length && layouts !== null) {
    throw new CalcError(`--tp/--pp/--ep/--dp/--devices: ${m.name} with one request of I + O = ${wl.I + wl.O} tokens `
      + `fits none of the layouts asked (${search.map((x) => x.name).join(", ")}) on the ${device.name}; try more devices`);
  }
  if (!out.length) {
    const domain = maxDevices || (device.interconnect ? device.interconnect.domain_devices : 1);
    throw new CalcError(`no layout within ${domain} ${device.name}s holds ${m.name} with one request of `
      + `I + O = ${wl.I + wl.O} tokens`);
  }
  return out;
}

/** serving.pareto: points no other beats on both tokens/s per device and per user, by tokens/s per user. */
export function pareto(pts) {
  const ordered = [...pts].sort((a, b) => (b.output_tokens_per_s_per_user - a.output_tokens_per_s_per_user)
    || (b.output_tokens_per_s_per_device - a.output_tokens_per_s_per_device));
  const out = [];
  let best = -Infinity;
  for (const p of ordered) {
    if (p.output_tokens_per_s_per_device > best) { out.push(p); best = p.output_tokens_per_s_per_device; }
  }
  return out.reverse();
}

/** ServicePoint.ttft_at / tpot_at: a time at one of the percentiles ("mean" is the mean). */
function checkPercentile(C, option, value) {
  const P = C.serving.percentiles;
  if (!P.includes(value)) throw new CalcError(`${option} must be one of ${P.join(", ")}, got ${value}`);
  return value;
}
const at = (p, name, pct) => (pct === "mean" ? p[`${name}_s`] : p[`${name}_${pct}_s`]);

/** Whether point `p` meets the targets (seconds, null: none) with TTFT and TPOT at their percentiles. */
export function meets(p, ttftS, tpotS, ttftPct, tpotPct) {
  return (ttftS === null || at(p, "ttft", ttftPct) <= ttftS) && (tpotS === null || at(p, "tpot", tpotPct) <= tpotS);
}

/** Python's max(points, key=(tokens/s per device, −devices)): the first of the most output tokens/s per device,
 *  fewer devices on a tie; null for no points. */
export function mostPerDevice(points) {
  let best = null;
  for (const p of points) {
    if (best === null || p.output_tokens_per_s_per_device > best.output_tokens_per_s_per_device
        || (p.output_tokens_per_s_per_device === best.output_tokens_per_s_per_device && p.devices < best.devices)) best = p;
  }
  return best;
}

/** serving.best_under_targets: the most output tokens/s per device meeting every target (TTFT and TPOT at their
 *  percentiles), or one sentence naming the target out of reach, the closest, and whether the mean meets it. */
export function bestUnderTargets(C, pts, m, device, wl, ttftS = null, tpotS = null, ttftPct = null, tpotPct = null) {
  const D = C.serving.default_percentile;
  ttftPct = checkPercentile(C, "--ttft-percentile", ttftPct === null ? D : ttftPct);
  tpotPct = checkPercentile(C, "--tpot-percentile", tpotPct === null ? D : tpotPct);
  const checks = [];
  for (const [name, option, target, pct] of [["TTFT", "--ttft-ms", ttftS, ttftPct], ["TPOT", "--tpot-ms", tpotS, tpotPct]]) {
    if (target === null) continue;
    positive(option, target, 1e6);
    const key = name.toLowerCase(), meanOf = (p) => p[key + "_s"];
    const get = (p) => at(p, key, pct), onMean = pct === "mean" ? [] : pts.filter((p) => meanOf(p) <= target);
    const words = pct === "mean" ? "" : " at " + pct;
    const meanWords = onMean.length ? `; the mean ${name} meets it (${fmt.seconds(Math.min(...onMean.map(meanOf)))} `
      + `at best), but the target is judged at ${pct}` : "";
    checks.push([(p) => get(p) <= target, `a ${name} of ${fmt.seconds(target)}${words}`,
      `the shortest ${name}${words} is ${fmt.seconds(Math.min(...pts.map(get)))}${meanWords}`]);
  }
  const best = mostPerDevice(pts.filter((p) => checks.every(([test]) => test(p))));
  if (best !== null) return best;
  const devices = Math.max(...pts.map((p) => p.devices));
  const where = `${m.name} on the ${device.name} at any layout within ${devices} device${devices > 1 ? "s" : ""} `
    + `and any concurrency (I ${wl.I}, O ${wl.O})`;
  for (const [test, target, says] of checks) if (!pts.some(test)) return `nothing meets ${target}: ${says} for ${where}`;
  return `no single point meets ${checks.map(([, t]) => t).join(" and ")} together for ${where}, though each is met alone`;
}

/** serving.serve_point: the service at `concurrency` requests in flight on one layout. */
export function servePoint(C, K, m, device, lay, wl, concurrency) {
  whole("--concurrency", concurrency, 1, C.serving.max_concurrency);
  if (concurrency < lay.dp) {
    throw new CalcError(`--concurrency ${concurrency} is below --dp ${lay.dp}: each replica needs at least one request in `
      + "flight; give more requests or fewer replicas");
  }
  check(K, wl.f, wl.attention, device);
  checkLayout(m, device, lay);
  const cap = memoryCap(C, K, m, device, lay, wl);
  if (cap < lay.dp) {
    const where = lay.devices === 1 ? "one device" : `${lay.name} (${lay.devices} devices)`;
    throw new CalcError(`--tp/--pp/--ep/--dp: ${m.name} with one request of I + O = ${wl.I + wl.O} tokens does not `
      + `fit ${where} of the ${device.name} (weights, KV cache, activations and the runtime reserve); try more devices`);
  }
  return points(C, K, m, device, lay, wl, [concurrency], cap)[0];
}

/** serving.kv_send_s: one prompt's KV cache sent once from the prefill pool to the decode pool over the link,
 *  a point-to-point send at the workload's collective latency (0 where the device has no link). */
function kvSendS(K, m, device, wl) {
  const ic = device.interconnect;
  if (!ic) return 0;
  const bytes = wl.I * kvElementsPerToken(m) * K.element_bytes[wl.f.kv];
  const lat = !ringSteps("send", 2) ? 0 : wl.latency === "ring" ? ic.latency_base_s + ic.latency_per_step_s
    : wl.latency === "floor" ? ic.latency_floor_s : wl.latency;
  return lat + bytes / ic.bandwidth_bytes_per_s_per_direction;
}

/** serving.disaggregated: prefill and decode on separate pools in balance. The prefill pool is the layout (one
 *  replica) that prefills the most requests a second per device running full chunks; each decode layout ×
 *  concurrency (as the frontier) gets the prefill devices per decode device that balance it. TTFT is the
 *  co-located one of a request alone (serving.prompt_alone_s) on the prefill layout plus one KV send; TPOT a
 *  decode-only step; the decode pool's limit is the device limit whose relaxation raises it most. */
export function disaggregated(C, K, m, device, wl, layouts = null) {
  const search = layouts === null ? candidateLayouts(K, m, device) : layouts;
  const bpw = (x) => bytesPerWeight(K, weightsFor(wl.f, "experts"), x);
  const mpsOn = (lay) => (w) => mixedParallelStep(C, K, m, device, wl.f, wl.attention, w, lay, bpw, wl.latency);
  const { I, O } = wl;
  let pool = null;
  const lam = wl.K / I;
  const [reads, scored] = chunkSums(m, I, wl.K);
  const pairs = wl.attention === "fused" ? causalLayerPairs(m, I) : scored;
  for (const lay of search) {
    if (lay.dp > 1 || memoryCap(C, K, m, device, lay, wl) < 1) continue; // a prefill pool's replicas are the layout again
    const t = mpsOn(lay)({ decode_tokens: 0, decode_positions: 0, prefill_tokens: lam * I, prefill_positions: lam * reads,
      prefill_pairs: lam * pairs, head_tokens: lam, requests: Math.max(lam * wl.prefillSteps, 1),
      kv_positions: lam * layerPositions(m, I) }).timeS;
    const rate = lam / t / lay.devices;
    if (pool === null || rate > pool.rate) pool = { lay, rate };
  }
  if (pool === null) {
    throw new CalcError(`--disaggregated: no layout${layouts === null ? "" : " asked"} holds a prefill pool (one ${I}-token `
      + `prompt of ${m.name}, one replica) on the ${device.name}; give a layout without --dp that holds one request, or more devices`);
  }
  const send = kvSendS(K, m, device, wl);
  const pl = pool.lay;
  const prefill = parallelStep(C, K, m, device, wl.f, wl.attention, "prefill", 1, I, pl, bpw, wl.latency);
  const alone = { m, mps: mpsOn(pl), lay: pl, wl, prefill, ch: chunksOf(m, wl), ctx: layerPositions(m, I + O / 2),
    full: layerPositions(m, I + O) };
  const steps = stepsAt(alone, wl, 1);
  const ttft = stepMix(wl, steps, 1, 1, steps.lam, (st) => st.timeS, prefill.timeS).chunk.reduce((a, b) => a + b, 0) + send;
  const positions = layerPositions(m, I + O / 2), kvPos = layerPositions(m, I + O);
  const R = C.serving.relax, one = { peak: 1, bw: 1, link: 1, lat: 1 };
  const out = [];
  for (const lay of search) {
    const cap = memoryCap(C, K, m, device, lay, wl);
    if (cap < lay.dp) continue;
    for (const c of concurrencyGrid(Math.min(cap, wl.maxConcurrency || cap)).filter((g) => g >= lay.dp)) {
      const s = c / lay.dp;
      const v = wl.v, more = 1 + draftShare(wl, m);
      const step = mpsOn(lay)({ decode_tokens: s * v, decode_positions: s * v * positions, prefill_tokens: 0,
        prefill_positions: 0, prefill_pairs: 0, head_tokens: s * v, requests: s, kv_positions: s * kvPos });
      const rateAt = (x) => lay.dp * (s / wl.D) / (scaledTime(step, lay, x) * more) * O;
      const t = step.timeS * more / wl.E, tps = rateAt(one);
      const gains = { compute: rateAt({ ...one, peak: R }) / tps - 1, bandwidth: rateAt({ ...one, bw: R }) / tps - 1 };
      if (device.interconnect && lay.devices > 1) {
        gains["link-bandwidth"] = rateAt({ ...one, link: R }) / tps - 1;
        gains["link-latency"] = rateAt({ ...one, lat: 1 / R }) / tps - 1;
      }
      const ratio = tps / O / lay.devices / pool.rate, devices = lay.devices * (1 + ratio);
      out.push({ prefill_layout: pl.name, decode_layout: lay.name, decode_devices: lay.devices, concurrency: c,
        prefill_devices_per_decode_device: ratio, devices, limited_by: binding(C, gains).bound, ttft_s: ttft,
        kv_transfer_s: send, tpot_s: t, output_tokens_per_s: tps, output_tokens_per_s_per_device: tps / devices,
        output_tokens_per_s_per_user: 1 / t });
    }
  }
  return out;
}

/** calculator_view.serving: the frontier (every layout within one scale-up domain, or with `layouts` "set"
 *  only the layout `tp`, `pp`, `ep`, `dp`) with its envelope marked, the best point under the targets (TTFT
 *  and TPOT at their percentiles, p99 unless told),
 *  and with `concurrency` the reader's point on that layout. */
export function calculateServing(C, device, m, input, output, opts = {}) {
  const K = C.kernels;
  const wl = workloadOf(C, K, input, output, opts);
  const { tp = 1, pp = 1, ep = 1, dp = 1, layouts = "all" } = opts;
  if (layouts !== "all" && layouts !== "set") throw new CalcError(`layouts must be all or set, got ${layouts}`);
  const lay = layoutWithDp(K, tp, pp, ep, dp);
  const pts = frontier(C, K, m, device, wl, layouts === "set" ? [lay] : null);
  const env = new Set(pareto(pts));
  const { ttftS = null, tpotS = null, ttftPercentile = null, tpotPercentile = null } = opts;
  let best = null, refusal = null;
  if (ttftS !== null || tpotS !== null) {
    const b = bestUnderTargets(C, pts, m, device, wl, ttftS, tpotS, ttftPercentile, tpotPercentile);
    if (typeof b === "string") {
      // One layout searched: the sentence names it, not every layout within its devices.
      refusal = layouts === "set" ? b.replace(/at any layout within \d+ devices?/, `on ${lay.name}`) : b;
    } else best = b;
  }
  let point = null;
  if (opts.concurrency !== undefined && opts.concurrency !== null) {
    point = servePoint(C, K, m, device, lay, wl, opts.concurrency);
  }
  let dis = null;
  if (opts.disaggregated) {
    const d = disaggregated(C, K, m, device, wl, layouts === "set" ? [lay] : null);
    const denv = new Set(pareto(d));
    dis = d.map((p) => ({ ...p, on_envelope: denv.has(p) }));
  }
  return { frontier: pts.map((p) => ({ ...p, on_envelope: env.has(p) })), best, refusal, point, disaggregated: dis };
}
