// The calculator's roofline chart: a hand-drawn log-log SVG. Each configuration contributes its
// device's roof (bandwidth × intensity up to the ridge, then flat at the peak) and its step as a
// point at (the step's intensity, FLOPs ÷ the kernel-sum time). Configuration A's kernels are
// small dots at (their intensity, their attained FLOP/s), named on hover, focus or tap in a label
// of at least 12 px. Text goes in through textContent only.

import { si, sig } from "./format.js";

const NS = "http://www.w3.org/2000/svg";

/** One SVG element with its attributes and text (textContent only): both charts draw with it. */
export function el(name, attrs = {}, text = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

const log10 = Math.log10;
const decadeFloor = (v) => 10 ** Math.floor(log10(v));
const decadeCeil = (v) => 10 ** Math.ceil(log10(v));
const tickLabel = (v) => (v < 1000 ? sig(v) : si(v, "").trim());

const positive = (v) => typeof v === "number" && Number.isFinite(v) && v > 0;

/**
 * Draw `series` into `svg` (emptied first). Each series: {key, label, intensity, attainable,
 * peak, bandwidth, ridge}. `kernels`: [{name, intensity, attained}] for configuration A (a kernel
 * with no FLOPs, such as the embedding copy, has no place on a log axis and is left out).
 * `size` = {width, height}. Returns false (drawing nothing) when a series value is not a positive
 * finite number, so the caller keeps the last good picture.
 */
export function drawChart(svg, series, size = { width: 640, height: 360 }, title = "Roofline chart", kernels = []) {
  const values = series.flatMap((s) => [s.intensity, s.attainable, s.peak, s.bandwidth, s.ridge]);
  if (!series.length || !values.every(positive)) return false;
  const dots = kernels.filter((k) => positive(k.intensity) && positive(k.attained));
  const { width: W, height: H } = size;
  const m = { l: 58, r: 14, t: 14, b: 40 };
  // Several devices: the link is a third roof (peak ÷ link bandwidth is its ridge, in FLOPs per byte sent).
  const links = series.filter((s) => s.link && positive(s.link.ridge) && positive(s.link.intensity));
  const xs = [...series.flatMap((s) => [s.intensity, s.ridge]), ...dots.map((k) => k.intensity),
    ...links.flatMap((s) => [s.link.ridge, s.link.intensity])];
  let xMin = decadeFloor(Math.min(...xs) / 2), xMax = decadeCeil(Math.max(...xs) * 2);
  const yMax = decadeCeil(Math.max(...series.map((s) => s.peak)) * 1.5);
  let yMin = decadeFloor(Math.min(...series.map((s) => Math.min(s.bandwidth * xMin, s.attainable)),
    ...dots.map((k) => k.attained)));
  if (yMax / yMin > 1e12) yMin = yMax / 1e12; // a far-off point should not squash the roofs flat
  if (xMax / xMin > 1e12) xMin = xMax / 1e12;
  const px = (x) => m.l + ((log10(x) - log10(xMin)) / (log10(xMax) - log10(xMin))) * (W - m.l - m.r);
  const py = (y) => H - m.b - ((log10(y) - log10(yMin)) / (log10(yMax) - log10(yMin))) * (H - m.t - m.b);
  const clampY = (y) => Math.min(Math.max(y, yMin), yMax);

  // The frame (grid, axes, roofs) is redrawn only when its scale or roofs change; the points always.
  const frameKey = JSON.stringify([W, H, xMin, xMax, yMin, yMax, title,
    series.map((s) => [s.key, s.peak, s.bandwidth, s.ridge]), links.map((s) => [s.key, s.peak, s.link.ridge])]);
  if (svg.rlFrameKey !== frameKey || !svg.rlPoints || !svg.contains(svg.rlPoints)) {
    svg.replaceChildren(el("title", {}, title), drawFrame(series, links, { W, H, m, xMin, xMax, yMin, yMax, px, py, clampY }));
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.rlPoints = el("g", { class: "rl-calc-points" });
    svg.appendChild(svg.rlPoints);
    svg.rlFrameKey = frameKey;
  }
  bindLabels(svg, W, m);
  const clampX = (x) => Math.min(Math.max(x, xMin), xMax);
  const points = [];
  for (const s of links) {
    const lx = px(clampX(s.link.intensity)), ly = py(clampY(s.attainable));
    const g = el("g", { class: `rl-calc-point rl-calc-linkpoint rl-calc-${s.key}` });
    g.appendChild(el("title", {}, `${s.label}: FLOPs per byte sent over the link; ${s.link.binds || ""}`));
    g.appendChild(el("circle", { cx: lx, cy: ly, r: 5 }));
    // The hollow point says what it shows and what binds on the link (latency or bandwidth).
    // Below the point, away from the step's own label above it; the text's halo keeps it legible over a line.
    const right = lx < W / 2;
    g.appendChild(el("text", { class: "rl-calc-linklabel", x: right ? lx - 6 : lx + 6, y: ly + 20,
      "text-anchor": right ? "start" : "end" }, `${s.label} link: ${s.link.binds || "FLOPs per link byte"}`));
    points.push(g);
  }
  if (dots.length) {
    const layer = el("g", { class: "rl-calc-kernels-layer" });
    for (const k of dots) {
      const x = px(clampX(k.intensity)), y = py(clampY(k.attained));
      const g = el("g", { class: "rl-calc-kpoint", tabindex: 0, role: "img", "aria-label": k.name, "data-name": k.name,
        "data-x": x, "data-y": y });
      g.appendChild(el("title", {}, k.name));
      g.appendChild(el("circle", { class: "rl-calc-khit", cx: x, cy: y, r: 11 })); // a finger-sized target
      g.appendChild(el("circle", { class: "rl-calc-kdot", cx: x, cy: y, r: 3.5 }));
      layer.appendChild(g);
    }
    points.push(layer, el("text", { class: "rl-calc-klabel", visibility: "hidden" }));
  }
  for (const s of series) {
    const x = px(s.intensity), y = py(clampY(s.attainable));
    const g = el("g", { class: `rl-calc-point rl-calc-${s.key}` });
    if (s.key === "a") g.appendChild(el("circle", { cx: x, cy: y, r: 6 }));
    else g.appendChild(el("rect", { x: x - 5, y: y - 5, width: 10, height: 10, transform: `rotate(45 ${x} ${y})` }));
    const right = x < W - 60;
    g.appendChild(el("text", { x: right ? x + 10 : x - 10, y: y - 8, "text-anchor": right ? "start" : "end" }, s.label));
    points.push(g);
  }
  svg.rlPoints.replaceChildren(...points);
  return true;
}

/** Grid, axis titles, each device's roofs and ridges, and the link roofs: one group. */
function drawFrame(series, links, g) {
  const { W, H, m, xMin, xMax, yMin, yMax, px, py, clampY } = g;
  const frame = el("g", { class: "rl-calc-frame" });
  const grid = el("g", { class: "rl-calc-grid" });
  const decades = (lo, hi) => {
    const out = [];
    const n = Math.round(log10(hi / lo));
    const step = n > 8 ? Math.ceil(n / 8) : 1;
    for (let i = 0; i <= n; i += step) out.push(lo * 10 ** i);
    return out;
  };
  for (const x of decades(xMin, xMax)) {
    grid.appendChild(el("line", { x1: px(x), x2: px(x), y1: m.t, y2: H - m.b }));
    grid.appendChild(el("text", { x: px(x), y: H - m.b + 14, "text-anchor": "middle" }, tickLabel(x)));
  }
  for (const y of decades(yMin, yMax)) {
    grid.appendChild(el("line", { x1: m.l, x2: W - m.r, y1: py(y), y2: py(y) }));
    grid.appendChild(el("text", { x: m.l - 6, y: py(y) + 4, "text-anchor": "end" }, si(y, "")));
  }
  frame.appendChild(grid);
  frame.appendChild(el("text", { class: "rl-calc-axis", x: (m.l + W - m.r) / 2, y: H - 6, "text-anchor": "middle" },
    "arithmetic intensity (FLOP/byte)"));
  frame.appendChild(el("text", {
    class: "rl-calc-axis", x: 12, y: (m.t + H - m.b) / 2, "text-anchor": "middle",
    transform: `rotate(-90 12 ${(m.t + H - m.b) / 2})`,
  }, "attainable FLOP/s"));
  const seen = new Set();
  for (const s of series) {
    const roofKey = `${s.peak}/${s.bandwidth}`;
    if (seen.has(roofKey)) continue;
    seen.add(roofKey);
    const pts = [[px(xMin), py(clampY(s.bandwidth * xMin))], [px(s.ridge), py(s.peak)], [px(xMax), py(s.peak)]];
    frame.appendChild(el("polyline", { class: `rl-calc-roof rl-calc-${s.key}`, points: pts.map((p) => p.join(",")).join(" ") }));
    frame.appendChild(el("line", { class: `rl-calc-ridge rl-calc-${s.key}`, x1: px(s.ridge), x2: px(s.ridge), y1: py(s.peak), y2: H - m.b }));
    const left = px(s.ridge) > W - 90;
    frame.appendChild(el("text", { class: `rl-calc-ridge-label rl-calc-${s.key}`, x: px(s.ridge) + (left ? -4 : 4), y: H - m.b - 6,
      "text-anchor": left ? "end" : "start" }, `ridge ${sig(s.ridge)}`));
  }
  for (const s of links) {
    const linkBw = s.peak / s.link.ridge;
    const pts = [[px(xMin), py(clampY(linkBw * xMin))], [px(s.link.ridge), py(s.peak)]];
    frame.appendChild(el("polyline", { class: `rl-calc-linkroof rl-calc-${s.key}`, points: pts.map((p) => p.join(",")).join(" ") }));
    frame.appendChild(el("text", { class: `rl-calc-ridge-label rl-calc-${s.key}`, x: px(s.link.ridge) - 4, y: m.t + 12,
      "text-anchor": "end" }, `link ridge ${sig(s.link.ridge)}`));
  }
  return frame;
}

/** One set of listeners per chart: a kernel dot hovered, focused or tapped names itself in the label. */
function bindLabels(svg, W, m) {
  if (svg.rlLabelsBound) return;
  svg.rlLabelsBound = true;
  const label = () => svg.querySelector(".rl-calc-klabel");
  const show = (e) => {
    const g = e.target.closest && e.target.closest(".rl-calc-kpoint");
    const t = label();
    if (!g || !t) return;
    const x = Number(g.dataset.x), y = Number(g.dataset.y);
    t.textContent = g.dataset.name;
    const right = x < W * 0.6;
    t.setAttribute("x", right ? x + 9 : x - 9);
    t.setAttribute("y", Math.max(y - 9, m.t + 12));
    t.setAttribute("text-anchor", right ? "start" : "end");
    t.setAttribute("visibility", "visible");
  };
  const hide = (e) => {
    const t = label();
    if (t && e.target.closest && e.target.closest(".rl-calc-kpoint") && (e.type !== "pointerout" || e.pointerType === "mouse")) {
      t.setAttribute("visibility", "hidden");
    }
  };
  svg.addEventListener("pointerover", show);
  svg.addEventListener("focusin", show);
  svg.addEventListener("click", show);
  svg.addEventListener("pointerout", hide);
  svg.addEventListener("focusout", hide);
}
