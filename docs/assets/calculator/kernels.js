// The per-kernel model in the browser: mirrors roofline.model.kernels and roofline.model.formats.
// parallel.js adds layouts over several devices and view.js the calculator's outputs.
// A decode step or prefill is the row of kernels a serving engine runs; each is one roofline
// point; the step's time is the sum of their times, and max(Σ compute, Σ memory) is the
// perfect-overlap bound. Parity-tested against roofline.calculator_view.calculate
// (tests/unit/calculator_view/test_calculator_parity.py). Constants come from registry.json
// (constants.kernels), never typed here.

import { CalcError, attentionMatmulShapes, expertsTouched, kvElementsPerTokenPerLayer, peakFlopPerS, sixteenBitDtype,
  totalParams } from "./calc.js";

const SIXTEEN = ["bf16", "fp16"];

// ------------------------------------------------------------------------- formats
/** formats.parse_weight_format: "bf16", "fp8", "fp8-b128", "int8" (per-channel), "int4-g128", "mxfp4", "nvfp4", ... */
export function parseWeightFormat(K, text) {
  const t = String(text).trim().toLowerCase();
  if (["fp32", "bf16", "fp16", "fp8"].includes(t)) return { name: t, element: t, group: 0, zeros: false, scale: K.scale_bytes };
  // OCP MX v1.0: 32 E2M1 elements share one E8M0 scale, no zero point
  if (t === "mxfp4") return { name: "mxfp4", element: "fp4", group: K.mx_block_size, zeros: false, scale: K.mx_scale_bytes };
  // NVIDIA NVFP4: 16 E2M1 elements share one E4M3 scale (+ one fp32 scale per tensor)
  if (t === "nvfp4") return { name: "nvfp4", element: "fp4", group: K.nvfp4_block_size, zeros: false, scale: K.nvfp4_scale_bytes };
  if (t === "int4-ch" || t === "int8-ch") {
    return { name: t === "int8-ch" ? "int8" : t, element: t.slice(0, 4), group: 0, zeros: true, scale: K.scale_bytes };
  }
  const b = /^fp8-([bg])(\d+)$/.exec(t);
  if (b) {
    const n = Number(b[2]), max = b[1] === "b" ? 4096 : 1 << 24;
    if (!(n >= 1 && n <= max)) throw new CalcError(`weight format '${text}': the block size must be a whole number from 1 to ${max}`);
    return { name: `fp8-${b[1]}${n}`, element: "fp8", group: b[1] === "b" ? n * n : n, zeros: false, scale: K.fp8_block_scale_bytes };
  }
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
  return { name: size ? `${m[1]}-g${size}` : m[1], element: m[1], group: size, zeros: true, scale: K.scale_bytes };
}

/** WeightFormat.bytes_per_weight: element bytes plus a scale (and zero point) per group. */
export function bytesPerWeight(K, wf, inFeatures = 0) {
  const e = K.element_bytes[wf.element];
  if (!wf.element.startsWith("int") && !wf.group) return e;
  const group = wf.group || inFeatures;
  if (!group) throw new CalcError(`${wf.name}: per-channel scales need the layer's input size`);
  return e + (wf.scale + (wf.zeros ? e : 0)) / group;
}

/** WeightFormat.bare_bytes_per_weight: a bare parameter count leaves per-channel scales out (no shapes). */
export function bareBytesPerWeight(K, wf) {
  const perChannel = wf.element.startsWith("int") && !wf.group;
  return perChannel ? K.element_bytes[wf.element] : bytesPerWeight(K, wf);
}

/** Formats.of: weights (over `scope`'s tensors), activations and KV cache set separately; embedding,
 *  router, head and every linear layer outside the scope stay 16-bit. */
export function formatsOf(K, weights = "bf16", activation = "bf16", kv = "bf16", scope = "linear") {
  const w = parseWeightFormat(K, weights);
  if (!K.activation_dtypes.includes(activation)) throw new CalcError(`unknown activation dtype '${activation}'`);
  if (!K.kv_dtypes.includes(kv)) throw new CalcError(`unknown KV dtype '${kv}'`);
  if (!(scope in K.weight_scopes)) throw new CalcError(`unknown weight scope '${scope}'`);
  let sixteen = SIXTEEN.includes(activation) ? activation : "bf16";
  if (w.element === "fp32") sixteen = "fp32";
  const head = ["bf16", "fp16", "fp32"].includes(w.element) ? w
    : { name: sixteen, element: sixteen, group: 0, zeros: false, scale: K.scale_bytes };
  return { weights: w, activation, kv, head, scope, groups: K.weight_scopes[scope] };
}

