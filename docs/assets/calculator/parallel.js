// Many devices in the browser: mirrors roofline.model.parallel. A collective over N devices in a
// ring costs latency + bytes ÷ link bandwidth (per direction), with the ring factors of NCCL's
// performance notes: all-reduce 2(N−1)/N · S per device in 2(N−1) steps, all-gather,
// reduce-scatter and all-to-all (N−1)/N · S in N−1 steps, a pipeline send S in one step. The
// latency: the link's floor per collective ("floor", for ceilings), an NCCL ring's base + steps ×
// per step ("ring", the expected figure), or seconds per collective set by the reader.
// Layouts: tensor (TP), pipeline (PP) and expert (EP) parallelism, one device's kernels plus its
// collectives, summed. Parity-tested through view.js against roofline.calculator_view.calculate.

import { CalcError, peakFlopPerS } from "./calc.js";
import { seconds } from "./format.js";
import { finishOp, isBare, isMoe, matmulDtype, step, summarize, usableMemory } from "./kernels.js";

const KINDS = ["all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send"];

/** parallel._degree: a whole number from 1 to max_degree, named as the CLI names the option. */
export function degree(K, name, value) {
  if (typeof value !== "number" || !Number.isFinite(value) || value !== Math.floor(value) || value < 1) {
    throw new CalcError(`${name} must be a whole number ≥ 1, got ${value}`);
  }
  if (value > K.max_degree) throw new CalcError(`${name} must be at most ${K.max_degree}, got ${value}`);
  return value;
}

/** parallel.ring_factor: bytes each device sends, as a multiple of the payload. */
export function ringFactor(kind, n) {
  if (kind === "all-reduce") return 2.0 * (n - 1) / n;
  if (["all-gather", "reduce-scatter", "all-to-all"].includes(kind)) return (n - 1) / n;
  if (kind === "send") return n > 1 ? 1.0 : 0.0;
  throw new CalcError(`unknown collective '${kind}': expected one of ${KINDS.join(", ")}`);
}

/** parallel.ring_steps: latency-paying steps. */
export function ringSteps(kind, n) {
  if (kind === "all-reduce") return 2 * (n - 1);
  if (kind === "send") return n > 1 ? 1 : 0;
  ringFactor(kind, n);
  return n - 1;
}

/** parallel.check_latency: "floor", "ring" or seconds per collective (0 to max_latency_s). */
export function checkLatency(K, latency) {
  if (typeof latency === "string" && K.latency_choices.includes(latency)) return latency;
  if (typeof latency !== "number" || !Number.isFinite(latency) || latency < 0 || latency > K.max_latency_s) {
    throw new CalcError(`collective latency must be 'floor', 'ring' or a number of seconds from 0 to ${K.max_latency_s} `
      + `per collective, got ${latency}`);
  }
  return latency;
}

/** parallel.run_latency_s: one run's latency. */
function runLatency(kind, n, ic, latency) {
  const steps = ringSteps(kind, n);
  if (!steps) return 0.0;
  if (latency === "ring") return ic.latency_base_s + steps * ic.latency_per_step_s;
  if (latency === "floor") return ic.latency_floor_s;
  return latency;
}

// A link's latency in words, kept per link and latency: formatting it on every step was a tenth of a
// serving frontier's time.
const latencyWords = new WeakMap();
function latencyText(ic, latency) {
  if (!latencyWords.has(ic)) latencyWords.set(ic, new Map());
  const words = latencyWords.get(ic);
  if (!words.has(latency)) words.set(latency, latencyDescription(ic, latency));
  return words.get(latency);
}

/** parallel.latency_description: which collective latency a figure uses. */
export function latencyDescription(ic, latency) {
  if (latency === "floor") {
    return `floor: ${seconds(ic.latency_floor_s)} per collective, the fastest published small-message all-reduce `
      + `on ${ic.link} (a ceiling)`;
  }
  if (latency === "ring") return `NCCL ring (expected): ${seconds(ic.latency_base_s)} + ${seconds(ic.latency_per_step_s)} per ring step`;
  return `set: ${seconds(latency)} per collective`;
}

