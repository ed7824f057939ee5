import nunjucks from "nunjucks";
import { transform } from "nunjucks/src/transformer";
import {
  callable,
  compilerMethods,
  jinjaNodes,
  lookupMember,
  output,
  parserMethods,
  py,
  tokenizerMethods,
} from "./language";
import { chargeOutput, noteErrorLine, tick } from "./render-budget";

// The one module that changes nunjucks (docs/templates.md "Jinja2 on nunjucks"). nunjucks 3.2 has
// no option or hook for what Jinja2 does differently, so the methods behind it are replaced:
// - the lexer and parser: Jinja2's grammar and operator precedence, tuples, slices, `is` tests
//   with arguments, `for ... if ... recursive`, `set` blocks and namespace attributes, `with`,
//   0x/0o/0b/1_000 and 1e3 literals, Python's string escapes, `}}` closing a nested dict;
// - the compiler: Python's operators, comparisons, `in` and truthiness, Jinja2's scoping of `set`
//   in loops and macros, macros that return Markup only under autoescape, a failing filter
//   reported on its own line;
// - the runtime: values printed as Python prints them, member lookups that reach only the data
//   and Python's str/list/dict methods (never `constructor`), and the render budget
//   (render-budget.ts) ticked on every output, lookup, call and loop step.
// They are not process-wide. Each goes on a private subclass of nunjucks' own (tokenizer, parser,
// compiler, frame, template) or on a private copy of its runtime, and only templates made with
// `JinjaTemplate` below use them: nunjucks' prototypes and runtime module stay as shipped, and any
// other nunjucks user in the process still gets nunjucks' language. One shared write is left: the
// Jinja2 node types are added to nunjucks' node table, because its transformer (which this module
// runs as nunjucks does) rebuilds a node by looking its type name up in that one table. It only
// adds names (`JinjaTuple`, `JinjaFor`, ...); no entry of nunjucks' own is replaced.
// Everything is built once, on first use, and `applyNunjucksPatches` is idempotent.

export const NUNJUCKS_PATCHES = [
  "tokenizer",
  "parser",
  "compiler",
  "node table",
  "runtime",
  "frame",
  "template",
] as const;
export type NunjucksPatch = (typeof NUNJUCKS_PATCHES)[number];

/** Templates compiled and run with Jinja2's language. */
export interface JinjaNunjucks {
  /** nunjucks' Template, compiled by the Jinja2 parser and compiler, run on the Jinja2 runtime. */
  Template: new (source: string, env: nunjucks.Environment) => nunjucks.Template;
  /** The syntax tree of a template, as the Jinja2 parser reads it. */
  parse(source: string, env: nunjucks.Environment): nunjucks.AstNode;
  /** What compiled templates get as `runtime` in place of nunjucks' own. */
  runtime: Record<string, any>;
}

const applied = Object.fromEntries(NUNJUCKS_PATCHES.map((name) => [name, 0])) as Record<
  NunjucksPatch,
  number
>;

/** How often each patch has been applied in this process: 0 before the first use, then 1. */
export function appliedNunjucksPatches(): Record<NunjucksPatch, number> {
  return { ...applied };
}

let patched: JinjaNunjucks | null = null;

export function applyNunjucksPatches(): JinjaNunjucks {
  patched ??= build();
  return patched;
}

type Compile = (source: string, env: nunjucks.Environment, path: string | undefined) => string;

function build(): JinjaNunjucks {
  const Tokenizer = tokenizerClass();
  const Parser = parserClass();
  const parse = (source: string, extensions: unknown, opts: object): nunjucks.AstNode => {
    const parser = new Parser(new Tokenizer(source, opts));
    if (extensions !== undefined) parser.extensions = extensions;
    return parser.parseAsRoot();
  };
  registerNodeTypes();
  const compile = compileFunction(compilerClass(), parse);
  const runtime = runtimeCopy(frameClass());
  return {
    Template: templateClass(compile, runtime),
    parse: (source, env) => parse(source, (env as any).extensionsList, env.opts),
    runtime,
  };
}

function tokenizerClass(): new (source: string, opts: object) => any {
  const Tokenizer = nunjucks.lexer.lex("").constructor;
  class JinjaTokenizer extends Tokenizer {}
  Object.assign(JinjaTokenizer.prototype, tokenizerMethods(Tokenizer.prototype));
  applied.tokenizer += 1;
  return JinjaTokenizer;
}

