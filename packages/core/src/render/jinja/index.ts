import type nunjucks from "nunjucks";
import { installCompilerPatches } from "./compiler";
import { HTML_FILTERS } from "./filters/html-filters";
import { LIST_FILTERS } from "./filters/list-filters";
import { NUMBER_FILTERS } from "./filters/number-filters";
import { STRING_FILTERS } from "./filters/string-filters";
import { JINJA_TESTS } from "./filters/tests";
import { JINJA_GLOBALS } from "./globals";
import { installParserPatches, withExtension } from "./parser";
import { STR_METHOD_NAMES } from "./str-methods";

// Jinja2 3.1's language on nunjucks (docs/templates.md): its grammar, its operators and printing
// of values, and its builtin filters, tests and globals in place of nunjucks' own.

export { lookupMember } from "./members";
export { callable, py, output } from "./runtime-helpers";
export { jinjaNodes } from "./nodes";
export { LEFT_OUT_FILTERS } from "./left-out";

export const JINJA_FILTERS = { ...STRING_FILTERS, ...LIST_FILTERS, ...NUMBER_FILTERS, ...HTML_FILTERS };

/** The names templates can use (filters, tests, str methods): the hostile-input corpus covers each. */
export function templateLanguageNames(): { filters: string[]; tests: string[]; strMethods: string[] } {
  return {
    filters: Object.keys(JINJA_FILTERS),
    tests: Object.keys(JINJA_TESTS),
    strMethods: [...STR_METHOD_NAMES],
  };
}

let installed = false;

/** Patches nunjucks' shared parser and compiler once, before any template compiles. */
export function installJinjaLanguage(): void {
  if (installed) return;
  installed = true;
  installParserPatches();
  installCompilerPatches();
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
