import type nunjucks from "nunjucks";
import { HTML_FILTERS } from "./filters/html-filters";
import { LIST_FILTERS } from "./filters/list-filters";
import { NUMBER_FILTERS } from "./filters/number-filters";
import { STRING_FILTERS } from "./filters/string-filters";
import { JINJA_TESTS } from "./filters/tests";
import { JINJA_GLOBALS } from "./globals";
import { withExtension } from "./parser";
import { STR_METHOD_NAMES } from "./str-methods";

// Jinja2 3.1's language on nunjucks (docs/templates.md): its grammar, its operators and printing
// of values, and its builtin filters, tests and globals in place of nunjucks' own. The grammar and
// the semantics are methods here; src/nunjucks-patches.ts puts them on its own subclasses of
// nunjucks' lexer, parser and compiler (nothing in this folder changes nunjucks itself).

export { lookupMember } from "./members";
export { callable, py, output } from "./runtime-helpers";
export { jinjaNodes } from "./nodes";
export { compilerMethods } from "./compiler";
export { parserMethods, tokenizerMethods } from "./parser";
export { LEFT_OUT_FILTERS } from "./left-out";

const JINJA_FILTERS = { ...STRING_FILTERS, ...LIST_FILTERS, ...NUMBER_FILTERS, ...HTML_FILTERS };

/** The names templates can use (filters, tests, str methods): the hostile-input corpus covers each. */
export function templateLanguageNames(): { filters: string[]; tests: string[]; strMethods: string[] } {
  return {
    filters: Object.keys(JINJA_FILTERS),
    tests: Object.keys(JINJA_TESTS),
    strMethods: [...STR_METHOD_NAMES],
  };
}

/** Gives an environment Jinja2's filters, tests and globals (and nothing of nunjucks' own). */
export function setUpJinjaEnvironment(env: nunjucks.Environment): void {
  const target = env as any;
  target.filters = {};
  target.tests = {};
  for (const [name, fn] of Object.entries(JINJA_FILTERS)) env.addFilter(name, fn as any);
  for (const [name, fn] of Object.entries(JINJA_TESTS)) target.addTest(name, fn);
  for (const [name, value] of Object.entries(JINJA_GLOBALS)) env.addGlobal(name, value);
  target.addExtension("JinjaWith", withExtension);
}