function parserClass(): new (tokens: unknown) => any {
  const { Parser } = nunjucks.parser;
  class JinjaParser extends Parser {}
  Object.assign(JinjaParser.prototype, parserMethods({ parseIf: Parser.prototype.parseIf }));
  applied.parser += 1;
  return JinjaParser;
}

function compilerClass(): new (name: unknown, throwOnUndefined: unknown) => any {
  const { Compiler } = nunjucks.compiler;
  class JinjaCompiler extends Compiler {}
  Object.assign(JinjaCompiler.prototype, compilerMethods(Compiler.prototype));
  applied.compiler += 1;
  return JinjaCompiler;
}

function registerNodeTypes(): void {
  const table = nunjucks.nodes as Record<string, unknown>;
  for (const type of Object.values(jinjaNodes)) table[new type(0, 0).typename] = type;
  applied["node table"] += 1;
}

/** nunjucks' `compiler.compile` with the Jinja2 parser and compiler. */
function compileFunction(
  Compiler: new (name: unknown, throwOnUndefined: unknown) => any,
  parse: (source: string, extensions: unknown, opts: object) => nunjucks.AstNode,
): Compile {
  return (source, env, path) => {
    const opts = env.opts;
    const extensions: { preprocess?: (source: string) => string }[] = (env as any).extensionsList ?? [];
    const compiler = new Compiler(path, opts.throwOnUndefined);
    const processed = extensions.reduce(
      (text, ext) => (ext.preprocess ? ext.preprocess(text) : text),
      source,
    );
    compiler.compile(transform(parse(processed, extensions, opts), (env as any).asyncFilters, path));
    return compiler.getCode();
  };
}

/** Frames that tick the budget on every write (a loop step sets its variables). */
function frameClass(): new (parent?: unknown, isolateWrites?: boolean) => any {
  const { Frame } = nunjucks.runtime;
  class JinjaFrame extends Frame {
    constructor(parent?: unknown, isolateWrites?: boolean) {
      super(parent, isolateWrites);
    }
    set(...args: unknown[]) {
      tick();
      return super.set(...args);
    }
    push(isolateWrites?: boolean) {
      return new JinjaFrame(this, isolateWrites);
    }
  }
  applied.frame += 1;
  return JinjaFrame;
}

function runtimeCopy(Frame: new (parent?: unknown, isolateWrites?: boolean) => any): Record<string, any> {
  const base = nunjucks.runtime;
  applied.runtime += 1;
  return {
    ...base,
    Frame,
    py,
    memberLookup(obj: unknown, key: unknown) {
      tick();
      return lookupMember(obj, key);
    },
    suppressValue(value: unknown, autoescape: boolean) {
      tick();
      const text = output(value, autoescape);
      chargeOutput(text.length);
      return text;
    },
    callWrap(obj: unknown, name: unknown, context: unknown, args: unknown) {
      tick();
      return base.callWrap(callable(obj), name, context, args);
    },
    handleError(error: unknown, lineno: unknown, colno: unknown) {
      noteErrorLine(lineno);
      return base.handleError(error, lineno, colno);
    },
  };
}

/**
 * nunjucks' Template, compiled with `compile` and run on `runtime`: nunjucks' own render starts
 * the template's root function with its runtime and a frame of its own, and both are swapped here.
 */
function templateClass(compile: Compile, runtime: Record<string, any>): JinjaNunjucks["Template"] {
  const Frame = runtime.Frame;
  const ownFrame = (frame: any) => {
    if (frame instanceof Frame) return frame;
    const own = new Frame(frame.parent, frame.isolateWrites);
    own.variables = frame.variables;
    own.topLevel = frame.topLevel;
    return own;
  };
  class JinjaTemplate extends nunjucks.Template {
    _compile(this: any) {
      const props = new Function(compile(this.tmplStr, this.env, this.path))();
      const root = props.root;
      this.blocks = this._getBlocks(props);
      this.rootRenderFunc = (
        env: unknown,
        context: unknown,
        frame: unknown,
        _runtime: unknown,
        cb: unknown,
      ) => root(env, context, ownFrame(frame), runtime, cb);
      this.compiled = true;
    }
  }
  applied.template += 1;
  return JinjaTemplate;
}
