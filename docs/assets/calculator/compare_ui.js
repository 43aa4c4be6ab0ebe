// The Serving mode's device comparison: `roofline compare` for two setups side by side. Each setup is a
// device, the most devices a replica may use and a price per device-hour; both serve the Serving form's
// workload (model, I, O, formats, caps, decoding, targets). For each: the most output tokens/s per device
// meeting the targets at the ceiling and expected, $ per million output tokens at both, and the
// break-even price ratio between them. Loaded when a reader opens it (or a link does): the Serving mode
// alone never downloads it. State in the link under "ca_" and "cb_" keys. Reader text reaches the page
// through form values or textContent only.

import { CalcError } from "./calc.js";
import * as fmt from "./format.js";
import { FIELDS, inReaderWords, parseNumber } from "./state.js";
import { DASH, configPanel, h, readRaw, showErrors, writeRaw } from "./dom.js";
import { compareBreakEven, compareSetup } from "./compare.js";

/** Each setup's fields: the device, the most devices a replica may use and the price. */
export const COMPARE_FIELDS = {
  hw: FIELDS.hw,
  n: { label: "Devices a replica at most (blank: one scale-up domain)", limit: "degree", optional: true },
  usd: { label: "Price per device-hour (USD; blank: the published on-demand price)", limit: "usd_per_device_hour",
    optional: true },
};
const SETUPS = [{ key: "a", prefix: "ca_", title: "Setup A" }, { key: "b", prefix: "cb_", title: "Setup B" }];

/** Whether a link carries the comparison (any of its keys): then it opens with the Serving mode. */
export const inLink = (search) => /[?&]c[ab]_/.test(search);

const usd = (v) => `$${fmt.sig(v)}`;
const at = (p) => `${fmt.tokensPerS(p.output_tokens_per_s_per_device)} on ${p.layout}, ${fmt.integer(p.concurrency)} in flight`;

/** A package sentence in the reader's words, one sentence: no option names, a capital first, a full stop last. */
const sentence = (msg) => {
  const s = inReaderWords(String(msg).trim().replace(/^--[a-z-]+( \d+)?: /, ""));
  return (s.charAt(0).toUpperCase() + s.slice(1)).replace(/([^.])$/, "$1.");
};

/** The rows of the table, each setup a column. */
const ROWS = [
  { key: "device", label: "Device" },
  { key: "price", label: "Price per device-hour" },
  { key: "ceiling", label: "Most output tokens/s per device under the targets (ceiling)" },
  { key: "expected", label: "The same, expected (each kernel at its published efficiency; an estimate)" },
  { key: "usd_ceiling", label: "$ per million output tokens (ceiling)" },
  { key: "usd_expected", label: "$ per million output tokens (expected)" },
];

/** The cells of one setup's column from its answer `s` (compare.js compareSetup) on `device`: [text, value]. */
function cellsOf(registry, device, s) {
  const P = registry.constants.serving.prices[device.id];
  const price = s.usd_per_device_hour === null ? "none published: give one"
    : s.price_id === null ? `${usd(s.usd_per_device_hour)} (yours)`
      : `${usd(s.usd_per_device_hour)} (${P.kind}, ${P.provider}, read ${P.date_read})`;
  const point = (p) => (p === null ? ["misses the targets", ""] : [at(p), p.output_tokens_per_s_per_device]);
  const cost = (v, p) => (p === null ? ["misses the targets", ""] : v === null ? ["no price", ""] : [usd(v), v]);
  return { device: [device.name, device.id], price: [price, s.usd_per_device_hour ?? ""],
    ceiling: point(s.ceiling), expected: point(s.expected),
    usd_ceiling: cost(s.usd_per_million_output_tokens_ceiling, s.ceiling),
    usd_expected: cost(s.usd_per_million_output_tokens_expected, s.expected) };
}

/**
 * The comparison's form, table and sentences. `search`: the page's query (its ca_ and cb_ keys). Returns
 * {el, update(r), query()}: `update` runs both setups on the Serving form's resolved workload `r`.
 */