/** Formats.weights_for: a tensor group's format ("attention", "mlp", "experts", "shared"). */
export function weightsFor(f, group) {
  if (f.groups.includes(group)) return f.weights;
  return ["bf16", "fp16", "fp32"].includes(f.head.element) ? f.head
    : { name: "bf16", element: "bf16", group: 0, zeros: false, scale: f.head.scale };
}

/** formats.checkpoint_format_name: a stored quantization as a weight-format name. */
export function checkpointFormatName(kind, group) {
  if (kind === "mxfp4" || kind === "nvfp4" || (kind === "fp8" && !group)) return kind;
  if (kind === "fp8-block") {
    const side = Math.round(Math.sqrt(group));
    return side * side === group ? `fp8-b${side}` : `fp8-g${group}`;
  }
  if (kind === "int4" || kind === "int8") return group ? `${kind}-g${group}` : (kind === "int4" ? "int4-ch" : "int8");
  throw new CalcError(`unknown checkpoint weight format '${kind}'`);
}

/** formats.choose_weight_format, the one rule: an explicit format (every linear layer unless `scope`
 *  narrows it), else the checkpoint's own over its own tensors, else 16-bit. Returns {format, scope, source}. */
export function chooseWeightFormat(K, m, explicit = null, scope = null) {
  const c = chosenFormat(K, m, explicit, scope);
  if (c.scope === "experts" && !(m.n_experts > 1) && !isBare(m)) {
    throw new CalcError(`weight scope 'experts' selects no tensors: ${m.name} has no routed experts (it is dense)`);
  }
  return c;
}

