import nunjucks from "nunjucks";
import { jinjaNodes } from "./nodes";
import { pyUnescape } from "./string-literals";

// Jinja2's expression grammar on nunjucks' parser (nunjucks ranks operators differently and lacks
// some syntax). From loosest to tightest, as Jinja2's parser.py has it:
//   x if c else y  →  or  →  and  →  not  →  comparisons (== != < > <= >= in, not in; chained)
//   →  + -  →  ~  →  * / // %  →  **  →  unary - +  →  primary with .attr, [index], [a:b], (call),
//   | filter and `is test` (a test's single argument may go without parentheses).
// Also: tuples, adjacent strings ("a" "b"), Python string escapes, True/False/None, `null` as a
// plain name, 1_000 and 0x1F, `for ... if ...` loop filters, `set a, b = ...` and `set ns.x = ...`.

const { nodes, lexer } = nunjucks as any;
const T = {
  string: lexer.TOKEN_STRING,
  int: lexer.TOKEN_INT,
  float: lexer.TOKEN_FLOAT,
  boolean: lexer.TOKEN_BOOLEAN,
  none: lexer.TOKEN_NONE,
  symbol: lexer.TOKEN_SYMBOL,
  operator: lexer.TOKEN_OPERATOR,
  leftParen: lexer.TOKEN_LEFT_PAREN,
  rightParen: lexer.TOKEN_RIGHT_PAREN,
  leftBracket: lexer.TOKEN_LEFT_BRACKET,
  rightBracket: lexer.TOKEN_RIGHT_BRACKET,
  leftCurly: lexer.TOKEN_LEFT_CURLY,
  rightCurly: lexer.TOKEN_RIGHT_CURLY,
  comma: lexer.TOKEN_COMMA,
  colon: lexer.TOKEN_COLON,
  tilde: lexer.TOKEN_TILDE,
  pipe: lexer.TOKEN_PIPE,
  blockEnd: lexer.TOKEN_BLOCK_END,
} as const;

const COMPARE_OPS = new Set(["==", "!=", "<", ">", "<=", ">="]);
const MATH2_NODES: Record<string, unknown> = {
  "*": nodes.Mul,
  "/": nodes.Div,
  "//": nodes.FloorDiv,
  "%": nodes.Mod,
};
const CONSTANT_NAMES: Record<string, unknown> = { True: true, False: false, None: null };
const INT_LITERAL = /^(?:\d(?:_?\d)*|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0[xX](?:_?[\da-fA-F])+)$/;
const EXPONENT_LITERAL = /^\d(?:_?\d)*[eE]\d(?:_?\d)*$/;
const SIGNED_EXPONENT_START = /^\d(?:_?\d)*[eE]$/;
const TEST_ARGUMENT_STARTS = new Set([
  T.symbol,
  T.string,
  T.int,
  T.float,
  T.boolean,
  T.none,
  T.leftBracket,
  T.leftCurly,
]);

function isOperator(tok: any, ...values: string[]): boolean {
  return tok?.type === T.operator && values.includes(tok.value);
}

function isName(tok: any, value: string): boolean {
  return tok?.type === T.symbol && tok.value === value;
}

/** Whether token `b` starts right where token `a` ends. */
function touches(a: any, b: any): boolean {
  return b && b.lineno === a.lineno && b.colno === a.colno + String(a.value).length;
}

function intLiteral(text: string): number {
  const digits = text.replace(/_/g, "");
  const prefix = digits.slice(0, 2).toLowerCase();
  const base = prefix === "0x" ? 16 : prefix === "0o" ? 8 : prefix === "0b" ? 2 : 10;
  return base === 10 ? Number(digits) : parseInt(digits.slice(2), base);
}

function literal(tok: any, value: unknown, isFloat = false): any {
  const node = new nodes.Literal(tok.lineno, tok.colno, value);
  if (isFloat) node.isFloat = true;
  return node;
}

