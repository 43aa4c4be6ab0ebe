// The calculator's tables: the results of each configuration (one row per output) and
// configuration A kernel by kernel. Rows are kept between redraws; only changed text is rewritten.

import * as fmt from "./format.js";
import { DASH, h, show } from "./dom.js";

// ---------------------------------------------------------------- results table
const YES_NO = (v) => (v ? "yes" : "no");
export const ROWS = [
  { key: "time_s", label: "Time per step (sum of the kernels)", f: fmt.seconds, fit: true },
  { key: "time_perfect_overlap_s", label: "Perfect overlap (lower bound)", f: fmt.seconds, fit: true },
  { key: "time_to_first_token_s", label: "Time to first token (prefill)", f: fmt.seconds, fit: true },
  { key: "tokens_per_s_per_sequence", label: "Tokens/s per sequence", f: fmt.tokensPerS, fit: true },
  { key: "tokens_per_s", label: "Tokens/s, whole batch", f: fmt.tokensPerS, fit: true },
  { key: "tokens_per_s_per_device", label: "Tokens/s per device", f: fmt.tokensPerS, fit: true },
  { key: "bound", label: "Bound (where most of the step's time goes)", f: String },
  { key: "layout", label: "Layout", f: String },
  { key: "devices", label: "Devices", f: fmt.integer },
  { key: "collective_time_s", label: "Collectives per step (latency + bytes ÷ link)", f: fmt.seconds },
  { key: "collective_latency", label: "Collective latency used", f: String, none: "no collectives" },
  { key: "network_share", label: "The network's share of the step (its time carrying bytes across nodes)",
    f: (v) => (v ? `${fmt.sig(100 * v)}%` : "none: nothing crosses nodes") },
  { key: "expected_tokens_per_s_per_sequence", label: "Tokens/s per sequence, expected (NCCL ring latency)",
    f: fmt.tokensPerS, fit: true, none: "no collectives" },
  { key: "link_intensity", label: "FLOPs per byte sent over the link", f: fmt.intensity, none: "nothing sent" },
  { key: "link_ridge_point", label: "Link ridge point (peak ÷ link bandwidth)", f: fmt.intensity, none: "no link recorded" },
  { key: "arithmetic_intensity", label: "Arithmetic intensity, whole step", f: fmt.intensity },
  { key: "ridge_point", label: "Ridge point (matmul peak)", f: fmt.intensity },
  { key: "peak_flop_per_s", label: "Peak FLOP/s (dense, matmul format)", f: fmt.flopPerS },
  { key: "weight_format", label: "Weight format (beside the select: which tensors, and why)", f: (v) => v.toUpperCase() },
  { key: "compute_dtype", label: "Weight matmuls run in", f: (v) => v.toUpperCase() },
  { key: "fits", label: "Fits in memory", f: YES_NO },
  { key: "max_batch_that_fits", label: "Largest batch that fits (this context)", f: fmt.integer, none: "no KV cache modelled" },
  { key: "memory_required_bytes", label: "Memory needed per device (with runtime reserve)", f: fmt.nbytes },
  { key: "usable_memory_bytes", label: "Memory each device exposes", f: fmt.nbytes },
  { key: "weights_resident_bytes", label: "Weights in memory, per device", f: fmt.nbytes },
  { key: "kv_resident_bytes", label: "KV-cache size, per device", f: fmt.nbytes },
  { key: "critical_batch", label: "Critical batch (weight matmuls reach the ridge)", f: fmt.integer, none: "none up to the limit" },
  { key: "attention_intensity", label: "Decode attention's intensity (any batch)", f: fmt.intensity, none: "no attention modelled" },
  { key: "speed_of_light_tokens_per_s", label: "Speed of light (decode, batch 1, weights only, this layout)", f: fmt.tokensPerS },
  { key: "flops", label: "FLOPs per step (one device, one stage)", f: fmt.flops },
  { key: "bytes", label: "Bytes moved per step (one device, one stage)", f: fmt.nbytes },
  { key: "weight_bytes", label: "Weight bytes read per step (one device, one stage)", f: fmt.nbytes },
];
export const MINI_ROWS = ["time_s", "time_to_first_token_s", "tokens_per_s_per_sequence", "tokens_per_s", "bound", "fits",
  "max_batch_that_fits"];

