import nunjucks from "nunjucks";
import { operatorMethods } from "./operators";
import { parseStringLiteral, primaryMethods } from "./primary";
import { statementMethods } from "./statements";
import { lexer } from "./tokens";

export { withExtension } from "./statements";

// Jinja2's grammar on nunjucks' parser: its expression methods are replaced (operators.ts,
// primary.ts), `for`, `set` and `if` too (statements.ts), and string literals read Python's
// escapes. nunjucks' statement parsing (macro, call, filter, raw, block) is kept.

export function installParserPatches(): void {
  const proto = nunjucks.parser.Parser.prototype as any;
  Object.assign(proto, operatorMethods, primaryMethods, statementMethods(proto.parseIf));
  Object.getPrototypeOf(lexer.lex(""))._parseString = parseStringLiteral;
}
