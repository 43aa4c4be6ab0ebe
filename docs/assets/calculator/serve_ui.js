// The calculator's Serving mode: roofline serve in the page. One workload (I, O, concurrency or
// none, targets, price, the chunk) on the step calculator's device, model, formats, layout and
// collective latency fields; the frontier over every layout within one scale-up domain drawn
// with its envelope and the chosen point; TTFT, TPOT, tokens/s per user and per device, cost
// and the binding limit, each labelled a ceiling, with what it assumed. State in the link
// under "s_" keys. Reader text reaches the page through form values or textContent only.

import { CalcError } from "./calc.js";
import * as fmt from "./format.js";
import { encodeModel, readConfigText } from "./config.js";
import { latencyDescription } from "./many.js";
import { calculateServing, meets, mostPerDevice } from "./serving.js";
import { layoutWithDp } from "./mixed.js";
import { decodeState, encodeState } from "./state.js";
import { SERVE_FIELDS, STEP_FILLER, defaultServeRaw, resolveServing, serveKeys } from "./serve_state.js";
import { DASH, configPanel, h, noteWeights, readConfigFile, readRaw, seedCustom, show, showErrors, syncDevices,
  syncVisibility, writeRaw } from "./dom.js";
import { drawFrontier, layoutStyle } from "./frontier_chart.js";

// The mode's own rules (serve.css): the step mode's calculator.css goes without them (page weight).
const SHEET = new URL("./serve.css", import.meta.url).href;

/** serve.css in the page's head (once; again after a failed load), resolved once its rules apply, so the
 *  section is never shown unstyled; rejected when it cannot load. */
export function stylesheet() {
  let link = document.querySelector("link[data-rl-serve-css]");
  if (link && link.sheet) return Promise.resolve();
  if (!link) {
    link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = SHEET;
    link.dataset.rlServeCss = "";
    document.head.appendChild(link);
  }
  return new Promise((resolve, reject) => {
    link.addEventListener("load", () => resolve(), { once: true });
    link.addEventListener("error", () => { link.remove(); reject(new Error("serve.css did not load")); }, { once: true });
  });
}

const PREFIX = "s_";
const usd = (v) => `$${fmt.sig(v)}`;
const devicesText = (n) => `${fmt.integer(n)} device${n > 1 ? "s" : ""}`;

/** The chosen point's rows: every throughput a ceiling and every time a floor, unless the label says expected. */
const ROWS = [
  { key: "layout", label: "Layout", f: (v, p) => `${v} (${devicesText(p.devices)})` },
  { key: "concurrency", label: "Requests in flight (the clients')", f: fmt.integer },
  { key: "running", label: "Requests the engine holds (steady state)", f: (v) => fmt.sig(v) },
  { key: "memory_cap", label: "Memory cap: requests whose KV cache fits, held as assumed below", f: fmt.integer },
  { key: "limited_by", label: "Binding limit: what, relaxed by a quarter, raises output tokens/s", f: null },
  { key: "ttft_s", label: "Time to first token, TTFT (floor): the wait, then the steps carrying the prompt's own chunks",
    f: fmt.seconds },
  { key: "prefill_s", label: "The prompt's prefill alone on this layout (floor; TTFT never goes below it)", f: fmt.seconds },
  { key: "tpot_s", label: "Time per output token, TPOT, mean over a request's life (floor)", f: fmt.seconds },
  { key: "tpot_p50_s", label: "TPOT p50 (floor)", f: fmt.seconds },
  { key: "tpot_p90_s", label: "TPOT p90 (floor)", f: fmt.seconds },
  { key: "tpot_p99_s", label: "TPOT p99 (floor)", f: fmt.seconds },
  { key: "decode_step_s", label: "A step of decodes only (floor)", f: fmt.seconds },
  { key: "prompt_step_s", label: "A step carrying a prompt's chunk beside the decodes, mean over the chunks (floor)",
    f: fmt.seconds },
  { key: "prompt_gap_share", label: "Share of a request's gaps between tokens that carry another prompt's chunk",
    f: (v) => `${fmt.sig(v * 100)} %` },
  { key: "output_tokens_per_s_per_user", label: "Tokens/s per user, 1 ÷ mean TPOT (ceiling)", f: fmt.tokensPerS },
  { key: "output_tokens_per_s", label: "Output tokens/s, all devices (ceiling)", f: fmt.tokensPerS },
  { key: "output_tokens_per_s_per_device", label: "Output tokens/s per device (ceiling)", f: fmt.tokensPerS },
  { key: "expected_output_tokens_per_s_per_device", label: "Output tokens/s per device, expected (each kernel at its published efficiency; an estimate)",
    f: fmt.tokensPerS },
  { key: "expected_requests_in_flight", label: "Requests the expected figure holds at most (its engine's KV share and cap)",
    f: fmt.integer },
  { key: "usd_per_million_output_tokens", label: "$ per million output tokens (at the ceiling)", f: usd, none: "no price given" },
  { key: "usd_per_million_input_tokens", label: "$ per million input tokens (at the ceiling)", f: usd, none: "no price given" },
  { key: "request_latency_s", label: "Request latency, TTFT + (O − 1) × mean TPOT (floor)", f: fmt.seconds },
];