/** parallel.collective: one collective as a row of the step (no FLOPs; its roof is the link). */
function collective(C, kind, payload, n, ic, peak, name, count, latency) {
  const latencyRun = runLatency(kind, n, ic, latency);
  const linkBytes = count * ringFactor(kind, n) * payload;
  const bw = ic.bandwidth_bytes_per_s_per_direction;
  const lat = count * latencyRun, transfer = linkBytes / bw;
  return { name, kind, count, collective: true, flops: 0, bytes: linkBytes, time_s: lat + transfer, latency_s: lat,
           linkBandwidth: bw,
           arithmetic_intensity: 0, ridge_point: peak / bw, dtype: "link",
           bound: lat >= transfer ? C.kernels.latency_bound : C.kernels.link_bound };
}

function requireInterconnect(device, what) {
  if (!device.interconnect) throw new CalcError(`${what} needs a link between devices, but ${device.interconnect_note}`);
  return device.interconnect;
}

/** parallel.Layout: the degrees, their device count and name. */
export function layoutOf(K, tp = 1, pp = 1, ep = 1) {
  const lay = { tp: degree(K, "--tp", tp), pp: degree(K, "--pp", pp), ep: degree(K, "--ep", ep), dp: 1 };
  lay.devices = lay.tp * lay.pp * lay.ep;
  const parts = [["TP", lay.tp], ["EP", lay.ep], ["PP", lay.pp]].filter(([, v]) => v > 1).map(([k, v]) => `${k}${v}`);
  lay.name = parts.join(" × ") || "1 device";
  return lay;
}

/** parallel.check_layout: refuse, in the CLI's words, a layout no engine would run. */
export function checkLayout(m, device, lay) {
  const { tp, pp, ep } = lay;
  const replica = tp * pp * ep;
  if (replica > 1 && isBare(m)) {
    throw new CalcError("--tp/--pp/--ep: a bare parameter count has no layers or heads to split; "
      + "give a registry model (see `roofline models`)");
  }
  for (const [opt, n] of [["--tp", tp], ["--ep", ep], ["--pp", pp]]) {
    if (n > 1) {
      const ic = requireInterconnect(device, `${opt} ${n}`);
      if (replica > ic.domain_devices) {
        throw new CalcError(`${opt} ${n}: ${lay.name} spans ${replica} devices but one ${device.name} scale-up domain `
          + `(${ic.link}) holds ${ic.domain_devices}; the scale-out network between domains is not modelled`);
      }
    }
  }
  if (tp > 1 && ep > 1) {
    throw new CalcError(`--ep ${ep} with --tp ${tp}: expert parallelism is modelled with data-parallel attention `
      + "(each device keeps whole attention weights), so combine it with --tp 1");
  }
  if (tp > 1) {
    if (m.n_heads % tp) {
      throw new CalcError(`--tp ${tp}: ${m.name} has ${m.n_heads} attention heads, which ${tp} does not divide; `
        + "vLLM and TensorRT-LLM refuse such a split");
    }
    if (m.kv_heads % tp && tp % m.kv_heads) {
      throw new CalcError(`--tp ${tp}: ${m.name} has ${m.kv_heads} KV heads; engines need the TP degree to divide them `
        + "or be a multiple of them (then each device keeps a copy)");
    }
  }
  if (ep > 1) {
    if (!isMoe(m)) throw new CalcError(`--ep ${ep}: ${m.name} is dense; expert parallelism needs a mixture-of-experts model`);
    if (m.n_experts % ep) throw new CalcError(`--ep ${ep}: ${m.name} has ${m.n_experts} experts, which ${ep} does not divide`);
  }
  if (pp > 1 && pp > m.n_layers) throw new CalcError(`--pp ${pp}: ${m.name} has only ${m.n_layers} layers to give the stages`);
}

/** parallel.shard: the part of the model one device holds under TP and PP. */
export function shard(m, lay) {
  if (isBare(m) || (lay.tp === 1 && lay.pp === 1)) return m;
  const tp = lay.tp;
  const out = { ...m, n_heads: Math.floor(m.n_heads / tp), kv_heads: Math.max(Math.floor(m.kv_heads / tp), 1),
    ffn_size: m.ffn_size / tp, vocab_size: m.vocab_size / tp, n_layers: Math.ceil(m.n_layers / lay.pp) };
  if (m.n_window_layers) out.n_window_layers = Math.ceil(m.n_window_layers / lay.pp);
  if (m.moe_ffn_size) out.moe_ffn_size = m.moe_ffn_size / tp;
  if (m.n_dense_layers) out.n_dense_layers = Math.ceil(m.n_dense_layers / lay.pp);
  return out;
}

