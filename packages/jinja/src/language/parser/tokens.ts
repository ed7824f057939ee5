import nunjucks from "nunjucks";

// Token helpers shared by the parser patches (nunjucks' lexer is kept; its tokens are read here).

export const { nodes } = nunjucks as any;
const { lexer } = nunjucks as any;

export const T = {
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

/** Parser methods installed on nunjucks' Parser; `this` is the parser. */
export type ParserMethods = Record<string, (this: any, ...args: any[]) => any>;

export function isOperator(tok: any, ...values: string[]): boolean {
  return tok?.type === T.operator && values.includes(tok.value);
}

export function isName(tok: any, value: string): boolean {
  return tok?.type === T.symbol && tok.value === value;
}

/** Whether token `b` starts right where token `a` ends. */
export function touches(a: any, b: any): boolean {
  return b && b.lineno === a.lineno && b.colno === a.colno + String(a.value).length;
}

/** Jinja2's integer literals: 1_000, 0x1F, 0o17, 0b101. */
export function intLiteral(text: string): number {
  const digits = text.replace(/_/g, "");
  const prefix = digits.slice(0, 2).toLowerCase();
  const base = prefix === "0x" ? 16 : prefix === "0o" ? 8 : prefix === "0b" ? 2 : 10;
  return base === 10 ? Number(digits) : parseInt(digits.slice(2), base);
}

/** A literal node; `isFloat` marks a float literal whose value is whole (12.0). */
export function literal(tok: any, value: unknown, isFloat = false): any {
  const node = new nodes.Literal(tok.lineno, tok.colno, value);
  if (isFloat) node.isFloat = true;
  return node;
}
