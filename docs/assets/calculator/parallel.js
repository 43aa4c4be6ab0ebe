// Layouts in the browser: mirrors roofline.model.parallel. Tensor (TP), pipeline (PP) and expert (EP)
// parallelism: one device's kernels plus its collectives, summed. This file holds what one device needs
// (the layout, the step, the memory wall); the collectives, the layout checks and the shards of several
// devices are many.js. Parity-tested through view.js against roofline.calculator_view.calculate.

import { CalcError } from "./calc.js";
import { step, usableMemory } from "./kernels.js";

// Everything a layout of more than one device needs (collectives, the layout checks, shards) is many.js,
// loaded when a reader first asks for several devices (ui.js) or with the Serving mode: importing it
// registers it here. Until then only one device is computed, as every reader starts.
let many = null;
/** Called by many.js as it loads. */
export function useMany(module) { many = module; }
/** Whether many.js has come (ui.js loads it before a view of several devices). */
export const hasMany = () => many !== null;
function needMany() {
  if (!many) throw new CalcError("--devices: the model of layouts over several devices has not loaded; reload the page to try again");
  return many;
}

/** parallel._degree: a whole number from 1 to max_degree, named as the CLI names the option. */
export function degree(K, name, value) {
  if (typeof value !== "number" || !Number.isFinite(value) || value !== Math.floor(value) || value < 1) {
    throw new CalcError(`${name} must be a whole number ≥ 1, got ${value}`);
  }
  if (value > K.max_degree) throw new CalcError(`${name} must be at most ${K.max_degree}, got ${value}`);
  return value;
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

/** parallel.Layout: the degrees, their device count and name. */
export function layoutOf(K, tp = 1, pp = 1, ep = 1) {
  const lay = { tp: degree(K, "--tp", tp), pp: degree(K, "--pp", pp), ep: degree(K, "--ep", ep), dp: 1 };
  lay.devices = lay.tp * lay.pp * lay.ep;
  const parts = [["TP", lay.tp], ["EP", lay.ep], ["PP", lay.pp]].filter(([, v]) => v > 1).map(([k, v]) => `${k}${v}`);
  lay.name = parts.join(" × ") || "1 device";
  return lay;
}

/** parallel.check_layout: refuse, in the CLI's words, a layout no engine would run (one device: nothing to refuse). */
export function checkLayout(m, device, lay) {
  if (lay.tp * lay.pp * lay.ep > 1) needMany().checkLayout(m, device, lay);
}

/** parallel.shard: the part of the model one device holds under TP and PP. */
export const shard = (m, lay) => (lay.tp === 1 && lay.pp === 1 ? m : needMany().shard(m, lay));

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

/** parallel._assemble: one device's stage plus the collectives its layout adds (several devices: many.js). */
export function assemble(C, K, m, device, f, lay, part, stage, whole, tokens, logitRows, batch, micro, microBatches, bytesPerWeight,
  latency = "floor") {
  if (lay.devices > 1) {
    return needMany().assemble(C, K, m, device, f, lay, part, stage, whole, tokens, logitRows, batch, micro, microBatches,
      bytesPerWeight, latency);
  }
  return finish(C, device, { lay, stage, collectives: [], sends: null, batch, micro, microBatches, kvResident: stage.kvResident,
    kvNote: "", latency });
}

/** ParallelStep's properties: time = pp × (kernels + collectives) + sends, memory per device, bound. */
export function finish(C, device, p) {
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
           bound: collectiveS * 2 >= stageS ? many.boundOnTheLink(C, collectives, collectiveS) : stage.bound,
           latencyText: lay.devices > 1 && device.interconnect ? many.latencyText(C, device, p.latency, collectives.concat([sends])) : "",
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
  return n === 1 ? layoutOf(K) : needMany().engineLayout(K, m, device, n);
}

/** The layout on `nodes` machines (null: as given), as `roofline decode --nodes` reads it (many.js). */
export const forNodes = (K, m, device, lay, nodes) => (nodes === null ? lay : needMany().forNodes(K, m, device, lay, nodes));
