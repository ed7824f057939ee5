import { ARITHMETIC } from "./arithmetic";
import { ERRORS } from "./errors";
import { LIST_FILTERS } from "./list-filters";
import { LITERALS } from "./literals";
import { METHODS } from "./methods";
import { NUMBER_AND_HTML_FILTERS } from "./number-html-filters";
import { STATEMENTS } from "./statements";
import { STRING_FILTERS } from "./string-filters";
import { TESTS } from "./tests";
import { UNDEFINED } from "./undefined";

export { CORPUS_DATA, type CorpusCase } from "./types";

/** Every corpus template, by family. */
export const CORPUS = {
  literals: LITERALS,
  arithmetic: ARITHMETIC,
  "string filters": STRING_FILTERS,
  "list filters": LIST_FILTERS,
  "number and HTML filters": NUMBER_AND_HTML_FILTERS,
  tests: TESTS,
  statements: STATEMENTS,
  "string, list and dict methods": METHODS,
  undefined: UNDEFINED,
  errors: ERRORS,
};