/** The field a refusal belongs beside, from the option its sentence names. */
function fieldOf(message) {
  if (/^--tp\/--pp\/--ep\/--dp\b/.test(message)) return "dev";
  const opt = /^--(input-tokens|output-tokens|concurrency|max-concurrency|chunk-tokens|price-per-device-hour|ttft-ms|tpot-ms|tp|pp|ep|dp|devices|speculative|draft-tokens|acceptance|draft-cost|engine|kv-memory|kv-block-tokens)\b/
    .exec(message);
  if (opt) {
    return { "input-tokens": "in", "output-tokens": "out", concurrency: "conc", "max-concurrency": "cap",
      "chunk-tokens": "chunk", "price-per-device-hour": "price", "ttft-ms": "ttft", "tpot-ms": "tpot", devices: "dev",
      speculative: "spec", "draft-tokens": "k", acceptance: "acc", "draft-cost": "dcost", engine: "eng", "kv-memory": "kvm",
      "kv-block-tokens": "blk" }[opt[1]] || opt[1];
  }
  if (/has no published \w+ peak/.test(message)) return "act";
  if (/bare parameter count|^--model/.test(message)) return "model";
  if (/^layouts\b/.test(message)) return "scope";
  if (/^--disaggregated\b/.test(message)) return "dis";
  if (/^--(ttft|tpot)-percentile\b/.test(message)) return message.slice(2, 6) + "p";
  return "in"; // no layout holds one request of I + O tokens
}

/** A package sentence as one sentence beside a field, in the reader's words: the command line's option
 *  names become the field's label (or go, before a colon), a capital first, a full stop last. */
const sentence = (msg) => {
  let s = String(msg).trim().replace(/^--[a-z-]+(\/--[a-z-]+)*: /, "").replace(/ --(tp|pp|ep|dp)\b/g, (_, k) => " " + k.toUpperCase())
    .replace(/--speculative draft\b/g, "a draft model").replace(/--speculative\b/g, "speculative decoding");
  const opt = /^--[a-z-]+/.exec(s);
  if (opt) {
    const f = SERVE_FIELDS[fieldOf(s)];
    s = (f ? f.label.replace(/\s*\(.*\)$/, "") : "This value") + s.slice(opt[0].length);
  }
  return (s.charAt(0).toUpperCase() + s.slice(1)).replace(/([^.])$/, "$1.");
};

function valueOf(row, p) {
  if (row.key === "expected_output_tokens_per_s_per_device") return p.expected_output_tokens_per_s / p.devices;
  return p[row.key];
}

/** A select of the Serving mode's own, built as configPanel builds the shared ones and registered in `panel`
 *  beside them (before the field `before`), so it is read, written and given its sentence the same way. */
function addSelect(panel, uid, key, options, before) {
  const id = `${uid}-${key}`;
  const sel = h("select", { id, name: key, "aria-describedby": `${id}-msg` });
  for (const [value, text] of options) sel.appendChild(h("option", { value, text }));
  const msg = h("span", { class: "rl-calc-msg", id: `${id}-msg` });
  const wrap = h("div", { class: "rl-calc-field", "data-key": key }, h("label", { for: id, text: SERVE_FIELDS[key].label }),
    sel, msg);
  panel.inputs[key] = sel; panel.msgs[key] = msg; panel.wraps[key] = wrap;
  before.parentNode.insertBefore(wrap, before);
}