function chosenFormat(K, m, explicit, scope) {
  const S = K.weight_sources;
  if (scope !== null && !(scope in K.weight_scopes)) throw new CalcError(`unknown weight scope '${scope}'`);
  if (explicit !== null) return { format: parseWeightFormat(K, explicit).name, scope: scope || "linear", source: S.explicit };
  const kind = m.weight_format || "";
  if (kind) {
    const own = m.weight_scope || (kind === "mxfp4" ? "experts" : "linear");
    return { format: checkpointFormatName(kind, m.weight_group_size || 0), scope: scope || own,
             source: m.weight_format_origin === "config" ? S.config : S.registry };
  }
  if (scope !== null) {
    throw new CalcError(`a weight scope narrows a weight format, and none is given: ${m.name} is stored in 16-bit; give a weight format with it`);
  }
  return { format: "bf16", scope: "linear", source: isBare(m) ? S.bare : S.sixteen };
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
export function checkSize(K, name, value, minimum = 1) {
  if (typeof value !== "number" || !Number.isFinite(value) || value < minimum || value !== Math.floor(value)) {
    throw new CalcError(`${name} must be a whole number ≥ ${minimum}, got ${value}`);
  }
  if (value > K.max_size) throw new CalcError(`${name} must be at most 1e+09, got ${value}`);
  return value;
}

export function check(K, f, attention, device) {
  if (!K.attention_variants.includes(attention)) throw new CalcError(`unknown attention variant '${attention}'`);
  for (const dtype of new Set([matmulDtype(f), attentionDtype(f)])) {
    if (!(dtype in device.dense_peak_flop_per_s) && !SIXTEEN.includes(dtype)) {
      throw new CalcError(`The ${device.name || device.id} has no published ${dtype} peak, which ${f.activation.toUpperCase()} `
        + `activations with ${f.weights.name.toUpperCase()} weights need: choose activations it has a peak for.`);
    }
  }
}

export const isBare = (m) => m.n_layers === 0 || m.bare_params > 0;
const isMla = (m) => (m.kv_lora_rank || 0) > 0;
const sum = (xs) => xs.reduce((acc, x) => acc + x, 0);

/** kernels.layer_positions: Σ over layers of the positions one token attends to (windows cap theirs). */
function layerPositions(m, pos) {
  const nWin = m.sliding_window ? (m.n_window_layers || 0) : 0;
  return (m.n_layers - nWin) * pos + (nWin ? nWin * Math.min(pos, m.sliding_window) : 0);
}

/** kernels.causal_layer_pairs: Σ over layers of Σ_{i=1..n} min(i, window). */
function causalLayerPairs(m, n) {
  const nWin = m.sliding_window ? (m.n_window_layers || 0) : 0;
  let out = (m.n_layers - nWin) * n * (n + 1) / 2;
  if (nWin) {
    const w = m.sliding_window;
    out += nWin * (n <= w ? n * (n + 1) / 2 : w * (w + 1) / 2 + (n - w) * w);
  }
  return out;
}
export const isMoe = (m) => m.n_experts > 1;

function vectorPeak(C, device) {
  const peaks = device.dense_peak_flop_per_s;
  if ("fp32" in peaks) return [peaks.fp32, "fp32"];
  const d = sixteenBitDtype(C, device);
  return [peakFlopPerS(C, device, d), d];
}

// ------------------------------------------------------------------------- kernels
/** kernels.attention_dims: [QKᵀ width, P·V width, query width read, output width written];
 *  MLA absorbed at decode, expanded (per-head K and V from the latent) at prefill. */
function attentionDims(m, expanded = false) {
  if (isMla(m) && expanded) {
    const qk = m.qk_nope_head_dim + m.qk_rope_head_dim, pv = m.v_head_dim;
    return [qk, pv, m.n_heads * qk, m.n_heads * pv];
  }
  if (isMla(m)) {
    const qk = m.kv_lora_rank + m.qk_rope_head_dim, pv = m.kv_lora_rank;
    return [qk, pv, m.n_heads * qk, m.n_heads * pv];
  }
  const q = m.n_heads * m.head_dim;
  return [m.head_dim, m.head_dim, q, q];
}

/** kernels._kernels for one configuration (scalars): the ops, each a roofline point. */
export function kernelOps(C, K, m, device, f, attention, B, n, attendedLayers, pairsLayers, headTokens, mlaExpanded = false) {
  const bw = device.memory_bandwidth_bytes_per_s;
  const a = K.element_bytes[f.activation], kvb = K.element_bytes[f.kv];
  const T = B * n;
  const [vecPeak, vecDtype] = vectorPeak(C, device);
  const mmDtype = matmulDtype(f);
  const mmPeak = peakFlopPerS(C, device, mmDtype);
  const headFmt = f.head;
  const headDtype = matmulDtype(f, headFmt);
  const headPeak = [peakFlopPerS(C, device, headDtype), headDtype];
  const ops = [];
  const point = (name, count, kind, amounts) => {
    let peak = mmPeak, dtype = mmDtype;
    if (kind === "vector") [peak, dtype] = [vecPeak, vecDtype];
    else if (kind) [peak, dtype] = kind;
    const o = { flops: 0, weight: 0, actR: 0, actW: 0, kvR: 0, kvW: 0, ...amounts };
    ops.push({ name, count, flops: o.flops, weight_bytes: o.weight, actR: o.actR, actW: o.actW, kvR: o.kvR, kvW: o.kvW,
               peak, dtype, bandwidth: bw });
  };
  if (isBare(m)) {
    const p = m.bare_params;
    point("weights", 1, null, { flops: 2.0 * p * T, weight: p * bareBytesPerWeight(K, f.weights) });
    return ops;
  }
  const d = m.hidden_size, kvW = m.kv_heads * m.head_dim;
  const L = m.n_layers, mIn = m.gated_ffn ? 2 : 1;
  const weights = (params, inFeatures, group) => params * bytesPerWeight(K, weightsFor(f, group), inFeatures);
  // a group's matmuls run at its own format's peak (gpt-oss's bf16 attention beside fp4 experts)
  const mm = (group) => { const dt = matmulDtype(f, weightsFor(f, group)); return [peakFlopPerS(C, device, dt), dt]; };
  const norm = (name, count) => point(name, count, "vector", {
    flops: count * K.norm_flops_per_element * T * d, weight: count * d * K.norm_weight_bytes,
    actR: count * T * d * a, actW: count * T * d * a });
  const add = (name) => point(name, L, "vector", { flops: L * T * d, actR: L * 2 * T * d * a, actW: L * T * d * a });

  point("embedding", 1, "vector", { flops: 0, weight: T * d * bytesPerWeight(K, headFmt, d), actW: T * d * a });
  norm("attn_norm", L);
  const kvPerLayer = kvElementsPerTokenPerLayer(m);
  const shapes = attentionMatmulShapes(m);
  if (isMla(m)) {
    const proj = shapes.filter(([name]) => name !== "o_proj");
    point("qkv_proj", L, mm("attention"), { flops: L * 2.0 * T * sum(proj.map(([, i, o]) => i * o)),
      weight: L * sum(proj.map(([, i, o]) => weights(i * o, i, "attention"))),
      actR: L * T * sum(proj.map(([, i]) => i)) * a, actW: L * T * sum(proj.map(([, , o]) => o)) * a,
      kvW: L * T * kvPerLayer * kvb });
  } else {
    const q = m.n_heads * m.head_dim, qkvOut = q + 2 * kvW;
    point("qkv_proj", L, mm("attention"), { flops: L * 2.0 * T * d * qkvOut, weight: L * weights(d * qkvOut, d, "attention"),
      actR: L * T * d * a, actW: L * T * q * a, kvW: L * T * 2 * kvW * kvb });
  }
  const attDtype = attentionDtype(f);
  const att = [peakFlopPerS(C, device, attDtype), attDtype];
  const scores = B * pairsLayers * m.n_heads;
  const expanded = Boolean(mlaExpanded && isMla(m));
  const [qkDim, pvDim, qIn, qOut] = attentionDims(m, expanded);
  const kvReadQk = B * attendedLayers * (isMla(m) ? kvPerLayer : kvW) * kvb;
  const kvReadPv = isMla(m) ? 0 : B * attendedLayers * kvW * kvb;
  // expanded MLA reads the per-head K and V kv_b_proj wrote (activations), not the cached latent
  const kvK = expanded ? 0 : kvReadQk;
  const kvV = expanded ? 0 : (isMla(m) ? kvReadQk : kvReadPv);
  const expK = expanded ? B * attendedLayers * (m.n_heads * m.qk_nope_head_dim + m.qk_rope_head_dim) * a : 0;
  const expV = expanded ? B * attendedLayers * m.n_heads * m.v_head_dim * a : 0;
  if (attention === "fused") {
    point("attention", L, att, { flops: 2.0 * (qkDim + pvDim) * scores + K.softmax_flops_per_score * scores,
                                 actR: L * T * qIn * a + expK + expV, actW: L * T * qOut * a,
                                 kvR: kvK + (expanded ? 0 : kvReadPv) });
  } else {
    point("attn_qk", L, att, { flops: 2.0 * qkDim * scores, actR: L * T * qIn * a + expK, actW: scores * a, kvR: kvK });
    point("attn_softmax", L, "vector", { flops: K.softmax_flops_per_score * scores, actR: scores * a, actW: scores * a });
    point("attn_pv", L, att, { flops: 2.0 * pvDim * scores, actR: scores * a + expV, actW: L * T * qOut * a, kvR: kvV });
  }
  const [, oIn, oOut] = shapes[shapes.length - 1];
  point("o_proj", L, mm("attention"), { flops: L * 2.0 * T * oIn * oOut, weight: L * weights(oIn * oOut, oIn, "attention"),
                             actR: L * T * oIn * a, actW: L * T * d * a });
  add("attn_add");
  norm("mlp_norm", L);
  // MoE models may keep a dense MLP in some layers and an always-on shared expert beside the routed ones.
  const Lm = isMoe(m) ? L - (m.n_dense_layers || 0) : 0;
  const Ld = L - Lm;
  if (Ld) {
    const ff = m.ffn_size;
    point(mIn === 2 ? "gate_up_proj" : "up_proj", Ld, mm("mlp"), { flops: Ld * 2.0 * T * d * mIn * ff,
      weight: Ld * weights(d * mIn * ff, d, "mlp"), actR: Ld * T * d * a, actW: Ld * T * mIn * ff * a });
    point(Lm ? "dense_act" : "mlp_act", Ld, "vector", { flops: Ld * K.gated_act_flops_per_element * T * ff,
      actR: Ld * T * mIn * ff * a, actW: Ld * T * ff * a });
    point("down_proj", Ld, mm("mlp"), { flops: Ld * 2.0 * T * ff * d, weight: Ld * weights(ff * d, ff, "mlp"),
      actR: Ld * T * ff * a, actW: Ld * T * d * a });
  }
  if (Lm) {
    const ff = m.moe_ffn_size || m.ffn_size;
    const touched = expertsTouched(m, T);
    const k = m.experts_per_token, E = m.n_experts;
    point("router", Lm, headPeak, { flops: Lm * 2.0 * T * d * E, weight: Lm * d * E * bytesPerWeight(K, headFmt, d),
      actR: Lm * T * d * a, actW: Lm * T * E * a });
    point("experts_gate_up", Lm, mm("experts"), { flops: Lm * 2.0 * T * k * d * mIn * ff,
      weight: Lm * touched * weights(d * mIn * ff, d, "experts"),
      actR: Lm * T * k * d * a, actW: Lm * T * k * mIn * ff * a });
    point("mlp_act", Lm, "vector", { flops: Lm * K.gated_act_flops_per_element * T * k * ff,
      actR: Lm * T * k * mIn * ff * a, actW: Lm * T * k * ff * a });
    point("experts_down", Lm, mm("experts"), { flops: Lm * 2.0 * T * k * ff * d, weight: Lm * touched * weights(ff * d, ff, "experts"),
      actR: Lm * T * k * ff * a, actW: Lm * T * k * d * a });
    if (m.n_shared_experts) {
      const fs = m.n_shared_experts * ff; // the shared experts run as one MLP that wide
      point("shared_gate_up", Lm, mm("shared"), { flops: Lm * 2.0 * T * d * mIn * fs, weight: Lm * weights(d * mIn * fs, d, "shared"),
        actR: Lm * T * d * a, actW: Lm * T * mIn * fs * a });
      point("shared_act", Lm, "vector", { flops: Lm * K.gated_act_flops_per_element * T * fs,
        actR: Lm * T * mIn * fs * a, actW: Lm * T * fs * a });
      point("shared_down", Lm, mm("shared"), { flops: Lm * 2.0 * T * fs * d, weight: Lm * weights(fs * d, fs, "shared"),
        actR: Lm * T * fs * a, actW: Lm * T * d * a });
    }
  }
  add("mlp_add");
  norm("final_norm", 1);
  const H = B * headTokens;
  point("lm_head", 1, headPeak, { flops: 2.0 * H * d * m.vocab_size, weight: m.vocab_size * d * bytesPerWeight(K, headFmt, d),
                                   actR: H * d * a, actW: H * m.vocab_size * a });
  return ops;
}

/** kernels.weights_resident_bytes: every weight as stored (all experts, group metadata included). */
export function weightsResidentBytes(K, m, f) {
  if (isBare(m)) return m.bare_params * bareBytesPerWeight(K, f.weights);
  const d = m.hidden_size, mIn = m.gated_ffn ? 2 : 1, E = m.n_experts;
  const bh = bytesPerWeight(K, f.head, d);
  const mlp = (ff, group) => {
    const w = weightsFor(f, group);
    return bytesPerWeight(K, w, d) * d * mIn * ff + bytesPerWeight(K, w, ff) * ff * d;
  };
  const aw = weightsFor(f, "attention");
  const attn = sum(attentionMatmulShapes(m).map(([, i, o]) => bytesPerWeight(K, aw, i) * i * o));
  const Lm = isMoe(m) ? m.n_layers - (m.n_dense_layers || 0) : 0;
  const ff = m.moe_ffn_size || m.ffn_size;
  const moe = Lm ? E * mlp(ff, "experts") + (m.n_shared_experts || 0) * mlp(ff, "shared") + d * E * bh : 0;
  const table = m.vocab_size * d * bh;
  return m.n_layers * (attn + 2 * d * K.norm_weight_bytes) + (m.n_layers - Lm) * mlp(m.ffn_size, "mlp") + Lm * moe
    + table * (m.tied_embeddings ? 1 : 2) + d * K.norm_weight_bytes;
}

export function usableMemory(device) {
  return device.usable_memory_bytes || device.memory_capacity_bytes;
}

/** A RooflinePoint's derived fields (bytes, intensity, ridge, bound, time) from its amounts. */
export function finishOp(C, o) {
  o.bytes = o.weight_bytes + o.actR + o.kvR + (o.actW + o.kvW);
  const c = o.flops / o.peak, mem = o.bytes / o.bandwidth;
  o.compute_s = c; o.memory_s = mem;
  o.time_s = Math.max(c, mem);
  o.arithmetic_intensity = o.flops / o.bytes;
  o.ridge_point = o.peak / o.bandwidth;
  o.bound = o.arithmetic_intensity >= o.ridge_point ? C.compute_bound : C.memory_bound;
  return o;
}

/** KernelStep's sums over its ops: time (Σ), perfect overlap, bytes by kind, bound, memory needed. */
export function summarize(C, K, s) {
  let timeS = 0, computeS = 0, memoryS = 0, weightBytes = 0, actPeak = 0, flops = 0, bytes = 0, kvBytes = 0;
  let actBytes = 0, computeBoundS = 0;
  for (const o of s.ops) {
    timeS += o.time_s; computeS += o.compute_s; memoryS += o.memory_s; weightBytes += o.weight_bytes;
    flops += o.flops; bytes += o.bytes; kvBytes += o.kvR + o.kvW; actBytes += o.actR + o.actW;
    if (o.arithmetic_intensity >= o.ridge_point) computeBoundS += o.time_s;
    actPeak = Math.max(actPeak, (o.actR + o.actW) / o.count);
  }
  const activationPeak = actPeak + s.residual;
  const memory = s.weightsResident + s.kvResident + activationPeak + K.runtime_reserve_bytes;
  // One literal of fixed shape (no spread): a spread copy per step was a third of a serving frontier's
  // time, most of it the garbage collector's.
  return { ops: s.ops, B: s.B, n: s.n, device: s.device, f: s.f, model: s.model, kvResident: s.kvResident,
           residual: s.residual, weightsResident: s.weightsResident, ridge: s.ridge,
           timeS, computeS, memoryS, overlapS: Math.max(computeS, memoryS), weightBytes, flops, bytes, kvBytes, actBytes,
           activationPeak, memory, fits: memory <= usableMemory(s.device),
           bound: computeBoundS * 2 >= timeS ? C.compute_bound : C.memory_bound };
}

/** One step (decode or prefill) with its sums, as kernels.decode and kernels.prefill. */
export function step(C, K, m, device, f, attention, phase, batch, length) {
  const B = checkSize(K, "batch", batch);
  let n, attended, pairs;
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
  const ops = kernelOps(C, K, m, device, f, attention, B, n, attended, pairs, 1, phase === "prefill")
    .map((o) => finishOp(C, o));
  const kvPerLayerToken = bare ? 0 : kvElementsPerTokenPerLayer(m);
  return summarize(C, K, {
    ops, B, n, device, f, model: m,
    kvResident: B * attended * kvPerLayerToken * K.element_bytes[f.kv],
    residual: B * n * (bare ? 0 : m.hidden_size) * K.element_bytes[f.activation],
    weightsResident: weightsResidentBytes(K, m, f),
    ridge: peakFlopPerS(C, device, matmulDtype(f)) / device.memory_bandwidth_bytes_per_s,
  });
}

/** kernels.layer_positions and kernels.causal_layer_pairs, for the service model (serving.js). */
export { layerPositions, causalLayerPairs };

// kernels.WEIGHT_MATMULS by first word, each with its MATMUL_GROUPS tensor group
const GROUP = { qkv: "attention", o: "attention", gate: "mlp", up: "mlp", down: "mlp", experts: "experts",
  shared: "shared", router: "head", lm: "head", weights: "mlp" };
// kernels._in_weight_format: a weight matmul whose weights take the weight format (formatsOf's object)
const inFormat = (f, o, g = GROUP[o.name.split("_")[0]]) => g && o.weight_bytes > 0 && weightsFor(f, g) === f.weights;

/** kernels.first_true: smallest n in 1..limit with pred(n), pred monotone; null if none. */
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

/** kernels.critical_batch: each weight matmul in the weight format reaches its own ridge. */
export function criticalBatch(C, K, m, device, f) {
  return firstTrue((b) => step(C, K, m, device, f, "fused", "decode", b, 1).ops.every((o) => !inFormat(f, o)
    || o.flops / o.weight_bytes >= o.ridge_point), K.critical_batch_max);
}

// Kept between recomputes: a few hundred steps, most of a redraw's budget.
const criticalCache = new Map();
export function criticalBatchCached(C, K, m, device, f) {
  const key = JSON.stringify([device, m, f]);
  if (!criticalCache.has(key)) {
    if (criticalCache.size > 64) criticalCache.clear();
    criticalCache.set(key, criticalBatch(C, K, m, device, f));
  }
  return criticalCache.get(key);
}

/** kernels.attention_intensity_limit: decode attention's FLOPs per byte as the context grows. */
export function attentionIntensity(K, m, f) {
  const [qk, pv] = attentionDims(m);
  return (2 * (qk + pv) + K.softmax_flops_per_score) * m.n_heads / (kvElementsPerTokenPerLayer(m) * K.element_bytes[f.kv]);
}

