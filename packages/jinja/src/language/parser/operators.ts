import { jinjaNodes } from "../nodes";
import { isName, isOperator, nodes, T, type ParserMethods } from "./tokens";

// Jinja2's operator grammar (its parser.py), loosest first:
//   x if c else y  →  or  →  and  →  not  →  comparisons (== != < > <= >= in, not in; chained)
//   →  + -  →  ~  →  * / // %  →  **  →  unary - +  →  primary (primary.ts).
// nunjucks ranks these differently: there `~` is looser than `+`, `is` looser than arithmetic,
// and `*`, `/`, `//` and `%` each have their own level.

const COMPARE_OPS = ["==", "!=", "<", ">", "<=", ">="];
const MATH2_NODES: Record<string, unknown> = {
  "*": nodes.Mul,
  "/": nodes.Div,
  "//": nodes.FloorDiv,
  "%": nodes.Mod,
};

export const operatorMethods: ParserMethods = {
  parseExpression() {
    return this.parseInlineIf();
  },

  parseInlineIf() {
    let node = this.parseOr();
    while (this.skipSymbol("if")) {
      const inline = new nodes.InlineIf(node.lineno, node.colno);
      inline.body = node;
      inline.cond = this.parseOr();
      inline.else_ = this.skipSymbol("else") ? this.parseInlineIf() : null;
      node = inline;
    }
    return node;
  },

  parseNot() {
    const tok = this.peekToken();
    if (this.skipSymbol("not")) return new nodes.Not(tok.lineno, tok.colno, this.parseNot());
    return this.parseCompare();
  },

  parseCompare() {
    const expr = this.parseMath1();
    const ops = new nodes.NodeList(expr.lineno, expr.colno);
    for (;;) {
      const tok = this.peekToken();
      let type: string;
      if (isOperator(tok, ...COMPARE_OPS)) {
        this.nextToken();
        type = tok.value;
      } else if (this.skipSymbol("in")) {
        type = "in";
      } else if (isName(tok, "not")) {
        this.nextToken();
        if (!this.skipSymbol("in")) this.fail("expected 'in' after 'not'", tok.lineno, tok.colno);
        type = "notin";
      } else {
        break;
      }
      ops.addChild(new nodes.CompareOperand(tok.lineno, tok.colno, this.parseMath1(), type));
    }
    return ops.children.length ? new nodes.Compare(expr.lineno, expr.colno, expr, ops) : expr;
  },

  parseMath1() {
    let node = this.parseConcat();
    for (let tok = this.peekToken(); isOperator(tok, "+", "-"); tok = this.peekToken()) {
      this.nextToken();
      const type = tok.value === "+" ? nodes.Add : nodes.Sub;
      node = new type(node.lineno, node.colno, node, this.parseConcat());
    }
    return node;
  },

  parseConcat() {
    let node = this.parseMath2();
    while (this.skip(T.tilde)) node = new nodes.Concat(node.lineno, node.colno, node, this.parseMath2());
    return node;
  },

  parseMath2() {
    let node = this.parsePow();
    for (let tok = this.peekToken(); isOperator(tok, "*", "/", "//", "%"); tok = this.peekToken()) {
      this.nextToken();
      const type = MATH2_NODES[tok.value] as any;
      node = new type(node.lineno, node.colno, node, this.parsePow());
    }
    return node;
  },

  parsePow() {
    let node = this.parseUnary();
    while (this.skipValue(T.operator, "**"))
      node = new nodes.Pow(node.lineno, node.colno, node, this.parseUnary());
    return node;
  },

  parseUnary(noFilters?: boolean) {
    const tok = this.peekToken();
    let node;
    if (isOperator(tok, "-", "+")) {
      this.nextToken();
      const type = tok.value === "-" ? nodes.Neg : nodes.Pos;
      node = this.parsePostfix(new type(tok.lineno, tok.colno, this.parseUnary(true)));
    } else {
      node = this.parsePrimary();
    }
    return noFilters ? node : this.parseFilterExpression(node);
  },

  /** Implicit tuples (`for x in a, b`, `set x = 1, 2`); `withCondition` allows `x if c else y`. */
  parseTuple(withCondition: boolean) {
    const start = this.peekToken();
    const parseOne = () => (withCondition ? this.parseExpression() : this.parseOr());
    const first = parseOne();
    if (this.peekToken()?.type !== T.comma) return first;
    const items = [first];
    while (this.skip(T.comma)) {
      const next = this.peekToken();
      if (!next || next.type === T.blockEnd || isName(next, "if") || isName(next, "recursive")) break;
      items.push(parseOne());
    }
    return new jinjaNodes.Tuple(start.lineno, start.colno, items);
  },
};
