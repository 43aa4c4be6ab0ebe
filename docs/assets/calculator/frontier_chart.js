// The Serving mode's chart: output tokens/s per device against tokens/s per user, log-log, one
// line per layout over concurrency (colour: devices; dash: how they split the model), the
// envelope (Pareto frontier) drawn thick, and the chosen point ringed and named. Every value
// on it is a ceiling. Text goes in through textContent only; the legend is HTML beside it, so it
// wraps on a phone instead of shrinking.

import { el } from "./chart.js";
import { si, sig } from "./format.js";

const log10 = Math.log10;
const positive = (v) => typeof v === "number" && Number.isFinite(v) && v > 0;
const tick = (v) => (v < 1000 ? sig(v) : si(v, "").trim());

/** A layout's look: its colour from the device count, its dash from how it splits the model. */
export function layoutStyle(p) {
  const colour = `rl-calc-fd${Math.min(Math.round(Math.log2(p.devices)), 3)}`;
  const kind = p.dp > 1 ? "dp" : p.pp > 1 ? "pp" : p.ep > 1 ? "ep" : "tp";
  return `${colour} rl-calc-fk-${kind}`;
}

/** Ticks on a log axis: decades, with 2 and 5 between them when the axis spans three decades or fewer. */
function ticks(lo, hi) {
  const out = [];
  const few = log10(hi / lo) <= 3;
  for (let d = 10 ** Math.floor(log10(lo)); d <= hi; d *= 10) {
    for (const m of few ? [1, 2, 5] : [1]) if (d * m >= lo && d * m <= hi) out.push(d * m);
  }
  return out;
}

/**
 * Draw `points` (calculateServing's frontier: output_tokens_per_s_per_user, _per_device, layout,
 * concurrency, on_envelope) into `svg`, with `marks` ([{point, label}]) ringed. Returns false,
 * drawing nothing, when a value is not a positive finite number (the caller keeps the last chart).
 */
export function drawFrontier(svg, points, marks, size, title) {
  const xs = points.map((p) => p.output_tokens_per_s_per_user), ys = points.map((p) => p.output_tokens_per_s_per_device);
  if (!points.length || !xs.every(positive) || !ys.every(positive)) return false;
  const { width: W, height: H } = size;
  const m = { l: 58, r: 16, t: 16, b: 40 };
  const span = (vals) => {
    let lo = Math.min(...vals) / 1.25, hi = Math.max(...vals) * 1.25;
    if (hi / lo < 10) { const mid = Math.sqrt(lo * hi); lo = mid / Math.sqrt(10); hi = mid * Math.sqrt(10); }
    return [lo, hi];
  };
  const [xMin, xMax] = span(xs), [yMin, yMax] = span(ys);
  const px = (x) => m.l + (log10(x / xMin) / log10(xMax / xMin)) * (W - m.l - m.r);
  const py = (y) => H - m.b - (log10(y / yMin) / log10(yMax / yMin)) * (H - m.t - m.b);
  const g = el("g");
  const grid = el("g", { class: "rl-calc-grid" });
  for (const x of ticks(xMin, xMax)) {
    grid.appendChild(el("line", { x1: px(x), x2: px(x), y1: m.t, y2: H - m.b }));
    grid.appendChild(el("text", { x: px(x), y: H - m.b + 14, "text-anchor": "middle" }, tick(x)));
  }
  for (const y of ticks(yMin, yMax)) {
    grid.appendChild(el("line", { x1: m.l, x2: W - m.r, y1: py(y), y2: py(y) }));
    grid.appendChild(el("text", { x: m.l - 6, y: py(y) + 4, "text-anchor": "end" }, tick(y)));
  }
  g.appendChild(grid);
  g.appendChild(el("text", { class: "rl-calc-axis", x: (m.l + W - m.r) / 2, y: H - 6, "text-anchor": "middle" },
    "tokens/s per user (ceiling)"));
  const yMid = (m.t + H - m.b) / 2;
  g.appendChild(el("text", { class: "rl-calc-axis", x: 12, y: yMid, "text-anchor": "middle",
    transform: `rotate(-90 12 ${yMid})` }, "output tokens/s per device (ceiling)"));
  // One polyline per layout, points in the frontier's order (concurrency rising).
  const byLayout = new Map();
  for (const p of points) {
    if (!byLayout.has(p.layout)) byLayout.set(p.layout, []);
    byLayout.get(p.layout).push(p);
  }
  const xy = (p) => `${px(p.output_tokens_per_s_per_user).toFixed(1)},${py(p.output_tokens_per_s_per_device).toFixed(1)}`;
  for (const [name, pts] of byLayout) {
    const line = el("polyline", { class: `rl-calc-fline ${layoutStyle(pts[0])}`, points: pts.map(xy).join(" "),
      "data-layout": name });
    line.appendChild(el("title", {}, name));
    g.appendChild(line);
  }
  const env = points.filter((p) => p.on_envelope)
    .sort((a, b) => a.output_tokens_per_s_per_user - b.output_tokens_per_s_per_user);
  g.appendChild(el("polyline", { class: "rl-calc-fenvelope", points: env.map(xy).join(" ") }));
  for (const p of env) {
    g.appendChild(el("circle", { class: "rl-calc-fenvdot", cx: px(p.output_tokens_per_s_per_user),
      cy: py(p.output_tokens_per_s_per_device), r: 2.5 }));
  }
  marks.forEach(({ point, label }, i) => {
    if (!point || !positive(point.output_tokens_per_s_per_user) || !positive(point.output_tokens_per_s_per_device)) return;
    const x = px(Math.min(Math.max(point.output_tokens_per_s_per_user, xMin), xMax));
    const y = py(Math.min(Math.max(point.output_tokens_per_s_per_device, yMin), yMax));
    const mark = el("g", { class: `rl-calc-fmark rl-calc-fmark${i}` });
    mark.appendChild(el("circle", { cx: x, cy: y, r: 7 }));
    const right = x < W / 2;
    // Labels of two marks sit one above, one below, so they never overlap; both stay inside the plot.
    const ly = i ? Math.min(y + 18, H - m.b - 4) : Math.max(y - 10, m.t + 10);
    mark.appendChild(el("text", { x: right ? x + 11 : x - 11, y: ly, "text-anchor": right ? "start" : "end" }, label));
    g.appendChild(mark);
  });
  svg.replaceChildren(el("title", {}, title), g);
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  return true;
}
