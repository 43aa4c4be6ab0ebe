// Layouts over several devices in the browser: mirrors roofline.model.parallel's collectives, layout checks and
// shards. A collective over N devices in a ring costs latency + bytes ÷ link bandwidth (per direction), with
// the ring factors of NCCL's performance notes: all-reduce 2(N−1)/N · S per device in 2(N−1) steps, all-gather,
// reduce-scatter and all-to-all (N−1)/N · S in N−1 steps, a pipeline send S in one step. The latency: the
// link's floor per collective ("floor", for ceilings), an NCCL ring's base + steps × per step ("ring", the
// expected figure), or seconds per collective set by the reader.
// Loaded on demand (a reader on one device never downloads it): importing it hands its functions to
// parallel.js (useMany), which calls them for any layout of more than one device. Parity-tested through
// view.js and serving.js against the package.

import { CalcError, peakFlopPerS } from "./calc.js";
import { seconds } from "./format.js";
import { finishOp, isBare, isMoe, matmulDtype, summarize } from "./kernels.js";
import { finish, layoutOf, useMany } from "./parallel.js";

const KINDS = ["all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send"];

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

/** parallel._assemble over several devices: one device's stage plus the collectives its layout adds. */
export function assemble(C, K, m, device, f, lay, part, stage, whole, tokens, logitRows, batch, micro, microBatches, bytesPerWeight,
  latency = "floor") {
  const base = { lay, stage, collectives: [], sends: null, batch, micro, microBatches, kvResident: stage.kvResident, kvNote: "",
    latency };
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

/** parallel.engine_layout: TP inside the scale-up domain as wide as the heads allow, PP for the rest. */
export function engineLayout(K, m, device, n) {
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

useMany({ latencyText, checkLayout, shard, assemble, boundOnTheLink, engineLayout });
