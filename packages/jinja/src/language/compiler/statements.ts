import nunjucks from "nunjucks";
import { SET_BLOCK_NAME } from "../parser/statements";
import { positionStatement, PY, type CompilerMethods } from "./expressions";

// Loops, `set` and `with` with Jinja2's scoping: a `set` inside a loop or macro stays there, and
// a name means the outer value until the `set` that shadows it (the compile-time frames map
// names to the generated code's variables; the runtime frames serve lookups by name).

const { nodes } = nunjucks as any;

/** The JS variable a `set` may reuse: a binding in this scope, not beyond a loop or macro. */
function bindingForWrite(frame: any, name: string): string | null {
  for (let scope = frame; scope; scope = scope.parent) {
    const id = scope.variables[name];
    if (id !== undefined) return id;
    if (scope.isolateWrites) return null;
  }
  return null;
}

export const statementMethods: CompilerMethods = {
  compileJinjaFor(node, frame) {
    const names = node.name instanceof nodes.Array ? node.name.children : [node.name];
    this._emitLine(positionStatement(node));
    if (!node.recursive) {
      const items = this._tmpid();
      this._emit(`var ${items} = ${PY}.iterate(`);
      this._compileExpression(node.arr, frame);
      this._emitLine(`, ${names.length});`);
      this._compileLoop(node, frame, items, "1", "null");
      return;
    }
    // `for ... recursive`: the loop is a function of its items and depth; `loop(children)` calls
    // it again and gives its output.
    const render = this._tmpid();
    const items = this._tmpid();
    const depth = this._tmpid();
    this._emitLine(`var ${render} = function (${items}, ${depth}) {`);
    const buffer = this._pushBuffer();
    const recurse = `function (value) { return ${PY}.markup(${render}(${PY}.iterate(value, ${names.length}), ${depth} + 1), env.opts.autoescape); }`;
    this._compileLoop(node, frame, items, depth, recurse);
    this._popBuffer();
    this._emitLine(`return ${buffer};`);
    this._emitLine("};");
    this._emit(`${this.buffer} += ${render}(${PY}.iterate(`);
    this._compileExpression(node.arr, frame);
    this._emitLine(`, ${names.length}), 1);`);
  },

  /** The loop over the array in JS variable `items`, at `depth`, with `recurse` for `loop(...)`. */
  _compileLoop(node: any, frame: any, items: string, depth: string, recurse: string) {
    const index = this._tmpid();
    const loop = this._tmpid();
    const names = node.name instanceof nodes.Array ? node.name.children : [node.name];
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
    this._emitLine(`var ${loop} = new ${PY}.Loop(${items}, ${depth}, ${recurse});`);
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
    this._emitLine(positionStatement(node));
    const targets = node.targets.children;
    const value = this._tmpid();
    if (node.value) {
      this._emit(`var ${value} = `);
      this._compileExpression(node.value, frame);
      this._emitLine(";");
    } else {
      this._emit(`var ${value} = ${PY}.markup(`);
      this.compile(node.body, frame);
      this._emitLine(", env.opts.autoescape);");
      if (node.filter) {
        const scope = frame.push();
        scope.set(SET_BLOCK_NAME, value);
        this._emit(`${value} = `);
        this._compileExpression(node.filter, scope);
        this._emitLine(";");
      }
    }
    if (targets[0] instanceof nodes.LookupVal) {
      const [target] = targets;
      this._emit(`${PY}.setAttribute(`);
      this.compile(target.target, frame);
      this._emitLine(`, ${JSON.stringify(target.val.value)}, ${value});`);
      return;
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