export function compareSection(registry, uid, search) {
  const params = new URLSearchParams(search);
  const ids = registry.devices.map((d) => d.id);
  const setups = SETUPS.map((s, i) => {
    const base = { hw: registry.defaults.compare_hardware[i], n: "", usd: "" };
    const raw = { ...base }, notices = {};
    for (const key of Object.keys(COMPARE_FIELDS)) {
      if (params.has(s.prefix + key)) raw[key] = params.get(s.prefix + key).slice(0, 200);
    }
    if (!ids.includes(raw.hw)) {
      notices.hw = `The link names a device this comparison does not list ("${raw.hw.slice(0, 40)}"); showing the default instead.`;
      raw.hw = base.hw;
    }
    const panel = configPanel(registry, `${uid}-c${s.key}`, s.title, Object.keys(COMPARE_FIELDS), COMPARE_FIELDS);
    // The registry's devices only: a custom device has no published price or link to compare on.
    const custom = panel.inputs.hw.querySelector('option[value="custom"]');
    if (custom) custom.remove();
    writeRaw(panel, raw);
    return { ...s, base, raw, notices, panel };
  });
  const form = h("form", { class: "rl-calc-form rl-calc-cmpform", novalidate: true, "aria-label": "Device comparison" },
    ...setups.map((s) => s.panel.el));
  form.addEventListener("submit", (e) => e.preventDefault());
  const table = h("table", { class: "rl-calc-sresults rl-calc-cmptable" });
  table.appendChild(h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Output" }),
    ...setups.map((s) => h("th", { scope: "col", text: s.title })))));
  const body = h("tbody"), cells = {};
  for (const row of ROWS) {
    const tds = setups.map((s) => (cells[`${s.key}/${row.key}`] = h("td", { "data-config": s.key, "data-output": row.key, text: DASH })));
    body.appendChild(h("tr", { "data-row": row.key }, h("th", { scope: "row", text: row.label }), ...tds));
  }
  table.appendChild(body);
  const verdict = h("p", { class: "rl-calc-ssummary rl-calc-cmpverdict", role: "status" });
  const notes = h("p", { class: "rl-calc-assume rl-calc-cmpnotes" });
  const el = h("div", { class: "rl-calc-cmp" }, form, h("div", { class: "rl-calc-table-wrap" }, table), verdict, notes);
  let lastR = null;

  const update = (r = lastR) => {
    lastR = r;
    const C = registry.constants, L = registry.limits;
    const answers = setups.map((s) => {
      s.raw = readRaw(s.panel, s.base);
      const errors = {};
      const device = registry.devices.find((d) => d.id === s.raw.hw);
      if (!device) errors.hw = "Choose a device from the list.";
      const num = (key) => {
        const f = COMPARE_FIELDS[key], got = parseNumber(s.raw[key], f.label, L[f.limit], f.optional);
        if (got.message) errors[key] = got.message;
        return got.value;
      };
      const n = num("n"), price = num("usd");
      let answer = null;
      if (!Object.keys(errors).length && r) {
        try {
          answer = compareSetup(C, device, r.model, r.I, r.O, r.opts, r.opts.ttftS, r.opts.tpotS, n, price);
        } catch (err) {
          if (!(err instanceof CalcError)) throw err;
          errors[/has no published \w+ peak/.test(err.message) ? "hw" : "n"] = sentence(err.message);
        }
      }
      showErrors(s.panel, errors, s.notices);
      return { s, device, answer, errors };
    });
    for (const { s, device, answer } of answers) {
      const text = answer ? cellsOf(registry, device, answer) : {};
      for (const row of ROWS) {
        const td = cells[`${s.key}/${row.key}`], [t, v] = text[row.key] || [DASH, ""];
        if (td.textContent !== t) td.textContent = t;
        if (td.dataset.value !== String(v)) td.dataset.value = String(v);
        td.classList.toggle("rl-calc-stale", !answer);
      }
    }
    const [a, b] = answers;
    let v;
    if (!r) v = "The comparison waits for a valid workload in the form above.";
    else if (!a.answer || !b.answer) v = `${!a.answer ? "Setup A" : "Setup B"}: ${Object.values((!a.answer ? a : b).errors)[0]}`;
    else {
      const ratio = compareBreakEven(a.answer, b.answer);
      const misses = [a, b].filter((x) => x.answer.unmet_ceiling || x.answer.unmet_expected)
        .map((x) => `Setup ${x.s.key.toUpperCase()}: ${sentence(x.answer.unmet_expected || x.answer.unmet_ceiling)}`);
      // Plain strings, not templates inside templates: the site's minifier reads a nested template's text as code.
      const first = ratio.expected === null ? ratio.ceiling : ratio.expected;
      const which = ratio.expected === null ? "at the ceiling; expected, one misses the targets" : "expected"
        + (ratio.ceiling === null ? "" : "; " + fmt.sig(ratio.ceiling) + "× at the ceiling");
      const even = first === null ? "" : `Break-even: A (${a.device.name}) costs the same per output token as B `
        + `(${b.device.name}) when its price per device-hour is ${fmt.sig(first)}× B's (${which}); below that A is the cheaper.`;
      v = [even, ...misses].filter(Boolean).join(" ");
    }
    if (verdict.textContent !== v) verdict.textContent = v;
    const D = registry.constants.serving.default_percentile;
    const pct = r && ((r.opts.ttftS !== null && r.opts.ttftPercentile !== D) || (r.opts.tpotS !== null && r.opts.tpotPercentile !== D));
    const n = `Both setups serve the workload above (its model, I, O, formats, caps and decoding; its own price and layout `
      + `are not used here), each over every layout within its devices and any concurrency, as roofline compare searches. `
      + (r && (r.opts.ttftS !== null || r.opts.tpotS !== null) ? `Targets are judged at ${D}${pct ? ", as roofline compare "
        + "judges them, not at the percentiles chosen above" : ""}. ` : "With no target, each setup's best is its most output "
        + "tokens/s per device at any latency. ")
      + "Ceilings: datasheet peaks, every kernel at its roofline; expected: every kernel at its published efficiency plus the "
      + "engine's per-step overhead (an estimate, never a measurement). Published prices are on-demand, with the month they were read.";
    if (notes.textContent !== n) notes.textContent = n;
  };
  // A link's notice stands until the reader edits that setup.
  const edited = (e) => {
    for (const s of setups) if (s.panel.el.contains(e.target)) s.notices = {};
    update();
  };
  form.addEventListener("input", edited);
  form.addEventListener("change", edited);
  return {
    el, update,
    query: () => {
      const q = new URLSearchParams();
      for (const s of setups) {
        for (const key of Object.keys(COMPARE_FIELDS)) {
          const v = String(s.raw[key] ?? "").trim();
          if (v !== "") q.set(s.prefix + key, v);
        }
      }
      return q.toString();
    },
  };
}
