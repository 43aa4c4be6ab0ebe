// The calculator's inputs: parsing what the reader typed, one message per bad field, and the
// URL form of a view. Pure (no DOM), so node can import it. Limits and units come from
// calculator/registry.json (roofline.calculator_view.LIMITS and FIELD_SCALES).

import { CalcError, customDevice, customModel } from "./calc.js";
import { chooseWeightFormat } from "./kernels.js";
import { integer, sig } from "./format.js";

/** Every input of one configuration: its URL key, label, and the limit it is held to. */
export const FIELDS = {
  hw: { label: "Device", kind: "select" },
  peak: { label: "Peak 16-bit FLOP/s (TFLOP/s, dense)", limit: "peak_TFLOP_per_s", group: "device" },
  bw: { label: "Memory bandwidth (TB/s)", limit: "bandwidth_TB_per_s", group: "device" },
  mem: { label: "Memory capacity (GB)", limit: "memory_GB", group: "device" },
  model: { label: "Model", kind: "select" },
  params: { label: "Parameters (billions)", limit: "params_billions", group: "model" },
  cfg: { label: "config.json: paste it, or choose the file (read here, never uploaded)", kind: "config", group: "config" },
  phase: { label: "Phase", kind: "select" },
  batch: { label: "Batch size (sequences)", limit: "batch" },
  ctx: { label: "Context length (tokens already cached)", limit: "context_len", phase: "decode" },
  prompt: { label: "Prompt length (tokens)", limit: "prompt_len", phase: "prefill" },
  wd: { label: "Weight format", kind: "select" },
  act: { label: "Activations", kind: "select" },
  kvd: { label: "KV cache", kind: "select" },
  attn: { label: "Attention", kind: "select" },
  dev: { label: "Devices", limit: "degree", group: "layout" },
  tp: { label: "Tensor parallel (TP)", limit: "degree", group: "layout" },
  pp: { label: "Pipeline stages (PP)", limit: "degree", group: "layout" },
  ep: { label: "Expert parallel (EP)", limit: "degree", group: "layout" },
  nodes: { label: "Nodes (machines; blank: within one scale-up domain)", limit: "degree", group: "layout", optional: true },
  lat: { label: "Collective latency", kind: "select", group: "layout" },
  latus: { label: "Latency per collective (µs)", limit: "collective_latency_us", group: "layout" },
};

/** The collective latencies the select offers: the link's floor, an NCCL ring's, or one the reader sets. */
export const LATENCIES = ["floor", "ring", "custom"];

/** The choices of each select that is not a device or model, from registry.json: [key, list, what]. */
export function choices(registry) {
  const C = registry.constants, K = C.kernels;
  return {
    wd: [C.checkpoint_format, ...C.weight_formats], act: K.activation_dtypes, kvd: K.kv_dtypes, attn: K.attention_variants,
  };
}
const CHOICE_NAMES = { wd: "weight format", act: "activation format", kvd: "KV-cache format", attn: "attention variant" };

