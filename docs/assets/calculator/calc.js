// The roofline calculator's arithmetic: a line-by-line mirror of src/roofline/inference.py,
// models.py, hardware.py and roofline.py. Pure (no DOM), so node can import it; the parity
// test (tests/test_calculator_parity.py) holds every output to the package within 1e-9.
// The data (devices, models, bytes per element, limits) comes from calculator/registry.json,
// which the package writes at build time: no constant is declared here.

export class CalcError extends Error {}

const hasOwn = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);

// ---------------------------------------------------------------- dtypes.py / hardware.py
export function bytesPerElement(C, dtype) {
  if (!hasOwn(C.bytes_per_element, dtype)) {
    throw new CalcError(`unknown dtype '${dtype}': expected one of ${C.storage_dtypes.join(", ")}`);
  }
  return C.bytes_per_element[dtype];
}

export function checkStorageDtype(C, dtype, what) {
  if (!C.storage_dtypes.includes(dtype)) {
    throw new CalcError(`unknown ${what} '${dtype}': expected one of ${C.storage_dtypes.join(", ")}`);
  }
  return dtype;
}

/** Device.peak_flop_per_s: dense peak at dtype; bf16 and fp16 stand in for each other. */
export function peakFlopPerS(C, device, dtype) {
  const peaks = device.dense_peak_flop_per_s;
  if (hasOwn(peaks, dtype)) return peaks[dtype];
  if (C.sixteen_bit.includes(dtype)) {
    for (const alt of C.sixteen_bit) if (hasOwn(peaks, alt)) return peaks[alt];
  }
  throw new CalcError(`${device.id} has no published dense ${dtype} peak; it has ${Object.keys(peaks).join(", ")}`);
}

/** Device.sixteen_bit_dtype: the 16-bit format the headline peak is quoted in. */
export function sixteenBitDtype(C, device) {
  return C.sixteen_bit.find((d) => hasOwn(device.dense_peak_flop_per_s, d));
}

/** inference.compute_dtype: fp8 and fp32 where the device has that peak, else 16-bit. */
export function computeDtype(C, device, weightDtype) {
  if ((weightDtype === "fp8" || weightDtype === "fp32") && hasOwn(device.dense_peak_flop_per_s, weightDtype)) {
    return weightDtype;
  }
  return sixteenBitDtype(C, device);
}

// ---------------------------------------------------------------- roofline.py
export function ridgePoint(peak, bandwidth) {
  if (!(peak > 0 && bandwidth > 0)) throw new CalcError("peak FLOP/s and bandwidth must both be positive");
  return peak / bandwidth;
}

export function attainableFlopPerS(intensity, peak, bandwidth) {
  return Math.min(peak, bandwidth * intensity);
}

// ---------------------------------------------------------------- models.py
/** Model.is_bare: a parameter count with no architecture (export.SizedModel included). */
export const isBare = (m) => m.n_layers === 0 || m.bare_params > 0;
const isMoe = (m) => m.n_experts > 1;
const isMla = (m) => (m.kv_lora_rank || 0) > 0;
const nWindowLayers = (m) => m.n_window_layers || 0;
const nFullLayers = (m) => m.n_layers - nWindowLayers(m);
const nDenseLayers = (m) => m.n_dense_layers || 0;
const nMoeLayers = (m) => m.n_layers - nDenseLayers(m);
const expertFfnSize = (m) => m.moe_ffn_size || m.ffn_size;
const sum = (xs) => xs.reduce((acc, x) => acc + x, 0);

/** Model.attention_matmul_shapes: [name, in, out] of each attention projection of one layer. */
export function attentionMatmulShapes(m) {
  const d = m.hidden_size, h = m.n_heads;
  if (isMla(m)) {
    const qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    const q = m.q_lora_rank ? [["q_a_proj", d, m.q_lora_rank], ["q_b_proj", m.q_lora_rank, h * qk]]
      : [["q_proj", d, h * qk]];
    return [...q, ["kv_a_proj", d, m.kv_lora_rank + m.qk_rope_head_dim],
      ["kv_b_proj", m.kv_lora_rank, h * (m.qk_nope_head_dim + m.v_head_dim)], ["o_proj", h * m.v_head_dim, d]];
  }
  const q = h * m.head_dim, kv = m.kv_heads * m.head_dim;
  return [["q_proj", d, q], ["k_proj", d, kv], ["v_proj", d, kv], ["o_proj", q, d]];
}

