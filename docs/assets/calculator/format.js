// The calculator's formatter: a mirror of src/roofline/format.py, so a number reads the same
// here as in the prose. Python rounds with round(x, n) (correctly rounded, ties to even) and
// prints with "{:,.nf}"; roundDecimal reproduces that on the exact decimal value of the double.
// Pure (no DOM); tests/unit/calculator_view/test_calculator_parity.py compares it with format.py.

export class FormatError extends Error {}

function check(value) {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new FormatError(`cannot format ${value}: not a finite number`);
  }
  return value;
}

const SCALE = 100; // fractional digits kept from toFixed: exact for every double the site prints

/** The exact value of |x| as a BigInt count of 10^-SCALE units. */
function exactUnits(x) {
  if (x >= 1e21) return BigInt(x) * 10n ** BigInt(SCALE); // integral already; toFixed would switch to exponent
  const [i, f = ""] = x.toFixed(SCALE).split(".");
  return BigInt(i + f.padEnd(SCALE, "0"));
}

/** round(|x|, nd) as Python does it, returned as the digits string Python's "{:,.{max(nd,0)}f}" prints. */
function roundDecimal(x, nd) {
  const units = exactUnits(Math.abs(x));
  const drop = SCALE - nd; // digits of 10^-SCALE to drop (nd may be negative)
  let q;
  if (drop <= 0) {
    q = units * 10n ** BigInt(-drop);
  } else {
    const d = 10n ** BigInt(drop);
    q = units / d;
    const twice = 2n * (units % d);
    if (twice > d || (twice === d && q % 2n === 1n)) q += 1n;
  }
  let intPart, frac = "";
  if (nd > 0) {
    const s = q.toString().padStart(nd + 1, "0");
    intPart = s.slice(0, s.length - nd);
    frac = s.slice(s.length - nd);
  } else {
    intPart = (q * 10n ** BigInt(-nd)).toString();
    // Python keeps round()'s result as a double and prints that double's exact digits
    if (intPart.length > 15) intPart = BigInt(Number(intPart)).toString();
  }
  intPart = intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  return sign + intPart + (nd > 0 ? "." + frac : "");
}

/** format.sig: `value` to `digits` significant figures, trailing zeros dropped, thousands separated. */
export function sig(value, digits = 3) {
  value = check(value);
  if (value === 0) return "0";
  const exponent = Math.floor(Math.log10(Math.abs(value)));
  let text = roundDecimal(value, digits - 1 - exponent);
  if (text.includes(".")) text = text.replace(/0+$/, "").replace(/\.$/, "");
  return text;
}

const PREFIXES = [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"], [1.0, ""]];
const SUB_PREFIXES = [[1.0, ""], [1e-3, "m"], [1e-6, "µ"], [1e-9, "n"]];

/** format.si: `value` with a decimal SI prefix on `unit`; `small` allows milli, micro, nano. */
export function si(value, unit, digits = 3, small = false) {
  value = check(value);
  const mag = Math.abs(value);
  const table = small ? PREFIXES.concat(SUB_PREFIXES.slice(1)) : PREFIXES;
  const last = table[table.length - 1][0];
  for (const [scale, prefix] of table) {
    if (mag >= scale * 0.9995 || scale === last) {
      const scaled = value / scale;
      // rounding may carry into the next prefix (999.96 -> 1,000): step up once
      if (Math.abs(parseFloat(sig(scaled, digits).replace(/,/g, ""))) >= 1000 && prefix !== table[0][1]) continue;
      return `${sig(scaled, digits)} ${prefix}${unit}`;
    }
  }
  return `${sig(value, digits)} ${unit}`;
}

export const flopPerS = (v, d = 3) => si(v, "FLOP/s", d);
export const bytesPerS = (v, d = 3) => si(v, "B/s", d);
export const nbytes = (v, d = 3) => si(v, "B", d);
// format.seconds: past a thousand seconds in hours, days or years ("908 Gs" says nothing to a reader).
export function seconds(v, d = 3) {
  const a = Math.abs(check(v));
  if (a < 999.5) return si(v, "s", d, true);
  const [s, u] = a >= 63115200 ? [31557600, "years"] : a >= 172800 ? [86400, "days"] : [3600, "h"];
  return `${sig(v / s, d)} ${u}`;
}
export const intensity = (v, d = 3) => `${sig(v, d)} FLOP/byte`;
export const tokensPerS = (v, d = 3) => `${sig(v, d)} tokens/s`;
export const flops = (v, d = 3) => si(v, "FLOP", d);

/** format.count: a plain count with a word suffix for large values. */
export function count(value, digits = 3) {
  value = check(value);
  for (const [scale, word] of [[1e12, "trillion"], [1e9, "billion"], [1e6, "million"]]) {
    if (Math.abs(value) >= scale) return `${sig(value / scale, digits)} ${word}`;
  }
  return sig(value, digits);
}

/** A whole number with thousands separators, as Python's f"{n:,}". */
export function integer(value) {
  check(value);
  return roundDecimal(value, 0);
}

export const UNITS = {
  "FLOP/s": flopPerS, "B/s": bytesPerS, B: nbytes, s: seconds, "FLOP/byte": intensity,
  "tokens/s": tokensPerS, FLOP: flops, "": count, int: integer,
};
