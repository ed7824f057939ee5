import { jinjaNodes } from "../nodes";
import { intLiteral, isName, isOperator, literal, nodes, T, touches, type ParserMethods } from "./tokens";

// Jinja2's primary expressions: literals (True/False/None, adjacent strings, 1_000, 1.5e3,
// tuples, lists, dicts whose keys are expressions), `.attr` and `.0`, `[index]` and `[a:b:c]`,
// calls, `| filter(args)` and `is [not] test args` (one argument may go without parentheses).

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

export const primaryMethods: ParserMethods = {
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
};
