// "Your model": a Hugging Face config.json -> the calculator's model record, in the browser.
// A mirror of src/roofline/configs/ (families.py and __init__.py): the keys, kinds and
// transformers defaults come from registry.json's `config_reader` (roofline.configs.reader_json),
// so none is declared here; the per-family rules below are mirrored by hand, and
// tests/unit/calculator_view/test_calculator_parity.py holds every fixture's record and every refusal to Python.
// Pure (no DOM): the file the reader drops is read with FileReader in ui.js, never uploaded.
// Loaded on demand: ui.js imports it when a reader first pastes or picks a config or opens the Serving
// mode (a shared link's model needs only model_link.js).

import { CalcError } from "./calc.js";
import { BLANK, shapeProblem } from "./model_link.js";

// The share link's form (model_link.js), here too for the parity tests and the Serving mode.
export { LINK_FIELDS, decodeModel, encodeModel } from "./model_link.js";

// The registry's part only the scripts loaded on demand read (this reader's tables, the Serving mode's
// constants): roofline.calculator_view.split_registry writes it beside registry.json, and the step mode,
// which every reader downloads, goes without it.
const MORE = new URL("../../calculator/registry_more.json", import.meta.url).href;
const completing = new WeakMap();

/** `registry` with its on-demand part merged in (once per registry; a failed fetch is tried again on the
 *  next call). A whole registry, as a page's data-registry may name, has it already. */
export function completeRegistry(registry) {
  if (registry.config_reader.families) return Promise.resolve(registry);
  if (!completing.has(registry)) {
    const done = fetch(MORE).then((r) => {
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      return r.json();
    }).then((more) => {
      for (const [key, part] of Object.entries(more)) Object.assign(registry[key], part);
      return registry;
    });
    done.catch(() => completing.delete(registry));
    completing.set(registry, done);
  }
  return completing.get(registry);
}

const hasOwn = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** Python's repr of a parsed JSON value, as the package's messages print it (cut at 40 characters). */
function pyRepr(v) {
  if (v === null) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "string") return `'${v}'`;
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  return "{" + Object.entries(v).map(([k, x]) => "'" + k + "': " + pyRepr(x)).join(", ") + "}"; // no nested template (minifier)
}
function show(v) {
  const text = pyRepr(v);
  return text.length <= 40 ? text : `${text.slice(0, 37)}...`;
}

function jsonKind(v) {
  if (Array.isArray(v)) return "list";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "boolean";
  if (v === null) return "null";
  return "number";
}

class Reader {
  constructor(R, label, doc, family) {
    this.R = R; this.label = label; this.doc = doc; this.family = family;
    this.prefix = ""; this.cfg = doc;
    if (family.nested.length && family.nested.includes(doc.model_type)) {
      const sub = doc.text_config;
      if (!isObject(sub)) {
        throw this.fail("text_config", "is missing or not an object (a multimodal config keeps the language model there)");
      }
      this.cfg = sub; this.prefix = "text_config.";
    }
  }

  fail(key, problem) {
    const where = key.startsWith("text_config") || key.startsWith("quantization_config") ? key : this.prefix + key;
    return new CalcError(`${this.label}: field '${where}' ${problem}`);
  }

  read(spec) {
    if (!hasOwn(this.cfg, spec.key)) {
      if (spec.required) throw this.fail(spec.key, `is missing; the ${this.family.title} reader needs it`);
      return Array.isArray(spec.default) ? [...spec.default] : spec.default;
    }
    const value = this.check(spec.key, this.cfg[spec.key], spec.kind);
    const problem = spec.shape ? shapeProblem(this.R, spec.shape, value) : "";
    if (problem) throw this.fail(spec.key, problem);
    return value;
  }

  check(key, value, kind) {
    if (kind === "bool") {
      if (typeof value !== "boolean") throw this.fail(key, `must be true or false, got ${show(value)}`);
      return value;
    }
    if (kind === "list_str" || kind === "list_int") {
      if (value === null) return null;
      if (!Array.isArray(value)) throw this.fail(key, `must be a list, got ${show(value)}`);
      const inner = kind === "list_str" ? "str" : "count";
      return value.map((v) => this.check(key, v, inner));
    }
    if (kind === "str") {
      if (typeof value !== "string") throw this.fail(key, `must be a string, got ${show(value)}`);
      return value;
    }
    if (kind === "int_or_null" && value === null) return null;
    if (typeof value !== "number" || !Number.isFinite(value) || !Number.isInteger(value)) {
      throw this.fail(key, `must be a whole number, got ${show(value)}`);
    }
    const low = kind === "count" ? 0 : 1;
    if (value < low) throw this.fail(key, `must be ${low === 0 ? "≥ 0" : "positive"}, got ${show(value)}`);
    if (value > 1e9) throw this.fail(key, `must be at most 1e9, got ${show(value)}`);
    return value;
  }

