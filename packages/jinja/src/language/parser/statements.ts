import { jinjaNodes } from "../nodes";
import { isOperator, literal, nodes, T, type ParserMethods } from "./tokens";

// Jinja2's `for` (targets, `in` an implicit tuple, `if` filter, `recursive`), `set` (several
// targets, `ns.attr`, or a block), `if` conditions tested for Python truthiness, and `with`.

/** The name a block `set`'s filters read the block's text from (no template can write it). */
export const SET_BLOCK_NAME = "%set-block";

let originalParseIf: (this: any) => any;

export function statementMethods(parseIf: (this: any) => any): ParserMethods {
  originalParseIf = parseIf;
  return {
    /** Loop or assignment targets: `x`, `a, b` or `(a, b)`; `first` is a name already read. */
    parseTargets(tag: any, first?: any) {
      const parenthesised = !first && this.skip(T.leftParen);
      const names = new nodes.NodeList(tag.lineno, tag.colno);
      let tok = first ?? this.nextToken();
      for (;;) {
        if (tok?.type !== T.symbol) this.fail(`expected a name, got ${tok?.value}`, tag.lineno, tag.colno);
        names.addChild(new nodes.Symbol(tok.lineno, tok.colno, tok.value));
        if (!this.skip(T.comma) || this.peekToken()?.type !== T.symbol) break;
        tok = this.nextToken();
      }
      if (parenthesised && !this.skip(T.rightParen)) this.fail("expected )", tag.lineno, tag.colno);
      return names;
    },

    parseFor() {
      const tag = this.nextToken();
      const targets = this.parseTargets(tag);
      if (!this.skipSymbol("in")) this.fail('expected "in" keyword for loop', tag.lineno, tag.colno);
      const node = new jinjaNodes.For(tag.lineno, tag.colno);
      node.name =
        targets.children.length === 1
          ? targets.children[0]
          : new nodes.Array(tag.lineno, tag.colno, targets.children);
      node.arr = this.parseTuple(false);
      node.test = this.skipSymbol("if")
        ? new jinjaNodes.Truthy(tag.lineno, tag.colno, this.parseExpression())
        : null;
      node.recursive = this.skipSymbol("recursive");
      this.advanceAfterBlockEnd("for");
      node.body = this.parseUntilBlocks("endfor", "else");
      if (this.skipSymbol("else")) {
        this.advanceAfterBlockEnd("else");
        node.else_ = this.parseUntilBlocks("endfor");
      }
      this.advanceAfterBlockEnd();
      return node;
    },

    parseSet() {
      const tag = this.nextToken();
      const node = new jinjaNodes.Set(tag.lineno, tag.colno);
      const first = this.peekToken();
      if (first?.type === T.symbol) {
        this.nextToken();
        if (isOperator(this.peekToken(), ".")) {
          // `set ns.attr = value`: assignment to a namespace() attribute.
          this.nextToken();
          const attr = this.expect(T.symbol);
          const target = new nodes.Symbol(first.lineno, first.colno, first.value);
          const lookup = new nodes.LookupVal(attr.lineno, attr.colno, target, literal(attr, attr.value));
          node.targets = new nodes.NodeList(tag.lineno, tag.colno, [lookup]);
        } else {
          node.targets = this.parseTargets(tag, first);
        }
      } else {
        node.targets = this.parseTargets(tag);
      }
      if (this.skipValue(T.operator, "=")) {
        node.value = this.parseTuple(true);
        this.advanceAfterBlockEnd("set");
      } else {
        // `{% set x | upper %}...{% endset %}`: filters on the block, applied to a stand-in name.
        if (this.peekToken()?.type === T.pipe)
          node.filter = this.parseFilterExpression(new nodes.Symbol(tag.lineno, tag.colno, SET_BLOCK_NAME));
        if (!this.skip(T.blockEnd)) this.fail("expected = or block end in set tag", tag.lineno, tag.colno);
        node.body = new nodes.Capture(tag.lineno, tag.colno, this.parseUntilBlocks("endset"));
        this.advanceAfterBlockEnd();
      }
      return node;
    },

    parseIf() {
      const node = originalParseIf.call(this);
      node.cond = new jinjaNodes.Truthy(node.cond.lineno, node.cond.colno, node.cond);
      return node;
    },
  };
}

/** `{% with a = 1, b = 2 %}...{% endwith %}`, given to nunjucks as a tag extension. */
export const withExtension = {
  tags: ["with"],
  parse(parser: any) {
    const tag = parser.nextToken();
    const node = new jinjaNodes.With(tag.lineno, tag.colno);
    node.targets = new nodes.NodeList(tag.lineno, tag.colno);
    node.values = new nodes.NodeList(tag.lineno, tag.colno);
    while (parser.peekToken()?.type !== T.blockEnd) {
      if (node.targets.children.length && !parser.skip(T.comma)) parser.fail("expected comma in with");
      const name = parser.expect(T.symbol);
      node.targets.addChild(new nodes.Symbol(name.lineno, name.colno, name.value));
      if (!parser.skipValue(T.operator, "=")) parser.fail("expected = in with", name.lineno, name.colno);
      node.values.addChild(parser.parseExpression());
    }
    parser.advanceAfterBlockEnd("with");
    node.body = parser.parseUntilBlocks("endwith");
    parser.advanceAfterBlockEnd();
    return node;
  },
};
