// The Serving mode's inputs: its fields, parsing what the reader typed into roofline serve's
// options (one sentence per bad field), and which keys its link carries. Pure (no DOM), so node
// can import it. The device, model, formats, layout and collective latency are the step
// calculator's own fields (state.js FIELDS), resolved by the same code.

import { integer } from "./format.js";
import { FIELDS, parseNumber, resolveConfig } from "./state.js";

/** The Serving mode's fields: the shared ones, then roofline serve's own (limits from registry.json). */
export const SERVE_FIELDS = {
  hw: FIELDS.hw, peak: FIELDS.peak, bw: FIELDS.bw, mem: FIELDS.mem,
  model: FIELDS.model, params: FIELDS.params, cfg: FIELDS.cfg,
  in: { label: "Input tokens per request (I, the prompt)", limit: "input_tokens" },
  out: { label: "Output tokens per request (O)", limit: "output_tokens" },
  conc: { label: "Concurrency (requests in flight; blank: the whole frontier)", limit: "concurrency", optional: true },
  ttft: { label: "TTFT target (ms; blank: none)", limit: "target_ms", optional: true },
  ttftp: { label: "TTFT target judged at", kind: "select" },
  tpot: { label: "TPOT target (ms; blank: none)", limit: "target_ms", optional: true },
  tpotp: { label: "TPOT target judged at", kind: "select" },
  price: { label: "Price per device-hour (USD; blank: no cost)", limit: "usd_per_device_hour", optional: true },
  cap: { label: "Max requests in flight (the engine's cap; blank: the engine's default, or memory alone)", limit: "concurrency", optional: true },
  chunk: { label: "Max prompt tokens per engine step (the prefill chunk)", limit: "chunk_tokens" },
  eng: { label: "Engine's defaults", kind: "select" },
  kvm: { label: "KV cache held", kind: "select" },
  blk: { label: "KV block (tokens; blank: the engine's default)", limit: "kv_block_tokens", optional: true },
  spec: { label: "Decoding", kind: "select" },
  k: { label: "Drafted tokens a pass (blank: the method's default)", limit: "draft_tokens", optional: true },
  acc: { label: "Acceptance rate of a drafted token (blank: the method's default)", limit: "acceptance", optional: true },
  dcost: { label: "A drafted token's cost, as a share of a target pass (blank: the method's default)", limit: "draft_cost",
    optional: true },
  dis: { label: "Prefill and decode", kind: "select" },
  wd: FIELDS.wd, act: FIELDS.act, kvd: FIELDS.kvd, attn: FIELDS.attn,
  scope: { label: "Layouts the frontier spans", kind: "select", group: "layout" },
  dev: FIELDS.dev, tp: FIELDS.tp, pp: FIELDS.pp, ep: FIELDS.ep,
  dp: { label: "Data-parallel replicas (DP)", limit: "degree", group: "layout" },
  lat: FIELDS.lat, latus: FIELDS.latus,
};

/** The choices of the layouts the frontier spans: every layout within one scale-up domain, or only the one set. */
export const SCOPES = ["all", "set"];

/** What the step fields a Serving configuration lacks are set to, so resolveConfig can read the rest. */
export const STEP_FILLER = { phase: "decode", batch: "1", ctx: "1", prompt: "1" };

/** The Serving mode's starting point: the step calculator's defaults, the Serving page's workload. */
export function defaultServeRaw(registry, stepBase) {
  const d = registry.defaults, S = registry.constants.serving;
  return { ...stepBase, ...STEP_FILLER, in: String(d.input_tokens), out: String(d.output_tokens), conc: "", ttft: "",
    tpot: "", ttftp: S.default_percentile, tpotp: S.default_percentile, price: "", cap: "", chunk: String(S.default_chunk_tokens), eng: "none", kvm: S.kv_memory[0], blk: "", spec: "plain", k: "",
    acc: "", dcost: "", dis: "no", scope: "all", dp: "1" };
}