  values() {
    const out = {};
    for (const s of this.family.specs) out[s.key] = this.read(s);
    return out;
  }
}

// ------------------------------------------------------------------ shared pieces (families.py)
/** registry/models.head_dim_rule: why hidden_size cannot be split into whole heads, or "". */
function headDimRule(hidden, heads, headDim) {
  if (headDim || !heads || hidden % heads === 0) return "";
  return `is ${hidden}, which ${heads} attention heads do not divide; give head_dim if the heads are narrower`;
}

/** model/formats.group_size_problem: why a GPTQ/AWQ group size is none a checkpoint has, or "". */
function groupSizeProblem(size) {
  if (size < 1 || (size & (size - 1)) || size > 2 ** 20) return `must be a positive power of two up to 1048576, got ${size}`;
  return "";
}
function attention(v, r) {
  const heads = v.num_attention_heads, hidden = v.hidden_size;
  const kv = v.num_key_value_heads !== null ? v.num_key_value_heads : heads;
  if (kv < 1 || heads % kv) throw r.fail("num_key_value_heads", `must divide num_attention_heads (${heads}), got ${kv}`);
  const headRule = headDimRule(hidden, heads, v.head_dim);
  if (headRule) throw r.fail("hidden_size", headRule); // the registry's rule: no head width rounded down
  const headDim = v.head_dim !== null ? v.head_dim : Math.floor(hidden / heads);
  if (headDim < 1) throw r.fail("head_dim", "is missing and hidden_size / num_attention_heads rounds to 0");
  return { n_layers: v.num_hidden_layers, hidden_size: hidden, n_heads: heads, kv_heads: kv, head_dim: headDim,
    vocab_size: v.vocab_size, tied_embeddings: v.tie_word_embeddings, gated_ffn: true,
    max_context_tokens: v.max_position_embeddings };
}

function layerTypes(r, types, n) {
  if (types === null) return null;
  if (types.length !== n) throw r.fail("layer_types", `lists ${types.length} layers but num_hidden_layers is ${n}`);
  for (const t of types) {
    if (!r.R.layer_types.includes(t)) {
      throw r.fail("layer_types", `has '${t}', not a layer type the reader knows (${r.R.layer_types.join(", ")})`);
    }
  }
  return types.filter((t) => r.R.windowed_layer_types.includes(t)).length;
}

const windowFields = (window, n) => (!window || !n ? {} : { sliding_window: window, n_window_layers: n });

function experts(r, nExperts, k, keyE, keyK) {
  if (!nExperts || nExperts === 1) return {};
  if (k === null) throw r.fail(keyK, `is missing; ${keyE} is ${nExperts}, so the reader needs the experts per token`);
  if (k > nExperts) throw r.fail(keyK, `cannot exceed ${keyE} (${nExperts}), got ${k}`);
  return { n_experts: nExperts, experts_per_token: k };
}

function denseCount(r, n, nDense, key) {
  if (nDense >= n) throw r.fail(key, `leaves no MoE layer among ${n}`);
  return nDense;
}

const range = (n) => Array.from({ length: n }, (_, i) => i);

function qwenWindow(v, r) {
  const n = v.num_hidden_layers;
  const typed = layerTypes(r, v.layer_types, n);
  if (typed !== null) return windowFields(v.sliding_window, typed);
  if (!v.use_sliding_window) return {};
  return windowFields(v.sliding_window, Math.max(0, n - v.max_window_layers));
}

function gemmaPattern(v, r, windowed) {
  const n = v.num_hidden_layers;
  const typed = layerTypes(r, v.layer_types, n);
  const count = typed !== null ? typed : range(n).filter(windowed).length;
  return windowFields(v.sliding_window, count);
}

const bias = (v) => ({ qkv_bias: v.attention_bias, o_bias: v.attention_bias });

