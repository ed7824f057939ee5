import nunjucks from "nunjucks";
import { callable, installJinjaLanguage, lookupMember, output, py, setUpJinjaEnvironment } from "./jinja";
import { chargeOutput, noteErrorLine, tick } from "./render-budget";

// One Jinja2 setup of nunjucks for the process (docs/templates.md). nunjucks keeps its runtime,
// parser and compiler as shared modules, so the patches below are installed once, before any
// template compiles:
// - Jinja2's grammar, operators, printing, filters, tests and globals (./jinja);
// - member lookups reach only data and Python's str/list/dict methods (no `constructor`);
// - every output, lookup, call and loop step ticks the render budget, so no template hangs.

let installed = false;

function installRuntimePatches(): void {
  if (installed) return;
  installed = true;
  installJinjaLanguage();
  const runtime = nunjucks.runtime;
  runtime.py = py;

  runtime.memberLookup = function memberLookup(obj: unknown, key: unknown) {
    tick();
    return lookupMember(obj, key);
  };
  runtime.suppressValue = function suppressValue(value: unknown, autoescape: boolean) {
    tick();
    const text = output(value, autoescape);
    chargeOutput(text.length);
    return text;
  };

  const { callWrap, handleError, Frame } = runtime;
  runtime.callWrap = function (obj: unknown, name: unknown, context: unknown, args: unknown) {
    tick();
    return callWrap.call(this, callable(obj), name, context, args);
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

  // nunjucks records positions only at function calls; filters record theirs too, so a failing
  // filter is reported on its own line.
  const compilerProto = nunjucks.compiler.Compiler.prototype;
  const compileFilter = compilerProto.compileFilter;
  compilerProto.compileFilter = function (this: any, node: any, frame: unknown) {
    this._emit(`(lineno = ${Number(node.lineno)}, colno = ${Number(node.colno)}, `);
    compileFilter.call(this, node, frame);
    this._emit(")");
  };
}

function createEnvironment(html: boolean): nunjucks.Environment {
  // Jinja2 defaults: no trim_blocks, no lstrip_blocks, undefined prints as "" (not an error).
  const env = new nunjucks.Environment(null, {
    autoescape: html,
    throwOnUndefined: false,
    trimBlocks: false,
    lstripBlocks: false,
  });
  setUpJinjaEnvironment(env);
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
