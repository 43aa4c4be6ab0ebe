// The per-kernel model in the browser: mirrors roofline.model.kernels and roofline.model.formats.
// A decode step or prefill is the row of kernels a serving engine runs; each is one roofline
// point; the step's time is the sum of their times, and max(Σ compute, Σ memory) is the
// perfect-overlap bound. Parity-tested against roofline.calculator_view.kernel_outputs
// (tests/unit/test_calculator_kernels_parity.py). Constants come from registry.json
// (constants.kernels), never typed here.

import { CalcError, expertsTouched, peakFlopPerS, sixteenBitDtype } from "./calc.js";

const SIXTEEN = ["bf16", "fp16"];

// ------------------------------------------------------------------------- formats
/** formats.parse_weight_format: "bf16", "fp8", "int8" (per-channel), "int4-g128", ... */
export function parseWeightFormat(K, text) {
  const t = String(text).trim().toLowerCase();
  if (["fp32", "bf16", "fp16", "fp8"].includes(t)) return { name: t, element: t, group: 0, zeros: false };
  const m = /^(int8|int4)(?:-g(\d+))?$/.exec(t);
  if (!m) throw new CalcError(`unknown weight format '${text}'`);
  let size;
  if (m[2] === undefined) size = m[1] === "int4" ? K.default_group_size : 0;
  else {
    size = Number(m[2]);
    if (size < 1 || (size & (size - 1)) !== 0 || size > 1 << 20) {
      throw new CalcError(`weight format '${text}': the group size must be a positive power of two`);
    }
  }
  return { name: size ? `${m[1]}-g${size}` : m[1], element: m[1], group: size, zeros: true };
}

/** WeightFormat.bytes_per_weight: element bytes plus a scale (and zero point) per group. */
export function bytesPerWeight(K, wf, inFeatures = 0) {
  const e = K.element_bytes[wf.element];
  if (!wf.element.startsWith("int")) return e;
  const group = wf.group || inFeatures;
  if (!group) throw new CalcError(`${wf.name}: per-channel scales need the layer's input size`);
  return e + (K.scale_bytes + (wf.zeros ? e : 0)) / group;
}

/** Formats.of: weights, activations and KV cache set separately; embedding and head stay 16-bit. */
export function formatsOf(K, weights = "bf16", activation = "bf16", kv = "bf16") {
  const w = parseWeightFormat(K, weights);
  if (!K.activation_dtypes.includes(activation)) throw new CalcError(`unknown activation dtype '${activation}'`);
  if (!(kv in K.element_bytes)) throw new CalcError(`unknown KV dtype '${kv}'`);
  let sixteen = SIXTEEN.includes(activation) ? activation : "bf16";
  if (w.element === "fp32") sixteen = "fp32";
  const head = ["bf16", "fp16", "fp32"].includes(w.element) ? w : { name: sixteen, element: sixteen, group: 0, zeros: false };
  return { weights: w, activation, kv, head };
}

/** Formats.matmul_dtype: the peak a weight matmul runs at. */
export function matmulDtype(f, w = null) {
  const el = (w || f.weights).element;
  if (el === f.activation) return f.activation;
  if (el === "fp32" || f.activation === "fp32") return "fp32";
  if (SIXTEEN.includes(el)) return el;
  return SIXTEEN.includes(f.activation) ? f.activation : "bf16";
}

function attentionDtype(f) {
  if (f.kv === f.activation) return f.activation;
  return ["bf16", "fp16", "fp32"].includes(f.activation) ? f.activation : "bf16";
}

// ------------------------------------------------------------------------- checks
function checkSize(K, name, value, minimum = 1) {
  if (typeof value !== "number" || !Number.isFinite(value) || value < minimum || value !== Math.floor(value)) {
    throw new CalcError(`${name} must be a whole number ≥ ${minimum}, got ${value}`);
  }
  if (value > K.max_size) throw new CalcError(`${name} must be at most 1e+09, got ${value}`);
  return value;
}

function check(K, f, attention, device) {
  if (!K.attention_variants.includes(attention)) throw new CalcError(`unknown attention variant '${attention}'`);
  for (const dtype of new Set([matmulDtype(f), attentionDtype(f)])) {
    if (!(dtype in device.dense_peak_flop_per_s) && !SIXTEEN.includes(dtype)) {
      throw new CalcError(`${device.id} has no published ${dtype} peak`);
    }
  }
}

const isBare = (m) => m.n_layers === 0 || m.bare_params > 0;

/** What this mirror of roofline.model.kernels does not cover yet (MLA, shared or narrow experts, dense-first
 *  layers, biases, sinks): refused with a sentence; the package covers them. */