const FINISH = {
  llama: (v, r) => ({ ...attention(v, r), ffn_size: v.intermediate_size, ...bias(v), mlp_bias: v.mlp_bias }),
  mistral: (v, r) => ({ ...attention(v, r), ffn_size: v.intermediate_size,
    ...windowFields(v.sliding_window, v.num_hidden_layers) }),
  mixtral: (v, r) => ({ ...attention(v, r), ffn_size: v.intermediate_size,
    ...experts(r, v.num_local_experts, v.num_experts_per_tok, "num_local_experts", "num_experts_per_tok"),
    ...windowFields(v.sliding_window, v.num_hidden_layers) }),
  qwen2: (v, r) => ({ ...attention(v, r), ffn_size: v.intermediate_size, qkv_bias: true, ...qwenWindow(v, r) }),
  qwen3: (v, r) => ({ ...attention(v, r), ffn_size: v.intermediate_size, ...bias(v), ...qwenWindow(v, r) }),
  qwen3_moe: (v, r) => {
    const n = v.num_hidden_layers, step = v.decoder_sparse_step, only = new Set(v.mlp_only_layers || []);
    const last = Math.max(-1, ...only);
    if (last >= n) throw r.fail("mlp_only_layers", `lists layer ${last}, but the model's layers are 0 to ${n - 1}`);
    const ex = experts(r, v.num_experts, v.num_experts_per_tok, "num_experts", "num_experts_per_tok");
    if (!Object.keys(ex).length) return FINISH.qwen3(v, r);
    const moe = range(n).filter((i) => !only.has(i) && (i + 1) % step === 0);
    const dense = denseCount(r, n, n - moe.length, only.size ? "mlp_only_layers" : "decoder_sparse_step");
    return { ...FINISH.qwen3(v, r), ...ex, moe_ffn_size: v.moe_intermediate_size, n_dense_layers: dense };
  },
  gemma2: (v, r) => ({ ...attention(v, r), ffn_size: v.intermediate_size, ...bias(v),
    ...gemmaPattern(v, r, (i) => Boolean((i + 1) % 2)) }),
  gemma3: (v, r) => ({ ...attention(v, r), ffn_size: v.intermediate_size, ...bias(v),
    ...gemmaPattern(v, r, (i) => Boolean((i + 1) % v.sliding_window_pattern)) }),
  deepseek: (v, r) => {
    const n = v.num_hidden_layers, heads = v.num_attention_heads;
    const ex = experts(r, v.n_routed_experts, v.num_experts_per_tok, "n_routed_experts", "num_experts_per_tok");
    const out = { n_layers: n, hidden_size: v.hidden_size, n_heads: heads, kv_heads: heads,
      head_dim: v.qk_nope_head_dim + v.qk_rope_head_dim, ffn_size: v.intermediate_size, gated_ffn: true,
      vocab_size: v.vocab_size, tied_embeddings: v.tie_word_embeddings, max_context_tokens: v.max_position_embeddings,
      kv_lora_rank: v.kv_lora_rank,
      q_lora_rank: v.q_lora_rank || 0, qk_nope_head_dim: v.qk_nope_head_dim, qk_rope_head_dim: v.qk_rope_head_dim,
      v_head_dim: v.v_head_dim };
    if (!Object.keys(ex).length && hasOwn(r.cfg, "n_shared_experts") && v.n_shared_experts) {
      throw r.fail("n_shared_experts", `is ${v.n_shared_experts}, but shared experts sit beside routed ones, `
        + "and n_routed_experts gives none");
    }
    if (Object.keys(ex).length) {
      const moe = range(n).filter((i) => i >= v.first_k_dense_replace && i % v.moe_layer_freq === 0);
      Object.assign(out, ex, { moe_ffn_size: v.moe_intermediate_size, n_shared_experts: v.n_shared_experts || 0,
        n_dense_layers: denseCount(r, n, n - moe.length, "first_k_dense_replace") });
    }
    return out;
  },
  gpt_oss: (v, r) => ({ ...attention(v, r), ffn_size: v.intermediate_size,
    ...experts(r, v.num_local_experts, v.num_experts_per_tok, "num_local_experts", "num_experts_per_tok"),
    ...bias(v), mlp_bias: true, attention_sinks: true, ...gemmaPattern(v, r, (i) => Boolean((i + 1) % 2)) }),
  llama4: (v, r) => {
    const n = v.num_hidden_layers;
    let moe = v.moe_layers;
    if (moe === null) {
      const step = v.interleave_moe_layer_step;
      moe = [];
      for (let i = step - 1; i < n; i += step) moe.push(i);
    }
    if (moe.some((i) => i >= n)) throw r.fail("moe_layers", `names a layer past num_hidden_layers (${n})`);
    const ex = experts(r, v.num_local_experts, v.num_experts_per_tok, "num_local_experts", "num_experts_per_tok");
    let typed = layerTypes(r, v.layer_types, n);
    if (typed === null) {
      const flags = v.no_rope_layers && v.no_rope_layers.length ? v.no_rope_layers
        : range(n).map((i) => Number((i + 1) % v.no_rope_layer_interval !== 0));
      if (flags.length !== n) throw r.fail("no_rope_layers", `lists ${flags.length} layers but num_hidden_layers is ${n}`);
      typed = flags.filter(Boolean).length;
    }
    const out = { ...attention(v, r), ffn_size: v.intermediate_size_mlp, ...bias(v),
      ...windowFields(v.attention_chunk_size, typed) };
    if (Object.keys(ex).length) {
      Object.assign(out, ex, { moe_ffn_size: v.intermediate_size, n_shared_experts: 1,
        n_dense_layers: denseCount(r, n, n - new Set(moe).size, "moe_layers") });
    }
    return out;
  },
};

