// The calculator's page code: builds the form into every .rl-calc (full) and .rl-calc-mini
// (compact) element, recomputes on every input event, draws the chart and keeps the view in
// the URL (full version only). Everything the reader typed reaches the page via textContent
// or form values, never as HTML. Works with Material's instant navigation: the module runs
// once, then re-initialises on every page swap through `document$`.

import * as calc from "./calc.js";
import * as view from "./view.js";
import * as kernels from "./kernels.js";
import { engineLayout } from "./parallel.js";
import * as fmt from "./format.js";
import { FIELDS, choices, decodeState, defaultRaw, encodeState, parseNumber, resolveConfig } from "./state.js";
import { drawChart } from "./chart.js";
import { encodeModel, readConfigText } from "./config.js";

const HERE = import.meta.url;
const registries = new Map();
let counter = 0;

function loadRegistry(url) {
  if (!registries.has(url)) {
    registries.set(url, fetch(url).then((r) => {
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      return r.json();
    }));
  }
  return registries.get(url);
}

function ensureStylesheet() {
  if (document.querySelector("link[data-rl-calc-css]")) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("./calculator.css", HERE).href;
  link.dataset.rlCalcCss = "";
  document.head.appendChild(link);
}

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === "text") node.textContent = v;
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c) node.appendChild(c);
  return node;
}

// ---------------------------------------------------------------- formatting, never NaN
const DASH = "—";
function show(value, formatter) {
  if (value === null || value === undefined) return DASH;
  if (typeof value === "number" && !Number.isFinite(value)) return DASH;
  try { return formatter(value); } catch { return DASH; }
}
const dec = (v) => Number(v.toPrecision(12)); // 989.4e12 / 1e12 -> 989.4, not 989.4000000000001

// ---------------------------------------------------------------- one configuration's fields
function configPanel(registry, uid, legendText, keys) {
  const fs = h("fieldset", { class: "rl-calc-config" });
  fs.appendChild(h("legend", { text: legendText }));
  const inputs = {}, msgs = {}, wraps = {};
  const field = (key, control) => {
    const id = `${uid}-${key}`;
    control.id = id;
    control.name = key;
    control.setAttribute("aria-describedby", `${id}-msg`);
    const msg = h("span", { class: "rl-calc-msg", id: `${id}-msg` });
    const wrap = h("div", { class: "rl-calc-field", "data-key": key },
      h("label", { for: id, text: FIELDS[key].label }), control, msg);
    inputs[key] = control; msgs[key] = msg; wraps[key] = wrap;
    return wrap;
  };
  const text = (key) => field(key, h("input", {
    type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false", class: "md-input",
  }));
  const select = (key, options) => {
    const s = h("select", {});
    for (const o of options) {
      if (o.group) {
        const g = h("optgroup", { label: o.group });
        for (const c of o.items) g.appendChild(h("option", { value: c.value, text: c.text }));
        s.appendChild(g);
      } else s.appendChild(h("option", { value: o.value, text: o.text }));
    }
    return field(key, s);
  };
  const vendors = [...new Set(registry.devices.map((d) => d.vendor))];
  const deviceOptions = vendors.map((v) => ({
    group: v, items: registry.devices.filter((d) => d.vendor === v).map((d) => ({ value: d.id, text: d.name })),
  }));
  deviceOptions.push({ value: "custom", text: "Custom device…" });
  const modelOptions = registry.models.map((m) => ({ value: m.id, text: m.name }));
  modelOptions.push({ value: "custom", text: "Custom model…" });
  modelOptions.push({ value: "config", text: "Your model (config.json)…" });
  const lists = choices(registry);
  const upper = (list) => list.map((d) => ({ value: d, text: d.toUpperCase() }));
  const attentionText = { fused: "Fused (FlashAttention-style)", unfused: "Unfused (scores written and re-read)" };
  const phases = [{ value: "decode", text: "Decode: one new token per sequence" },
    { value: "prefill", text: "Prefill: the whole prompt" }];

  const all = {
    hw: () => select("hw", deviceOptions), peak: () => text("peak"), bw: () => text("bw"), mem: () => text("mem"),
    model: () => select("model", modelOptions), params: () => text("params"),
    phase: () => select("phase", phases), batch: () => text("batch"), ctx: () => text("ctx"),
    prompt: () => text("prompt"),
    wd: () => {
      // The first choice follows the model: its checkpoint's own format (ui.js names it after each read).
      const wrap = select("wd", lists.wd.map((d) => ({ value: d,
        text: d === registry.constants.checkpoint_format ? "As the checkpoint stores it" : d.toUpperCase() })));
      wrap.appendChild(h("span", { class: "rl-calc-wdnote", id: `${uid}-wd-note` }));
      return wrap;
    },
    act: () => select("act", upper(lists.act)),
    kvd: () => select("kvd", upper(lists.kvd)),
    attn: () => select("attn", lists.attn.map((v) => ({ value: v, text: attentionText[v] || v }))),
    dev: () => text("dev"), tp: () => text("tp"), pp: () => text("pp"), ep: () => text("ep"),
    lat: () => select("lat", [
      { value: "floor", text: "Floor: fastest published all-reduce (ceiling)" },
      { value: "ring", text: "NCCL ring (expected)" },
      { value: "custom", text: "Set it (µs per collective)…" }]),
    latus: () => text("latus"),
    cfg: () => {
      // The parsed fields live in a hidden input (they are what a link carries); the pasted text
      // and the file stay on this page.
      const wrap = field("cfg", h("input", { type: "hidden" }));
      const area = h("textarea", { class: "md-input rl-calc-cfgtext", rows: "4", spellcheck: "false",
        autocomplete: "off", "aria-label": "config.json text", placeholder: '{"model_type": "llama", ...}' });
      const file = h("input", { type: "file", accept: ".json,application/json", class: "rl-calc-cfgfile",
        "aria-label": "Choose a config.json file" });
      wrap.insertBefore(area, wrap.lastChild);
      wrap.insertBefore(file, wrap.lastChild);
      area.id = `${uid}-cfgtext`;
      wrap.querySelector("label").setAttribute("for", area.id);
      // What the reader understood, echoed back: layers, heads, parameters, attention, quantization.
      wrap.appendChild(h("p", { class: "rl-calc-cfgecho", id: `${uid}-cfg-echo` }));
      return wrap;
    },
  };
  const groups = {
    device: h("div", { class: "rl-calc-custom", "data-group": "device" }),
    model: h("div", { class: "rl-calc-custom", "data-group": "model" }),
    config: h("div", { class: "rl-calc-custom", "data-group": "config" }),
    layout: h("div", { class: "rl-calc-layout", "data-group": "layout" }),
  };
  for (const key of keys) {
    if (!all[key]) continue;
    const node = all[key]();
    const g = FIELDS[key].group;
    if (g && groups[g]) {
      if (!groups[g].parentNode) fs.appendChild(groups[g]);
      groups[g].appendChild(node);
    } else fs.appendChild(node);
  }
  return { el: fs, inputs, msgs, wraps, groups };
}

