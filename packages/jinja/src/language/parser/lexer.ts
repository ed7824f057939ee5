import { pyUnescape } from "../string-literals";
import { T } from "./tokens";

// Two fixes to nunjucks' lexer, for the Jinja2 tokenizer of src/nunjucks-patches.ts: string
// literals read Python's escapes (string-literals.ts), and `}}` inside an open `{` is two closing
// braces, as in Jinja2 (`{{ {'a': {'b': 1}} }}`), not the end of the expression.

/** nunjucks' string lexer with Python's escapes (string-literals.ts). */
function parseStringLiteral(this: any, delimiter: string): string {
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
}

/** The tokenizer methods that replace nunjucks' own; `base` is nunjucks' tokenizer prototype. */
export function tokenizerMethods(base: {
  nextToken: () => any;
}): Record<string, (this: any, ...args: any[]) => any> {
  const nextToken = base.nextToken;
  return {
    _parseString: parseStringLiteral,
    nextToken(this: any) {
      if (this.in_code && this.openBraces > 0 && this.str.startsWith("}}", this.index)) {
        const token = { type: T.rightCurly, value: "}", lineno: this.lineno, colno: this.colno };
        this.forward();
        this.openBraces -= 1;
        return token;
      }
      const token = nextToken.call(this);
      if (token?.type === T.leftCurly) this.openBraces = (this.openBraces ?? 0) + 1;
      else if (token?.type === T.rightCurly) this.openBraces -= 1;
      else if (token && !this.in_code) this.openBraces = 0;
      return token;
    },
  };
}