function unmodelled(m) {
  return Boolean(m.kv_lora_rank > 0 || m.n_shared_experts || m.n_dense_layers
    || (m.moe_ffn_size && m.moe_ffn_size !== m.ffn_size) || m.qkv_bias || m.o_bias || m.mlp_bias || m.attention_sinks);
}

/** kernels.layer_positions: Σ over layers of the positions one token attends to (windows cap theirs). */
function layerPositions(m, pos) {
  const nWin = m.sliding_window ? (m.n_window_layers || 0) : 0;
  return (m.n_layers - nWin) * pos + (nWin ? nWin * Math.min(pos, m.sliding_window) : 0);
}

/** kernels._causal_layer_pairs: Σ over layers of Σ_{i=1..n} min(i, window). */
function causalLayerPairs(m, n) {
  const nWin = m.sliding_window ? (m.n_window_layers || 0) : 0;
  let out = (m.n_layers - nWin) * n * (n + 1) / 2;
  if (nWin) {
    const w = m.sliding_window;
    out += nWin * (n <= w ? n * (n + 1) / 2 : w * (w + 1) / 2 + (n - w) * w);
  }
  return out;
}
const isMoe = (m) => m.n_experts > 1;

function vectorPeak(C, device) {
  const peaks = device.dense_peak_flop_per_s;
  if ("fp32" in peaks) return [peaks.fp32, "fp32"];
  const d = sixteenBitDtype(C, device);
  return [peakFlopPerS(C, device, d), d];
}

// ------------------------------------------------------------------------- kernels
/** kernels._kernels for one configuration (scalars): the ops, each a roofline point. */
function kernelOps(C, K, m, device, f, attention, B, n, attendedLayers, pairsLayers, headTokens) {
  const bw = device.memory_bandwidth_bytes_per_s;
  const a = K.element_bytes[f.activation], kvb = K.element_bytes[f.kv];
  const T = B * n;
  const [vecPeak, vecDtype] = vectorPeak(C, device);
  const mmDtype = matmulDtype(f);
  const mmPeak = peakFlopPerS(C, device, mmDtype);
  const headFmt = f.head;
  const headDtype = matmulDtype(f, headFmt);
  const ops = [];
  const point = (name, count, kind, amounts) => {
    let peak = mmPeak, dtype = mmDtype;
    if (kind === "vector") [peak, dtype] = [vecPeak, vecDtype];
    else if (kind) [peak, dtype] = kind;
    const o = { flops: 0, weight: 0, actR: 0, actW: 0, kvR: 0, kvW: 0, ...amounts };
    const bytes = o.weight + o.actR + o.kvR + (o.actW + o.kvW);
    ops.push({ name, count, flops: o.flops, bytes, weight_bytes: o.weight, act: o.actR + o.actW,
               peak, dtype, bandwidth: bw });
  };
  if (isBare(m)) {
    const p = m.bare_params;
    point("weights", 1, null, { flops: 2.0 * p * T, weight: p * bytesPerWeight(K, f.weights, p) });
    return ops;
  }
  const d = m.hidden_size, q = m.n_heads * m.head_dim, kv = m.kv_heads * m.head_dim;
  const L = m.n_layers, ffn = m.ffn_size, mIn = m.gated_ffn ? 2 : 1;
  const wf = f.weights;
  const weights = (params, inFeatures) => params * bytesPerWeight(K, wf, inFeatures);
  const norm = (name, count) => point(name, count, "vector", {
    flops: count * K.norm_flops_per_element * T * d, weight: count * d * K.norm_weight_bytes,
    actR: count * T * d * a, actW: count * T * d * a });
  const add = (name) => point(name, L, "vector", { flops: L * T * d, actR: L * 2 * T * d * a, actW: L * T * d * a });

  point("embedding", 1, "vector", { flops: 0, weight: T * d * bytesPerWeight(K, headFmt, d), actW: T * d * a });
  norm("attn_norm", L);
  const qkvOut = q + 2 * kv;
  point("qkv_proj", L, null, { flops: L * 2.0 * T * d * qkvOut, weight: L * weights(d * qkvOut, d),
                               actR: L * T * d * a, actW: L * T * q * a, kvW: L * T * 2 * kv * kvb });
  const attDtype = attentionDtype(f);
  const att = [peakFlopPerS(C, device, attDtype), attDtype];
  const scores = B * pairsLayers * m.n_heads;
  const dotFlops = 2.0 * m.head_dim * scores;
  const kvReadEach = B * attendedLayers * kv * kvb;
  if (attention === "fused") {
    point("attention", L, att, { flops: 2 * dotFlops + K.softmax_flops_per_score * scores,
                                 actR: L * T * q * a, actW: L * T * q * a, kvR: 2 * kvReadEach });
  } else {
    point("attn_qk", L, att, { flops: dotFlops, actR: L * T * q * a, actW: scores * a, kvR: kvReadEach });
    point("attn_softmax", L, "vector", { flops: K.softmax_flops_per_score * scores, actR: scores * a, actW: scores * a });
    point("attn_pv", L, att, { flops: dotFlops, actR: scores * a, actW: L * T * q * a, kvR: kvReadEach });
  }
  point("o_proj", L, null, { flops: L * 2.0 * T * q * d, weight: L * weights(q * d, q), actR: L * T * q * a, actW: L * T * d * a });
  add("attn_add");
  norm("mlp_norm", L);
  if (isMoe(m)) {
    const touched = expertsTouched(m, T);
    const k = m.experts_per_token, E = m.n_experts;
    point("router", L, [peakFlopPerS(C, device, headDtype), headDtype], {
      flops: L * 2.0 * T * d * E, weight: L * d * E * bytesPerWeight(K, headFmt, d), actR: L * T * d * a, actW: L * T * E * a });
    point("experts_gate_up", L, null, { flops: L * 2.0 * T * k * d * mIn * ffn, weight: L * touched * weights(d * mIn * ffn, d),
                                        actR: L * T * k * d * a, actW: L * T * k * mIn * ffn * a });
    point("mlp_act", L, "vector", { flops: L * K.gated_act_flops_per_element * T * k * ffn,
                                    actR: L * T * k * mIn * ffn * a, actW: L * T * k * ffn * a });
    point("experts_down", L, null, { flops: L * 2.0 * T * k * ffn * d, weight: L * touched * weights(ffn * d, ffn),
                                     actR: L * T * k * ffn * a, actW: L * T * k * d * a });
  } else {
    point(mIn === 2 ? "gate_up_proj" : "up_proj", L, null, { flops: L * 2.0 * T * d * mIn * ffn,
      weight: L * weights(d * mIn * ffn, d), actR: L * T * d * a, actW: L * T * mIn * ffn * a });
    point("mlp_act", L, "vector", { flops: L * K.gated_act_flops_per_element * T * ffn,
                                    actR: L * T * mIn * ffn * a, actW: L * T * ffn * a });
    point("down_proj", L, null, { flops: L * 2.0 * T * ffn * d, weight: L * weights(ffn * d, ffn),
                                  actR: L * T * ffn * a, actW: L * T * d * a });
  }
  add("mlp_add");
  norm("final_norm", 1);
  const H = B * headTokens;
  point("lm_head", 1, [peakFlopPerS(C, device, headDtype), headDtype], {
    flops: 2.0 * H * d * m.vocab_size, weight: m.vocab_size * d * bytesPerWeight(K, headFmt, d),
    actR: H * d * a, actW: H * m.vocab_size * a });
  return ops;
}