/** Model.mlp_matmul_shapes: one MLP (or expert) of intermediate size `ffn`. */
export function mlpMatmulShapes(m, ffn) {
  const d = m.hidden_size;
  const gate = m.gated_ffn ? [["gate_proj", d, ffn]] : [];
  return [...gate, ["up_proj", d, ffn], ["down_proj", ffn, d]];
}

function mlpParams(m, ffn) {
  const shapes = mlpMatmulShapes(m, ffn);
  return sum(shapes.map(([, i, o]) => i * o)) + (m.mlp_bias ? sum(shapes.map(([, , o]) => o)) : 0);
}

export function attentionParamsPerLayer(m) {
  const shapes = attentionMatmulShapes(m);
  let params = sum(shapes.map(([, i, o]) => i * o));
  if (m.qkv_bias) params += sum(shapes.filter(([name]) => name !== "o_proj").map(([, , o]) => o));
  if (m.o_bias) params += m.hidden_size;
  if (isMla(m)) params += (m.q_lora_rank || 0) + m.kv_lora_rank;
  if (m.attention_sinks) params += m.n_heads;
  return params;
}

export const expertParams = (m) => mlpParams(m, expertFfnSize(m));
const sharedExpertParams = (m) => (m.n_shared_experts || 0) * expertParams(m);
const denseMlpParams = (m) => mlpParams(m, m.ffn_size);
const routerParamsPerLayer = (m) => (isMoe(m) ? m.hidden_size * m.n_experts + (m.mlp_bias ? m.n_experts : 0) : 0);
const normParamsPerLayer = (m) => 2 * m.hidden_size;
const embeddingParams = (m) => m.vocab_size * m.hidden_size;
const lmHeadParams = (m) => (m.tied_embeddings ? 0 : m.vocab_size * m.hidden_size);

/** Model.params_by_group: every weight by kernel group (zero groups left out). */
export function paramsByGroup(m) {
  if (isBare(m)) return { matmul: m.bare_params };
  const moe = isMoe(m);
  const groups = {
    attention: m.n_layers * attentionParamsPerLayer(m),
    dense_mlp: moe ? nDenseLayers(m) * denseMlpParams(m) : m.n_layers * expertParams(m),
    routed_experts: moe ? nMoeLayers(m) * m.n_experts * expertParams(m) : 0,
    shared_experts: moe ? nMoeLayers(m) * sharedExpertParams(m) : 0,
    router: nMoeLayers(m) * routerParamsPerLayer(m),
    norms: m.n_layers * normParamsPerLayer(m) + m.hidden_size,
    embedding: embeddingParams(m),
    lm_head: lmHeadParams(m),
  };
  return Object.fromEntries(Object.entries(groups).filter(([, v]) => v));
}

export function totalParams(m) {
  if (isBare(m)) return m.bare_params;
  return sum(Object.values(paramsByGroup(m)));
}

export function activeParams(m) {
  if (isBare(m)) return m.bare_params;
  const inactive = nMoeLayers(m) * (m.n_experts - m.experts_per_token) * expertParams(m);
  return totalParams(m) - inactive;
}

/** Model.matmul_params: weights in matrix multiplies per token (output head included). */
export function matmulParams(m, expertsTouched = null) {
  if (isBare(m)) return m.bare_params;
  const k = expertsTouched === null ? m.experts_per_token : expertsTouched;
  const moeLayer = isMoe(m) ? k * expertParams(m) + sharedExpertParams(m) + routerParamsPerLayer(m)
    : k * expertParams(m);
  const dense = isMoe(m) ? nDenseLayers(m) * denseMlpParams(m) : 0;
  return m.n_layers * attentionParamsPerLayer(m) + nMoeLayers(m) * moeLayer + dense + m.vocab_size * m.hidden_size;
}

/** Model.activation_elements_per_token: inputs read plus outputs written by every weight matmul. */
export function activationElementsPerToken(m, expertsTouchedPerToken = null) {
  if (isBare(m)) return 0.0;
  const k = expertsTouchedPerToken === null ? m.experts_per_token : expertsTouchedPerToken;
  const io = (shapes) => sum(shapes.map(([, i, o]) => i + o));
  const attn = io(attentionMatmulShapes(m));
  const expert = io(mlpMatmulShapes(m, expertFfnSize(m)));
  const moe = isMoe(m) ? (k + (m.n_shared_experts || 0)) * expert : k * expert;
  const dense = nDenseLayers(m) * io(mlpMatmulShapes(m, m.ffn_size));
  return m.n_layers * attn + nMoeLayers(m) * moe + dense + (m.hidden_size + m.vocab_size);
}

