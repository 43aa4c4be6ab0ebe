// The calculator's page code: builds the form into every .rl-calc (full) and .rl-calc-mini
// (compact) element, recomputes on every input event, draws the chart and keeps the view in
// the URL (full version only). Everything the reader typed reaches the page via textContent
// or form values, never as HTML. Works with Material's instant navigation: the module runs
// once, then re-initialises on every page swap through `document$`.

import * as calc from "./calc.js";
import * as view from "./view.js";
import * as fmt from "./format.js";
import { FIELDS, decodeState, defaultRaw, encodeState, inReaderWords, resolveConfig, useLinkReader } from "./state.js";
import { drawChart } from "./chart.js";
import { DASH, configPanel, firstCustomKey, h, noteWeights, readConfigFile, readRaw, seedCustom, showErrors,
  syncDevices, syncVisibility, writeRaw } from "./dom.js";
import { MINI_ROWS, ROWS, cellText, fillKernels, kernelTable, resultsTable } from "./tables.js";
import { describe, linkBinds, memoryWall } from "./words.js";
import { scheduleUrl } from "./url.js";
import { hasMany } from "./parallel.js";

// A module loaded from the same origin the first time it is asked for; a failed load is tried
// again on the next ask.
function onDemand(load) {
  let module = null;
  return () => {
    if (!module) {
      module = load();
      module.catch(() => { module = null; });
    }
    return module;
  };
}

// Serving mode's modules (serve_ui.js and what only it imports: serving.js, mixed.js, serve_state.js,
// frontier_chart.js) load when a reader first opens the mode or a link that restores it: a reader
// who stays with one step never downloads them.
// Their stylesheet (serve.css) and the registry's on-demand part (config.js's completeRegistry) come with them.
const loadServing = onDemand(() => Promise.all([import("./serve_ui.js"), import("./config.js"), loadMany()]));
const SERVE_FROM_FILE = "Opened from a file, the browser keeps the Serving mode's scripts from loading: serve the folder over HTTP to use it.";
const SERVE_FAILED = "The Serving mode did not load; switch again or reload the page to try again.";

// The config.json reader (config.js) loads when a reader first chooses "your config" (the paste and
// the file come after): a reader who never does, or who opens a link's model (model_link.js reads
// that), never downloads it, nor the registry's part only the reader reads (completeRegistry).
const loadReader = onDemand(() => import("./config.js"));
// A link's "your config" model (model_link.js, its decoder) loads when a view holds one and the reader
// has not come: the step mode alone never downloads it.
const loadLink = onDemand(() => import("./model_link.js"));
// Layouts of more than one device (many.js: the collectives, the layout checks, the shards) load when a view
// first asks for several devices, or with the Serving mode: a reader on one device never downloads them.
const loadMany = onDemand(() => import("./many.js"));
const MANY_FROM_FILE = "Opened from a file, the browser keeps the layout model from loading: serve the folder over HTTP to use several devices.";
const MANY_FAILED = "The model of layouts over several devices did not load; change the devices again or reload the page to try again.";
const LINK_FROM_FILE = "Opened from a file, the browser keeps the link's model from loading: serve the folder over HTTP to use it.";
const LINK_FAILED = "The link's model did not load; reload the page to try again.";
const READER_FROM_FILE = "Opened from a file, the browser keeps the config.json reader from loading: serve the folder over HTTP to read a config.";
const READER_FAILED = "The config.json reader did not load; paste the config again or reload the page to try again.";

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

