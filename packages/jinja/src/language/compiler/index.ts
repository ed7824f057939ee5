import { EXPRESSION_NODE_TYPES } from "../nodes";
import { expressionMethods, PY, type CompilerMethods } from "./expressions";
import { statementMethods } from "./statements";

// Jinja2's semantics in nunjucks' compiler: expressions (expressions.ts) and loops, `set` and
// `with` (statements.ts); below, the fixes around nunjucks' own macro, call and filter
// compilation. The methods go on the Jinja2 compiler of src/nunjucks-patches.ts, a subclass of
// nunjucks' own.

const NAME_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/** The compiler methods that replace nunjucks' own; `base` is nunjucks' compiler prototype. */
export function compilerMethods(base: Record<string, any>): CompilerMethods {
  const { _getNodeName: getNodeName, assertType, _compileMacro: compileMacro, compileFilter } = base;
  return {
    ...expressionMethods({ compileLiteral: base.compileLiteral, compilePair: base.compilePair }),
    ...statementMethods,

    // The name of what a call calls goes into the generated code's error message as a string
    // literal; a string in it (`'a\nb'.splitlines()`) must not break that literal.
    _getNodeName(node) {
      return String(getNodeName.call(this, node)).replace(/[\\\n\r\u2028\u2029]/g, (ch) => NAME_ESCAPES[ch]!);
    },

    assertType(node, ...types: unknown[]) {
      if (EXPRESSION_NODE_TYPES.some((type) => node instanceof type)) return;
      assertType.call(this, node, ...types);
    },

    // Jinja2 macros return Markup only with autoescape; nunjucks always marks them safe.
    _compileMacro(node, frame) {
      const emitLine = this._emitLine;
      this._emitLine = (code: string) =>
        emitLine.call(
          this,
          code.replace(
            /^return new runtime\.SafeString\((\w+)\);$/,
            `return ${PY}.markup($1, env.opts.autoescape);`,
          ),
        );
      try {
        return compileMacro.call(this, node, frame);
      } finally {
        this._emitLine = emitLine;
      }
    },

    // nunjucks records positions only at function calls; filters record theirs too, so a failing
    // filter is reported on its own line.
    compileFilter(node, frame) {
      this._emit(`(lineno = ${Number(node.lineno)}, colno = ${Number(node.colno)}, `);
      compileFilter.call(this, node, frame);
      this._emit(")");
    },
  };
}
