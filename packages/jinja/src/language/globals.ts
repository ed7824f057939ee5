import { chargeItems } from "../render-budget";
import { splitArgs } from "./call-args";
import { Cycler, joiner, Namespace } from "./objects";
import { isDict, PyRange, PyTypeError, PyValueError, typeName } from "./values";

// Jinja2's global functions: range, dict, namespace, cycler and joiner (lipsum is left out:
// random text has no place in a notification).

function integer(value: unknown): number {
  if ((typeof value === "number" && Number.isInteger(value)) || typeof value === "boolean")
    return Number(value);
  throw new PyTypeError(`'${typeName(value)}' object cannot be interpreted as an integer`);
}

/** range(stop) / range(start, stop[, step]), counted against the render budget. */
function range(...args: unknown[]): PyRange {
  const [positional] = splitArgs(args);
  if (positional.length === 0 || positional.length > 3)
    throw new PyTypeError(`range expected 1 to 3 arguments, got ${positional.length}`);
  const [start, stop, step] =
    positional.length === 1
      ? [0, integer(positional[0]), 1]
      : [
          integer(positional[0]),
          integer(positional[1]),
          positional.length === 3 ? integer(positional[2]) : 1,
        ];
  if (step === 0) throw new PyValueError("range() arg 3 must not be zero");
  chargeItems(Math.max(0, Math.ceil((stop - start) / step)));
  const out = new PyRange();
  out.start = start;
  out.stop = stop;
  out.step = step;
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(i);
  return out;
}

function dict(...args: unknown[]): Record<string, unknown> {
  const [positional, keywords] = splitArgs(args);
  const out: Record<string, unknown> = {};
  const [initial] = positional;
  if (isDict(initial)) Object.assign(out, initial);
  else if (Array.isArray(initial))
    for (const [key, value] of initial as unknown[][]) out[String(key)] = value;
  else if (initial !== undefined) throw new PyTypeError(`'${typeName(initial)}' object is not iterable`);
  return Object.assign(out, keywords);
}

export const JINJA_GLOBALS: Record<string, unknown> = {
  range,
  dict,
  namespace: (...args: unknown[]) => new Namespace(...args),
  cycler: (...args: unknown[]) => new Cycler(...args),
  joiner,
};
