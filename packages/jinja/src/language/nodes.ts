import nunjucks from "nunjucks";

// Syntax-tree nodes for the Jinja2 constructs nunjucks has no node for. src/nunjucks-patches.ts
// registers them in nunjucks' node table under their type names (its tree walker rebuilds nodes by
// that name); the `compile<TypeName>` methods in compiler/ compile them.

const { Node, NodeList } = nunjucks.nodes as any;

export const jinjaNodes = {
  /** `(1, 2)`: compiled to a PyTuple. */
  Tuple: NodeList.extend("JinjaTuple"),
  /** `x[a:b:c]`'s subscript; missing parts are null. */
  Slice: Node.extend("JinjaSlice", { fields: ["start", "stop", "step"] }),
  /** `x is name args`; `name` is the test's name as a string, `args` a NodeList. */
  Test: Node.extend("JinjaTest", { fields: ["target", "name", "args"] }),
  /** A condition: Python truthiness of `target`. */
  Truthy: Node.extend("JinjaTruthy", { fields: ["target"] }),
  /** `for names in arr if test [recursive]`; `name` is a Symbol or an Array of Symbols. */
  For: Node.extend("JinjaFor", { fields: ["arr", "name", "body", "else_", "test", "recursive"] }),
  /** `set`: targets (a NodeList of Symbols, or one `ns.attr` LookupVal), value or body (and filter). */
  Set: Node.extend("JinjaSet", { fields: ["targets", "value", "body", "filter"] }),
  /** `with a = 1, b = 2`: targets and values are NodeLists. */
  With: Node.extend("JinjaWith", { fields: ["targets", "values", "body"] }),
};

/** The node types template expressions may now contain (nunjucks checks expression types). */
export const EXPRESSION_NODE_TYPES = [jinjaNodes.Tuple, jinjaNodes.Slice, jinjaNodes.Test, jinjaNodes.Truthy];
