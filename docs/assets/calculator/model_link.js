// A model read from a config.json, as a share link carries it (`cfg=` "field:value" pairs), and back.
// Split from config.js (the reader itself) so a page opened from a link, or a reader who never pastes
// a config, downloads only this. Pure (no DOM), so node can import it.

import { CalcError } from "./calc.js";

/** Every architecture field a record carries, at its "absent" value (Model's defaults). */
export const BLANK = {
  n_experts: 1, experts_per_token: 1, bare_params: 0.0, source_url: "", moe_ffn_size: 0, n_shared_experts: 0,
  n_dense_layers: 0, kv_lora_rank: 0, q_lora_rank: 0, qk_nope_head_dim: 0, qk_rope_head_dim: 0, v_head_dim: 0,
  sliding_window: 0, n_window_layers: 0, qkv_bias: false, o_bias: false, mlp_bias: false, attention_sinks: false,
  max_context_tokens: 0,
  weight_format: "", weight_group_size: 0, weight_scope: "", weight_format_origin: "",
};

/** registry.specfile.shape_problem: why `value` is no real model's `field`, or "" (R.shape_max: one table). */
export function shapeProblem(R, field, value) {
  const hi = R && R.shape_max && R.shape_max[field];
  return value > hi ? `must be at most ${hi.toLocaleString("en-US")} for a real model, got ${value}` : "";
}

// ------------------------------------------------------------------ the share link
// A link carries the parsed fields, never the file: `cfg=` holds "field:value" pairs.
export const LINK_FIELDS = ["n_layers", "hidden_size", "n_heads", "kv_heads", "head_dim", "ffn_size", "gated_ffn",
  "vocab_size", "tied_embeddings", "n_experts", "experts_per_token", "moe_ffn_size", "n_shared_experts",
  "n_dense_layers", "kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
  "sliding_window", "n_window_layers", "qkv_bias", "o_bias", "mlp_bias", "attention_sinks", "max_context_tokens"];
const BOOLS = new Set(["gated_ffn", "tied_embeddings", "qkv_bias", "o_bias", "mlp_bias", "attention_sinks"]);
const REQUIRED_FIELDS = ["n_layers", "hidden_size", "n_heads", "kv_heads", "head_dim", "ffn_size", "vocab_size"];
// The checkpoint's format travels too (what the config's quantization_config said), so a shared
// link computes in the format the reader's config set: "weight_format:int4,weight_group_size:128,...".
const QUANT_FIELDS = ["weight_format", "weight_group_size", "weight_scope"];

/** "n_layers:32,hidden_size:4096,..." for a record read from a config. */
export function encodeModel(m) {
  const quant = m.weight_format ? QUANT_FIELDS.map((f) => `${f}:${m[f]}`) : [];
  return [...LINK_FIELDS.map((f) => `${f}:${BOOLS.has(f) ? Number(Boolean(m[f])) : m[f]}`), ...quant].join(",");
}

/** The record a link describes, or a CalcError naming the field that cannot be used. */
export function decodeModel(text, name = "your model", R = null) {
  const got = {};
  for (const part of String(text).slice(0, 2000).split(",")) {
    const [k, v] = part.split(":");
    if (Object.prototype.hasOwnProperty.call(got, k)) throw new CalcError(`The link's model gives ${String(k).slice(0, 40)} twice.`);
    if (k === "weight_format" || k === "weight_scope") {
      const allowed = R ? (k === "weight_format" ? R.checkpoint_kinds : R.weight_scopes) : null;
      if (!/^[a-z0-9-]{1,20}$/.test(v || "") || (allowed && !allowed.includes(v))) {
        throw new CalcError(`The link's model field ${k} is not one the calculator knows ("${String(v).slice(0, 40)}").`);
      }
      got[k] = v;
      continue;
    }
    if (k === "weight_group_size") {
      if (!/^\d{1,8}$/.test(v || "")) throw new CalcError(`The link's model field ${k} must be a whole number, got "${String(v).slice(0, 40)}".`);
      got[k] = Number(v);
      continue;
    }
    if (!LINK_FIELDS.includes(k)) throw new CalcError(`The link's model field "${String(k).slice(0, 40)}" is not one the calculator knows.`);
    const value = Number(v);
    if (!/^\d{1,10}$/.test(v || "") || value > 1e9 || (BOOLS.has(k) && value > 1)) {
      throw new CalcError(`The link's model field ${k} must be a whole number, got "${String(v).slice(0, 40)}".`);
    }
    // 0 stands for "absent" only where the record's blank is 0; a model routing to no expert is none.
    if (!BOOLS.has(k) && value === 0 && BLANK[k] !== 0) throw new CalcError(`The link's model field ${k} must be at least 1.`);
    const problem = shapeProblem(R, k, value);
    if (problem) throw new CalcError(`The link's model field ${k} ${problem}.`);
    got[k] = BOOLS.has(k) ? value === 1 : value;
  }
  for (const k of REQUIRED_FIELDS) {
    if (!(got[k] >= 1)) throw new CalcError(`The link's model has no ${k}.`);
  }
  if ((got.weight_scope || got.weight_group_size) && !got.weight_format) {
    throw new CalcError(`The link's model gives a weight scope or group size without its weight format.`);
  }
  const m = { id: "config", name, ...BLANK, gated_ffn: true, tied_embeddings: false, ...got };
  if (m.weight_format) m.weight_format_origin = "config";
  if (m.n_heads % m.kv_heads) throw new CalcError(`The link's model: kv_heads must divide n_heads.`);
  if (m.experts_per_token > m.n_experts) throw new CalcError(`The link's model: experts_per_token exceeds n_experts.`);
  if (m.n_dense_layers >= m.n_layers || m.n_window_layers > m.n_layers) {
    throw new CalcError(`The link's model: more dense or windowed layers than layers.`);
  }
  if (m.n_window_layers && !m.sliding_window) throw new CalcError(`The link's model: windowed layers need a window.`);
  if (m.kv_lora_rank && !(m.qk_nope_head_dim && m.qk_rope_head_dim && m.v_head_dim)) {
    throw new CalcError(`The link's model: kv_lora_rank needs the MLA head sizes.`);
  }
  return m;
}