/** The keys a Serving link carries (custom fields only when custom is chosen; blank optional ones dropped). */
export function serveKeys(raw) {
  return ["hw", ...(raw.hw === "custom" ? ["peak", "bw", "mem"] : []), "model",
    ...(raw.model === "custom" ? ["params"] : []), ...(raw.model === "config" ? ["cfg"] : []),
    "in", "out", "conc", "ttft", "ttftp", "tpot", "tpotp", "price", "cap", "chunk", "eng", "kvm", ...(raw.kvm === "paged" ? ["blk"] : []), "spec",
    ...(raw.spec === "plain" ? [] : ["k", "acc", "dcost"]), "dis", "wd", "act", "kvd", "attn", "scope", "tp", "pp", "ep", "dp", "lat",
    ...(raw.lat === "custom" ? ["latus"] : [])];
}

/**
 * One Serving configuration's raw strings as calculateServing's arguments:
 * {device, model, I, O, opts} or {errors: {key: sentence}}. `choice` is the weight format chosen
 * (format, scope, source) as the step calculator resolves it.
 */
export function resolveServing(registry, raw) {
  const { limits, units } = registry;
  const base = resolveConfig(registry, { ...raw, ...STEP_FILLER });
  const errors = { ...base.errors };
  const num = (key) => {
    const f = SERVE_FIELDS[key];
    const r = parseNumber(raw[key], f.label, limits[f.limit], f.optional);
    if (r.message) errors[key] = r.message;
    return r.value;
  };
  const I = num("in"), O = num("out"), conc = num("conc"), ttft = num("ttft"), tpot = num("tpot"), price = num("price");
  const chunk = num("chunk"), dp = num("dp"), cap = num("cap");
  if (!SCOPES.includes(raw.scope)) errors.scope = "Choose which layouts the frontier spans from the list.";
  if (!["no", "yes"].includes(raw.dis)) errors.dis = "Choose where prefill and decode run from the list.";
  const S = registry.constants.serving;
  if (!["none", ...Object.keys(S.engines)].includes(raw.eng)) errors.eng = "Choose an engine's defaults from the list.";
  if (!S.kv_memory.includes(raw.kvm)) errors.kvm = "Choose how the KV cache is held from the list.";
  if (!["plain", ...Object.keys(S.speculation)].includes(raw.spec)) errors.spec = "Choose a decoding from the list.";
  // Fields hidden by the choices above do not count: the speculation's only with a method, the block only paged.
  const spec = raw.spec === "plain" ? null : raw.spec;
  const k = spec ? num("k") : null, acc = spec ? num("acc") : null, dcost = spec ? num("dcost") : null;
  const blk = raw.kvm === "paged" ? num("blk") : null;
  const P = registry.constants.serving.percentiles;
  for (const key of ["ttftp", "tpotp"]) {
    if (!P.includes(raw[key])) errors[key] = `Choose a percentile from the list: the mean, p50, p90 or p99.`;
  }
  // A request's prompt and answer share the model's window, as `roofline serve` refuses past it.
  const limit = base.model ? base.model.max_context_tokens || 0 : 0;
  if (limit && !("in" in errors || "out" in errors) && I + O > limit) {
    errors.in = `Input plus output tokens must be at most ${integer(limit)} for ${base.model.name} (its max_position_embeddings).`;
  }
  if (Object.keys(errors).length) return { errors };
  return {
    device: base.device, model: base.model, I, O, choice: { format: base.wd, scope: base.ws, source: base.wsource },
    cfg: base, errors: {},
    opts: { weightFormat: base.wd, weightScope: base.ws, activation: base.act, kvDtype: base.kvd, attention: base.attn,
      chunk, price, maxConcurrency: cap, disaggregated: raw.dis === "yes", engine: raw.eng === "none" ? null : raw.eng,
      kvMemory: raw.kvm, kvBlockTokens: blk, speculation: spec, draftTokens: k, acceptance: acc, draftCost: dcost, layouts: raw.scope, latency: base.latency, ttftS: ttft === null ? null : ttft * units.target_ms,
      tpotS: tpot === null ? null : tpot * units.target_ms, ttftPercentile: raw.ttftp, tpotPercentile: raw.tpotp,
      concurrency: conc,
      tp: base.tp, pp: base.pp, ep: base.ep, dp },
  };
}
