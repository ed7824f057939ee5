import nunjucks from "nunjucks";
import { EXPRESSION_NODE_TYPES, jinjaNodes } from "./nodes";

// Compiles template expressions and statements with Jinja2's semantics: operators, comparisons,
// `in`, truthiness and `and`/`or` go through the helpers in runtime-helpers.ts (`runtime.py`);
// loops, `set` and `with` follow Jinja2's scoping (a `set` inside a loop or macro stays there,
// and a name means the outer value until the `set` that shadows it).

const { nodes } = nunjucks as any;
const PY = "runtime.py";

const BINARY_HELPERS: Record<string, string> = {
  Add: "add",
  Sub: "sub",
  Mul: "mul",
  Div: "div",
  FloorDiv: "floordiv",
  Mod: "mod",
  Pow: "pow",
};

const COMPARE_HELPERS: Record<string, string> = {
  "==": "eq",
  "!=": "ne",
  "<": "lt",
  "<=": "le",
  ">": "gt",
  ">=": "ge",
  in: "isIn",
  notin: "notIn",
};

const NAME_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/** The JS variable a `set` may reuse: a binding in this scope, not beyond a loop or macro. */
function bindingForWrite(frame: any, name: string): string | null {
  for (let scope = frame; scope; scope = scope.parent) {
    const id = scope.variables[name];
    if (id !== undefined) return id;
    if (scope.isolateWrites) return null;
  }
  return null;
}