/** parallel._expert_resident_bytes: every expert's MLP weights, all layers. */
function expertResidentBytes(K, m, f, bytesPerWeight) {
  const d = m.hidden_size, ff = m.moe_ffn_size || m.ffn_size;
  const layers = m.n_layers - (m.n_dense_layers || 0), mIn = m.gated_ffn ? 2 : 1;
  return layers * m.n_experts * (bytesPerWeight(d) * d * mIn * ff + bytesPerWeight(ff) * ff * d);
}

/** parallel._step: one device's kernels and collectives under a layout, and the step they make. */
export function parallelStep(C, K, m, device, f, attention, phase, batch, length, lay, bytesPerWeight, latency = "floor") {
  latency = checkLatency(K, latency);
  checkLayout(m, device, lay);
  if (typeof batch !== "number" || !Number.isFinite(batch) || batch < 1 || batch !== Math.floor(batch) || batch > K.max_size) {
    step(C, K, m, device, f, attention, phase, batch, length); // the per-kernel model's own sentence
  }
  const perReplica = Math.ceil(batch / lay.dp);
  const perDevice = Math.ceil(perReplica / lay.ep);
  const microBatches = Math.min(perDevice, lay.pp);
  const micro = Math.ceil(perDevice / microBatches);
  const part = shard(m, lay);
  const stage = step(C, K, part, device, f, attention, phase, micro, length);
  const tokens = micro * (phase === "prefill" ? length : 1.0);
  return assemble(C, K, m, device, f, lay, part, stage,
    () => step(C, K, part, device, f, attention, phase, Math.ceil(perReplica / microBatches), length),
    tokens, micro, batch, micro, microBatches, bytesPerWeight, latency);
}

/** parallel._assemble: one device's stage plus the collectives its layout adds. */
export function assemble(C, K, m, device, f, lay, part, stage, whole, tokens, logitRows, batch, micro, microBatches, bytesPerWeight,
  latency = "floor") {
  const base = { lay, stage, collectives: [], sends: null, batch, micro, microBatches, kvResident: stage.kvResident, kvNote: "",
    latency };
  if (lay.devices === 1) return finish(C, device, base);
  const peak = peakFlopPerS(C, device, matmulDtype(f));
  const ic = device.interconnect;
  const d = m.hidden_size, a = K.element_bytes[f.activation];
  const L = part.n_layers;
  const coll = [];
  if (lay.tp > 1) {
    const n = lay.tp, act = tokens * d * a;
    coll.push(collective(C, "all-reduce", act, n, ic, peak, "embed_all_reduce", 1, latency),
      collective(C, "all-reduce", act, n, ic, peak, "attn_all_reduce", L, latency),
      collective(C, "all-reduce", act, n, ic, peak, "mlp_all_reduce", L, latency),
      collective(C, "all-gather", logitRows * m.vocab_size * a, n, ic, peak, "logits_all_gather", 1, latency));
  }
  if (lay.ep > 1) {
    const n = lay.ep;
    // the full batch's expert weights, shared out: each device reads 1/ep of the experts the batch touches
    const expertW = new Map(whole().ops.filter((o) => o.name.startsWith("experts_")).map((o) => [o.name, o.weight_bytes]));
    const ops = stage.ops.map((o) => (expertW.has(o.name) ? finishOp(C, { ...o, weight_bytes: expertW.get(o.name) / n }) : o));
    const resident = stage.weightsResident - expertResidentBytes(K, part, f, bytesPerWeight) * (1 - 1 / n);
    stage = summarize(C, K, { ...stage, ops, weightsResident: resident });
    const routed = tokens * m.experts_per_token * d * a;
    coll.push(collective(C, "all-to-all", routed, n, ic, peak, "moe_dispatch_all_to_all", L, latency),
      collective(C, "all-to-all", routed, n, ic, peak, "moe_combine_all_to_all", L, latency));
  }
  const sends = lay.pp > 1 ? collective(C, "send", tokens * d * a, 2, ic, peak, "pp_send", lay.pp - 1, latency) : null;
  let kvNote = "";
  if (lay.tp > m.kv_heads) {
    kvNote = `${m.kv_heads} KV heads over ${lay.tp} devices: each device keeps a copy of one KV head `
      + `(${Math.floor(lay.tp / m.kv_heads)} copies of each)`;
  }
  return finish(C, device, { ...base, stage, collectives: coll, sends, kvResident: stage.kvResident * microBatches, kvNote });
}