/** Model.kv_elements_per_token_per_layer: K and V per KV head, or MLA's latent plus rotary key. */
export const kvElementsPerTokenPerLayer = (m) => (isMla(m) ? m.kv_lora_rank + m.qk_rope_head_dim
  : 2 * m.kv_heads * m.head_dim);

export const kvElementsPerToken = (m) => m.n_layers * kvElementsPerTokenPerLayer(m);

/** Model.kv_elements_for_context: windowed layers hold at most the window. */
export function kvElementsForContext(m, contextLen) {
  const windowed = nWindowLayers(m) ? Math.min(contextLen, m.sliding_window) : contextLen;
  return kvElementsPerTokenPerLayer(m) * (nFullLayers(m) * contextLen + nWindowLayers(m) * windowed);
}

const attentionFlopsPerPosition = (m) => (isMla(m)
  ? 2 * m.n_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim) : 4 * m.n_heads * m.head_dim);

export function attentionFlopsPerToken(m, contextLen) {
  const windowed = nWindowLayers(m) ? Math.min(contextLen, m.sliding_window) : contextLen;
  return 1.0 * attentionFlopsPerPosition(m) * (nFullLayers(m) * contextLen + nWindowLayers(m) * windowed);
}

/** Model.prefill_attention_flops: token i attends to i positions, or min(i, window) in a windowed layer. */
export function prefillAttentionFlops(m, promptLen) {
  const t = promptLen, full = t * (t + 1) / 2;
  let capped = full;
  if (nWindowLayers(m)) {
    const w = m.sliding_window;
    capped = t <= w ? full : w * (w + 1) / 2 + (t - w) * w;
  }
  const perPosition = m.n_layers ? attentionFlopsPerToken(m, 1.0) / m.n_layers : 0.0;
  return perPosition * (nFullLayers(m) * full + nWindowLayers(m) * capped);
}

// ---------------------------------------------------------------- inference.py
/** Expected distinct experts per layer that `tokens` routed tokens hit: E·(1 − (1 − k/E)^tokens). */
export function expertsTouched(m, tokens) {
  const e = m.n_experts, k = m.experts_per_token;
  if (e === 1) return 1.0;
  return e * (1.0 - (1.0 - k / e) ** tokens);
}

export function kvBytesPerToken(C, m, kvDtype = "bf16") {
  return kvElementsPerToken(m) * bytesPerElement(C, checkStorageDtype(C, kvDtype, "KV dtype"));
}

export function weightBytesResident(C, m, weightDtype) {
  return totalParams(m) * bytesPerElement(C, weightDtype);
}

/** inference._size: a whole number ≥ 1 (≥ 0 with allowZero), at most max_size. */
export function checkSize(C, name, value, allowZero = false) {
  if (typeof value !== "number" || Number.isNaN(value)) throw new CalcError(`${name} must be a number, got ${value}`);
  const lowOk = allowZero ? value >= 0 : value >= 1;
  if (!Number.isFinite(value) || !lowOk || value !== Math.floor(value)) {
    throw new CalcError(`${name} must be ${allowZero ? "a whole number ≥ 0" : "a whole number ≥ 1"}, got ${value}`);
  }
  if (value > C.max_size) throw new CalcError(`${name} must be at most ${C.max_size}, got ${value}`);
  return value;
}

