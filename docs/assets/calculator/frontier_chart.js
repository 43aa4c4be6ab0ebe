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

/** The 1-2-5 steps (…, 0.5, 1, 2, 5, 10, …) from `lo` to `hi`: a log axis's candidate ticks. */
function steps125(lo, hi) {
  const out = [];
  for (let d = 10 ** Math.floor(log10(lo)); d <= hi * 10; d *= 10) for (const m of [1, 2, 5]) out.push(d * m);
  return out;
}

/** An axis's ends: the 1-2-5 step below the least value and the one above the greatest, each at least
 *  15 % beyond it, so the extreme points (the best per device among them) sit inside the plot with a
 *  labelled tick past them; at least one decade wide. */
function span(vals) {
  let lo = Math.min(...vals), hi = Math.max(...vals);
  if (hi / lo < 10) { const mid = Math.sqrt(lo * hi); lo = Math.min(lo, mid / Math.sqrt(10)); hi = Math.max(hi, mid * Math.sqrt(10)); }
  const s = steps125(lo / 1.15 / 10, hi * 1.15);
  return [Math.max(...s.filter((v) => v <= lo / 1.15)), Math.min(...s.filter((v) => v >= hi * 1.15))];
}

/** Ticks on a log axis: its two ends, and between them decades, with 2 and 5 too when it spans three decades or fewer. */
function ticks(lo, hi) {
  const few = log10(hi / lo) <= 3;
  return steps125(lo, hi).filter((v) => v >= lo * 0.999 && v <= hi * 1.001
    && (few || v === lo || v === hi || Math.abs(log10(v) - Math.round(log10(v))) < 1e-9));
}

/**
 * Draw `points` (calculateServing's frontier: output_tokens_per_s_per_user, _per_device, layout,
 * concurrency, on_envelope) into `svg`, with `marks` ([{point, label}]) ringed and `target` (null or
 * {x: the tokens/s per user a TPOT target on the mean asks for, or null; label; meets: whether a point meets
 * every target}) drawn: the points that meet it circled, x a dashed line; `other` (null or points: the
 * disaggregated envelope) a line of its own. Returns false, drawing
 * nothing, when a value is not a positive finite number (the caller keeps the last chart).
 */
export function drawFrontier(svg, points, marks, size, title, target = null, other = null) {
  const all = other ? points.concat(other) : points;
  const xs = all.map((p) => p.output_tokens_per_s_per_user), ys = all.map((p) => p.output_tokens_per_s_per_device);
  if (!points.length || !xs.every(positive) || !ys.every(positive)) return false;
  const { width: W, height: H } = size;
  const m = { l: 58, r: 16, t: 16, b: 40 };
  const [xMin, xMax] = span(target && positive(target.x) ? [...xs, target.x] : xs);
  let [yMin, yMax] = span(ys);
  // Room above the highest point for a ringed label and its tick (34 px): the axis's top steps up until it fits.
  const top = Math.max(...ys), room = 34 / (H - m.t - m.b);
  while (log10(yMax / top) < room * log10(yMax / yMin)) yMax = steps125(yMax * 1.01, yMax * 10).find((v) => v > yMax);
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
  if (other && other.length) {
    const o = [...other].sort((a, b) => a.output_tokens_per_s_per_user - b.output_tokens_per_s_per_user);
    g.appendChild(el("polyline", { class: "rl-calc-fdis", points: o.map(xy).join(" ") }));
  }
  for (const p of env) {
    g.appendChild(el("circle", { class: "rl-calc-fenvdot", cx: px(p.output_tokens_per_s_per_user),
      cy: py(p.output_tokens_per_s_per_device), r: 2.5 }));
  }
  if (target && target.meets) {
    // Every point that meets the targets at their percentiles, circled: one path, however many points.
    const ok = points.filter(target.meets).map((p) => `M${(px(p.output_tokens_per_s_per_user) - 4.5).toFixed(1)},`
      + `${py(p.output_tokens_per_s_per_device).toFixed(1)}a4.5,4.5 0 1,0 9,0a4.5,4.5 0 1,0 -9,0`);
    if (ok.length) g.appendChild(el("path", { class: "rl-calc-fok", d: ok.join("") }));
  }
  if (target && positive(target.x)) {
    // The TPOT target as the tokens/s per user it asks for: points on its right meet it.
    const x = px(target.x), right = x < W / 2;
    const t = el("g", { class: "rl-calc-ftarget" });
    t.appendChild(el("line", { x1: x, x2: x, y1: m.t, y2: H - m.b }));
    t.appendChild(el("text", { x: right ? x + 4 : x - 4, y: H - m.b - 6, "text-anchor": right ? "start" : "end" }, target.label));
    g.appendChild(t);
  }
  marks.forEach(({ point, label }, i) => {
    if (!point || !positive(point.output_tokens_per_s_per_user) || !positive(point.output_tokens_per_s_per_device)) return;
    const x = px(point.output_tokens_per_s_per_user), y = py(point.output_tokens_per_s_per_device);
    const mark = el("g", { class: `rl-calc-fmark rl-calc-fmark${i}` });
    mark.appendChild(el("circle", { cx: x, cy: y, r: 7 }));
    // The first mark's label above its ring, the second's below (each flipped where the plot ends), joined
    // to it by a tick, so two labels never overlap and both stay inside the plot.
    const above = i ? y + 28 > H - m.b - 4 : y - 20 >= m.t + 10;
    const ly = above ? y - 20 : y + 28;
    mark.appendChild(el("line", { x1: x, x2: x, y1: above ? y - 7 : y + 7, y2: above ? ly + 3 : ly - 11 }));
    const anchor = x < W * 0.3 ? "start" : x > W * 0.7 ? "end" : "middle";
    mark.appendChild(el("text", { x: Math.min(Math.max(x, m.l), W - m.r), y: ly, "text-anchor": anchor }, label));
    g.appendChild(mark);
  });
  svg.replaceChildren(el("title", {}, title), g);
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  return true;
}
