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
import { integer, seconds } from "./format.js";
import { finishOp, isBare, isMoe, matmulDtype, summarize } from "./kernels.js";
import { degree, finish, layoutOf, useMany } from "./parallel.js";

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
function linkLatencyText(ic, latency) {
  if (!latencyWords.has(ic)) latencyWords.set(ic, new Map());
  const words = latencyWords.get(ic);
  if (!words.has(latency)) words.set(latency, latencyDescription(ic, latency));
  return words.get(latency);
}

/** ParallelStep.latency_description: the link's latency, and where bytes cross nodes, the network's floor. */
function latencyText(C, device, latency, runs) {
  const text = linkLatencyText(device.interconnect, latency), net = device.network;
  if (!net || !runs.some((c) => c && c.network_share)) return text;
  const [effLink, effNet] = C.kernels.ep_efficiency;
  return `${text}; across nodes at least the network's floor, ${seconds(net.latency_floor_s)} (${net.link})`
    + (latency === "ring" ? `, each link at DeepEP's measured share of its spec (${integer(effLink * 100)}% scale-up, `
      + `${integer(effNet * 100)}% network)` : "");
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

/** parallel.CollectivePoint: `count` runs of a collective as a row of the step (no FLOPs; its roof is the link).
 *  A share `net` of its bytes crosses the scale-out network at `netBw`: both links at once (the slower sets the
 *  time) or, `sequential`, one after the other (pipeline sends at one stage boundary after another). */
function point(C, name, kind, n, payload, bw, perRun, peak, count, net = 0, netBw = 0, sequential = false) {
  const linkBytes = count * ringFactor(kind, n) * payload;
  const netBytes = linkBytes * net, onLink = (linkBytes - netBytes) / bw;
  const onNet = net ? netBytes / netBw : 0;
  const lat = count * perRun, transfer = !net ? onLink : sequential ? onLink + onNet : Math.max(onLink, onNet);
  return { name, kind, count, collective: true, flops: 0, bytes: linkBytes, time_s: lat + transfer, latency_s: lat,
           linkBandwidth: bw, network_share: net, network_bytes: netBytes, network_s: onNet,
           arithmetic_intensity: 0, ridge_point: peak / bw, dtype: "link",
           bound: lat >= transfer ? C.kernels.latency_bound : C.kernels.link_bound };
}

/** parallel.collective: one collective on the device's scale-up link. */
function collective(C, kind, payload, n, ic, peak, name, count, latency) {
  return point(C, name, kind, n, payload, ic.bandwidth_bytes_per_s_per_direction, runLatency(kind, n, ic, latency), peak, count);
}

/** parallel.domains_spanned: scale-up domains `n` ranks fill, placed domain by domain. */
const domainsSpanned = (n, device) => (device.interconnect ? Math.ceil(n / device.interconnect.domain_devices) : 1);

/** parallel.ep_network_share: of the bytes a rank sends in an EP all-to-all, the share to ranks in other domains,
 *  (ep − g)/(ep − 1) with g = min(ep, domain size), experts spread evenly. */
function epNetworkShare(ep, device) {
  const g = device.interconnect ? Math.min(ep, device.interconnect.domain_devices) : 1;
  return ep > 1 ? (ep - g) / (ep - 1) : 0.0;
}

/** parallel.ep_all_to_all: an EP all-to-all split by link. Across domains its latency is the larger of the two
 *  floors (a ceiling) or, expected, the ring's plus the network's floor, each link at DeepEP's measured share. */
function epAllToAll(C, payload, ep, device, peak, name, count, latency) {
  const ic = device.interconnect, net = device.network;
  if (domainsSpanned(ep, device) === 1) return collective(C, "all-to-all", payload, ep, ic, peak, name, count, latency);
  let linkBw = ic.bandwidth_bytes_per_s_per_direction, netBw = net.bandwidth_bytes_per_s_per_direction, perRun = latency;
  if (latency === "floor") perRun = Math.max(ic.latency_floor_s, net.latency_floor_s);
  else if (latency === "ring") {
    perRun = runLatency("all-to-all", Math.min(ep, ic.domain_devices), ic, latency) + net.latency_floor_s;
    const [effLink, effNet] = C.kernels.ep_efficiency;
    linkBw *= effLink; netBw *= effNet;
  }
  return point(C, name, "all-to-all", ep, payload, linkBw, perRun, peak, count, epNetworkShare(ep, device), netBw);
}

/** parallel.pipeline_sends: the pp − 1 sends between stages; the (domains spanned − 1) at a domain boundary
 *  cross the network, each paying at least its floor; the sends take turns, so the two links' times add. */
function pipelineSends(C, K, payload, lay, device, peak, latency) {
  const ic = device.interconnect, net = device.network;
  const crossings = Math.min(domainsSpanned(lay.tp * lay.pp * lay.ep, device) - 1, lay.pp - 1);
  const perRun0 = runLatency("send", 2, ic, latency);
  if (crossings <= 0 || !net) return point(C, "pp_send", "send", 2, payload, ic.bandwidth_bytes_per_s_per_direction, perRun0, peak, lay.pp - 1);
  const perRun = K.latency_choices.includes(latency)
    ? (perRun0 * (lay.pp - 1 - crossings) + Math.max(perRun0, net.latency_floor_s) * crossings) / (lay.pp - 1) : perRun0;
  return point(C, "pp_send", "send", 2, payload, ic.bandwidth_bytes_per_s_per_direction, perRun, peak, lay.pp - 1,
    crossings / (lay.pp - 1), net.bandwidth_bytes_per_s_per_direction, true);
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
      if (tp > ic.domain_devices) {
        throw new CalcError(`--tp ${tp}: tensor parallelism all-reduces the activations twice per layer, so it stays `
          + `inside one ${device.name} scale-up domain (${ic.link}), which holds ${ic.domain_devices}; span nodes with --ep `
          + "or --pp instead");
      }
      if (replica > ic.domain_devices) {
        if (!device.network) {
          throw new CalcError(`${opt} ${n}: ${lay.name} spans ${replica} devices but one ${device.name} scale-up domain `
            + `(${ic.link}) holds ${ic.domain_devices}, and ${device.network_note}`);
        }
        if (ep > ic.domain_devices && ep % ic.domain_devices) {
          throw new CalcError(`--ep ${ep}: expert parallelism across nodes fills whole scale-up domains of `
            + `${ic.domain_devices} ${device.name}s; give a multiple of ${ic.domain_devices}`);
        }
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
    if (m.n_experts % ep) {
      throw new CalcError(`--ep ${ep}: ${m.name} has ${m.n_experts} experts, which ${ep} does not divide; give `
        + `--redundant-experts ${(ep - (m.n_experts % ep)) % ep} (copies of the busiest experts fill the ranks, as `
        + `expert-load balancers add them) or an EP degree that divides ${m.n_experts}`);
    }
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
    coll.push(epAllToAll(C, routed, n, device, peak, "moe_dispatch_all_to_all", L, latency),
      epAllToAll(C, routed, n, device, peak, "moe_combine_all_to_all", L, latency));
  }
  const sends = lay.pp > 1 ? pipelineSends(C, K, tokens * d * a, lay, device, peak, latency) : null;
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
  let tp = device.interconnect ? Math.min(n, device.interconnect.domain_devices) : n; // TP stays inside a domain
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

/** parallel.node_devices: devices in `nodes` machines (one node: the scale-up domain where no network is recorded). */
function nodeDevices(K, device, nodes) {
  const n = degree(K, "--nodes", nodes);
  if (n === 1) return device.network ? device.network.node_devices : device.interconnect ? device.interconnect.domain_devices : 1;
  if (!device.network) throw new CalcError(`--nodes ${n}: ${device.network_note}, so layouts stay inside one node`);
  return n * device.network.node_devices;
}

/** parallel.node_layout (no layout given) or parallel.check_nodes (one given): the layout the field runs on
 *  `nodes` machines (a mixture of experts: EP over every device; dense: TP in a domain, PP across), or the
 *  sentence saying the layout does not fill them. */
export function forNodes(K, m, device, lay, nodes) {
  const n = nodeDevices(K, device, nodes);
  if (lay.devices > 1) {
    if (lay.devices !== n) {
      throw new CalcError(`--nodes ${nodes}: ${nodes} node${nodes !== 1 ? "s" : ""} of ${device.name}s hold ${n} devices `
        + `but ${lay.name} uses ${lay.devices}; give a layout over all ${n} or fewer nodes`);
    }
    return lay;
  }
  try {
    if (isMoe(m) && !isBare(m)) {
      const ep = layoutOf(K, 1, 1, n);
      checkLayout(m, device, ep);
      return ep;
    }
    return engineLayout(K, m, device, n);
  } catch (err) {
    if (err instanceof CalcError) throw new CalcError(`--nodes ${nodes}: ${err.message}`);
    throw err;
  }
}

useMany({ latencyText, checkLayout, shard, assemble, boundOnTheLink, engineLayout, forNodes });