/** inference._step: FLOPs, bytes and resident memory of one decode step or prefill. */
function step(C, phase, m, device, batch, newTokens, context, weightDtype, kvDtype) {
  checkStorageDtype(C, weightDtype, "weight dtype");
  checkStorageDtype(C, kvDtype, "KV dtype");
  const w = bytesPerElement(C, weightDtype);
  const a = bytesPerElement(C, C.activation_dtype);
  const kvTok = kvBytesPerToken(C, m, kvDtype);
  const tokens = batch * newTokens;
  const touched = expertsTouched(m, tokens);
  const weightBytes = !isBare(m) ? matmulParams(m, touched) * w : m.bare_params * w + 0 * tokens;
  const matmulFlops = 2.0 * matmulParams(m) * tokens;
  const kvB = bytesPerElement(C, kvDtype);
  let attnFlops, kvBytes, cached;
  if (phase === "decode") { // a windowed layer reads (and keeps) at most its window
    attnFlops = batch * attentionFlopsPerToken(m, context + 1);
    kvBytes = batch * kvElementsForContext(m, context + 1) * kvB;
    cached = context + 1;
  } else { // causal prefill: token i attends to i positions; the prompt's KV is written once
    attnFlops = batch * prefillAttentionFlops(m, newTokens);
    kvBytes = batch * newTokens * kvTok;
    cached = newTokens;
  }
  const actBytes = tokens * activationElementsPerToken(m) * a;
  const resident = weightBytesResident(C, m, weightDtype) + batch * kvElementsForContext(m, cached) * kvB;
  const cdt = computeDtype(C, device, weightDtype);
  const flops = matmulFlops + attnFlops;
  const bytes = weightBytes + kvBytes + actBytes;
  const peak = peakFlopPerS(C, device, cdt);
  const bandwidth = device.memory_bandwidth_bytes_per_s;
  const intensity = flops / bytes;
  const ridge = ridgePoint(peak, bandwidth);
  const computeTime = flops / peak;
  const memoryTime = bytes / bandwidth;
  const time = Math.max(computeTime, memoryTime);
  return {
    phase, batch, tokens_per_sequence: newTokens, context_len: context, weight_dtype: weightDtype,
    kv_dtype: kvDtype, compute_dtype: cdt, cached_tokens: cached, experts_touched: touched,
    flops, weight_bytes: weightBytes, kv_bytes: kvBytes, activation_bytes: actBytes, bytes,
    memory_required_bytes: resident, arithmetic_intensity: intensity, peak_flop_per_s: peak,
    bandwidth_bytes_per_s: bandwidth, ridge_point: ridge, compute_time_s: computeTime,
    memory_time_s: memoryTime, time_s: time,
    bound: intensity >= ridge ? C.compute_bound : C.memory_bound,
    attained_flop_per_s: flops / time,
    tokens_per_s_per_sequence: newTokens / time,
    tokens_per_s: batch * newTokens / time,
    fits: resident <= device.memory_capacity_bytes,
  };
}

export function decodeStep(C, m, device, batch = 1, contextLen = 0, weightDtype = "bf16", kvDtype = "bf16") {
  const b = checkSize(C, "batch", batch);
  const ctx = checkSize(C, "context length", contextLen, true);
  return step(C, "decode", m, device, b, 1.0, ctx, weightDtype, kvDtype);
}

export function prefill(C, m, device, promptLen, batch = 1, weightDtype = "bf16", kvDtype = "bf16") {
  const b = checkSize(C, "batch", batch);
  const t = checkSize(C, "prompt length", promptLen);
  return step(C, "prefill", m, device, b, t, 0.0, weightDtype, kvDtype);
}

/** inference.critical_batch: smallest decode batch whose intensity reaches the ridge; null if none. */
export function criticalBatch(C, m, device, contextLen = 0, weightDtype = "bf16", kvDtype = "bf16",
  maxBatch = C.critical_batch_max) {
  const intensity = (b) => decodeStep(C, m, device, b, contextLen, weightDtype, kvDtype).arithmetic_intensity;
  const ridge = decodeStep(C, m, device, 1, contextLen, weightDtype, kvDtype).ridge_point;
  if (intensity(maxBatch) < ridge) return null;
  let lo = 1, hi = maxBatch; // intensity is monotone in batch, so bisect
  if (intensity(lo) >= ridge) return lo;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (intensity(mid) >= ridge) hi = mid; else lo = mid;
  }
  return hi;
}

/** inference.crossover_prompt_len: shortest prompt whose prefill reaches the ridge; null if none. */
export function crossoverPromptLen(C, m, device, batch = 1, weightDtype = "bf16", kvDtype = "bf16",
  maxLen = C.crossover_max_len) {
  checkSize(C, "batch", batch);
  const intensity = (t) => prefill(C, m, device, t, batch, weightDtype, kvDtype).arithmetic_intensity;
  const ridge = prefill(C, m, device, 1, batch, weightDtype, kvDtype).ridge_point;
  if (intensity(maxLen) < ridge) return null;
  let lo = 1, hi = Math.trunc(maxLen);
  if (intensity(lo) >= ridge) return lo;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (intensity(mid) >= ridge) hi = mid; else lo = mid;
  }
  return hi;
}

