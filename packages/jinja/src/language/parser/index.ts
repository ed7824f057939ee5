import { operatorMethods } from "./operators";
import { primaryMethods } from "./primary";
import { statementMethods } from "./statements";
import type { ParserMethods } from "./tokens";

export { withExtension } from "./statements";
export { tokenizerMethods } from "./lexer";

// Jinja2's grammar on nunjucks' parser: its expression methods are replaced (operators.ts,
// primary.ts), `for`, `set` and `if` too (statements.ts), and two lexer fixes (lexer.ts).
// nunjucks' statement parsing (macro, call, filter, raw, block) is kept. The methods go on the
// Jinja2 parser of src/nunjucks-patches.ts, a subclass of nunjucks' own.

/** The parser methods that replace nunjucks' own; `base` is nunjucks' parser prototype. */
export function parserMethods(base: { parseIf: (...args: any[]) => any }): ParserMethods {
  return { ...operatorMethods, ...primaryMethods, ...statementMethods(base.parseIf) };
}
