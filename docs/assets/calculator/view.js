// What the calculator shows: mirrors roofline.calculator_view.calculate over kernels.js (one
// device's kernels) and parallel.js (layouts and collectives). Parity-tested within 1e-9 by
// tests/unit/calculator_view/test_calculator_parity.py.

import { CalcError, peakFlopPerS, totalParams } from "./calc.js";
import { attentionIntensity, bytesPerWeight, check, criticalBatchCached, formatsOf, isBare, matmulDtype, step,
  weightsFor } from "./kernels.js";
import { forNodes, layoutOf, maxBatchThatFits, parallelStep } from "./parallel.js";
import { integer } from "./format.js";

// What does not depend on the batch (the largest batch that fits, the speed of light) is kept between
// recomputes: the memory wall alone takes a few dozen step evaluations, most of a redraw's budget.
const memo = new Map();
function remember(key, fn) {
  if (!memo.has(key)) {
    if (memo.size > 256) memo.clear();
    memo.set(key, fn());
  }
  return memo.get(key);
}

/** calculator_view.length_limit_message: a context or prompt past the model's maximum, or "". */
export function lengthLimitMessage(m, phase, length) {
  const limit = m.max_context_tokens || 0;
  if (!limit || length <= limit) return "";
  const field = phase === "decode" ? "Context length" : "Prompt length";
  return `${field} must be at most ${integer(limit)} tokens for ${m.name} (its max_position_embeddings).`;
}

/** calculator_view.calculate: every output the calculator shows. `length` is the context already
 *  cached (decode, at least 1) or the prompt length (prefill); FLOPs, bytes and memory are one device's. */
export function calculate(C, device, m, phase = "decode", batch = 1, length = 1, weightFormat = "bf16",
                          kvDtype = "bf16", activation = "bf16", attention = "fused", tp = 1, pp = 1, ep = 1,
                          latency = "floor", weightScope = "linear", nodes = null) {
  const K = C.kernels;
  const f = formatsOf(K, weightFormat, activation, kvDtype, weightScope);
  const lay = forNodes(K, m, device, layoutOf(K, tp, pp, ep), nodes);
  check(K, f, attention, device);
  if (phase !== "decode" && phase !== "prefill") throw new CalcError(`phase must be 'decode' or 'prefill', got '${phase}'`);
  const bpw = (x) => bytesPerWeight(K, weightsFor(f, "experts"), x); // EP shares out the experts' bytes
  const p = parallelStep(C, K, m, device, f, attention, phase, batch, length, lay, bpw, latency);
  // The same step at an NCCL ring's latency: the expected figure beside the ceiling.
  const expected = p.collectives.length
    ? parallelStep(C, K, m, device, f, attention, phase, batch, length, lay, bpw, "ring") : null;
  const beyond = lengthLimitMessage(m, phase, length);
  if (beyond) throw new CalcError(beyond); // after the step, so a refused format or layout speaks first
  const s = p.stage;
  const mmDtype = matmulDtype(f);
  const peak = peakFlopPerS(C, device, mmDtype), bw = device.memory_bandwidth_bytes_per_s;
  const key = JSON.stringify([device, m, weightFormat, weightScope, kvDtype, activation, attention, length, lay.tp, lay.pp, lay.ep]);
  // parallel.speed_of_light_tokens_per_s: each device's share of the weights, read once per token, stages in turn
  const sol = remember(`sol ${key}`, () => lay.pp * parallelStep(C, K, m, device, f, "fused", "decode", 1, 1, lay, bpw).stage.weightBytes);
  const ic = device.interconnect;
  const tokens = batch * s.n;
  // across nodes: the network's bytes per device and its time carrying them (parallel.ParallelStep.network_bytes, network_time_s)
  const runs = p.collectives.concat(p.sends ? [p.sends] : []).filter((c) => c.network_share);
  const netS = runs.reduce((acc, c) => acc + c.network_s, 0);
  return {
    phase,
    compute_dtype: mmDtype,
    weight_format: f.weights.name,
    weight_scope: f.scope,
    peak_flop_per_s: peak,
    bandwidth_bytes_per_s: bw,
    ridge_point: peak / bw,
    memory_capacity_bytes: device.memory_capacity_bytes,
    usable_memory_bytes: device.usable_memory_bytes || device.memory_capacity_bytes,
    total_params: totalParams(m),
    devices: lay.devices,
    layout: lay.name,
    flops: s.flops,
    bytes: s.bytes,
    weight_bytes: s.weightBytes,
    kv_bytes: s.kvBytes,
    activation_bytes: s.actBytes,
    arithmetic_intensity: s.flops / s.bytes,
    bound: p.bound,
    time_s: p.timeS,
    time_perfect_overlap_s: p.overlapS,
    compute_time_s: s.computeS,
    memory_time_s: s.memoryS,
    collective_time_s: p.collectiveS,
    time_to_first_token_s: phase === "prefill" ? p.timeS : null,
    attained_flop_per_s: s.flops / p.stageS,
    tokens_per_s_per_sequence: s.n / p.timeS,
    tokens_per_s: tokens / p.timeS,
    tokens_per_s_per_device: tokens / p.timeS / lay.devices,
    tokens_per_s_perfect_overlap: tokens / p.overlapS,
    kv_resident_bytes: p.kvResident,
    weights_resident_bytes: s.weightsResident,
    memory_required_bytes: p.memory,
    fits: p.fits,
    critical_batch: criticalBatchCached(C, K, m, device, f),
    max_batch_that_fits: isBare(m) ? null
      : remember(`max ${key}`, () => maxBatchThatFits(C, K, m, device, f, attention, length, lay, bpw)),
    attention_intensity: isBare(m) ? null : attentionIntensity(K, m, f),
    speed_of_light_tokens_per_s: bw / sol,
    collective_latency: p.latencyText,
    expected_tokens_per_s_per_sequence: expected ? expected.stage.n / expected.timeS : null,
    link_bytes: p.linkBytes,
    link_intensity: p.linkBytes > 0 ? s.flops / p.linkBytes : null,
    link_ridge_point: ic ? peak / ic.bandwidth_bytes_per_s_per_direction : null,
    bubble_fraction: p.bubble,
    kv_note: p.kvNote,
    network_bytes: runs.reduce((acc, c) => acc + c.network_bytes, 0),
    network_time_s: netS,
    network_share: netS / p.timeS,
    ops: p.ops.map((o) => ({ name: o.name, count: o.count, flops: o.flops, bytes: o.bytes,
                             arithmetic_intensity: o.arithmetic_intensity, ridge_point: o.ridge_point,
                             bound: o.bound, time_s: o.time_s, compute_dtype: o.dtype })),
  };
}