function compute(registry, raw) {
  const cfg = resolveConfig(registry, raw);
  if (Object.keys(cfg.errors).length) return { errors: cfg.errors };
  try {
    const out = view.calculate(registry.constants, cfg.device, cfg.model, cfg.phase, cfg.batch, cfg.length, cfg.wd, cfg.kvd,
      cfg.act, cfg.attn, cfg.tp, cfg.pp, cfg.ep, cfg.latency, cfg.ws, cfg.nodes);
    // Inputs inside their limits can still combine into a result no number can show (an overflow):
    // the same inline sentence as any other bad value, never a page error or a stale summary.
    const bad = Object.entries(out).find(([, v]) => typeof v === "number" && !Number.isFinite(v));
    if (bad) return { errors: { [firstCustomKey(raw)]: "These values give a result too large or too small to show; check them." } };
    return { cfg, out, errors: {} };
  } catch (err) {
    // A layout the CLI refuses gets the CLI's sentence beside the option it names.
    const msg = String(err.message || err);
    const opt = /^--(tp|pp|ep|devices|nodes)\b/.exec(msg);
    // Past the model's maximum context: the sentence goes beside the context or prompt field.
    const length = /^(Context|Prompt) length\b/.exec(msg);
    const peak = /has no published \w+ peak/.test(msg); // a format the device cannot compute in: beside Activations
    const key = opt ? (opt[1] === "devices" ? "dev" : opt[1]) : length ? (length[1] === "Context" ? "ctx" : "prompt")
      : peak ? "act" : "batch";
    return { errors: { [key]: inReaderWords(msg) } };
  }
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
  if (!mini) shareButtons(linkline, link);
  const stepSection = h("div", { class: "rl-calc-step" }, form, h("div", { class: "rl-calc-panel" }, results, figure));
  // The full calculator has a second mode, Serving (serve_ui.js): its section beside the step's, one shown at a time.
  const modes = mini ? null : modeSwitch(uid, useUrl ? window.location.search : "");
  // Its section is built once its modules arrive (loadServing); until then one line says it is loading.
  const search0 = useUrl ? window.location.search : "";
  let serving = null;
  const waiting = mini ? null : h("p", { class: "rl-calc-serve-wait", role: "status" });
  if (waiting) waiting.hidden = true;
  if (mini) root.append(stepSection, linkline);
  else root.append(modes.el, stepSection, waiting, linkline, bar);
  let stepQuery = "";
  // The link's s_ keys while the Serving mode loads: the ones the page was opened with.
  const asked = () => new URLSearchParams([...new URLSearchParams(search0)].filter(([k]) => k.startsWith("s_"))).toString();
  // The link: the step's view, and with the Serving mode shown, "mode=serve" and its s_ keys.
  const publish = () => {
    const serveKeys = serving ? serving.query() : asked();
    const query = modes && modes.value() === "serve" ? `${stepQuery}&mode=serve${serveKeys ? `&${serveKeys}` : ""}` : stepQuery;
    link.href = `?${query}`;
    if (useUrl) scheduleUrl(root, query);
  };
  if (modes) {
    const build = (m) => {
      if (serving) return;
      serving = m.servingSection(registry, uid, search0, defaultRaw(registry));
      serving.el.hidden = true;
      waiting.before(serving.el);
      serving.el.addEventListener("input", publish); // after the section's own recompute (its form is inside)
      serving.el.addEventListener("change", publish);
      root.rlServeRecompute = serving.recompute;
    };
    let computed = false;
    modes.show = () => {
      const serve = modes.value() === "serve";
      stepSection.hidden = serve;
      bar.hidden = serve;
      if (serving) serving.el.hidden = !serve;
      waiting.hidden = !serve || Boolean(serving);
      if (!serve) return;
      if (serving) {
        if (!computed) { computed = true; serving.recompute(null); } else serving.ensureDrawn();
        return;
      }
      waiting.classList.remove("rl-calc-failed");
      waiting.textContent = "Loading the Serving mode\u2026";
      // config.js hands on the link's model reader too: a Serving view of "your config" reads it.
      return loadServing().then(([m, reader]) => {
        useLinkReader(reader);
        return Promise.all([m.stylesheet(), reader.completeRegistry(registry)]).then(() => m);
      }).then((m) => {
        build(m); modes.show(); publish();
      }, () => {
        waiting.classList.add("rl-calc-failed");
        waiting.textContent = window.location.protocol === "file:" ? SERVE_FROM_FILE : SERVE_FAILED;
      });
    };
    modes.el.addEventListener("change", () => { modes.show(); publish(); });
  }

  let configReader = null; // config.js, once loaded
  let linkRead = null; // model_link.js on its way or come
  // config.js, once it and the registry's part it reads have arrived.
  const reader = () => loadReader().then((m) => m.completeRegistry(registry).then(() => m));
  const withReader = (source) => {
    // The reader's script first, then the same edit again; where it cannot come, one sentence.
    const c = configs.find((x) => x.panel.el.contains(source));
    reader().then((m) => { configReader = m; useLinkReader(m); root.dataset.rlReader = "true"; recompute(source); }, () => {
      if (c) c.cfgError = window.location.protocol === "file:" ? READER_FROM_FILE : READER_FAILED;
      recompute(null);
    });
  };
  const readPasted = (c, text) => {
    // A bad config: its one sentence beside the field, and the last valid model kept.
    c.cfgError = null;
    try {
      const m = configReader.readConfigText(registry.config_reader, text, "config.json");
      c.panel.inputs.cfg.value = configReader.encodeModel(m);
    } catch (err) {
      if (!(err instanceof calc.CalcError)) throw err;
      c.cfgError = err.message;
    }
  };
  let chartSize = null;
  let manyError = null; // many.js could not come: one sentence beside Devices until it does
  // Several devices asked for in any configuration (a layout field other than 1), before many.js has come.
  const LAYOUT_KEYS = ["dev", "tp", "pp", "ep", "nodes"];
  // (any node count asks for several devices: one node is a whole machine)
  const several = (c) => LAYOUT_KEYS.some((k) => c.panel.inputs[k]
    && !(k === "nodes" ? [""] : ["", "1"]).includes(String(c.panel.inputs[k].value).trim()));
  const wantsMany = () => !hasMany() && configs.some(several);
  const recompute = (source) => {
    const pasted = source && source.classList && source.classList.contains("rl-calc-cfgtext");
    if (pasted && !configReader) { withReader(source); return; }
    if (wantsMany() && (!manyError || (source && LAYOUT_KEYS.includes(source.name)))) {
      // many.js first, then the same edit again (the fields are read afresh); where it cannot come, one sentence.
      return loadMany().then(() => { manyError = null; return recompute(source); }, () => {
        manyError = window.location.protocol === "file:" ? MANY_FROM_FILE : MANY_FAILED;
        return recompute(null); // not the edit again: that would ask once more, and again
      });
    }
    if (manyError && !wantsMany()) manyError = null;
    const states = [];
    for (const c of configs) {
      const previous = c.raw;
      if (source && c.panel.el.contains(source)) seedCustom(registry, c.panel, previous);
      if (source && source.classList && source.classList.contains("rl-calc-cfgtext") && c.panel.el.contains(source)) {
        readPasted(c, source.value);
      }
      const devError = !manyError && (c.panel.el.contains(source) || !source) ? syncDevices(registry, c.panel, source) : null;
      c.raw = readRaw(c.panel, c.base);
      syncVisibility(c.panel, c.raw);
      if (c.raw.model === "config" && !configReader) {  // on its way while the reader pastes (one load, however often asked)
        reader().then((m) => { configReader = m; useLinkReader(m); root.dataset.rlReader = "true"; }, () => {});
      }
      if (c.raw.model === "config" && !linkRead && !configReader) {
        // Asked once: where it cannot come, one sentence (choosing "your config" again brings config.js,
        // which reads links too).
        const waiting = c;
        linkRead = loadLink().then((m) => { useLinkReader(m); recompute(null); }, () => {
          waiting.cfgError = window.location.protocol === "file:" ? LINK_FROM_FILE : LINK_FAILED;
          recompute(null);
        });
      }
      const r = manyError && several(c) ? { errors: { dev: manyError } } : compute(registry, c.raw);
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
          // plain strings inside: the site's minifier reads a template nested in a template as code
          + (o.collective_latency ? " (collective latency: " + o.collective_latency + ")" + expected : "")
          + (o.bubble_fraction > 0 ? ", each stage idle " + (100 * o.bubble_fraction).toPrecision(3) + "% of the time" : "")
          + (o.network_bytes > 0 ? "; across nodes the network carries " + fmt.nbytes(o.network_bytes) + " per device, "
            + fmt.seconds(o.network_time_s) + " (" + fmt.sig(100 * o.network_share) + "% of the step)" : "") + "."
          + (o.kv_note ? " " + o.kv_note + "." : "") : "";
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
      stepQuery = query;
      publish();
    }
  };
  form.addEventListener("input", (e) => recompute(e.target));
  form.addEventListener("change", (e) => {
    const t = e.target;
    if (t.classList && t.classList.contains("rl-calc-cfgfile")) {
      const c = configs.find((x) => x.panel.el.contains(t));
      if (c) readConfigFile(t, registry.config_reader.max_bytes, recompute, (msg) => { c.cfgError = msg; recompute(null); });
      return;
    }
    recompute(t);
  });
  root.rlRecompute = recompute; // for the benchmark
  // The first results and chart in a task of their own: a slow phone then never runs one long
  // task for the whole widget (Lighthouse counts every millisecond past 50 as blocking).
  // Ready once a link's Serving mode has loaded (or said it could not).
  return nextTask().then(() => recompute(null)).then(() => {
    const shown = modes ? modes.show() : null;
    if (modes) publish();
    return shown;
  }).then(() => { root.dataset.rlReady = "true"; });
}