function readRaw(panel, fallback) {
  const raw = { ...fallback };
  for (const [key, input] of Object.entries(panel.inputs)) raw[key] = input.value;
  return raw;
}

function writeRaw(panel, raw) {
  for (const [key, input] of Object.entries(panel.inputs)) {
    if (raw[key] !== undefined) input.value = raw[key];
  }
}

/** Show only the fields that apply: custom groups when custom is chosen, the length of the phase. */
function syncVisibility(panel, raw) {
  panel.groups.device.hidden = raw.hw !== "custom";
  panel.groups.model.hidden = raw.model !== "custom";
  panel.groups.config.hidden = raw.model !== "config";
  if (panel.wraps.ctx) panel.wraps.ctx.hidden = raw.phase === "prefill";
  if (panel.wraps.prompt) panel.wraps.prompt.hidden = raw.phase !== "prefill";
  if (panel.wraps.latus) panel.wraps.latus.hidden = raw.lat !== "custom";
}

/** When the reader picks "custom", start the custom fields from the entry they had chosen. */
function seedCustom(registry, panel, previous) {
  const inp = panel.inputs;
  if (inp.hw && inp.hw.value === "custom" && inp.peak && !inp.peak.value && !inp.bw.value && !inp.mem.value) {
    const d = registry.devices.find((x) => x.id === previous.hw) || registry.devices[0];
    const C = registry.constants;
    inp.peak.value = String(dec(calc.peakFlopPerS(C, d, calc.sixteenBitDtype(C, d)) / registry.units.peak_TFLOP_per_s));
    inp.bw.value = String(dec(d.memory_bandwidth_bytes_per_s / registry.units.bandwidth_TB_per_s));
    inp.mem.value = String(dec(d.memory_capacity_bytes / registry.units.memory_GB));
  }
  if (inp.model && inp.model.value === "custom" && inp.params && !inp.params.value) {
    const m = registry.models.find((x) => x.id === previous.model);
    if (m) {
      inp.params.value = String(Number((calc.totalParams(m) / registry.units.params_billions).toPrecision(4)));
    } else {
      inp.params.value = String(registry.defaults.params / registry.units.params_billions);
    }
  }
}

function showErrors(panel, errors, notices = {}) {
  for (const [key, msg] of Object.entries(panel.msgs)) {
    const text = errors[key] || notices[key] || "";
    msg.textContent = text;
    msg.classList.toggle("rl-calc-notice", !errors[key] && Boolean(notices[key]));
    const input = panel.inputs[key];
    if (errors[key]) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }
}

