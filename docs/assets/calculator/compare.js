// Which device to buy, in the browser: mirrors roofline.model.compare through
// roofline.calculator_view.compare_setup. For one setup (a device, at most so many devices a replica,
// a price per device-hour) the frontier is searched twice: for the most output tokens/s per device
// meeting the targets at the ceiling, and again with every point at its expected figure. Cost per
// million output tokens = price per device-hour ÷ (tokens/s per device × 3,600) × 10⁶; two setups cost
// the same per token when their prices stand in the ratio of their tokens/s per device.
// Parity-tested by tests/unit/calculator_view/test_calculator_compare_parity.py.

import { CalcError } from "./calc.js";
import { bestUnderTargets, frontier, mostPerDevice, workloadOf } from "./serving.js";

const SECONDS_PER_HOUR = 3600.0;

/** compare.usd_per_million_tokens: what a million output tokens cost at a price per device-hour and a rate. */
export function usdPerMillionTokens(usdPerDeviceHour, tokensPerSPerDevice) {
  if (!(tokensPerSPerDevice > 0)) throw new CalcError("a cost per token needs a positive throughput");
  return usdPerDeviceHour / (tokensPerSPerDevice * SECONDS_PER_HOUR) * 1e6;
}

/** compare.break_even_price_ratio: price_A ÷ price_B at which A and B cost the same per token. */
export function breakEvenPriceRatio(a, b) {
  if (!(a > 0 && b > 0)) throw new CalcError("a break-even price ratio needs both devices' throughput to be positive");
  return a / b;
}

/** compare.expected_view: the point at its expected figure, every time and rate from its expected step mix
 *  (the requests its engine holds), so targets are judged on the expected percentiles. */
export function expectedView(p) {
  const k = p.output_tokens_per_s / p.expected_output_tokens_per_s;
  const out = p.expected_output_tokens_per_s, t = p.expected_ttft_s;
  return { ...p, step_time_s: p.expected_step_time_s, tpot_s: p.expected_tpot_s, ttft_s: t,
    tpot_p50_s: p.expected_tpot_p50_s, tpot_p90_s: p.expected_tpot_p90_s, tpot_p99_s: p.expected_tpot_p99_s,
    ttft_p50_s: t, ttft_p90_s: t, ttft_p99_s: t, request_latency_s: p.expected_request_latency_s,
    output_tokens_per_s: out, output_tokens_per_s_per_device: out / p.devices,
    output_tokens_per_s_per_user: 1.0 / p.expected_tpot_s, input_tokens_per_s: p.input_tokens_per_s / k,
    usd_per_million_output_tokens: null, usd_per_million_input_tokens: null };
}

/** calculator_view.compare_setup: one setup's best point under the targets at the ceiling and expected, its price
 *  (the reader's `usd`, else the registry's on-demand price) and $ per million output tokens at both. `opts` are
 *  the Serving mode's workload options (formats, chunk, caps, decoding, latency); `ttftS`, `tpotS` the targets. */
export function compareSetup(C, device, m, input, output, opts, ttftS = null, tpotS = null, maxDevices = null, usd = null) {
  const K = C.kernels;
  const wl = workloadOf(C, K, input, output, { ...opts, price: null });
  const points = frontier(C, K, m, device, wl, null, maxDevices);
  const views = points.map(expectedView);
  const pick = (pts) => (ttftS || tpotS ? bestUnderTargets(C, pts, m, device, wl, ttftS, tpotS) : mostPerDevice(pts));
  const ceiling = pick(points), expected = pick(views);
  const price = usd === null ? C.serving.prices[device.id] || null : null;
  const charge = usd !== null ? usd : price ? price.usd_per_device_hour : null;
  const cost = (p) => (typeof p === "string" || charge === null ? null
    : usdPerMillionTokens(charge, p.output_tokens_per_s_per_device));
  return {
    hardware: device.id,
    ceiling: typeof ceiling === "string" ? null : ceiling, expected: typeof expected === "string" ? null : expected,
    unmet_ceiling: typeof ceiling === "string" ? ceiling : null, unmet_expected: typeof expected === "string" ? expected : null,
    usd_per_device_hour: charge, price_id: price ? price.id : null,
    usd_per_million_output_tokens_ceiling: cost(ceiling), usd_per_million_output_tokens_expected: cost(expected),
  };
}

/** calculator_view.compare_break_even: A's price ÷ B's at which both cost the same per token, at the ceiling and
 *  expected; null where either setup misses the targets. */
export function compareBreakEven(a, b) {
  const ratio = (w) => (a[w] === null || b[w] === null ? null
    : breakEvenPriceRatio(a[w].output_tokens_per_s_per_device, b[w].output_tokens_per_s_per_device));
  return { ceiling: ratio("ceiling"), expected: ratio("expected") };
}