/** ParallelStep.bound past half the stage: latency at least half of the collectives' time, or bytes. */
function boundOnTheLink(C, collectives, collectiveS) {
  const latency = collectives.reduce((acc, c) => acc + c.latency_s, 0);
  const share = collectiveS > 0 ? latency / collectiveS : 0.0;
  return share >= 0.5 ? C.kernels.collective_latency_bound : C.kernels.link_bandwidth_bound;
}

/** ParallelStep's properties: time = pp × (kernels + collectives) + sends, memory per device, bound. */
function finish(C, device, p) {
  const { lay, stage, collectives, sends } = p;
  const collectiveS = collectives.reduce((acc, c) => acc + c.time_s, 0);
  const stageS = stage.timeS + collectiveS;
  const single = !collectives.length && lay.pp === 1;
  let timeS = single ? stage.timeS : lay.pp * stageS;
  let overlapS = single ? stage.overlapS : lay.pp * Math.max(stage.overlapS, collectiveS);
  if (sends) { timeS += sends.time_s; overlapS += sends.time_s; }
  let linkBytes = collectives.reduce((acc, c) => acc + c.bytes, 0);
  if (sends) linkBytes += sends.bytes / Math.max(lay.pp - 1, 1);
  const memory = stage.weightsResident + p.kvResident + stage.activationPeak + C.kernels.runtime_reserve_bytes;
  // One literal of fixed shape (no spread, no properties added later): a serving frontier builds
  // hundreds of these, and V8 keeps such objects fast.
  return { lay, stage, collectives, sends, batch: p.batch, micro: p.micro, microBatches: p.microBatches,
           kvResident: p.kvResident, kvNote: p.kvNote, latency: p.latency,
           collectiveS, stageS, timeS, overlapS, linkBytes, memory, fits: memory <= usableMemory(device),
           ops: sends ? stage.ops.concat(collectives, [sends]) : stage.ops.concat(collectives),
           bound: collectiveS * 2 >= stageS ? boundOnTheLink(C, collectives, collectiveS) : stage.bound,
           latencyText: lay.devices > 1 && device.interconnect ? latencyText(device.interconnect, p.latency) : "",
           bubble: 1.0 - p.microBatches / lay.pp };
}

/** parallel.max_batch_that_fits: the largest decode batch whose per-device memory fits (0 if none). */
export function maxBatchThatFits(C, K, m, device, f, attention, context, lay, bytesPerWeight) {
  const limit = K.max_batch_limit;
  const fits = (b) => parallelStep(C, K, m, device, f, attention, "decode", b, context, lay, bytesPerWeight).fits;
  if (!fits(1)) return 0;
  let lo = 1, hi = 2;
  while (hi <= limit && fits(hi)) { lo = hi; hi *= 2; }
  if (hi > limit) return limit;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) lo = mid; else hi = mid;
  }
  return lo;
}

/** parallel.engine_layout: TP inside the scale-up domain as wide as the heads allow, PP for the rest. */
export function engineLayout(K, m, device, devices) {
  const n = degree(K, "--devices", devices);
  if (n === 1) return layoutOf(K);
  let tp = n;
  while (tp > 1 && (m.n_heads % tp || (m.kv_heads % tp && tp % m.kv_heads) || n % tp)) tp -= 1;
  const lay = layoutOf(K, tp, n / tp);
  try {
    checkLayout(m, device, lay);
  } catch (err) {
    if (err instanceof CalcError) throw new CalcError(`--devices ${n}: ${err.message}`);
    throw err;
  }
  return lay;
}