/** kernels.weights_resident_bytes: every weight as stored (all experts, group metadata included). */
export function weightsResidentBytes(K, m, f) {
  if (isBare(m)) return m.bare_params * bytesPerWeight(K, f.weights, m.bare_params);
  const d = m.hidden_size, q = m.n_heads * m.head_dim, kv = m.kv_heads * m.head_dim;
  const mIn = m.gated_ffn ? 2 : 1, ffn = m.ffn_size, E = m.n_experts;
  const bw = (x) => bytesPerWeight(K, f.weights, x), bh = bytesPerWeight(K, f.head, d);
  const perLayer = bw(d) * d * (q + 2 * kv) + bw(q) * q * d + E * (bw(d) * d * mIn * ffn + bw(ffn) * ffn * d)
    + (isMoe(m) ? d * E * bh : 0) + 2 * d * K.norm_weight_bytes;
  const table = m.vocab_size * d * bh;
  return m.n_layers * perLayer + table * (m.tied_embeddings ? 1 : 2) + d * K.norm_weight_bytes;
}

function usableMemory(device) {
  return device.usable_memory_bytes || device.memory_capacity_bytes;
}

/** One step (decode or prefill) with its sums, as kernels.KernelStep. */
function step(C, K, m, device, f, attention, phase, batch, length) {
  const B = checkSize(K, "batch", batch);
  let n, attended, pairs, cached;
  const bare = isBare(m);
  if (phase === "decode") {
    checkSize(K, "context", length, 1);
    n = 1;
    attended = bare ? 0 : layerPositions(m, length + 1);
    pairs = attended;
  } else {
    n = checkSize(K, "prompt length", length);
    attended = bare ? 0 : layerPositions(m, n);
    pairs = bare ? 0 : (attention === "fused" ? causalLayerPairs(m, n) : n * attended);
  }
  const ops = kernelOps(C, K, m, device, f, attention, B, n, attended, pairs, 1);
  let timeS = 0, computeS = 0, memoryS = 0, weightBytes = 0, actPeak = 0;
  for (const o of ops) {
    const c = o.flops / o.peak, mem = o.bytes / o.bandwidth;
    o.time_s = Math.max(c, mem);
    o.arithmetic_intensity = o.flops / o.bytes;
    o.ridge_point = o.peak / o.bandwidth;
    o.bound = o.arithmetic_intensity >= o.ridge_point ? C.compute_bound : C.memory_bound;
    timeS += o.time_s; computeS += c; memoryS += mem; weightBytes += o.weight_bytes;
    actPeak = Math.max(actPeak, o.act / o.count);
  }
  const kvPerLayerToken = isBare(m) ? 0 : 2 * m.kv_heads * m.head_dim;
  const kvResident = B * attended * kvPerLayerToken * K.element_bytes[f.kv];
  const residual = B * n * (isBare(m) ? 0 : m.hidden_size) * K.element_bytes[f.activation];
  const memory = weightsResidentBytes(K, m, f) + kvResident + (actPeak + residual) + K.runtime_reserve_bytes;
  return { ops, timeS, overlapS: Math.max(computeS, memoryS), weightBytes, memory,
           fits: memory <= usableMemory(device), ridge: peakFlopPerS(C, device, matmulDtype(f)) / device.memory_bandwidth_bytes_per_s };
}