/** The field a whole-result problem is shown beside: the first custom value, else the batch. */
function firstCustomKey(raw) {
  if (raw.hw === "custom") return "peak";
  if (raw.model === "custom") return "params";
  return "batch";
}

/** Beside the weight select: the format it set and why ("read from config.json"); the config's echo. */
function noteWeights(registry, panel, cfg) {
  const note = panel.wraps.wd && panel.wraps.wd.querySelector(".rl-calc-wdnote");
  const ok = cfg && !Object.keys(cfg.errors || {}).length && cfg.wd;
  if (note) {
    const text = ok ? weightWords(registry, cfg) : "";
    if (note.textContent !== text) note.textContent = text;
  }
  const echo = panel.wraps.cfg && panel.wraps.cfg.querySelector(".rl-calc-cfgecho");
  if (echo) {
    const text = ok && cfg.model.id === "config" ? echoConfig(registry, cfg.model) : "";
    if (echo.textContent !== text) echo.textContent = text;
  }
}

function compute(registry, raw) {
  const cfg = resolveConfig(registry, raw);
  if (Object.keys(cfg.errors).length) return { errors: cfg.errors };
  try {
    const out = view.calculate(registry.constants, cfg.device, cfg.model, cfg.phase, cfg.batch, cfg.length, cfg.wd, cfg.kvd,
      cfg.act, cfg.attn, cfg.tp, cfg.pp, cfg.ep, cfg.latency, cfg.ws);
    // Inputs inside their limits can still combine into a result no number can show (an overflow):
    // the same inline sentence as any other bad value, never a page error or a stale summary.
    const bad = Object.entries(out).find(([, v]) => typeof v === "number" && !Number.isFinite(v));
    if (bad) return { errors: { [firstCustomKey(raw)]: "These values give a result too large or too small to show; check them." } };
    return { cfg, out, errors: {} };
  } catch (err) {
    // A layout the CLI refuses gets the CLI's sentence beside the option it names.
    const msg = String(err.message || err);
    const opt = /^--(tp|pp|ep|devices)\b/.exec(msg);
    // Past the model's maximum context: the sentence goes beside the context or prompt field.
    const length = /^(Context|Prompt) length\b/.exec(msg);
    const peak = /has no published \w+ peak/.test(msg); // a format the device cannot compute in: beside Activations
    const key = opt ? (opt[1] === "devices" ? "dev" : opt[1]) : length ? (length[1] === "Context" ? "ctx" : "prompt")
      : peak ? "act" : "batch";
    return { errors: { [key]: msg } };
  }
}

/** The Devices field: an engine's layout for that many devices written into TP, PP and EP; else
 *  the product of the three, so it always says how many devices the view uses. */
function syncDevices(registry, panel, source) {
  const inp = panel.inputs;
  if (!inp.dev) return null;
  if (source === inp.dev) {
    // Parsed as every field is (Number("0x4") would read 4): a bad value's sentence comes from resolveConfig.
    const parsed = parseNumber(inp.dev.value, FIELDS.dev.label, registry.limits[FIELDS.dev.limit]);
    const raw = readRaw(panel, {});
    const cfg = resolveConfig(registry, { ...raw, tp: "1", pp: "1", ep: "1", dev: "1" });
    if (!cfg.model || !cfg.device || parsed.message) return null; // the field's own check speaks
    const n = parsed.value;
    try {
      const lay = engineLayout(registry.constants.kernels, cfg.model, cfg.device, n);
      inp.tp.value = String(lay.tp); inp.pp.value = String(lay.pp); inp.ep.value = String(lay.ep);
      return null;
    } catch (err) {
      if (!(err instanceof calc.CalcError)) throw err;
      return err.message;
    }
  }
  const degrees = [inp.tp.value, inp.pp.value, inp.ep.value].map((v) => Number(String(v).trim()));
  if (degrees.every((v) => Number.isInteger(v) && v >= 1)) inp.dev.value = String(degrees[0] * degrees[1] * degrees[2]);
  return null;
}