const methods: Record<string, (this: any, node: any, frame: any) => void> = {
  compileLiteral(node) {
    if (node.isFloat && Number.isInteger(node.value)) this._emit(`${PY}.float(${node.value})`);
    else originalCompileLiteral.call(this, node);
  },

  compileJinjaTuple(node, frame) {
    this._emit(`${PY}.tuple(`);
    this._compileAggregate(node, frame, "[", "]");
    this._emit(")");
  },

  compileJinjaSlice(node, frame) {
    this._emit(`${PY}.slice(`);
    ["start", "stop", "step"].forEach((part, i) => {
      if (i > 0) this._emit(", ");
      if (node[part] === null) this._emit("null");
      else this._compileExpression(node[part], frame);
    });
    this._emit(")");
  },

  compilePair(node, frame) {
    const key = node.key;
    if (!node.computedKey || (key instanceof nodes.Literal && typeof key.value === "string")) {
      originalCompilePair.call(this, node, frame);
      return;
    }
    this._emit(`[${PY}.dictKey(`);
    this._compileExpression(key, frame);
    this._emit(")]: ");
    this._compileExpression(node.value, frame);
  },

  compileNeg(node, frame) {
    this._emit(`${PY}.neg(`);
    this.compile(node.target, frame);
    this._emit(")");
  },

  compilePos(node, frame) {
    this._emit(`${PY}.pos(`);
    this.compile(node.target, frame);
    this._emit(")");
  },

  compileConcat(node, frame) {
    this._emit(`${PY}.concat(`);
    this.compile(node.left, frame);
    this._emit(", ");
    this.compile(node.right, frame);
    this._emit(", env.opts.autoescape)");
  },

  // `a or b` gives a when a is true, else b, evaluating b only then. The scratch slot is read
  // right after it is written, before anything else can run, so nesting is safe.
  compileOr(node, frame) {
    this._emit(`(${PY}.t = `);
    this.compile(node.left, frame);
    this._emit(`, ${PY}.truthy(${PY}.t) ? ${PY}.t : `);
    this.compile(node.right, frame);
    this._emit(")");
  },

  compileAnd(node, frame) {
    this._emit(`(${PY}.t = `);
    this.compile(node.left, frame);
    this._emit(`, ${PY}.truthy(${PY}.t) ? `);
    this.compile(node.right, frame);
    this._emit(` : ${PY}.t)`);
  },

  compileNot(node, frame) {
    this._emit(`!${PY}.truthy(`);
    this.compile(node.target, frame);
    this._emit(")");
  },

  compileJinjaTruthy(node, frame) {
    this._emit(`${PY}.truthy(`);
    this.compile(node.target, frame);
    this._emit(")");
  },

  compileInlineIf(node, frame) {
    this._emit(`(${PY}.truthy(`);
    this.compile(node.cond, frame);
    this._emit(") ? ");
    this.compile(node.body, frame);
    this._emit(" : ");
    if (node.else_ === null) this._emit("undefined");
    else this.compile(node.else_, frame);
    this._emit(")");
  },

  compileCompare(node, frame) {
    const ops = node.ops.children;
    if (ops.length === 1) {
      this._emit(`${PY}.${COMPARE_HELPERS[ops[0].type]}(`);
      this.compile(node.expr, frame);
      this._emit(", ");
      this.compile(ops[0].expr, frame);
      this._emit(")");
      return;
    }
    this._emit(`${PY}.compareChain(`);
    this.compile(node.expr, frame);
    for (const op of ops) {
      this._emit(`, ${JSON.stringify(op.type)}, `);
      this.compile(op.expr, frame);
    }
    this._emit(")");
  },

  compileJinjaTest(node, frame) {
    this._emit(`(lineno = ${Number(node.lineno)}, colno = ${Number(node.colno)}, `);
    this._emit(`env.getTest(${JSON.stringify(node.name)}).call(context, `);
    this.compile(node.target, frame);
    for (const arg of node.args.children) {
      this._emit(", ");
      this.compile(arg, frame);
    }
    this._emit(") === true)");
  },

  compileJinjaFor(node, frame) {
    const items = this._tmpid();
    const index = this._tmpid();
    const loop = this._tmpid();
    const names = node.name instanceof nodes.Array ? node.name.children : [node.name];
    this._emit(`var ${items} = ${PY}.iterate(`);
    this._compileExpression(node.arr, frame);
    this._emitLine(`, ${names.length});`);
    const outer = frame;
    frame = frame.push(true);
    const ids = names.map(() => this._tmpid());
    names.forEach((name: any, i: number) => frame.set(name.value, ids[i]));
    const bindNames = (item: string) => {
      if (names.length === 1) {
        this._emitLine(`var ${ids[0]} = ${item};`);
      } else {
        const values = this._tmpid();
        this._emitLine(`var ${values} = ${PY}.unpack(${item}, ${names.length});`);
        ids.forEach((id: string, i: number) => this._emitLine(`var ${id} = ${values}[${i}];`));
      }
      names.forEach((name: any, i: number) =>
        this._emitLine(`frame.set(${JSON.stringify(name.value)}, ${ids[i]});`),
      );
    };
    if (node.test) {
      // `for x in items if test`: the test picks the items before the loop counts them.
      const kept = this._tmpid();
      this._emitLine(`frame = frame.push(true); var ${kept} = [];`);
      this._emitLine(`for (var ${index} = 0; ${index} < ${items}.length; ${index}++) {`);
      bindNames(`${items}[${index}]`);
      this._emit("if (");
      this.compile(node.test, frame);
      this._emitLine(`) ${kept}.push(${items}[${index}]);`);
      this._emitLine(`}`);
      this._emitLine(`frame = frame.pop(); ${items} = ${kept};`);
    }
    this._emitLine(`var ${loop} = new ${PY}.Loop(${items});`);
    frame.set("loop", loop);
    this._emitLine(`for (var ${index} = 0; ${index} < ${items}.length; ${index}++) {`);
    // A fresh scope per pass: a `set` in the body is seen from there on, in this pass only.
    this._emitLine(`frame = frame.push(true); ${loop}.index0 = ${index}; frame.set("loop", ${loop});`);
    bindNames(`${items}[${index}]`);
    this._withScopedSyntax(() => this.compile(node.body, frame));
    this._emitLine("frame = frame.pop();");
    this._emitLine("}");
    if (node.else_) {
      this._emitLine(`if (${items}.length === 0) {`);
      this._withScopedSyntax(() => this.compile(node.else_, outer));
      this._emitLine("}");
    }
  },

  compileJinjaSet(node, frame) {
    const targets = node.targets.children;
    if (targets[0] instanceof nodes.LookupVal) {
      const [target] = targets;
      this._emit(`${PY}.setAttribute(`);
      this.compile(target.target, frame);
      this._emit(`, ${JSON.stringify(target.val.value)}, `);
      this._compileExpression(node.value, frame);
      this._emitLine(");");
      return;
    }
    const value = this._tmpid();
    if (node.value) {
      this._emit(`var ${value} = `);
      this._compileExpression(node.value, frame);
      this._emitLine(";");
    } else {
      this._emit(`var ${value} = ${PY}.markup(`);
      this.compile(node.body, frame);
      this._emitLine(", env.opts.autoescape);");
    }
    const values = targets.length === 1 ? null : this._tmpid();
    if (values) this._emitLine(`var ${values} = ${PY}.unpack(${value}, ${targets.length});`);
    targets.forEach((target: any, i: number) => {
      const name = target.value;
      let id = bindingForWrite(frame, name);
      if (id === null) {
        id = this._tmpid();
        this._emitLine(`var ${id};`);
        frame.set(name, id);
      }
      this._emitLine(`${id} = ${values ? `${values}[${i}]` : value};`);
      this._emitLine(`frame.set(${JSON.stringify(name)}, ${id}, true);`);
      this._emitLine(`if (frame.topLevel) { context.setVariable(${JSON.stringify(name)}, ${id}); }`);
    });
  },

  compileJinjaWith(node, frame) {
    const ids = node.values.children.map((value: any) => {
      const id = this._tmpid();
      this._emit(`var ${id} = `);
      this._compileExpression(value, frame);
      this._emitLine(";");
      return id;
    });
    frame = frame.push(true);
    this._emitLine("frame = frame.push(true);");
    node.targets.children.forEach((target: any, i: number) => {
      frame.set(target.value, ids[i]);
      this._emitLine(`frame.set(${JSON.stringify(target.value)}, ${ids[i]});`);
    });
    this._withScopedSyntax(() => this.compile(node.body, frame));
    this._emitLine("frame = frame.pop();");
  },
};

for (const [type, helper] of Object.entries(BINARY_HELPERS)) {
  methods[`compile${type}`] = function (this: any, node: any, frame: any) {
    this._emit(`${PY}.${helper}(`);
    this.compile(node.left, frame);
    this._emit(", ");
    this.compile(node.right, frame);
    this._emit(")");
  };
}

let originalCompileLiteral: (this: any, node: any) => void;
let originalCompilePair: (this: any, node: any, frame: any) => void;

export function installCompilerPatches(): void {
  const proto = nunjucks.compiler.Compiler.prototype;
  originalCompileLiteral = proto.compileLiteral;
  originalCompilePair = proto.compilePair;
  Object.assign(proto, methods);

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

export { jinjaNodes };
