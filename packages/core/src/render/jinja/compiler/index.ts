import nunjucks from "nunjucks";
import { EXPRESSION_NODE_TYPES } from "../nodes";
import { expressionMethods, PY } from "./expressions";
import { statementMethods } from "./statements";

// Jinja2's semantics in nunjucks' compiler: expressions (expressions.ts) and loops, `set` and
// `with` (statements.ts); below, the fixes around nunjucks' own macro and call compilation.

const NAME_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

export function installCompilerPatches(): void {
  const proto = nunjucks.compiler.Compiler.prototype;
  Object.assign(
    proto,
    expressionMethods({ compileLiteral: proto.compileLiteral, compilePair: proto.compilePair }),
    statementMethods,
  );

  // The name of what a call calls goes into the generated code's error message as a string
  // literal; a string in it (`'a\nb'.splitlines()`) must not break that literal.
  const getNodeName = proto._getNodeName;
  proto._getNodeName = function (this: any, node: any) {
    return String(getNodeName.call(this, node)).replace(/[\\\n\r\u2028\u2029]/g, (ch) => NAME_ESCAPES[ch]!);
  };

  const assertType = proto.assertType;
  proto.assertType = function (this: any, node: any, ...types: unknown[]) {
    if (EXPRESSION_NODE_TYPES.some((type) => node instanceof type)) return;
    assertType.call(this, node, ...types);
  };

  // Jinja2 macros return Markup only with autoescape; nunjucks always marks them safe.
  const compileMacro = proto._compileMacro;
  proto._compileMacro = function (this: any, node: any, frame: any) {
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
  };
}
