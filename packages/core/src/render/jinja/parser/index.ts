import nunjucks from "nunjucks";
import { operatorMethods } from "./operators";
import { installLexerPatches } from "./lexer";
import { primaryMethods } from "./primary";
import { statementMethods } from "./statements";

export { withExtension } from "./statements";

// Jinja2's grammar on nunjucks' parser: its expression methods are replaced (operators.ts,
// primary.ts), `for`, `set` and `if` too (statements.ts), and two lexer fixes (lexer.ts).
// nunjucks' statement parsing (macro, call, filter, raw, block) is kept.

export function installParserPatches(): void {
  const proto = nunjucks.parser.Parser.prototype as any;
  Object.assign(proto, operatorMethods, primaryMethods, statementMethods(proto.parseIf));
  installLexerPatches();
}