/** Beside the layout fields: which layouts the frontier spans, and whether the layout typed below is used. */
function scopeNote(r, lay) {
  const ic = r.device.interconnect;
  const domain = `every layout within one scale-up domain (up to ${devicesText(ic ? ic.domain_devices : 1)})`;
  if (r.opts.layouts === "set") return `The frontier spans ${lay.name} alone (${devicesText(lay.devices)}).`;
  if (r.opts.concurrency !== null) return `Your point is on ${lay.name}; the frontier spans ${domain}.`;
  if (lay.devices > 1) {
    return `The layout below is set aside while the frontier spans ${domain}: choose “only the layout below” to hold `
      + `it to ${lay.name}, or give a concurrency to ring your point on it.`;
  }
  return `The frontier spans ${domain}; type a layout below to hold it to that one.`;
}

/** The targets in words, each with the statistic it is judged on: "a TTFT of 500 ms at p99 and a TPOT of 30 ms on the mean". */
function targetWords(o) {
  const one = (name, v, pct) => `a ${name} of ${fmt.seconds(v)} ` + (pct === "mean" ? "on the mean" : "at " + pct);
  return [o.ttftS === null ? "" : one("TTFT", o.ttftS, o.ttftPercentile), o.tpotS === null ? "" : one("TPOT", o.tpotS,
    o.tpotPercentile)].filter(Boolean).join(" and ");
}

/** Workload.decoding: how the service decodes, in words ("plain decoding", or the method, k, a and the tokens a pass). */
function decodingWords(S, o) {
  const sp = S.speculation[o.speculation];
  if (!sp) return "plain decoding";
  const k = o.draftTokens === null ? sp[0] : o.draftTokens, a = o.acceptance === null ? sp[1] : o.acceptance;
  const E = a === 1 ? k + 1 : (1 - a ** (k + 1)) / (1 - a);
  return `speculative decoding (${o.speculation}, ${k} drafted tokens a pass, acceptance ${a}: ${fmt.sig(E)} tokens a pass)`;
}

/** Workload.caps_words: the engine's caps and the KV cache held, named. */
function capsWords(S, o) {
  const en = S.engines[o.engine];
  const cap = o.maxConcurrency !== null ? o.maxConcurrency : en ? en[1] : null;
  const block = o.kvBlockTokens !== null ? o.kvBlockTokens : en ? en[2] : 16;
  return (en ? `${en[0]}'s defaults (${en[3]}): ` : "") + (cap === null ? "no engine cap on requests in flight (memory "
    + "alone)" : `at most ${fmt.integer(cap)} requests in flight`) + "; " + (o.kvMemory === "paged" ? "paged KV cache: "
    + `each request's live context, I + O/2 on average, in blocks of ${fmt.integer(block)} tokens`
    : "KV cache reserved at I + O tokens a request");
}

/** What the figures assume, in one paragraph (serving.assumptions). */
function assumptions(registry, r) {
  const C = registry.constants, S = C.serving, D = S.derates, E = S.expected;
  const engine = E.engine[r.opts.engine] || E.engine[""];
  const ic = r.device.interconnect;
  const lat = ic ? latencyDescription(ic, r.opts.latency) : "none (one device: no link)";
  return `Assumed: a prefill chunk of ${fmt.integer(r.opts.chunk)} prompt tokens an engine step (SGLang's and vLLM's `
    + `default on H100-class GPUs); a runtime reserve of ${fmt.nbytes(C.kernels.runtime_reserve_bytes)} a device; `
    + `${capsWords(S, r.opts)}; ${decodingWords(S, r.opts)}; a decoding request attends to I + O/2 `
    + `positions on average; continuous batching in steady state, each step running every decode first, then prompt `
    + `chunks up to the chunk (as vLLM and SGLang schedule); a step carrying a prompt's chunk is costed as the step it is, `
    + `and never faster than that chunk's share of the prompt's own prefill; collective latency: ${lat}. `
    + `Every throughput is a ceiling and every time a floor (datasheet peaks, each kernel at its roofline time), never a `
    + `measurement. `
    + `Expected runs the same steps with each kernel at its efficiency in published kernel benchmarks (matmuls, `
    + `attention and the routed experts by their size; the other kernels at ×${fmt.sig(D.bandwidth)} of the memory `
    + `bandwidth; collectives at the engines' measured latency and ×${fmt.sig(D.collective)} of the link), plus `
    + `${engine}'s per-step overhead (${E.step_overhead_s[engine] > 0 ? fmt.seconds(E.step_overhead_s[engine]) : "none"}) once a step, holding the requests `
    + `${S.engines[r.opts.engine || S.default_engine][0]}'s KV memory share and cap allow${r.opts.engine ? "" : " (no engine chosen: vLLM's defaults)"}: `
    + `an estimate, never a measurement; it does not capture ${S.derate_misses}.`;
}