/** The weight format a configuration computes in, the tensors it covers, and why, in words. */
function weightWords(registry, cfg) {
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
function echoConfig(registry, m) {
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

function describe(registry, cfg) {
  const dev = cfg.device.id === "custom" ? "custom device" : cfg.device.name;
  const mod = cfg.model.id === "custom" ? `${fmt.count(cfg.model.bare_params)}-parameter model`
    : cfg.model.id === "config" ? `your model (${fmt.count(calc.totalParams(cfg.model))} parameters)` : cfg.model.name;
  const len = cfg.phase === "prefill" ? `prompt ${fmt.integer(cfg.length)}` : `context ${fmt.integer(cfg.length)}`;
  return `${mod} on the ${dev}, ${cfg.phase}, batch ${fmt.integer(cfg.batch)}, ${len}, ${weightWords(registry, cfg)} weights, `
    + `${cfg.act.toUpperCase()} activations, ${cfg.kvd.toUpperCase()} KV cache, ${cfg.attn} attention`;
}

/** What binds on the link, for the chart's hollow point: the link's bandwidth only where a stage's
 *  FLOPs per link byte sit below the link ridge, else the collectives' latency (or nothing on the link). */
function linkBinds(o) {
  if (o.bound === "collective latency-bound") return "latency binds";
  if (o.bound === "link-bandwidth-bound") return "bandwidth binds";
  return o.link_intensity < o.link_ridge_point ? "under the link ridge" : "bandwidth does not bind";
}

// ---------------------------------------------------------------- results table
const YES_NO = (v) => (v ? "yes" : "no");
const ROWS = [
  { key: "time_s", label: "Time per step (sum of the kernels)", f: fmt.seconds, fit: true },
  { key: "time_perfect_overlap_s", label: "Perfect overlap (lower bound)", f: fmt.seconds, fit: true },
  { key: "time_to_first_token_s", label: "Time to first token (prefill)", f: fmt.seconds, fit: true },
  { key: "tokens_per_s_per_sequence", label: "Tokens/s per sequence", f: fmt.tokensPerS, fit: true },
  { key: "tokens_per_s", label: "Tokens/s, whole batch", f: fmt.tokensPerS, fit: true },
  { key: "tokens_per_s_per_device", label: "Tokens/s per device", f: fmt.tokensPerS, fit: true },
  { key: "bound", label: "Bound (where most of the step's time goes)", f: String },
  { key: "layout", label: "Layout", f: String },
  { key: "devices", label: "Devices", f: fmt.integer },
  { key: "collective_time_s", label: "Collectives per step (latency + bytes ÷ link)", f: fmt.seconds },
  { key: "collective_latency", label: "Collective latency used", f: String, none: "no collectives" },
  { key: "expected_tokens_per_s_per_sequence", label: "Tokens/s per sequence, expected (NCCL ring latency)",
    f: fmt.tokensPerS, fit: true, none: "no collectives" },
  { key: "link_intensity", label: "FLOPs per byte sent over the link", f: fmt.intensity, none: "nothing sent" },
  { key: "link_ridge_point", label: "Link ridge point (peak ÷ link bandwidth)", f: fmt.intensity, none: "no link recorded" },
  { key: "arithmetic_intensity", label: "Arithmetic intensity, whole step", f: fmt.intensity },
  { key: "ridge_point", label: "Ridge point (matmul peak)", f: fmt.intensity },
  { key: "peak_flop_per_s", label: "Peak FLOP/s (dense, matmul format)", f: fmt.flopPerS },
  { key: "weight_format", label: "Weight format (beside the select: which tensors, and why)", f: (v) => v.toUpperCase() },
  { key: "compute_dtype", label: "Weight matmuls run in", f: (v) => v.toUpperCase() },
  { key: "fits", label: "Fits in memory", f: YES_NO },
  { key: "max_batch_that_fits", label: "Largest batch that fits (this context)", f: fmt.integer, none: "no KV cache modelled" },
  { key: "memory_required_bytes", label: "Memory needed per device (with runtime reserve)", f: fmt.nbytes },
  { key: "usable_memory_bytes", label: "Memory each device exposes", f: fmt.nbytes },
  { key: "weights_resident_bytes", label: "Weights in memory, per device", f: fmt.nbytes },
  { key: "kv_resident_bytes", label: "KV-cache size, per device", f: fmt.nbytes },
  { key: "critical_batch", label: "Critical batch (weight matmuls reach the ridge)", f: fmt.integer, none: "none up to the limit" },
  { key: "attention_intensity", label: "Decode attention's intensity (any batch)", f: fmt.intensity, none: "no attention modelled" },
  { key: "speed_of_light_tokens_per_s", label: "Speed of light (decode, batch 1, weights only, this layout)", f: fmt.tokensPerS },
  { key: "flops", label: "FLOPs per step (one device, one stage)", f: fmt.flops },
  { key: "bytes", label: "Bytes moved per step (one device, one stage)", f: fmt.nbytes },
  { key: "weight_bytes", label: "Weight bytes read per step (one device, one stage)", f: fmt.nbytes },
];
const MINI_ROWS = ["time_s", "time_to_first_token_s", "tokens_per_s_per_sequence", "tokens_per_s", "bound", "fits",
  "max_batch_that_fits"];

function cellText(row, out) {
  const v = out[row.key];
  if (row.phase && out.phase !== row.phase) return DASH;
  if (row.key === "time_to_first_token_s" && out.phase !== "prefill") return DASH;
  if (row.fit && !out.fits) return "does not fit";
  if ((v === null || v === "") && row.none) return row.none;
  return show(v, row.f);
}

function resultsTable(rows, columns, uid) {
  const table = h("table", { class: "rl-calc-results" });
  const head = h("tr", {}, h("th", { scope: "col", text: "Output" }));
  for (const c of columns) head.appendChild(h("th", { scope: "col", text: c.title }));
  table.appendChild(h("thead", {}, head));
  const body = h("tbody");
  const cells = {};
  for (const row of rows) {
    const tr = h("tr", { "data-row": row.key }, h("th", { scope: "row", text: row.label }));
    for (const c of columns) {
      const td = h("td", { "data-config": c.key, "data-output": row.key, id: `${uid}-${c.key}-${row.key}` });
      td.textContent = DASH;
      tr.appendChild(td);
      cells[`${c.key}/${row.key}`] = td;
    }
    body.appendChild(tr);
  }
  table.appendChild(body);
  return { table, cells };
}

/** The largest batch that fits, in one sentence: what the configuration needs against what the device exposes. */
function memoryWall(o, cfg) {
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

// ---------------------------------------------------------------- kernel by kernel
// Configuration A as the kernels a serving engine runs (kernels.js, the package's per-kernel model).
// Each body cell carries its column's name (data-label): under 720 px the table is one card per kernel.
const KERNEL_COLUMNS = ["Kernel", "Runs", "FLOP/byte", "Bound", "Time", "Share"];
function kernelTable(uid) {
  const table = h("table", { class: "rl-calc-results rl-calc-kernels", id: `${uid}-kernels` });
  const caption = h("caption", { text: "Configuration A, kernel by kernel" });
  table.appendChild(caption);
  const head = h("tr");
  for (const t of KERNEL_COLUMNS) head.appendChild(h("th", { scope: "col", text: t }));
  table.appendChild(h("thead", {}, head));
  const body = h("tbody");
  table.appendChild(body);
  return { table, body, caption };
}

function fillKernels(kt, last) {
  const rows = [];
  if (last) {
    const { cfg, out } = last;
    kt.caption.textContent = `Configuration A, kernel by kernel (${cfg.attn} attention, ${cfg.wd.toUpperCase()} weights${
      ["bf16", "fp16", "fp32"].includes(cfg.wd) ? "" : ` on ${cfg.wscopeWords}`}, `
      + `${cfg.act.toUpperCase()} activations, ${cfg.kvd.toUpperCase()} KV cache${out.devices > 1
        ? `; one of ${fmt.integer(out.devices)} devices, ${out.layout}, with its collectives` : ""})`;
    // Under pipeline parallelism a token crosses every stage: a stage's kernels and collectives run pp times.
    const pp = cfg.pp || 1;
    for (const o of out.ops) {
      const runs = o.name === "pp_send" ? o.count : o.count * pp;
      rows.push([o.name, runs > 1 ? `×${runs}` : "", o.compute_dtype === "link" ? "over the link" : show(o.arithmetic_intensity, fmt.intensity),
        o.bound, show(o.time_s, fmt.seconds),
        show((o.name === "pp_send" ? 1 : pp) * o.time_s / out.time_s, (v) => `${(100 * v).toPrecision(3)}%`)]);
    }
    rows.push(["Step (sum of kernels)", "", show(out.arithmetic_intensity, fmt.intensity), out.bound, show(out.time_s, fmt.seconds), "100%"]);
    rows.push(["Perfect overlap (lower bound)", "", "", "", show(out.time_perfect_overlap_s, fmt.seconds), ""]);
  } else rows.push([DASH, "", "", "", "", ""]);
  // Rows are kept and only their changed text rewritten: a redraw then lays out little.
  const trs = [...kt.body.children];
  rows.forEach((cells, r) => {
    let tr = trs[r];
    if (!tr) {
      tr = h("tr");
      cells.forEach((_, i) => tr.appendChild(h(i === 0 ? "th" : "td", i === 0 ? { scope: "row" } : { "data-label": KERNEL_COLUMNS[i] })));
      kt.body.appendChild(tr);
    }
    cells.forEach((c, i) => { if (tr.children[i].textContent !== c) tr.children[i].textContent = c; });
  });
  for (const tr of trs.slice(rows.length)) tr.remove();
}

// ---------------------------------------------------------------- the address bar
// Write the view into the URL a moment after the last keystroke: browsers throttle a page
// that rewrites its history on every input event.
const URL_DELAY_MS = 150;
function scheduleUrl(root, query) {
  clearTimeout(root.rlUrlTimer);
  root.rlUrlTimer = setTimeout(() => {
    if (!root.isConnected) return; // instant navigation moved on to another page
    const url = `${window.location.pathname}?${query}${window.location.hash}`;
    if (url !== window.location.pathname + window.location.search + window.location.hash) {
      window.history.replaceState(window.history.state, "", url);
    }
  }, URL_DELAY_MS);
}

// ---------------------------------------------------------------- the widget
function initWidget(root, registry) {
  const mini = root.classList.contains("rl-calc-mini");
  const uid = `rlc${++counter}`;
  const useUrl = !mini && root.dataset.urlState !== "off";
  const keys = mini ? ["hw", "model", "phase", "batch", "ctx", "prompt"] : Object.keys(FIELDS);
  const configs = mini
    ? [{ key: "a", prefix: "", title: "This configuration", base: defaultRaw(registry) }]
    : [{ key: "a", prefix: "", title: "A: your configuration", base: defaultRaw(registry) },
      { key: "b", prefix: "b_", title: "B: comparison", base: defaultRaw(registry, true) }];
  if (mini) { // data-hw="h100-sxm5" data-batch="8" ...: the embedding page's starting point
    for (const k of Object.keys(FIELDS)) if (root.dataset[k] !== undefined) configs[0].base[k] = root.dataset[k];
  }

  root.replaceChildren();
  const form = h("form", { class: "rl-calc-form", novalidate: true, "aria-label": mini ? "Roofline calculator (compact)" : "Roofline calculator" });
  form.addEventListener("submit", (e) => e.preventDefault());
  const summary = h("p", { class: "rl-calc-summary", "aria-live": "polite", id: `${uid}-summary` });
  const { table, cells } = resultsTable(mini ? ROWS.filter((r) => MINI_ROWS.includes(r.key)) : ROWS,
    configs.map((c) => ({ key: c.key, title: c.title.split(":")[0] })), uid);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "rl-calc-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-labelledby", `${uid}-caption`);
  const caption = h("figcaption", { id: `${uid}-caption` });
  const figure = h("figure", { class: "rl-calc-figure" }, svg, caption);
  const link = h("a", { class: "rl-calc-link", href: "#" }, document.createTextNode(mini ? "Open in the full calculator" : "Link to this view"));

  for (const c of configs) {
    const search = useUrl ? window.location.search : "";
    const { raw, notices } = decodeState(registry, search, c.prefix, c.base);
    c.raw = raw;
    c.notices = notices;
    c.panel = configPanel(registry, `${uid}-${c.key}`, c.title, keys);
    writeRaw(c.panel, raw);
    syncVisibility(c.panel, raw);
    if (c.key === "b") {
      // B folded behind "Compare" on a phone (open on wider screens, or when a link sets B).
      const open = window.matchMedia("(min-width: 45em)").matches || /[?&]b_/.test(window.location.search);
      const compare = h("details", { class: "rl-calc-compare" },
        h("summary", {}, document.createTextNode("Compare with a second configuration (B)")), c.panel.el);
      compare.open = open;
      form.appendChild(compare);
    } else {
      form.appendChild(c.panel.el);
    }
    c.last = null; // the last valid result: the chart and table fall back to it
  }
  const kt = mini ? null : kernelTable(uid);
  const results = h("div", { class: "rl-calc-out" }, summary, h("div", { class: "rl-calc-table-wrap" }, table),
    kt ? h("div", { class: "rl-calc-table-wrap" }, kt.table) : null);
  const linkline = h("p", { class: "rl-calc-linkline" }, link);
  // The result bar: A's bound, time and tokens/s, kept at the bottom of a phone's screen while the
  // fields scroll (CSS: sticky). It repeats the summary, so assistive technology skips it.
  const bar = h("div", { class: "rl-calc-bar", "aria-hidden": "true" });
  if (!mini) {
    const said = h("span", { class: "rl-calc-said", role: "status" });
    const copy = h("button", { type: "button", class: "rl-calc-copy" }, document.createTextNode("Copy link"));
    copy.addEventListener("click", () => {
      const url = new URL(link.getAttribute("href"), window.location.href).href;
      const done = () => { said.textContent = "Link copied: it opens this view."; };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(url).then(done, () => { said.textContent = `Copy this link: ${url}`; });
      } else {
        said.textContent = `Copy this link: ${url}`;
      }
    });
    linkline.append(document.createTextNode(" "), copy);
    if (navigator.share) {
      const share = h("button", { type: "button", class: "rl-calc-share" }, document.createTextNode("Share"));
      share.addEventListener("click", () => {
        const url = new URL(link.getAttribute("href"), window.location.href).href;
        navigator.share({ title: document.title, url }).then(() => { said.textContent = "Shared."; }, () => {});
      });
      linkline.append(document.createTextNode(" "), share);
    }
    linkline.append(document.createTextNode(" "), said);
  }
  root.append(form, h("div", { class: "rl-calc-panel" }, results, figure), linkline);
  if (!mini) root.append(bar);

  const readPasted = (c, text) => {
    // A bad config: its one sentence beside the field, and the last valid model kept.
    c.cfgError = null;
    try {
      const m = readConfigText(registry.config_reader, text, "config.json");
      c.panel.inputs.cfg.value = encodeModel(m);
    } catch (err) {
      if (!(err instanceof calc.CalcError)) throw err;
      c.cfgError = err.message;
    }
  };
  let chartSize = null;
  const recompute = (source) => {
    const states = [];
    for (const c of configs) {
      const previous = c.raw;
      if (source && c.panel.el.contains(source)) seedCustom(registry, c.panel, previous);
      if (source && source.classList && source.classList.contains("rl-calc-cfgtext") && c.panel.el.contains(source)) {
        readPasted(c, source.value);
      }
      const devError = c.panel.el.contains(source) || !source ? syncDevices(registry, c.panel, source) : null;
      c.raw = readRaw(c.panel, c.base);
      syncVisibility(c.panel, c.raw);
      const r = compute(registry, c.raw);
      if (devError) r.errors = { ...r.errors, dev: devError };
      if (c.cfgError && c.raw.model === "config") {
        r.errors = { ...r.errors, cfg: c.cfgError };
        if (c.last) { r.out = null; }
      }
      if (source && c.panel.el.contains(source)) c.notices = {};
      showErrors(c.panel, r.errors, c.notices);
      if (r.out) { c.last = { cfg: r.cfg, out: r.out }; c.lastRaw = { ...c.raw }; }
      noteWeights(registry, c.panel, r.cfg);
      states.push({ c, r });
    }
    const parts = [];
    for (const { c, r } of states) {
      const name = c.title.split(":")[0];
      const shown = c.last;
      for (const row of (mini ? ROWS.filter((x) => MINI_ROWS.includes(x.key)) : ROWS)) {
        const td = cells[`${c.key}/${row.key}`];
        const text = shown ? cellText(row, shown.out) : DASH;
        if (td.textContent !== text) td.textContent = text;
        const v = shown ? shown.out[row.key] : null;
        const value = typeof v === "number" && Number.isFinite(v) ? String(v) : (v === null || v === undefined ? "" : String(v));
        if (td.dataset.value !== value) td.dataset.value = value;
        td.classList.toggle("rl-calc-stale", Boolean(r.errors && Object.keys(r.errors).length));
      }
      if (Object.keys(r.errors).length) {
        const [key, msg] = Object.entries(r.errors)[0];
        parts.push(`${name}: ${msg} ${shown ? "Showing the last valid result." : ""}`.trim());
      } else {
        const o = r.out;
        const speed = o.phase === "prefill"
          ? `time to first token ${fmt.seconds(o.time_s)} (perfect overlap ${fmt.seconds(o.time_perfect_overlap_s)})`
          : `${fmt.seconds(o.time_s)} per step, ${fmt.tokensPerS(o.tokens_per_s_per_sequence)} per sequence `
            + `(perfect overlap ${fmt.seconds(o.time_perfect_overlap_s)})`;
        // Beside a ceiling (the floor) or a latency the reader set: what an NCCL ring's latency gives.
        const expected = o.expected_tokens_per_s_per_sequence === null || o.phase === "prefill" || r.cfg.latency === "ring" ? ""
          : `; with an NCCL ring's latency, expect ${fmt.tokensPerS(o.expected_tokens_per_s_per_sequence)} per sequence`;
        const many = o.devices > 1 ? ` On ${fmt.integer(o.devices)} devices (${o.layout}): `
          + `${fmt.tokensPerS(o.tokens_per_s_per_device)} per device, collectives ${fmt.seconds(o.collective_time_s)} per step`
          + `${o.collective_latency ? ` (collective latency: ${o.collective_latency})${expected}` : ""}`
          + `${o.bubble_fraction > 0 ? `, each stage idle ${(100 * o.bubble_fraction).toPrecision(3)}% of the time` : ""}.`
          + `${o.kv_note ? ` ${o.kv_note}.` : ""}` : "";
        parts.push(o.fits ? `${name}: ${o.bound}, ${speed}.${many} ${memoryWall(o, r.cfg)}`.trim()
          : `${name}: ${memoryWall(o, r.cfg)}`);
      }
    }
    const text = parts.join(" ");
    if (summary.textContent !== text) summary.textContent = text;
    if (kt) fillKernels(kt, configs[0].last);
    const a = configs[0].last && configs[0].last.out;
    const barText = !a ? DASH : (!a.fits ? `A: ${a.bound}, does not fit in memory`
      : a.phase === "prefill" ? `A: ${a.bound} · time to first token ${fmt.seconds(a.time_s)}`
      : `A: ${a.bound} · ${fmt.seconds(a.time_s)} per step · ${fmt.tokensPerS(a.tokens_per_s_per_sequence)} per sequence`);
    if (bar.textContent !== barText) bar.textContent = barText;
    const series = configs.filter((c) => c.last).map((c) => ({
      key: c.key, label: c.title.split(":")[0], intensity: c.last.out.arithmetic_intensity,
      attainable: c.last.out.attained_flop_per_s, peak: c.last.out.peak_flop_per_s,
      bandwidth: c.last.out.bandwidth_bytes_per_s, ridge: c.last.out.ridge_point,
      link: c.last.out.link_intensity === null || c.last.out.link_ridge_point === null ? null
        : { ridge: c.last.out.link_ridge_point, intensity: c.last.out.link_intensity, bound: c.last.out.bound,
            binds: linkBinds(c.last.out) },
    }));
    const kernelDots = mini || !configs[0].last ? [] : configs[0].last.out.ops.map((o) => ({
      name: `${o.name}: ${fmt.intensity(o.arithmetic_intensity)}, ${o.bound}`,
      intensity: o.arithmetic_intensity, attained: o.flops / o.time_s,
    }));
    // At the container's width (a phone's chart is drawn narrow, not shrunk: its labels keep their size).
    // Measured once: a redraw after a bad input keeps the same chart.
    if (!chartSize) {
      const room = Math.round(figure.clientWidth || root.clientWidth || 640);
      const width = Math.max(300, Math.min(mini ? 420 : 640, room));
      chartSize = { width, height: Math.round(width * (width < 480 ? 0.75 : 0.5625)) };
    }
    const size = chartSize;
    if (series.length && drawChart(svg, series, size, "Roofline chart", kernelDots)) {
      caption.textContent = configs.filter((c) => c.last).map((c) => `${c.title.split(":")[0]}: ${describe(registry, c.last.cfg)}.`).join(" ");
    }
    const query = encodeState(configs.map((c) => ({ raw: c.lastRaw || c.base, prefix: c.prefix })));
    if (mini) {
      link.href = `${new URL("../../calculator/", HERE).pathname}?${query}`;
    } else {
      link.href = `?${query}`;
      if (useUrl) scheduleUrl(root, query);
    }
  };
  form.addEventListener("input", (e) => recompute(e.target));
  form.addEventListener("change", (e) => {
    const t = e.target;
    if (t.classList && t.classList.contains("rl-calc-cfgfile")) {
      const f = t.files && t.files[0];
      const c = configs.find((x) => x.panel.el.contains(t));
      const area = t.parentNode.querySelector(".rl-calc-cfgtext");
      if (!f || !c || !area) return;
      if (f.size > registry.config_reader.max_bytes) {
        c.cfgError = `${f.name}: ${Math.round(f.size / 1e6)} MB is too large for a config.json (at most 10 MB)`;
        recompute(null);
        return;
      }
      const reader = new FileReader(); // read in the browser; nothing is sent anywhere
      reader.onload = () => { area.value = String(reader.result); recompute(area); };
      reader.onerror = () => { c.cfgError = `${f.name}: could not be read`; recompute(null); };
      reader.readAsText(f);
      return;
    }
    recompute(t);
  });
  root.rlRecompute = recompute; // for the benchmark
  // The first results and chart in a task of their own: a slow phone then never runs one long
  // task for the whole widget (Lighthouse counts every millisecond past 50 as blocking).
  return nextTask().then(() => {
    recompute(null);
    root.dataset.rlReady = "true";
  });
}

function nextTask() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function initAll() {
  const roots = [...document.querySelectorAll(".rl-calc, .rl-calc-mini")].filter((r) => !r.dataset.rlReady && !r.dataset.rlLoading);
  if (!roots.length) return;
  ensureStylesheet();
  for (const root of roots) {
    root.dataset.rlLoading = "true";
    const url = root.dataset.registry ? new URL(root.dataset.registry, document.baseURI).href
      : new URL("../../calculator/registry.json", HERE).href;
    // Each widget starts in a task of its own (see initWidget).
    loadRegistry(url).then((registry) => nextTask().then(() => initWidget(root, registry))).catch((err) => {
      const p = document.createElement("p");
      p.className = "rl-calc-failed";
      p.textContent = `The calculator could not load its data (${url}): ${err.message || err}.`;
      root.replaceChildren(p);
    }).finally(() => { delete root.dataset.rlLoading; });
  }
}

initAll();
if (window.document$ && typeof window.document$.subscribe === "function") {
  window.document$.subscribe(() => initAll());
}
