// The calculator's sentences about a configuration: the weight format and why, what a pasted
// config.json gave, the chart's caption, what binds on the link and the memory wall.

import * as calc from "./calc.js";
import * as kernels from "./kernels.js";
import * as fmt from "./format.js";

/** The weight format a configuration computes in, the tensors it covers, and why, in words. */
export function weightWords(registry, cfg) {
  const K = registry.constants.kernels;
  const sixteen = ["bf16", "fp16", "fp32"].includes(cfg.wd), bare = kernels.isBare(cfg.model);
  const where = sixteen || bare ? "" : ` on ${K.scope_words[cfg.ws]}`;
  const why = cfg.wsource === K.weight_sources.explicit ? "chosen here"
    : cfg.wsource === K.weight_sources.bare ? "a bare parameter count has no checkpoint" : cfg.wsource;
  // a bare count has no layer shapes to size per-channel scales by: say they are left out
  const perChannel = bare && /^int(4|8)$/.test(cfg.wd.replace("-ch", "")) ? `; ${K.bare_per_channel_note}` : "";
  return `${cfg.wd.toUpperCase()}${where} (${why}${perChannel})`;
}

/** config.js's record in one sentence: what the calculator read from the reader's config.json. */
export function echoConfig(registry, m) {
  const K = registry.constants.kernels;
  const mla = (m.kv_lora_rank || 0) > 0;
  const kind = mla ? "MLA" : m.kv_heads === m.n_heads ? "MHA" : m.kv_heads === 1 ? "MQA" : "GQA";
  const heads = mla ? `${fmt.integer(m.n_heads)} heads, latent ${fmt.integer(m.kv_lora_rank)} + rotary key ${fmt.integer(m.qk_rope_head_dim)}`
    : `${fmt.integer(m.n_heads)} heads, ${fmt.integer(m.kv_heads)} KV heads, head size ${fmt.integer(m.head_dim)}`;
  const experts = m.n_experts > 1 ? `, ${fmt.integer(m.n_experts)} experts (${fmt.integer(m.experts_per_token)} per token)` : "";
  const window = m.n_window_layers ? `, sliding window ${fmt.integer(m.sliding_window)} on ${fmt.integer(m.n_window_layers)} layers` : "";
  let quant = "no quantization_config (16-bit weights)";
  if (m.weight_format) {
    const c = kernels.chooseWeightFormat(K, m);
    quant = `${c.format.toUpperCase()} on ${K.scope_words[c.scope]}, read from config.json`;
  }
  return `Read: ${fmt.integer(m.n_layers)} layers, ${heads}${experts}, ${fmt.count(calc.totalParams(m))} parameters, `
    + `${kind} attention${window}; quantization: ${quant}.`;
}

export function describe(registry, cfg) {
  const dev = cfg.device.id === "custom" ? "custom device" : cfg.device.name;
  const mod = cfg.model.id === "custom" ? `${fmt.count(cfg.model.bare_params)}-parameter model`
    : cfg.model.id === "config" ? `your model (${fmt.count(calc.totalParams(cfg.model))} parameters)` : cfg.model.name;
  const len = cfg.phase === "prefill" ? `prompt ${fmt.integer(cfg.length)}` : `context ${fmt.integer(cfg.length)}`;
  return `${mod} on the ${dev}, ${cfg.phase}, batch ${fmt.integer(cfg.batch)}, ${len}, ${weightWords(registry, cfg)} weights, `
    + `${cfg.act.toUpperCase()} activations, ${cfg.kvd.toUpperCase()} KV cache, ${cfg.attn} attention`;
}

/** What binds on the link, for the chart's hollow point: the link's bandwidth only where a stage's
 *  FLOPs per link byte sit below the link ridge, else the collectives' latency (or nothing on the link). */
export function linkBinds(o) {
  if (o.bound === "collective latency-bound") return "latency binds";
  if (o.bound === "link-bandwidth-bound") return "bandwidth binds";
  return o.link_intensity < o.link_ridge_point ? "under the link ridge" : "bandwidth does not bind";
}

/** The largest batch that fits, in one sentence: what the configuration needs against what the device exposes. */
export function memoryWall(o, cfg) {
  const at = cfg.phase === "prefill" ? `a ${fmt.integer(cfg.length)}-token prompt` : `${fmt.integer(cfg.length)} tokens cached`;
  const need = o.devices > 1
    ? `needs ${fmt.nbytes(o.memory_required_bytes)} per device of the ${fmt.nbytes(o.usable_memory_bytes)} each exposes (${o.layout})`
    : `needs ${fmt.nbytes(o.memory_required_bytes)} of the ${fmt.nbytes(o.usable_memory_bytes)} the device exposes`;
  if (o.fits) {
    return o.max_batch_that_fits === null ? ""
      : `Largest batch that fits: ${fmt.integer(o.max_batch_that_fits)} sequences with ${at}.`;
  }
  if (o.max_batch_that_fits === 0 || o.max_batch_that_fits === null) {
    return `Does not fit: it ${need}, and not even one sequence fits with ${at} (weights alone are ${fmt.nbytes(o.weights_resident_bytes)}).`;
  }
  return `Does not fit: it ${need}; at most ${fmt.integer(o.max_batch_that_fits)} sequences fit with ${at}.`;
}
