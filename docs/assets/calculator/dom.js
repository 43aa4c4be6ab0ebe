// The calculator's fields in the page: one element builder, one configuration's fieldset (its
// inputs, their one-sentence messages, the custom groups), reading and writing their values, and
// the Devices field's layout. Everything the reader typed goes in through form values or
// textContent, never as HTML.

import * as calc from "./calc.js";
import { engineLayout, forNodes, layoutOf } from "./parallel.js";
import { FIELDS, choices, inReaderWords, parseNumber, resolveConfig } from "./state.js";
import { echoConfig, weightWords } from "./words.js";

export function h(tag, attrs = {}, ...children) {
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
export const DASH = "—";
export function show(value, formatter) {
  if (value === null || value === undefined) return DASH;
  if (typeof value === "number" && !Number.isFinite(value)) return DASH;
  try { return formatter(value); } catch { return DASH; }
}
export const dec = (v) => Number(v.toPrecision(12)); // 989.4e12 / 1e12 -> 989.4, not 989.4000000000001

// ---------------------------------------------------------------- one configuration's fields
export function configPanel(registry, uid, legendText, keys, fields = FIELDS) {
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
      h("label", { for: id, text: fields[key].label }), control, msg);
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
    dev: () => text("dev"), tp: () => text("tp"), pp: () => text("pp"), ep: () => text("ep"), nodes: () => text("nodes"),
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
    // a key with no builder of its own is a number typed in a text field (the Serving mode's)
    const node = all[key] ? all[key]() : fields[key] && fields[key].limit ? text(key) : null;
    if (!node) continue;
    const g = fields[key].group;
    if (g && groups[g]) {
      if (!groups[g].parentNode) fs.appendChild(groups[g]);
      groups[g].appendChild(node);
    } else fs.appendChild(node);
  }
  return { el: fs, inputs, msgs, wraps, groups };
}

export function readRaw(panel, fallback) {
  const raw = { ...fallback };
  for (const [key, input] of Object.entries(panel.inputs)) raw[key] = input.value;
  return raw;
}

export function writeRaw(panel, raw) {
  for (const [key, input] of Object.entries(panel.inputs)) {
    if (raw[key] !== undefined) input.value = raw[key];
  }
}

/** Show only the fields that apply: custom groups when custom is chosen, the length of the phase. */
export function syncVisibility(panel, raw) {
  panel.groups.device.hidden = raw.hw !== "custom";
  panel.groups.model.hidden = raw.model !== "custom";
  panel.groups.config.hidden = raw.model !== "config";
  if (panel.wraps.ctx) panel.wraps.ctx.hidden = raw.phase === "prefill";
  if (panel.wraps.prompt) panel.wraps.prompt.hidden = raw.phase !== "prefill";
  if (panel.wraps.latus) panel.wraps.latus.hidden = raw.lat !== "custom";
}

/** When the reader picks "custom", start the custom fields from the entry they had chosen. */
export function seedCustom(registry, panel, previous) {
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

export function showErrors(panel, errors, notices = {}) {
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
export function firstCustomKey(raw) {
  if (raw.hw === "custom") return "peak";
  if (raw.model === "custom") return "params";
  return "batch";
}

/** Beside the weight select: the format it set and why ("read from config.json"); the config's echo. */
export function noteWeights(registry, panel, cfg) {
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

/** A config.json chosen with a panel's file input (`input`), read in the browser (nothing is sent
 *  anywhere) into the panel's text area; then `done(area)`, or `fail(sentence)` for a file too large
 *  (the size readConfigText refuses) or one that cannot be read. */
export function readConfigFile(input, maxBytes, done, fail) {
  const f = input.files && input.files[0];
  const area = input.parentNode.querySelector(".rl-calc-cfgtext");
  if (!f || !area) return;
  if (f.size > maxBytes) {
    fail(`${f.name}: ${Math.round(f.size / 1e6)} MB is too large for a config.json (at most 10 MB)`);
    return;
  }
  const reader = new FileReader();
  reader.onload = () => { area.value = String(reader.result); done(area); };
  reader.onerror = () => fail(`${f.name}: could not be read`);
  reader.readAsText(f);
}

/** The Devices field: an engine's layout for that many devices written into TP, PP and EP; else
 *  the product of the three, so it always says how many devices the view uses. */
export function syncDevices(registry, panel, source, fallback = {}) {
  const inp = panel.inputs;
  if (!inp.dev) return null;
  if (source === inp.dev) {
    // Parsed as every field is (Number("0x4") would read 4): a bad value's sentence comes from resolveConfig.
    const parsed = parseNumber(inp.dev.value, FIELDS.dev.label, registry.limits[FIELDS.dev.limit]);
    const raw = readRaw(panel, fallback); // `fallback`: the step fields a Serving panel does not have
    const cfg = resolveConfig(registry, { ...raw, tp: "1", pp: "1", ep: "1", dev: "1" });
    if (!cfg.model || !cfg.device || parsed.message) return null; // the field's own check speaks
    const n = parsed.value;
    try {
      const lay = engineLayout(registry.constants.kernels, cfg.model, cfg.device, n);
      inp.tp.value = String(lay.tp); inp.pp.value = String(lay.pp); inp.ep.value = String(lay.ep);
      return null;
    } catch (err) {
      if (!(err instanceof calc.CalcError)) throw err;
      return inReaderWords(err.message);
    }
  }
  const one = [inp.tp, inp.pp, inp.ep].every((x) => String(x.value).trim() === "1");
  if (inp.nodes && String(inp.nodes.value).trim() && (source === inp.nodes || (!source && one))) {
    // Nodes with one device asked picks the field's layout over them (roofline decode --nodes N); with a layout
    // typed, the layout stays and the step checks that it fills them.
    const parsed = parseNumber(inp.nodes.value, FIELDS.nodes.label, registry.limits[FIELDS.nodes.limit]);
    const cfg = resolveConfig(registry, { ...readRaw(panel, fallback), tp: "1", pp: "1", ep: "1", dev: "1", nodes: "" });
    if (!cfg.model || !cfg.device || parsed.message) return null;
    try {
      const lay = forNodes(registry.constants.kernels, cfg.model, cfg.device, layoutOf(registry.constants.kernels), parsed.value);
      inp.tp.value = String(lay.tp); inp.pp.value = String(lay.pp); inp.ep.value = String(lay.ep);
      inp.dev.value = String(lay.devices);
      return null;
    } catch (err) {
      if (!(err instanceof calc.CalcError)) throw err;
      return null; // the step refuses the same nodes with the same sentence, beside Nodes
    }
  }
  const degrees = [inp.tp.value, inp.pp.value, inp.ep.value].map((v) => Number(String(v).trim()));
  if (degrees.every((v) => Number.isInteger(v) && v >= 1)) inp.dev.value = String(degrees[0] * degrees[1] * degrees[2]);
  return null;
}