const methods: Record<string, (this: any, ...args: any[]) => any> = {
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

  parsePrimary(noPostfix?: boolean) {
    const tok = this.nextToken();
    if (!tok) this.fail("expected expression, got end of file");
    let node;
    if (tok.type === T.string) {
      let text = tok.value;
      while (this.peekToken()?.type === T.string) text += this.nextToken().value;
      node = literal(tok, text);
    } else if (tok.type === T.int) {
      const exponent = this.parseExponent(tok);
      node =
        exponent === null
          ? literal(tok, intLiteral(tok.value))
          : literal(tok, Number(tok.value + exponent), true);
    } else if (tok.type === T.float) {
      node = literal(tok, Number(tok.value.replace(/_/g, "") + (this.parseExponent(tok) ?? "")), true);
    } else if (tok.type === T.boolean) {
      node = literal(tok, tok.value === "true");
    } else if (tok.type === T.none) {
      // `none` is None; `null` is no keyword in Jinja2, just an (undefined) name.
      node = tok.value === "none" ? literal(tok, null) : new nodes.Symbol(tok.lineno, tok.colno, tok.value);
    } else if (tok.type === T.symbol) {
      if (Object.hasOwn(CONSTANT_NAMES, tok.value)) node = literal(tok, CONSTANT_NAMES[tok.value]);
      else if (INT_LITERAL.test(tok.value)) node = literal(tok, intLiteral(tok.value));
      else if (EXPONENT_LITERAL.test(tok.value))
        node = literal(tok, Number(tok.value.replace(/_/g, "")), true);
      else if (SIGNED_EXPONENT_START.test(tok.value)) {
        const sign = this.parseExponentSign(tok);
        node = literal(tok, Number(tok.value.replace(/_/g, "") + sign), true);
      } else node = new nodes.Symbol(tok.lineno, tok.colno, tok.value);
    } else if (tok.type === T.leftParen) {
      node = this.parseParenthesized(tok);
    } else if (tok.type === T.leftBracket) {
      node = new nodes.Array(tok.lineno, tok.colno, this.parseItems(T.rightBracket));
    } else if (tok.type === T.leftCurly) {
      node = this.parseDictLiteral(tok);
    } else {
      this.fail(`unexpected token: ${tok.value}`, tok.lineno, tok.colno);
    }
    return noPostfix ? node : this.parsePostfix(node);
  },

  /**
   * nunjucks' lexer splits `1.5e3` into `1.5` and `e3` (and `1e-3` into `1e`, `-`, `3`); the
   * exponent is read back here from tokens that touch the number.
   */
  parseExponent(number: any) {
    const next = this.peekToken();
    if (!touches(number, next) || next.type !== T.symbol || !/^[eE](?:\d(?:_?\d)*)?$/.test(next.value))
      return null;
    this.nextToken();
    return next.value.length > 1 ? next.value.replace(/_/g, "") : `e${this.parseExponentSign(next)}`;
  },

  /** After a token ending in `e`: the `+3` / `-3` that touches it. */
  parseExponentSign(before: any) {
    const sign = this.nextToken();
    const digits = this.nextToken();
    if (
      !touches(before, sign) ||
      !isOperator(sign, "+", "-") ||
      !touches(sign, digits) ||
      digits.type !== T.int
    )
      this.fail("invalid number literal", before.lineno, before.colno);
    return sign.value + digits.value.replace(/_/g, "");
  },

  /** Comma-separated expressions up to `end` (a trailing comma is allowed). */
  parseItems(end: string) {
    const items = [];
    while (!this.skip(end)) {
      if (items.length && !this.skip(T.comma)) this.fail("expected comma or closing bracket");
      if (this.skip(end)) break;
      items.push(this.parseExpression());
    }
    return items;
  },

  /** After `(`: a parenthesised expression, or a tuple when there is a comma (or nothing). */
  parseParenthesized(open: any) {
    if (this.skip(T.rightParen)) return new jinjaNodes.Tuple(open.lineno, open.colno, []);
    const first = this.parseExpression();
    if (this.skip(T.rightParen)) return first;
    if (!this.skip(T.comma)) this.fail("expected comma or )", open.lineno, open.colno);
    const rest = this.parseItems(T.rightParen);
    return new jinjaNodes.Tuple(open.lineno, open.colno, [first, ...rest]);
  },

  parseDictLiteral(open: any) {
    const dict = new nodes.Dict(open.lineno, open.colno);
    while (!this.skip(T.rightCurly)) {
      if (dict.children.length && !this.skip(T.comma)) this.fail("expected comma or }");
      if (this.skip(T.rightCurly)) break;
      const key = this.parseExpression();
      if (!this.skip(T.colon)) this.fail("expected colon after dict key", key.lineno, key.colno);
      const pair = new nodes.Pair(key.lineno, key.colno, key, this.parseExpression());
      pair.computedKey = true; // a name as key is a variable in Jinja2, not a string
      dict.addChild(pair);
    }
    return dict;
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

  parsePostfix(node: any) {
    for (let tok = this.peekToken(); tok; tok = this.peekToken()) {
      if (tok.type === T.leftParen) {
        node = new nodes.FunCall(tok.lineno, tok.colno, node, this.parseSignature());
      } else if (tok.type === T.leftBracket) {
        this.nextToken();
        node = new nodes.LookupVal(tok.lineno, tok.colno, node, this.parseSubscript(tok));
      } else if (isOperator(tok, ".")) {
        this.nextToken();
        node = this.parseDottedLookup(node);
      } else {
        break;
      }
    }
    return node;
  },

  /**
   * After `.`: a name or an index (`items.0`). nunjucks' lexer reads `.1.name` as the float `1.`
   * followed by `name`, and `.0.1` as the float `0.1`; those are split back into lookups here.
   */
  parseDottedLookup(node: any) {
    const attr = this.nextToken();
    if (attr?.type === T.float) {
      const [first, second] = attr.value.split(".");
      node = new nodes.LookupVal(attr.lineno, attr.colno, node, literal(attr, intLiteral(first)));
      if (second)
        return new nodes.LookupVal(attr.lineno, attr.colno, node, literal(attr, intLiteral(second)));
      return this.parseDottedLookup(node);
    }
    let key;
    if (attr?.type === T.int) key = literal(attr, intLiteral(attr.value));
    else if (attr && [T.symbol, T.boolean, T.none].includes(attr.type)) key = literal(attr, attr.value);
    else this.fail(`expected name as lookup value, got ${attr?.value}`, attr?.lineno, attr?.colno);
    return new nodes.LookupVal(attr.lineno, attr.colno, node, key);
  },

  /** After `[`: an index expression or a slice `a:b:c`, up to `]`. */
  parseSubscript(open: any) {
    const parts: any[] = [null];
    let colons = 0;
    while (!this.skip(T.rightBracket)) {
      if (this.skip(T.colon)) {
        colons += 1;
        if (colons > 2) this.fail("too many colons in slice", open.lineno, open.colno);
        parts.push(null);
      } else if (parts[parts.length - 1] === null) {
        parts[parts.length - 1] = this.parseExpression();
      } else {
        this.fail("expected ] after subscript", open.lineno, open.colno);
      }
    }
    if (colons === 0) {
      if (parts[0] === null) this.fail("expected subscript", open.lineno, open.colno);
      return parts[0];
    }
    const [start = null, stop = null, step = null] = parts;
    return new jinjaNodes.Slice(open.lineno, open.colno, start, stop, step);
  },

  /** Filters `| name(args)`, tests `is [not] name args` and calls, in any order. */
  parseFilterExpression(node: any) {
    for (let tok = this.peekToken(); tok; tok = this.peekToken()) {
      if (tok.type === T.pipe) {
        this.nextToken();
        const name = this.parseFilterName();
        const args = this.peekToken()?.type === T.leftParen ? this.parseSignature().children : [];
        node = new nodes.Filter(
          name.lineno,
          name.colno,
          name,
          new nodes.NodeList(name.lineno, name.colno, [node, ...args]),
        );
      } else if (isName(tok, "is")) {
        node = this.parseTest(node);
      } else if (tok.type === T.leftParen) {
        node = new nodes.FunCall(tok.lineno, tok.colno, node, this.parseSignature());
      } else {
        break;
      }
    }
    return node;
  },

  parseTest(node: any) {
    const isTok = this.nextToken();
    const negated = this.skipSymbol("not");
    const nameTok = this.nextToken();
    if (!nameTok || ![T.symbol, T.boolean, T.none].includes(nameTok.type))
      this.fail("expected a test name after 'is'", isTok.lineno, isTok.colno);
    let name = nameTok.value;
    while (this.skipValue(T.operator, ".")) name += `.${this.expect(T.symbol).value}`;
    let args: any[] = [];
    const next = this.peekToken();
    if (next?.type === T.leftParen) {
      args = this.parseSignature().children;
    } else if (
      next &&
      TEST_ARGUMENT_STARTS.has(next.type) &&
      !["else", "or", "and"].some((word) => isName(next, word))
    ) {
      if (isName(next, "is")) this.fail("You cannot chain multiple tests with is", next.lineno, next.colno);
      args = [this.parsePrimary()];
    }
    const test = new jinjaNodes.Test(
      isTok.lineno,
      isTok.colno,
      node,
      name,
      new nodes.NodeList(isTok.lineno, isTok.colno, args),
    );
    return negated ? new nodes.Not(isTok.lineno, isTok.colno, test) : test;
  },

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
    if (this.skipSymbol("recursive")) this.fail("recursive loops are not supported", tag.lineno, tag.colno);
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

let originalParseIf: (this: any) => any;

export function installParserPatches(): void {
  const proto = nunjucks.parser.Parser.prototype as any;
  originalParseIf = proto.parseIf;
  Object.assign(proto, methods);
  const tokenizer = Object.getPrototypeOf(lexer.lex(""));
  tokenizer._parseString = function (this: any, delimiter: string) {
    this.forward();
    let raw = "";
    while (!this.isFinished() && this.current() !== delimiter) {
      if (this.current() === "\\") {
        raw += this.current();
        this.forward();
      }
      raw += this.current();
      this.forward();
    }
    if (this.isFinished()) throw new Error("unterminated string");
    this.forward();
    return pyUnescape(raw);
  };
}
