// The calculator's roofline chart: a hand-drawn log-log SVG. Each configuration contributes its
// device's roof (bandwidth × intensity up to the ridge, then flat at the peak) and its step as a
// point at (the step's intensity, FLOPs ÷ the kernel-sum time). Configuration A's kernels are
// small dots at (their intensity, their attained FLOP/s), named on hover, focus or tap in a label
// of at least 12 px. Text goes in through textContent only.

import { si, sig } from "./format.js";

const NS = "http://www.w3.org/2000/svg";

function el(name, attrs = {}, text = null) {
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

  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.appendChild(el("title", {}, title));
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
  svg.appendChild(grid);
  svg.appendChild(el("text", { class: "rl-calc-axis", x: (m.l + W - m.r) / 2, y: H - 6, "text-anchor": "middle" },
    "arithmetic intensity (FLOP/byte)"));
  svg.appendChild(el("text", {
    class: "rl-calc-axis", x: 12, y: (m.t + H - m.b) / 2, "text-anchor": "middle",
    transform: `rotate(-90 12 ${(m.t + H - m.b) / 2})`,
  }, "attainable FLOP/s"));

  const seen = new Set();
  for (const s of series) {
    const roofKey = `${s.peak}/${s.bandwidth}`;
    if (seen.has(roofKey)) continue;
    seen.add(roofKey);
    const yStart = s.bandwidth * xMin;
    const pts = [[px(xMin), py(clampY(yStart))], [px(s.ridge), py(s.peak)], [px(xMax), py(s.peak)]];
    svg.appendChild(el("polyline", { class: `rl-calc-roof rl-calc-${s.key}`, points: pts.map((p) => p.join(",")).join(" ") }));
    svg.appendChild(el("line", { class: `rl-calc-ridge rl-calc-${s.key}`, x1: px(s.ridge), x2: px(s.ridge), y1: py(s.peak), y2: H - m.b }));
    const left = px(s.ridge) > W - 90;
    svg.appendChild(el("text", { class: `rl-calc-ridge-label rl-calc-${s.key}`, x: px(s.ridge) + (left ? -4 : 4), y: H - m.b - 6,
      "text-anchor": left ? "end" : "start" }, `ridge ${sig(s.ridge)}`));
  }
  const clampX = (x) => Math.min(Math.max(x, xMin), xMax);
  for (const s of links) {
    const linkBw = s.peak / s.link.ridge;
    const pts = [[px(xMin), py(clampY(linkBw * xMin))], [px(s.link.ridge), py(s.peak)]];
    svg.appendChild(el("polyline", { class: `rl-calc-linkroof rl-calc-${s.key}`, points: pts.map((p) => p.join(",")).join(" ") }));
    const x = px(s.link.ridge);
    svg.appendChild(el("text", { class: `rl-calc-ridge-label rl-calc-${s.key}`, x: x - 4, y: m.t + 12, "text-anchor": "end" },
      `link ridge ${sig(s.link.ridge)}`));
    const lx = px(clampX(s.link.intensity)), ly = py(clampY(s.attainable));
    const g = el("g", { class: `rl-calc-point rl-calc-linkpoint rl-calc-${s.key}` });
    g.appendChild(el("title", {}, `${s.label}: FLOPs per byte sent over the link`));
    g.appendChild(el("circle", { cx: lx, cy: ly, r: 5 }));
    svg.appendChild(g);
  }
  if (dots.length) {
    const layer = el("g", { class: "rl-calc-kernels-layer" });
    const label = el("text", { class: "rl-calc-klabel", visibility: "hidden" });
    for (const k of dots) {
      const x = px(clampX(k.intensity)), y = py(clampY(k.attained));
      const g = el("g", { class: "rl-calc-kpoint", tabindex: 0, role: "img", "aria-label": k.name, "data-name": k.name });
      g.appendChild(el("title", {}, k.name));
      g.appendChild(el("circle", { class: "rl-calc-khit", cx: x, cy: y, r: 11 })); // a finger-sized target
      g.appendChild(el("circle", { class: "rl-calc-kdot", cx: x, cy: y, r: 3.5 }));
      const show = () => {
        label.textContent = k.name;
        const right = x < W * 0.6;
        label.setAttribute("x", right ? x + 9 : x - 9);
        label.setAttribute("y", Math.max(y - 9, m.t + 12));
        label.setAttribute("text-anchor", right ? "start" : "end");
        label.setAttribute("visibility", "visible");
      };
      const hide = () => label.setAttribute("visibility", "hidden");
      g.addEventListener("pointerenter", show);
      g.addEventListener("focus", show);
      g.addEventListener("click", show);
      g.addEventListener("pointerleave", (e) => { if (e.pointerType === "mouse") hide(); });
      g.addEventListener("blur", hide);
      layer.appendChild(g);
    }
    svg.appendChild(layer);
    svg.appendChild(label);
  }
  for (const s of series) {
    const x = px(s.intensity), y = py(clampY(s.attainable));
    const g = el("g", { class: `rl-calc-point rl-calc-${s.key}` });
    if (s.key === "a") g.appendChild(el("circle", { cx: x, cy: y, r: 6 }));
    else g.appendChild(el("rect", { x: x - 5, y: y - 5, width: 10, height: 10, transform: `rotate(45 ${x} ${y})` }));
    const right = x < W - 60;
    g.appendChild(el("text", { x: right ? x + 10 : x - 10, y: y - 8, "text-anchor": right ? "start" : "end" }, s.label));
    svg.appendChild(g);
  }
  return true;
}
