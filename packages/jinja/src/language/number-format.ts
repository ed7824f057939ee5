// Number formatting the way Python does it: from the exact decimal value of the double, rounded
// half to even (`'%.2f' % 0.125` is `0.12`, `round(2.675, 2)` is `2.67`). JavaScript's toFixed
// rounds ties away from zero and gives up above 1e21, so it is not used.

interface Decimal {
  negative: boolean;
  /** Digits of the absolute value without leading zeros ("" for zero). */
  digits: string;
  /** The value is digits × 10^-scale. */
  scale: number;
}

const view = new DataView(new ArrayBuffer(8));

function exactDecimal(x: number): Decimal {
  view.setFloat64(0, x);
  const high = view.getUint32(0);
  const low = view.getUint32(4);
  const negative = high >>> 31 === 1;
  const biased = (high >>> 20) & 0x7ff;
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  let exponent: number;
  if (biased === 0) {
    exponent = -1074;
  } else {
    mantissa |= 1n << 52n;
    exponent = biased - 1075;
  }
  if (mantissa === 0n) return { negative, digits: "", scale: 0 };
  if (exponent >= 0) return { negative, digits: (mantissa << BigInt(exponent)).toString(), scale: 0 };
  return { negative, digits: (mantissa * 5n ** BigInt(-exponent)).toString(), scale: -exponent };
}

/** Keeps `keep` leading digits of `digits`, rounding the rest half to even; may grow by one digit. */
function roundDigits(digits: string, keep: number): string {
  if (keep >= digits.length) return digits;
  if (keep < 0) return "";
  const kept = digits.slice(0, keep);
  const first = digits.charCodeAt(keep) - 48;
  const rest = /[1-9]/.test(digits.slice(keep + 1));
  const lastKept = keep > 0 ? digits.charCodeAt(keep - 1) - 48 : 0;
  const up = first > 5 || (first === 5 && (rest || lastKept % 2 === 1));
  if (!up) return kept;
  return (BigInt(kept || "0") + 1n).toString().padStart(keep, "0");
}

interface FixedParts {
  negative: boolean;
  whole: string;
  fraction: string;
}

/** x with `precision` digits after the point (negative precision rounds to tens, hundreds...). */
function fixedParts(x: number, precision: number): FixedParts {
  const { negative, digits, scale } = exactDecimal(x);
  const intLength = digits.length - scale; // digits before the point (may be <= 0)
  const padded = intLength <= 0 ? "0".repeat(1 - intLength) + digits : digits;
  const pointAt = Math.max(intLength, 1);
  const keep = pointAt + precision;
  let rounded = roundDigits(padded, keep);
  let wholeLength = pointAt;
  if (rounded.length > Math.max(keep, 0)) wholeLength += 1; // 9.99 -> 10.0
  if (precision < 0) {
    rounded = rounded + "0".repeat(-precision);
    return { negative, whole: rounded.replace(/^0+(?=\d)/, "") || "0", fraction: "" };
  }
  rounded = rounded.padEnd(wholeLength + precision, "0");
  const whole = rounded.slice(0, wholeLength).replace(/^0+(?=\d)/, "") || "0";
  return { negative, whole, fraction: rounded.slice(wholeLength, wholeLength + precision) };
}

/** `%.{precision}f` without the sign. */
export function formatFixed(x: number, precision: number): string {
  const { whole, fraction } = fixedParts(x, precision);
  return precision > 0 ? `${whole}.${fraction}` : whole;
}

/** Digits of x rounded to `significant` digits and the decimal exponent of the first one. */
export function significantDigits(x: number, significant: number): { digits: string; exponent: number } {
  const { digits, scale } = exactDecimal(x);
  if (digits === "") return { digits: "0".repeat(significant), exponent: 0 };
  let exponent = digits.length - scale - 1;
  let rounded = roundDigits(digits, significant);
  if (rounded.length > significant) {
    exponent += 1;
    rounded = rounded.slice(0, significant);
  }
  return { digits: rounded.padEnd(significant, "0"), exponent };
}

/** `%.{precision}e` without the sign: `1.234568e+04`. */
export function formatExponent(x: number, precision: number, alternate = false): string {
  const { digits, exponent } = significantDigits(x, precision + 1);
  const mantissa = precision > 0 || alternate ? `${digits[0]}.${digits.slice(1)}` : digits;
  const power = String(Math.abs(exponent)).padStart(2, "0");
  return `${mantissa}e${exponent < 0 ? "-" : "+"}${power}`;
}

/** `%.{precision}g` without the sign. */
export function formatGeneral(x: number, precision: number, alternate = false): string {
  const p = precision === 0 ? 1 : precision;
  const { exponent } = significantDigits(x, p);
  const text =
    exponent >= -4 && exponent < p ? formatFixed(x, p - 1 - exponent) : formatExponent(x, p - 1, alternate);
  if (alternate) return text;
  const [mantissa, power] = text.split("e") as [string, string | undefined];
  const trimmed = mantissa.includes(".") ? mantissa.replace(/\.?0+$/, "") : mantissa;
  return power === undefined ? trimmed : `${trimmed}e${power}`;
}

/** Python's round(x, ndigits) for a float: the correctly rounded decimal, read back. */
export function roundHalfEven(x: number, ndigits: number): number {
  if (!Number.isFinite(x)) return x;
  const { negative, whole, fraction } = fixedParts(x, ndigits);
  const value = Number(fraction ? `${whole}.${fraction}` : whole);
  return negative ? -value : value;
}

/** Inserts a thousands separator into a run of digits. */
export function groupDigits(digits: string, separator: string, size = 3): string {
  let out = "";
  for (let i = digits.length; i > 0; i -= size) {
    const start = Math.max(0, i - size);
    out = digits.slice(start, i) + (out ? separator + out : "");
  }
  return out;
}