/** families._scope: the tensors the checkpoint quantizes, from modules_to_not_convert. */
function quantScope(r, q, fallback) {
  const skip = hasOwn(q, "modules_to_not_convert") ? q.modules_to_not_convert : null;
  if (skip === null) return fallback;
  if (!Array.isArray(skip) || !skip.every((x) => typeof x === "string")) {
    throw r.fail("quantization_config.modules_to_not_convert", `must be a list of module names, got ${show(skip)}`);
  }
  let scope = fallback;
  const R = r.R;
  for (const name of skip) {
    if (name.split(".").some((p) => /^\d+$/.test(p))) {
      throw r.fail("quantization_config.modules_to_not_convert", `names ${show(name)}, one layer's module; the reader `
        + "keeps every layer in one format, so it cannot leave a single layer 16-bit");
    }
    const last = name.replaceAll("*", "").split(".").filter((p) => p);
    const tail = last.length ? last[last.length - 1] : "";
    if (R.attention_modules.includes(tail) || last.slice(-2).some((p) => R.attention_modules.includes(p))) {
      scope = fallback === "experts" ? "experts" : "mlp";
    } else if (R.always_sixteen_modules.includes(tail) || R.always_sixteen_modules.includes(last.slice(-2).join("."))) {
      continue;
    } else {
      throw r.fail("quantization_config.modules_to_not_convert", `names ${show(name)}, which the reader cannot map to `
        + "a tensor group it keeps 16-bit (attention, router, embedding or head)");
    }
  }
  return scope;
}

/** families.read_quantization: [weight_format, elements per scale, scope]. */
function readQuantization(r) {
  const q = r.doc.quantization_config;
  if (q === undefined || q === null) return ["", 0, ""];
  if (!isObject(q)) throw r.fail("quantization_config", `must be an object, got ${show(q)}`);
  const method = hasOwn(q, "quant_method") ? q.quant_method : null;
  if (!r.R.quant_methods.includes(method)) {
    throw r.fail("quantization_config.quant_method",
      `is ${show(method)}, not a format the reader knows (${r.R.quant_methods.join(", ")}), so the weights' bytes are unknown`);
  }
  const scope = quantScope(r, q, method === "mxfp4" ? "experts" : "linear");
  if (method === "mxfp4") return ["mxfp4", 32, "experts"];
  if (method === "fp8") {
    const block = hasOwn(q, "weight_block_size") ? q.weight_block_size : null;
    if (block === null) return ["fp8", 0, scope];
    if (!(Array.isArray(block) && block.length === 2)) {
      throw r.fail("quantization_config.weight_block_size", `must be two whole numbers, got ${show(block)}`);
    }
    const [a, b] = block.map((x) => r.check("quantization_config.weight_block_size", x, "int"));
    if (a * b > 1 << 24) {
      throw r.fail("quantization_config.weight_block_size", `must hold at most 16777216 weights, got ${show(block)}`);
    }
    return ["fp8-block", a * b, scope];
  }
  const bits = hasOwn(q, "bits") ? q.bits : (hasOwn(q, "w_bit") ? q.w_bit : null);
  const allowed = method === "awq" ? [4] : [4, 8];
  if (!allowed.includes(bits)) {
    throw r.fail("quantization_config.bits", `is ${show(bits)}; the package models ${method} at ${allowed.join(" or ")} bits only`);
  }
  let group = hasOwn(q, "group_size") ? q.group_size : (hasOwn(q, "q_group_size") ? q.q_group_size : -1);
  if (group !== -1) {
    group = r.check("quantization_config.group_size", group, "int");
    if (groupSizeProblem(group)) throw r.fail("quantization_config.group_size", groupSizeProblem(group));
  }
  return [`int${bits}`, group === -1 ? 0 : group, scope];
}