export function cellText(row, out) {
  const v = out[row.key];
  if (row.phase && out.phase !== row.phase) return DASH;
  if (row.key === "time_to_first_token_s" && out.phase !== "prefill") return DASH;
  if (row.fit && !out.fits) return "does not fit";
  if ((v === null || v === "") && row.none) return row.none;
  return show(v, row.f);
}

export function resultsTable(rows, columns, uid) {
  const table = h("table", { class: "rl-calc-results" });
  const head = h("tr", {}, h("th", { scope: "col", text: "Output" }));
  for (const c of columns) head.appendChild(h("th", { scope: "col", text: c.title }));
  table.appendChild(h("thead", {}, head));
  const body = h("tbody");
  const cells = {};
  for (const row of rows) {
    const tr = h("tr", { "data-row": row.key }, h("th", { scope: "row", text: row.label }));
    for (const c of columns) {
      const td = h("td", { "data-config": c.key, "data-output": row.key, id: `${uid}-${c.key}-${row.key}` });
      td.textContent = DASH;
      tr.appendChild(td);
      cells[`${c.key}/${row.key}`] = td;
    }
    body.appendChild(tr);
  }
  table.appendChild(body);
  return { table, cells };
}

// ---------------------------------------------------------------- kernel by kernel
// Configuration A as the kernels a serving engine runs (kernels.js, the package's per-kernel model).
// Each body cell carries its column's name (data-label): under 720 px the table is one card per kernel.
const KERNEL_COLUMNS = ["Kernel", "Runs", "FLOP/byte", "Bound", "Time", "Share"];
export function kernelTable(uid) {
  const table = h("table", { class: "rl-calc-results rl-calc-kernels", id: `${uid}-kernels` });
  const caption = h("caption", { text: "Configuration A, kernel by kernel" });
  table.appendChild(caption);
  const head = h("tr");
  for (const t of KERNEL_COLUMNS) head.appendChild(h("th", { scope: "col", text: t }));
  table.appendChild(h("thead", {}, head));
  const body = h("tbody");
  table.appendChild(body);
  return { table, body, caption };
}

export function fillKernels(kt, last) {
  const rows = [];
  if (last) {
    const { cfg, out } = last;
    // plain strings inside: the site's minifier reads a template nested in a template as code
    kt.caption.textContent = `Configuration A, kernel by kernel (${cfg.attn} attention, ${cfg.wd.toUpperCase()} weights`
      + (["bf16", "fp16", "fp32"].includes(cfg.wd) ? "" : " on " + cfg.wscopeWords) + ", "
      + `${cfg.act.toUpperCase()} activations, ${cfg.kvd.toUpperCase()} KV cache`
      + (out.devices > 1 ? "; one of " + fmt.integer(out.devices) + " devices, " + out.layout + ", with its collectives" : "")
      + ")";
    // Under pipeline parallelism a token crosses every stage: a stage's kernels and collectives run pp times.
    const pp = cfg.pp || 1;
    for (const o of out.ops) {
      const runs = o.name === "pp_send" ? o.count : o.count * pp;
      rows.push([o.name, runs > 1 ? `×${runs}` : "", o.compute_dtype === "link" ? "over the link" : show(o.arithmetic_intensity, fmt.intensity),
        o.bound, show(o.time_s, fmt.seconds),
        show((o.name === "pp_send" ? 1 : pp) * o.time_s / out.time_s, (v) => `${(100 * v).toPrecision(3)}%`)]);
    }
    rows.push(["Step (sum of kernels)", "", show(out.arithmetic_intensity, fmt.intensity), out.bound, show(out.time_s, fmt.seconds), "100%"]);
    rows.push(["Perfect overlap (lower bound)", "", "", "", show(out.time_perfect_overlap_s, fmt.seconds), ""]);
  } else rows.push([DASH, "", "", "", "", ""]);
  // Rows are kept and only their changed text rewritten: a redraw then lays out little.
  const trs = [...kt.body.children];
  rows.forEach((cells, r) => {
    let tr = trs[r];
    if (!tr) {
      tr = h("tr");
      cells.forEach((_, i) => tr.appendChild(h(i === 0 ? "th" : "td", i === 0 ? { scope: "row" } : { "data-label": KERNEL_COLUMNS[i] })));
      kt.body.appendChild(tr);
    }
    cells.forEach((c, i) => { if (tr.children[i].textContent !== c) tr.children[i].textContent = c; });
  });
  for (const tr of trs.slice(rows.length)) tr.remove();
}