/** Copy link (and Share, where the browser has it) beside the link, with what happened said in words. */
function shareButtons(linkline, link) {
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

const MODES = [["step", "One step: a decode or a prefill on the roofline"],
  ["serve", "Serving: requests, the latency–throughput frontier, targets and cost"]];

/** The mode switch: two radio buttons; a link's unknown mode opens one step and says so beside the switch. */
function modeSwitch(uid, search) {
  const asked = new URLSearchParams(search).get("mode");
  const known = MODES.some(([v]) => v === asked);
  const start = known ? asked : "step";
  const fs = h("fieldset", { class: "rl-calc-modes" }, h("legend", { text: "What to compute" }));
  for (const [value, text] of MODES) {
    const id = `${uid}-mode-${value}`;
    const input = h("input", { type: "radio", name: `${uid}-mode`, id, value });
    input.checked = value === start;
    fs.appendChild(h("label", { for: id, class: "rl-calc-mode" }, input, document.createTextNode(` ${text}`)));
  }
  const msg = h("span", { class: "rl-calc-msg rl-calc-notice", id: `${uid}-mode-msg` });
  if (asked !== null && !known) msg.textContent = `The link's mode ("${asked.slice(0, 40)}") is not step or serve; showing one step.`;
  fs.appendChild(msg);
  return { el: fs, value: () => (fs.querySelector("input:checked") || {}).value || "step" };
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

// Each instant navigation that brings a calculator builds it. On a page opened directly this module runs
// before Material's bundle (the page names it to the loader first, overrides/partials/scripts.js, which
// adds the scripts in order after the first paint), so document$ is looked for once the loader says the
// document is ready; a page swapped in later finds it at once.
function watch() {
  if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(() => initAll());
}

initAll();
if (window.document$) watch();
else document.addEventListener("DOMContentLoaded", watch);