/** roofline.configs.read_config on a parsed object: a model record, or a CalcError of one line. */
export function readConfig(R, doc, label = "config") {
  if (!isObject(doc)) throw new CalcError(`${label}: not a model config (the JSON is a ${jsonKind(doc)}, not an object)`);
  const modelType = hasOwn(doc, "model_type") ? doc.model_type : null;
  const known = Object.keys(R.model_types).join(", ");
  if (modelType === null) {
    throw new CalcError(`${label}: field 'model_type' is missing: not a Hugging Face model config (families known: ${known})`);
  }
  if (typeof modelType !== "string" || !hasOwn(R.model_types, modelType)) {
    throw new CalcError(`${label}: field 'model_type' is ${pyRepr(modelType)}, not a family the reader knows (${known})`);
  }
  const key = R.model_types[modelType];
  const family = R.families[key];
  const r = new Reader(R, label, doc, family);
  const kw = FINISH[key](r.values(), r);
  const [weightFormat, group, scope] = readQuantization(r);
  if (scope === "experts" && !((kw.n_experts || 1) > 1)) {
    throw r.fail("quantization_config", `quantizes the routed experts only (${weightFormat}), and this ${family.title} model has none`);
  }
  let name = typeof doc._name_or_path === "string" && doc._name_or_path.trim() ? doc._name_or_path : label;
  // readfile.surrogate_problem and one_line: no lone surrogate; breaks flattened, controls and bidi overrides dropped.
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.exec(name);
  if (lone) {
    const code = lone[0].charCodeAt(0).toString(16).toUpperCase();
    throw r.fail("_name_or_path", `holds a lone surrogate (U+${code}), which is not text`);
  }
  name = name.replace(/[\n\r\v\f\x85\u2028\u2029]+/g, " ")
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "").slice(0, 200);
  return { id: label, name, ...BLANK, ...kw, family: modelType, weight_format: weightFormat, weight_group_size: group,
    weight_scope: scope, weight_format_origin: weightFormat ? "config" : "", source_title: `${label} (${family.title} reader)` };
}

/** The first key an object of valid JSON `text` gives twice, or null (JSON.parse keeps the last in silence;
 *  roofline.readfile.unique_keys refuses it). */
function repeatedKey(text) {
  const stack = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "{") stack.push({ keys: new Set(), key: true });
    else if (c === "[") stack.push(null);
    else if (c === "}" || c === "]") stack.pop();
    else if (c === ",") { const top = stack[stack.length - 1]; if (top) top.key = true; }
    else if (c === "\"") {
      let j = i + 1;
      while (text[j] !== "\"") j += text[j] === "\\" ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top && top.key) {
        const key = JSON.parse(text.slice(i, j + 1));
        if (top.keys.has(key)) return key;
        top.keys.add(key);
        top.key = false;
      }
      i = j;
    }
  }
  return null;
}

/** roofline.configs.load_config_file on text the reader pasted or dropped: size, then JSON, then the reader. */
export function readConfigText(R, text, label = "config.json") {
  const size = new TextEncoder().encode(text).length;
  if (size > R.max_bytes) {
    throw new CalcError(`${label}: ${Math.round(size / 1e6)} MB is too large for a config.json (at most 10 MB)`);
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new CalcError(`${label}: not JSON (${String(err.message || err).split("\n")[0]})`);
  }
  const twice = repeatedKey(text);
  if (twice !== null) {
    const shown = twice.length <= 40 ? twice : `${twice.slice(0, 37)}...`;
    throw new CalcError(`${label}: field '${shown}' is given twice; which value is meant is unknown`);
  }
  return readConfig(R, doc, label);
}
