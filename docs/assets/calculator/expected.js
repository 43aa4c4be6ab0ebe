// The expected step (roofline.model.efficiency): the ceiling's step with every kernel at its efficiency from
// published kernel benchmarks, plus the engine's per-step overhead once. An estimate, never a measurement,
// and never faster than the ceiling. Only serving.js imports it, so the step mode goes without; its data
// (constants.serving.expected) arrives with the Serving mode's share of the registry.
// Parity-tested through serving.js against roofline.calculator_view.serving.

import { expertsTouched } from "./calc.js";
import { isMoe, matmulDtype } from "./kernels.js";
import { mixedParallelStep } from "./mixed.js";

const MATMULS = new Set(["qkv_proj", "o_proj", "gate_up_proj", "up_proj", "down_proj", "shared_gate_up", "shared_down",
  "router", "weights"]);
const EXPERTS = new Set(["experts_gate_up", "experts_down"]);
const ATTENTION = new Set(["attention", "attn_qk", "attn_pv"]);

/** EfficiencyFit.at: intercept + slope · log₁₀(size), the size held inside the measured range, capped at 1. */
function at([intercept, slope, lo, hi], size) {
  return Math.min(intercept + slope * Math.log10(Math.max(Math.min(Math.max(size, lo), hi), 1e-300)), 1.0);
}

/** efficiency.fit_for: the device's own rows of the format, else the format's rows on any device, else every row. */
function fitFor(E, kind, deviceId, dtype) {
  const fam = E.dtype_family[dtype] || dtype, fits = E.fits[kind];
  return (fits.device[deviceId] && fits.device[deviceId][fam]) || fits.format[fam] || fits.all;
}

/** efficiency.allreduce_latency_s: a one-shot all-reduce's latency, linear in log₂ devices (held inside the rows). */
function allreduceLatency(E, devices) {
  const [a, b, lo, hi] = E.allreduce_latency;
  return a + b * Math.log2(Math.min(Math.max(devices, lo), hi));
}

/** efficiency._collective_time: the engines' measured latency (never below the ceiling's), bytes at the link's share.
 *  A collective's devices: a pipeline send runs between two, an all-to-all over the EP group, the rest over TP. */
function collectiveTime(E, c, lay, linkEta) {
  const devices = c.kind === "send" ? 2 : c.kind === "all-to-all" ? lay.ep : lay.tp;
  const perRun = c.latency_s > 0 ? Math.max(c.latency_s / c.count, allreduceLatency(E, devices)) : 0.0;
  return c.count * perRun + c.bytes / c.linkBandwidth / linkEta;
}

/** efficiency._attention_time: attention split into its decode part (reads of the cache) and its prefill part,
 *  each at its roofline and its efficiency. */
function attentionTime(o, scoreShare, posShare, etaPre, etaDec) {
  const tDec = Math.max(o.flops * scoreShare / o.peak, o.bytes * posShare / o.bandwidth);
  const tPre = Math.max(o.flops * (1 - scoreShare) / o.peak, o.bytes * (1 - posShare) / o.bandwidth);
  return tDec / etaDec + tPre / etaPre;
}

/** efficiency.expected_time_s: one engine step of one replica (`w`, a MixedWork) under `lay` with every kernel at
 *  its efficiency and `engine`'s per-step overhead (a serving.Workload's engine key, null for the default) added
 *  once. The same inputs as mixed.js's mixedParallelStep; `ceiling`, that step where the caller has it. */
export function expectedTime(C, K, m, device, f, attention, w, lay, bytesPerWeight, latency = "floor", engine = null,
  ceiling = null) {
  const E = C.serving.expected, D = C.serving.derates;
  const step = ceiling || mixedParallelStep(C, K, m, device, f, attention, w, lay, bytesPerWeight, latency);
  const stage = step.stage, part = stage.model;
  const eta = (kind, size, dtype) => at(fitFor(E, kind, device.id, dtype), size);
  const tokens = stage.n, mmDtype = matmulDtype(f);
  const etaMm = eta("matmul", Math.max(tokens, 1), mmDtype);
  const head = stage.ops.find((o) => o.name === "lm_head");
  const headRows = head ? head.actR / (part.hidden_size * K.element_bytes[f.activation]) : tokens;
  const etaHead = eta("matmul", Math.max(headRows, 1), head ? head.dtype : mmDtype);
  // efficiency._attention_split: the decode requests' share of the scores and of the positions read, and the
  // causal length whose pairs per position match the chunk's (n = 2·pairs ÷ positions − 1)
  const dpos = w.decode_positions, ppairs = w.prefill_pairs, ppos = w.prefill_positions;
  const scoreShare = dpos + ppairs > 0 ? dpos / (dpos + ppairs) : 1.0;
  const posShare = dpos + ppos > 0 ? dpos / (dpos + ppos) : 1.0;
  const length = Math.max(ppos > 0 ? 2.0 * ppairs / ppos - 1.0 : 1.0, 1.0);
  const att = stage.ops.find((o) => ATTENTION.has(o.name));
  const etaPre = scoreShare < 1 ? eta("attention_prefill", length, att ? att.dtype : "bf16") : 1.0;
  // the KV cache one layer's decode attention reads on this device: the kernel's KV bytes (all layers) times
  // the decoding requests' share of the positions, ÷ the layers
  const etaDec = scoreShare > 0 && att
    ? eta("attention_decode", Math.max(att.kvR * posShare / Math.max(att.count, 1), 1.0), f.kv) : 1.0;
  const etaBw = Math.min(D.bandwidth, 1.0);
  let etaEx = 1.0;
  if (isMoe(m)) {
    const whole = tokens * lay.ep; // EP: the replica's tokens reach every device's experts
    const touched = expertsTouched(m, whole);
    etaEx = eta("grouped_matmul", Math.max(whole * m.experts_per_token / Math.max(touched, 1e-9), 1.0), mmDtype);
  }
  let kernelS = 0;
  for (const o of stage.ops) {
    if (EXPERTS.has(o.name)) kernelS += o.time_s / Math.min(etaEx, 1.0);
    else if (o.name === "lm_head") kernelS += o.time_s / Math.min(etaHead, 1.0);
    else if (MATMULS.has(o.name)) kernelS += o.time_s / Math.min(etaMm, 1.0);
    else if (ATTENTION.has(o.name)) kernelS += attentionTime(o, scoreShare, posShare, etaPre, etaDec);
    else kernelS += o.time_s / etaBw;
  }
  const linkEta = step.collectives.length || step.sends ? Math.min(D.collective, 1.0) : 1.0;
  let collS = 0;
  for (const c of step.collectives) collS += collectiveTime(E, c, lay, linkEta);
  const sendS = step.sends ? collectiveTime(E, step.sends, lay, linkEta) : 0.0;
  return lay.pp * (kernelS + collS) + sendS + E.step_overhead_s[E.engine[engine || ""]];
}