export const PHASES = ["decode", "prefill"];
const NUMBER = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const NEGATIVE = /^-(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A bound as the reader should read it: whole numbers with separators, others to 3 figures. */
const bound = (x) => (Number.isInteger(x) && Math.abs(x) < 1e21 ? integer(x) : sig(x));

/**
 * Parse one typed value against its limit. Returns {value} or {message}; an empty optional
 * field gives {value: null}. The message is one sentence naming the field.
 */
export function parseNumber(raw, label, limit, optional = false) {
  const text = String(raw ?? "").trim();
  const name = label.replace(/\s*\(.*\)$/, "");
  if (text === "") return optional ? { value: null } : { message: `Enter a value for ${name.toLowerCase()}.` };
  if (NEGATIVE.test(text)) return { message: `${name} cannot be negative.` };
  if (!NUMBER.test(text)) return { message: `${name} must be a number, such as ${bound(Math.max(limit.min, 1))}.` };
  const value = Number(text);
  if (!Number.isFinite(value) || value > limit.max) return { message: `${name} must be at most ${bound(limit.max)}.` };
  if (limit.min_inclusive ? value < limit.min : value <= limit.min) {
    const rel = limit.min_inclusive ? "at least" : "greater than";
    return { message: `${name} must be ${rel} ${bound(limit.min)}.` };
  }
  if (limit.integer && !Number.isInteger(value)) return { message: `${name} must be a whole number.` };
  return { value };
}

/**
 * Turn one configuration's raw strings into {device, model, phase, batch, length, wd, act, kvd, attn}
 * or {errors: {key: message}}. `raw` maps the FIELDS keys to what the reader typed.
 */
// The share link's model reader (model_link.js, or config.js, which hands on its decodeModel) loads only
// for a reader whose view holds "your config": ui.js passes it here once it has come. Until then such a
// view waits with a sentence, and a reader who never chooses it never downloads the reader.
let linkReader = null;
export function useLinkReader(module) { linkReader = module; }

export function resolveConfig(registry, raw) {
  const { limits, units, constants } = registry;
  const errors = {};
  const num = (key) => {
    const f = FIELDS[key];
    const r = parseNumber(raw[key], f.label, limits[f.limit], f.optional);
    if (r.message) errors[key] = r.message;
    return r.value;
  };
  let device = null;
  if (raw.hw === "custom") {
    const peak = num("peak"), bw = num("bw"), mem = num("mem");
    if (!("peak" in errors || "bw" in errors || "mem" in errors)) {
      device = { ...customDevice(peak * units.peak_TFLOP_per_s, bw * units.bandwidth_TB_per_s, mem * units.memory_GB),
        interconnect_note: constants.custom_interconnect_note };
    }
  } else {
    device = registry.devices.find((d) => d.id === raw.hw) || null;
    if (!device) errors.hw = `Choose a device from the list.`;
  }
  let model = null;
  if (raw.model === "custom") {
    const params = num("params");
    if (!("params" in errors)) model = customModel(params * units.params_billions);
  } else if (raw.model === "config") {
    if (!String(raw.cfg || "").trim()) {
      errors.cfg = `Paste a config.json or choose one.`;
    } else if (!linkReader) {
      errors.cfg = `Reading the link's model\u2026`;
    } else {
      try {
        model = linkReader.decodeModel(raw.cfg, "your model", registry.config_reader);
      } catch (err) {
        if (!(err instanceof CalcError)) throw err;
        errors.cfg = err.message;
      }
    }
  } else {
    model = registry.models.find((m) => m.id === raw.model) || null;
    if (!model) errors.model = `Choose a model from the list.`;
  }
  const phase = PHASES.includes(raw.phase) ? raw.phase : null;
  if (!phase) errors.phase = `Choose decode or prefill.`;
  const batch = num("batch");
  const length = num(phase === "prefill" ? "prompt" : "ctx");
  const tp = num("tp"), pp = num("pp"), ep = num("ep"), nodes = num("nodes");
  let latency = "floor";
  if (!LATENCIES.includes(raw.lat)) errors.lat = "Choose a collective latency from the list.";
  else if (raw.lat === "custom") {
    const us = num("latus");
    if (!("latus" in errors)) latency = us * units.collective_latency_us;
  } else latency = raw.lat;
  // Devices sets TP, PP and EP (ui.js); its own value is checked like every field, so "0x4", "1.5" or an
  // empty field gets its sentence here, never a silent one-device result or the CLI's "--devices" wording.
  num("dev");
  const lists = choices(registry);
  for (const [key, list] of Object.entries(lists)) {
    if (!list.includes(raw[key])) errors[key] = `Choose a ${CHOICE_NAMES[key]} from the list.`;
  }
  // The one rule (formats.choose_weight_format): "checkpoint" takes the model's own format over its
  // own tensors; a format chosen here covers every linear layer.
  let choice = null;
  if (model && !("wd" in errors)) {
    try {
      choice = raw.wd === constants.checkpoint_format ? chooseWeightFormat(constants.kernels, model)
        : chooseWeightFormat(constants.kernels, model, raw.wd);
    } catch (err) {
      if (!(err instanceof CalcError)) throw err;
      errors.wd = err.message;
    }
  }
  if (Object.keys(errors).length) return { errors };
  return { device, model, phase, batch, length, wd: choice.format, ws: choice.scope, wsource: choice.source,
           wscopeWords: constants.kernels.scope_words[choice.scope],
           wchoice: raw.wd, act: raw.act, kvd: raw.kvd, attn: raw.attn, tp, pp, ep, nodes, latency, errors: {} };
}

/** A refusal the package words for the CLI ("--devices 9: --pp 9: ...") in the form's words ("9 devices: PP 9: ..."). */
export function inReaderWords(msg) {
  return String(msg).replace(/--devices (\d+)/g, (_, n) => `${n} ${n === "1" ? "device" : "devices"}`)
    .replace(/--nodes (\d+)/g, (_, n) => `${n} ${n === "1" ? "node" : "nodes"}`)
    .replace(/--(tp|pp|ep|dp)\b/g, (_, o) => o.toUpperCase());
}

/** The default raw state of a configuration; `compare` gives the comparison's defaults. */
export function defaultRaw(registry, compare = false) {
  const d = registry.defaults;
  return {
    hw: d.hardware, peak: "", bw: "", mem: "", model: d.model, params: "", cfg: "",
    phase: d.phase, batch: String(compare ? d.compare_batch : d.batch), ctx: String(d.context_len),
    prompt: String(d.prompt_len), wd: d.weight_format, act: d.activation, kvd: d.kv_dtype, attn: d.attention,
    dev: "1", tp: "1", pp: "1", ep: "1", nodes: "", lat: d.collective_latency, latus: "",
  };
}

const CUSTOM_DEVICE_KEYS = ["peak", "bw", "mem"];
const CUSTOM_MODEL_KEYS = ["params"];

/** The URL keys of one configuration's state (custom fields only when custom is chosen). */
function keysFor(raw) {
  return ["hw", ...(raw.hw === "custom" ? CUSTOM_DEVICE_KEYS : []), "model",
    ...(raw.model === "custom" ? CUSTOM_MODEL_KEYS : []), ...(raw.model === "config" ? ["cfg"] : []), "phase", "batch",
    raw.phase === "prefill" ? "prompt" : "ctx", "wd", "act", "kvd", "attn", "tp", "pp", "ep", "nodes", "lat",
    ...(raw.lat === "custom" ? ["latus"] : [])];
}

/** Query string for the views: the first configuration's keys bare, the others prefixed ("b_", and
 *  "s_" for the Serving mode). */
export function encodeState(configs) {
  const params = new URLSearchParams();
  configs.forEach(({ raw, prefix, keys = keysFor }) => { // `keys`: which of raw's keys a link carries
    for (const key of keys(raw)) {
      const v = String(raw[key] ?? "").trim();
      if (v !== "") params.set(prefix + key, v);
    }
  });
  return params.toString();
}

/**
 * Read one configuration from a query string over its defaults. Returns {raw, notices}: a
 * notice names a link value that could not be used (an unknown device, say). `fields`: the keys
 * the configuration has (the Serving mode's are serve_state.js's).
 */
export function decodeState(registry, search, prefix, base, fields = FIELDS) {
  const params = new URLSearchParams(search);
  const raw = { ...base };
  const notices = {};
  for (const key of Object.keys(fields)) {
    if (!params.has(prefix + key)) continue;
    const v = params.get(prefix + key).slice(0, key === "cfg" ? 2000 : 200); // a pasted essay is not a value
    raw[key] = v;
  }
  const ids = { hw: registry.devices.map((d) => d.id), model: registry.models.map((m) => m.id) };
  for (const key of ["hw", "model"]) {
    if (raw[key] !== "custom" && !(key === "model" && raw[key] === "config") && !ids[key].includes(raw[key])) {
      notices[key] = `The link names ${key === "hw" ? "a device" : "a model"} this site does not list ("${raw[key]}"); showing the default instead.`;
      raw[key] = base[key];
    }
  }
  if (!LATENCIES.includes(raw.lat)) {
    notices.lat = `The link's collective latency ("${raw.lat}") is not floor, ring or custom; showing ${base.lat}.`;
    raw.lat = base.lat;
  }
  if (!PHASES.includes(raw.phase)) { notices.phase = `The link's phase ("${raw.phase}") is not decode or prefill; showing ${base.phase}.`; raw.phase = base.phase; }
  for (const [key, list] of Object.entries(choices(registry))) {
    if (!list.includes(raw[key])) {
      notices[key] = `The link's ${CHOICE_NAMES[key]} ("${raw[key]}") is not one this calculator knows; showing ${base[key]}.`;
      raw[key] = base[key];
    }
  }
  return { raw, notices };
}