/** inference.speed_of_light_tokens_per_s: bandwidth ÷ the weight bytes a batch-1 step reads
 *  (every matmul weight, the output head included; one row of the embedding table, so none of it). */
export function speedOfLightTokensPerS(C, m, device, weightDtype = "bf16") {
  return device.memory_bandwidth_bytes_per_s / (matmulParams(m) * bytesPerElement(C, weightDtype));
}

// ---------------------------------------------------------------- export.py
/** export.custom_device: a device from a 16-bit peak, a bandwidth and a capacity (base units). */
export function customDevice(peak, bandwidth, capacity) {
  return {
    id: "custom", name: "custom device", vendor: "", memory_capacity_bytes: capacity,
    memory_bandwidth_bytes_per_s: bandwidth, dense_peak_flop_per_s: { bf16: peak },
  };
}

/** export.custom_model: a parameter count; layers, KV heads and head dim (all or none) add a KV cache. */
export function customModel(params, nLayers = 0, kvHeads = 0, headDim = 0, nHeads = 0) {
  const sized = nLayers > 0;
  return {
    id: "custom", name: "custom model", n_layers: sized ? nLayers : 0, hidden_size: 0,
    n_heads: sized ? (nHeads || kvHeads) : 0, kv_heads: sized ? kvHeads : 0, head_dim: sized ? headDim : 0,
    ffn_size: 0, gated_ffn: false, vocab_size: 0, tied_embeddings: true, n_experts: 1, experts_per_token: 1,
    bare_params: params,
  };
}

/** export.calculate: every output the calculator shows. `length` is context (decode) or prompt (prefill). */
export function calculate(C, device, m, phase = "decode", batch = 1, length = 0, weightDtype = "bf16", kvDtype = "bf16") {
  let s;
  if (phase === "decode") s = decodeStep(C, m, device, batch, length, weightDtype, kvDtype);
  else if (phase === "prefill") s = prefill(C, m, device, length, batch, weightDtype, kvDtype);
  else throw new CalcError(`phase must be 'decode' or 'prefill', got '${phase}'`);
  const kvTok = kvBytesPerToken(C, m, kvDtype);
  return {
    phase,
    compute_dtype: s.compute_dtype,
    peak_flop_per_s: s.peak_flop_per_s,
    bandwidth_bytes_per_s: s.bandwidth_bytes_per_s,
    memory_capacity_bytes: device.memory_capacity_bytes,
    ridge_point: s.ridge_point,
    total_params: totalParams(m),
    active_params: activeParams(m),
    experts_touched: s.experts_touched,
    flops: s.flops,
    weight_bytes: s.weight_bytes,
    kv_bytes: s.kv_bytes,
    activation_bytes: s.activation_bytes,
    bytes: s.bytes,
    arithmetic_intensity: s.arithmetic_intensity,
    bound: s.bound,
    attainable_flop_per_s: attainableFlopPerS(s.arithmetic_intensity, s.peak_flop_per_s, s.bandwidth_bytes_per_s),
    attained_flop_per_s: s.attained_flop_per_s,
    compute_time_s: s.compute_time_s,
    memory_time_s: s.memory_time_s,
    time_s: s.time_s,
    time_to_first_token_s: phase === "prefill" ? s.time_s : null,
    tokens_per_s_per_sequence: s.tokens_per_s_per_sequence,
    tokens_per_s: s.tokens_per_s,
    kv_bytes_per_token: kvTok,
    kv_cache_bytes: s.batch * kvElementsForContext(m, s.cached_tokens) * bytesPerElement(C, kvDtype),
    weights_resident_bytes: weightBytesResident(C, m, weightDtype),
    memory_required_bytes: s.memory_required_bytes,
    fits: s.fits,
    critical_batch: criticalBatch(C, m, device, length, weightDtype, kvDtype),
    crossover_prompt_len: phase === "prefill" ? crossoverPromptLen(C, m, device, batch, weightDtype, kvDtype) : null,
    speed_of_light_tokens_per_s: speedOfLightTokensPerS(C, m, device, weightDtype),
  };
}