const WEIGHT_MATMULS = new Set(["qkv_proj", "o_proj", "gate_up_proj", "up_proj", "down_proj", "experts_gate_up",
  "experts_down", "router", "lm_head", "weights"]);

/** kernels._first_true: smallest n in 1..limit with pred(n), pred monotone; null if none. */
function firstTrue(pred, limit) {
  if (!pred(limit)) return null;
  let lo = 0, hi = limit;
  while (hi - lo > 1) {
    const step = (hi - lo) / 65;
    const grid = [...new Set(Array.from({ length: 66 }, (_, i) => Math.trunc(i === 65 ? hi : lo + i * step)))]
      .filter((g) => g > lo && g < hi).sort((x, y) => x - y);
    const first = grid.findIndex(pred);
    const idx = first < 0 ? grid.length : first;
    if (idx > 0) lo = grid[idx - 1];
    if (idx < grid.length) hi = grid[idx];
  }
  return hi;
}

/** kernels.critical_batch: the weight matmuls (weight bytes only) reach the ridge. */
export function criticalBatch(C, K, m, device, f) {
  return firstTrue((b) => {
    const s = step(C, K, m, device, f, "fused", "decode", b, 1);
    let flops = 0, wbytes = 0;
    for (const o of s.ops) if (WEIGHT_MATMULS.has(o.name)) { flops += o.flops; wbytes += o.weight_bytes; }
    return flops / wbytes >= s.ridge;
  }, K.critical_batch_max);
}

/** calculator_view.kernel_outputs: what the calculator shows from the per-kernel model. */
export function kernelOutputs(C, device, m, phase = "decode", batch = 1, length = 1, weightFormat = "bf16",
                              kvDtype = "bf16", activation = "bf16", attention = "fused") {
  const K = C.kernels;
  const f = formatsOf(K, weightFormat, activation, kvDtype);
  check(K, f, attention, device);
  if (!isBare(m) && unmodelled(m)) {
    throw new CalcError(`the per-kernel table does not cover ${m.name} yet (latent attention, shared experts, `
      + "dense first layers, narrow experts, biases or sinks): see its whole-step figures above");
  }
  if (phase !== "decode" && phase !== "prefill") throw new CalcError(`phase must be 'decode' or 'prefill', got '${phase}'`);
  const s = step(C, K, m, device, f, attention, phase, batch, length);
  let maxBatch = null;
  if (!isBare(m)) {
    const ctx = phase === "decode" ? length : 1;
    const one = step(C, K, m, device, f, attention, "decode", 1, ctx).memory;
    const two = step(C, K, m, device, f, attention, "decode", 2, ctx).memory;
    const per = two - one;
    maxBatch = Math.max(Math.floor((usableMemory(device) - (one - per)) / per), 0);
  }
  return {
    ops: s.ops.map((o) => ({ name: o.name, count: o.count, flops: o.flops, bytes: o.bytes,
                             arithmetic_intensity: o.arithmetic_intensity, ridge_point: o.ridge_point,
                             bound: o.bound, time_s: o.time_s })),
    time_s: s.timeS,
    time_perfect_overlap_s: s.overlapS,
    weight_bytes: s.weightBytes,
    memory_required_bytes: s.memory,
    usable_memory_bytes: usableMemory(device),
    fits: s.fits,
    critical_batch: criticalBatch(C, K, m, device, f),
    max_batch_that_fits: maxBatch,
    attention_intensity: isBare(m) ? null
      : (4 * m.head_dim + K.softmax_flops_per_score) * m.n_heads / (2 * m.kv_heads * m.head_dim * K.element_bytes[f.kv]),
  };
}
