import nunjucks from "nunjucks";
import { chargeItems, noteErrorLine, RENDER_MAX_WIDTH, RenderLimitError, tick } from "./render-budget";

// One Jinja2-like nunjucks setup for the process. nunjucks keeps its runtime and compiler as
// shared modules, so the patches below are installed once, before any template compiles:
// - Jinja2 compatibility (True/False/None, slices, dict and list methods such as `.items()`),
//   with the payload's own keys winning over those methods (`data.items` is the data);
// - undefined renders empty, also inside `~` concatenation (nunjucks would print "undefined");
// - member lookups never reach `constructor`, `__proto__` or `prototype` (no way to Function);
// - every output, lookup, call and loop step ticks the render budget, so no template hangs.

const BLOCKED_MEMBERS = new Set([
  "constructor",
  "__proto__",
  "prototype",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
]);

// Python string methods Jinja2 templates commonly call; the filters (`| upper`) work too.
const STRING_MEMBERS: Record<string, (this: string, ...args: any[]) => unknown> = {
  upper() {
    return this.toUpperCase();
  },
  lower() {
    return this.toLowerCase();
  },
  strip() {
    return this.trim();
  },
  lstrip() {
    return this.trimStart();
  },
  rstrip() {
    return this.trimEnd();
  },
  startswith(prefix: string) {
    return this.startsWith(String(prefix));
  },
  endswith(suffix: string) {
    return this.endsWith(String(suffix));
  },
  capitalize() {
    return this.charAt(0).toUpperCase() + this.slice(1).toLowerCase();
  },
  title() {
    return this.toLowerCase().replace(/(^|\s)\S/g, (c) => c.toUpperCase());
  },
};

let installed = false;

function installRuntimePatches(): void {
  if (installed) return;
  installed = true;
  const runtime = nunjucks.runtime;
  const plainLookup = runtime.memberLookup;
  nunjucks.installJinjaCompat();
  const compatLookup = runtime.memberLookup;

  runtime.memberLookup = function memberLookup(
    this: unknown,
    obj: unknown,
    key: unknown,
    ...rest: unknown[]
  ) {
    tick();
    if (rest.length === 2) return compatLookup.call(this, obj, key, ...rest); // slice `x[a:b]`
    if (typeof key === "string" && BLOCKED_MEMBERS.has(key)) return undefined;
    if (typeof obj === "string" && typeof key === "string" && Object.hasOwn(STRING_MEMBERS, key)) {
      return STRING_MEMBERS[key]!.bind(obj);
    }
    if (
      typeof obj === "object" &&
      obj !== null &&
      !Array.isArray(obj) &&
      Object.hasOwn(obj, key as PropertyKey)
    ) {
      return plainLookup(obj, key);
    }
    return compatLookup.call(this, obj, key, ...rest);
  };

  const { callWrap, suppressValue, handleError, Frame } = runtime;
  runtime.callWrap = function (...args: unknown[]) {
    tick();
    return callWrap.apply(this, args);
  };
  runtime.suppressValue = function (...args: unknown[]) {
    tick();
    return suppressValue.apply(this, args);
  };
  runtime.handleError = function (error: unknown, lineno: unknown, colno: unknown) {
    noteErrorLine(lineno);
    return handleError.call(this, error, lineno, colno);
  };
  const frameSet = Frame.prototype.set;
  Frame.prototype.set = function (...args: unknown[]) {
    tick();
    return frameSet.apply(this, args);
  };

  const compilerProto = nunjucks.compiler.Compiler.prototype;
  // nunjucks records positions only at function calls; filters record theirs too, so a failing
  // filter is reported on its own line.
  const compileFilter = compilerProto.compileFilter;
  compilerProto.compileFilter = function (this: any, node: any, frame: unknown) {
    this._emit(`(lineno = ${Number(node.lineno)}, colno = ${Number(node.colno)}, `);
    compileFilter.call(this, node, frame);
    this._emit(")");
  };

  // Jinja2's `~` turns undefined into "", nunjucks would write "undefined".
  compilerProto.compileConcat = function (this: any, node: any, frame: unknown) {
    this._emit("runtime.suppressValue(");
    this.compile(node.left, frame);
    this._emit(', false) + "" + runtime.suppressValue(');
    this.compile(node.right, frame);
    this._emit(", false)");
  };
}

function cappedRange(start: unknown, stop?: unknown, step?: unknown): number[] {
  let from = Number(start);
  let to = Number(stop);
  let by = step === undefined || step === null || step === 0 ? 1 : Number(step);
  if (stop === undefined) {
    to = from;
    from = 0;
    by = 1;
  }
  if (![from, to, by].every(Number.isFinite)) throw new Error("range() needs finite numbers");
  chargeItems(Math.max(0, Math.ceil((to - from) / by)));
  const out: number[] = [];
  for (let i = from; by > 0 ? i < to : i > to; i += by) out.push(i);
  return out;
}

// Filters whose numeric argument sets how much they allocate.
function capWidth(env: nunjucks.Environment, name: string, argIndex: number): void {
  const original = env.getFilter(name);
  env.addFilter(name, function (this: unknown, ...args: unknown[]) {
    const size = Number(args[argIndex]);
    if (Number.isFinite(size) && Math.abs(size) > RENDER_MAX_WIDTH) {
      throw new RenderLimitError(`${name}() size above ${RENDER_MAX_WIDTH}`);
    }
    return original.apply(this, args);
  });
}

function createEnvironment(html: boolean): nunjucks.Environment {
  // Jinja2 defaults: no trim_blocks, no lstrip_blocks, undefined prints as "" (not an error).
  const env = new nunjucks.Environment(null, {
    autoescape: html,
    throwOnUndefined: false,
    trimBlocks: false,
    lstripBlocks: false,
  });
  env.addGlobal("range", cappedRange);
  capWidth(env, "center", 1);
  capWidth(env, "indent", 1);
  capWidth(env, "batch", 1);
  capWidth(env, "slice", 1);
  return env;
}

let environments: { text: nunjucks.Environment; html: nunjucks.Environment } | null = null;

export function getEnvironment(html: boolean): nunjucks.Environment {
  if (!environments) {
    installRuntimePatches();
    environments = { text: createEnvironment(false), html: createEnvironment(true) };
  }
  return html ? environments.html : environments.text;
}
