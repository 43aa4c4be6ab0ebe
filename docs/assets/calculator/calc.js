// The calculator's model arithmetic: a line-by-line mirror of src/roofline/registry/models.py and
// hardware.py (parameter counts, KV widths, peaks) and calculator_view's custom entries. The
// per-kernel step model is kernels.js. Pure (no DOM), so node can import it; the parity tests
// (tests/unit/calculator_view/test_calculator_parity.py, test_config_parity.py) hold it to the package within 1e-9.
// The data (devices, models, bytes per element, limits) comes from calculator/registry.json,
// which the package writes at build time: no constant is declared here.

export class CalcError extends Error {}

const hasOwn = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);

// ---------------------------------------------------------------- hardware.py
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

// ---------------------------------------------------------------- models.py
/** Model.is_bare: a parameter count with no architecture. */
export const isBare = (m) => m.n_layers === 0 || m.bare_params > 0;
const isMoe = (m) => m.n_experts > 1;
const isMla = (m) => (m.kv_lora_rank || 0) > 0;
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

/** Model.kv_elements_per_token_per_layer: K and V per KV head, or MLA's latent plus rotary key. */
export const kvElementsPerTokenPerLayer = (m) => (isMla(m) ? m.kv_lora_rank + m.qk_rope_head_dim
  : 2 * m.kv_heads * m.head_dim);

export const kvElementsPerToken = (m) => m.n_layers * kvElementsPerTokenPerLayer(m);

// ---------------------------------------------------------------- kernels.py
/** Expected distinct experts per layer that `tokens` routed tokens hit: E·(1 − (1 − k/E)^tokens). */
export function expertsTouched(m, tokens) {
  const e = m.n_experts, k = m.experts_per_token;
  if (e === 1) return 1.0;
  return e * (1.0 - (1.0 - k / e) ** tokens);
}

// ---------------------------------------------------------------- export.py
/** export.custom_device: a device from a 16-bit peak, a bandwidth and a capacity (base units). */
export function customDevice(peak, bandwidth, capacity) {
  return {
    id: "custom", name: "custom device", vendor: "", memory_capacity_bytes: capacity,
    memory_bandwidth_bytes_per_s: bandwidth, dense_peak_flop_per_s: { bf16: peak },
  };
}

/** calculator_view.custom_model: a bare parameter count (weights only, no attention, no KV cache). */
export function customModel(params) {
  return {
    id: "custom", name: "custom model", n_layers: 0, hidden_size: 0, n_heads: 0, kv_heads: 0, head_dim: 0,
    ffn_size: 0, gated_ffn: false, vocab_size: 0, tied_embeddings: true, n_experts: 1, experts_per_token: 1,
    bare_params: params,
  };
}