/**
 * The Serving section: its form, results, chart and legend. `search` is the page's query (its s_ keys),
 * `stepBase` the step calculator's defaults. Returns {el, recompute, query, ensureDrawn}.
 */
export function servingSection(registry, uid, search, stepBase) {
  const base = defaultServeRaw(registry, stepBase);
  const state = decodeState(registry, search, PREFIX, base, SERVE_FIELDS);
  let raw = state.raw, notices = state.notices, last = null, lastRaw = null, cfgError = null, size = null, legendKey = "";
  const keys = Object.keys(SERVE_FIELDS);
  const panel = configPanel(registry, `${uid}-s`, "Your service", keys, SERVE_FIELDS);
  addSelect(panel, `${uid}-s`, "scope", [["all", "Every layout within one scale-up domain"],
    ["set", "Only the layout below"]], panel.wraps.dev);
  const pcts = registry.constants.serving.percentiles.map((v) => [v, v === "mean" ? "The mean" : v === "p99"
    ? "p99 (MLPerf Server's statistic)" : v]);
  addSelect(panel, `${uid}-s`, "ttftp", pcts, panel.wraps.tpot);
  addSelect(panel, `${uid}-s`, "tpotp", pcts, panel.wraps.price);
  addSelect(panel, `${uid}-s`, "dis", [["no", "On the same devices"], ["yes", "Also on separate pools (disaggregated)"]],
    panel.wraps.wd);
  const S = registry.constants.serving;
  addSelect(panel, `${uid}-s`, "eng", [["none", "None: memory alone caps the ceiling; expected at vLLM's defaults"],
    ...Object.entries(S.engines).map(([k, v]) => [k, v[0]])], panel.wraps.blk);
  addSelect(panel, `${uid}-s`, "kvm", [["reserve", "Reserved at I + O tokens a request"],
    ["paged", "Paged: each request's live context, in blocks"]], panel.wraps.blk);
  addSelect(panel, `${uid}-s`, "spec", [["plain", "Plain: one token a pass"], ["mtp", "Speculative: the model's own MTP layers"],
    ["eagle", "Speculative: EAGLE"], ["medusa", "Speculative: Medusa heads"], ["draft", "Speculative: a draft model"]], panel.wraps.k);
  const specText = h("span", { class: "rl-calc-wdnote" }), engText = h("span", { class: "rl-calc-wdnote" });
  panel.wraps.spec.appendChild(specText);
  panel.wraps.eng.appendChild(engText);
  // What each of the mode's own fields does, beside it (the page's prose stays short: it is in every reader's download).
  for (const [key, text] of Object.entries({
    ttftp: "p99 unless you choose: MLPerf's Server scenario judges TTFT and TPOT there. The chart's axis shows the mean.",
    cap: "The engine's own cap (vLLM's max_num_seqs, SGLang's max_running_requests); requests past it wait, and the "
      + "wait counts in TTFT.",
    chunk: "Prompt tokens one step takes beside the decodes; the default is SGLang's and vLLM's on H100-class GPUs.",
    dis: "Separate pools: prefill and decode in balance, each prompt's KV cache sent once over the link; their envelope "
      + "is drawn beside, its devices counting both pools.",
  })) panel.wraps[key].appendChild(h("span", { class: "rl-calc-wdnote", text }));
  const scopeText = h("span", { class: "rl-calc-wdnote" });
  panel.wraps.scope.appendChild(scopeText);
  // The mode's own fields that apply: a speculation's with a method chosen, the block with paged memory; beside
  // the decoding and the engine, their defaults and where they come from.
  const showOwn = (r) => {
    for (const key of ["k", "acc", "dcost"]) panel.wraps[key].hidden = r.spec === "plain";
    panel.wraps.blk.hidden = r.kvm !== "paged";
    const sp = S.speculation[r.spec], en = S.engines[r.eng];
    const st = sp ? `Unless set: ${sp[0]} drafted token${sp[0] > 1 ? "s" : ""} a pass` + (sp[1] === null ? "" : `, acceptance ${sp[1]}`)
      + `. ${sp[3]}.` : "Each pass keeps one token a request.";
    if (specText.textContent !== st) specText.textContent = st;
    const et = en ? `${en[0]}: ` + (en[1] === null ? "no cap on requests in flight" : `at most ${fmt.integer(en[1])} requests in flight`)
      + `, KV blocks of ${en[2]} token${en[2] > 1 ? "s" : ""} (${en[3]}).` : "";
    if (engText.textContent !== et) engText.textContent = et;
  };
  writeRaw(panel, raw);
  syncVisibility(panel, raw);
  showOwn(raw);
  panel.wraps.conc.appendChild(h("span", { class: "rl-calc-wdnote", text: "Blank: the whole frontier, marking the point "
    + "with the most output tokens/s per device (or the best under your targets). A number: that many requests in flight "
    + "on the layout below." }));
  const form = h("form", { class: "rl-calc-form rl-calc-serveform", novalidate: true, "aria-label": "Serving calculator" },
    panel.el);
  form.addEventListener("submit", (e) => e.preventDefault());
  // Classes of its own (rl-calc-ssummary, rl-calc-sresults, rl-calc-fchart): the step mode's stay one per page.
  const summary = h("p", { class: "rl-calc-ssummary", role: "status", id: `${uid}-s-summary` });
  const disSummary = h("p", { class: "rl-calc-sdis" });
  const assumed = h("p", { class: "rl-calc-assume", id: `${uid}-s-assumed` });
  const table = h("table", { class: "rl-calc-sresults" });
  table.appendChild(h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Output" }),
    h("th", { scope: "col", text: "Chosen point" }))));
  const body = h("tbody");
  const cells = {};
  for (const row of ROWS) {
    const td = h("td", { "data-config": "s", "data-output": row.key, text: DASH });
    cells[row.key] = td;
    body.appendChild(h("tr", { "data-row": row.key }, h("th", { scope: "row", text: row.label }), td));
  }
  table.appendChild(body);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "rl-calc-fchart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-labelledby", `${uid}-s-caption`);
  const legend = h("ul", { class: "rl-calc-legend", "aria-label": "Layouts on the chart" });
  const caption = h("figcaption", { id: `${uid}-s-caption` });
  const figure = h("figure", { class: "rl-calc-figure" }, svg, legend, caption);
  const el = h("section", { class: "rl-calc-serve", "aria-label": "Serving" }, form,
    h("div", { class: "rl-calc-panel" }, h("div", { class: "rl-calc-out" }, summary, disSummary,
      h("div", { class: "rl-calc-table-wrap" }, table), assumed), figure));

  // The device comparison (compare_ui.js): loaded when a reader opens it or a link carries its keys.
  const cmpBox = h("details", { class: "rl-calc-scompare" },
    h("summary", { text: "Compare two setups: which device to buy (device, devices, price)" }));
  const cmpWait = h("p", { class: "rl-calc-cmpwait", role: "status" });
  cmpBox.appendChild(cmpWait);
  el.appendChild(cmpBox);
  let cmp = null, cmpLoading = null;
  const changed = () => cmpBox.dispatchEvent(new Event("change", { bubbles: true })); // the link follows (ui.js)
  cmpBox.addEventListener("toggle", () => {
    if (!cmpBox.open) { changed(); return; }
    if (cmp) { cmp.update(last ? last.r : null); changed(); return; }
    if (cmpLoading) return;
    cmpWait.textContent = "Loading the comparison\u2026";
    cmpLoading = import("./compare_ui.js").then((m) => {
      cmp = m.compareSection(registry, `${uid}-s`, search);
      cmpWait.replaceWith(cmp.el);
      cmp.update(last ? last.r : null);
      cmpBox.dataset.rlReady = "true";
      changed();
    }, () => {
      cmpLoading = null;
      cmpWait.textContent = "The comparison did not load; close it and open it again to try again.";
    });
  });
  if (/[?&]c[ab]_/.test(search)) cmpBox.open = true;

  const compute = (values, r = resolveServing(registry, values)) => {
    if (Object.keys(r.errors).length) return { errors: r.errors };
    try {
      return { r, out: calculateServing(registry.constants, r.device, r.model, r.I, r.O, r.opts), errors: {} };
    } catch (err) {
      if (!(err instanceof CalcError)) throw err;
      const key = fieldOf(err.message);
      // Separate pools that cannot be formed: the co-located results stand, the sentence beside that field.
      if (key === "dis") return { ...compute(values, { ...r, opts: { ...r.opts, disaggregated: false } }), disError: sentence(err.message) };
      return { errors: { [key]: sentence(err.message) } };
    }
  };

  const syncLayout = (source) => {
    // Devices picks the engine's layout (one replica); TP × PP × EP × DP otherwise says how many devices.
    const inp = panel.inputs;
    // A layout typed with no concurrency asks for that layout's frontier: the frontier is held to it.
    if ([inp.dev, inp.tp, inp.pp, inp.ep, inp.dp].includes(source) && !String(inp.conc.value).trim()) inp.scope.value = "set";
    if (source === inp.dev) {
      const msg = syncDevices(registry, panel, source, STEP_FILLER);
      if (!msg) inp.dp.value = "1";
      return msg;
    }
    const d = [inp.tp, inp.pp, inp.ep, inp.dp].map((x) => Number(String(x.value).trim()));
    if (d.every((v) => Number.isInteger(v) && v >= 1)) inp.dev.value = String(d[0] * d[1] * d[2] * d[3]);
    return null;
  };

  const draw = () => {
    if (!last) return;
    if (!size) {
      // The section's width, not the figure's: Material sizes a figure to its content.
      const room = Math.round(el.clientWidth || 640);
      if (!room) return;
      const width = Math.max(300, Math.min(640, room));
      size = { width, height: Math.round(width * (width < 480 ? 0.8 : 0.5625)) };
    }
    const { r, out } = last;
    const marks = [];
    const at = (p) => `${p.layout}, ${fmt.integer(p.concurrency)} in flight`;
    // The best first: its label goes above its ring (it is the highest point per device under the targets).
    if (out.best) {
      marks.push({ point: out.best, label: `best: ${out.best.layout}`, words: `the best under your targets (${at(out.best)})` });
    }
    if (out.point) marks.push({ point: out.point, label: `yours: ${at(out.point)}`, words: `your point (${at(out.point)})` });
    if (!marks.length) {
      const top = mostPerDevice(out.frontier);
      marks.push({ point: top, label: `top per device: ${top.layout}`,
        words: `the most output tokens/s per device (${at(top)})` });
    }
    const title = "Serving frontier: output tokens/s per device against tokens/s per user (ceilings)";
    const { ttftS, tpotS, ttftPercentile: tp, tpotPercentile: pp } = r.opts;
    // The axis is 1 ÷ mean TPOT: a TPOT target on the mean is a line on it; every target circles the points meeting it.
    const target = ttftS === null && tpotS === null ? null : { x: tpotS !== null && pp === "mean" ? 1 / tpotS : null,
      label: `TPOT target ${fmt.seconds(tpotS || 1)}`, meets: (p) => meets(p, ttftS, tpotS, tp, pp) };
    const dis = out.disaggregated && out.disaggregated.filter((p) => p.on_envelope);
    if (drawFrontier(svg, out.frontier, marks, size, title, target, dis)) {
      const layouts = [...new Map(out.frontier.map((p) => [p.layout, p])).values()];
      const ringed = `${marks.map((mk) => mk.words.replace(/ \(.*/, "")).join("; ")}`;
      const key = [...layouts.map((p) => p.layout), ringed, target && target.x, target && targetWords(r.opts), Boolean(dis)].join("|");
      if (key !== legendKey) {
        legendKey = key;
        const item = (tag, attrs, text) => {
          const sw = document.createElementNS("http://www.w3.org/2000/svg", "svg");
          sw.setAttribute("viewBox", "0 0 28 16");
          sw.setAttribute("aria-hidden", "true");
          const mark = document.createElementNS("http://www.w3.org/2000/svg", tag);
          for (const [k, v] of Object.entries(attrs)) mark.setAttribute(k, String(v));
          sw.appendChild(mark);
          return h("li", {}, sw, document.createTextNode(text));
        };
        const across = { x1: 1, x2: 27, y1: 8, y2: 8 };
        legend.replaceChildren(...layouts.map((p) => item("line", { ...across, class: `rl-calc-fline ${layoutStyle(p)}` }, p.layout)),
          item("line", { ...across, class: "rl-calc-fenvelope" }, "the envelope (Pareto frontier)"),
          ...(dis ? [item("line", { ...across, class: "rl-calc-fdis" }, "disaggregated: the envelope on separate pools")] : []),
          item("circle", { cx: 14, cy: 8, r: 6, class: "rl-calc-fring" }, ringed),
          ...(target ? [item("circle", { cx: 14, cy: 8, r: 4.5, class: "rl-calc-fok" }, `meets ${targetWords(r.opts)}`)] : []),
          ...(target && target.x ? [item("line", { x1: 14, x2: 14, y1: 0, y2: 16, class: "rl-calc-ftarget" }, "the mean TPOT "
            + "target (points on its right meet it)")] : []));
      }
      const cap = `${r.model.name} on the ${r.device.name}: I ${fmt.integer(r.I)}, O ${fmt.integer(r.O)}, `
        + `${r.opts.weightFormat.toUpperCase()} weights, ${r.opts.activation.toUpperCase()} activations, `
        + `${r.opts.kvDtype.toUpperCase()} KV cache, ${r.opts.attention} attention; ${fmt.integer(out.frontier.length)} `
        + (r.opts.layouts === "set" ? `points on ${layouts[0].layout} alone` : `points over `
          + `${fmt.integer(layouts.length)} layouts within one scale-up domain`)
        + `, concurrency from 1 to each layout's cap. Every point is a ceiling. Ringed: `
        + `${marks.map((mk) => mk.words).join("; ")}.` + (target ? ` Circled: the points that meet ${targetWords(r.opts)}.` : "")
        + (target && target.x ? ` Dashed: a mean TPOT of ${fmt.seconds(tpotS)}.` : "")
        + (dis ? " Dash-dotted: the envelope with prefill and decode on separate pools, its devices counting both." : "");
      if (caption.textContent !== cap) caption.textContent = cap;
    }
  };

  const readPasted = (text) => {
    cfgError = null;
    try {
      panel.inputs.cfg.value = encodeModel(readConfigText(registry.config_reader, text, "config.json"));
    } catch (err) {
      if (!(err instanceof CalcError)) throw err;
      cfgError = err.message;
    }
  };

  const recompute = (source) => {
    const previous = raw;
    if (source) seedCustom(registry, panel, previous);
    if (source && source.classList && source.classList.contains("rl-calc-cfgtext")) readPasted(source.value);
    const devError = syncLayout(source);
    raw = readRaw(panel, base);
    syncVisibility(panel, raw);
    showOwn(raw);
    const res = compute(raw);
    if (devError) res.errors = { ...res.errors, dev: devError };
    if (cfgError && raw.model === "config") res.errors = { ...res.errors, cfg: cfgError };
    if (source) notices = {};
    const fieldErrors = { ...res.errors };
    if (!Object.keys(res.errors).length) {
      last = { r: res.r, out: res.out };
      lastRaw = { ...raw };
      if (res.disError) fieldErrors.dis = res.disError;
      // A target nothing meets: its sentence beside the target that is out of reach; the frontier stays.
      if (res.out.refusal) fieldErrors[/a TTFT of/.test(res.out.refusal.split(":")[0]) ? "ttft" : "tpot"] = sentence(res.out.refusal);
    }
    showErrors(panel, fieldErrors, notices);
    let note = "";
    if (res.r) {
      const { tp, pp, ep, dp } = res.r.opts;
      try { note = scopeNote(res.r, layoutWithDp(registry.constants.kernels, tp, pp, ep, dp)); } catch { note = ""; }
    }
    if (scopeText.textContent !== note) scopeText.textContent = note;
    noteWeights(registry, panel, res.r ? res.r.cfg : null);
    const stale = Boolean(Object.keys(res.errors).length);
    const p = last ? (last.out.point || last.out.best || mostPerDevice(last.out.frontier)) : null;
    for (const row of ROWS) {
      const v = p ? valueOf(row, p) : null;
      let text = DASH;
      if (p) {
        if (row.key === "limited_by") text = p.limited_by_meaning;
        else text = v === null || v === undefined ? row.none || DASH : show(v, row.key === "layout" ? (x) => row.f(x, p) : row.f);
      }
      const td = cells[row.key];
      if (td.textContent !== text) td.textContent = text;
      const value = typeof v === "number" && Number.isFinite(v) ? String(v) : v === null || v === undefined ? "" : String(v);
      if (td.dataset.value !== value) td.dataset.value = value;
      td.classList.toggle("rl-calc-stale", stale);
    }
    let text;
    if (stale) {
      const [, msg] = Object.entries(res.errors)[0];
      text = `${msg}${last ? " Showing the last valid result." : ""}`;
    } else {
      const o = res.out;
      const which = o.point ? "Your point" : o.best ? "Best under your targets" : "Most output tokens/s per device";
      text = `${which}, ${decodingWords(registry.constants.serving, res.r.opts)}: ${p.layout} with ${fmt.integer(p.concurrency)} request${p.concurrency === 1 ? "" : "s"} `
        + `in flight gives TTFT ${fmt.seconds(p.ttft_s)} (the prompt's prefill alone: ${fmt.seconds(p.prefill_s)}), TPOT `
        + `${fmt.seconds(p.tpot_s)} on average and ${fmt.seconds(p.tpot_p99_s)} at p99 (floors), `
        + `${fmt.tokensPerS(p.output_tokens_per_s_per_user)} per user `
        + `and ${fmt.tokensPerS(p.output_tokens_per_s_per_device)} per device (ceilings; expected, each kernel at its published efficiency: `
        + `${fmt.tokensPerS(p.expected_output_tokens_per_s / p.devices)}); limit: `
        + `${p.limited_by_meaning}.`
        + (p.usd_per_million_output_tokens === null ? "" : ` ${usd(p.usd_per_million_output_tokens)} per million output tokens.`)
        + (o.refusal ? ` Targets: ${sentence(o.refusal)}` : "");
      const a = assumptions(registry, res.r);
      if (assumed.textContent !== a) assumed.textContent = a;
    }
    if (summary.textContent !== text) summary.textContent = text;
    const d = !stale && res.out.disaggregated ? mostPerDevice(res.out.disaggregated) : null;
    const dtext = d ? `Disaggregated, the most per device: prefill on ${d.prefill_layout}, decode on ${d.decode_layout} with `
      + `${fmt.integer(d.concurrency)} decoding and ${fmt.sig(d.prefill_devices_per_decode_device)} prefill devices per decode `
      + `device gives ${fmt.tokensPerS(d.output_tokens_per_s_per_device)} per device counting both pools (a ceiling), TTFT `
      + `${fmt.seconds(d.ttft_s)} (the prompt alone on the prefill pool, then ${fmt.seconds(d.kv_transfer_s)} to send its KV `
      + `cache; a queue at the prefill pool is not modelled) and TPOT ${fmt.seconds(d.tpot_s)}, a step of decodes only `
      + `(floors); limit: ${registry.constants.serving.bound_meaning[d.limited_by].split(":")[0]}.` : "";
    if (disSummary.textContent !== dtext) disSummary.textContent = dtext;
    disSummary.hidden = !dtext;
    draw();
    if (cmp && cmpBox.open) cmp.update(last ? last.r : null);
  };

  form.addEventListener("input", (e) => recompute(e.target));
  form.addEventListener("change", (e) => {
    const t = e.target;
    if (t.classList && t.classList.contains("rl-calc-cfgfile")) {
      readConfigFile(t, registry.config_reader.max_bytes, recompute, (msg) => { cfgError = msg; recompute(null); });
      return;
    }
    recompute(t);
  });
  return {
    el, recompute,
    query: () => [encodeState([{ raw: lastRaw || base, prefix: PREFIX, keys: serveKeys }]),
      cmp && cmpBox.open ? cmp.query() : ""].filter(Boolean).join("&"),
    ensureDrawn: () => { if (!svg.firstChild) draw(); },
  };
}
