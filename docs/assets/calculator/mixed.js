// The Serving mode's share of the per-kernel and parallel models: one engine step of a mixed batch
// (kernels.mixed and parallel.mixed: decode tokens and a prefill chunk, fractional in steady state) and
// the layouts a service sweeps (parallel.Layout with DP, parallel.candidate_layouts). Only serving.js
// imports it, so the step mode, which every reader of the calculator downloads, goes without.
// Parity-tested through serving.js against roofline.calculator_view.serving.

import { CalcError, kvElementsPerTokenPerLayer, peakFlopPerS } from "./calc.js";
import { finishOp, isBare, kernelOps, matmulDtype, summarize, weightsResidentBytes } from "./kernels.js";
import { assemble, checkLatency, degree, layoutOf } from "./parallel.js";
import { checkLayout, shard } from "./many.js";

/** kernels.mixed: one engine step of a mixed batch (decode tokens and a prefill chunk), from its totals
 *  (`w`, a kernels.MixedWork: fractional in steady state) as a batch of one "sequence" holding every token. */
export function mixedStep(C, K, m, device, f, attention, w) {
  if (isBare(m)) {
    throw new CalcError("a bare parameter count has no attention or KV cache to serve requests with; "
      + "give a registry model or a config.json");
  }
  const tokens = w.decode_tokens + w.prefill_tokens;
  const attended = w.decode_positions + w.prefill_positions;
  const pairs = w.decode_positions + w.prefill_pairs;
  const ops = kernelOps(C, K, m, device, f, attention, 1, tokens, attended, pairs, w.head_tokens).map((o) => finishOp(C, o));
  return summarize(C, K, {
    ops, B: 1, n: tokens, device, f, model: m,
    kvResident: w.kv_positions * kvElementsPerTokenPerLayer(m) * K.element_bytes[f.kv],
    residual: tokens * m.hidden_size * K.element_bytes[f.activation],
    weightsResident: weightsResidentBytes(K, m, f),
    ridge: peakFlopPerS(C, device, matmulDtype(f)) / device.memory_bandwidth_bytes_per_s,
  });
}

/** kernels.MixedWork.scaled: the same step's work on a share of its requests. */
export function scaledWork(w, share) {
  const out = {};
  for (const [k, v] of Object.entries(w)) out[k] = v * share;
  return out;
}

/** parallel.mixed: one engine step of one replica (`w`, a MixedWork) under `lay`. */
export function mixedParallelStep(C, K, m, device, f, attention, w, lay, bytesPerWeight, latency = "floor") {
  latency = checkLatency(K, latency);
  checkLayout(m, device, lay);
  // The Serving mode's figures (the binding limit's gains, the expected step) are mirrored within one scale-up
  // domain only: a layout across nodes is refused here rather than shown with figures the package does not give.
  const ic = device.interconnect, replica = lay.tp * lay.pp * lay.ep;
  if (ic && replica > ic.domain_devices) {
    throw new CalcError(`--tp/--pp/--ep/--dp: ${lay.name} spans ${replica} devices, more than one ${device.name} `
      + `scale-up domain holds (${ic.domain_devices}); the Serving mode stays within one domain, and the step mode's `
      + "Nodes field goes beyond it");
  }
  const perDevice = w.requests / lay.ep;
  const microBatches = Math.min(Math.max(Math.ceil(perDevice), 1), lay.pp);
  const part = shard(m, lay);
  const micro = scaledWork(w, 1.0 / (lay.ep * microBatches));
  const stage = mixedStep(C, K, part, device, f, attention, micro);
  return assemble(C, K, m, device, f, lay, part, stage,
    () => mixedStep(C, K, part, device, f, attention, scaledWork(w, 1.0 / microBatches)),
    micro.decode_tokens + micro.prefill_tokens, micro.head_tokens, w.requests, micro.requests, microBatches,
    bytesPerWeight, latency);
}

/** parallel.Layout with data parallelism: the degrees, their device count and name (TP, EP, PP, DP). */
export function layoutWithDp(K, tp = 1, pp = 1, ep = 1, dp = 1) {
  const lay = layoutOf(K, tp, pp, ep);
  lay.dp = degree(K, "--dp", dp);
  lay.devices *= lay.dp;
  const parts = [["TP", lay.tp], ["EP", lay.ep], ["PP", lay.pp], ["DP", lay.dp]].filter(([, v]) => v > 1)
    .map(([k, v]) => `${k}${v}`);
  lay.name = parts.join(" × ") || "1 device";
  return lay;
}

/** parallel.candidate_layouts: within one scale-up domain, fewest devices first: TP, EP, PP, DP at each count. */
export function candidateLayouts(K, m, device, maxDevices = null) {
  const ic = device.interconnect;
  let top = ic ? ic.domain_devices : 1;
  if (maxDevices) top = Math.min(top, maxDevices);
  const out = [layoutWithDp(K)];
  for (let n = 2; n <= top; n *= 2) {
    for (const [tp, ep, pp, dp] of [[n, 1, 1, 1], [1, n, 1, 1], [1, 1, n, 1], [1, 1, 1, n]]) {
      const lay = layoutWithDp(K, tp, pp, ep, dp);
      try {
        checkLayout(m, device, lay);
      } catch (err) {
        if (err instanceof CalcError) continue;
        throw err;
      }
      out.push(lay);
    }
  }
  return out;
}
