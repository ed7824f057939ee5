import nunjucks from "nunjucks";

// Expressions compiled with Jinja2's semantics: operators, comparisons, `in`, truthiness and
// `and`/`or` call the helpers of runtime-helpers.ts (`runtime.py` in generated code).

const { nodes } = nunjucks as any;
export const PY = "runtime.py";

/** Compiler methods installed on nunjucks' Compiler; `this` is the compiler. */
export type CompilerMethods = Record<string, (this: any, node: any, frame: any, ...rest: any[]) => void>;

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

/** Records the node's position first, so an error it raises is reported on its line. */
function position(node: any): string {
  return `lineno = ${Number(node.lineno)}, colno = ${Number(node.colno)}, `;
}

/** The same as a statement of its own (before a loop or an assignment). */
export function positionStatement(node: any): string {
  return `lineno = ${Number(node.lineno)}; colno = ${Number(node.colno)};`;
}

export function expressionMethods(original: { compileLiteral: any; compilePair: any }): CompilerMethods {
  const originalCompileLiteral = original.compileLiteral;
  const originalCompilePair = original.compilePair;
  const methods: CompilerMethods = {
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
      this._emit(`(${position(node)}${PY}.neg(`);
      this.compile(node.target, frame);
      this._emit("))");
    },

    compilePos(node, frame) {
      this._emit(`(${position(node)}${PY}.pos(`);
      this.compile(node.target, frame);
      this._emit("))");
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
        this._emit(`(${position(node)}${PY}.${COMPARE_HELPERS[ops[0].type]}(`);
        this.compile(node.expr, frame);
        this._emit(", ");
        this.compile(ops[0].expr, frame);
        this._emit("))");
        return;
      }
      this._emit(`(${position(node)}${PY}.compareChain(`);
      this.compile(node.expr, frame);
      for (const op of ops) {
        this._emit(`, ${JSON.stringify(op.type)}, `);
        this.compile(op.expr, frame);
      }
      this._emit("))");
    },

    compileJinjaTest(node, frame) {
      this._emit(`(${position(node)}env.getTest(${JSON.stringify(node.name)}).call(context, `);
      this.compile(node.target, frame);
      for (const arg of node.args.children) {
        this._emit(", ");
        this.compile(arg, frame);
      }
      this._emit(") === true)");
    },
  };
  for (const [type, helper] of Object.entries(BINARY_HELPERS)) {
    methods[`compile${type}`] = function (this: any, node: any, frame: any) {
      this._emit(`(${position(node)}${PY}.${helper}(`);
      this.compile(node.left, frame);
      this._emit(", ");
      this.compile(node.right, frame);
      this._emit("))");
    };
  }
  return methods;
}
